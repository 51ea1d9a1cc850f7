/**
 * Draco-compressed geometry written primitive by primitive: kept as the source has it where the export changed
 * nothing of it, encoded again where it did. glTF-Transform's reader decodes a KHR_draco_mesh_compression primitive
 * and its writer can only encode every primitive of the file again, which quantizes the decoded values a second time
 * (positions move by up to 5e-5 of the diagonal) and lets the encoder renumber and merge vertices. So when no
 * compression is asked for, the Document is written uncompressed and each compressed primitive of the source gets a
 * stream afterwards (placeDracoStreams): its accessors become those of the stream (count, bounds and all, no buffer
 * view), its extension points at the stream, and the decoded data the writer laid out for it is left out of the
 * buffer. Each buffer of the output is laid out again on its own, a stream going into the buffer the writer put its
 * primitive's accessors in; a meshopt-compressed view (keep-meshopt.ts) moves with its compressed bytes, which lie in
 * the buffer its extension names, its decoded length staying in the fallback buffer.
 *
 * A primitive the export left unchanged (the same attribute and index accessors, as read) gets the source's stream
 * back byte for byte and its accessors' JSON as the source has them. A primitive whose attributes or indices the
 * export changed (its weights, say) gets a stream encoded on its own, with the settings of an explicit Draco export
 * (compressOnWrite), and so does every primitive that shares a stream or an accessor with one encoded again (one
 * accessor has one count and one order); its accessors keep their JSON (extras and all) but for what the stream
 * decides. A notice names them by reason (planDraco, dracoNotice), and apart those the encoder gives up on, which are
 * written uncompressed.
 * Primitives the source stores uncompressed stay so. Morph targets are no part of a stream
 * (KHR_draco_mesh_compression compresses a primitive's attributes only): a target the export adds (examples, a bake)
 * is written uncompressed beside the stream, in the vertex order the stream decodes to: a kept stream decodes to the
 * order the target was computed in, and a primitive with targets is encoded keeping its vertices and their order.
 */
import { Document as GltfDocument, Logger, Primitive, WebIO, type Accessor, type Document } from '@gltf-transform/core';
import { decodeDataUri, isDataUri } from '../data-uri.ts';
import { compressOnWrite } from '../gltf-extensions.ts';
import type { GltfSource } from '../types.ts';
import { isGlb, parseGlb } from './glb.ts';
import { MESHOPT, meshoptOf } from './keep-meshopt.ts';
import { byReason, namedList } from './notice-list.ts';

type Json = Record<string, unknown>;

/** The Draco extension's name. */
export const DRACO = 'KHR_draco_mesh_compression';

/** A compressed primitive of the source as read. */
export interface DracoSource {
  primitive: Primitive;
  /** its attributes and indices as read (semantic → accessor; 'indices') */
  accessors: Map<string, Accessor>;
  /** the source's accessor index of each */
  accessorIndex: Map<string, number>;
  /** the source's extension object: the stream's buffer view and each attribute's id in it */
  extension: { bufferView: number; attributes: Record<string, number> };
}

/** A kept primitive, found in the written file by its mesh and primitive index. */
export interface DracoKeep extends DracoSource {
  meshIndex: number;
  primitiveIndex: number;
}

/** A compressed stream for a written primitive. */
export interface DracoStream {
  bytes: Uint8Array;
  /** the JSON of the accessors it holds, without buffer view (semantic → accessor; 'indices') */
  accessors: Map<string, Json>;
  /** the extension's attribute ids in the stream */
  attributes: Record<string, number>;
  /** encoded by this export (no uncompressed fallback: the extension is required), not the source's */
  encoded: boolean;
}

/** Where a stream goes: the written primitive, by its mesh's index and its index in that mesh. */
export interface DracoPlacement {
  meshIndex: number;
  primitiveIndex: number;
  stream: DracoStream;
}

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The source's compressed primitives, paired with the Document's primitives and accessors right after reading
 * (meshes and primitives in file order).
 */
