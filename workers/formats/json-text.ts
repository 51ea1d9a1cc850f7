/**
 * glTF JSON text: parsed with JSON.parse, and when that fails, described in our words: the line and column of the
 * first character at fault and what was expected there (`not valid JSON: ',' or '}' expected, found ']'`), found by
 * a second, checking pass over the text (jsonSyntaxError). The engine's own message is never shown: it quotes the
 * file's bytes and changes between engine versions.
 *
 * A text longer than MAX_TEXT_FILE_BYTES is refused from its byte length, before it is decoded (a string of more
 * than about 512 M characters cannot be made, and the engine's error names no file).
 */
import { FormatError, namedCharacter } from './format-error.ts';
import { MAX_TEXT_FILE_BYTES } from './read-file.ts';

/** Where a JSON text stops being JSON: the index of the character at fault and why. */
export interface JsonSyntaxError {
  /** UTF-16 index into the text (its length when the text ends too soon) */
  index: number;
  reason: string;
  /** true when a whole JSON value was read and something other than whitespace follows it */
  trailing: boolean;
}

const OBJECT = 1;
const ARRAY = 2;

const isJsonSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * The first place where `text` is not JSON (RFC 8259), or null when it is. One pass without recursion, each
 * character looked at a bounded number of times (a leading byte-order mark is skipped).
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  const n = text.length;
  const stack: number[] = [];
  /** what may come next: a value; a value or `]`; a key; a key or `}`; `:`; `,` or the closer (or the end) */
  let expect: 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'next' = 'value';
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (index: number, reason: string, trailing = false): JsonSyntaxError => ({ index, reason, trailing });
  const container = (): string => (stack[stack.length - 1] === OBJECT ? 'an object' : 'an array');
  /** The index after the string starting at `start` (a `"`), or the error inside it. */
  const stringEnd = (start: number): number | JsonSyntaxError => {
    let k = start + 1;
    while (k < n) {
      const c = text.charCodeAt(k);
      if (c === 34) return k + 1;
      if (c < 32)
        return fail(k, `a control character (${namedCharacter(text.codePointAt(k)!)}) inside a string; write it as an escape such as \\n`);
      if (c === 92) {
        const e = k + 1 < n ? text.charCodeAt(k + 1) : -1;
        if (e === 117) {
          for (let h = k + 2; h < k + 6; h++)
            if (h >= n || !isHex(text.charCodeAt(h))) return fail(k, 'a \\u escape needs four hexadecimal digits');
          k += 6;
          continue;
        }
        // " \ / b f n r t
        if ([34, 92, 47, 98, 102, 110, 114, 116].includes(e)) {
          k += 2;
          continue;
        }
        return fail(
          k,
          e < 0 ? 'the text ends inside a string' : `'\\' followed by ${namedCharacter(text.codePointAt(k + 1)!)} is not a JSON escape`,
        );
      }
      k++;
    }
    return fail(n, 'the text ends inside a string');
  };
  /** The index after the number starting at `start`, or the error inside it. */
  const numberEnd = (start: number): number | JsonSyntaxError => {
    let k = start;
    if (text.charCodeAt(k) === 45) k++;
    if (!isDigit(text.charCodeAt(k))) return fail(k, "a '-' must be followed by digits");
    if (text.charCodeAt(k) === 48) k++;
    else while (isDigit(text.charCodeAt(k))) k++;
    if (text.charCodeAt(k) === 46) {
      k++;
      if (!isDigit(text.charCodeAt(k))) return fail(k, "a '.' in a number must be followed by digits");
      while (isDigit(text.charCodeAt(k))) k++;
    }
    if (text.charCodeAt(k) === 101 || text.charCodeAt(k) === 69) {
      k++;
      if (text.charCodeAt(k) === 43 || text.charCodeAt(k) === 45) k++;
      if (!isDigit(text.charCodeAt(k))) return fail(k, 'an exponent must have digits');
      while (isDigit(text.charCodeAt(k))) k++;
    }
    return k;
  };

  for (;;) {
    while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
    if (i >= n) {
      if (expect === 'next' && stack.length === 0) return null;
      return fail(n, stack.length > 0 ? `the text ends inside ${container()}` : 'the text holds no value');
    }
    const c = text.charCodeAt(i);
    switch (expect) {
      case 'value':
      case 'valueOrClose': {
        if (expect === 'valueOrClose' && c === 93) {
          stack.pop();
          i++;
          expect = 'next';
          break;
        }
        if (c === 123 || c === 91) {
          stack.push(c === 123 ? OBJECT : ARRAY);
          i++;
          expect = c === 123 ? 'keyOrClose' : 'valueOrClose';
          break;
        }
        let end: number | JsonSyntaxError | undefined;
        if (c === 34) end = stringEnd(i);
        else if (c === 45 || isDigit(c)) end = numberEnd(i);
        else {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          if (literal) end = i + literal.length;
        }
        if (end === undefined) return fail(i, `${namedCharacter(text.codePointAt(i)!)} where a value should be`);
        if (typeof end !== 'number') return end;
        i = end;
        expect = 'next';
        break;
      }
      case 'key':
      case 'keyOrClose': {
        if (expect === 'keyOrClose' && c === 125) {
          stack.pop();
          i++;
          expect = 'next';
          break;
        }
        if (c !== 34) return fail(i, `${namedCharacter(text.codePointAt(i)!)} where a key (a string in double quotes) should be`);
        const end = stringEnd(i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (c !== 58) return fail(i, `':' expected after the key, found ${namedCharacter(text.codePointAt(i)!)}`);
        i++;
        expect = 'value';
        break;
      case 'next': {
        if (stack.length === 0) return fail(i, `${namedCharacter(text.codePointAt(i)!)} after the end of the JSON value`, true);
        const object = stack[stack.length - 1] === OBJECT;
        if (c === 44) {
          i++;
          expect = object ? 'key' : 'value';
        } else if (c === (object ? 125 : 93)) {
          stack.pop();
          i++;
        } else return fail(i, `',' or '${object ? '}' : ']'}' expected in ${container()}, found ${namedCharacter(text.codePointAt(i)!)}`);
        break;
      }
    }
  }
}

/** 1-based line and column of a UTF-16 index (`\n`, `\r\n` and `\r` end lines). */
export function lineAndColumn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < index && k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 10 || (c === 13 && text.charCodeAt(k + 1) !== 10)) {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: index - lineStart + 1 };
}

