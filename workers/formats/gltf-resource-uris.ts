import { isGlb, parseGlb } from './gltf/glb.ts';
import { parseGltfJsonText } from './json-text.ts';
import { resourcePath } from './resource-path.ts';
import { isDataUri } from './data-uri.ts';

/** An external file a glTF asset names: its URI as written, and the file it is inside the asset's folder. */
export interface GltfResource {
  /** the URI as the file writes it: the key importGltf's `resources` take it by */
  uri: string;
  /** the file relative to the asset's folder, `/`-separated (resourcePath: percent-decoded once, checked inside) */
  path: string;
}

/**
 * The external files a glTF asset names (buffer and image URIs that are not `data:` URIs), in file order and without
 * repeats, so that a caller with file access can load them before importGltf. Every URI must name a file inside the
 * asset's folder (resource-path.ts); the first that does not is refused.
 * @param bytes  a .gltf (JSON) or .glb file
 * @param file   file name for error messages
 * @throws FormatError when the bytes are neither GLB nor glTF JSON, or naming the URI that leaves the folder
 */
export function gltfResources(bytes: Uint8Array, file: string): GltfResource[] {
  const json = gltfJson(bytes, file) as { buffers?: unknown; images?: unknown } | null;
  const resources: GltfResource[] = [];
  const seen = new Set<string>();
  const entries = (key: 'buffers' | 'images'): unknown[] => {
    const value = typeof json === 'object' && json !== null ? json[key] : undefined;
    return Array.isArray(value) ? value : [];
  };
  for (const entry of [...entries('buffers'), ...entries('images')]) {
    const uri = typeof entry === 'object' && entry !== null ? (entry as { uri?: unknown }).uri : undefined;
    if (typeof uri !== 'string' || isDataUri(uri) || seen.has(uri)) continue;
    seen.add(uri);
    resources.push({ uri, path: resourcePath(uri, file) });
  }
  return resources;
}

/**
 * The .gltf with buffer and image URIs replaced, everything else as it was (the JSON written again).
 * @param bytes    .gltf JSON
 * @param renamed  new URI by old URI as written; URIs not in it stay
 * @param file     file name for error messages
 * @throws FormatError when the bytes are not glTF JSON
 */
export function withResourceUris(bytes: Uint8Array, renamed: ReadonlyMap<string, string>, file: string): Uint8Array {
  const json = parseJsonText(bytes, file) as { buffers?: unknown; images?: unknown } | null;
  for (const key of ['buffers', 'images'] as const) {
    const entries = typeof json === 'object' && json !== null ? json[key] : undefined;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const uri = (entry as { uri?: unknown }).uri;
      if (typeof uri === 'string' && renamed.has(uri)) (entry as { uri: string }).uri = renamed.get(uri)!;
    }
  }
  return new TextEncoder().encode(JSON.stringify(json));
}

/**
 * The JSON part of a glTF asset, parsed.
 * @throws FormatError for a truncated GLB, a GLB without a JSON chunk, or text that is not JSON
 */
export function gltfJson(bytes: Uint8Array, file: string): unknown {
  return isGlb(bytes) ? parseJsonText(parseGlb(bytes, file).jsonBytes, file, true) : parseJsonText(bytes, file);
}

/**
 * Parses glTF JSON text (UTF-8, a byte-order mark is dropped): a .gltf file, or with `inGlb` a GLB's JSON chunk.
 * @throws FormatError when it is not JSON, in our words with its line and column (json-text.ts)
 */
export function parseJsonText(bytes: Uint8Array, file: string, inGlb = false): unknown {
  return parseGltfJsonText(bytes, file, inGlb);
}

/**
 * The URIs of a written .gltf's buffers, named after it: `model.bin`, or `model_0.bin`, `model_1.bin`, … for several,
 * percent-encoded, so that a `%`, `#` or `?` in the file's name stays part of the name its .gltf refers to.
 * @param basename  the .gltf's file name without `.gltf`
 * @param count     how many buffers it has
 */
export function bufferUris(basename: string, count: number): string[] {
  const name = encodeURIComponent(basename);
  return Array.from({ length: count }, (_, k) => (count === 1 ? `${name}.bin` : `${name}_${k}.bin`));
}
