/**
 * meshopt-compressed buffer views (EXT_meshopt_compression) kept as the source has them. glTF-Transform's reader
 * decodes every compressed view and its writer encodes every accessor again, grouped into views its own way, so a
 * no-op export would carry other compressed bytes than the source's. When no compression is asked for, each
 * compressed view of the source whose accessors the export left as read (the same accessors, still written, with
 * the values the source's bytes decode to: planMeshopt) is put back after writing (placeMeshoptViews): a copy of the
 * source's view (its JSON, and its extension's mode, filter, count, byteStride and byteLength) pointing at a copy of
 * the source's compressed bytes, byte for byte, with the source's uncompressed fallback buffer (a buffer flagged
 * `fallback`, without data) under it, and its accessors pointing into it as the source's do. The views the writer
 * encoded for those accessors are left out when nothing else uses them, and each buffer is laid out again on its own.
 *
 * A view whose accessors the export replaced, removed or changed (re-weighted, say), whose data the decoder refuses,
 * or that holds what the writer does not compress (a sparse accessor's data, an image) or lies over a fallback buffer
 * with data of its own (a uri, or a GLB's binary chunk), is encoded again by the writer as every view was before, with
 * a notice naming them by reason (meshoptNotice); so is a kept view whose accessors the written file has lost (no tag
 * to find them by). What the export adds (new weights, say) is compressed by the writer too. An explicit compression
 * encodes every view again.
 *
 * Dead bytes: the writer groups accessors into views its own way, so one of its views may hold both an accessor that
 * goes back into a kept view and one that is encoded again (a source view's accessor beside a changed one). That view
 * stays, as the writer compressed it, for the accessor encoded again, and so still carries the kept accessor's data,
 * which nothing refers to any more: it cannot be cut out of the compressed stream without encoding it again. The file
 * is valid and reads the same; it is only larger, by at most the compressed size of the kept accessors so grouped.
 * A file that also uses Draco keeps both: this runs first, on the file as written (the Draco primitives uncompressed),
 * and keep-draco.ts then places the streams, moving each compressed view's bytes with it.
 */
import type { Accessor } from '@gltf-transform/core';
import { byReason } from './notice-list.ts';

type Json = Record<string, unknown>;

/** The meshopt extension's name. */
export const MESHOPT = 'EXT_meshopt_compression';

/** A buffer view's or buffer's EXT_meshopt_compression object, or null. */
export function meshoptOf(holder: Json | undefined): Json | null {
  const extension = holder && isRecord(holder.extensions) ? holder.extensions[MESHOPT] : undefined;
  return isRecord(extension) ? extension : null;
}

/** The extras key that keep-spelling.ts tags a source accessor with in the written JSON (its source index). */
const TAG = 'rigwrightSource';

/** A compressed view of the source that the export keeps. */
export interface MeshoptKeep {
  /** the source's view index */
  view: number;
  /** the source's view JSON (its extension included) */
  json: Json;
  /** what it holds, for notices (as MeshoptReencoded's label) */
  label: string;
  /** the source's compressed bytes (extension byteOffset … + byteLength) */
  bytes: Uint8Array;
  /** the source accessors it holds, by index */
  accessors: number[];
}

/** A compressed view of the source that the writer encodes again, and why. */
export interface MeshoptReencoded {
  view: number;
  /** 'buffer view 7 (mesh 0 ("Body") primitive 0 WEIGHTS_0)' */
  label: string;
  /** why, for notices (a MeshoptReason) */
  reason: MeshoptReason;
}

/** Why a view is encoded again. */
export type MeshoptReason = 'replaced' | 'changed' | 'undecodable' | 'sparse' | 'image' | 'fallback' | 'unplaced';

/** Which compressed views keep the source's bytes and which are encoded again (planMeshopt). */
export interface MeshoptPlan {
  keeps: MeshoptKeep[];
  reencoded: MeshoptReencoded[];
}