export function dracoSources(json: Json, doc: Document, accessorsRead: readonly Accessor[]): DracoSource[] {
  const meshes = Array.isArray(json.meshes) ? json.meshes : [];
  const read = doc.getRoot().listMeshes();
  const out: DracoSource[] = [];
  meshes.forEach((mesh, m) => {
    const primitives = isRecord(mesh) && Array.isArray(mesh.primitives) ? mesh.primitives : [];
    primitives.forEach((primitive, p) => {
      if (!isRecord(primitive) || !isRecord(primitive.extensions) || !isRecord(primitive.extensions[DRACO])) return;
      const extension = primitive.extensions[DRACO] as DracoSource['extension'];
      const documentPrimitive = read[m]?.listPrimitives()[p];
      if (!documentPrimitive || typeof extension.bufferView !== 'number' || !isRecord(extension.attributes)) return;
      const accessorIndex = new Map<string, number>(
        Object.entries(isRecord(primitive.attributes) ? primitive.attributes : {}) as [string, number][],
      );
      if (typeof primitive.indices === 'number') accessorIndex.set('indices', primitive.indices);
      const accessors = new Map([...accessorIndex].map(([key, index]) => [key, accessorsRead[index]]));
      out.push({ primitive: documentPrimitive, accessors, accessorIndex, extension });
    });
  });
  return out;
}

/** A compressed primitive of the source that is encoded again, and why. */
export interface DracoReencoded {
  primitive: Primitive;
  /** where the writer puts it: its mesh's index in the written file and its index in that mesh */
  meshIndex: number;
  primitiveIndex: number;
  /** the mesh and primitive, for notices: 'mesh 0 ("Body") primitive 1' */
  label: string;
  /** why, for notices: 'its weights changed' */
  reason: string;
}

/** Which compressed primitives keep the source's stream and which are encoded again (planDraco). */
export interface DracoPlan {
  keeps: DracoKeep[];
  reencoded: DracoReencoded[];
}

/**
 * Sorts the source's compressed primitives into those the export left exactly as read (their morph targets may be
 * new: they stay uncompressed), which keep their streams, and those encoded again, each with its reason (see the
 * module comment). A primitive the export removed is in neither list: nothing of it is written.
 * @param sources the source's compressed primitives as read (dracoSources)
 * @param doc     the Document after the export's steps, about to be written
 */
export function planDraco(sources: readonly DracoSource[], doc: Document): DracoPlan {
  const meshes = doc.getRoot().listMeshes();
  // Where each primitive is written: its mesh's index and its index in that mesh (the first mesh holding it).
  const where = new Map<Primitive, { meshIndex: number; primitiveIndex: number }>();
  meshes.forEach((mesh, meshIndex) =>
    mesh.listPrimitives().forEach((primitive, primitiveIndex) => {
      if (!where.has(primitive)) where.set(primitive, { meshIndex, primitiveIndex });
    }),
  );
  const placed: DracoKeep[] = sources.flatMap((source) => {
    const at = where.get(source.primitive);
    return at ? [{ ...source, ...at }] : [];
  });
  const labels = placed.map((keep) => primitiveLabel(meshes[keep.meshIndex].getName(), keep.meshIndex, keep.primitiveIndex));
  const reasons = new Map<number, string>();
  placed.forEach((keep, k) => {
    const changed = changedSemantics(keep);
    if (changed.length > 0)
      reasons.set(
        k,
        changed.every((semantic) => /^(JOINTS|WEIGHTS)_\d+$/.test(semantic))
          ? `its weights changed (${changed.join(', ')})`
          : `its ${changed.join(', ')} changed`,
      );
  });
  // Sharing spreads: a primitive sharing a stream or an accessor with one encoded again is encoded again too.
  for (let grew = true; grew;) {
    grew = false;
    placed.forEach((keep, k) => {
      if (reasons.has(k)) return;
      const other = placed.findIndex((candidate, j) => reasons.has(j) && shares(keep, candidate));
      if (other < 0) return;
      reasons.set(k, `it shares compressed data or accessors with ${labels[other]}, which is encoded again`);
      grew = true;
    });
  }
  return {
    keeps: placed.filter((_, k) => !reasons.has(k)),
    reencoded: placed.flatMap((keep, k) => {
      const reason = reasons.get(k);
      return reason === undefined
        ? []
        : [{ primitive: keep.primitive, meshIndex: keep.meshIndex, primitiveIndex: keep.primitiveIndex, label: labels[k], reason }];
    }),
  };
}

