/**
 * Buffers a written .gltf leaves empty. glTF-Transform writes a buffer that no buffer view uses any more — all its
 * accessors replaced (an edit of a source's weights or clips) or compressed into another buffer (Draco, meshopt) —
 * as `{}`, without the byteLength that glTF 2.0 requires (≥ 1, §5.10). Such buffers are left out of the JSON and the
 * buffer views' indices (theirs and EXT_meshopt_compression's) follow.
 */

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Removes from a written glTF's JSON every buffer without bytes that no buffer view uses, renumbering the views'
 * buffer references; the JSON is changed in place.
 * @param json  the .gltf JSON as the writer made it
 */
export function dropEmptyBuffers(json: Json): void {
  const buffers = Array.isArray(json.buffers) ? (json.buffers as unknown[]) : [];
  const views = (Array.isArray(json.bufferViews) ? (json.bufferViews as unknown[]) : []).filter(isRecord);
  const meshopt = (view: Json): Json | null => {
    const extension = isRecord(view.extensions) ? view.extensions.EXT_meshopt_compression : undefined;
    return isRecord(extension) ? extension : null;
  };
  const used = new Set<unknown>();
  for (const view of views) used.add(view.buffer).add(meshopt(view)?.buffer);
  const newIndex = new Map<number, number>();
  const kept: unknown[] = [];
  buffers.forEach((buffer, i) => {
    const empty = isRecord(buffer) && !((buffer.byteLength as number) > 0) && !used.has(i);
    if (empty) return;
    newIndex.set(i, kept.length);
    kept.push(buffer);
  });
  if (kept.length === buffers.length) return;
  json.buffers = kept;
  for (const view of views) {
    if (typeof view.buffer === 'number') view.buffer = newIndex.get(view.buffer) ?? view.buffer;
    const extension = meshopt(view);
    if (extension && typeof extension.buffer === 'number') extension.buffer = newIndex.get(extension.buffer) ?? extension.buffer;
  }
}
