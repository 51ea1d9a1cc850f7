/**
 * Splitting a bone (workers/rig/bone-edits.ts splitBone), side names (workers/rig/side-names.ts) and mirroring
 * (workers/rig/mirror-bones.ts). A split applies as one undo step, puts the new joint at its place along the bone,
 * keeps every bone's posed world transform at every frame (the second half's equals the old bone's), keeps the weight
 * column on the first half (the second gets 0, rows keep their sums) and the children on the second half, names it
 * `NAME.001`, and marks the binding stale — on the context-aware body and on CesiumMan (its own glTF hierarchy). Side
 * names in every style both ways. Mirroring a 3-bone arm chain gives joints mirrored within 1e-12 and mirrored names
 * under the spine, names that already say a side kept (even on the other side); a second mirror is refused;
 * mirroredPose twice is the identity, and the posed mirrored skeleton's joints are the mirror of the original's posed
 * joints (forward kinematics, 1e-9).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitBone } from '../../workers/rig/bone-edits.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { limbRoot, mirrorBones, mirroredPose, symmetryPlane } from '../../workers/rig/mirror-bones.ts';
import { mirroredName, sideOfName, sideStyleOf, withSide } from '../../workers/rig/side-names.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { boneCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { appliedEdit, bodyDocument, fullCesiumMan, worldTransforms } from './full-documents.ts';
import { quaternionMatrix } from './rotation-matrix.ts';
import { seededRandom } from './seeded-random.ts';

function assertSplit(doc: SceneDocument, bone: number, at: number, what: string): SceneDocument {
  const B = boneCountOf(doc);
  const J = doc.skeleton.joints.length / 3;
  const children = Array.from(doc.skeleton.parents.keys()).filter((b) => doc.skeleton.parents[b] === bone);
  const after = appliedEdit(doc, (d) => splitBone(d, bone, at));
  assert.equal(boneCountOf(after), B + 1, `${what}: one bone more`);
  assert.equal(after.bindingStale, true, `${what}: the binding is stale`);
  const [s, e] = [doc.skeleton.bones[2 * bone], doc.skeleton.bones[2 * bone + 1]];
  const m = after.skeleton.bones[2 * bone + 1];
  assert.equal(m, J, `${what}: the first half ends at the new joint`);
  for (let k = 0; k < 3; k++) {
    const expected = doc.skeleton.joints[3 * s + k] + at * (doc.skeleton.joints[3 * e + k] - doc.skeleton.joints[3 * s + k]);
    assert.ok(Math.abs(after.skeleton.joints[3 * m + k] - expected) < 1e-12, `${what}: the new joint lies ${at} along the bone`);
  }
  assert.deepStrictEqual(
    [after.skeleton.bones[2 * B], after.skeleton.bones[2 * B + 1]],
    [J, e],
    `${what}: the second half reaches the old end`,
  );
  assert.equal(after.skeleton.parents[B], bone, `${what}: the second half hangs from the first`);
  for (const c of children) assert.equal(after.skeleton.parents[c], B, `${what}: child ${c} is on the second half`);
  for (let b = 0; b < B; b++)
    if (b !== bone && !children.includes(b))
      assert.equal(after.skeleton.parents[b], doc.skeleton.parents[b], `${what}: bone ${b} keeps its parent`);
  // Weights: the old columns as they were, the new one 0.
  const V = doc.weights.rows;
  for (let v = 0; v < V; v++) {
    for (let b = 0; b < B; b++)
      if (after.weights.data[v * (B + 1) + b] !== doc.weights.data[v * B + b]) assert.fail(`${what}: vertex ${v} bone ${b} weight changed`);
    if (after.weights.data[v * (B + 1) + B] !== 0) assert.fail(`${what}: vertex ${v} has weight on the second half`);
  }
  // Poses: every bone's world transform kept, the second half moving as the old bone.
  const before = worldTransforms(doc, doc.poses!);
  const now = worldTransforms(after, after.poses!);
  for (let f = 0; f < before.length; f++)
    for (let b = 0; b <= B; b++)
      for (let k = 0; k < 12; k++) {
        const d = Math.abs(now[f][12 * b + k] - before[f][12 * (b === B ? bone : b) + k]);
        if (!(d <= 1e-9)) assert.fail(`${what}: frame ${f} bone ${b} entry ${k} moved by ${d}`);
      }
  return after;
}

test('splitting a bone of the context-aware body keeps weights, children, handles and every posed transform', () => {
  const doc = bodyDocument();
  const bone = Array.from(doc.skeleton.parents.keys()).find((b) => doc.skeleton.parents.some((p) => p === b))!;
  const after = assertSplit(doc, bone, 0.3, 'body');
  assert.deepStrictEqual(after.handles, doc.handles, 'handles stay on the first half');
  assert.equal(after.boneNames, undefined, 'a skeleton without names gets none');
  assert.throws(() => splitBone(doc, bone, 1), /strictly between its start \(0\) and its end \(1\), not at 1/);
  assert.throws(() => splitBone(doc, boneCountOf(doc), 0.5), /bone \d+ is out of range/);
});

test('splitting a CesiumMan bone keeps its glTF hierarchy and names the second half NAME.001', async () => {
  const doc = await fullCesiumMan();
  const bone = Array.from(doc.skeleton.parents.keys()).find((b) => doc.skeleton.parents.filter((p) => p === b).length > 1)!;
  assert.ok(bone !== undefined, 'CesiumMan has a bone with several children');
  const after = assertSplit(doc, bone, 0.5, 'CesiumMan');
  const name = doc.boneNames![bone];
  assert.equal(after.boneNames![boneCountOf(doc)], `${name}.001`, 'the second half is NAME.001');
  assert.equal(after.boneNames![bone], name, 'the first half keeps the name');
  const again = appliedEdit(after, (d) => splitBone(d, bone));
  assert.equal(again.boneNames![boneCountOf(after)], `${name}.002`, 'a second split takes the next free suffix');
});

test('side names in every style, both ways', () => {
  const cases: [string, string, 'L' | 'R'][] = [
    ['arm.L', 'arm.R', 'L'],
    ['arm_l', 'arm_r', 'L'],
    ['arm_R', 'arm_L', 'R'],
    ['LeftArm', 'RightArm', 'L'],
    ['mixamorig:RightHand', 'mixamorig:LeftHand', 'R'],
    ['L_arm', 'R_arm', 'L'],
    ['r_foot', 'l_foot', 'R'],
    ['left_arm', 'right_arm', 'L'],
    ['Leg Left', 'Leg Right', 'L'],
    ['thighR', 'thighL', 'R'],
    ['LArm', 'RArm', 'L'],
  ];
  for (const [name, other, side] of cases) {
    assert.equal(mirroredName(name), other, `${name} mirrors to ${other}`);
    assert.equal(mirroredName(other), name, `${other} mirrors back to ${name}`);
    assert.equal(sideOfName(name), side, `${name} is on side ${side}`);
    assert.equal(sideOfName(other), side === 'L' ? 'R' : 'L', `${other} is on the other side`);
    assert.equal(withSide(name, side), name, `${name} already says side ${side}`);
    assert.equal(withSide(name, side === 'L' ? 'R' : 'L'), other, `${name} put on the other side is ${other}`);
  }
  for (const name of ['spine', 'Lower', 'Root', 'pelvis', 'bone 3']) {
    assert.equal(mirroredName(name), null, `${name} has no side`);
    assert.equal(sideOfName(name), null, `${name} says no side`);
  }
  const styles: [Parameters<typeof withSide>[2], string, string][] = [
    ['.L', 'arm.L', 'arm.R'],
    ['_L', 'arm_L', 'arm_R'],
    ['_l', 'arm_l', 'arm_r'],
    ['L_', 'L_arm', 'R_arm'],
    ['l_', 'l_arm', 'r_arm'],
    ['Left', 'LeftArm', 'RightArm'],
    ['left_', 'left_arm', 'right_arm'],
  ];
  for (const [style, left, right] of styles) {
    assert.equal(withSide('arm', 'L', style), left, `arm on the left in style ${style}`);
    assert.equal(withSide('arm', 'R', style), right, `arm on the right in style ${style}`);
    assert.equal(sideStyleOf(left), style, `${left} is written in style ${style}`);
    assert.equal(mirroredName(left), right, `${left} mirrors to ${right} in its own style`);
  }
  assert.equal(withSide('arm', 'L'), 'arm.L', 'the default style is .L');
});

/**
 * A box body symmetric about x = `centre` with a spine (bone 0, on the plane) and a 3-bone arm (1, 2, 3) on +x, and
 * bone-distance weights.
 */
