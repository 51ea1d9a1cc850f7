/**
 * glTF extensions on import: which extensions a file may require (one table, REQUIRED_EXTENSIONS), the decoders for
 * compressed geometry (KHR_draco_mesh_compression through `draco3dgltf`, EXT_meshopt_compression through
 * `meshoptimizer`, both loaded only when a file uses them), and KHR_animation_pointer channels on node TRS, which
 * are read as ordinary channels. On export, the same two compressions with their encoders (compressOnWrite).
 * The same code runs in Node (CLI, tests) and in the renderer's module workers.
 */
import { WebIO, type Document, type JSONDocument } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import { CollectingLogger } from './gltf-collecting-logger.ts';
import { FormatError } from './format-error.ts';
import { excerpt } from './text-scanner.ts';

/**
 * What Rigwright does with an extension the file lists in `extensionsRequired`:
 *   read     it changes how geometry, skinning or animation is stored, and the reader turns it into plain data
 *            (compressed or quantized accessors decoded, pointer channels read as node channels)
 *   kept     it touches neither geometry nor skinning (materials, textures, lights, metadata, visibility): the file
 *            is imported, the rig does not depend on it
 *   refused  it changes the geometry or skinning in a way Rigwright does not read: the file is refused, naming it
 */
export type RequiredExtensionHandling = 'read' | 'kept' | 'refused';

/**
 * The rule for required extensions, in one place. An entry ending in `*` covers a family by its prefix (every
 * KHR_materials_* extension is a material extension by the naming rules of the glTF registry). An extension this
 * table does not name is refused: nothing says it leaves geometry and skinning alone. Extensions a file only uses
 * (lists in `extensionsUsed`, not `extensionsRequired`) never refuse it: a file must load without them.
 */
export const REQUIRED_EXTENSIONS: readonly (readonly [name: string, handling: RequiredExtensionHandling])[] = [
  // Geometry and animation data, decoded or read into plain accessors.
  ['KHR_draco_mesh_compression', 'read'],
  ['EXT_meshopt_compression', 'read'],
  ['KHR_mesh_quantization', 'read'],
  ['KHR_accessor_float16', 'read'],
  ['KHR_accessor_float64', 'read'],
  ['KHR_animation_pointer', 'read'],
  // Appearance, scene extras and metadata: the rig does not depend on them.
  ['KHR_materials_*', 'kept'],
  ['KHR_texture_*', 'kept'],
  ['EXT_texture_*', 'kept'],
  ['KHR_lights_punctual', 'kept'],
  ['KHR_node_visibility', 'kept'],
  ['KHR_xmp_json_ld', 'kept'],
  ['EXT_mesh_features', 'kept'],
  ['EXT_structural_metadata', 'kept'],
  // Geometry that the importer does not read: instanced copies of meshes, restart values in strip indices.
  ['EXT_mesh_gpu_instancing', 'refused'],
  ['KHR_mesh_primitive_restart', 'refused'],
];

/** How a required extension is handled (see REQUIRED_EXTENSIONS); undefined for one the table does not know. */
export function requiredExtensionHandling(name: string): RequiredExtensionHandling | undefined {
  for (const [entry, handling] of REQUIRED_EXTENSIONS) {
    if (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry) return handling;
  }
  return undefined;
}

/** Extensions glTF-Transform reads into the document (the others are dropped with a notice). */
const READABLE = new Set(ALL_EXTENSIONS.map((extension) => extension.EXTENSION_NAME));

/**
 * The extension rules applied to a file's JSON before anything else reads it: required extensions are kept,
 * read or refused (REQUIRED_EXTENSIONS), and KHR_animation_pointer channels on node TRS become ordinary channels,
 * so the checks that follow (the input sanitizer, gltf/sanitize-input.ts) see them like any other channel.
 * @param json      the file's JSON, parsed but untrusted; changed in place
 * @param file      file name for messages
 * @param warnings  notices are appended here (extensions kept without being read, channels left out)
 * @throws FormatError naming the file for a JSON that is not an object or a required extension that is refused
 */
