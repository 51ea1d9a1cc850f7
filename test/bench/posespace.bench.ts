/**
 * Pose-space benchmarks, on the context-aware body (18k vertices) and the body subdivided once (73k;
 * the examples eg0…eg3 subdivided the same way, so they keep matching the rest mesh), harmonic weights from the
 * handles, 4 influences:
 * - per-vertex unposing of one example through LBS and DQS (Sec. 8.1.1), against one plain LBS pass of the same
 *   mesh (the reference: unposing is one blended transform and a 3×3 inverse per vertex);
 * - CPU context LBS per frame (pose-space weights a_j of the frame + v0 + Σ a_j δ_j + LBS), against plain LBS per
 *   frame, and the same for DQS.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { poseDuration, samplePose } from '../../workers/rig/pose-sequence.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { unposeExample } from '../../workers/posespace/unpose.ts';
import { poseSpaceInterpolator, poseSpaceWeights } from '../../workers/posespace/pose-space-weights.ts';
import { contextDualQuaternionSkinning, contextLinearBlendSkinning } from '../../workers/posespace/context-skinning.ts';
import { cacheDir, dataDir, fmtMs, medianMs, printTable, refDir, requireFile, type BenchRow } from './bench-util.ts';

const bodyDir = path.join(dataDir, 'context-aware');
const skeleton = buildSkeleton(
  readTgf(readFileSync(requireFile(path.join(bodyDir, 'skeleton.tgf')), 'utf8'), 'skeleton.tgf'),
  'skeleton.tgf',
);
const B = skeleton.parents.length;
const frames = poseSequenceFromDmat(
  readDmat(new Uint8Array(readFileSync(requireFile(path.join(bodyDir, 'all_frames.dmat')))), 'all_frames.dmat'),
  B,
  'all_frames.dmat',
);
const examplePoses = new Float64Array(4 * 9 * B);
for (let j = 0; j < 4; j++) {
  const file = requireFile(path.join(bodyDir, `eg${j}.dmat`));
  const seq = poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(file)), file), B, file);
  samplePose(seq, 0, examplePoses.subarray(9 * B * j, 9 * B * (j + 1)));
}
const interpolator = poseSpaceInterpolator(examplePoses, B, ['eg0', 'eg1', 'eg2', 'eg3']);

/** The body (level 0) or the body subdivided once, with its handles and the four examples at that level. */
function bodyAt(level: 0 | 1): { mesh: TriangleMesh; handles: Int32Array; examples: Float64Array[] } {
  const read = (file: string) => readObj(readFileSync(file, 'utf8'), file).mesh;
  if (level === 0) {
    const mesh = read(requireFile(path.join(bodyDir, 'reference.obj')));
    const handlesFile = requireFile(path.join(bodyDir, 'handles.dmat'));
    return {
      mesh,
      handles: handlesFromDmat(readDmat(new Uint8Array(readFileSync(handlesFile)), handlesFile), mesh.positions.length / 3, B, handlesFile),
      examples: [0, 1, 2, 3].map((j) => read(requireFile(path.join(bodyDir, `eg${j}.obj`))).positions),
    };
  }
  // subdivide.py is deterministic in the triangle list, which the examples share with the rest mesh.
  const subdivide = (name: string): string => {
    const prefix = path.join(cacheDir, `${name}-sub1`);
    if (!existsSync(`${prefix}.obj`)) {
      execFileSync('python3', [
        requireFile(path.join(refDir, 'subdivide.py')),
        path.join(bodyDir, `${name}.obj`),
        path.join(bodyDir, 'handles.dmat'),
        '1',
        prefix,
      ]);
    }
    return prefix;
  };
  const prefix = subdivide('reference');
  const mesh = read(`${prefix}.obj`);
  const handlesFile = `${prefix}-handles.dmat`;
  return {
    mesh,
    handles: handlesFromDmat(readDmat(new Uint8Array(readFileSync(handlesFile)), handlesFile), mesh.positions.length / 3, B, handlesFile),
    examples: [0, 1, 2, 3].map((j) => read(`${subdivide(`eg${j}`)}.obj`).positions),
  };
}