function armDocument(centre: number, names: string[] | null): SceneDocument {
  const box: number[] = [];
  for (const x of [-1, 1]) for (const y of [0, 2]) for (const z of [-0.3, 0.3]) box.push(centre + x, y, z);
  const mesh = { positions: Float64Array.from(box), triangles: Uint32Array.of(0, 1, 2, 1, 3, 2, 4, 6, 5, 5, 6, 7) };
  const joints = Float64Array.of(0, 0, 0, 0, 1.5, 0, 0.2, 1.5, 0.05, 0.55, 1.45, -0.1, 0.8, 1.3, 0.02).map((v, i) =>
    i % 3 === 0 ? v + centre : v,
  );
  const skeleton = buildSkeleton({ joints, bones: Uint32Array.of(0, 1, 1, 2, 2, 3, 3, 4) }, 'arm.tgf');
  return withDerived({
    name: 'box.obj',
    meshFiles: ['box.obj'],
    mesh,
    skeletonFile: 'arm.tgf',
    skeleton,
    weights: boneDistanceWeights(mesh.positions, skeleton),
    weightsSource: 'bone distance',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    ...(names ? { boneNames: names } : {}),
  });
}

/** A random rotation matrix (row-major) from a random unit quaternion. */
function randomRotation(random: () => number): number[] {
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...q);
  return quaternionMatrix(q.map((c) => c / n));
}

