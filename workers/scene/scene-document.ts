/**
 * The scene as data — mesh, skeleton, weights, poses, handles, bone scales and where each came from — with the
 * invariants every document keeps. Documents are values: an edit makes a new document (scene-store.ts), so a
 * view can tell what changed by comparing fields.
 */
import type { DenseMatrix, GltfSource, MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from '../formats/types.ts';
import { buildDemoScene, type DemoScene } from '../demo/demo-scene.ts';
import { buildTwistDemo } from '../demo/twist-demo.ts';
import { buildSkeleton, type Skeleton } from '../rig/skeleton.ts';
import { poseDuration, type PoseSequence } from '../rig/pose-sequence.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { boundingBox } from '../mesh/bounds.ts';
import type { GltfClip } from '../formats/gltf-export.ts';
import { boneFieldMismatch } from './bone-fields.ts';

export const PROVISIONAL_WEIGHTS = 'bone distance (provisional)';
/** The weights source of a scene without bones yet (#V × 0 weights): a mesh opened without a skeleton. */
export const NO_SKELETON_WEIGHTS = 'none (no skeleton yet)';

export interface SceneDocument {
  /** shown in the toolbar: the mesh file name, or the demo's name */
  readonly name: string;
  readonly meshFiles: readonly string[];
  readonly mesh: TriangleMesh;
  /** #V × 3 area-weighted unit rest normals */
  readonly restNormals: Float64Array;
  /** rest mesh bounding-box diagonal, in mesh units */
  readonly diagonal: number;
  readonly skeletonFile: string | null;
  readonly skeleton: Skeleton;
  /** #V × #B */
  readonly weights: DenseMatrix;
  /** a file name, `built-in`, or PROVISIONAL_WEIGHTS */
  readonly weightsSource: string;
  /** null: the rest pose */
  readonly poses: PoseSequence | null;
  readonly posesFile: string | null;
  /** #V bone index per vertex or -1, kept for the weights solver */
  readonly handles: Int32Array | null;
  /** #B × 3 local scale of each bone about its start joint (scaledForwardKinematics); null: all 1 */
  readonly boneScales?: Float64Array | null;
  readonly handlesFile: string | null;
  /** non-fatal observations from the readers, each naming its file */
  readonly warnings: readonly string[];
  /**
   * #B weight-paint locks, 1 = locked: painting leaves a locked bone's weights as they are and takes what it moves
   * from the unlocked ones; absent = no bone locked
   */
  readonly paintLocks?: Uint8Array;
  /** #B bone names (glTF joint node names), when the file had them */
  readonly boneNames?: readonly string[];
  /** every animation clip of the file (glTF); `poses` is one of them */
  readonly clips?: readonly GltfClip[];
  /** example shapes sculpted in known poses (context-aware deformation, handout Sec. 8); absent = none */
  readonly examples?: readonly ExampleShape[];
  /** the meshes of the scene, in vertex order, covering every vertex and triangle; absent = one mesh, all of it */
  readonly parts?: readonly MeshPart[];
  /** texture coordinates and materials, when the files had them */
  readonly look?: SurfaceLook;
  /** OBJ `vt`/`vn` per triangle corner, when the mesh came from OBJ files that had them */
  readonly objCorners?: ObjCorners;
  /** the glTF file the scene was imported from: export edits it in place */
  readonly gltfSource?: GltfSource;
  /** bones posed by hand (the gizmo, IK) over the shown pose; absent = none */
  readonly posedBones?: PosedBones;
  /**
   * true when the skeleton's topology or rest joints changed after the weights and handles were made: they still
   * deform the mesh, but a rebind is due (status line, Bind panel); absent = up to date
   */
  readonly bindingStale?: boolean;
}

/**
 * Hand-posed bones: where `bones[b]` is 1, bone b shows `rotations` (row-major relative rotation, the pose
 * sequence's convention) instead of the shown sequence's pose at the current time, until keyed or reset.
 */
export interface PosedBones {
  /** #B × 9 row-major relative rotations (identity where not posed) */
  readonly rotations: Float64Array;
  /** #B flags, 1 = posed by hand */
  readonly bones: Uint8Array;
}

/**
 * An example: the rest mesh's triangulation with its vertices moved, and the pose it was sculpted in. Values, like
 * the document: hiding or renaming one makes a new object.
 */
export interface ExampleShape {
  /** unique in the document; what commands and the Examples panel call it */
  readonly name: string;
  /** the mesh file it came from */
  readonly file: string;
  /** #V × 3 vertex positions, the rest mesh's vertex order */
  readonly positions: Float64Array;
  /** #B × 9 row-major relative rotations (a 3·B × 3 pose DMAT as stored) */
  readonly pose: Float64Array;
  /** where the pose came from: a file name, `frame 34 of all_frames.dmat`, `the viewport pose (…)` */
  readonly poseSource: string;
  /** hidden examples take no part in the deformation */
  readonly hidden: boolean;
}

export const examplesOf = (doc: SceneDocument): readonly ExampleShape[] => doc.examples ?? [];
/** The examples the deformation uses (the ones not hidden). */
export const activeExamplesOf = (doc: SceneDocument): ExampleShape[] => examplesOf(doc).filter((e) => !e.hidden);

export const vertexCountOf = (doc: SceneDocument): number => doc.mesh.positions.length / 3;
export const triangleCountOf = (doc: SceneDocument): number => doc.mesh.triangles.length / 3;
export const boneCountOf = (doc: SceneDocument): number => doc.skeleton.parents.length;
export const jointCountOf = (doc: SceneDocument): number => doc.skeleton.joints.length / 3;

/** The built-in demo: a procedural creature, weighted and animated, so the app never opens empty. */
export function demoDocument(): SceneDocument {
  return builtInDocument(buildDemoScene());
}

/**
 * The demo to rig from the start: the demo's mesh, skeleton and clip, unbound: no handles, and the provisional
 * bone-distance weights a mesh and skeleton imported without weights get (PROVISIONAL_WEIGHTS), until Compute weights.
 */
export function demoToRigDocument(): SceneDocument {
  return { ...demoDocument(), weightsSource: PROVISIONAL_WEIGHTS, handles: null, handlesFile: null };
}

/** The twist test scene (workers/demo/twist-demo.ts): where LBS collapses and DQS does not. */
export function twistDemoDocument(): SceneDocument {
  return builtInDocument(buildTwistDemo());
}

function builtInDocument(demo: DemoScene): SceneDocument {
  return withDerived({
    name: demo.name,
    meshFiles: [],
    mesh: demo.mesh,
    skeletonFile: null,
    skeleton: buildSkeleton(demo.skeleton, demo.name),
    weights: demo.weights,
    weightsSource: 'built-in',
    poses: demo.poses,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
}

/**
 * What a scene without a skeleton has in place of one: no skeleton file, 0 joints and bones, #V × 0 weights from
 * NO_SKELETON_WEIGHTS.
 * @param name         the mesh's name, for the empty skeleton's messages
 * @param vertexCount  #V
 */
export function noSkeleton(
  name: string,
  vertexCount: number,
): Pick<SceneDocument, 'skeletonFile' | 'skeleton' | 'weights' | 'weightsSource'> {
  return {
    skeletonFile: null,
    skeleton: buildSkeleton({ joints: new Float64Array(0), bones: new Uint32Array(0) }, name),
    weights: { rows: vertexCount, cols: 0, data: new Float64Array(0) },
    weightsSource: NO_SKELETON_WEIGHTS,
  };
}

/**
 * A scene of a mesh alone (noSkeleton, the rest pose, no handles), to be rigged with the skeleton tool, a template
 * or `rigwright skeleton`.
 * @param mesh  the mesh with its name (its file's), and what came with it: the files (default [name]), parts, look,
 *              OBJ corners and the readers' warnings (default none)
 */
export function bareDocument(mesh: {
  name: string;
  mesh: TriangleMesh;
  meshFiles?: readonly string[];
  parts?: readonly MeshPart[];
  look?: SurfaceLook;
  objCorners?: ObjCorners;
  warnings?: readonly string[];
}): SceneDocument {
  const { name, meshFiles = [name], warnings = [], parts, look, objCorners } = mesh;
  return withDerived({
    name,
    meshFiles,
    mesh: mesh.mesh,
    ...noSkeleton(name, mesh.mesh.positions.length / 3),
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings,
    ...(parts ? { parts } : {}),
    ...(look ? { look } : {}),
    ...(objCorners ? { objCorners } : {}),
  });
}

export function withDerived(doc: Omit<SceneDocument, 'restNormals' | 'diagonal'>): SceneDocument {
  return {
    ...doc,
    restNormals: vertexNormals(doc.mesh.positions, doc.mesh.triangles),
    diagonal: boundingBox(doc.mesh.positions).diagonal,
  };
}

/** Thrown for a batch that is wrong as a whole (two meshes at once) rather than in one file. */
export class LoadError extends Error {
  override readonly name = 'LoadError';
}

/** The invariants every document keeps; a broken one here is a bug, not bad input, but it must not reach the GPU. */
export function assertConsistent(doc: SceneDocument): void {
  const V = vertexCountOf(doc);
  const B = boneCountOf(doc);
  if (doc.weights.rows !== V || doc.weights.cols !== B) {
    throw new LoadError(`${doc.weightsSource}: weights are ${doc.weights.rows} × ${doc.weights.cols}, the scene needs ${V} × ${B}`);
  }
  if (doc.poses && doc.poses.boneCount !== B) {
    throw new LoadError(`${doc.posesFile ?? 'poses'}: poses are for ${doc.poses.boneCount} bones, the skeleton has ${B}`);
  }
  if (doc.handles && doc.handles.length !== V) {
    throw new LoadError(`${doc.handlesFile ?? 'handles'}: ${doc.handles.length} handle entries, the mesh has ${V} vertices`);
  }
  if (doc.poses && !(poseDuration(doc.poses) >= 0)) throw new LoadError(`${doc.posesFile ?? 'poses'}: empty pose sequence`);
  for (const example of examplesOf(doc)) {
    if (example.positions.length !== 3 * V)
      throw new LoadError(`${example.file}: ${example.positions.length / 3} vertices, the mesh has ${V}`);
    if (example.pose.length !== 9 * B)
      throw new LoadError(`${example.poseSource}: a pose for ${example.pose.length / 9} bones, the skeleton has ${B}`);
  }
  // Every other bone-indexed field, from the one list of them.
  const mismatch = boneFieldMismatch(doc);
  if (mismatch) throw new LoadError(`${doc.name}: ${mismatch.where} holds ${mismatch.bones} bones, the skeleton has ${B}`);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The longest message a file's error shows; a reader's message may quote a token megabytes long. */
export const MAX_FILE_ERROR_CHARACTERS = 400;

/** Errors whose message already names the file (readers' FormatError, LoadError, a crashed worker's call). */
const NAMING_ERRORS = new Set(['FormatError', 'LoadError', 'WorkerCrashError']);

/**
 * What reading `fileName` failed with, as the user sees it: a reader's own error names file, place and reason
 * already; any other (a fault of the reader) gets the file's name, so the user still knows which file it was. At
 * most MAX_FILE_ERROR_CHARACTERS characters.
 */
export function fileErrorMessage(error: unknown, fileName: string): string {
  const message = errorMessage(error);
  const name = (error as { name?: unknown } | null)?.name;
  const named = (typeof name === 'string' && NAMING_ERRORS.has(name)) || message.startsWith(`${fileName}:`);
  const text = named
    ? message
    : `${fileName}: could not be read (${error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : ''}${message})`;
  return text.length <= MAX_FILE_ERROR_CHARACTERS
    ? text
    : `${text.slice(0, MAX_FILE_ERROR_CHARACTERS)}… (${text.length - MAX_FILE_ERROR_CHARACTERS} more characters)`;
}
