/**
 * The GLB container (glTF 2.0 §4.4): a 12-byte header (magic `glTF`, version 2, total length), then chunks, each an
 * 8-byte header (length, type) and its data: first the JSON chunk, then optionally the binary chunk. Every reader and
 * writer of GLB files in Rigwright (glTF import and export, the project file, the list of a file's resources) goes
 * through this module, so the layout is written down once.
 *
 * Reading checks every length against the bytes present before anything is sliced, and a failure names the file, the
 * part of the container (`GLB header`, `GLB chunk 1`) and the byte offset at fault. Only chunks 0 (JSON) and 1 (BIN,
 * when it is there) are read: chunks of other types are ignored, as the specification asks. Chunk lengths that are
 * not multiples of 4 are read as written (other writers leave them so), while writeGlb always pads.
 */
import { FormatError } from '../format-error.ts';

/** `glTF` read as a little-endian uint32: the first four bytes of every GLB. */
export const GLB_MAGIC = 0x46546c67;
/** The container version this module reads and writes. */
export const GLB_VERSION = 2;
/** Chunk type of the JSON chunk (`JSON`). */
export const GLB_CHUNK_JSON = 0x4e4f534a;
/** Chunk type of the binary chunk (`BIN\0`). */
export const GLB_CHUNK_BIN = 0x004e4942;
/** Bytes of the file header: magic, version, length (uint32 each). */
export const GLB_HEADER_BYTES = 12;
/** Bytes of a chunk header: length, type (uint32 each). */
export const GLB_CHUNK_HEADER_BYTES = 8;
/** The smallest GLB: the file header and the JSON chunk's header. */
const GLB_MIN_BYTES = GLB_HEADER_BYTES + GLB_CHUNK_HEADER_BYTES;
/** JSON chunk padding (a space, glTF 2.0 §4.4.3.1) and binary chunk padding (zero). */
const JSON_PAD = 0x20;

/** A GLB's two chunks as views into the file's bytes (nothing is copied). */
export interface GlbChunks {
  /** the JSON chunk's data, padding included (UTF-8 text) */
  jsonBytes: Uint8Array;
  /** the binary chunk's data, or null when the file has none */
  bin: Uint8Array | null;
}

/** A chunk's type in words for messages: its characters when they are printable (`'BIN'`), else its value in hex. */
function chunkTypeName(type: number): string {
  const chars = [0, 8, 16, 24].map((shift) => (type >>> shift) & 0xff);
  while (chars.length > 0 && chars[chars.length - 1] === 0) chars.pop();
  if (chars.length > 0 && chars.every((c) => c >= 0x20 && c < 0x7f)) return `'${String.fromCharCode(...chars)}'`;
  return `0x${type.toString(16).padStart(8, '0')}`;
}

/**
 * True when the bytes start with the GLB magic `glTF` (and hold a whole file header); nothing else is checked.
 * @param bytes  a file's bytes
 */
export function isGlb(bytes: Uint8Array): boolean {
  return (
    bytes.length >= GLB_HEADER_BYTES && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) === GLB_MAGIC
  );
}

/**
 * Splits a GLB into its JSON and binary chunks, checking the header and those two chunks' headers and lengths against
 * the file's size first.
 * @param bytes  the whole file
 * @param file   file name for messages
 * @returns views into `bytes` (not copies)
 * @throws FormatError naming the file, `GLB header` or `GLB chunk N`, and the byte offset and reason
 */
