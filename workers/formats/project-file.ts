/**
 * The Rigwright project file: everything the user made, in one `.glb` (suggested name `<scene>.rig.glb`).
 *
 * The file is an ordinary skinned glTF 2.0 binary — mesh, skin and clips as gltf-export.ts writes them — so any
 * glTF viewer opens it. What glTF cannot hold exactly (float64 positions and weights with every influence,
 * handles, locks, bone scales, the per-vertex blend map, settings) lives in the root extension
 * `RIGWRIGHT_project`, listed in `extensionsUsed` and never in `extensionsRequired`. Its JSON is
 *
 *   { formatVersion, writer, scene: {...}, examples: [...], settings: {...} }
 *
 * and every array in it is an ArrayRef `{ bufferView, type, length }`: a bufferView of the GLB's one buffer,
 * 8-byte aligned, little-endian, at full precision. Reading uses only the extension; the viewer's copy is ignored.
 *
 * Versions: PROJECT_FORMAT_VERSION is what this build writes. A file of an older version is upgraded by the
 * MIGRATIONS chain (v → v + 1, on the extension's JSON) before it is read; a newer one is refused with a message
 * saying so. A later feature adds a section (a key beside `scene` and `settings`); readers fill in defaults for
 * sections and settings a file lacks, so a new section bumps the version only when an older reader would
 * misread the file without it.
 *
 *   format 1  scene and settings
 *   format 2  adds `examples` (the example shapes of context-aware deformation: name, file, positions float64 #V × 3,
 *             pose float64 #B × 9, pose source, hidden) and `settings.posespace` (the RBF kernel). A format 1 file
 *             is migrated to an empty examples list and the default kernel. The per-face blend (Eq. 9 or Eq. 10)
 *             is part of the skinning method (`settings.skin.method`, `context-perface-eq9` / `-eq10`) in both.
 *
 * Optional scene keys (format 2; an older reader ignores them and still reads the geometry and rig right):
 *   `parts` (the meshes: name, vertex and triangle ranges, material, optional materialRanges [{ triangleCount,
 *   material }], glTF source, skinned), `look` (uvs float32 #V × 2 or null; materials: name, baseColor, doubleSided,
 *   baseColorTexture { mimeType, bytes uint8 } or null; optional alphaMode, alphaCutoff, textureTransform, sampler,
 *   metallic, roughness, emissive, emissiveTexture { mimeType, bytes }, normalTexture { mimeType, bytes, scale }),
 *   `objCorners` (texcoords, normals float64; cornerTexcoords, cornerNormals int32 #F × 3) and `gltfSource` (file,
 *   bytes uint8, resources [{ uri, bytes }], jointNodes int32 #B): the asset kept whole, as the document holds it.
 *   `bindingStale` (true, or absent): the skeleton changed after the weights were made; a rebind is due.
 *   `weights.painted` (true, or absent): the weights were painted after they were computed or loaded.
 *   `posedBones` ({ rotations float64 #B × 9 row-major relative rotations, bones uint8 #B, 1 = posed by hand }, or
 *   absent): the bones posed by hand over the shown pose (the gizmo, IK), not yet keyed.
 *   A pose sequence (a clip's `poses`, the scene's own) may have `keys` (uint8 #L × #B, 1 where the user keyed that
 *   bone at that frame: a keyed clip); an older reader drops them and keeps every frame's pose.
 */
