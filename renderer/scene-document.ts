/**
 * The scene as data — mesh, skeleton, weights, poses, handles and where each came from — and the one way to
 * change it: `loadIntoDocument` builds a complete candidate from the current document and a batch of files,
 * validates all of it, and only then returns it. The caller swaps documents whole, so a failure anywhere leaves
 * the scene exactly as it was.
 */
import type { OpenedFile } from '../app/ipc-contract.ts';
import type { DenseMatrix, TriangleMesh } from '../workers/formats/types.ts';
import type { RigFile } from '../workers/formats/read-file.ts';
import { buildDemoScene, type DemoScene } from '../workers/demo/demo-scene.ts';
import { buildTwistDemo } from '../workers/demo/twist-demo.ts';
import { buildSkeleton, type Skeleton } from '../workers/rig/skeleton.ts';
import { poseDuration, type PoseSequence } from '../workers/rig/pose-sequence.ts';
import { vertexNormals } from '../workers/mesh/vertex-normals.ts';
import { boundingBox } from '../workers/mesh/bounds.ts';
import type { IoClient } from './io-client.ts';
import type { GltfClip } from '../workers/formats/gltf-export.ts';
import { gltfIntoDocument, isGltfBatch } from './gltf-document.ts';

export const PROVISIONAL_WEIGHTS = 'bone distance (provisional)';

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
  readonly handlesFile: string | null;
  /** non-fatal observations from the readers, each naming its file */
  readonly warnings: readonly string[];
  /** #B bone names (glTF joint node names), when the file had them */
  readonly boneNames?: readonly string[];
  /** every animation clip of the file (glTF); `poses` is one of them */
  readonly clips?: readonly GltfClip[];
}

export const vertexCountOf = (doc: SceneDocument): number => doc.mesh.positions.length / 3;
export const triangleCountOf = (doc: SceneDocument): number => doc.mesh.triangles.length / 3;
export const boneCountOf = (doc: SceneDocument): number => doc.skeleton.parents.length;
export const jointCountOf = (doc: SceneDocument): number => doc.skeleton.joints.length / 3;

