/**
 * Draco-compressed geometry kept as the source has it, primitive by primitive. glTF-Transform's reader decodes a
 * KHR_draco_mesh_compression primitive and its writer can only encode it again, which quantizes the decoded values a
 * second time (positions move by up to 5e-5 of the diagonal) and lets the encoder renumber and merge vertices. When
 * the export changes nothing of a compressed primitive (the same attribute and index accessors, as read) and asks for
 * no compression, the written file gets that primitive's compressed stream back byte for byte: its accessors are the
 * source's again (count, bounds and all, no buffer view), its extension points at a copy of the source's stream, and
 * what the writer laid out for it instead is left out of the buffer. Morph targets are no part of the stream
 * (KHR_draco_mesh_compression compresses a primitive's attributes only): a target the export adds (examples, a bake)
 * is written uncompressed beside the kept stream, in the vertex order the stream decodes to, which is the order it was
 * computed in.
 *
 * A primitive whose attributes or indices the export changed (its weights, say) is encoded again, and so is every
 * primitive that shares a stream or an accessor with one encoded again (one accessor has one count and one order,
 * and the encoder may renumber and merge the vertices of its stream), and, when any is encoded again, an unchanged
 * primitive with accessors that have data outside its stream (attributes the stream does not hold, an uncompressed
 * fallback: the writer, compressing, would move them into a new stream of its own); a notice names each (mesh,
 * primitive) and why (planDraco, dracoNotice). The others keep their streams (restoreDraco). The Draco writer
 * compresses every indexed triangle primitive of the file, so when any is encoded again, the primitives the source
 * stores uncompressed are compressed too, and the notice names them (plainPrimitives); when none is, the writer does
 * not compress and they stay as they were.
 */
import { Primitive, type Accessor, type Document } from '@gltf-transform/core';
import { decodeDataUri, isDataUri } from '../data-uri.ts';
import type { GltfSource } from '../types.ts';
import { isGlb, parseGlb } from './glb.ts';

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
  /**
   * whether some of its accessors have a buffer view of their own in the source: attributes the stream does not
   * hold, or an uncompressed fallback of those it does
   */
  ownData: boolean;
}

/** A kept primitive, found in the written file by its mesh and primitive index. */
export interface DracoKeep extends DracoSource {
  meshIndex: number;
  primitiveIndex: number;
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
      const sourceAccessors = Array.isArray(json.accessors) ? (json.accessors as unknown[]) : [];
      const ownData = [...accessorIndex.values()].some((index) => {
        const accessor = sourceAccessors[index];
        return isRecord(accessor) && accessor.bufferView !== undefined;
      });
      out.push({ primitive: documentPrimitive, accessors, accessorIndex, extension, ownData });
    });
  });
  return out;
}