import { describeJsonError } from './json-text.ts';
import { AUTOMATIC_HANDLES_DEFAULTS } from '../weights/automatic-handles.ts';
import { HARMONIC_WEIGHTS_DEFAULTS } from '../weights/harmonic-weights.ts';
import { VOLUMETRIC_FALLOFF_RANGE, VOLUMETRIC_WEIGHTS_DEFAULTS, VOXEL_RESOLUTION_RANGE } from '../weights/volumetric-weights.ts';
import { BINDING_METHODS } from '../weights/binding-method.ts';
import { MAX_INFLUENCES_DEFAULT } from '../weights/limit-influences.ts';
import { INFLUENCE_DEFAULTS } from '../skinning/influences.ts';
import { FormatError } from './format-error.ts';
import { exportGltf, GLTF_EXPORT_DEFAULTS, type GltfClip } from './gltf-export.ts';
import { glbJsonPrefix, parseGlb, writeGlb } from './gltf/glb.ts';
import type { DenseMatrix, GltfSource, LookImage, MaterialLook, MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from './types.ts';
import { ALPHA_MODES, MAG_FILTERS, MIN_FILTERS, WRAP_MODES } from './material-look.ts';
import { gltfJson } from './gltf-resource-uris.ts';
import {
  MIN_QUATERNION_LENGTH,
  ROTATION_ROUNDING,
  quaternionProblem,
  renormalizeRotation,
  rotationDeviation,
  rotationProblem,
} from './pose-file.ts';
import { normalizeWeightRows } from './weights-file.ts';
import { buildSkeleton, type Skeleton } from '../rig/skeleton.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import type { KeyframeCurves } from '../rig/keyframe-curves.ts';

/** The format version this build writes; it reads 1 … PROJECT_FORMAT_VERSION. */
export const PROJECT_FORMAT_VERSION = 2;
export const PROJECT_EXTENSION = 'RIGWRIGHT_project';
/** The name a project is saved under: `<scene>.rig.glb`. Any `.glb` carrying the extension opens as a project. */
export const PROJECT_FILE_SUFFIX = '.rig.glb';
export const PROJECT_WRITER = 'Rigwright 0.1.0';

/** The scene: the stored fields of the app's SceneDocument (derived ones, normals and bounds, are recomputed). */
export interface ProjectScene {
  name: string;
  meshFiles: string[];
  /** positions #V × 3 float64, triangles #F × 3 uint32 */
  mesh: TriangleMesh;
  skeletonFile: string | null;
  /** joints and bones as stored; parents and order rebuilt on read */
  skeleton: Skeleton;
  /** #B names, or null when the scene has none */
  boneNames: string[] | null;
  /** #V × #B float64, every influence */
  weights: DenseMatrix;
  weightsSource: string;
  /**
   * true when the weights were painted after they were computed or loaded (the status line's ", painted"); stored as
   * `weights.painted`, absent: not
   */
  weightsPainted?: boolean;
  /** the pose sequence shown; when it is one of `clips`, the very same object */
  poses: PoseSequence | null;
  posesFile: string | null;
  clips: GltfClip[];
  /** #V bone per vertex or -1 */
  handles: Int32Array | null;
  handlesFile: string | null;
  /** #B × 3 */
  boneScales: Float64Array | null;
  warnings: string[];
  /** true when the skeleton changed after the weights and handles were made (SceneDocument.bindingStale); absent: not */
  bindingStale?: boolean;
  /** bones posed by hand over the shown pose (SceneDocument.posedBones); absent: none */
  posedBones?: { rotations: Float64Array; bones: Uint8Array };
  /** example shapes, in the document's order (stored in the extension's `examples` section, format 2) */
  examples: ProjectExample[];
  /** the meshes of the scene, in vertex order; absent or null: one mesh */
  parts?: readonly MeshPart[] | null;
  /** texture coordinates and materials (with their images); absent or null: none */
  look?: SurfaceLook | null;
  /** OBJ vt/vn per triangle corner; absent or null: none */
  objCorners?: ObjCorners | null;
  /** the glTF file the scene was imported from, kept whole for in-place export; absent or null: none */
  gltfSource?: GltfSource | null;
}

/** An example shape sculpted in a known pose (renderer ExampleShape). */
export interface ProjectExample {
  name: string;
  file: string;
  /** #V × 3 float64, the rest mesh's vertex order */
  positions: Float64Array;
  /** #B × 9 float64 row-major relative rotations */
  pose: Float64Array;
  poseSource: string;
  hidden: boolean;
}

/**
 * How the scene is shown and edited. Names (method, view, brush mode…) are kept as strings: the app checks them
 * against what it knows and falls back to its default for one it does not.
 */
export interface ProjectSettings {
  skin: {
    method: string;
    antipodality: string;
    split: string | null;
    heatMap: boolean;
    /** #V per-vertex LBS ↔ DQS blend of the weight-blended method, or null (all 0) */
    blend: Float32Array | null;
  };
  view: {
    mode: string;
    isoLines: boolean;
    wireframe: boolean;
    skeleton: boolean;
    /** influences per vertex on screen (0 = all) */
    influences: number;
    asExported: boolean;
    selectedBone: number;
  };
  paint: {
    brush: { mode: string; radius: number; strength: number; falloff: string; value: number; spacing: number; throughMesh: boolean };
    symmetry: 0 | 1 | 2 | null;
    /** #B, 1 = locked */
    locked: Uint8Array;
    maxInfluences: number;
  };
  export: { format: string; influences: number; weightComponent: string };
  /** pose-space weights of the examples (format 2) */
  posespace: { kernel: string };
  /**
   * how Compute weights runs: the handles (`current`, or chosen by the `distance` or `cylinder` rule), the Laplacian,
   * the cylinder radius as a fraction of the bounding diagonal, whether parts without handles are bound rigidly, and
   * the distance in mesh units within which vertices are welded into one for the solve (0: exactly coincident ones),
   * the binding method (`auto`, `surface` or `volumetric`), the volumetric grid's voxels along the longest side and
   * its falloff power. A file without it (or without a field) takes the defaults.
   */
  binding: {
    source: string;
    laplacian: string;
    radiusFraction: number;
    bindUnhandled: boolean;
    weldTolerance: number;
    method: string;
    voxelResolution: number;
    falloff: number;
  };
}

export interface ProjectContents {
  /** the version the file was written in (before migration); writers ignore it */
  formatVersion: number;
  scene: ProjectScene;
  settings: ProjectSettings;
}

/** What readProjectFile gives: the contents, and what it had to correct to read them. */
export interface ReadProject extends ProjectContents {
  /**
   * One line per correction, naming the file and the place (`arm.rig.glb: RIGWRIGHT_project.scene.weights.data: …`):
   * rotations and quaternions renormalised, weight rows made to sum to 1. Writers ignore it.
   */
  notices: string[];
}

/** The pose-space kernel of a project that names none (workers/posespace/pose-space-weights.ts RBF_KERNELS). */
export const DEFAULT_RBF_KERNEL = 'gaussian';

export function defaultProjectSettings(vertexCount: number, boneCount: number): ProjectSettings {
  void vertexCount;
  return {
    skin: { method: 'lbs', antipodality: 'per-vertex', split: null, heatMap: false, blend: null },
    // The view's preview influences and the scene's max influences are settings of their own, with their own defaults.
    view: {
      mode: 'shaded',
      isoLines: false,
      wireframe: false,
      skeleton: true,
      influences: INFLUENCE_DEFAULTS.maxInfluences,
      asExported: false,
      selectedBone: -1,
    },
    paint: {
      brush: { mode: 'add', radius: 40, strength: 0.3, falloff: 'smooth', value: 1, spacing: 0.25, throughMesh: false },
      symmetry: null,
      locked: new Uint8Array(boneCount),
      maxInfluences: MAX_INFLUENCES_DEFAULT,
    },
    export: {
      format: GLTF_EXPORT_DEFAULTS.format,
      influences: GLTF_EXPORT_DEFAULTS.influences,
      weightComponent: GLTF_EXPORT_DEFAULTS.weightComponent,
    },
    posespace: { kernel: DEFAULT_RBF_KERNEL },
    binding: {
      source: 'current',
      laplacian: HARMONIC_WEIGHTS_DEFAULTS.laplacian,
      radiusFraction: AUTOMATIC_HANDLES_DEFAULTS.radiusFraction,
      bindUnhandled: HARMONIC_WEIGHTS_DEFAULTS.unhandledComponents === 'bind-rigidly',
      weldTolerance: HARMONIC_WEIGHTS_DEFAULTS.weldTolerance,
      method: 'auto',
      voxelResolution: VOLUMETRIC_WEIGHTS_DEFAULTS.resolution,
      falloff: VOLUMETRIC_WEIGHTS_DEFAULTS.falloff,
    },
  };
}

// --- the binary container ----------------------------------------------------------------------------------------

/** Largest project read (the bridge's file limit); larger is refused before anything is allocated. */
export const MAX_PROJECT_BYTES = 2 ** 31;

type ArrayType = 'float64' | 'float32' | 'int32' | 'uint32' | 'uint8';
type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array;
const ARRAY_TYPES: Record<ArrayType, { bytes: number; make: (buffer: ArrayBuffer) => TypedArray }> = {
  float64: { bytes: 8, make: (b) => new Float64Array(b) },
  float32: { bytes: 4, make: (b) => new Float32Array(b) },
  int32: { bytes: 4, make: (b) => new Int32Array(b) },
  uint32: { bytes: 4, make: (b) => new Uint32Array(b) },
  uint8: { bytes: 1, make: (b) => new Uint8Array(b) },
};

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('project files need a little-endian machine');

interface ArrayRef {
  bufferView: number;
  type: ArrayType;
  length: number;
}

interface Glb {
  json: Record<string, unknown>;
  bin: Uint8Array;
}

/** The project's GLB: its JSON chunk parsed (an object) and its binary chunk (empty when it has none). */
function parseProjectGlb(bytes: Uint8Array, file: string): Glb {
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, reason);
  };
  if (bytes.byteLength > MAX_PROJECT_BYTES) fail('', `the file is ${bytes.byteLength} bytes; a project is at most ${MAX_PROJECT_BYTES}`);
  const { jsonBytes, bin } = parseGlb(bytes, file);
  let parsed: unknown;
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(jsonBytes);
    parsed = JSON.parse(text);
  } catch {
    // In our words: the engine's message quotes the file's bytes.
    fail('JSON chunk', text === undefined ? 'not valid UTF-8 text' : describeJsonError(text));
  }
  if (!isObject(parsed)) fail('JSON chunk', 'is not a JSON object');
  return { json: parsed as Record<string, unknown>, bin: bin ?? new Uint8Array(0) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a GLB whose JSON names the project extension (reads the header and the JSON chunk's text only). */
export function isProjectFile(bytes: Uint8Array): boolean {
  return new TextDecoder().decode(glbJsonPrefix(bytes)).includes(`"${PROJECT_EXTENSION}"`);
}

// --- writing -----------------------------------------------------------------------------------------------------

class ArrayWriter {
  readonly views: { buffer: number; byteOffset: number; byteLength: number }[] = [];
  private readonly parts: { at: number; bytes: Uint8Array }[] = [];
  constructor(
    private length: number,
    private readonly firstView: number,
  ) {}

  add(array: TypedArray, type: ArrayType): ArrayRef {
    this.length = (this.length + 7) & ~7;
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    this.parts.push({ at: this.length, bytes });
    this.views.push({ buffer: 0, byteOffset: this.length, byteLength: bytes.byteLength });
    this.length += bytes.byteLength;
    return { bufferView: this.firstView + this.views.length - 1, type, length: array.length };
  }

  /** The preview's buffer followed by the added arrays. */
  buffer(preview: Uint8Array): Uint8Array {
    const out = new Uint8Array((this.length + 3) & ~3);
    out.set(preview);
    for (const part of this.parts) out.set(part.bytes, part.at);
    return out;
  }
}

function poseJson(poses: PoseSequence, arrays: ArrayWriter): object {
  if (poses.kind === 'quaternions') return { kind: 'quaternions', boneCount: poses.boneCount, final: arrays.add(poses.final, 'float64') };
  return {
    kind: 'matrices',
    boneCount: poses.boneCount,
    frameCount: poses.frameCount,
    rotations: arrays.add(poses.rotations, 'float64'),
    ...(poses.translations ? { translations: arrays.add(poses.translations, 'float64') } : {}),
    ...(poses.times ? { times: arrays.add(poses.times, 'float64') } : {}),
    ...(poses.curves ? { curves: curvesJson(poses.curves, arrays) } : {}),
    ...(poses.keys ? { keys: arrays.add(poses.keys, 'uint8') } : {}),
  };
}

/** A clip's keyframe curves (the file's channels and what converts them into poses), as plain arrays. */
function curvesJson(curves: KeyframeCurves, arrays: ArrayWriter): object {
  return {
    parents: arrays.add(curves.parents, 'int32'),
    restTranslation: arrays.add(curves.restTranslation, 'float64'),
    restRotation: arrays.add(curves.restRotation, 'float64'),
    restScale: arrays.add(curves.restScale, 'float64'),
    jointNode: arrays.add(curves.jointNode, 'int32'),
    inverseBind: arrays.add(curves.inverseBind, 'float64'),
    fromWorld: arrays.add(curves.fromWorld, 'float64'),
    parentBone: arrays.add(curves.parentBone, 'int32'),
    heads: arrays.add(curves.heads, 'float64'),
    channels: curves.channels.map((c) => ({
      node: c.node,
      path: c.path,
      interpolation: c.interpolation,
      times: arrays.add(c.times, 'float64'),
      values: arrays.add(c.values, 'float64'),
    })),
  };
}

/** The optional asset keys of the scene section: parts, look, objCorners, gltfSource (only those the scene has). */
function assetJson(scene: ProjectScene, arrays: ArrayWriter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (scene.parts) out.parts = scene.parts.map((part) => ({ ...part, source: part.source ? { ...part.source } : null }));
  if (scene.look) {
    out.look = {
      uvs: scene.look.uvs ? arrays.add(scene.look.uvs, 'float32') : null,
      materials: scene.look.materials.map((m) => ({
        name: m.name,
        baseColor: [...m.baseColor],
        doubleSided: m.doubleSided,
        baseColorTexture: m.baseColorTexture
          ? { mimeType: m.baseColorTexture.mimeType, bytes: arrays.add(m.baseColorTexture.bytes, 'uint8') }
          : null,
        ...(m.alphaMode !== undefined ? { alphaMode: m.alphaMode } : {}),
        ...(m.alphaCutoff !== undefined ? { alphaCutoff: m.alphaCutoff } : {}),
        ...(m.textureTransform
          ? {
              textureTransform: {
                offset: [...m.textureTransform.offset],
                rotation: m.textureTransform.rotation,
                scale: [...m.textureTransform.scale],
              },
            }
          : {}),
        ...(m.sampler ? { sampler: { ...m.sampler } } : {}),
        ...(m.metallic !== undefined ? { metallic: m.metallic } : {}),
        ...(m.roughness !== undefined ? { roughness: m.roughness } : {}),
        ...(m.emissive ? { emissive: [...m.emissive] } : {}),
        ...(m.emissiveTexture
          ? { emissiveTexture: { mimeType: m.emissiveTexture.mimeType, bytes: arrays.add(m.emissiveTexture.bytes, 'uint8') } }
          : {}),
        ...(m.normalTexture
          ? {
              normalTexture: {
                mimeType: m.normalTexture.mimeType,
                bytes: arrays.add(m.normalTexture.bytes, 'uint8'),
                scale: m.normalTexture.scale,
              },
            }
          : {}),
      })),
    };
  }
  if (scene.objCorners) {
    const c = scene.objCorners;
    out.objCorners = {
      texcoords: arrays.add(c.texcoords, 'float64'),
      normals: arrays.add(c.normals, 'float64'),
      cornerTexcoords: arrays.add(c.cornerTexcoords, 'int32'),
      cornerNormals: arrays.add(c.cornerNormals, 'int32'),
    };
  }
  if (scene.gltfSource) {
    const g = scene.gltfSource;
    out.gltfSource = {
      file: g.file,
      bytes: arrays.add(g.bytes, 'uint8'),
      resources: Object.entries(g.resources).map(([uri, bytes]) => ({ uri, bytes: arrays.add(bytes, 'uint8') })),
      jointNodes: arrays.add(g.jointNodes, 'int32'),
    };
  }
  return out;
}

/** The viewer's copy: the skinned glTF of the scene, or an empty asset when the scene cannot be one. */
async function previewGlb(scene: ProjectScene, file: string): Promise<Glb> {
  const clips = scene.clips.length > 0 ? scene.clips : scene.poses ? [{ name: scene.posesFile ?? 'poses', poses: scene.poses }] : [];
  try {
    const { bytes } = await exportGltf(
      {
        mesh: scene.mesh,
        skeleton: scene.skeleton,
        weights: scene.weights,
        boneNames: scene.boneNames ?? undefined,
        clips,
        name: scene.name,
        // The viewer sees the meshes, texture coordinates and material colours; images live in the extension only.
        ...(scene.parts ? { parts: scene.parts } : {}),
        ...(scene.objCorners ? { objCorners: scene.objCorners } : {}),
        ...(scene.look
          ? {
              look: {
                uvs: scene.look.uvs,
                materials: scene.look.materials.map(({ emissiveTexture: _e, normalTexture: _n, ...m }) => ({
                  ...m,
                  baseColorTexture: null,
                })),
              },
            }
          : {}),
      },
      file,
      { format: 'glb' },
    );
    return parseProjectGlb(bytes, file);
  } catch {
    // A scene glTF cannot hold (no bones, clips with one name…) is still a project: the viewer sees nothing.
    return { json: { asset: { version: '2.0' } }, bin: new Uint8Array(0) };
  }
}

/**
 * Writes a project file.
 * @param contents  the scene and settings (contents.formatVersion, if present, is ignored: the file is written in
 *                  PROJECT_FORMAT_VERSION)
 * @param fileName  for messages
 * @returns the GLB bytes
 */
export async function writeProjectFile(
  contents: Omit<ProjectContents, 'formatVersion'>,
  fileName = 'project.rig.glb',
): Promise<Uint8Array> {
  const { scene, settings } = contents;
  const { json, bin } = await previewGlb(scene, fileName);
  const bufferViews = Array.isArray(json.bufferViews) ? (json.bufferViews as unknown[]) : [];
  const arrays = new ArrayWriter(bin.length, bufferViews.length);
  const clipIndex = scene.poses ? scene.clips.findIndex((c) => c.poses === scene.poses) : -1;
  const extension = {
    formatVersion: PROJECT_FORMAT_VERSION,
    writer: PROJECT_WRITER,
    scene: {
      name: scene.name,
      meshFiles: scene.meshFiles,
      mesh: { positions: arrays.add(scene.mesh.positions, 'float64'), triangles: arrays.add(scene.mesh.triangles, 'uint32') },
      skeleton: {
        file: scene.skeletonFile,
        joints: arrays.add(scene.skeleton.joints, 'float64'),
        bones: arrays.add(scene.skeleton.bones, 'uint32'),
        names: scene.boneNames,
      },
      weights: {
        rows: scene.weights.rows,
        cols: scene.weights.cols,
        data: arrays.add(scene.weights.data, 'float64'),
        source: scene.weightsSource,
        ...(scene.weightsPainted ? { painted: true } : {}),
      },
      clips: scene.clips.map((clip) => ({
        name: clip.name,
        poses: poseJson(clip.poses, arrays),
        ...(clip.source !== undefined ? { source: clip.source } : {}),
        ...(clip.from !== undefined ? { from: clip.from } : {}),
      })),
      poses: scene.poses === null ? null : clipIndex >= 0 ? { clip: clipIndex } : poseJson(scene.poses, arrays),
      posesFile: scene.posesFile,
      handles: scene.handles === null ? null : arrays.add(scene.handles, 'int32'),
      handlesFile: scene.handlesFile,
      boneScales: scene.boneScales === null ? null : arrays.add(scene.boneScales, 'float64'),
      warnings: scene.warnings,
      ...(scene.bindingStale ? { bindingStale: true } : {}),
      ...(scene.posedBones
        ? {
            posedBones: {
              rotations: arrays.add(scene.posedBones.rotations, 'float64'),
              bones: arrays.add(scene.posedBones.bones, 'uint8'),
            },
          }
        : {}),
      ...assetJson(scene, arrays),
    },
    examples: scene.examples.map((example) => ({
      name: example.name,
      file: example.file,
      positions: arrays.add(example.positions, 'float64'),
      pose: arrays.add(example.pose, 'float64'),
      poseSource: example.poseSource,
      hidden: example.hidden,
    })),
    settings: {
      skin: { ...settings.skin, blend: settings.skin.blend === null ? null : arrays.add(settings.skin.blend, 'float32') },
      view: settings.view,
      paint: { ...settings.paint, brush: settings.paint.brush, locked: arrays.add(settings.paint.locked, 'uint8') },
      export: settings.export,
      posespace: settings.posespace,
      binding: settings.binding,
    },
  };
  const buffer = arrays.buffer(bin);
  const extensionsUsed = Array.isArray(json.extensionsUsed) ? (json.extensionsUsed as string[]) : [];
  const out = {
    ...json,
    extensionsUsed: [...extensionsUsed.filter((e) => e !== PROJECT_EXTENSION), PROJECT_EXTENSION],
    extensions: { ...(isObject(json.extensions) ? json.extensions : {}), [PROJECT_EXTENSION]: extension },
    buffers: [{ ...(Array.isArray(json.buffers) && isObject(json.buffers[0]) ? json.buffers[0] : {}), byteLength: buffer.length }],
    bufferViews: [...bufferViews, ...arrays.views],
  };
  return writeGlb(out, buffer);
}

// --- reading -----------------------------------------------------------------------------------------------------

/** A JSON value as a message quotes it: at most 40 characters; a missing one says so. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** `7.5 is not a count`, or `missing (expected a count)`. */
function notA(value: unknown, what: string): string {
  return value === undefined ? `missing (expected ${what})` : `${shown(value)} is not ${what}`;
}

/** Upgrades the extension JSON of version v to v + 1; MIGRATIONS[v] exists for every v < PROJECT_FORMAT_VERSION. */
export const MIGRATIONS: Record<number, (extension: Record<string, unknown>) => Record<string, unknown>> = {
  /** Format 1 had no examples and no pose-space settings: an empty examples section and the default kernel. */
  1: (extension) => {
    const settings = isObject(extension.settings)
      ? { ...extension.settings, posespace: { kernel: DEFAULT_RBF_KERNEL } }
      : extension.settings;
    return { ...extension, formatVersion: 2, examples: [], settings };
  },
};

/** Reads the JSON and the arrays of one file, each check failing with the place in the file. */
class ProjectReader {
  /** corrections made while reading (ReadProject.notices) */
  readonly notices: string[] = [];

  constructor(
    readonly file: string,
    private readonly glb: Glb,
  ) {}

  fail(where: string, reason: string): never {
    throw new FormatError(this.file, where, reason);
  }

  notice(where: string, text: string): void {
    this.notices.push(`${this.file}: ${where}: ${text}`);
  }

  /**
   * Rotation blocks (9 numbers each, row-major) checked as the DMAT pose reader checks them (pose-file.ts): each a
   * rotation (R·Rᵀ = I within its tolerance, det +1), else refused naming `place(block)`; one off by more than
   * rounding (ROTATION_ROUNDING) is replaced by the nearest rotation, with a notice.
   */
  rotations(where: string, data: Float64Array, place: (block: number) => string): void {
    let renormalised = 0;
    let worst = 0;
    let first = 0;
    for (let block = 0; 9 * block < data.length; block++) {
      const problem = rotationProblem(data, 9 * block);
      if (problem) this.fail(where, `${place(block)} is not a rotation: ${problem}`);
      const deviation = rotationDeviation(data, 9 * block);
      if (deviation <= ROTATION_ROUNDING) continue;
      if (renormalised++ === 0) first = block;
      worst = Math.max(worst, deviation);
      renormalizeRotation(data, 9 * block);
    }
    if (renormalised > 0)
      this.notice(
        where,
        `${renormalised} rotation${renormalised === 1 ? ' was' : 's were'} off by up to ${worst.toExponential(1)} (the first: ${place(first)}); renormalised`,
      );
  }

  /**
   * Unit quaternions (x y z w per bone): each of length 1 within its tolerance (pose-file.ts), else refused naming the
   * bone; one off by more than rounding (ROTATION_ROUNDING) is scaled to length 1, with a notice.
   */
  quaternions(where: string, data: Float64Array): void {
    let renormalised = 0;
    let worst = 0;
    let first = 0;
    for (let b = 0; 4 * b < data.length; b++) {
      const problem = quaternionProblem(data, 4 * b);
      if (problem) this.fail(where, `bone ${b}: ${problem}`);
      const length = Math.hypot(data[4 * b], data[4 * b + 1], data[4 * b + 2], data[4 * b + 3]);
      if (Math.abs(length - 1) <= ROTATION_ROUNDING) continue;
      if (renormalised++ === 0) first = b;
      worst = Math.max(worst, Math.abs(length - 1));
      for (let k = 0; k < 4; k++) data[4 * b + k] /= length;
    }
    if (renormalised > 0)
      this.notice(
        where,
        `${renormalised} quaternion${renormalised === 1 ? ' was' : 's were'} off unit length by up to ${worst.toExponential(1)} (the first: bone ${first}); renormalised`,
      );
  }

  /**
   * Quaternions a file's curves key (x y z w at `offset` in every `stride` numbers): kept as the file has them, since
   * playback normalises each (keyframe-curves.ts), but one too short to have a direction is no rotation and is
   * refused naming `place(k)`.
   * @returns data
   */
  keyedQuaternions(where: string, data: Float64Array, stride: number, offset: number, place: (k: number) => string): Float64Array {
    for (let k = 0, o = offset; o < data.length; k++, o += stride) {
      const length = Math.hypot(data[o], data[o + 1], data[o + 2], data[o + 3]);
      if (!(length >= MIN_QUATERNION_LENGTH))
        this.fail(where, `${place(k)}: a quaternion of length ${length.toPrecision(3)} is not a rotation`);
    }
    return data;
  }

  array(where: string, ref: unknown, type: ArrayType, expectedLength?: number): TypedArray {
    if (!isObject(ref)) return this.fail(where, 'missing (expected an array reference { bufferView, type, length })');
    const { bufferView, length } = ref;
    if (ref.type !== type) this.fail(where, `type ${shown(ref.type)}, expected "${type}"`);
    if (!Number.isSafeInteger(length) || (length as number) < 0) this.fail(where, `length ${notA(length, 'a count')}`);
    if (expectedLength !== undefined && length !== expectedLength)
      this.fail(where, `${length as number} values, expected ${expectedLength}`);
    const views = this.glb.json.bufferViews;
    if (!Array.isArray(views) || !Number.isInteger(bufferView) || (bufferView as number) < 0 || (bufferView as number) >= views.length)
      this.fail(where, bufferView === undefined ? 'bufferView missing' : `bufferView ${shown(bufferView)} does not exist`);
    const view: unknown = (views as unknown[])[bufferView as number];
    if (!isObject(view)) return this.fail(where, `bufferView ${bufferView as number} is not an object`);
    const offset = view.byteOffset ?? 0;
    const byteLength = view.byteLength;
    const size = ARRAY_TYPES[type].bytes;
    if ((view.buffer ?? 0) !== 0) this.fail(where, `bufferView ${bufferView as number} is not in the GLB's own buffer`);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(byteLength) || (offset as number) < 0 || (byteLength as number) < 0)
      this.fail(where, `bufferView ${bufferView as number} has no valid byteOffset and byteLength`);
    if (byteLength !== (length as number) * size)
      this.fail(
        where,
        `bufferView ${bufferView as number} holds ${byteLength as number} bytes, ${length as number} ${type} need ${(length as number) * size}`,
      );
    if ((offset as number) + byteLength > this.glb.bin.length)
      this.fail(where, `bufferView ${bufferView as number} runs past the end of the binary chunk`);
    // A copy of its own (aligned for the typed array), whatever the bytes are: a Node Buffer's slice would share them.
    const copy = new Uint8Array(byteLength);
    copy.set(this.glb.bin.subarray(offset as number, (offset as number) + byteLength));
    return ARRAY_TYPES[type].make(copy.buffer);
  }

  finite(where: string, array: Float64Array | Float32Array): void {
    for (let i = 0; i < array.length; i++)
      if (!Number.isFinite(array[i])) this.fail(where, `value ${i} is ${array[i]}, not a finite number`);
  }

  string(where: string, value: unknown): string {
    if (typeof value !== 'string') this.fail(where, 'expected a string');
    return value;
  }

  optionalString(where: string, value: unknown): string | null {
    return value === null || value === undefined ? null : this.string(where, value);
  }

  strings(where: string, value: unknown, count?: number): string[] {
    if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) return this.fail(where, 'expected a list of strings');
    if (count !== undefined && value.length !== count) this.fail(where, `${value.length} names, expected ${count}`);
    return value;
  }

  count(where: string, value: unknown): number {
    if (!Number.isSafeInteger(value) || (value as number) < 0) this.fail(where, notA(value, 'a count'));
    return value as number;
  }

  object(where: string, value: unknown): Record<string, unknown> {
    if (!isObject(value)) this.fail(where, 'expected an object');
    return value;
  }

  poses(where: string, value: unknown, boneCount: number): PoseSequence {
    const pose = this.object(where, value);
    const bones = this.count(`${where}.boneCount`, pose.boneCount);
    if (bones !== boneCount) this.fail(where, `poses for ${bones} bones, the skeleton has ${boneCount}`);
    if (pose.kind === 'quaternions') {
      const final = this.array(`${where}.final`, pose.final, 'float64', 4 * bones) as Float64Array;
      this.finite(`${where}.final`, final);
      this.quaternions(`${where}.final`, final);
      return { kind: 'quaternions', boneCount: bones, final };
    }
    if (pose.kind !== 'matrices') this.fail(`${where}.kind`, notA(pose.kind, '"matrices" or "quaternions"'));
    const frames = this.count(`${where}.frameCount`, pose.frameCount);
    if (frames < 1) this.fail(`${where}.frameCount`, 'a pose sequence needs at least one frame');
    const rotations = this.array(`${where}.rotations`, pose.rotations, 'float64', 9 * bones * frames) as Float64Array;
    this.finite(`${where}.rotations`, rotations);
    this.rotations(`${where}.rotations`, rotations, (block) => `frame ${Math.floor(block / bones)}, bone ${block % bones}`);
    const times = this.keyTimes(`${where}.times`, pose.times, frames);
    if (pose.curves !== undefined && pose.curves !== null) {
      if (!times.times) this.fail(`${where}.curves`, 'keyframe curves need the key times of the frames');
      Object.assign(times, { curves: this.curves(`${where}.curves`, pose.curves, bones) });
    }
    Object.assign(times, this.keyFlags(`${where}.keys`, pose.keys, frames, bones));
    if (pose.translations === undefined || pose.translations === null)
      return { kind: 'matrices', boneCount: bones, frameCount: frames, rotations, ...times };
    const translations = this.array(`${where}.translations`, pose.translations, 'float64', 3 * bones * frames) as Float64Array;
    this.finite(`${where}.translations`, translations);
    return { kind: 'matrices', boneCount: bones, frameCount: frames, rotations, translations, ...times };
  }

  /**
   * A clip's keyframe curves: node parents before children, every index in range, finite numbers, key times ≥ 0 and
   * non-decreasing, and as many values as the interpolation needs per key.
   */
  curves(where: string, value: unknown, bones: number): KeyframeCurves {
    const c = this.object(where, value);
    const parents = this.array(`${where}.parents`, c.parents, 'int32') as Int32Array;
    const N = parents.length;
    parents.forEach((p, n) => {
      if (p < -1 || p >= n) this.fail(`${where}.parents`, `node ${n} has parent ${p}; a parent is −1 or a node listed before it`);
    });
    const floats = (key: string, length: number): Float64Array => {
      const array = this.array(`${where}.${key}`, c[key], 'float64', length) as Float64Array;
      this.finite(`${where}.${key}`, array);
      return array;
    };
    const indices = (key: string, length: number, low: number, high: number): Int32Array => {
      const array = this.array(`${where}.${key}`, c[key], 'int32', length) as Int32Array;
      array.forEach((i, k) => {
        if (i < low || i >= high) this.fail(`${where}.${key}`, `entry ${k} is ${i}, not from ${low} to ${high - 1}`);
      });
      return array;
    };
    const curves: KeyframeCurves = {
      parents,
      restTranslation: floats('restTranslation', 3 * N),
      restRotation: this.keyedQuaternions(`${where}.restRotation`, floats('restRotation', 4 * N), 4, 0, (n) => `node ${n}`),
      restScale: floats('restScale', 3 * N),
      jointNode: indices('jointNode', bones, 0, N),
      inverseBind: floats('inverseBind', 16 * bones),
      fromWorld: floats('fromWorld', 16),
      parentBone: indices('parentBone', bones, -1, bones),
      heads: floats('heads', 3 * bones),
      channels: [],
    };
    if (!Array.isArray(c.channels)) this.fail(`${where}.channels`, 'expected a list');
    (c.channels as unknown[]).forEach((value, k) => {
      const at = `${where}.channels[${k}]`;
      const channel = this.object(at, value);
      if (!Number.isInteger(channel.node) || (channel.node as number) < 0 || (channel.node as number) >= N)
        this.fail(`${at}.node`, notA(channel.node, `a node from 0 to ${N - 1}`));
      const path = channel.path;
      if (path !== 'rotation' && path !== 'translation' && path !== 'scale')
        this.fail(`${at}.path`, notA(path, '"rotation", "translation" or "scale"'));
      const interpolation = channel.interpolation;
      if (interpolation !== 'STEP' && interpolation !== 'LINEAR' && interpolation !== 'CUBICSPLINE')
        this.fail(`${at}.interpolation`, notA(interpolation, '"STEP", "LINEAR" or "CUBICSPLINE"'));
      const times = this.array(`${at}.times`, channel.times, 'float64') as Float64Array;
      if (times.length === 0) this.fail(`${at}.times`, 'a channel needs at least one key');
      this.finite(`${at}.times`, times);
      times.forEach((t, i) => {
        if (t < 0 || (i > 0 && t < times[i - 1]))
          this.fail(`${at}.times`, `key time ${i} (${t} s) is negative or before key time ${i - 1}`);
      });
      const perKey = (path === 'rotation' ? 4 : 3) * (interpolation === 'CUBICSPLINE' ? 3 : 1);
      const values = this.array(`${at}.values`, channel.values, 'float64', perKey * times.length) as Float64Array;
      this.finite(`${at}.values`, values);
      if (path === 'rotation') this.keyedQuaternions(`${at}.values`, values, perKey, perKey === 12 ? 4 : 0, (k) => `key ${k}`);
      curves.channels.push({ node: channel.node as number, path, interpolation, times, values });
    });
    return curves;
  }

  /** A keyed clip's key flags (PoseSequence.keys): absent, or one 0 or 1 per frame and bone, frame-major. */
  keyFlags(where: string, ref: unknown, frames: number, bones: number): { keys?: Uint8Array } {
    if (ref === undefined || ref === null) return {};
    const keys = this.array(where, ref, 'uint8', frames * bones) as Uint8Array;
    const bad = keys.findIndex((k) => k > 1);
    if (bad >= 0) this.fail(where, `frame ${Math.floor(bad / bones)}, bone ${bad % bones}: ${keys[bad]} is not a key flag (0 or 1)`);
    return { keys };
  }

  /** A clip's key times (PoseSequence.times): absent, or one finite, strictly increasing time per frame. */
  keyTimes(where: string, ref: unknown, frames: number): { times?: Float64Array } {
    if (ref === undefined || ref === null) return {};
    const times = this.array(where, ref, 'float64', frames) as Float64Array;
    this.finite(where, times);
    for (let k = 1; k < frames; k++)
      if (!(times[k] > times[k - 1])) this.fail(where, `time ${k} (${times[k]} s) does not come after time ${k - 1} (${times[k - 1]} s)`);
    return { times };
  }
}