export function parseGlb(bytes: Uint8Array, file: string): GlbChunks {
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, reason);
  };
  if (bytes.length < GLB_MIN_BYTES)
    fail('GLB header', `the file ends after ${bytes.length} bytes, before the first chunk (a GLB needs at least ${GLB_MIN_BYTES})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC) fail('GLB header', "the file does not start with 'glTF'");
  const version = view.getUint32(4, true);
  if (version !== GLB_VERSION) fail('GLB header', `GLB version ${version} (byte 4) is not supported (Rigwright reads glTF 2.0)`);
  const total = view.getUint32(8, true);
  if (total > bytes.length)
    fail('GLB header', `the header gives a length of ${total} bytes (byte 8), the file has ${bytes.length}; it looks truncated`);
  if (total < GLB_MIN_BYTES)
    fail('GLB header', `the header gives a length of ${total} bytes (byte 8), too short for the JSON chunk (at least ${GLB_MIN_BYTES})`);
  const jsonLength = view.getUint32(GLB_HEADER_BYTES, true);
  const jsonType = view.getUint32(GLB_HEADER_BYTES + 4, true);
  if (jsonType !== GLB_CHUNK_JSON)
    fail('GLB chunk 0', `the first chunk (byte ${GLB_HEADER_BYTES}) is not JSON: its type is ${chunkTypeName(jsonType)}`);
  if (jsonLength > total - GLB_MIN_BYTES)
    fail('GLB chunk 0', `the JSON chunk at byte ${GLB_HEADER_BYTES} claims ${jsonLength} bytes, only ${total - GLB_MIN_BYTES} follow`);
  const jsonBytes = bytes.subarray(GLB_MIN_BYTES, GLB_MIN_BYTES + jsonLength);
  // The binary chunk, when there is one, is chunk 1; a chunk of another type there, and every chunk after, is not
  // read (glTF 2.0 §4.4.3: unknown chunks are ignored), so their lengths are not checked either.
  const at = GLB_MIN_BYTES + jsonLength;
  if (at === total) return { jsonBytes, bin: null };
  if (total - at < GLB_CHUNK_HEADER_BYTES)
    fail('GLB chunk 1', `${total - at} bytes follow at byte ${at}, too few for a chunk header (${GLB_CHUNK_HEADER_BYTES})`);
  if (view.getUint32(at + 4, true) !== GLB_CHUNK_BIN) return { jsonBytes, bin: null };
  const binLength = view.getUint32(at, true);
  const start = at + GLB_CHUNK_HEADER_BYTES;
  if (binLength > total - start) fail('GLB chunk 1', `the BIN chunk at byte ${at} claims ${binLength} bytes, only ${total - start} follow`);
  return { jsonBytes, bin: bytes.subarray(start, start + binLength) };
}

/** `length` rounded up to a multiple of 4 (chunks start and end 4-byte aligned, glTF 2.0 §4.4.3). */
const padded = (length: number): number => (length + 3) & ~3;

/**
 * Writes a GLB of a JSON chunk and a binary chunk. The JSON chunk is padded with spaces, the binary chunk with zeros,
 * each to a multiple of 4 bytes; the binary chunk is left out when `bin` is empty.
 * @param json  the glTF JSON: an object (stringified here) or its UTF-8 text
 * @param bin   the binary chunk's data (buffer 0 of the JSON; its byteLength is the unpadded length)
 * @returns the file's bytes
 */
export function writeGlb(json: object | Uint8Array, bin: Uint8Array): Uint8Array {
  const jsonBytes = json instanceof Uint8Array ? json : new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = padded(jsonBytes.length);
  const binLength = padded(bin.length);
  const binAt = GLB_MIN_BYTES + jsonLength;
  const total = binAt + (bin.length > 0 ? GLB_CHUNK_HEADER_BYTES + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, GLB_VERSION, true);
  view.setUint32(8, total, true);
  view.setUint32(GLB_HEADER_BYTES, jsonLength, true);
  view.setUint32(GLB_HEADER_BYTES + 4, GLB_CHUNK_JSON, true);
  out.set(jsonBytes, GLB_MIN_BYTES);
  out.fill(JSON_PAD, GLB_MIN_BYTES + jsonBytes.length, binAt);
  if (bin.length > 0) {
    view.setUint32(binAt, binLength, true);
    view.setUint32(binAt + 4, GLB_CHUNK_BIN, true);
    out.set(bin, binAt + GLB_CHUNK_HEADER_BYTES);
  }
  return out;
}

/**
 * The text of a GLB's JSON chunk as far as the header allows, without checking the rest of the file: for a quick
 * look (is this a project file?) before a full parseGlb. Empty when the bytes are not a GLB.
 * @param bytes  the file's bytes
 */
export function glbJsonPrefix(bytes: Uint8Array): Uint8Array {
  if (!isGlb(bytes) || bytes.length < GLB_MIN_BYTES) return new Uint8Array(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(GLB_HEADER_BYTES + 4, true) !== GLB_CHUNK_JSON) return new Uint8Array(0);
  const length = Math.min(view.getUint32(GLB_HEADER_BYTES, true), bytes.length - GLB_MIN_BYTES);
  return bytes.subarray(GLB_MIN_BYTES, GLB_MIN_BYTES + length);
}