test('mirroring a 3-bone arm chain gives mirrored joints within 1e-12 and mirrored names under the spine', () => {
  for (const centre of [0, 4.25]) {
    const doc = armDocument(centre, ['spine', 'upperarm', 'forearm', 'hand']);
    assert.equal(symmetryPlane(doc), centre, 'the default plane is the middle of the mesh');
    const after = appliedEdit(doc, (d) => mirrorBones(d, [1]));
    assert.equal(boneCountOf(after), 7, `centre ${centre}: three copies`);
    assert.equal(after.bindingStale, true, 'the binding is stale');
    assert.deepStrictEqual(after.boneNames, ['spine', 'upperarm.L', 'forearm.L', 'hand.L', 'upperarm.R', 'forearm.R', 'hand.R'], 'names');
    assert.deepStrictEqual(Array.from(after.skeleton.parents), [-1, 0, 1, 2, 0, 4, 5], 'the copies hang from the spine and each other');
    const { joints, bones } = after.skeleton;
    for (let k = 0; k < 3; k++)
      for (const end of [0, 1]) {
        const o = bones[2 * (1 + k) + end];
        const c = bones[2 * (4 + k) + end];
        const expected = [2 * centre - joints[3 * o], joints[3 * o + 1], joints[3 * o + 2]];
        for (let i = 0; i < 3; i++)
          assert.ok(
            Math.abs(joints[3 * c + i] - expected[i]) <= 1e-12,
            `centre ${centre}: copy ${4 + k}'s joint ${end} mirrors bone ${1 + k}'s`,
          );
      }
    assert.equal(bones[2 * 4], bones[2 * 1], 'the copied upper arm starts where the spine ends, as the original does');
    for (let v = 0; v < after.weights.rows; v++) {
      let sum = 0;
      for (let b = 0; b < 7; b++) sum += after.weights.data[7 * v + b];
      assert.ok(Math.abs(sum - 1) < 1e-12, `vertex ${v}'s weights still sum to 1`);
    }
    assert.throws(
      () => mirrorBones(after, [1]),
      /mirroring would name both bone 4 \(upperarm\.R\) and the mirror of upperarm\.L “upperarm\.R”/,
    );
    assert.throws(() => mirrorBones(doc, [0]), /spine lies on the mirror plane/);
    // Up the parents on the bone's side: the upper arm, starting on the plane (the spine's end), is the arm's first
    // bone, so any bone of the arm mirrors the whole arm; the spine, on the plane, is no limb's.
    for (const [bone, root] of [
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 1],
    ])
      assert.equal(limbRoot(doc, bone, 0), root, `centre ${centre}: bone ${bone}'s limb starts at bone ${root}`);
    // Mirror on the hand: the copies are the whole arm's, the copied upper arm hanging from the spine as the original.
    const fromHand = appliedEdit(doc, (d) => mirrorBones(d, [limbRoot(d, 3, 0)]));
    assert.deepStrictEqual(Array.from(fromHand.skeleton.parents), [-1, 0, 1, 2, 0, 4, 5], `centre ${centre}: mirrored from the hand`);
  }
  // Without names: the skeleton's bones get `.L`, the copies `.R`; a chain named in another style keeps it.
  const unnamed = appliedEdit(armDocument(0, null), (d) => mirrorBones(d, [2]));
  assert.deepStrictEqual(unnamed.boneNames, ['bone 0', 'bone 1', 'bone 2.L', 'bone 3.L', 'bone 2.R', 'bone 3.R'], 'default names');
  assert.deepStrictEqual(Array.from(unnamed.skeleton.parents).slice(4), [1, 4], 'the copied forearm hangs from the upper arm (no partner)');
  const styled = appliedEdit(armDocument(0, ['spine', 'upperarm_l', 'forearm', 'hand']), (d) => mirrorBones(d, [2]));
  assert.deepStrictEqual(styled.boneNames!.slice(2), ['forearm_l', 'hand_l', 'forearm_r', 'hand_r'], 'the names keep the skeleton’s style');
  assert.deepStrictEqual(Array.from(styled.skeleton.parents).slice(4), [1, 4], 'upperarm_l has no partner: the copy hangs from it');
  // A chain named for the right side but lying on the left (+x) keeps its names; the copies take the other side's.
  const wrongSide = appliedEdit(armDocument(0, ['spine', 'upperarm.R', 'forearm_r', 'hand']), (d) => mirrorBones(d, [1]));
  assert.deepStrictEqual(
    wrongSide.boneNames,
    ['spine', 'upperarm.R', 'forearm_r', 'hand.L', 'upperarm.L', 'forearm_l', 'hand.R'],
    'names that say a side keep it; a name without one gets the side it lies on',
  );
});