/**
 * The notice for the primitives a plan encodes again: which are compressed again and why, how (a primitive with
 * morph targets keeps its vertices and their order; others may have vertices merged), that the Draco extension becomes
 * required where the source does not require it, which the encoder could not compress (written uncompressed), and that
 * the others keep their streams; null when none is encoded again.
 * @param failed     those of plan.reencoded the encoder could not compress (dracoPlacements)
 * @param sourceName the source file, for the message
 * @param sourceJson the source's JSON (whether it requires the extension)
 */
export function dracoNotice(plan: DracoPlan, failed: readonly DracoReencoded[], sourceName: string, sourceJson: Json): string | null {
  const { reencoded, keeps } = plan;
  if (reencoded.length === 0) return null;
  const total = reencoded.length + keeps.length;
  const of = `of ${total} Draco-compressed primitive${total === 1 ? '' : 's'} of ${sourceName}`;
  const is = (count: number): string => (count === 1 ? 'is' : 'are');
  const encoded = reencoded.filter((one) => !failed.includes(one));
  const clauses: string[] = [];
  if (encoded.length > 0)
    clauses.push(
      `${encoded.length} ${of} ${is(encoded.length)} compressed again (${howEncoded(encoded)}): ${byReason(encoded, dracoSaid)}${requiredNote(sourceJson)}`,
    );
  if (failed.length > 0)
    clauses.push(
      `${failed.length} ${encoded.length > 0 ? 'more' : of} ${is(failed.length)} written uncompressed, as the Draco encoder cannot compress ${failed.length === 1 ? 'it' : 'them'}: ${byReason(failed, dracoSaid)}`,
    );
  const others =
    keeps.length === 0
      ? ''
      : `; the other ${keeps.length === 1 ? 'one keeps its' : `${keeps.length} keep their`} compressed data byte for byte`;
  return `${clauses.join('; ')}${others}`;
}

/**
 * What encoding again does to the primitives encoded (encodedStream): each is quantized anew; the encoder may merge
 * the vertices whose values are all equal, but a primitive with morph targets keeps its vertices and their order.
 */
function howEncoded(encoded: readonly DracoReencoded[]): string {
  const targets = encoded.filter((one) => one.primitive.listTargets().length > 0).map((one) => one.label);
  const merge = 'the encoder may merge vertices whose values are all equal';
  if (targets.length === 0) return `quantized anew; ${merge}`;
  if (targets.length === encoded.length)
    return `quantized anew; ${encoded.length === 1 ? 'it has morph targets, so it keeps' : 'they have morph targets, so each keeps'} its vertices and their order`;
  const shown = namedList(targets);
  return `quantized anew; ${merge}, except in ${targets.length === 1 ? 'the one' : `the ${targets.length}`} with morph targets (${shown}), which keep${targets.length === 1 ? 's its' : ' their'} vertices and their order`;
}

/** Whether a glTF's JSON lists the Draco extension as required. */
function requiresDraco(json: Json): boolean {
  return Array.isArray(json.extensionsRequired) && (json.extensionsRequired as unknown[]).includes(DRACO);
}

/**
 * What a notice adds when data compressed by this export makes the Draco extension required (it has no uncompressed
 * fallback) where the source does not require it: '' when the source does.
 * @param sourceJson the source's JSON
 */
