/**
 * Draco-compressed geometry kept as the source has it. glTF-Transform's reader decodes a KHR_draco_mesh_compression
 * primitive and its writer can only encode it again, which quantizes the decoded values a second time (positions move
 * by up to 5e-5 of the diagonal) and lets the encoder renumber and merge vertices. When the export changes nothing of
 * a compressed primitive (the same attribute and index accessors, as read) and asks for no compression, the written
 * file gets the source's compressed stream back byte for byte: the primitive's accessors lose their buffer views
 * again (they are the source's accessors, count, bounds and all), its extension points at a copy of the source's
 * stream, and the decoded data the writer laid out is left out of the buffer. Morph targets are no part of the
 * stream (KHR_draco_mesh_compression compresses a primitive's attributes only): a target the export adds (examples,
 * a bake) is written uncompressed beside the kept stream, in the vertex order the stream decodes to, which is the
 * order it was computed in. Anything else changed (weights, positions, attributes): every compressed primitive is
 * encoded again, as before, and a notice says so.
 */
import type { Accessor, Document, Primitive } from '@gltf-transform/core';
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
      out.push({ primitive: documentPrimitive, accessors, accessorIndex, extension });
    });
  });
  return out;
}

/**
 * The compressed primitives whose attributes and indices the export left exactly as read (their morph targets may
 * be new: they stay uncompressed), with where the writer will put them; null when any was changed or removed (then
 * all are encoded again).
 */
export function unchangedDraco(sources: readonly DracoSource[], doc: Document): DracoKeep[] | null {
  const meshes = doc.getRoot().listMeshes();
  const keeps: DracoKeep[] = [];
  for (const source of sources) {
    const { primitive } = source;
    const semantics = primitive.listSemantics();
    const same =
      semantics.length === [...source.accessors.keys()].filter((key) => key !== 'indices').length &&
      semantics.every((semantic) => primitive.getAttribute(semantic) === source.accessors.get(semantic)) &&
      (primitive.getIndices() ?? undefined) === source.accessors.get('indices');
    const meshIndex = meshes.findIndex((mesh) => mesh.listPrimitives().includes(primitive));
    if (!same || meshIndex < 0) return null;
    keeps.push({ ...source, meshIndex, primitiveIndex: meshes[meshIndex].listPrimitives().indexOf(primitive) });
  }
  return keeps;
}

/**
 * Puts the kept primitives' compressed streams back into a written file (see the module comment).
 * @param json        the written JSON, changed in place
 * @param bin         the written file's one buffer
 * @param keeps       the kept primitives (unchangedDraco)
 * @param sourceJson  the source's JSON
 * @param source      the source file and its resources
 * @returns the new buffer (json.buffers[0].byteLength is set to its length)
 */
export function restoreDraco(json: Json, bin: Uint8Array, keeps: readonly DracoKeep[], sourceJson: Json, source: GltfSource): Uint8Array {
  const accessors = json.accessors as Json[];
  const bufferViews = (json.bufferViews ?? []) as Json[];
  const sourceAccessors = sourceJson.accessors as Json[];
  const sourceViews = sourceJson.bufferViews as Json[];
  const streams: Uint8Array[] = [];
  for (const keep of keeps) {
    const primitive = ((json.meshes as Json[])[keep.meshIndex].primitives as Json[])[keep.primitiveIndex];
    for (const [key, sourceIndex] of keep.accessorIndex) {
      const sourceAccessor = sourceAccessors[sourceIndex];
      // Only the accessors the stream holds (no buffer view of their own in the source) go back to it.
      if (sourceAccessor.bufferView !== undefined) continue;
      const index = (key === 'indices' ? primitive.indices : (primitive.attributes as Json)[key]) as number;
      const { bufferView: _view, byteOffset: _offset, ...kept } = sourceAccessor;
      accessors[index] = { ...kept, ...(accessors[index].name !== undefined ? { name: accessors[index].name } : {}) };
    }
    const view = sourceViews[keep.extension.bufferView];
    streams.push(
      sourceBytes(sourceJson, source, view.buffer as number).subarray(
        (view.byteOffset as number) ?? 0,
        ((view.byteOffset as number) ?? 0) + (view.byteLength as number),
      ),
    );
    primitive.extensions = {
      ...(isRecord(primitive.extensions) ? primitive.extensions : {}),
      [DRACO]: { bufferView: -1, attributes: { ...keep.extension.attributes } },
    };
  }
  // The buffer laid out again: the views something still uses, then the streams.
  const used = new Set<number>();
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
  const place = (bytes: Uint8Array, view: Json): number => {
    length = Math.ceil(length / 4) * 4;
    pieces.push(bytes);
    views.push({ ...view, buffer: 0, byteOffset: length, byteLength: bytes.length });
    const at = length;
    length += bytes.length;
    return at;
  };
  bufferViews.forEach((view, index) => {
    if (!used.has(index)) return;
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
  let offset = 0;
  pieces.forEach((piece, k) => {
    offset = views[k].byteOffset as number;
    out.set(piece, offset);
  });
  for (const accessor of accessors) {
    if (typeof accessor.bufferView === 'number') accessor.bufferView = renumber.get(accessor.bufferView);
    const sparse = accessor.sparse as { indices?: Json; values?: Json } | undefined;
    for (const part of [sparse?.indices, sparse?.values])
      if (part && typeof part.bufferView === 'number') part.bufferView = renumber.get(part.bufferView);
  }
  for (const image of (json.images ?? []) as Json[])
    if (typeof image.bufferView === 'number') image.bufferView = renumber.get(image.bufferView);
  keeps.forEach((keep, k) => {
    const primitive = ((json.meshes as Json[])[keep.meshIndex].primitives as Json[])[keep.primitiveIndex];
    ((primitive.extensions as Json)[DRACO] as Json).bufferView = streamViews[k];
  });
  json.bufferViews = views;
  (json.buffers as Json[])[0].byteLength = out.length;
  const required = Array.isArray(sourceJson.extensionsRequired) && (sourceJson.extensionsRequired as unknown[]).includes(DRACO);
  json.extensionsUsed = [...new Set([...((json.extensionsUsed as string[] | undefined) ?? []), DRACO])];
  if (required) json.extensionsRequired = [...new Set([...((json.extensionsRequired as string[] | undefined) ?? []), DRACO])];
  return out;
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