/**
 * Reads a project file, upgrading an older format version first. Rotations are checked as the DMAT pose reader
 * checks them: every 3×3 block of the clips, the scene's own poses and the examples' poses a rotation (R·Rᵀ = I
 * within 1e-3 per entry, det +1), every final quaternion of length 1 within 1e-3; one off by more than rounding
 * (1e-5) is renormalised, with a notice. Weight rows that have a weight below −1e-6 or do not sum to 1 within 1e-3
 * are normalised as glTF import does (negative weights 0, the row divided by its sum), with a notice; a row of
 * zeros stays (the vertex stays at rest). The kept glTF's joint nodes must be distinct joints of its skins.
 * @param bytes     the file
 * @param fileName  for messages
 * @returns the scene and settings, and what was corrected (notices); formatVersion is the file's own version
 * @throws FormatError naming the file, the place (`RIGWRIGHT_project.scene.weights`, `GLB chunk 1`…) and the reason:
 *   not a GLB, no project extension, a newer format version, or any field missing, of the wrong type or size,
 *   non-finite, out of range, a block that is not a rotation or a quaternion that is not a unit one
 */
export function readProjectFile(bytes: Uint8Array, fileName: string): ReadProject {
  const glb = parseProjectGlb(bytes, fileName);
  const r = new ProjectReader(fileName, glb);
  const P = PROJECT_EXTENSION;
  const extensions = glb.json.extensions;
  if (!isObject(extensions) || !isObject(extensions[P])) r.fail('', `a glTF file but not a Rigwright project (no ${P} extension)`);
  let ext = (extensions as Record<string, Record<string, unknown>>)[P];
  const version = ext.formatVersion;
  if (!Number.isSafeInteger(version) || (version as number) < 1) r.fail(`${P}.formatVersion`, notA(version, 'a format version'));
  const formatVersion = version as number;
  if (formatVersion > PROJECT_FORMAT_VERSION) {
    r.fail(P, `written by a newer Rigwright (format ${formatVersion}); this version reads up to ${PROJECT_FORMAT_VERSION}`);
  }
  for (let v = formatVersion; v < PROJECT_FORMAT_VERSION; v++) ext = MIGRATIONS[v](ext);

  const S = `${P}.scene`;
  const scene = r.object(S, ext.scene);
  const meshJson = r.object(`${S}.mesh`, scene.mesh);
  const positions = r.array(`${S}.mesh.positions`, meshJson.positions, 'float64') as Float64Array;
  if (positions.length % 3 !== 0) r.fail(`${S}.mesh.positions`, `${positions.length} numbers is not a whole number of x, y, z`);
  r.finite(`${S}.mesh.positions`, positions);
  const vertexCount = positions.length / 3;
  const triangles = r.array(`${S}.mesh.triangles`, meshJson.triangles, 'uint32') as Uint32Array;
  if (triangles.length % 3 !== 0) r.fail(`${S}.mesh.triangles`, `${triangles.length} indices is not a whole number of triangles`);
  for (let i = 0; i < triangles.length; i++)
    if (triangles[i] >= vertexCount)
      r.fail(`${S}.mesh.triangles`, `triangle ${Math.floor(i / 3)} names vertex ${triangles[i]}, the mesh has ${vertexCount}`);

  const skeletonJson = r.object(`${S}.skeleton`, scene.skeleton);
  const joints = r.array(`${S}.skeleton.joints`, skeletonJson.joints, 'float64') as Float64Array;
  if (joints.length % 3 !== 0) r.fail(`${S}.skeleton.joints`, `${joints.length} numbers is not a whole number of x, y, z`);
  r.finite(`${S}.skeleton.joints`, joints);
  const bones = r.array(`${S}.skeleton.bones`, skeletonJson.bones, 'uint32') as Uint32Array;
  if (bones.length % 2 !== 0) r.fail(`${S}.skeleton.bones`, `${bones.length} indices is not a whole number of bones`);
  const skeleton = buildSkeleton({ joints, bones }, fileName);
  const boneCount = skeleton.parents.length;
  const boneNames =
    skeletonJson.names === null || skeletonJson.names === undefined
      ? null
      : r.strings(`${S}.skeleton.names`, skeletonJson.names, boneCount);

  const weightsJson = r.object(`${S}.weights`, scene.weights);
  const rows = r.count(`${S}.weights.rows`, weightsJson.rows);
  const cols = r.count(`${S}.weights.cols`, weightsJson.cols);
  if (rows !== vertexCount || cols !== boneCount)
    r.fail(`${S}.weights`, `${rows} × ${cols} weights, the scene needs ${vertexCount} × ${boneCount}`);
  const weightData = r.array(`${S}.weights.data`, weightsJson.data, 'float64', rows * cols) as Float64Array;
  r.finite(`${S}.weights.data`, weightData);
  // Rows that break the partition of unity are made one as import makes them; the others keep their bits.
  for (const change of normalizeWeightRows({ rows, cols, data: weightData }, true)) r.notice(`${S}.weights.data`, change);

  if (!Array.isArray(scene.clips)) r.fail(`${S}.clips`, 'expected a list');
  const clips = (scene.clips as unknown[]).map((clip, i) => {
    const c = r.object(`${S}.clips[${i}]`, clip);
    const read: GltfClip = {
      name: r.string(`${S}.clips[${i}].name`, c.name),
      poses: r.poses(`${S}.clips[${i}].poses`, c.poses, boneCount),
    };
    // The animation of the imported glTF it still is (in-place export keeps that animation as the file has it).
    if (c.source !== undefined && c.source !== null) read.source = r.count(`${S}.clips[${i}].source`, c.source);
    // The animation it was made from (a bake): its channels the scene does not pose with go into the one written.
    if (c.from !== undefined && c.from !== null) read.from = r.count(`${S}.clips[${i}].from`, c.from);
    return read;
  });
  let poses: PoseSequence | null = null;
  if (scene.poses !== null && scene.poses !== undefined) {
    const p = r.object(`${S}.poses`, scene.poses);
    if ('clip' in p) {
      if (!Number.isInteger(p.clip) || (p.clip as number) < 0 || (p.clip as number) >= clips.length)
        r.fail(`${S}.poses.clip`, notA(p.clip, `one of the ${clips.length} clips`));
      poses = clips[p.clip as number].poses;
    } else poses = r.poses(`${S}.poses`, p, boneCount);
  }

  let handles: Int32Array | null = null;
  if (scene.handles !== null && scene.handles !== undefined) {
    handles = r.array(`${S}.handles`, scene.handles, 'int32', vertexCount) as Int32Array;
    for (let v = 0; v < vertexCount; v++)
      if (handles[v] < -1 || handles[v] >= boneCount)
        r.fail(`${S}.handles`, `vertex ${v} names bone ${handles[v]}, the skeleton has ${boneCount}`);
  }
  let boneScales: Float64Array | null = null;
  if (scene.boneScales !== null && scene.boneScales !== undefined) {
    boneScales = r.array(`${S}.boneScales`, scene.boneScales, 'float64', 3 * boneCount) as Float64Array;
    for (let i = 0; i < boneScales.length; i++)
      if (!(boneScales[i] > 0 && boneScales[i] < Infinity))
        r.fail(`${S}.boneScales`, `bone ${Math.floor(i / 3)} has scale ${boneScales[i]}`);
  }

  const stale = scene.bindingStale;
  if (stale !== undefined && stale !== null && typeof stale !== 'boolean') r.fail(`${S}.bindingStale`, notA(stale, 'true or false'));
  const painted = weightsJson.painted;
  if (painted !== undefined && painted !== null && typeof painted !== 'boolean')
    r.fail(`${S}.weights.painted`, notA(painted, 'true or false'));
  let posedBones: { rotations: Float64Array; bones: Uint8Array } | undefined;
  if (present(scene.posedBones)) {
    const posed = r.object(`${S}.posedBones`, scene.posedBones);
    const rotations = r.array(`${S}.posedBones.rotations`, posed.rotations, 'float64', 9 * boneCount) as Float64Array;
    const bones = r.array(`${S}.posedBones.bones`, posed.bones, 'uint8', boneCount) as Uint8Array;
    r.rotations(`${S}.posedBones.rotations`, rotations, (block) => `bone ${block}`);
    const flag = bones.findIndex((x) => x > 1);
    if (flag >= 0) r.fail(`${S}.posedBones.bones`, `bone ${flag} is marked ${bones[flag]}, not 0 or 1`);
    posedBones = { rotations, bones };
  }

  const contents: ReadProject = {
    formatVersion,
    scene: {
      name: r.string(`${S}.name`, scene.name),
      meshFiles: r.strings(`${S}.meshFiles`, scene.meshFiles ?? []),
      mesh: { positions, triangles },
      skeletonFile: r.optionalString(`${S}.skeleton.file`, skeletonJson.file),
      skeleton,
      boneNames,
      weights: { rows, cols, data: weightData },
      weightsSource: r.string(`${S}.weights.source`, weightsJson.source),
      ...(painted === true ? { weightsPainted: true } : {}),
      poses,
      posesFile: r.optionalString(`${S}.posesFile`, scene.posesFile),
      clips,
      handles,
      handlesFile: r.optionalString(`${S}.handlesFile`, scene.handlesFile),
      boneScales,
      warnings: r.strings(`${S}.warnings`, scene.warnings ?? []),
      ...(stale === true ? { bindingStale: true } : {}),
      ...(posedBones ? { posedBones } : {}),
      examples: readExamples(r, ext.examples, vertexCount, boneCount),
      ...readAsset(r, scene, { positions, triangles }, boneCount),
    },
    settings: readSettings(r, ext.settings, vertexCount, boneCount),
    notices: r.notices,
  };
  return contents;
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** A part's or run's material: -1 (none) or the index of one of the look's `materialCount` materials. */
function materialIndex(r: ProjectReader, where: string, value: unknown, materialCount: number): number {
  if (!Number.isInteger(value) || (value as number) < -1 || (value as number) >= materialCount)
    r.fail(where, notA(value, `-1 or one of the ${materialCount} materials`));
  return value as number;
}

/**
 * A look material's optional keys: alphaMode one of OPAQUE, MASK, BLEND; alphaCutoff a number ≥ 0; textureTransform
 * finite offset[2], rotation, scale[2]; sampler glTF wrap modes and filters (filters may be null).
 */
function readAlphaAndSamplingKeys(
  r: ProjectReader,
  at: string,
  m: Record<string, unknown>,
): Pick<MaterialLook, 'alphaMode' | 'alphaCutoff' | 'textureTransform' | 'sampler'> {
  const out: Pick<MaterialLook, 'alphaMode' | 'alphaCutoff' | 'textureTransform' | 'sampler'> = {};
  const finite = (where: string, value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value)) r.fail(where, notA(value, 'a finite number'));
    return value;
  };
  const pair = (where: string, value: unknown): [number, number] => {
    if (!Array.isArray(value) || value.length !== 2) r.fail(where, notA(value, 'two numbers'));
    const list = value as unknown[];
    return [finite(`${where}[0]`, list[0]), finite(`${where}[1]`, list[1])];
  };
  if (present(m.alphaMode)) {
    if (!(ALPHA_MODES as readonly unknown[]).includes(m.alphaMode)) r.fail(`${at}.alphaMode`, notA(m.alphaMode, 'OPAQUE, MASK or BLEND'));
    out.alphaMode = m.alphaMode as MaterialLook['alphaMode'];
  }
  if (present(m.alphaCutoff)) {
    const cutoff = finite(`${at}.alphaCutoff`, m.alphaCutoff);
    if (cutoff < 0) r.fail(`${at}.alphaCutoff`, notA(cutoff, 'a number ≥ 0'));
    out.alphaCutoff = cutoff;
  }
  if (present(m.textureTransform)) {
    const T = `${at}.textureTransform`;
    const t = r.object(T, m.textureTransform);
    out.textureTransform = {
      offset: pair(`${T}.offset`, t.offset),
      rotation: finite(`${T}.rotation`, t.rotation),
      scale: pair(`${T}.scale`, t.scale),
    };
  }
  if (present(m.sampler)) {
    const S = `${at}.sampler`;
    const s = r.object(S, m.sampler);
    const one = (key: 'wrapS' | 'wrapT' | 'magFilter' | 'minFilter', allowed: readonly number[], nullable: boolean): number | null => {
      const value = s[key];
      if (nullable && value === null) return null;
      if (typeof value !== 'number' || !allowed.includes(value))
        r.fail(`${S}.${key}`, notA(value, `one of ${allowed.join(', ')}${nullable ? ' or null' : ''}`));
      return value;
    };
    out.sampler = {
      wrapS: one('wrapS', WRAP_MODES, false)!,
      wrapT: one('wrapT', WRAP_MODES, false)!,
      magFilter: one('magFilter', MAG_FILTERS, true),
      minFilter: one('minFilter', MIN_FILTERS, true),
    };
  }
  return out;
}