/** A compressed primitive of the source that is encoded again, and why. */
export interface DracoReencoded {
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
  /**
   * the primitives the source stores uncompressed that the writer can compress (indexed triangles), as labels: it
   * compresses every such primitive of the file, so these are compressed too when any is encoded again
   */
  plain: string[];
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
  const placed: DracoKeep[] = [];
  for (const source of sources) {
    const meshIndex = meshes.findIndex((mesh) => mesh.listPrimitives().includes(source.primitive));
    if (meshIndex >= 0) placed.push({ ...source, meshIndex, primitiveIndex: meshes[meshIndex].listPrimitives().indexOf(source.primitive) });
  }
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
  if (reasons.size > 0)
    placed.forEach((keep, k) => {
      if (!reasons.has(k) && keep.ownData)
        reasons.set(
          k,
          'some of its accessors have data outside its compressed stream (attributes it does not hold, or an uncompressed fallback), which the writer would move into a new stream',
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
    plain: plainPrimitives(sources, doc),
    keeps: placed.filter((_, k) => !reasons.has(k)),
    reencoded: placed.flatMap((keep, k) => {
      const reason = reasons.get(k);
      return reason === undefined ? [] : [{ meshIndex: keep.meshIndex, primitiveIndex: keep.primitiveIndex, label: labels[k], reason }];
    }),
  };
}

/**
 * The notice for the primitives a plan encodes again: which, why, and that the others keep their streams; null when
 * none is encoded again.
 * @param sourceName the source file, for the message
 */
export function dracoNotice(plan: DracoPlan, sourceName: string): string | null {
  const { reencoded, keeps, plain } = plan;
  if (reencoded.length === 0) return null;
  const total = reencoded.length + keeps.length;
  const each = reencoded.map((one) => `${one.label}: ${one.reason}`).join('; ');
  const others =
    keeps.length === 0
      ? ''
      : `; the other ${keeps.length === 1 ? 'one keeps its' : `${keeps.length} keep their`} compressed data byte for byte`;
  return `${reencoded.length} of ${total} Draco-compressed primitive${total === 1 ? '' : 's'} of ${sourceName} ${reencoded.length === 1 ? 'is' : 'are'} compressed again (quantized anew; the encoder may renumber and merge vertices): ${each}${others}${plainNote(plain)}`;
}

/**
 * What a notice adds about the source's uncompressed primitives when the writer compresses: '' when there are none.
 * @param plain their labels (plainPrimitives)
 */
export function plainNote(plain: readonly string[]): string {
  if (plain.length === 0) return '';
  const shown = plain.slice(0, 6).join(', ') + (plain.length > 6 ? ` and ${plain.length - 6} more` : '');
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
 * Puts the kept primitives' compressed streams back into a written file (see the module comment). Primitives the
 * writer compressed again keep the streams it wrote; what the writer laid out for a kept primitive (its decoded data,
 * or a stream of its own when the writer compressed) is left out of the buffer unless something else uses it.
 * @param json        the written JSON, changed in place
 * @param bin         the written file's one buffer
 * @param keeps       the kept primitives (planDraco)
 * @param sourceJson  the source's JSON
 * @param source      the source file and its resources
 * @returns the new buffer (json.buffers[0].byteLength is set to its length)
 */
export function restoreDraco(json: Json, bin: Uint8Array, keeps: readonly DracoKeep[], sourceJson: Json, source: GltfSource): Uint8Array {
  const accessors = (json.accessors ?? []) as Json[];
  const bufferViews = (json.bufferViews ?? []) as Json[];
  const sourceAccessors = sourceJson.accessors as Json[];
  const sourceViews = sourceJson.bufferViews as Json[];
  const primitiveOf = (keep: DracoKeep): Json => ((json.meshes as Json[])[keep.meshIndex].primitives as Json[])[keep.primitiveIndex];
  // The views the writer gave the kept primitives: left out below unless something else still uses them.
  const orphaned = new Set<number>();
  const streams: Uint8Array[] = [];
  const streamOfView = new Map<number, number>();
  const keptStream: number[] = [];
  for (const keep of keeps) {
    const primitive = primitiveOf(keep);
    const written = dracoExtensionOf(primitive);
    if (written && typeof written.bufferView === 'number') orphaned.add(written.bufferView);
    for (const [key, sourceIndex] of keep.accessorIndex) {
      const sourceAccessor = sourceAccessors[sourceIndex];
      // Only the accessors the stream holds (no buffer view of their own in the source) go back to it.
      if (sourceAccessor.bufferView !== undefined) continue;
      const index = (key === 'indices' ? primitive.indices : (primitive.attributes as Json)[key]) as number;
      if (typeof accessors[index].bufferView === 'number') orphaned.add(accessors[index].bufferView);
      const { bufferView: _view, byteOffset: _offset, ...kept } = sourceAccessor;
      accessors[index] = { ...kept, ...(accessors[index].name !== undefined ? { name: accessors[index].name } : {}) };
    }
    // Primitives that share a stream in the source share its one copy.
    let stream = streamOfView.get(keep.extension.bufferView);
    if (stream === undefined) {
      stream = streams.length;
      streamOfView.set(keep.extension.bufferView, stream);
      const view = sourceViews[keep.extension.bufferView];
      const start = (view.byteOffset as number | undefined) ?? 0;
      streams.push(sourceBytes(sourceJson, source, view.buffer as number).subarray(start, start + (view.byteLength as number)));
    }
    keptStream.push(stream);
    primitive.extensions = {
      ...(isRecord(primitive.extensions) ? primitive.extensions : {}),
      [DRACO]: { bufferView: -1, attributes: { ...keep.extension.attributes } },
    };
  }
  // The buffer laid out again: every view but the orphaned ones nothing uses any more, then the kept streams.
  const used = new Set<number>();
  const compressed = (json.meshes as Json[]).flatMap((mesh) =>
    ((mesh.primitives ?? []) as Json[]).map(dracoExtensionOf).filter((extension): extension is Json => extension !== null),
  );
  for (const extension of compressed) if (typeof extension.bufferView === 'number') used.add(extension.bufferView);
  for (const accessor of accessors) {
    if (typeof accessor.bufferView === 'number') used.add(accessor.bufferView);
    const sparse = accessor.sparse as { indices?: Json; values?: Json } | undefined;
    for (const part of [sparse?.indices, sparse?.values]) if (part && typeof part.bufferView === 'number') used.add(part.bufferView);
  }
  for (const image of (json.images ?? []) as Json[]) if (typeof image.bufferView === 'number') used.add(image.bufferView);
  const renumber = new Map<number, number>();
  const views: Json[] = [];
  const pieces: Uint8Array[] = [];
  let length = 0;
  const place = (bytes: Uint8Array, view: Json): void => {
    length = Math.ceil(length / 4) * 4;
    pieces.push(bytes);
    views.push({ ...view, buffer: 0, byteOffset: length, byteLength: bytes.length });
    length += bytes.length;
  };
  bufferViews.forEach((view, index) => {
    if (orphaned.has(index) && !used.has(index)) return;
    const start = (view.byteOffset as number | undefined) ?? 0;
    renumber.set(index, views.length);
    place(bin.subarray(start, start + (view.byteLength as number)), view);
  });
  const streamViews = streams.map((stream) => {
    const index = views.length;
    place(stream, {});
    return index;
  });
  const out = new Uint8Array(Math.ceil(length / 4) * 4);
  pieces.forEach((piece, k) => out.set(piece, views[k].byteOffset as number));
  for (const accessor of accessors) {
    if (typeof accessor.bufferView === 'number') accessor.bufferView = renumber.get(accessor.bufferView);
    const sparse = accessor.sparse as { indices?: Json; values?: Json } | undefined;
    for (const part of [sparse?.indices, sparse?.values])
      if (part && typeof part.bufferView === 'number') part.bufferView = renumber.get(part.bufferView);
  }
  for (const image of (json.images ?? []) as Json[])
    if (typeof image.bufferView === 'number') image.bufferView = renumber.get(image.bufferView);
  // The streams the writer encoded (primitives encoded again) move with their views; the kept ones point at theirs.
  for (const extension of compressed)
    if (typeof extension.bufferView === 'number' && extension.bufferView >= 0) extension.bufferView = renumber.get(extension.bufferView);
  keeps.forEach((keep, k) => {
    (dracoExtensionOf(primitiveOf(keep)) as Json).bufferView = streamViews[keptStream[k]];
  });
  json.bufferViews = views;
  (json.buffers as Json[])[0].byteLength = out.length;
  const required = Array.isArray(sourceJson.extensionsRequired) && (sourceJson.extensionsRequired as unknown[]).includes(DRACO);
  json.extensionsUsed = [...new Set([...((json.extensionsUsed as string[] | undefined) ?? []), DRACO])];
  if (required) json.extensionsRequired = [...new Set([...((json.extensionsRequired as string[] | undefined) ?? []), DRACO])];
  return out;
}

/** A written primitive's KHR_draco_mesh_compression object, or null. */
function dracoExtensionOf(primitive: Json): Json | null {
  const extension = isRecord(primitive.extensions) ? primitive.extensions[DRACO] : undefined;
  return isRecord(extension) ? extension : null;
}

/** The bytes of the source's buffer `index`: the GLB's binary chunk, a resource by URI, or a data: URI. */
function sourceBytes(sourceJson: Json, source: GltfSource, index: number): Uint8Array {
  const buffer = (sourceJson.buffers as Json[])[index];
  const uri = buffer.uri as string | undefined;
  if (uri === undefined && isGlb(source.bytes)) return parseGlb(source.bytes, source.file).bin ?? new Uint8Array(0);
  if (uri !== undefined && isDataUri(uri)) {
    const decoded = decodeDataUri(uri);
    if (decoded.ok) return decoded.uri.bytes;
  }
  return (uri !== undefined && source.resources[uri]) || new Uint8Array(0);
}
