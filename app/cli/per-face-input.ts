/**
 * What `skin` and `unpose` share for per-face methods: the per-face setup from the handles file (root handles are
 * the stitching's fixed vertices), the --per-face-blend option, and the examples unposed per face
 * (workers/posespace/per-face-context.ts).
 */
import { FormatError } from '../../workers/formats/format-error.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import { perFaceFixedVertices, perFaceSkinningSetup, type PerFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { NotPositiveDefiniteError } from '../../workers/sparse/not-positive-definite-error.ts';
import {
  perFaceExamples,
  perFaceUnpose,
  type PerFaceBlend,
  type PerFaceExamples,
  type PerFaceUnposeResult,
} from '../../workers/posespace/per-face-context.ts';
import { readMatrix, UsageError, type CliStreams } from './cli-support.ts';
import type { ExampleInput } from './example-input.ts';

/** The --per-face-blend help line. */
export const PER_FACE_BLEND_HELP = `--per-face-blend B  with --method perface and --examples: eq9 blends the examples' per-face transformations
                     linearly; eq10 (the default) blends their rotations in log-quaternion space and their
                     stretches linearly (Weber et al. 2007)`;

/** --per-face-blend: eq9 or eq10 (default). */
export function perFaceBlendOption(text: string | undefined): PerFaceBlend {
  if (text === undefined || text === 'eq10') return 'eq10';
  if (text === 'eq9') return 'eq9';
  throw new UsageError(`--per-face-blend must be eq9 or eq10, not "${text}"`);
}

/**
 * The per-face skinning setup, factored once; the handles file's root-bone vertices are held by their bone.
 * @throws FormatError naming the handles file when no root bone has a handle or a part of the mesh has none
 */
export function readPerFaceSetup(
  handlesFile: string,
  mesh: TriangleMesh,
  skeleton: Skeleton,
  influences: Influences,
  boneCount: number,
): PerFaceSkinningSetup {
  const vertexCount = mesh.positions.length / 3;
  const handles = handlesFromDmat(readMatrix(handlesFile, 'handles'), vertexCount, boneCount, handlesFile);
  const fixed = perFaceFixedVertices(skeleton.parents, influences, handles);
  if (!fixed.some((b) => b >= 0)) {
    throw new FormatError(
      handlesFile,
      'handles',
      'no vertex is a handle of a root bone, so per-face stitching has nothing to hold the mesh in place',
    );
  }
  try {
    return perFaceSkinningSetup(mesh.positions, mesh.triangles, influences, boneCount, fixed);
  } catch (error) {
    if (!(error instanceof NotPositiveDefiniteError)) throw error;
    throw new FormatError(
      handlesFile,
      'handles',
      'a connected part of the mesh has no fixed vertex (a root bone handle), so its position is undetermined',
    );
  }
}

/**
 * One example unposed per face at its pose; warns when per-face skinning of the result misses the example by more
 * than 1e-6 of its size (the refinement did not converge).
 */
export function unposeExamplePerFace(
  setup: PerFaceSkinningSetup,
  skeleton: Skeleton,
  example: ExampleInput,
  stderr: CliStreams['stderr'],
): PerFaceUnposeResult {
  const transforms = new Float64Array(12 * skeleton.parents.length);
  forwardKinematics(skeleton, example.pose, transforms);
  const result = perFaceUnpose(setup, example.positions, transforms);
  if (result.residual > 1e-6) {
    stderr.write(
      `rigwright: warning: ${example.meshFile}: per-face skinning of the unposed shape misses the example by ${result.residual.toExponential(2)} of its size\n`,
    );
  }
  return result;
}

/** The examples unposed per face and their per-face transformations T_{j,f}, for per-face context skinning. */
export function perFaceExamplesOf(
  setup: PerFaceSkinningSetup,
  skeleton: Skeleton,
  examples: readonly ExampleInput[],
  stderr: CliStreams['stderr'],
): PerFaceExamples {
  const result = perFaceExamples(
    setup,
    examples.map((example) => unposeExamplePerFace(setup, skeleton, example, stderr).unposed),
  );
  result.degenerateFaces.forEach((count, j) => {
    if (count > 0) stderr.write(`rigwright: warning: ${examples[j].meshFile}: ${count} faces collapse when unposed per face\n`);
  });
  return result;
}
