/**
 * The write step: accessors the steps orphaned go, what the reader left out of a source is carried back
 * (gltf-carry.ts), geometry is compressed as asked, and the Document is written as a GLB or a .gltf with one .bin.
 * What the export left as the source had it is written as the source wrote it: node transforms
 * (keep-node-transforms.ts), defaults and accessor bounds (keep-spelling.ts), Draco streams (keep-draco.ts) and
 * meshopt-compressed buffer views (keep-meshopt.ts), so that a no-op export changes only the generator and the
 * buffers' layout, and says in a notice what else it changed.
 */
import { Format, WebIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { patchGlbJson, prepareCarry } from '../gltf-carry.ts';
import { CollectingLogger } from '../gltf-collecting-logger.ts';
import type { GltfExportResult } from '../gltf-export.ts';
import { compressOnWrite, meshoptDecoder, type GltfCompression } from '../gltf-extensions.ts';
import { bufferUris, parseJsonText } from '../gltf-resource-uris.ts';
import { FormatError } from '../format-error.ts';
import type { KeptAnimations } from './clips-step.ts';
import type { ExportState } from './export-state.ts';
import { dropEmptyBuffers, type WrittenFiles } from './empty-buffers.ts';
import { parseGlb, writeGlb } from './glb.ts';
import {
  DRACO,
  dracoNotice,
  dracoPlacements,
  placeDracoStreams,
  plainNote,
  plainPrimitives,
  planDraco,
  requiredNote,
  sourceBytes,
  type DracoPlacement,
} from './keep-draco.ts';
import { MESHOPT, meshoptNotice, placeMeshoptViews, planMeshopt, type MeshoptDecoding, type MeshoptPlan } from './keep-meshopt.ts';
import { restoreNodeTransforms } from './keep-node-transforms.ts';
import { restoreSpelling, tagSourceAccessors } from './keep-spelling.ts';
import type { WriteOptions } from './write-options.ts';

type Json = Record<string, unknown>;

/** Disposes of the accessors that only the replaced attributes, matrices and removed animations used. */
export function disposeOrphanAccessors(state: ExportState): void {
  for (const accessor of state.doc.getRoot().listAccessors())
    if (!state.unusedBefore.has(accessor) && accessor.listParents().length <= 1) accessor.dispose();
}

/**
 * Writes the Document (see the module comment). A compressed source is compressed again the same way.
 * @param opts the file's form, the .bin's name and the compression asked for
 * @returns the file's bytes (GLB, or the .gltf JSON as UTF-8), its resources by URI and the warnings of every step
 * @throws FormatError naming the file when the writer fails
 */
export async function writeDocument(state: ExportState, kept: KeptAnimations, opts: Required<WriteOptions>): Promise<GltfExportResult> {
  const { doc, warnings, file } = state;
  const root = doc.getRoot();
  const carryOver = state.carry
    ? prepareCarry(
        state.carry.json,
        {
          accessors: state.carry.accessors,
          accessorArrays: state.carry.accessorArrays,
          samplers: state.samplersRead,
          samplerCopies: kept.samplerCopies,
          animationIndex: kept.animationIndex,
        },
        warnings,
      )
    : null;
  // What the reader leaves out goes back, and what the export did not change is written as the source writes it.
  const written = root.listNodes();
  const carried = (json: Json): void => {
    carryOver?.(json);
    restoreNodeTransforms(json, state.carry?.json ?? null, state.carry?.nodes ?? [], written);
    if (state.carry) restoreSpelling(json, state.carry.json);
  };
  if (state.carry) tagSourceAccessors(state.carry.accessors);
  const io = new WebIO().setLogger(new CollectingLogger(warnings)).registerExtensions(ALL_EXTENSIONS);
  try {
    // A GLB holds one buffer: a .gltf source with several (SimpleSkin has four) has its accessors moved into one.
    const [firstBuffer, ...otherBuffers] = root.listBuffers();
    if (opts.format === 'glb' && otherBuffers.length > 0) {
      for (const accessor of root.listAccessors()) accessor.setBuffer(firstBuffer);
      for (const buffer of otherBuffers) buffer.dispose();
    }
    const keeps = await keptDraco(state, opts.compression);
    const used = root.listExtensionsUsed().map((extension) => extension.extensionName);
    // Planned before the writer: its meshopt extension is then fresh (compressOnWrite) for what is encoded again.
    const meshoptPlan = used.includes(MESHOPT) ? await plannedMeshopt(state, opts.compression) : null;
    const meshoptKeeps = meshoptPlan && meshoptPlan.keeps.length > 0 ? meshoptPlan.keeps : null;
    // Said once the kept views are placed: one whose accessors the written file lost is encoded again after all.
    const noteMeshopt = (unplaced: readonly number[]): void => {
      const notice = meshoptPlan && meshoptNotice(meshoptPlan, state.sourceName, unplaced);
      if (notice) warnings.push(notice);
    };
    if (!meshoptKeeps) noteMeshopt([]);
    // Still used when every compressed primitive is encoded again by the writer (keptDraco).
    if (used.includes(DRACO)) await compressOnWrite(doc, io, 'draco');
    if (used.includes(MESHOPT)) await compressOnWrite(doc, io, 'meshopt');
    if (opts.compression !== 'none') await compressOnWrite(doc, io, opts.compression);
    const restore = (json: Json, bins: Uint8Array[]): Uint8Array[] =>
      keeps && state.carry ? placeDracoStreams(json, bins, keeps, state.carry.json) : bins;
    if (opts.format === 'glb') {
      let glb: Uint8Array = await io.writeBinary(doc);
      if (meshoptKeeps) {
        // The kept views go back before the accessors' tags come off (carried): they find their accessors by them.
        const { jsonBytes, bin } = parseGlb(glb, file);
        const json = parseJsonText(jsonBytes, file, true) as Json;
        const {
          bins: [out],
          unplaced,
        } = placeMeshoptViews(json, [bin ?? new Uint8Array(0)], meshoptKeeps, state.carry!.json);
        noteMeshopt(unplaced);
        // A fallback buffer left without views goes (one without bytes, not the binary chunk's buffer 0).
        if (out.length > 0) dropEmptyBuffers(json);
        carried(json);
        glb = writeGlb(json, out);
      } else glb = patchGlbJson(glb, carried, file);
      if (keeps) {
        const { jsonBytes, bin } = parseGlb(glb, file);
        const json = parseJsonText(jsonBytes, file, true) as Json;
        glb = writeGlb(json, restore(json, [bin ?? new Uint8Array(0)])[0]);
      }
      return { bytes: glb, resources: {}, warnings };
    }
    const { json, resources: files } = await writeGltfJson(io, doc, opts.basename, warnings);
    const resources: Record<string, Uint8Array> = files;
    const out = json as unknown as Json;
    if (meshoptKeeps) {
      const uris = (out.buffers as Json[]).map((buffer) => buffer.uri as string | undefined);
      const { bins, unplaced } = placeMeshoptViews(
        out,
        uris.map((uri) => (uri !== undefined ? resources[uri] : new Uint8Array(0))),
        meshoptKeeps,
        state.carry!.json,
      );
      noteMeshopt(unplaced);
      // A buffer whose views all went (their accessors now in kept views of another buffer) goes, with its file.
      replaceBins(out, uris, bins, { resources, basename: opts.basename, warnings });
    }
    carried(out);
    if (keeps) {
      // Each buffer is laid out again; one the streams left without bytes goes, with its file.
      const uris = (out.buffers as Json[]).map((buffer) => buffer.uri as string);
      const bins = restore(
        out,
        uris.map((uri) => resources[uri]),
      );
      replaceBins(out, uris, bins, { resources, basename: opts.basename, warnings });
    }
    return { bytes: new TextEncoder().encode(JSON.stringify(json)), resources, warnings };
  } catch (error) {
    if (error instanceof FormatError) throw error;
    return state.fail('', `cannot write the file: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * A .gltf's buffers laid out again: each written file gets its new bytes, buffers left without data go
 * (dropEmptyBuffers, which names the kept files for their count and says what went), and the files of those gone
 * are no longer written.
 * @param uris  each buffer's file as written before the new layout (undefined: a buffer without a file)
 * @param bins  each buffer's new bytes, in the same order
 */
function replaceBins(out: Json, uris: readonly (string | undefined)[], bins: readonly Uint8Array[], files: WrittenFiles): void {
  bins.forEach((bin, k) => {
    const uri = uris[k];
    if (uri !== undefined) files.resources[uri] = bin;
  });
  dropEmptyBuffers(out, files);
  const left = new Set((out.buffers as Json[]).map((buffer) => buffer.uri));
  for (const uri of uris) if (uri !== undefined && !left.has(uri)) delete files.resources[uri];
}

/**
 * The streams of the source's Draco-compressed primitives (keep-draco.ts): when no compression is asked for, the
 * source's stream for each one the export left unchanged and one encoded on its own for each it changed (planDraco,
 * dracoPlacements), with a notice naming those encoded again and why. The Draco extension then leaves the Document,
 * so that the writer lays every primitive out uncompressed for placeDracoStreams to give the compressed ones their
 * streams, in the buffers the writer put their accessors in (meshopt-compressed data beside them, kept or not, stays:
 * keep-meshopt.ts). Null when the writer compresses instead: an explicit compression encodes every one again, with a
 * notice.
 */
async function keptDraco(state: ExportState, compression: GltfCompression): Promise<DracoPlacement[] | null> {
  const sources = state.carry?.draco ?? [];
  if (sources.length === 0) return null;
  const root = state.doc.getRoot();
  if (compression !== 'none') {
    state.warnings.push(
      `all ${sources.length} Draco-compressed primitive${sources.length === 1 ? '' : 's'} of ${state.sourceName} ${sources.length === 1 ? 'is' : 'are'} compressed again (quantized anew), unchanged ones included: ${
        compression === 'draco'
          ? 'the export asks for Draco compression, which encodes every primitive with its own settings (sequential connectivity)'
          : 'the export asks for meshopt compression, which is applied over the Draco data encoded again'
      }${compression === 'draco' ? '' : plainNote(plainPrimitives(sources, state.doc))}${state.carry ? requiredNote(state.carry.json) : ''}`,
    );
    return null;
  }
  const plan = planDraco(sources, state.doc);
  const { placements, failed } = await dracoPlacements(plan, state.carry!.json, state.carry!.source);
  const notice = dracoNotice(plan, failed, state.sourceName, state.carry!.json);
  if (notice) state.warnings.push(notice);
  root
    .listExtensionsUsed()
    .find((extension) => extension.extensionName === DRACO)
    ?.dispose();
  return placements;
}

/**
 * Which of the source's meshopt-compressed buffer views keep their bytes (keep-meshopt.ts): when no compression is
 * asked for, those whose accessors the export left as read; the others are encoded again by the writer, for a notice
 * (meshoptNotice, said once the kept views are placed). Each source buffer's bytes are read once. Null when the
 * writer compresses every view again: an explicit compression.
 */
async function plannedMeshopt(state: ExportState, compression: GltfCompression): Promise<MeshoptPlan | null> {
  if (compression !== 'none' || !state.carry) return null;
  const decoder = (await meshoptDecoder()) as MeshoptDecoding;
  const { json, source, accessors } = state.carry;
  return planMeshopt(json, (index) => sourceBytes(json, source, index), accessors, decoder);
}

/**
 * The document as a .gltf (JSON) and its resources. Its buffers are named after the file (bufferUris): kept under a
 * source's names, an export next to that source would write its data into the files the source still refers to.
 * Buffers the writer leaves empty are left out (empty-buffers.ts).
 */
async function writeGltfJson(io: WebIO, doc: Document, basename: string, warnings: string[]): ReturnType<WebIO['writeJSON']> {
  const buffers = doc.getRoot().listBuffers();
  const uris = bufferUris(basename, buffers.length);
  buffers.forEach((buffer, k) => buffer.setURI(uris[k]));
  const written = await io.writeJSON(doc, { format: Format.GLTF, basename });
  dropEmptyBuffers(written.json as unknown as Json, { resources: written.resources, basename, warnings });
  return written;
}