export function requiredNote(sourceJson: Json): string {
  return requiresDraco(sourceJson)
    ? ''
    : `; ${DRACO} is added to extensionsRequired, as what is compressed now has no uncompressed fallback`;
}

/** A Draco reason as it reads for one primitive or for several ('its weights changed', 'their weights changed'). */
const dracoSaid = (reason: string, count: number): string =>
  count === 1 ? reason : reason.replace(/^its /, 'their ').replace(/^it shares /, 'they share ');

/**
 * The streams of a plan: the source's for the kept primitives (one copy for primitives that share one), one encoded
 * now for each primitive encoded again. A primitive the encoder cannot compress is left out (it is written
 * uncompressed) and listed in `failed`, for the notice (dracoNotice).
 * @param sourceJson  the source's JSON
 * @param source      the source file and its resources (the streams' bytes)
 */
export async function dracoPlacements(
  plan: DracoPlan,
  sourceJson: Json,
  source: GltfSource,
): Promise<{ placements: DracoPlacement[]; failed: DracoReencoded[] }> {
  const byView = new Map<number, DracoStream>();
  const placements: DracoPlacement[] = plan.keeps.map((keep) => {
    const stream = byView.get(keep.extension.bufferView) ?? sourceStream(keep, sourceJson, source);
    byView.set(keep.extension.bufferView, stream);
    return { meshIndex: keep.meshIndex, primitiveIndex: keep.primitiveIndex, stream };
  });
  const failed: DracoReencoded[] = [];
  for (const one of plan.reencoded) {
    const stream = await encodedStream(one.primitive);
    if (stream) placements.push({ meshIndex: one.meshIndex, primitiveIndex: one.primitiveIndex, stream });
    else failed.push(one);
  }
  return { placements, failed };
}

/** A kept primitive's stream: the source's bytes, and the JSON of the accessors it holds (those without a view of their own). */
function sourceStream(keep: DracoKeep, sourceJson: Json, source: GltfSource): DracoStream {
  const sourceAccessors = sourceJson.accessors as Json[];
  const accessors = new Map<string, Json>();
  for (const [key, index] of keep.accessorIndex) {
    // Only the accessors the stream holds (no buffer view of their own in the source) take the stream's JSON.
    if (sourceAccessors[index].bufferView !== undefined) continue;
    const { bufferView: _view, byteOffset: _offset, ...json } = sourceAccessors[index];
    accessors.set(key, json);
  }
  const view = (sourceJson.bufferViews as Json[])[keep.extension.bufferView];
  const start = (view.byteOffset as number | undefined) ?? 0;
  const bytes = sourceBytes(sourceJson, source, view.buffer as number).subarray(start, start + (view.byteLength as number));
  return { bytes, accessors, attributes: { ...keep.extension.attributes }, encoded: false };
}

/**
 * A primitive's attributes and indices encoded as a stream of its own, as an explicit Draco export encodes them
 * (compressOnWrite): a copy of the primitive alone in a Document of its own, written compressed. A primitive with
 * morph targets is encoded keeping its vertices and their order (the encoder does so for a primitive with targets:
 * the copy gets one, which the stream does not hold). Null when the encoder leaves it uncompressed or gives up on an
 * attribute (Draco's builder refuses it: "Error compressing "NORMAL" attribute.", a plain Error where glTF-Transform
 * leaves a primitive uncompressed on its EncodingError only).
 */
