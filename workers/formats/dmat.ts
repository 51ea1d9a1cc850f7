/**
 * libigl's dense matrix file (`igl::readDMAT` / `igl::writeDMAT`).
 *
 * Layout: the first line is `cols rows` (columns first). ASCII files then list the cols·rows values in
 * column-major order, separated by any whitespace. Binary files start with the line `0 0`, then `cols rows\n`,
 * then cols·rows little-endian float64 values, also column-major. In memory we keep the row-major DenseMatrix.
 * Header lines end at `\n`, `\r\n` or a lone `\r`, as the lines of the ASCII values do.
 */
import { FormatError } from './format-error.ts';
import { MAX_EXCERPT_LENGTH, TextScanner, describeNonFinite, exactNumberText, excerpt, withNewlines } from './text-scanner.ts';
import type { DenseMatrix } from './types.ts';

const LF = 10;
const CR = 13;

/**
 * Reads a DMAT file, ASCII or binary.
 * @param bytes the whole file
 * @param file  file name for error messages
 * @returns the matrix, row-major: entry (r, c) at data[r·cols + c]
 * @throws FormatError on a bad header, too few or too many values, a non-numeric token (names the line),
 *         a NaN or infinite value (names row and column, 1-based), or truncated binary data
 */
export function readDmat(bytes: Uint8Array, file: string): DenseMatrix {
  const firstBreak = lineBreak(bytes, 0);
  const firstLine = latin1(bytes, 0, firstBreak < 0 ? bytes.length : firstBreak);
  const [cols, rows] = parseHeader(firstLine, file, 1);
  if (cols === 0 && rows === 0 && firstBreak >= 0 && afterLineBreak(bytes, firstBreak) < bytes.length) {
    return readBinaryBody(bytes, afterLineBreak(bytes, firstBreak), file);
  }
  return readAsciiBody(withNewlines(new TextDecoder().decode(bytes)), cols, rows, file);
}

/** Index of the first `\n` or `\r` at or after `from`, or -1. */
function lineBreak(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) if (bytes[i] === LF || bytes[i] === CR) return i;
  return -1;
}

/** Index just past the line break at `at` (`\r\n` is one break). */
function afterLineBreak(bytes: Uint8Array, at: number): number {
  return at + (bytes[at] === CR && bytes[at + 1] === LF ? 2 : 1);
}

