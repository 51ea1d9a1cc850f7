/**
 * The example options `unpose`, `skin` and `export` share: example meshes with the pose they were sculpted in
 * (--examples E1.obj:E1.dmat,E2.obj:E2.dmat), checked against the rest mesh and the skeleton, their per-vertex
 * unposing and their RBF pose-space weights (workers/posespace/).
 */
import path from 'node:path';
import { FormatError } from '../../workers/formats/format-error.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { poseDuration, samplePose } from '../../workers/rig/pose-sequence.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import {
  POSE_SPACE_DEFAULTS,
  PoseSpaceError,
  poseSpaceInterpolator,
  RBF_KERNELS,
  type PoseSpaceInterpolator,
  type RbfKernel,
} from '../../workers/posespace/pose-space-weights.ts';
import { checkExampleMesh, unposeExamples, type UnposeMethod } from '../../workers/posespace/unpose.ts';
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { readMatrix, readMesh, UsageError, type CliStreams } from './cli-support.ts';

/** One example shape, read and checked. */
export interface ExampleInput {
  /** the mesh file's name without folder and extension */
  name: string;
  meshFile: string;
  poseFile: string;
  /** #V × 3, the rest mesh's vertices in the example's pose */
  positions: Float64Array;
  /** #B × 9 relative rotations the example was sculpted at */
  pose: Float64Array;
}

/**
 * The help of --examples and --rbf for a command whose option descriptions start at `column` (counting the two
 * leading spaces), without the leading spaces of the first line and with a newline between the two options.
 */
export function exampleOptionsHelp(column: number): string {
  const option = (name: string, lines: string[]) =>
    `${name.padEnd(column - 3)} ${lines[0]}` +
    lines
      .slice(1)
      .map((l) => `\n${' '.repeat(column)}${l}`)
      .join('');
  return [
    option('--examples LIST', [
      "example shapes with their poses, E1.obj:E1.dmat,E2.obj:E2.dmat: each mesh has the rest mesh's",
      'vertices and triangles, each pose one frame of B relative rotations (3·B × 3) or 4B × 1 quaternions',
    ]),
    option('--rbf KERNEL', [
      'pose-space weights: gaussian (width: mean distance to the nearest other example) or linear',
      `(no width); default ${POSE_SPACE_DEFAULTS.kernel}`,
    ]),
  ].join('\n  ');
}

/** The kernel named by --rbf, or the default. */
export function rbfOption(text: string | undefined): RbfKernel {
  if (text === undefined) return POSE_SPACE_DEFAULTS.kernel;
  if (!(RBF_KERNELS as readonly string[]).includes(text)) throw new UsageError(`--rbf must be ${RBF_KERNELS.join(' or ')}, not "${text}"`);
  return text as RbfKernel;
}

/**
 * Splits an --examples list into (mesh, pose) file pairs: comma-separated `mesh:pose`, split at the last colon.
 * @throws UsageError for an empty list or an item without both files
 */
export function parseExampleList(spec: string): { meshFile: string; poseFile: string }[] {
  const items = spec.split(',').map((s) => s.trim());
  if (items.length === 0 || items.every((s) => s === '')) throw new UsageError('--examples is empty');
  return items.map((item) => {
    const colon = item.lastIndexOf(':');
    if (colon <= 0 || colon === item.length - 1) {
      throw new UsageError(`--examples: "${item}" must be MESH:POSE, e.g. eg0.obj:eg0.dmat`);
    }
    return { meshFile: item.slice(0, colon), poseFile: item.slice(colon + 1) };
  });
}

/**
 * Reads one example: its mesh (the rest mesh's vertices and triangles) and its pose (one frame of rotation
 * matrices, or final-pose quaternions).
 * @throws FormatError naming the mesh file and the first differing face, or the pose file and why it is no pose
 */
export function readExample(meshFile: string, poseFile: string, rest: TriangleMesh, boneCount: number): ExampleInput {
  const mesh = readMesh(meshFile);
  checkExampleMesh(rest, mesh, meshFile);
  const seq = poseSequenceFromDmat(readMatrix(poseFile, 'an example pose'), boneCount, poseFile);
  if (seq.kind === 'matrices' && seq.frameCount !== 1) {
    throw new FormatError(poseFile, '', `an example pose is one frame (${3 * boneCount} × 3), but the file holds ${seq.frameCount} frames`);
  }
  const pose = new Float64Array(9 * boneCount);
  samplePose(seq, poseDuration(seq), pose);
  return { name: path.basename(meshFile).replace(/\.[^.]*$/, ''), meshFile, poseFile, positions: mesh.positions, pose };
}

/** Every example of an --examples list (see readExample). */
export function readExamples(spec: string, rest: TriangleMesh, boneCount: number): ExampleInput[] {
  return parseExampleList(spec).map(({ meshFile, poseFile }) => readExample(meshFile, poseFile, rest, boneCount));
}

/** The examples' poses stacked, J × B × 9, example-major. */
export function stackExamplePoses(examples: readonly ExampleInput[], boneCount: number): Float64Array {
  const poses = new Float64Array(examples.length * 9 * boneCount);
  examples.forEach((e, j) => poses.set(e.pose, 9 * boneCount * j));
  return poses;
}

/**
 * The RBF pose-space weights of the examples, named by their mesh files; two examples with the same pose (or an
 * ill-conditioned system) are bad input of the later one's pose file.
 */
export function examplesInterpolator(examples: readonly ExampleInput[], boneCount: number, kernel: RbfKernel): PoseSpaceInterpolator {
  try {
    return poseSpaceInterpolator(
      stackExamplePoses(examples, boneCount),
      boneCount,
      examples.map((e) => e.meshFile),
      { kernel },
    );
  } catch (error) {
    if (!(error instanceof PoseSpaceError)) throw error;
    const named = examples.filter((e) => error.examples.includes(e.meshFile));
    throw new FormatError(named.length > 0 ? named[named.length - 1].poseFile : '--examples', '', error.message);
  }
}

/**
 * Unposes every example (Sec. 8.1.1) through `method` and packs the displacements J × #V × 3 (unposeExamples);
 * near-singular vertices (which get no displacement) are counted on stderr per example.
 */
export function exampleDisplacements(
  rest: Float64Array,
  examples: readonly ExampleInput[],
  skeleton: Skeleton,
  influences: Influences,
  method: UnposeMethod,
  antipodality: DualQuaternionAntipodality,
  stderr: CliStreams['stderr'],
): Float64Array {
  const { displacements, singularVertices } = unposeExamples(rest, examples, skeleton, influences, method, antipodality);
  singularVertices.forEach((singular, j) => {
    if (singular.length > 0) stderr.write(`rigwright: warning: ${examples[j].meshFile}: ${describeSingular(singular)}\n`);
  });
  return displacements;
}

/** The near-singular vertices of an unposing in words, naming the first few (0-based). */
export function describeSingular(vertices: Uint32Array): string {
  const first = [...vertices.subarray(0, 5)].join(', ');
  return `${vertices.length} vertex${vertices.length === 1 ? '' : 'es'} with a near-singular blended transform (${first}${vertices.length > 5 ? ', …' : ''}) keep the rest position: no displacement`;
}
