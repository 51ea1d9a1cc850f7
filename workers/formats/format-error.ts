/** The most characters a whole message has, the notes of what was cut included. */
export const MAX_MESSAGE_SHOWN = 400;
/** The most characters of a file name a message shows; a longer one is cut, saying how much. */
export const MAX_FILE_NAME_SHOWN = 120;
/** The most characters of a place (`line 12`, `/accessors/3`) a message shows. */
export const MAX_PLACE_SHOWN = 80;
/**
 * Room for what printableLine may add past its limit: the last character's escape (`\u{f0000}`, up to 8 more) and the
 * note of what was cut, `… (N more characters)` (20 characters and N's digits, up to 16).
 */
const CUT_NOTE_ROOM = 44;

/** Whitespace that is not a plain space (tabs, line and paragraph breaks): a message shows one space for a run of them. */
const OTHER_SPACE = /^[\t\n\v\f\r\u0085\u2028\u2029]$/;
/**
 * Characters a terminal or a page does not show as themselves: controls (C0, DEL, C1: escape sequences start with
 * them), format characters (bidirectional overrides, zero-width characters, the byte-order mark), lone surrogates,
 * private-use and unassigned code points.
 */
const NON_PRINTABLE = /^[\p{C}\p{Zl}\p{Zp}]$/u;

/**
 * One character (a code point) as a message shows it: itself when printable, else its code as `\uXXXX` (`\u{XXXXX}`
 * above the BMP), so that a terminal or a page shows it and plays none.
 */
export function printableCharacter(char: string): string {
  if (!NON_PRINTABLE.test(char)) return char;
  const code = char.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A character a message names, by code point: `'x'` when it is printable ASCII, else `U+XXXX`. */
export function namedCharacter(code: number): string {
  return code > 32 && code < 127 ? `'${String.fromCharCode(code)}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Text as one printable line of at most `max` characters (plus the note of what was cut): a run of whitespace
 * with tabs or line breaks in it becomes one space (plain spaces stay as they are), other non-printable characters are shown as `\uXXXX` (`\u{XXXXX}` above the BMP), and a
 * longer text is cut, saying how much, so that a file of escape sequences or megabytes of one token cannot
 * reach a terminal or flood a message. Reads at most `max` code points of `text`.
 * @param text  what to show: a file name, a token, a system message
 * @param max   most characters of the result before the note `… (N more characters)`
 */
export function printableLine(text: string, max: number): string {
  let out = '';
  let i = 0;
  /** inside a run of whitespace that holds a tab or line break (shown as one space) */
  let inRun = false;
  while (i < text.length && out.length < max) {
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    i += char.length;
    if (OTHER_SPACE.test(char)) {
      if (!inRun) out = `${out.trimEnd()} `;
      inRun = true;
      continue;
    }
    if (char === ' ' && inRun) continue;
    inRun = false;
    out += printableCharacter(char);
  }
  return i < text.length ? `${out}… (${text.length - i} more characters)` : out;
}

/**
 * The one error type every reader throws on bad input. Its message always names the file, the place
 * (line, or entry) and the reason, e.g. `hand.off: line 12: face has 2 vertex indices, needs at least 3`, on one
 * line of printable characters: whatever the parts quote from a file (names, tokens, URIs) is passed through
 * printableLine and clamped (MAX_FILE_NAME_SHOWN, MAX_PLACE_SHOWN; the reason to what they leave of
 * MAX_MESSAGE_SHOWN), so the whole message is at most MAX_MESSAGE_SHOWN characters. Callers (UI, CLI) show
 * `message` as it is.
 */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  /** file name as the user knows it (no directories needed), printable */
  readonly file: string;
  /** place in the file: `line 12`, `row 3 column 2`, `bone 4`, or '' when the whole file is at fault, printable */
  readonly where: string;
  /** what is wrong, in words an artist understands, printable */
  readonly reason: string;
  /**
   * @param file   file name as the user knows it (no directories needed)
   * @param where  place in the file: `line 12`, `row 3 column 2`, `bone 4`, or '' when the whole file is at fault
   * @param reason what is wrong, in words an artist understands
   */
  constructor(file: string, where: string, reason: string) {
    const shownFile = printableLine(file, MAX_FILE_NAME_SHOWN);
    const shownWhere = printableLine(where, MAX_PLACE_SHOWN);
    // The reason gets what file and place leave of MAX_MESSAGE_SHOWN, less the room for its own cut.
    const prefix = shownFile.length + (shownWhere ? shownWhere.length + 2 : 0) + 2;
    const shownReason = printableLine(reason, MAX_MESSAGE_SHOWN - prefix - CUT_NOTE_ROOM);
    super(shownWhere ? `${shownFile}: ${shownWhere}: ${shownReason}` : `${shownFile}: ${shownReason}`);
    this.file = shownFile;
    this.where = shownWhere;
    this.reason = shownReason;
  }
}