/** Decodes a short ASCII header without going through TextDecoder. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end && i - start < 200; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

function parseHeader(line: string, file: string, lineNumber: number): [cols: number, rows: number] {
  const match = /^[ \t]*(\d+)[ \t]+(\d+)[ \t]*$/.exec(line);
  if (!match) {
    const trimmed = line.trim();
    const shown = trimmed.length > MAX_EXCERPT_LENGTH ? `${excerpt(trimmed.slice(0, MAX_EXCERPT_LENGTH))}…` : excerpt(trimmed);
    throw new FormatError(file, `line ${lineNumber}`, `a DMAT header must be two whole numbers 'columns rows', found '${shown}'`);
  }
  const cols = Number(match[1]);
  const rows = Number(match[2]);
  if (!Number.isSafeInteger(cols * rows)) {
    throw new FormatError(file, `line ${lineNumber}`, `header announces ${cols} columns × ${rows} rows, which is too large`);
  }
  return [cols, rows];
}

function readAsciiBody(text: string, cols: number, rows: number, file: string): DenseMatrix {
  const count = cols * rows;
  // Every value needs at least one character and a separator: reject impossible headers before allocating.
  const length = text.length;
  if (count > length) {
    throw new FormatError(
      file,
      'line 1',
      `header announces ${cols} columns × ${rows} rows = ${count} values, but the file is only ${length} characters long (a line break counted as one)`,
    );
  }
  const scanner: TextScanner = new TextScanner(text, file);
  scanner.nextLine();
  const data = new Float64Array(count);
  let row = 0;
  let col = 0;
  let lastValueLine = 1;
  for (let k = 0; k < count; k++) {
    scanner.skipWhitespace();
    if (scanner.atEnd()) {
      throw new FormatError(
        file,
        `line ${lastValueLine}`,
        `the file ends after ${k} of the ${count} values announced by its header (${cols} columns × ${rows} rows); row ${row + 1} column ${col + 1} is missing`,
      );
    }
    const value = scanner.number('value');
    if (!Number.isFinite(value)) {
      throw new FormatError(file, `line ${scanner.line}, row ${row + 1} column ${col + 1}`, `value ${describeNonFinite(value)}`);
    }
    data[row * cols + col] = value;
    lastValueLine = scanner.line;
    if (++row === rows) {
      row = 0;
      col++;
    }
  }
  scanner.skipWhitespace();
  if (!scanner.atEnd()) {
    throw new FormatError(
      file,
      `line ${scanner.line}`,
      `more values than the ${count} announced by the header (${cols} columns × ${rows} rows), starting with '${excerpt(scanner.peekToken())}'`,
    );
  }
  return { rows, cols, data };
}

function readBinaryBody(bytes: Uint8Array, start: number, file: string): DenseMatrix {
  const secondBreak = lineBreak(bytes, start);
  if (secondBreak < 0) {
    throw new FormatError(file, 'line 2', 'binary DMAT (header 0 0) but the second header line with columns and rows is missing');
  }
  const [cols, rows] = parseHeader(latin1(bytes, start, secondBreak), file, 2);
  const count = cols * rows;
  // `\r` then a first data byte 0x0A reads like `\r\n`: the data's size tells which it is.
  let dataStart = afterLineBreak(bytes, secondBreak);
  if (dataStart === secondBreak + 2 && bytes.length - dataStart !== count * 8 && bytes.length - secondBreak - 1 === count * 8) {
    dataStart = secondBreak + 1;
  }
  const available = bytes.length - dataStart;
  if (available < count * 8) {
    throw new FormatError(
      file,
      'binary data',
      `the file ends after ${Math.floor(available / 8)} of the ${count} values announced by its header (${cols} columns × ${rows} rows); it looks truncated`,
    );
  }
  if (available > count * 8) {
    throw new FormatError(
      file,
      'binary data',
      `${available - count * 8} bytes follow the ${count} values announced by the header (${cols} columns × ${rows} rows)`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + dataStart, count * 8);
  const data = new Float64Array(count);
  let k = 0;
  for (let c = 0; c < cols; c++) {
    for (let r = 0; r < rows; r++, k++) {
      const value = view.getFloat64(k * 8, true);
      if (!Number.isFinite(value)) {
        throw new FormatError(file, `row ${r + 1} column ${c + 1}`, `value ${describeNonFinite(value)}`);
      }
      data[r * cols + c] = value;
    }
  }
  return { rows, cols, data };
}

/**
 * Writes an ASCII DMAT: header `cols rows`, then one value per line, column-major, each with the fewest digits
 * that read back to the identical double (so write → read is bit-exact).
 * @param m row-major matrix; its values must be finite
 * @returns the file text
 */
export function writeDmatAscii(m: DenseMatrix): string {
  const { rows, cols, data } = m;
  const parts = new Array<string>(rows * cols + 2);
  parts[0] = `${cols} ${rows}`;
  let k = 1;
  for (let c = 0; c < cols; c++) {
    for (let r = 0; r < rows; r++) parts[k++] = exactNumberText(data[r * cols + c]);
  }
  parts[k] = '';
  return parts.join('\n');
}

/**
 * Writes a binary DMAT: `0 0\n`, `cols rows\n`, then little-endian float64 values, column-major.
 * @param m row-major matrix
 * @returns the file bytes
 */
export function writeDmatBinary(m: DenseMatrix): Uint8Array {
  const { rows, cols, data } = m;
  const header = new TextEncoder().encode(`0 0\n${cols} ${rows}\n`);
  const out = new Uint8Array(header.length + rows * cols * 8);
  out.set(header, 0);
  const view = new DataView(out.buffer, header.length);
  let k = 0;
  for (let c = 0; c < cols; c++) {
    for (let r = 0; r < rows; r++, k++) view.setFloat64(k * 8, data[r * cols + c], true);
  }
  return out;
}
