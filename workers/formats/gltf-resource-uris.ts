import { FormatError } from './format-error.ts';
import { parseGlb } from './gltf-validate.ts';

const GLB_MAGIC = 0x46546c67;

/** True when the bytes start with the GLB header magic `glTF`. */
export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) === GLB_MAGIC;
}

/**
 * The external files a glTF asset names (buffer and image URIs that are not `data:` URIs), decoded, in file order
 * and without repeats, so that a caller with file access can load them before importGltf.
 * @param bytes  a .gltf (JSON) or .glb file
 * @param file   file name for error messages
 * @returns relative URIs as written in the file, percent-decoded
 * @throws FormatError when the bytes are neither GLB nor glTF JSON
 */
export function gltfResourceUris(bytes: Uint8Array, file: string): string[] {
  const json = gltfJson(bytes, file) as { buffers?: unknown; images?: unknown } | null;
  const uris: string[] = [];
  const entries = (key: 'buffers' | 'images'): unknown[] => {
    const value = typeof json === 'object' && json !== null ? json[key] : undefined;
    return Array.isArray(value) ? value : [];
  };
  for (const entry of [...entries('buffers'), ...entries('images')]) {
    const uri = typeof entry === 'object' && entry !== null ? (entry as { uri?: unknown }).uri : undefined;
    if (typeof uri !== 'string' || uri.startsWith('data:')) continue;
    let decoded = uri;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      // A malformed escape is kept as written; the loader reports the file as missing if it is.
    }
    if (!uris.includes(decoded)) uris.push(decoded);
  }
  return uris;
}

/**
 * The JSON part of a glTF asset, parsed.
 * @throws FormatError for a truncated GLB, a GLB without a JSON chunk, or text that is not JSON
 */
export function gltfJson(bytes: Uint8Array, file: string): unknown {
  return parseJsonText(isGlb(bytes) ? parseGlb(bytes, file).jsonBytes : bytes, file);
}

/**
 * Parses glTF JSON text (UTF-8, a byte-order mark is dropped).
 * @throws FormatError when it is not JSON, quoting at most a short excerpt of the parser's message
 */
export function parseJsonText(bytes: Uint8Array, file: string): unknown {
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new FormatError(file, '', `neither GLB nor glTF JSON (${message.length > 160 ? `${message.slice(0, 160)}…` : message})`);
  }
}