async function encodedStream(primitive: Primitive): Promise<DracoStream | null> {
  const doc = new GltfDocument().setLogger(new Logger(Logger.Verbosity.SILENT));
  const buffer = doc.createBuffer();
  const copy = (accessor: Accessor): Accessor =>
    doc
      .createAccessor()
      .setType(accessor.getType())
      .setArray((accessor.getArray() as Float32Array | Uint32Array | Uint16Array | Uint8Array | Int16Array | Int8Array).slice())
      .setNormalized(accessor.getNormalized())
      .setBuffer(buffer);
  const alone = doc.createPrimitive().setMode(primitive.getMode());
  for (const semantic of primitive.listSemantics()) alone.setAttribute(semantic, copy(primitive.getAttribute(semantic)!));
  const indices = primitive.getIndices();
  if (indices) alone.setIndices(copy(indices));
  if (primitive.listTargets().length > 0) {
    const count = primitive.getAttribute('POSITION')?.getCount() ?? 0;
    const position = doc
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array(3 * count))
      .setBuffer(buffer);
    alone.addTarget(doc.createPrimitiveTarget().setAttribute('POSITION', position));
  }
  doc.createMesh().addPrimitive(alone);
  const io = new WebIO().setLogger(new Logger(Logger.Verbosity.SILENT));
  await compressOnWrite(doc, io, 'draco');
  let glb: Uint8Array;
  try {
    glb = await io.writeBinary(doc);
  } catch (error) {
    if (error instanceof Error && /^(Error compressing|Unexpected component type)/.test(error.message)) return null;
    throw error;
  }
  const { jsonBytes, bin } = parseGlb(glb, 'stream');
  const json = JSON.parse(new TextDecoder().decode(jsonBytes)) as Json;
  const written = ((json.meshes as Json[])[0].primitives as Json[])[0];
  const extension = dracoExtensionOf(written);
  if (!extension || !bin) return null;
  const attributes = extension.attributes as Record<string, number>;
  const view = (json.bufferViews as Json[])[extension.bufferView as number];
  const start = (view.byteOffset as number | undefined) ?? 0;
  const accessors = new Map<string, Json>();
  const entries: [string, number][] = Object.keys(attributes).map((key) => [key, (written.attributes as Record<string, number>)[key]]);
  if (typeof written.indices === 'number') entries.push(['indices', written.indices]);
  for (const [key, index] of entries) {
    const { bufferView: _view, byteOffset: _offset, ...accessor } = (json.accessors as Json[])[index];
    accessors.set(key, accessor);
  }
  return { bytes: bin.slice(start, start + (view.byteLength as number)), accessors, attributes: { ...attributes }, encoded: true };
}

/**
 * What a notice adds about the source's uncompressed primitives when the writer compresses all: '' when there are none.
 * @param plain their labels (plainPrimitives)
 */
export function plainNote(plain: readonly string[]): string {
  if (plain.length === 0) return '';
  const shown = namedList(plain);
  return `; the writer compresses every primitive, so ${plain.length === 1 ? 'one the source stores uncompressed is' : `${plain.length} the source stores uncompressed are`} compressed with Draco too (${shown})`;
}

/**
 * The Document's primitives that are no compressed primitive of the source but that the Draco writer compresses
 * (indexed triangles: it leaves others uncompressed), as labels ('mesh 0 ("Body") primitive 1').
 */
export function plainPrimitives(sources: readonly DracoSource[], doc: Document): string[] {
  const compressed = new Set(sources.map((source) => source.primitive));
  return doc
    .getRoot()
    .listMeshes()
    .flatMap((mesh, m) =>
      mesh
        .listPrimitives()
        .flatMap((primitive, p) =>
          !compressed.has(primitive) && primitive.getIndices() && primitive.getMode() === Primitive.Mode.TRIANGLES
            ? [primitiveLabel(mesh.getName(), m, p)]
            : [],
        ),
    );
}

/** 'mesh 0 ("Body") primitive 1', or 'mesh 0 primitive 1' for a mesh without a name. */
function primitiveLabel(name: string, meshIndex: number, primitiveIndex: number): string {
  return `mesh ${meshIndex}${name ? ` (${JSON.stringify(name)})` : ''} primitive ${primitiveIndex}`;
}

/** The attributes (and 'indices') of a compressed primitive that are not the accessors read: changed, added or removed. */
function changedSemantics(source: DracoSource): string[] {
  const { primitive } = source;
  const semantics = new Set([...source.accessors.keys()].filter((key) => key !== 'indices'));
  for (const semantic of primitive.listSemantics()) semantics.add(semantic);
  const changed = [...semantics].filter((semantic) => primitive.getAttribute(semantic) !== (source.accessors.get(semantic) ?? null));
  if ((primitive.getIndices() ?? undefined) !== source.accessors.get('indices')) changed.push('indices');
  return changed;
}

