/**
 * Forward kinematics of the body's 394-frame animation (28 bones, three roots): sample each frame, compose
 * relative rotations parent to child, and place the joints — against three.js doing the same with a Bone
 * hierarchy (quaternion per bone, updateMatrixWorld) in the same process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Bone, Matrix4, Quaternion, Vector3 } from 'three';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { dataDir, fmtMs, medianMs, printTable, requireFile } from './bench-util.ts';

const tgf = readTgf(readFileSync(requireFile(path.join(dataDir, 'context-aware/skeleton.tgf')), 'utf8'), 'skeleton.tgf');
const skeleton = buildSkeleton(tgf, 'skeleton.tgf');
const boneCount = skeleton.parents.length;
const poses = poseSequenceFromDmat(
  readDmat(new Uint8Array(readFileSync(requireFile(path.join(dataDir, 'context-aware/all_frames.dmat')))), 'all_frames.dmat'),
  boneCount,
  'all_frames.dmat',
);
if (poses.kind !== 'matrices') throw new Error('all_frames.dmat should hold rotation matrices');
const frames = poses.frameCount;

const rotations = new Float64Array(boneCount * 9);
const transforms = new Float64Array(boneCount * 12);
const joints = new Float64Array(skeleton.joints.length);
const ours = medianMs(() => {
  for (let f = 0; f < frames; f++) {
    samplePose(poses, f, rotations);
    forwardKinematics(skeleton, rotations, transforms);
    posedJointPositions(skeleton, transforms, joints);
  }
});

// three.js: one Bone per bone, positioned at its start joint relative to its parent bone's start joint.
const bones = Array.from({ length: boneCount }, () => new Bone());
const start = (b: number) => new Vector3().fromArray(skeleton.joints, skeleton.bones[2 * b] * 3);
for (let b = 0; b < boneCount; b++) {
  const p = skeleton.parents[b];
  bones[b].position.copy(p < 0 ? start(b) : start(b).sub(start(p)));
  if (p >= 0) bones[p].add(bones[b]);
}
const roots = bones.filter((_, b) => skeleton.parents[b] < 0);
const m = new Matrix4();
const q = new Quaternion();
const end = new Vector3();
const threeJoints = new Float64Array(boneCount * 3);
const three = medianMs(() => {
  for (let f = 0; f < frames; f++) {
    const base = f * boneCount * 9;
    for (let b = 0; b < boneCount; b++) {
      const r = poses.rotations.subarray(base + b * 9, base + b * 9 + 9);
      m.set(r[0], r[1], r[2], 0, r[3], r[4], r[5], 0, r[6], r[7], r[8], 0, 0, 0, 0, 1);
      bones[b].quaternion.copy(q.setFromRotationMatrix(m));
    }
    for (const root of roots) root.updateMatrixWorld(true);
    for (let b = 0; b < boneCount; b++) {
      const e = skeleton.bones[2 * b + 1],
        s = skeleton.bones[2 * b];
      end.set(
        skeleton.joints[3 * e] - skeleton.joints[3 * s],
        skeleton.joints[3 * e + 1] - skeleton.joints[3 * s + 1],
        skeleton.joints[3 * e + 2] - skeleton.joints[3 * s + 2],
      );
      end.applyMatrix4(bones[b].matrixWorld).toArray(threeJoints, 3 * b);
    }
  }
});

// The two must agree, or the comparison means nothing: joint at the end of each bone, last frame.
let maxDifference = 0;
for (let b = 0; b < boneCount; b++) {
  const e = skeleton.bones[2 * b + 1];
  for (let c = 0; c < 3; c++) maxDifference = Math.max(maxDifference, Math.abs(joints[3 * e + c] - threeJoints[3 * b + c]));
}
if (maxDifference > 1e-6) throw new Error(`FK disagrees with three.js by ${maxDifference}`);

printTable('Forward kinematics', [
  {
    case: `body animation, ${frames} frames × ${boneCount} bones`,
    ours: `${fmtMs(ours)} (${((ours / frames) * 1000).toFixed(1)} µs/frame)`,
    reference: `${fmtMs(three)} (three.js Bone hierarchy)`,
    ratio: (ours / three).toFixed(2),
    note: `agree to ${maxDifference.toExponential(1)}`,
  },
]);