/**
 * A look material's optional surface keys: metallic and roughness numbers in 0 … 1, emissive three numbers in 0 … 1,
 * emissiveTexture { mimeType, bytes uint8 }, normalTexture { mimeType, bytes uint8, scale finite }.
 */
function readSurfaceKeys(
  r: ProjectReader,
  at: string,
  m: Record<string, unknown>,
): Pick<MaterialLook, 'metallic' | 'roughness' | 'emissive' | 'emissiveTexture' | 'normalTexture'> {
  const out: Pick<MaterialLook, 'metallic' | 'roughness' | 'emissive' | 'emissiveTexture' | 'normalTexture'> = {};
  const unit = (where: string, value: unknown): number => {
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) r.fail(where, notA(value, 'a number in 0 … 1'));
    return value;
  };
  const image = (where: string, value: unknown): LookImage => {
    const texture = r.object(where, value);
    return {
      mimeType: r.string(`${where}.mimeType`, texture.mimeType),
      bytes: r.array(`${where}.bytes`, texture.bytes, 'uint8') as Uint8Array,
    };
  };
  if (present(m.metallic)) out.metallic = unit(`${at}.metallic`, m.metallic);
  if (present(m.roughness)) out.roughness = unit(`${at}.roughness`, m.roughness);
  if (present(m.emissive)) {
    const e = m.emissive;
    if (!Array.isArray(e) || e.length !== 3) r.fail(`${at}.emissive`, notA(e, 'three numbers in 0 … 1'));
    const list = e as unknown[];
    out.emissive = [unit(`${at}.emissive[0]`, list[0]), unit(`${at}.emissive[1]`, list[1]), unit(`${at}.emissive[2]`, list[2])];
  }
  if (present(m.emissiveTexture)) out.emissiveTexture = image(`${at}.emissiveTexture`, m.emissiveTexture);
  if (present(m.normalTexture)) {
    const where = `${at}.normalTexture`;
    const scale = r.object(where, m.normalTexture).scale;
    if (typeof scale !== 'number' || !Number.isFinite(scale)) r.fail(`${where}.scale`, notA(scale, 'a finite number'));
    out.normalTexture = { ...image(where, m.normalTexture), scale };
  }
  return out;
}

