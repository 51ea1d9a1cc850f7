/**
 * Buffers a written .gltf leaves empty. glTF-Transform writes a buffer that no buffer view uses any more — all its
 * accessors replaced (an edit of a source's weights or clips) or compressed into another buffer (Draco, meshopt) —
 * as `{}`, without the byteLength that glTF 2.0 requires (≥ 1, §5.10). Such buffers are left out of the JSON and the
 * buffer views' indices (theirs and EXT_meshopt_compression's) follow. Since that changes the file's structure (a
 * source of four buffers written with three), the export says so: dropEmptyBuffers returns what it left out and,
 * given the written resources, names the kept .bin files again in order (bufferUris: `model.bin` when one is left,
 * `model_0.bin`, `model_1.bin`, … otherwise) where the names given before the drop would leave gaps (`model_0.bin`,
 * `model_2.bin`) or a lone `model_1.bin`, and adds a notice naming the buffers left out.
 */
import { bufferUris } from '../gltf-resource-uris.ts';
import { namedList } from './notice-list.ts';
import { meshoptOf } from './keep-meshopt.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A buffer left out: its index in the writer's list (the source's order) and its name, if it has one. */
export interface DroppedBuffer {
  index: number;
  name: string;
}

/** The written .gltf's resources, to rename the kept .bin files after a drop and to say so. */
export interface WrittenFiles {
  /** the .bin files by URI as written; changed in place: a renamed file moves, a dropped one's file goes */
  resources: Record<string, Uint8Array>;
  /** the .gltf's file name without `.gltf`, as the writer named the buffers after it (bufferUris) */
  basename: string;
  /** the notice of the buffers left out is appended here */
  warnings: string[];
}

/**
 * Removes from a written glTF's JSON every buffer without bytes that no buffer view uses, renumbering the views'
 * buffer references; the JSON is changed in place. With `files`, the kept buffers whose URIs are the writer's names
 * (bufferUris) are named again for the kept count, their files moved to match, and a notice names the buffers left out.
 * @param json   the .gltf JSON as the writer made it
 * @param files  the written resources, base name and notices (see WrittenFiles)
 * @returns the buffers left out, in order
 */
export function dropEmptyBuffers(json: Json, files?: WrittenFiles): DroppedBuffer[] {
  const buffers = Array.isArray(json.buffers) ? (json.buffers as unknown[]) : [];
  const views = (Array.isArray(json.bufferViews) ? (json.bufferViews as unknown[]) : []).filter(isRecord);
  const used = new Set<unknown>();
  for (const view of views) used.add(view.buffer).add(meshoptOf(view)?.buffer);
  const newIndex = new Map<number, number>();
  const kept: unknown[] = [];
  const dropped: DroppedBuffer[] = [];
  buffers.forEach((buffer, i) => {
    const empty = isRecord(buffer) && !((buffer.byteLength as number) > 0) && !used.has(i);
    if (empty) {
      dropped.push({ index: i, name: typeof buffer.name === 'string' ? buffer.name : '' });
      return;
    }
    newIndex.set(i, kept.length);
    kept.push(buffer);
  });
  if (dropped.length === 0) return dropped;
  json.buffers = kept;
  for (const view of views) {
    if (typeof view.buffer === 'number') view.buffer = newIndex.get(view.buffer) ?? view.buffer;
    const extension = meshoptOf(view);
    if (extension && typeof extension.buffer === 'number') extension.buffer = newIndex.get(extension.buffer) ?? extension.buffer;
  }
  if (files) {
    const renamed = renameKept(buffers, kept, files);
    files.warnings.push(droppedNotice(dropped, buffers.length, kept.length, renamed));
  }
  return dropped;
}

/**
 * Names the kept buffers' files as the writer would for their count, when every buffer that has a URI had the
 * writer's name for its place in the list before the drop (a source's own names, or a URI the writer did not give,
 * stay); the dropped buffers' files go.
 * @returns the new names, in order, or null when nothing was renamed
 */
function renameKept(before: readonly unknown[], kept: readonly unknown[], files: WrittenFiles): string[] | null {
  const uriOf = (buffer: unknown): string | undefined => (isRecord(buffer) && typeof buffer.uri === 'string' ? buffer.uri : undefined);
  const given = bufferUris(files.basename, before.length);
  for (const buffer of before) {
    const uri = uriOf(buffer);
    if (uri !== undefined && !kept.includes(buffer)) delete files.resources[uri];
  }
  const withUri = kept.filter((buffer) => uriOf(buffer) !== undefined);
  const writers = withUri.every(
    (buffer) => uriOf(buffer) === given[before.indexOf(buffer)] && Object.hasOwn(files.resources, uriOf(buffer)!),
  );
  if (withUri.length === 0 || !writers) return null;
  const names = bufferUris(files.basename, withUri.length);
  if (withUri.every((buffer, k) => uriOf(buffer) === names[k])) return null;
  const data = withUri.map((buffer) => files.resources[uriOf(buffer)!]);
  for (const buffer of withUri) delete files.resources[uriOf(buffer)!];
  withUri.forEach((buffer, k) => {
    (buffer as Json).uri = names[k];
    files.resources[names[k]] = data[k];
  });
  return names;
}

/** The notice of buffers left out: which ones, the count before and after, and the .bin files' new names. */
function droppedNotice(dropped: readonly DroppedBuffer[], before: number, after: number, renamed: string[] | null): string {
  const labels = dropped.map(({ index, name }) => (name ? `${index} (${JSON.stringify(name)})` : String(index)));
  const which = `${dropped.length === 1 ? 'buffer' : 'buffers'} ${namedList(labels)}`;
  const files = renamed
    ? `; the .bin ${renamed.length === 1 ? 'file is' : 'files are'} named ${renamed.length <= 3 ? renamed.join(', ') : `${renamed[0]} … ${renamed[renamed.length - 1]}`}`
    : '';
  return `${which} of the ${before} written would hold no data (every accessor in ${dropped.length === 1 ? 'it' : 'them'} replaced or compressed into another buffer), so the file has ${after} ${after === 1 ? 'buffer' : 'buffers'}${files}`;
}