/** The meshopt decoder's one call used here. */
export interface MeshoptDecoding {
  decodeGltfBuffer(target: Uint8Array, count: number, size: number, source: Uint8Array, mode: string, filter?: string): void;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** Bytes per component of a glTF component type. */
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
/** Components per element of a glTF accessor type. */
const TYPE_COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

/**
 * Sorts the source's compressed views into those kept (see the module comment) and those the writer encodes again,
 * each with its reason. A view no accessor, sparse part or image of the source uses is in neither list; one whose
 * accessors the export replaced or removed is encoded again (what replaces them is compressed anew). Each buffer's
 * bytes are asked for once; a kept view's bytes are a view into them (not copied).
 * @param sourceJson     the source's JSON
 * @param bufferBytes    the bytes of the source's buffer by index (a GLB's binary chunk, a resource, a data: URI)
 * @param accessorsRead  the Document's accessors right after reading, in the source's order
 * @param decoder        meshoptimizer's decoder (ready)
 */
export function planMeshopt(
  sourceJson: Json,
  bufferBytes: (index: number) => Uint8Array,
  accessorsRead: readonly Accessor[],
  decoder: MeshoptDecoding,
): MeshoptPlan {
  const accessors = list(sourceJson.accessors);
  const buffers = list(sourceJson.buffers);
  const labels = accessorLabels(sourceJson);
  const plan: MeshoptPlan = { keeps: [], reencoded: [] };
  const sparseViews = new Set<unknown>();
  // The accessors of each view, in the source's order.
  const heldBy = new Map<unknown, number[]>();
  accessors.forEach((accessor, a) => {
    heldBy.set(accessor.bufferView, [...(heldBy.get(accessor.bufferView) ?? []), a]);
    if (isRecord(accessor.sparse))
      for (const part of [accessor.sparse.indices, accessor.sparse.values]) if (isRecord(part)) sparseViews.add(part.bufferView);
  });
  const imageViews = new Set(list(sourceJson.images).map((image) => image.bufferView));
  const bins = new Map<number, Uint8Array>();
  const binOf = (index: number): Uint8Array => {
    if (!bins.has(index)) bins.set(index, bufferBytes(index));
    return bins.get(index)!;
  };
  (Array.isArray(sourceJson.bufferViews) ? (sourceJson.bufferViews as unknown[]) : []).forEach((view, v) => {
    const extension = isRecord(view) ? meshoptOf(view) : null;
    if (!isRecord(view) || !extension) return;
    const held = heldBy.get(v) ?? [];
    const written = held.filter((a) => accessorsRead[a] && !accessorsRead[a].isDisposed());
    if (held.length === 0 && !sparseViews.has(v) && !imageViews.has(v)) return;
    const label = `buffer view ${v}${held.length > 0 ? ` (${labels.get(held[0]) ?? `accessor ${held[0]}`}${held.length > 1 ? ` and ${held.length - 1} more` : ''})` : ''}`;
    const reencode = (reason: MeshoptReason): void => void plan.reencoded.push({ view: v, label, reason });
    if (sparseViews.has(v) || held.some((a) => accessors[a].sparse !== undefined)) return reencode('sparse');
    if (imageViews.has(v)) return reencode('image');
    // The fallback buffer must be a flagged one without data of its own: no uri, and not a GLB's binary chunk (buffer 0).
    const fallbackIndex = view.buffer as number;
    const fallback = buffers[fallbackIndex];
    if (!fallback || meshoptOf(fallback)?.fallback !== true) return reencode('fallback');
    if (fallback.uri !== undefined || (fallbackIndex === 0 && binOf(0).length > 0)) return reencode('fallback');
    if (written.length < held.length) return reencode('replaced');
    const start = (extension.byteOffset as number | undefined) ?? 0;
    const bytes = binOf(extension.buffer as number).subarray(start, start + (extension.byteLength as number));
    const count = extension.count as number;
    const stride = extension.byteStride as number;
    const decoded = new Uint8Array(count * stride);
    try {
      decoder.decodeGltfBuffer(decoded, count, stride, bytes, extension.mode as string, extension.filter as string | undefined);
    } catch {
      return reencode('undecodable');
    }
    const viewStride = (view.byteStride as number | undefined) ?? 0;
    if (!held.every((a) => sameValues(accessorsRead[a], accessors[a], decoded, viewStride))) return reencode('changed');
    plan.keeps.push({ view: v, json: view, label, bytes, accessors: held });
  });
  return plan;
}

/**
 * Whether a Document accessor holds the values its source accessor's elements have in the decoded view: its bytes
 * against the view's at the accessor's byteOffset, in one run when its elements are packed (no stride, or a stride of
 * one element), else element by element a stride apart.
 */
function sameValues(accessor: Accessor, json: Json, decoded: Uint8Array, viewStride: number): boolean {
  const size = (COMPONENT_BYTES[json.componentType as number] ?? 0) * (TYPE_COMPONENTS[json.type as string] ?? 0);
  const count = json.count as number;
  const array = accessor.getArray() as ArrayBufferView | null;
  if (!array || size === 0 || array.byteLength !== size * count) return false;
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  const stride = viewStride || size;
  const offset = (json.byteOffset as number | undefined) ?? 0;
  if (count > 0 && offset + (count - 1) * stride + size > decoded.length) return false;
  if (stride === size) return sameBytes(bytes, decoded.subarray(offset, offset + bytes.length));
  for (let i = 0; i < count; i++)
    if (!sameBytes(bytes.subarray(i * size, (i + 1) * size), decoded.subarray(offset + i * stride))) return false;
  return true;
}

/** Whether `a`'s bytes are the first a.length of `b`. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (b.length < a.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * What each source accessor is, for notices: 'mesh 0 ("Body") primitive 1 WEIGHTS_0', 'mesh 0 primitive 0 indices',
 * 'mesh 0 primitive 0 target 2 POSITION', 'skin 0 inverse binds', 'animation 1 ("Walk") sampler 3 output'.
 */
function accessorLabels(json: Json): Map<number, string> {
  const labels = new Map<number, string>();
  const add = (index: unknown, label: string): void => {
    if (typeof index === 'number' && !labels.has(index)) labels.set(index, label);
  };
  const named = (kind: string, k: number, name: unknown): string =>
    `${kind} ${k}${typeof name === 'string' && name ? ` (${JSON.stringify(name)})` : ''}`;
  list(json.meshes).forEach((mesh, m) =>
    list(mesh.primitives).forEach((primitive, p) => {
      const at = `${named('mesh', m, mesh.name)} primitive ${p}`;
      for (const [semantic, index] of Object.entries(isRecord(primitive.attributes) ? primitive.attributes : {}))
        add(index, `${at} ${semantic}`);
      add(primitive.indices, `${at} indices`);
      list(primitive.targets).forEach((target, t) => {
        for (const [semantic, index] of Object.entries(target)) add(index, `${at} target ${t} ${semantic}`);
      });
    }),
  );
  list(json.skins).forEach((skin, s) => add(skin.inverseBindMatrices, `${named('skin', s, skin.name)} inverse binds`));
  list(json.animations).forEach((animation, a) =>
    list(animation.samplers).forEach((sampler, s) => {
      add(sampler.input, `${named('animation', a, animation.name)} sampler ${s} input`);
      add(sampler.output, `${named('animation', a, animation.name)} sampler ${s} output`);
    }),
  );
  return labels;
}

/** Each reason, said of one view and of several. */
const REASONS: Record<MeshoptReason, [one: string, several: string]> = {
  replaced: [
    'the export replaced or removed data it holds (what replaces it is compressed anew)',
    'the export replaced or removed data they hold (what replaces it is compressed anew)',
  ],
  changed: ['the values it holds changed', 'the values they hold changed'],
  undecodable: ['its data cannot be decoded', 'their data cannot be decoded'],
  sparse: [
    'it holds sparse accessor data, which the writer stores uncompressed',
    'they hold sparse accessor data, which the writer stores uncompressed',
  ],
  image: ['it holds an image, which the writer stores uncompressed', 'they hold images, which the writer stores uncompressed'],
  fallback: [
    'its fallback buffer is not one without data of its own (flagged fallback, no uri), which the writer does not keep',
    'their fallback buffers are not ones without data of their own (flagged fallback, no uri), which the writer does not keep',
  ],
  unplaced: ['its accessors could not be found in the file as written', 'their accessors could not be found in the file as written'],
};

/**
 * The notice for the views a plan has encoded again: how many of the source's compressed views, which (grouped by
 * reason, at most six named and the rest counted) and why, and that the others keep their bytes; null when none is.
 * @param sourceName the source file, for the message
 * @param unplaced   source views planned to be kept that placeMeshoptViews could not put back (written as the writer
 *   encoded them): counted as encoded again ('unplaced')
 */
export function meshoptNotice(plan: MeshoptPlan, sourceName: string, unplaced: readonly number[] = []): string | null {
  const lost = new Set(unplaced);
  const keeps = plan.keeps.filter((keep) => !lost.has(keep.view));
  const reencoded = [
    ...plan.reencoded,
    ...plan.keeps.filter((keep) => lost.has(keep.view)).map(({ view, label }) => ({ view, label, reason: 'unplaced' as const })),
  ];
  if (reencoded.length === 0) return null;
  const total = reencoded.length + keeps.length;
  const named = byReason(reencoded, (reason, count) => REASONS[reason][count === 1 ? 0 : 1]);
  const others =
    keeps.length === 0
      ? ''
      : `; the other ${keeps.length === 1 ? 'one keeps its' : `${keeps.length} keep their`} compressed data byte for byte`;
  return `${reencoded.length} of ${total} meshopt-compressed buffer view${total === 1 ? '' : 's'} of ${sourceName} ${reencoded.length === 1 ? 'is' : 'are'} compressed again (${MESHOPT}, encoded anew by the writer, with the data now written): ${named}${others}`;
}

/**
 * Puts the kept views back into a written file (see the module comment). Runs before keep-spelling.ts takes its
 * tags off the written accessors (it finds them by those). Each kept view's accessors take its copy and their
 * source byteOffset, componentType and normalized; a view the writer made that no accessor, image or sparse part uses
 * any more is left out; each kept view takes the place of the first view the writer had for its accessors. Each
 * buffer is then laid out again on its own, views in order, 4-byte aligned: a compressed view's bytes go into the
 * buffer its extension names, its decoded length into the fallback buffer.
 * @param json   the written JSON (accessors still tagged), changed in place
 * @param bins   the written buffers' bytes by buffer index (a GLB's one binary chunk; none for the fallback buffer)
 * @param keeps  the kept views (planMeshopt)
 * @param sourceJson  the source's JSON (its fallback buffer's extension, when the writer wrote none)
 * @returns bins: the new buffers' bytes by buffer index (json.buffers[k].byteLength set to each one's length; a
 *   fallback buffer's is the length its views decode to); unplaced: the source views of the keeps whose accessors
 *   the written JSON has no tag for, left as the writer encoded them (for meshoptNotice)
 */
export function placeMeshoptViews(
  json: Json,
  bins: readonly Uint8Array[],
  keeps: readonly MeshoptKeep[],
  sourceJson: Json,
): { bins: Uint8Array[]; unplaced: number[] } {
  const unplaced: number[] = [];
  if (keeps.length === 0) return { bins: [...bins], unplaced };
  const accessors = list(json.accessors);
  const bufferViews = list(json.bufferViews);
  const buffers = list(json.buffers);
  const written = new Map<number, Json>();
  for (const accessor of accessors) {
    const tag = isRecord(accessor.extras) ? accessor.extras[TAG] : undefined;
    if (typeof tag === 'number') written.set(tag, accessor);
  }
  let fallback = buffers.findIndex((buffer) => meshoptOf(buffer)?.fallback === true);
  if (fallback < 0) {
    // Only the flag: the source's other keys (a uri, a name) are not this file's.
    const sourceFallback = list(sourceJson.buffers).find((buffer) => meshoptOf(buffer)?.fallback === true);
    fallback = buffers.length;
    buffers.push({ extensions: structuredClone(sourceFallback?.extensions ?? { [MESHOPT]: { fallback: true } }), byteLength: 0 });
    json.buffers = buffers;
  }
  const fallbacks = new Set(buffers.flatMap((buffer, k) => (meshoptOf(buffer)?.fallback === true ? [k] : [])));
  const sourceAccessors = list(sourceJson.accessors);
  // Where each kept view goes: before the first view the writer had for its accessors; the bytes' buffer is theirs.
  const slots = new Map<number, Json[]>();
  const copies = new Map<Json, { bytes: Uint8Array; users: Json[] }>();
  const atEnd: Json[] = [];
  for (const keep of keeps) {
    const users = keep.accessors.map((a) => written.get(a));
    if (users.some((user) => !user)) {
      unplaced.push(keep.view);
      continue;
    }
    const views = users.map((user) => user!.bufferView).filter((view): view is number => typeof view === 'number');
    const first = views.length > 0 ? Math.min(...views) : -1;
    const firstView = bufferViews[first];
    const dataBuffer = (meshoptOf(firstView)?.buffer as number | undefined) ?? (firstView?.buffer as number | undefined) ?? 0;
    const copy: Json = structuredClone(keep.json);
    // On the fallback buffer of the writer's view it replaces, so that no fallback buffer is left without views.
    copy.buffer = fallbacks.has(firstView?.buffer as number) ? firstView.buffer : fallback;
    (copy.extensions as Record<string, Json>)[MESHOPT].buffer = fallbacks.has(dataBuffer) ? 0 : dataBuffer;
    copies.set(copy, { bytes: keep.bytes, users: users as Json[] });
    if (first < 0) atEnd.push(copy);
    else slots.set(first, [...(slots.get(first) ?? []), copy]);
    keep.accessors.forEach((a, k) => {
      const user = users[k]!;
      const source = sourceAccessors[a];
      for (const key of ['byteOffset', 'componentType', 'normalized'] as const)
        if (source[key] !== undefined) user[key] = source[key];
        else delete user[key];
    });
  }
  // The views still used once the kept accessors leave them.
  const moved = new Set([...copies.values()].flatMap((copy) => copy.users));
  const used = new Set<number>();
  for (const accessor of accessors) {
    if (!moved.has(accessor) && typeof accessor.bufferView === 'number') used.add(accessor.bufferView);
    const sparse = isRecord(accessor.sparse) ? accessor.sparse : undefined;
    for (const part of [sparse?.indices, sparse?.values])
      if (isRecord(part) && typeof part.bufferView === 'number') used.add(part.bufferView);
  }
  for (const image of list(json.images)) if (typeof image.bufferView === 'number') used.add(image.bufferView);
  for (const mesh of list(json.meshes))
    for (const primitive of list(mesh.primitives)) {
      const draco = isRecord(primitive.extensions) ? primitive.extensions.KHR_draco_mesh_compression : undefined;
      if (isRecord(draco) && typeof draco.bufferView === 'number') used.add(draco.bufferView);
    }
  const renumber = new Map<number, number>();
  const order: { view: Json; bytes: Uint8Array }[] = [];
  const bytesOf = (view: Json): Uint8Array => {
    const extension = meshoptOf(view);
    const holder = extension ?? view;
    const buffer = (holder.buffer as number | undefined) ?? 0;
    const start = (holder.byteOffset as number | undefined) ?? 0;
    return (bins[buffer] ?? new Uint8Array(0)).subarray(start, start + (holder.byteLength as number));
  };
  const emitCopies = (list: readonly Json[]): void => {
    for (const copy of list) {
      const index = order.length;
      order.push({ view: copy, bytes: copies.get(copy)!.bytes });
      for (const user of copies.get(copy)!.users) user.bufferView = index;
    }
  };
  bufferViews.forEach((view, index) => {
    emitCopies(slots.get(index) ?? []);
    if (!used.has(index)) return;
    renumber.set(index, order.length);
    order.push({ view, bytes: bytesOf(view) });
  });
  emitCopies(atEnd);
  // Each buffer laid out again: the views' bytes in order, 4-byte aligned; compressed views' decoded lengths in the fallback buffer.
  const lengths = buffers.map(() => 0);
  const placed: { buffer: number; at: number; bytes: Uint8Array }[] = [];
  const place = (buffer: number, length: number, bytes: Uint8Array | null): number => {
    const at = Math.ceil(lengths[buffer] / 4) * 4;
    lengths[buffer] = at + length;
    if (bytes) placed.push({ buffer, at, bytes });
    return at;
  };
  for (const { view, bytes } of order) {
    const extension = meshoptOf(view);
    if (extension) {
      extension.byteOffset = place((extension.buffer as number | undefined) ?? 0, bytes.length, bytes);
      extension.byteLength = bytes.length;
      // A view the writer put on a fallback buffer stays on it; a kept copy is on the first one (set above).
      if (!fallbacks.has(view.buffer as number)) view.buffer = fallback;
      view.byteOffset = place(view.buffer as number, view.byteLength as number, null);
    } else view.byteOffset = place((view.buffer as number | undefined) ?? 0, bytes.length, bytes);
  }
  const out = lengths.map((length, k) => new Uint8Array(fallbacks.has(k) ? 0 : Math.ceil(length / 4) * 4));
  for (const { buffer, at, bytes } of placed) out[buffer].set(bytes, at);
  for (const accessor of accessors) {
    if (!moved.has(accessor) && typeof accessor.bufferView === 'number') accessor.bufferView = renumber.get(accessor.bufferView);
    const sparse = isRecord(accessor.sparse) ? accessor.sparse : undefined;
    for (const part of [sparse?.indices, sparse?.values])
      if (isRecord(part) && typeof part.bufferView === 'number') part.bufferView = renumber.get(part.bufferView);
  }
  for (const image of list(json.images)) if (typeof image.bufferView === 'number') image.bufferView = renumber.get(image.bufferView);
  for (const mesh of list(json.meshes))
    for (const primitive of list(mesh.primitives)) {
      const draco = isRecord(primitive.extensions) ? primitive.extensions.KHR_draco_mesh_compression : undefined;
      if (isRecord(draco) && typeof draco.bufferView === 'number') draco.bufferView = renumber.get(draco.bufferView);
    }
  json.bufferViews = order.map(({ view }) => view);
  buffers.forEach((buffer, k) => (buffer.byteLength = fallbacks.has(k) ? Math.ceil(lengths[k] / 4) * 4 : out[k].length));
  return { bins: out, unplaced };
}