/**
 * The optional asset keys of the scene section, each checked against the mesh and skeleton: parts cover the
 * vertices and triangles in order and keep their triangles inside their vertices; materials in range; uvs #V × 2
 * finite; corners #F × 3 naming existing vt/vn; joint nodes #B, distinct joints of the kept glTF's skins. Read in
 * this order: the look first, since the parts' materials index its materials.
 */
function readAsset(
  r: ProjectReader,
  scene: Record<string, unknown>,
  mesh: TriangleMesh,
  boneCount: number,
): Pick<ProjectScene, 'parts' | 'look' | 'objCorners' | 'gltfSource'> {
  const S = `${PROJECT_EXTENSION}.scene`;
  const out: Pick<ProjectScene, 'parts' | 'look' | 'objCorners' | 'gltfSource'> = {};
  if (present(scene.look)) out.look = readLook(r, `${S}.look`, scene.look, mesh.positions.length / 3);
  if (present(scene.parts)) out.parts = readParts(r, `${S}.parts`, scene.parts, mesh, out.look?.materials.length ?? 0);
  if (present(scene.objCorners)) out.objCorners = readObjCorners(r, `${S}.objCorners`, scene.objCorners, mesh.triangles.length / 3);
  if (present(scene.gltfSource)) out.gltfSource = readGltfSource(r, `${S}.gltfSource`, scene.gltfSource, boneCount);
  return out;
}