/** Whether two compressed primitives share a stream or an accessor, in the source or after the export's steps. */
function shares(a: DracoSource, b: DracoSource): boolean {
  if (a.extension.bufferView === b.extension.bufferView) return true;
  const sourceIndices = new Set(b.accessorIndex.values());
  if ([...a.accessorIndex.values()].some((index) => sourceIndices.has(index))) return true;
  const now = (primitive: Primitive): Accessor[] =>
    [...primitive.listAttributes(), primitive.getIndices()].filter((accessor): accessor is Accessor => accessor !== null);
  const used = new Set(now(b.primitive));
  return now(a.primitive).some((accessor) => used.has(accessor));
}

/**
 * Gives the written primitives their compressed streams (see the module comment): each placed primitive's accessors
 * that its stream holds take the stream's JSON (their names stay), its extension points at the stream (one copy for
 * primitives that share one), and the views the writer laid out for those accessors are left out of their buffers
 * unless something else uses them. Each buffer is laid out again on its own: every view stays in its buffer, and a
 * stream goes into the buffer the writer put its primitive's accessors in (the first buffer when it put them in none).
 * @param json        the written JSON, changed in place
 * @param bins        the written file's buffers' bytes, by buffer index (a GLB's one binary chunk)
 * @param placements  the streams and their primitives (dracoPlacements)
 * @param sourceJson  the source's JSON (whether it requires the extension)
 * @returns the new buffers, by buffer index (each json.buffers[k].byteLength is set to its length)
 */
