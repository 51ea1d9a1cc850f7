import { FormatError, printableCharacter } from './format-error.ts';

const SPACE = 32;
const TAB = 9;
const CR = 13;
const LF = 10;
const HASH = 35;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const SLASH = 47;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;

/** Exact powers of ten: 10^k is representable exactly in a double for k ≤ 22. */
const EXACT_POW10 = new Float64Array(23);
for (let k = 0, p = 1; k <= 22; k++, p *= 10) EXACT_POW10[k] = p;

/**
 * Mantissas with at most 15 significant digits are exact doubles; combined with an exact power of ten, one
 * multiplication or division is a single correctly rounded operation (Clinger 1990, "How to read floating point
 * numbers accurately", the fast path). Everything else goes to the engine's own correctly rounded parser.
 */
const MAX_FAST_DIGITS = 15;
const MAX_FAST_EXPONENT = 22;

const NON_FINITE_LITERAL = /^[+-]?(?:1\.#)?(?:q?nan|inf|infinity|ind)(?:\(.*\))?$/i;

/** Characters of a token an error message shows; longer tokens are cut and their length given. */
export const MAX_EXCERPT_LENGTH = 40;

/**
 * A token as an error message may quote it: at most MAX_EXCERPT_LENGTH characters, control and other non-printable
 * characters shown as `\uXXXX`, and for a longer one the count of characters left out (a file of 300 MB of zeros
 * must not print them).
 */
export function excerpt(token: string): string {
  const shown = token.length > MAX_EXCERPT_LENGTH ? token.slice(0, MAX_EXCERPT_LENGTH) : token;
  let visible = '';
  // Tabs and line breaks too are shown as codes (printableCharacter); a pair cut in two by the slice is a lone surrogate.
  for (const char of shown) visible += printableCharacter(char);
  return token.length > MAX_EXCERPT_LENGTH ? `${visible}… (${token.length} characters)` : visible;
}

/**
 * The text with every line break as `\n` (`\r\n` and a lone `\r` replaced), line for line: for readers that judge
 * a file by its length (how many values it can hold), so that \n, \r\n and \r files get the same answer.
 */
export function withNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * A cursor over the text of a line-oriented file (OBJ, OFF, TGF, ASCII DMAT, MTL) that reads numbers without
 * allocating and knows its line number, so every error can name `file: line N`.
 *
 * Lines end at `\n`, `\r\n` or a lone `\r` (Unix, Windows and classic Mac OS files read alike); spaces and tabs
 * separate tokens. Every method reads each character a bounded number of times, so the time is linear in the text.
 */
export class TextScanner {
  readonly text: string;
  readonly file: string;
  readonly length: number;
  /** index of the next character to read */
  pos = 0;
  /** 1-based number of the line that holds `pos` */
  line = 1;

  constructor(text: string, file: string) {
    this.text = text;
    this.file = file;
    this.length = text.length;
  }

  /** True when every character has been read. */
  atEnd(): boolean {
    return this.pos >= this.length;
  }

  /** Character code at `pos`, or -1 at the end of the text. */
  peek(): number {
    return this.pos < this.length ? this.text.charCodeAt(this.pos) : -1;
  }

  /** Skips spaces and tabs, staying on the current line. */
  skipSpaces(): void {
    const text = this.text;
    const length = this.length;
    let i = this.pos;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c !== SPACE && c !== TAB) break;
      i++;
    }
    this.pos = i;
  }

  /**
   * Skips spaces and tells whether a token follows on this line. A `#` ends the line's content when
   * `hashIsComment` is set (OFF allows trailing comments; OBJ and TGF only whole-line ones).
   */
  hasToken(hashIsComment = false): boolean {
    this.skipSpaces();
    const c = this.peek();
    return c !== -1 && c !== LF && c !== CR && !(hashIsComment && c === HASH);
  }

  /** Index of the line break (`\n` or `\r`) that ends the current line, or the text's length for the last line. */
  lineEnd(): number {
    const text = this.text;
    const length = this.length;
    let i = this.pos;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === LF || c === CR) break;
      i++;
    }
    return i;
  }

  /** The rest of the current line from `pos`, without its line break and surrounding whitespace; does not move. */
  restOfLine(): string {
    return this.text.slice(this.pos, this.lineEnd()).trim();
  }

  /** Moves past the end of the current line (or to the end of the text). */
  nextLine(): void {
    const end = this.lineEnd();
    if (end >= this.length) {
      this.pos = this.length;
      return;
    }
    this.pos = end + (this.text.charCodeAt(end) === CR && this.text.charCodeAt(end + 1) === LF ? 2 : 1);
    this.line++;
  }

  /** Skips whitespace including line breaks, counting lines (`\r\n` is one). */
  skipWhitespace(): void {
    const text = this.text;
    const length = this.length;
    let i = this.pos;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === LF) {
        if (i === 0 || text.charCodeAt(i - 1) !== CR) this.line++;
      } else if (c === CR) this.line++;
      else if (c !== SPACE && c !== TAB) break;
      i++;
    }
    this.pos = i;
  }

  /** Starting at `pos`, the text up to the next whitespace; does not move. */
  peekToken(): string {
    const text = this.text;
    let end = this.pos;
    while (end < this.length) {
      const c = text.charCodeAt(end);
      if (c === SPACE || c === TAB || c === CR || c === LF) break;
      end++;
    }
    return text.slice(this.pos, end);
  }

  /**
   * Reads a decimal number token (`-1.5`, `.5`, `2e-3`, `+7`) that ends at whitespace or the end of the text.
   * Literals such as `nan`, `-inf`, `1.#QNAN` return NaN or ±Infinity so that the caller can name the entry;
   * any other token throws a FormatError naming this line. Call only when `hasToken()` is true.
   * @param what noun for the error message, e.g. `vertex coordinate`
   */
  number(what: string): number {
    const text = this.text;
    const length = this.length;
    const start = this.pos;
    let i = start;
    let c = i < length ? text.charCodeAt(i) : -1;
    let negative = false;
    if (c === MINUS || c === PLUS) {
      negative = c === MINUS;
      c = ++i < length ? text.charCodeAt(i) : -1;
    }
    let mantissa = 0;
    let significant = 0;
    let exponent = 0;
    let anyDigit = false;
    let exact = true;
    while (c >= ZERO && c <= NINE) {
      anyDigit = true;
      if (mantissa !== 0 || c !== ZERO) {
        if (significant < MAX_FAST_DIGITS) {
          mantissa = mantissa * 10 + (c - ZERO);
          significant++;
        } else {
          exact = false;
        }
      }
      c = ++i < length ? text.charCodeAt(i) : -1;
    }
    if (c === DOT) {
      c = ++i < length ? text.charCodeAt(i) : -1;
      while (c >= ZERO && c <= NINE) {
        anyDigit = true;
        if (mantissa !== 0 || c !== ZERO) {
          if (significant < MAX_FAST_DIGITS) {
            mantissa = mantissa * 10 + (c - ZERO);
            significant++;
          } else {
            exact = false;
          }
        }
        exponent--;
        c = ++i < length ? text.charCodeAt(i) : -1;
      }
    }
    if (anyDigit && (c === LOWER_E || c === UPPER_E)) {
      c = ++i < length ? text.charCodeAt(i) : -1;
      let exponentNegative = false;
      if (c === MINUS || c === PLUS) {
        exponentNegative = c === MINUS;
        c = ++i < length ? text.charCodeAt(i) : -1;
      }
      let written = 0;
      let anyExponentDigit = false;
      while (c >= ZERO && c <= NINE) {
        anyExponentDigit = true;
        if (written < 100000) written = written * 10 + (c - ZERO);
        c = ++i < length ? text.charCodeAt(i) : -1;
      }
      if (!anyExponentDigit) anyDigit = false;
      exponent += exponentNegative ? -written : written;
    }
    if (!anyDigit || (c !== -1 && c !== SPACE && c !== TAB && c !== CR && c !== LF)) {
      return this.nonNumeric(what);
    }
    this.pos = i;
    if (exact && exponent >= -MAX_FAST_EXPONENT && exponent <= MAX_FAST_EXPONENT) {
      const magnitude = exponent >= 0 ? mantissa * EXACT_POW10[exponent] : mantissa / EXACT_POW10[-exponent];
      return negative ? -magnitude : magnitude;
    }
    return Number(text.slice(start, i));
  }

  /**
   * Reads a whole number (`12`, `-3`) that ends at whitespace, the end of the text, or a `/` when `slashEnds`
   * (OBJ face corners `v/vt/vn`). Throws a FormatError naming this line for anything else.
   * @param what noun for the error message, e.g. `vertex index`
   */
  integer(what: string, slashEnds = false): number {
    const text = this.text;
    const length = this.length;
    let i = this.pos;
    let c = i < length ? text.charCodeAt(i) : -1;
    let negative = false;
    if (c === MINUS || c === PLUS) {
      negative = c === MINUS;
      c = ++i < length ? text.charCodeAt(i) : -1;
    }
    let value = 0;
    let anyDigit = false;
    while (c >= ZERO && c <= NINE) {
      anyDigit = true;
      // Beyond 2^53 the value is meaningless as an index anyway; keep it large but exact enough to report.
      if (value < 1e15) value = value * 10 + (c - ZERO);
      c = ++i < length ? text.charCodeAt(i) : -1;
    }
    if (!anyDigit || (c !== -1 && c !== SPACE && c !== TAB && c !== CR && c !== LF && !(slashEnds && c === SLASH))) {
      const token = slashEnds ? this.peekToken().split('/')[0] : this.peekToken();
      this.fail(`${what} '${excerpt(token)}' is not a whole number`);
    }
    this.pos = i;
    return negative ? -value : value;
  }

  private nonNumeric(what: string): number {
    const token = this.peekToken();
    if (NON_FINITE_LITERAL.test(token)) {
      this.pos += token.length;
      const lower = token.toLowerCase();
      if (lower.includes('inf') && !lower.includes('nan')) return token.startsWith('-') ? -Infinity : Infinity;
      return NaN;
    }
    return this.fail(`${what} '${excerpt(token)}' is not a number`);
  }

  /**
   * True when the current line is the last one and has no line break, i.e. the text stops inside it —
   * the usual sign of a file cut off during a copy or download.
   */
  onUnterminatedLastLine(): boolean {
    if (this.length === 0 || this.lineEnd() < this.length) return false;
    const last = this.text.charCodeAt(this.length - 1);
    return last !== LF && last !== CR;
  }

  /** Throws a FormatError for the current line. */
  fail(reason: string): never {
    throw new FormatError(this.file, `line ${this.line}`, reason);
  }

  /**
   * Throws a FormatError for a line that has fewer entries than it needs; if the file ends inside this line,
   * the message says it looks truncated.
   */
  failShort(reason: string): never {
    const hint = this.onUnterminatedLastLine() ? ' (the file ends in the middle of this line; it looks truncated)' : '';
    throw new FormatError(this.file, `line ${this.line}`, reason + hint);
  }
}

/** Describes a non-finite value for an error message. */
export function describeNonFinite(value: number): string {
  return Number.isNaN(value) ? 'is NaN (not a number)' : 'is infinite';
}

/** Shortest text that parses back to exactly `value` (ECMAScript Number::toString), keeping the sign of zero. */
export function exactNumberText(value: number): string {
  return value === 0 && 1 / value < 0 ? '-0' : String(value);
}