/** The look at `L`: uvs (#V × 2 finite float32, or none) and the materials, each with its colour, texture and keys. */
function readLook(r: ProjectReader, L: string, value: unknown, vertexCount: number): SurfaceLook {
  const look = r.object(L, value);
  let uvs: Float32Array | null = null;
  if (present(look.uvs)) {
    uvs = r.array(`${L}.uvs`, look.uvs, 'float32', 2 * vertexCount) as Float32Array;
    r.finite(`${L}.uvs`, uvs);
  }
  if (!Array.isArray(look.materials)) r.fail(`${L}.materials`, notA(look.materials, 'a list'));
  const materials = (look.materials as unknown[]).map((item, i): MaterialLook => readMaterial(r, `${L}.materials[${i}]`, item));
  return { uvs, materials };
}

/** One material of the look at `at`: name, base colour in 0 … 1, double-sidedness, base colour texture, other keys. */
function readMaterial(r: ProjectReader, at: string, item: unknown): MaterialLook {
  const m = r.object(at, item);
  const color = m.baseColor;
  if (!Array.isArray(color) || color.length !== 4 || !color.every((c) => typeof c === 'number' && c >= 0 && c <= 1))
    r.fail(`${at}.baseColor`, notA(color, 'four numbers in 0 … 1'));
  if (typeof m.doubleSided !== 'boolean') r.fail(`${at}.doubleSided`, notA(m.doubleSided, 'true or false'));
  let baseColorTexture: MaterialLook['baseColorTexture'] = null;
  if (present(m.baseColorTexture)) {
    const texture = r.object(`${at}.baseColorTexture`, m.baseColorTexture);
    baseColorTexture = {
      mimeType: r.string(`${at}.baseColorTexture.mimeType`, texture.mimeType),
      bytes: r.array(`${at}.baseColorTexture.bytes`, texture.bytes, 'uint8') as Uint8Array,
    };
  }
  return {
    name: r.string(`${at}.name`, m.name),
    baseColor: color as [number, number, number, number],
    baseColorTexture,
    doubleSided: m.doubleSided,
    ...readAlphaAndSamplingKeys(r, at, m),
    ...readSurfaceKeys(r, at, m),
  };
}

