/**
 * Run by per-face-two-core.test.ts in its own process: poses the body subdivided once on two threads, prints
 * `framed ARG`, and either disposes the two-core frame (ARG = dispose) or leaves it (ARG = keep). Either way the
 * process must end by itself.
 */
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { perFaceFixedVertices, perFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { perFaceTwoCoreThread } from '../../app/cli/per-face-thread.ts';
import { subdividedCourseBody } from './midpoint-subdivision.ts';

const mode = process.argv[2];
const body = subdividedCourseBody(1);
const { skeleton } = body;
const boneCount = skeleton.parents.length;
const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
const setup = perFaceSkinningSetup(
  body.positions,
  body.triangles,
  influences,
  boneCount,
  perFaceFixedVertices(skeleton.parents, influences, body.handles),
);
const twoCore = await perFaceTwoCoreThread(setup);
if (twoCore === null) throw new Error('per-face-two-core-exit: no two-core frame for the body subdivided once');
const transforms = new Float64Array(12 * boneCount);
forwardKinematics(
  skeleton,
  new Float64Array(9 * boneCount).map((_, i) => (i % 4 === 0 ? 1 : 0)),
  transforms,
);
twoCore.frame(transforms, new Float64Array(body.positions.length));
process.stdout.write(`framed ${mode}\n`);
if (mode === 'dispose') twoCore.dispose();
