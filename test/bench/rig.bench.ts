/**
 * Forward kinematics of the body's 394-frame animation (28 bones, three roots): sample each frame, compose
 * relative rotations parent to child, and place the joints — against three.js doing the same with a Bone
 * hierarchy (quaternion per bone, updateMatrixWorld) in the same process. Then the costs of building a rig by hand
 * (a joint placed by a click, a template fit, an IK solve); see the second table's comment.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Bone, BufferAttribute, BufferGeometry, DoubleSide, Matrix4, Mesh, MeshBasicMaterial, Quaternion, Raycaster, Vector3 } from 'three';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { volumeMidpoint, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { fitTemplate } from '../../workers/rig/template-rig.ts';
import { solveTwoBoneIk } from '../../workers/rig/two-bone-ik.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { body as bodyMarkersMesh, bodyMarkers } from '../unit/body-markers.ts';
import { seededRandom } from '../unit/seeded-random.ts';
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

// Building a rig by hand: what one click or one drag event costs on the course body (36,902 triangles). A joint
// placed by a click is the middle of the volume along the view ray (volumeMidpoint, every triangle once); three.js's
// Raycaster finding every hit of the same rays (no acceleration structure, as the app's mesh has none) is the
// reference. The template fit and a two-bone IK solve have no outside reference: their times say whether a click
// or a drag event stays well inside a frame.
const body = bodyMarkersMesh;
const rays: Vec3[] = [];
{
  const random = seededRandom(3);
  const box = boundingBox(body.positions);
  for (let i = 0; i < 50; i++) {
    rays.push([box.min[0] + random() * (box.max[0] - box.min[0]), box.min[1] + random() * (box.max[1] - box.min[1]), box.max[2] + 1]);
  }
}
const down: Vec3 = [0, 0, -1];
let placed = 0;
const ourRay = medianMs(
  () => {
    placed = 0;
    for (const origin of rays) if (volumeMidpoint(body, origin, down)) placed++;
  },
  5,
  1,
);
const geometry = new BufferGeometry();
geometry.setAttribute('position', new BufferAttribute(Float32Array.from(body.positions), 3));
geometry.setIndex(new BufferAttribute(Uint32Array.from(body.triangles), 1));
const threeMesh = new Mesh(geometry, new MeshBasicMaterial({ side: DoubleSide }));
const raycaster = new Raycaster();
let threeHit = 0;
const threeRay = medianMs(
  () => {
    threeHit = 0;
    for (const origin of rays) {
      raycaster.set(new Vector3(...origin), new Vector3(...down));
      if (raycaster.intersectObject(threeMesh, false).length > 0) threeHit++;
    }
  },
  5,
  1,
);
if (placed !== threeHit) throw new Error(`volumeMidpoint placed ${placed} joints where three.js hit the mesh ${threeHit} times`);

const markers = bodyMarkers();
let fitted = 0;
const fit = medianMs(
  () => {
    fitted = fitTemplate(body, 'humanoid', markers).names.length;
  },
  3,
  1,
);
let fingerBones = 0;
const fitFingers = medianMs(
  () => {
    fingerBones = fitTemplate(body, 'humanoid', markers, { fingers: true }).names.length;
  },
  3,
  1,
);

// IK on the body's own skeleton: the first bone with a parent and that parent, for 1,000 targets around its end joint.
const lower = Array.from(skeleton.parents).findIndex((p) => p >= 0);
const upper = skeleton.parents[lower];
const restRotations = new Float64Array(boneCount * 9);
for (let b = 0; b < boneCount; b++) restRotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * b);
const endJoint = skeleton.bones[2 * lower + 1];
const reach = Array.from({ length: 1000 }, (_, i): Vec3 => [
  skeleton.joints[3 * endJoint] + 0.02 * Math.cos(i),
  skeleton.joints[3 * endJoint + 1] + 0.02 * Math.sin(i),
  skeleton.joints[3 * endJoint + 2] + 0.01 * Math.sin(3 * i),
]);
const pole: Vec3 = [skeleton.joints[3 * endJoint], skeleton.joints[3 * endJoint + 1], skeleton.joints[3 * endJoint + 2] + 1];
const ik = medianMs(() => {
  for (const target of reach) solveTwoBoneIk({ skeleton, rotations: restRotations, upper, lower, target, pole });
});

printTable('Building a rig', [
  {
    case: `joint from a click: volume middle along ${rays.length} view rays, body (${body.triangles.length / 3} triangles)`,
    ours: `${fmtMs(ourRay / rays.length)} per ray`,
    reference: `${fmtMs(threeRay / rays.length)} per ray (three.js Raycaster, every hit)`,
    ratio: (ourRay / threeRay).toFixed(2),
    note: `both hit ${placed} of ${rays.length}`,
  },
  { case: `template fit, humanoid (${fitted} bones), body markers`, ours: fmtMs(fit), reference: '—', ratio: '—', note: 'one per Fit' },
  { case: `template fit with fingers (${fingerBones} bones)`, ours: fmtMs(fitFingers), reference: '—', ratio: '—', note: 'one per Fit' },
  {
    case: `two-bone IK, ${reach.length} targets`,
    ours: `${fmtMs(ik)} (${((ik / reach.length) * 1000).toFixed(1)} µs per solve)`,
    reference: '—',
    ratio: '—',
    note: 'one solve per drag event',
  },
]);