/**
 * The parts at `P`: each named once, covering the vertices and triangles in order, its triangles inside its own
 * vertices, its materials (and material runs) below `materialCount`; together the whole mesh.
 */
function readParts(r: ProjectReader, P: string, value: unknown, mesh: TriangleMesh, materialCount: number): MeshPart[] {
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = mesh.triangles.length / 3;
  if (!Array.isArray(value)) r.fail(P, notA(value, 'a list'));
  let vertexEnd = 0;
  let triangleEnd = 0;
  const names = new Set<string>();
  const parts = (value as unknown[]).map((item, i): MeshPart => {
    const at = `${P}[${i}]`;
    const p = r.object(at, item);
    const name = r.string(`${at}.name`, p.name);
    if (names.has(name)) r.fail(`${at}.name`, `${shown(name)} is the name of an earlier mesh`);
    names.add(name);
    const vertexStart = r.count(`${at}.vertexStart`, p.vertexStart);
    const partVertices = r.count(`${at}.vertexCount`, p.vertexCount);
    const triangleStart = r.count(`${at}.triangleStart`, p.triangleStart);
    const partTriangles = r.count(`${at}.triangleCount`, p.triangleCount);
    if (vertexStart !== vertexEnd)
      r.fail(`${at}.vertexStart`, `${vertexStart}, expected ${vertexEnd} (meshes cover the vertices in order)`);
    if (triangleStart !== triangleEnd)
      r.fail(`${at}.triangleStart`, `${triangleStart}, expected ${triangleEnd} (meshes cover the triangles in order)`);
    vertexEnd += partVertices;
    triangleEnd += partTriangles;
    if (vertexEnd > vertexCount || triangleEnd > triangleCount) r.fail(at, 'reaches past the end of the mesh');
    for (let k = 3 * triangleStart; k < 3 * triangleEnd; k++)
      if (mesh.triangles[k] < vertexStart || mesh.triangles[k] >= vertexEnd)
        r.fail(at, `triangle ${Math.floor(k / 3)} names vertex ${mesh.triangles[k]}, outside the mesh's vertices`);
    const material = materialIndex(r, `${at}.material`, p.material, materialCount);
    if (typeof p.skinned !== 'boolean') r.fail(`${at}.skinned`, notA(p.skinned, 'true or false'));
    const part: MeshPart = {
      name,
      vertexStart,
      vertexCount: partVertices,
      triangleStart,
      triangleCount: partTriangles,
      material,
      source: present(p.source) ? readPartSource(r, `${at}.source`, p.source) : null,
      skinned: p.skinned,
    };
    if (present(p.materialRanges))
      part.materialRanges = readMaterialRanges(r, `${at}.materialRanges`, p.materialRanges, partTriangles, materialCount);
    return part;
  });
  if (vertexEnd !== vertexCount || triangleEnd !== triangleCount)
    r.fail(P, `the meshes cover ${vertexEnd} of ${vertexCount} vertices and ${triangleEnd} of ${triangleCount} triangles`);
  return parts;
}

/** A part's glTF source at `at`: node, mesh and primitive indices (counts). */
function readPartSource(r: ProjectReader, at: string, value: unknown): NonNullable<MeshPart['source']> {
  const from = r.object(at, value);
  return {
    node: r.count(`${at}.node`, from.node),
    mesh: r.count(`${at}.mesh`, from.mesh),
    primitive: r.count(`${at}.primitive`, from.primitive),
  };
}

/** A part's material runs at `R`: triangle counts covering its `triangleCount` triangles, materials in range. */
function readMaterialRanges(
  r: ProjectReader,
  R: string,
  value: unknown,
  triangleCount: number,
  materialCount: number,
): NonNullable<MeshPart['materialRanges']> {
  if (!Array.isArray(value)) r.fail(R, notA(value, 'a list'));
  let covered = 0;
  const runs = (value as unknown[]).map((item, k) => {
    const run = r.object(`${R}[${k}]`, item);
    const count = r.count(`${R}[${k}].triangleCount`, run.triangleCount);
    covered += count;
    return { triangleCount: count, material: materialIndex(r, `${R}[${k}].material`, run.material, materialCount) };
  });
  if (covered !== triangleCount) r.fail(R, `the runs cover ${covered} of the mesh's ${triangleCount} triangles`);
  return runs;
}

/** The OBJ corners at `C`: finite vt (u, v) and vn (x, y, z) lists, and #F × 3 corner indices naming them or -1. */
function readObjCorners(r: ProjectReader, C: string, value: unknown, triangleCount: number): ObjCorners {
  const c = r.object(C, value);
  const texcoords = r.array(`${C}.texcoords`, c.texcoords, 'float64') as Float64Array;
  const normals = r.array(`${C}.normals`, c.normals, 'float64') as Float64Array;
  if (texcoords.length % 2 !== 0) r.fail(`${C}.texcoords`, `${texcoords.length} numbers is not a whole number of u, v`);
  if (normals.length % 3 !== 0) r.fail(`${C}.normals`, `${normals.length} numbers is not a whole number of x, y, z`);
  r.finite(`${C}.texcoords`, texcoords);
  r.finite(`${C}.normals`, normals);
  const corner = (key: 'cornerTexcoords' | 'cornerNormals', count: number): Int32Array => {
    const values = r.array(`${C}.${key}`, c[key], 'int32', 3 * triangleCount) as Int32Array;
    for (let k = 0; k < values.length; k++)
      if (values[k] < -1 || values[k] >= count) r.fail(`${C}.${key}`, `corner ${k} names ${values[k]}, there are ${count}`);
    return values;
  };
  return {
    texcoords,
    normals,
    cornerTexcoords: corner('cornerTexcoords', texcoords.length / 2),
    cornerNormals: corner('cornerNormals', normals.length / 3),
  };
}