export function placeDracoStreams(
  json: Json,
  bins: readonly Uint8Array[],
  placements: readonly DracoPlacement[],
  sourceJson: Json,
): Uint8Array[] {
  const accessors = (json.accessors ?? []) as Json[];
  const bufferViews = (json.bufferViews ?? []) as Json[];
  const primitiveOf = (placement: DracoPlacement): Json =>
    ((json.meshes as Json[])[placement.meshIndex].primitives as Json[])[placement.primitiveIndex];
  // The views the writer gave the placed primitives' accessors: left out below unless something else still uses them.
  const orphaned = new Set<number>();
  const streams: DracoStream[] = [];
  // The buffer each stream goes into: that of the first view the writer gave one of its primitives' accessors.
  const streamBuffer = new Map<DracoStream, number>();
  const users = accessorUsers(json, placements, primitiveOf);
  const owners = new Map<number, DracoStream>();
  for (const placement of placements) {
    const primitive = primitiveOf(placement);
    for (const [key, accessor] of placement.stream.accessors) {
      const slots = key === 'indices' ? primitive : (primitive.attributes as Json);
      const slot = key === 'indices' ? 'indices' : key;
      const index = slots[slot] as number;
      const view = accessors[index].bufferView;
      if (typeof view === 'number' && !streamBuffer.has(placement.stream))
        streamBuffer.set(placement.stream, ((meshoptOf(bufferViews[view]) ?? bufferViews[view]).buffer as number | undefined) ?? 0);
      const stream = placement.stream.encoded
        ? encodedAccessor(accessors[index], accessor)
        : { ...accessor, ...(accessors[index].name !== undefined ? { name: accessors[index].name } : {}) };
      // An accessor that something besides streams uses (an uncompressed primitive, a target) stays for it, and so
      // does one another stream has taken: this primitive gets an accessor of its own. Primitives of one stream share.
      if (users.get(index)!.includes(null) || (owners.get(index) ?? placement.stream) !== placement.stream) {
        slots[slot] = accessors.length;
        accessors.push(stream);
        continue;
      }
      owners.set(index, placement.stream);
      if (typeof view === 'number') orphaned.add(view);
      accessors[index] = stream;
    }
    if (!streams.includes(placement.stream)) streams.push(placement.stream);
    primitive.extensions = {
      ...(isRecord(primitive.extensions) ? primitive.extensions : {}),
      [DRACO]: { bufferView: -1, attributes: { ...placement.stream.attributes } },
    };
  }
  // Each buffer laid out again: its views but the orphaned ones nothing uses any more, then the streams that go in it.
  const used = new Set<number>();
  for (const accessor of accessors) {
    if (typeof accessor.bufferView === 'number') used.add(accessor.bufferView);
    const sparse = accessor.sparse as { indices?: Json; values?: Json } | undefined;
    for (const part of [sparse?.indices, sparse?.values]) if (part && typeof part.bufferView === 'number') used.add(part.bufferView);
  }
  for (const image of (json.images ?? []) as Json[]) if (typeof image.bufferView === 'number') used.add(image.bufferView);
  const buffers = (json.buffers ?? []) as Json[];
  const renumber = new Map<number, number>();
  const views: Json[] = [];
  const pieces: { buffer: number; at: number; bytes: Uint8Array }[] = [];
  const lengths = buffers.map(() => 0);
  const reserve = (buffer: number, length: number): number => {
    const at = Math.ceil(lengths[buffer] / 4) * 4;
    lengths[buffer] = at + length;
    return at;
  };
  const place = (bytes: Uint8Array, view: Json, buffer: number): void => {
    const at = reserve(buffer, bytes.length);
    pieces.push({ buffer, at, bytes });
    views.push({ ...view, buffer, byteOffset: at, byteLength: bytes.length });
  };
  // A meshopt fallback buffer has no bytes: its views' compressed bytes lie in the buffer their extension names.
  const fallbacks = new Set(buffers.flatMap((buffer, k) => (meshoptOf(buffer)?.fallback === true ? [k] : [])));
  bufferViews.forEach((view, index) => {
    if (orphaned.has(index) && !used.has(index)) return;
    renumber.set(index, views.length);
    const meshopt = meshoptOf(view);
    const holder = meshopt ?? view;
    const buffer = (holder.buffer as number | undefined) ?? 0;
    const start = (holder.byteOffset as number | undefined) ?? 0;
    const bytes = (bins[buffer] ?? new Uint8Array(0)).subarray(start, start + (holder.byteLength as number));
    if (!meshopt) return place(bytes, view, buffer);
    const at = reserve(buffer, bytes.length);
    pieces.push({ buffer, at, bytes });
    const fallback = (view.buffer as number | undefined) ?? 0;
    views.push({
      ...view,
      byteOffset: reserve(fallback, view.byteLength as number),
      extensions: { ...(view.extensions as Json), [MESHOPT]: { ...meshopt, byteOffset: at } },
    });
  });
  const streamViews = streams.map((stream) => {
    const index = views.length;
    place(stream.bytes, {}, streamBuffer.get(stream) ?? 0);
    return index;
  });
  const out = lengths.map((length, k) => new Uint8Array(fallbacks.has(k) ? 0 : Math.ceil(length / 4) * 4));
  for (const { buffer, at, bytes } of pieces) out[buffer].set(bytes, at);
  for (const accessor of accessors) {
    if (typeof accessor.bufferView === 'number') accessor.bufferView = renumber.get(accessor.bufferView);
    const sparse = accessor.sparse as { indices?: Json; values?: Json } | undefined;
    for (const part of [sparse?.indices, sparse?.values])
      if (part && typeof part.bufferView === 'number') part.bufferView = renumber.get(part.bufferView);
  }
  for (const image of (json.images ?? []) as Json[])
    if (typeof image.bufferView === 'number') image.bufferView = renumber.get(image.bufferView);
  for (const placement of placements)
    (dracoExtensionOf(primitiveOf(placement)) as Json).bufferView = streamViews[streams.indexOf(placement.stream)];
  json.bufferViews = views;
  buffers.forEach((buffer, k) => (buffer.byteLength = fallbacks.has(k) ? Math.ceil(lengths[k] / 4) * 4 : out[k].length));
  // A stream encoded here has no uncompressed fallback, so the extension is required then, as it is when the source requires it.
  const required = placements.some((placement) => placement.stream.encoded) || requiresDraco(sourceJson);
  if (placements.length > 0) json.extensionsUsed = [...new Set([...((json.extensionsUsed as string[] | undefined) ?? []), DRACO])];
  if (placements.length > 0 && required)
    json.extensionsRequired = [...new Set([...((json.extensionsRequired as string[] | undefined) ?? []), DRACO])];
  return out;
}