const rows: BenchRow[] = [];

for (const level of [0, 1] as const) {
  const { mesh, handles, examples } = bodyAt(level);
  const rest = mesh.positions;
  const n = rest.length / 3;
  const label = level === 0 ? `body, ${n} vertices` : `body subdivided once, ${n} vertices`;
  const { weights } = harmonicWeights(rest, mesh.triangles, handles, B);
  const influences = influencesFromWeights({ rows: n, cols: B, data: weights }, 4);
  const transforms = new Float64Array(12 * B);
  const dq = new Float64Array(8 * B);
  const out = new Float64Array(rest.length);

  // Unposing eg2, against one LBS pass at its pose.
  forwardKinematics(skeleton, examplePoses.subarray(18 * B, 27 * B), transforms);
  const lbsMs = medianMs(() => linearBlendSkinning(rest, influences, transforms, out), 11, 3);
  for (const method of ['lbs', 'dqs'] as const) {
    let singular = 0;
    const ms = medianMs(
      () => (singular = unposeExample(rest, examples[2], influences, transforms, { method }).singularVertices.length),
      11,
      3,
    );
    rows.push({
      case: `per-vertex unposing (${method.toUpperCase()}) of one example, ${label}`,
      ours: fmtMs(ms),
      reference: `${fmtMs(lbsMs)} (one LBS pass)`,
      ratio: (ms / lbsMs).toFixed(2),
      note: `${singular} near-singular; includes δ and the result arrays`,
    });
  }

  // Displacements of the four examples, per method.
  const displacements = { lbs: new Float64Array(4 * rest.length), dqs: new Float64Array(4 * rest.length) };
  for (const method of ['lbs', 'dqs'] as const) {
    examples.forEach((positions, j) => {
      forwardKinematics(skeleton, examplePoses.subarray(9 * B * j, 9 * B * (j + 1)), transforms);
      displacements[method].set(unposeExample(rest, positions, influences, transforms, { method }).displacements, j * rest.length);
    });
  }

  // Per frame: FK (+ dual quaternions) and skinning; context adds a_j and the rest-space sum.
  const rotations = new Float64Array(9 * B);
  const a = new Float64Array(4);
  let frame = 0;
  const frameOf = () => {
    samplePose(frames, (frame += 37) % (poseDuration(frames) + 1), rotations);
    forwardKinematics(skeleton, rotations, transforms);
  };
  const plainLbs = medianMs(() => {
    frameOf();
    linearBlendSkinning(rest, influences, transforms, out);
  }, 21);
  const contextLbs = medianMs(() => {
    frameOf();
    poseSpaceWeights(interpolator, rotations, a);
    contextLinearBlendSkinning(rest, displacements.lbs, a, influences, transforms, out);
  }, 21);
  const plainDqs = medianMs(() => {
    frameOf();
    dualQuatsFromRigidMatrices(transforms, dq);
    dualQuaternionSkinning(rest, influences, dq, out);
  }, 21);
  const contextDqs = medianMs(() => {
    frameOf();
    dualQuatsFromRigidMatrices(transforms, dq);
    poseSpaceWeights(interpolator, rotations, a);
    contextDualQuaternionSkinning(rest, displacements.dqs, a, influences, dq, out);
  }, 21);
  rows.push(
    {
      case: `CPU context LBS per frame, 4 examples, ${label}`,
      ours: fmtMs(contextLbs),
      reference: `${fmtMs(plainLbs)} (plain LBS)`,
      ratio: (contextLbs / plainLbs).toFixed(2),
    },
    {
      case: `CPU context DQS per frame, 4 examples, ${label}`,
      ours: fmtMs(contextDqs),
      reference: `${fmtMs(plainDqs)} (plain DQS)`,
      ratio: (contextDqs / plainDqs).toFixed(2),
    },
  );
}

printTable('Pose space: per-vertex unposing and CPU context skinning', rows);