test('mirroredPose twice is the identity, and the posed mirrored skeleton is the mirror of the posed original', () => {
  const doc = appliedEdit(armDocument(1.5, ['spine', 'upperarm', 'forearm', 'hand']), (d) => mirrorBones(d, [1]));
  const B = boneCountOf(doc);
  const random = seededRandom(41);
  const { skeleton } = doc;
  const partner = [0, 4, 5, 6, 1, 2, 3];
  for (let trial = 0; trial < 20; trial++) {
    const rotations = new Float64Array(9 * B);
    for (let b = 0; b < B; b++) rotations.set(randomRotation(random), 9 * b);
    const mirrored = mirroredPose(doc, rotations);
    assert.deepStrictEqual(mirroredPose(doc, mirrored), rotations, `trial ${trial}: mirroring twice gives the pose back`);
    const posed = (r: Float64Array): Float64Array => {
      const transforms = new Float64Array(12 * B);
      forwardKinematics(skeleton, r, transforms);
      const out = new Float64Array(skeleton.joints.length);
      posedJointPositions(skeleton, transforms, out);
      return out;
    };
    const original = posed(rotations);
    const image = posed(mirrored);
    for (let b = 0; b < B; b++)
      for (const end of [0, 1]) {
        const j = skeleton.bones[2 * b + end];
        const p = skeleton.bones[2 * partner[b] + end];
        const expected = [2 * 1.5 - original[3 * p], original[3 * p + 1], original[3 * p + 2]];
        for (let i = 0; i < 3; i++)
          assert.ok(
            Math.abs(image[3 * j + i] - expected[i]) < 1e-9,
            `trial ${trial}: bone ${b}'s joint ${end} is the mirror of bone ${partner[b]}'s`,
          );
      }
  }
});
