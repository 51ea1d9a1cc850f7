/**
 * `data:` URIs (RFC 2397: `data:[<mediatype>][;base64],<data>`), the way glTF embeds buffers and images in its JSON.
 * The data is percent-decoded (`%3D` is `=`), then, with `;base64`, decoded from base64: ASCII whitespace is skipped,
 * `=` may only pad the end (at most two, making whole groups of four), and a text that would leave a lone 6-bit
 * character is refused. Every problem is returned in words with its character position, never thrown by a decoder
 * of the platform (`atob` throws an InvalidCharacterError that names neither the file nor the place).
 */
import { namedCharacter } from './format-error.ts';

/** A decoded data: URI. */
export interface DataUri {
  /** the media type as written (`image/png`), in lower case; '' when the URI names none (RFC 2397: text/plain) */
  mediaType: string;
  bytes: Uint8Array;
}

/** What decodeDataUri returns: the data, or what is wrong with the URI. */
export type DataUriResult = { ok: true; uri: DataUri } | { ok: false; problem: string };

const PERCENT = 37;
const EQUALS = 61;
/** base64 digit values by character code; -1: not a base64 digit. */
const BASE64 = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, k) => (BASE64[c.charCodeAt(0)] = k));
/** ASCII whitespace, skipped inside base64 data (RFC 4648 §3.3 lets decoders ignore it; browsers do). */
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
/** A media type `type/subtype` made of RFC 2045 token characters. */
const MEDIA_TYPE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\/[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** True for a URI with the `data:` scheme (scheme names ignore case). */
export function isDataUri(uri: string): boolean {
  return uri.length >= 5 && uri.slice(0, 5).toLowerCase() === 'data:';
}

/**
 * Decodes a `data:` URI.
 * @param uri  the URI as written in the file (starting with `data:`, in any case)
 * @returns the media type and bytes, or a problem in words naming the character position in the URI (1-based)
 */
export function decodeDataUri(uri: string): DataUriResult {
  if (!isDataUri(uri)) return { ok: false, problem: "it does not start with 'data:'" };
  const comma = uri.indexOf(',');
  if (comma < 0) return { ok: false, problem: "it has no ',' before its data (data:[<media type>][;base64],<data>)" };
  const parameters = uri.slice(5, comma).split(';');
  const base64 = parameters.length > 1 && parameters[parameters.length - 1].trim().toLowerCase() === 'base64';
  const type = parameters[0].trim().toLowerCase();
  if (type && !MEDIA_TYPE.test(type))
    return { ok: false, problem: `its media type '${type.slice(0, 40)}' is not of the form type/subtype` };
  const mediaType = type;
  const data = percentDecoded(uri, comma + 1);
  if (typeof data === 'string') return { ok: false, problem: data };
  if (!base64) return { ok: true, uri: { mediaType, bytes: data.bytes } };
  const bytes = base64Decoded(data.bytes, data.at);
  return typeof bytes === 'string' ? { ok: false, problem: bytes } : { ok: true, uri: { mediaType, bytes } };
}

/** Bytes a character takes in UTF-8. */
const utf8Size = (code: number): number => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);

/**
 * The bytes of `uri` from `start` on with `%XX` escapes decoded (other characters as UTF-8), and for a byte the
 * 1-based position in the URI of the character it came from (found again when a message needs it); or a problem.
 */
function percentDecoded(uri: string, start: number): { bytes: Uint8Array; at: (k: number) => number } | string {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let i = start;
  while (i < uri.length) {
    if (uri.charCodeAt(i) === PERCENT) {
      const hex = uri.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex))
        return `the '%' at character ${i + 1} is not followed by two hexadecimal digits (percent-encoding: %XX)`;
      chunks.push(Uint8Array.of(parseInt(hex, 16)));
      length++;
      i += 3;
      continue;
    }
    let end = uri.indexOf('%', i);
    if (end < 0) end = uri.length;
    const chunk = encoder.encode(uri.slice(i, end));
    chunks.push(chunk);
    length += chunk.length;
    i = end;
  }
  const bytes = chunks.length === 1 ? chunks[0] : new Uint8Array(length);
  if (chunks.length !== 1) {
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
  }
  const at = (k: number): number => {
    let j = start;
    for (let b = 0; j < uri.length;) {
      const code = uri.codePointAt(j)!;
      const size = code === PERCENT ? 1 : utf8Size(code);
      if (b + size > k) break;
      b += size;
      j += code === PERCENT ? 3 : code >= 0x10000 ? 2 : 1;
    }
    return j + 1;
  };
  return { bytes, at };
}

/** Base64 data decoded, or a problem naming the position (through `at`) of the first character at fault. */
function base64Decoded(text: Uint8Array, at: (k: number) => number): Uint8Array | string {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 1);
  let written = 0;
  let accumulator = 0;
  let bits = 0;
  let digits = 0;
  let padding = 0;
  let firstPadding = -1;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (isSpace(c)) continue;
    if (c === EQUALS) {
      if (firstPadding < 0) firstPadding = k;
      if (++padding > 2) return `the '=' at character ${at(k)} is a third one: base64 pads with at most two`;
      continue;
    }
    const value = c < 128 ? BASE64[c] : -1;
    if (value < 0)
      return `${c < 128 ? namedCharacter(c) : 'a non-ASCII character'} at character ${at(k)} is not a base64 digit (A–Z, a–z, 0–9, +, /)`;
    if (padding > 0) return `the '=' at character ${at(firstPadding)} is inside the base64 data ('=' may only pad its end)`;
    accumulator = ((accumulator << 6) | value) & 0xffffff;
    bits += 6;
    digits++;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = (accumulator >> bits) & 0xff;
    }
  }
  if (digits % 4 === 1)
    return `its ${digits === 1 ? 'one base64 digit makes' : `${digits} base64 digits end with a lone one, which makes`} no byte`;
  if (padding > 0 && (digits + padding) % 4 !== 0) return `its ${digits} base64 digits and ${padding} '=' do not make whole groups of four`;
  return out.subarray(0, written);
}