/**
 * The JSON of an accessor a stream encoded here holds: the written accessor's (name, extras, extensions and all) with
 * what the stream decides (count, bounds, component type, normalized) taken from the encoded stream, and no buffer view.
 * @param written  the accessor as the writer wrote it (uncompressed)
 * @param encoded  the accessor as the encoder wrote it for the stream
 */
function encodedAccessor(written: Json, encoded: Json): Json {
  const { bufferView: _view, byteOffset: _offset, ...out } = written;
  for (const key of ['componentType', 'normalized', 'count', 'min', 'max']) {
    delete out[key];
    if (encoded[key] !== undefined) out[key] = encoded[key];
  }
  return out;
}

/**
 * Who uses each accessor of a written file: the stream of a placed primitive whose stream holds it, or null for any
 * other use (a primitive's attribute or indices outside a stream, a morph target, a skin, an animation).
 */
function accessorUsers(
  json: Json,
  placements: readonly DracoPlacement[],
  primitiveOf: (placement: DracoPlacement) => Json,
): Map<number, (DracoStream | null)[]> {
  const users = new Map<number, (DracoStream | null)[]>();
  const add = (index: unknown, user: DracoStream | null): void => {
    if (typeof index === 'number') users.set(index, [...(users.get(index) ?? []), user]);
  };
  const streamOf = new Map(placements.map((placement) => [primitiveOf(placement), placement.stream]));
  for (const mesh of (json.meshes ?? []) as Json[])
    for (const primitive of (mesh.primitives ?? []) as Json[]) {
      const stream = streamOf.get(primitive);
      const held = (key: string): DracoStream | null => (stream?.accessors.has(key) ? stream : null);
      for (const [key, index] of Object.entries((primitive.attributes ?? {}) as Json)) add(index, held(key));
      add(primitive.indices, held('indices'));
      for (const target of (primitive.targets ?? []) as Json[]) for (const index of Object.values(target)) add(index, null);
    }
  for (const skin of (json.skins ?? []) as Json[]) add(skin.inverseBindMatrices, null);
  for (const animation of (json.animations ?? []) as Json[])
    for (const sampler of (animation.samplers ?? []) as Json[]) {
      add(sampler.input, null);
      add(sampler.output, null);
    }
  return users;
}

/** A written primitive's KHR_draco_mesh_compression object, or null. */
function dracoExtensionOf(primitive: Json): Json | null {
  const extension = isRecord(primitive.extensions) ? primitive.extensions[DRACO] : undefined;
  return isRecord(extension) ? extension : null;
}

/** The bytes of the source's buffer `index`: the GLB's binary chunk, a resource by URI, or a data: URI. */
export function sourceBytes(sourceJson: Json, source: GltfSource, index: number): Uint8Array {
  const buffer = (sourceJson.buffers as Json[])[index];
  const uri = buffer.uri as string | undefined;
  if (uri === undefined && isGlb(source.bytes)) return parseGlb(source.bytes, source.file).bin ?? new Uint8Array(0);
  if (uri !== undefined && isDataUri(uri)) {
    const decoded = decodeDataUri(uri);
    if (decoded.ok) return decoded.uri.bytes;
  }
  return (uri !== undefined && source.resources[uri]) || new Uint8Array(0);
}