/**
 * Why a text that JSON.parse refused is not JSON, in our words: `not valid JSON at line 3, column 14: ',' or '}'
 * expected in an object, found ']'` (or only `not valid JSON` should the checking pass find nothing).
 */
export function describeJsonError(text: string): string {
  const error = jsonSyntaxError(text);
  if (!error) return 'not valid JSON';
  const { line, column } = lineAndColumn(text, error.index);
  return `not valid JSON at line ${line}, column ${column}: ${error.reason}`;
}

const MIB = 1024 * 1024;

/**
 * Parses glTF JSON: a .gltf file, or a GLB's JSON chunk (UTF-8; a byte-order mark is dropped).
 * @param bytes  the text's bytes
 * @param file   file name for messages
 * @param inGlb  the bytes are the JSON chunk of a GLB (messages name `GLB chunk 0`), not a whole file
 * @throws FormatError naming the file and the place: a text over MAX_TEXT_FILE_BYTES; for a file that is neither
 *   GLB nor starts as JSON, that it is neither; for a GLB chunk whose length runs past its JSON, that it does;
 *   otherwise the line and column where the text stops being JSON and why
 */
export function parseGltfJsonText(bytes: Uint8Array, file: string, inGlb: boolean): unknown {
  if (bytes.length > MAX_TEXT_FILE_BYTES) {
    const size = `${bytes.length} bytes (${Math.round(bytes.length / MIB)} MiB)`;
    throw inGlb
      ? new FormatError(file, 'GLB chunk 0', `the JSON chunk has ${size}, more than the ${MAX_TEXT_FILE_BYTES / MIB} MiB Rigwright reads`)
      : new FormatError(
          file,
          '',
          `neither GLB nor glTF JSON: it does not start with 'glTF', and a glTF JSON text of ${size} is more than the ${MAX_TEXT_FILE_BYTES / MIB} MiB Rigwright reads`,
        );
  }
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // Described below in our words.
  }
  const error = jsonSyntaxError(text);
  const start = text.search(/[^\s\uFEFF]/);
  if (!inGlb && (start < 0 || (text[start] !== '{' && text[start] !== '['))) {
    throw new FormatError(
      file,
      '',
      start < 0 ? 'neither GLB nor glTF JSON: the file is empty' : "neither GLB nor glTF JSON: it starts with neither 'glTF' nor '{'",
    );
  }
  if (!error) throw new FormatError(file, inGlb ? 'GLB chunk 0' : '', 'not valid JSON');
  if (inGlb && error.trailing) {
    const end = new TextEncoder().encode(text.slice(0, error.index)).length;
    const intoBin = bytes
      .subarray(end)
      .some((b, k, rest) => b === 0x42 && rest[k + 1] === 0x49 && rest[k + 2] === 0x4e && rest[k + 3] === 0);
    throw new FormatError(
      file,
      'GLB chunk 0',
      intoBin
        ? `the JSON chunk's length (${bytes.length} bytes) runs past the end of its JSON at byte ${end} into the BIN chunk`
        : `the JSON chunk holds ${bytes.length - end} bytes after its JSON ends at byte ${end} (a JSON chunk is padded with spaces only)`,
    );
  }
  const { line, column } = lineAndColumn(text, error.index);
  throw new FormatError(file, `${inGlb ? 'GLB chunk 0, ' : ''}line ${line}, column ${column}`, `not valid JSON: ${error.reason}`);
}