export function applyExtensionRules(json: unknown, file: string, warnings: string[]): void {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new FormatError(file, '', 'glTF import: the JSON is not an object');
  checkRequiredExtensions(json, file, warnings);
  readAnimationPointers(json, warnings);
}

/**
 * Reads a checked glTF JSON and its resources into a glTF-Transform Document, with every extension glTF-Transform
 * knows registered and the Draco and meshopt decoders loaded when the file uses them.
 * @param json       the file's JSON after applyExtensionRules and the structural checks
 * @param resources  the buffers by URI (a GLB's binary chunk under GLB_BUFFER)
 * @param file       file name for messages
 * @param warnings   the reader's own notices are appended here
 * @throws FormatError naming the file when glTF-Transform or a decoder cannot read it
 */
export async function readGltfDocument(
  json: unknown,
  resources: Record<string, Uint8Array>,
  file: string,
  warnings: string[],
): Promise<Document> {
  const io = new WebIO().setLogger(new CollectingLogger(warnings)).setStrictResources(false).registerExtensions(ALL_EXTENSIONS);
  try {
    const copies: Record<string, Uint8Array<ArrayBuffer>> = {};
    for (const [uri, data] of Object.entries(resources)) copies[uri] = Uint8Array.from(data);
    io.registerDependencies(await decodersFor(json as GltfJson));
    return await io.readJSON({ json: json as JSONDocument['json'], resources: copies });
  } catch (error) {
    if (error instanceof FormatError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // The meshopt decoder reports compressed bytes that do not decode to the count and stride given with a code.
    if (message.startsWith('Malformed buffer data'))
      throw new FormatError(
        file,
        'bufferViews',
        'glTF import: meshopt-compressed data (EXT_meshopt_compression) does not decode to the count and stride its buffer view gives',
      );
    throw new FormatError(file, '', `glTF import: cannot read the file: ${message}`);
  }
}

/** The parts of the glTF JSON read here, as untrusted input. */
interface GltfJson {
  extensionsUsed?: unknown;
  extensionsRequired?: unknown;
  nodes?: unknown;
  animations?: unknown;
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : [];
}

/**
 * Applies REQUIRED_EXTENSIONS. A kept extension that glTF-Transform cannot read is taken off `extensionsRequired`
 * (its reader would refuse the file) and reported; a refused or unknown one throws.
 */
function checkRequiredExtensions(json: GltfJson, file: string, warnings: string[]): void {
  const required = names(json.extensionsRequired);
  for (const name of required) {
    const handling = requiredExtensionHandling(name);
    if (handling === 'refused')
      throw new FormatError(
        file,
        'extensionsRequired',
        `glTF import: the file requires ${name}, which changes the geometry or skinning in a way Rigwright does not read`,
      );
    if (handling === undefined)
      throw new FormatError(
        file,
        'extensionsRequired',
        `glTF import: the file requires ${name}, an extension Rigwright does not know; it may change the geometry or skinning, so the file is not read`,
      );
  }
  const unread = required.filter((name) => requiredExtensionHandling(name) === 'kept' && !READABLE.has(name));
  if (unread.length > 0) {
    json.extensionsRequired = required.filter((name) => !unread.includes(name));
    warnings.push(
      `the file requires ${unread.join(', ')}, which Rigwright does not read; it concerns appearance only, so the rig is imported without it`,
    );
  }
}

const NODE_TRS_POINTER = /^\/nodes\/(\d+)\/(rotation|translation|scale)$/;

/** How many nodes a glTF JSON has (pointers name nodes by index). */
export function nodeCountOf(json: unknown): number {
  return isRecord(json) && Array.isArray(json.nodes) ? json.nodes.length : 0;
}

/**
 * What a channel's KHR_animation_pointer targets: a node's rotation, translation or scale (a node of the file's
 * `nodeCount`), which the importer reads as an ordinary channel; any other pointer, `other` ('' for a channel
 * without one), which the rig does not pose with; null for a channel that is not a pointer channel.
 */
function pointerTarget(channel: unknown, nodeCount: number): { node: number; path: string } | { other: string } | null {
  if (!isRecord(channel) || !isRecord(channel.target) || channel.target.path !== 'pointer') return null;
  const extensions = channel.target.extensions;
  const pointer = isRecord(extensions) && isRecord(extensions.KHR_animation_pointer) ? extensions.KHR_animation_pointer.pointer : undefined;
  if (typeof pointer !== 'string') return { other: '' };
  const match = NODE_TRS_POINTER.exec(pointer);
  return match && Number(match[1]) < nodeCount ? { node: Number(match[1]), path: match[2] } : { other: pointer };
}

/**
 * A channel's KHR_animation_pointer pointer when the channel is a pointer channel the rig does not pose with (any
 * target but the rotation, translation or scale of one of the file's `nodeCount` nodes): '' for one without a
 * pointer; null for every other channel.
 */
export function otherPointerOf(channel: unknown, nodeCount: number): string | null {
  const target = pointerTarget(channel, nodeCount);
  return target && 'other' in target ? target.other : null;
}

/**
 * KHR_animation_pointer: a channel whose pointer is `/nodes/N/rotation|translation|scale` animates that node
 * property exactly as a channel with `target: { node: N, path }` does, so it is rewritten to one. Other pointers
 * (materials, cameras, lights, morph weights, …) are left out of the clip and listed per clip (in-place export
 * puts them back: gltf-carry.ts). The extension is then taken off the file's lists: what it holds has been read or
 * reported.
 */
function readAnimationPointers(json: GltfJson, warnings: string[]): void {
  const used = names(json.extensionsUsed);
  if (!used.includes('KHR_animation_pointer')) return;
  const nodeCount = nodeCountOf(json);
  const animations: unknown[] = Array.isArray(json.animations) ? (json.animations as unknown[]) : [];
  animations.forEach((animation, a) => {
    if (!isRecord(animation) || !Array.isArray(animation.channels)) return;
    const name = typeof animation.name === 'string' && animation.name ? animation.name : `animation ${a}`;
    const leftOut: string[] = [];
    // A channel on a node's TRS becomes an ordinary channel; any other pointer channel is taken out of the clip.
    animation.channels = (animation.channels as unknown[]).filter((channel) => {
      const target = pointerTarget(channel, nodeCount);
      if (target === null) return true;
      if ('node' in target) {
        (channel as Record<string, unknown>).target = target;
        return true;
      }
      leftOut.push(!target.other ? '(a channel without a pointer)' : target.other.length > 120 ? excerpt(target.other) : target.other);
      return false;
    });
    if (leftOut.length > 0) {
      const shown = leftOut.slice(0, 6).join(', ') + (leftOut.length > 6 ? ` and ${leftOut.length - 6} more` : '');
      warnings.push(
        `animation "${name}": ${leftOut.length} KHR_animation_pointer channel${leftOut.length === 1 ? '' : 's'} left out of the clip (${shown}); Rigwright poses node rotation, translation and scale only, and exporting in place keeps the others in the file`,
      );
    }
  });
  json.extensionsUsed = used.filter((name) => name !== 'KHR_animation_pointer');
  if (json.extensionsRequired !== undefined)
    json.extensionsRequired = names(json.extensionsRequired).filter((name) => name !== 'KHR_animation_pointer');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The glTF-Transform dependencies the file's compression extensions need, loaded on first use. */
async function decodersFor(json: GltfJson): Promise<Record<string, unknown>> {
  const used = names(json.extensionsUsed);
  const dependencies: Record<string, unknown> = {};
  if (used.includes('KHR_draco_mesh_compression')) dependencies['draco3d.decoder'] = await dracoDecoder();
  if (used.includes('EXT_meshopt_compression')) dependencies['meshopt.decoder'] = await meshoptDecoder();
  return dependencies;
}

/** Geometry compression on export: none, Draco (lossy: quantized attributes) or meshopt (lossless codecs here). */
export type GltfCompression = 'none' | 'draco' | 'meshopt';

/**
 * Makes `io` write `doc` compressed, as a required extension (a reader without the decoder cannot show the mesh).
 * Draco quantizes float attributes with glTF-Transform's defaults (POSITION 14 bits, NORMAL 10, TEXCOORD 12, other
 * float attributes such as float WEIGHTS_0 12) and keeps integer attributes (JOINTS_0, integer weights) exact, in
 * the rig's vertex order;
 * meshopt here applies no filter, so its vertex and index codecs keep every value.
 */
export async function compressOnWrite(doc: Document, io: WebIO, compression: GltfCompression): Promise<void> {
  if (compression === 'draco') {
    io.registerExtensions([KHRDracoMeshCompression]).registerDependencies({ 'draco3d.encoder': await dracoEncoder() });
    // Sequential connectivity keeps the vertex order (edgebreaker renumbers and splits vertices), so a re-import
    // lines up with the rig vertex by vertex.
    doc
      .createExtension(KHRDracoMeshCompression)
      .setRequired(true)
      .setEncoderOptions({ method: KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL });
  } else if (compression === 'meshopt') {
    const { MeshoptEncoder } = await import('meshoptimizer/encoder');
    await MeshoptEncoder.ready;
    io.registerExtensions([EXTMeshoptCompression]).registerDependencies({ 'meshopt.encoder': MeshoptEncoder });
    doc
      .createExtension(EXTMeshoptCompression)
      .setRequired(true)
      .setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
  }
}

let dracoDecoderModule: Promise<unknown> | undefined;
let dracoEncoderModule: Promise<unknown> | undefined;
let meshoptDecoderModule: Promise<unknown> | undefined;

/**
 * Draco's decoder (Emscripten + WebAssembly). In Node the module finds its .wasm beside itself; in a browser or a
 * worker there is no file system, so it is told the URL of the .wasm, which the bundler copies into the build
 * (Vite turns `new URL(relative path, import.meta.url)` into the emitted asset's URL).
 */
function dracoDecoder(): Promise<unknown> {
  dracoDecoderModule ??= import('draco3dgltf').then((draco) => {
    const create = draco.createDecoderModule ?? draco.default.createDecoderModule;
    if (runsInNode()) return create();
    const wasm = new URL('../../node_modules/draco3dgltf/draco_decoder_gltf.wasm', import.meta.url).href;
    return create({ locateFile: () => wasm });
  });
  dracoDecoderModule.catch(() => (dracoDecoderModule = undefined));
  return dracoDecoderModule;
}

/** Draco's encoder, loaded like its decoder. */
function dracoEncoder(): Promise<unknown> {
  dracoEncoderModule ??= import('draco3dgltf').then((draco) => {
    const create = draco.createEncoderModule ?? draco.default.createEncoderModule;
    if (runsInNode()) return create();
    const wasm = new URL('../../node_modules/draco3dgltf/draco_encoder.wasm', import.meta.url).href;
    return create({ locateFile: () => wasm });
  });
  dracoEncoderModule.catch(() => (dracoEncoderModule = undefined));
  return dracoEncoderModule;
}

/** meshoptimizer's decoder: its WebAssembly is inlined in the module, so Node and browsers load it the same way. */
export function meshoptDecoder(): Promise<unknown> {
  meshoptDecoderModule ??= import('meshoptimizer/decoder').then(async ({ MeshoptDecoder }) => {
    await MeshoptDecoder.ready;
    return MeshoptDecoder;
  });
  meshoptDecoderModule.catch(() => (meshoptDecoderModule = undefined));
  return meshoptDecoderModule;
}

function runsInNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
}