/** The kept glTF at `G`: its resources (each URI once), file name, bytes, and #B joint nodes of its skins. */
function readGltfSource(r: ProjectReader, G: string, value: unknown, boneCount: number): GltfSource {
  const g = r.object(G, value);
  if (!Array.isArray(g.resources)) r.fail(`${G}.resources`, notA(g.resources, 'a list'));
  const resources: Record<string, Uint8Array> = {};
  (g.resources as unknown[]).forEach((item, i) => {
    const at = `${G}.resources[${i}]`;
    const resource = r.object(at, item);
    const uri = r.string(`${at}.uri`, resource.uri);
    if (Object.hasOwn(resources, uri)) r.fail(`${at}.uri`, `${shown(uri)} is named twice`);
    // A URI such as `__proto__` is an own key like any other.
    Object.defineProperty(resources, uri, {
      value: r.array(`${at}.bytes`, resource.bytes, 'uint8'),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  const file = r.string(`${G}.file`, g.file);
  const bytes = r.array(`${G}.bytes`, g.bytes, 'uint8') as Uint8Array;
  const jointNodes = r.array(`${G}.jointNodes`, g.jointNodes, 'int32', boneCount) as Int32Array;
  checkJointNodes(r, G, jointNodes, gltfSkinJoints(r, G, bytes, file), file);
  return { file, bytes, resources, jointNodes };
}

/** The kept glTF's node count and the nodes its skins name as joints; a glTF that cannot be read is refused. */
function gltfSkinJoints(r: ProjectReader, where: string, bytes: Uint8Array, file: string): { nodeCount: number; joints: Set<unknown> } {
  let json: unknown;
  try {
    json = gltfJson(bytes, file);
  } catch (error) {
    r.fail(`${where}.bytes`, `the kept glTF cannot be read (${error instanceof FormatError ? error.reason : String(error)})`);
  }
  const list = (owner: unknown, key: string): unknown[] => (isObject(owner) && Array.isArray(owner[key]) ? (owner[key] as unknown[]) : []);
  const joints = new Set<unknown>(list(json, 'skins').flatMap((skin) => list(skin, 'joints')));
  return { nodeCount: list(json, 'nodes').length, joints };
}

/** Each bone's joint node (gltfSource.jointNodes, #B already): a node of the kept glTF, a joint of one of its skins, no node twice. */
function checkJointNodes(
  r: ProjectReader,
  where: string,
  jointNodes: Int32Array,
  gltf: { nodeCount: number; joints: Set<unknown> },
  file: string,
): void {
  const boneOfNode = new Map<number, number>();
  jointNodes.forEach((node, b) => {
    const at = `${where}.jointNodes`;
    if (node < 0 || node >= gltf.nodeCount) r.fail(at, `bone ${b} names node ${node}; ${file} has nodes 0 to ${gltf.nodeCount - 1}`);
    if (!gltf.joints.has(node)) r.fail(at, `bone ${b} names node ${node}, which is not a joint of a skin in ${file}`);
    const earlier = boneOfNode.get(node);
    if (earlier !== undefined) r.fail(at, `bone ${b} names node ${node}, as bone ${earlier} does`);
    boneOfNode.set(node, b);
  });
}

/** The examples section: each example's vertices match the mesh's, its pose the skeleton's, every number finite. */
function readExamples(r: ProjectReader, value: unknown, vertexCount: number, boneCount: number): ProjectExample[] {
  const E = `${PROJECT_EXTENSION}.examples`;
  if (!Array.isArray(value)) return r.fail(E, value === undefined ? 'missing (expected a list)' : 'expected a list');
  const names = new Set<string>();
  return value.map((item: unknown, i) => {
    const at = `${E}[${i}]`;
    const example = r.object(at, item);
    const name = r.string(`${at}.name`, example.name);
    if (names.has(name)) r.fail(`${at}.name`, `${shown(name)} is the name of an earlier example`);
    names.add(name);
    const positionsRef = r.object(`${at}.positions`, example.positions);
    if (positionsRef.length !== 3 * vertexCount && Number.isSafeInteger(positionsRef.length) && (positionsRef.length as number) % 3 === 0)
      r.fail(`${at}.positions`, `${(positionsRef.length as number) / 3} vertices, the mesh has ${vertexCount}`);
    const positions = r.array(`${at}.positions`, positionsRef, 'float64', 3 * vertexCount) as Float64Array;
    r.finite(`${at}.positions`, positions);
    const poseRef = r.object(`${at}.pose`, example.pose);
    if (poseRef.length !== 9 * boneCount && Number.isSafeInteger(poseRef.length) && (poseRef.length as number) % 9 === 0)
      r.fail(`${at}.pose`, `a pose for ${(poseRef.length as number) / 9} bones, the skeleton has ${boneCount}`);
    const pose = r.array(`${at}.pose`, poseRef, 'float64', 9 * boneCount) as Float64Array;
    r.finite(`${at}.pose`, pose);
    r.rotations(`${at}.pose`, pose, (b) => `bone ${b}`);
    if (typeof example.hidden !== 'boolean') r.fail(`${at}.hidden`, notA(example.hidden, 'true or false'));
    return {
      name,
      file: r.string(`${at}.file`, example.file),
      positions,
      pose,
      poseSource: r.string(`${at}.poseSource`, example.poseSource),
      hidden: example.hidden,
    };
  });
}

/** Settings as stored, each missing one taking its default; a value of the wrong type is refused. */
function readSettings(r: ProjectReader, value: unknown, vertexCount: number, boneCount: number): ProjectSettings {
  const W = `${PROJECT_EXTENSION}.settings`;
  const out = defaultProjectSettings(vertexCount, boneCount);
  if (value === undefined || value === null) return out;
  const settings = r.object(W, value);
  const section = (name: string): Record<string, unknown> => (settings[name] === undefined ? {} : r.object(`${W}.${name}`, settings[name]));
  const pick = <T extends Record<string, unknown>>(where: string, target: T, source: Record<string, unknown>): void => {
    for (const key of Object.keys(target)) {
      const given = source[key];
      if (given === undefined) continue;
      const expected = target[key];
      const ok =
        typeof expected === 'number'
          ? typeof given === 'number' && Number.isFinite(given)
          : typeof expected === typeof given || expected === null;
      if (!ok) r.fail(`${where}.${key}`, `expected a ${typeof expected}, got ${shown(given)}`);
      (target as Record<string, unknown>)[key] = given;
    }
  };
  const skin = section('skin');
  const { blend: blendRef, ...skinRest } = skin;
  pick(`${W}.skin`, out.skin as unknown as Record<string, unknown>, { ...skinRest, blend: undefined });
  if (out.skin.split !== null && typeof out.skin.split !== 'string') r.fail(`${W}.skin.split`, 'expected a string or null');
  if (blendRef !== undefined && blendRef !== null) {
    const blend = r.array(`${W}.skin.blend`, blendRef, 'float32', vertexCount) as Float32Array;
    for (let v = 0; v < blend.length; v++)
      if (!(blend[v] >= 0 && blend[v] <= 1)) r.fail(`${W}.skin.blend`, `vertex ${v} has ${blend[v]}, not in 0 … 1`);
    out.skin.blend = blend;
  }
  pick(`${W}.view`, out.view, section('view'));
  if (!Number.isInteger(out.view.selectedBone) || out.view.selectedBone < -1 || out.view.selectedBone >= boneCount)
    out.view.selectedBone = -1;
  const paint = section('paint');
  pick(`${W}.paint.brush`, out.paint.brush, paint.brush === undefined ? {} : r.object(`${W}.paint.brush`, paint.brush));
  if (paint.maxInfluences !== undefined) out.paint.maxInfluences = r.count(`${W}.paint.maxInfluences`, paint.maxInfluences);
  if (paint.symmetry !== undefined && paint.symmetry !== null) {
    if (paint.symmetry !== 0 && paint.symmetry !== 1 && paint.symmetry !== 2) r.fail(`${W}.paint.symmetry`, 'expected 0, 1, 2 or null');
    out.paint.symmetry = paint.symmetry;
  }
  if (paint.locked !== undefined) {
    const locked = r.array(`${W}.paint.locked`, paint.locked, 'uint8', boneCount) as Uint8Array;
    for (let b = 0; b < boneCount; b++) if (locked[b] > 1) r.fail(`${W}.paint.locked`, `bone ${b} has ${locked[b]}, expected 0 or 1`);
    out.paint.locked = locked;
  }
  pick(`${W}.export`, out.export, section('export'));
  pick(`${W}.posespace`, out.posespace, section('posespace'));
  pick(`${W}.binding`, out.binding, section('binding'));
  if (!(out.binding.radiusFraction > 0))
    r.fail(`${W}.binding.radiusFraction`, `expected a number above 0, got ${out.binding.radiusFraction}`);
  if (!(out.binding.weldTolerance >= 0))
    r.fail(`${W}.binding.weldTolerance`, `expected a distance of 0 or more, got ${out.binding.weldTolerance}`);
  if (!(BINDING_METHODS as readonly string[]).includes(out.binding.method))
    r.fail(`${W}.binding.method`, `expected one of ${BINDING_METHODS.join(', ')}, got ${out.binding.method}`);
  const [lowest, highest] = VOXEL_RESOLUTION_RANGE;
  if (!(Number.isInteger(out.binding.voxelResolution) && out.binding.voxelResolution >= lowest && out.binding.voxelResolution <= highest))
    r.fail(`${W}.binding.voxelResolution`, `expected a whole number from ${lowest} to ${highest}, got ${out.binding.voxelResolution}`);
  const [gentlest, steepest] = VOLUMETRIC_FALLOFF_RANGE;
  if (!(out.binding.falloff >= gentlest && out.binding.falloff <= steepest))
    r.fail(`${W}.binding.falloff`, `expected a number from ${gentlest} to ${steepest}, got ${out.binding.falloff}`);
  return out;
}