/** The built-in demo: a procedural creature, weighted and animated, so the app never opens empty. */
export function demoDocument(): SceneDocument {
  return builtInDocument(buildDemoScene());
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

function withDerived(doc: Omit<SceneDocument, 'restNormals' | 'diagonal'>): SceneDocument {
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

type MatrixFile = Extract<RigFile, { kind: 'matrix' }>;

type DmatRole = 'weights' | 'poses' | 'handles';

/**
 * What a DMAT is, by shape against the candidate: an exact fit (weights, then poses, then handles), else the
 * closest reading (`fits` false), whose reader then refuses it with a message naming both sizes.
 */
function dmatRole(file: MatrixFile, vertexCount: number, boneCount: number): { role: DmatRole; fits: boolean } {
  const { rows, cols } = file.matrix;
  if (rows === vertexCount && cols === boneCount) return { role: 'weights', fits: true };
  if (cols === 3 && rows > 0 && rows % (3 * boneCount) === 0) return { role: 'poses', fits: true };
  if (cols === 1 && rows === 4 * boneCount) return { role: 'poses', fits: true };
  if (cols === 1 && rows === vertexCount) return { role: 'handles', fits: true };
  if (rows === vertexCount) return { role: 'weights', fits: false };
  if (cols === 1) return { role: isHandleColumn(file.matrix.data) ? 'handles' : 'poses', fits: false };
  return { role: cols === 3 ? 'poses' : 'weights', fits: false };
}

/** Handle files hold bone indices or -1; quaternion columns hold fractions. */
function isHandleColumn(values: Float64Array): boolean {
  return values.every((x) => Number.isInteger(x) && x >= -1);
}

function single<T extends { name: string }>(items: T[], what: string): T | null {
  if (items.length > 1) {
    throw new LoadError(`${items.map((i) => i.name).join(', ')}: ${items.length} ${what} at once; open one at a time`);
  }
  return items[0] ?? null;
}

/**
 * Reads a batch of files into a candidate document based on `current`.
 * Meshes (.obj/.off) and skeletons (.tgf) apply first; then each .dmat is read against the candidate's sizes:
 * #V × #B → weights, 3·B·L × 3 or 4B × 1 → poses, #V × 1 → handles. A new mesh or skeleton without weights
 * in the batch is bound provisionally by bone distance; a new skeleton without poses starts in the rest pose.
 * @param current  the scene now shown (never modified)
 * @param files    the batch, in any order
 * @param io       the file-reading worker
 * @returns the new document, fully validated
 * @throws FormatError or LoadError with a message naming file, place and reason (several, one per line,
 *   when several files fail to parse)
 */
export async function loadIntoDocument(current: SceneDocument, files: readonly OpenedFile[], io: IoClient): Promise<SceneDocument> {
  if (isGltfBatch(files)) return gltfIntoDocument(files, io);
  const settled = await Promise.allSettled(files.map((f) => io.readRigFile(f.name, f.bytes)));
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [errorMessage(s.reason)] : []));
  if (failures.length > 0) throw new LoadError(failures.join('\n'));
  const parsed = settled.map((s) => (s as PromiseFulfilledResult<RigFile>).value);

  const meshFile = single(parsed.filter((f) => f.kind === 'mesh'), 'meshes');
  const skeletonFile = single(parsed.filter((f) => f.kind === 'skeleton'), 'skeletons');
  const matrices = parsed.filter((f): f is MatrixFile => f.kind === 'matrix');

  const mesh = meshFile ? meshFile.mesh : current.mesh;
  const skeleton = skeletonFile ? buildSkeleton(skeletonFile.skeleton, skeletonFile.name) : current.skeleton;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  const warnings = meshFile ? [...meshFile.report.warnings.map((w) => `${meshFile.name}: ${w}`)] : [];

  const byRole = { weights: [] as MatrixFile[], poses: [] as MatrixFile[], handles: [] as MatrixFile[] };
  for (const m of matrices) {
    const { role, fits } = dmatRole(m, vertexCount, boneCount);
    // A misfit is refused by its reader, whose message says which sizes would fit.
    if (!fits) await readAs(io, role, m, vertexCount, boneCount);
    byRole[role].push(m);
  }
  const weightsFile = single(byRole.weights, 'weight files');
  const posesFile = single(byRole.poses, 'pose files');
  const handlesFile = single(byRole.handles, 'handle files');

  const rigChanged = meshFile !== null || skeletonFile !== null;
  let weights = current.weights;
  let weightsSource = current.weightsSource;
  if (weightsFile) {
    const read = await io.weightsFromDmat(weightsFile.matrix, vertexCount, boneCount, weightsFile.name);
    weights = read.weights;
    weightsSource = weightsFile.name;
    warnings.push(...read.warnings);
  } else if (rigChanged) {
    weights = await io.boneDistanceWeights(mesh.positions, skeleton);
    weightsSource = PROVISIONAL_WEIGHTS;
  }

  let poses = current.poses;
  let posesName = current.posesFile;
  if (posesFile) {
    poses = await io.poseSequenceFromDmat(posesFile.matrix, boneCount, posesFile.name);
    posesName = posesFile.name;
  } else if (skeletonFile) {
    poses = null;
    posesName = null;
  }

  let handles = current.handles;
  let handlesName = current.handlesFile;
  if (handlesFile) {
    handles = await io.handlesFromDmat(handlesFile.matrix, vertexCount, boneCount, handlesFile.name);
    handlesName = handlesFile.name;
  } else if (rigChanged) {
    handles = null;
    handlesName = null;
  }

  const candidate = withDerived({
    name: meshFile ? meshFile.name : current.name,
    meshFiles: meshFile ? [meshFile.name] : current.meshFiles,
    mesh,
    skeletonFile: skeletonFile ? skeletonFile.name : current.skeletonFile,
    skeleton,
    weights,
    weightsSource,
    poses,
    posesFile: posesName,
    handles,
    handlesFile: handlesName,
    warnings,
    boneNames: skeletonFile ? undefined : current.boneNames,
    clips: skeletonFile || posesFile ? undefined : current.clips,
  });
  assertConsistent(candidate);
  return candidate;
}

function readAs(io: IoClient, role: DmatRole, file: MatrixFile, vertexCount: number, boneCount: number): Promise<unknown> {
  switch (role) {
    case 'weights':
      return io.weightsFromDmat(file.matrix, vertexCount, boneCount, file.name);
    case 'poses':
      return io.poseSequenceFromDmat(file.matrix, boneCount, file.name);
    case 'handles':
      return io.handlesFromDmat(file.matrix, vertexCount, boneCount, file.name);
  }
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
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
