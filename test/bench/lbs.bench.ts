/**
 * CPU linear blend skinning of the 131k-vertex tube (make_tube.py 128 1024 32), 4 influences, one pose:
 * ours against three.js's per-vertex SkinnedMesh.applyBoneTransform in the same process, and against Blender's
 * armature deformation of the same tube (26.3 ms, ../shared/ref/README.md, measured on this kind of machine).
 */
import { readFileSync } from 'node:fs';
import { Bone, BufferAttribute, BufferGeometry, Matrix4, Skeleton as ThreeSkeleton, SkinnedMesh, Vector3 } from 'three';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { fmtMs, medianMs, printTable, tube } from './bench-util.ts';

const BLENDER_LINEAR_MS = 26.3;
const files = tube(128, 1024, 32);
const { mesh } = readObj(readFileSync(files.obj, 'utf8'), 'tube.obj');
const skeleton = buildSkeleton(readTgf(readFileSync(files.tgf, 'utf8'), 'tube.tgf'), 'tube.tgf');
const boneCount = skeleton.parents.length;
const vertexCount = mesh.positions.length / 3;
const influences = influencesFromWeights(boneDistanceWeights(mesh.positions, skeleton), 4);

// Each bone bends 4° about x relative to its parent: the tube curls by 128° in all.
const rotations = new Float64Array(boneCount * 9);
const angle = (4 * Math.PI) / 180;
for (let b = 0; b < boneCount; b++)
  rotations.set([1, 0, 0, 0, Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle)], b * 9);
const transforms = new Float64Array(boneCount * 12);
forwardKinematics(skeleton, rotations, transforms);

const posed = new Float64Array(mesh.positions.length);
const ours = medianMs(() => linearBlendSkinning(mesh.positions, influences, transforms, posed), 15, 3);
const restNormals = vertexNormals(mesh.positions, mesh.triangles);
const posedNormals = new Float64Array(restNormals.length);
const oursWithNormals = medianMs(
  () => linearBlendSkinning(mesh.positions, influences, transforms, posed, restNormals, posedNormals),
  15,
  3,
);

// three.js: bone matrices are our rest→posed transforms (identity bind), 4 influences per vertex.
const geometry = new BufferGeometry();
geometry.setAttribute('position', new BufferAttribute(new Float32Array(mesh.positions), 3));
const skinIndex = new Uint16Array(vertexCount * 4);
const skinWeight = new Float32Array(vertexCount * 4);
for (let v = 0; v < vertexCount; v++) {
  for (let i = 0; i < Math.min(4, influences.stride); i++) {
    skinIndex[4 * v + i] = influences.bones[v * influences.stride + i];
    skinWeight[4 * v + i] = influences.weights[v * influences.stride + i];
  }
}
geometry.setAttribute('skinIndex', new BufferAttribute(skinIndex, 4));
geometry.setAttribute('skinWeight', new BufferAttribute(skinWeight, 4));
const bones = Array.from({ length: boneCount }, (_, b) => {
  const bone = new Bone();
  const t = transforms.subarray(b * 12, b * 12 + 12);
  bone.matrixWorld.set(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], 0, 0, 0, 1);
  return bone;
});
const threeSkeleton = new ThreeSkeleton(
  bones,
  bones.map(() => new Matrix4()),
);
const skinned = new SkinnedMesh(geometry);
skinned.bind(threeSkeleton, new Matrix4());
threeSkeleton.update();
const v = new Vector3();
const threePosed = new Float32Array(mesh.positions.length);
const three = medianMs(
  () => {
    for (let i = 0; i < vertexCount; i++) {
      skinned.applyBoneTransform(i, v.fromArray(mesh.positions, 3 * i)).toArray(threePosed, 3 * i);
    }
  },
  7,
  2,
);

let maxDifference = 0;
for (let i = 0; i < posed.length; i++) maxDifference = Math.max(maxDifference, Math.abs(posed[i] - threePosed[i]));
if (maxDifference > 1e-4) throw new Error(`LBS disagrees with three.js by ${maxDifference}`);

printTable('CPU linear blend skinning', [
  {
    case: `tube ${vertexCount} vertices, ${boneCount} bones, 4 influences`,
    ours: fmtMs(ours),
    reference: `${fmtMs(three)} (three.js applyBoneTransform)`,
    ratio: (ours / three).toFixed(2),
    note: `agree to ${maxDifference.toExponential(1)}`,
  },
  {
    case: 'same, positions only',
    ours: fmtMs(ours),
    reference: `${BLENDER_LINEAR_MS} ms (Blender, ref README)`,
    ratio: (ours / BLENDER_LINEAR_MS).toFixed(2),
    note: 'aim ≤ 10 ms',
  },
  {
    case: 'same, positions and normals',
    ours: fmtMs(oursWithNormals),
    reference: `${BLENDER_LINEAR_MS} ms (Blender, ref README)`,
    ratio: (oursWithNormals / BLENDER_LINEAR_MS).toFixed(2),
  },
]);
