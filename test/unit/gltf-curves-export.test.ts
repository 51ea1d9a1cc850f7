/**
 * Curves as they are on the fresh glTF export: a glTF clip used on the imported mesh (exportGltf, no source file to
 * edit in place) is written with the source's interpolation, key times and tangents wherever one channel per joint
 * says it exactly, so the written file poses as the source at its keys AND between them. Both files are evaluated by
 * the tests' own Appendix C evaluator (gltf-appendix-c.ts: samplers, node graph, glTF skinning), for the STEP and
 * LINEAR clip by glTF-Transform's node matrices too (gltf-skinning-reference.ts), and by three.js's GLTFLoader and
 * AnimationMixer, a player that knows nothing of our code.
 *
 * The generated asset makes the map from the source node's rotation to the exported joint's non-trivial: a Z-up
 * armature node (rotated, scaled 2) above the joints, a rest rotation on every joint node, a fixed non-joint node
 * between two joints, and inverse bind matrices that put the mesh in a bind space of its own (IBM_j = G_j⁻¹ · B).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Document, WebIO, type Accessor, type Node as GltfNode } from '@gltf-transform/core';
import { exportGltf, type GltfClip } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { fileKeyTimes, fileSkinned, mul, normalize, scalars, trs, worldMatrices, type Mat, type Vec } from './gltf-appendix-c.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';
import { threePlayer } from './three-player.ts';
import { axisAngle, gltfBuilder } from './gltf-build.ts';

/** Inverse of a 4×4 affine matrix (column-major), by cofactors. */
function invertAffine(m: Mat): Mat {
  const a = [
    [m[0], m[4], m[8]],
    [m[1], m[5], m[9]],
    [m[2], m[6], m[10]],
  ];
  const cof = (r: number, c: number): number => {
    const rows = [0, 1, 2].filter((i) => i !== r);
    const cols = [0, 1, 2].filter((i) => i !== c);
    return (a[rows[0]][cols[0]] * a[rows[1]][cols[1]] - a[rows[0]][cols[1]] * a[rows[1]][cols[0]]) * ((r + c) % 2 === 0 ? 1 : -1);
  };
  const det = a[0][0] * cof(0, 0) + a[0][1] * cof(0, 1) + a[0][2] * cof(0, 2);
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[4 * c + r] = cof(c, r) / det;
  for (let r = 0; r < 3; r++) out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
  out[15] = 1;
  return out;
}

const apply = (m: Mat, p: Vec): Vec => [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);

/**
 * Armature (rotated −90° about x, scale 2) → pelvis → spine → offset (not a joint) → chest → neck → head, each joint
 * with a rest rotation; a tube of quads along the chain skinned to neighbouring joints. Clips:
 * "cubic"          CUBICSPLINE rotations on pelvis, spine, chest and neck at uneven keys of their own, a CUBICSPLINE
 *                  translation on the pelvis (root) and one on the neck;
 * "step linear"    STEP rotation on the spine, LINEAR rotation on the chest with keys on alternating hemispheres, LINEAR
 *                  translation on the pelvis, STEP translation on the neck;
 * "between joints" CUBICSPLINE rotation on the offset node between spine and chest (the chest's motion, which no
 *                  single channel of the chest says), CUBICSPLINE spine, LINEAR head.
 */
async function armatureAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const { acc, channel } = gltfBuilder(doc);
  const armature = doc
    .createNode('armature')
    .setTranslation([0.1, 0, 0.3])
    .setRotation(axisAngle([1, 0, 0], -Math.PI / 2) as [number, number, number, number])
    .setScale([2, 2, 2]);
  const node = (name: string, t: Vec, axis: Vec, angle: number): GltfNode =>
    doc
      .createNode(name)
      .setTranslation(t as [number, number, number])
      .setRotation(axisAngle(axis, angle) as [number, number, number, number]);
  const pelvis = node('pelvis', [0, 0.1, 0.5], [0, 0, 1], 0.7);
  const spine = node('spine', [0.05, 0.4, 0], [1, 0.3, 0], -0.5);
  const offset = node('offset', [0, 0.2, 0.02], [0.2, 1, 0], 1.1);
  const chest = node('chest', [0, 0.15, 0], [0, 0.4, 1], 0.9);
  const neck = node('neck', [0.02, 0.3, 0], [1, 0, 0.2], 0.4);
  const head = node('head', [0, 0.2, 0.03], [0.3, 1, 0.5], -1.3);
  armature.addChild(pelvis);
  pelvis.addChild(spine);
  spine.addChild(offset);
  offset.addChild(chest);
  chest.addChild(neck);
  neck.addChild(head);
  const joints = [pelvis, spine, chest, neck, head];
  doc.getRoot().setDefaultScene(doc.createScene('armature').addChild(armature));

  // Bind space B: the mesh is stored in it; IBM_j = G_j⁻¹ · B puts it where the rest pose wants it.
  const bind = trs([0.2, -0.1, 0.05], axisAngle([0, 1, 0], 0.4), [1, 1, 1]);
  const toBind = invertAffine(bind);
  const world = worldMatrices(doc, null, 0);
  const origins = joints.map((j) => apply(world.get(j)!, [0, 0, 0]));
  // The head's tip: a step beyond the head along the neck → head direction.
  const tip = origins[4].map((x, i) => x + 0.6 * (x - origins[3][i]));
  const stations = [...origins, tip];
  const positions: number[] = [];
  const jointIds: number[] = [];
  const weights: number[] = [];
  const ring: Vec[] = [
    [0.12, 0, 0],
    [0, 0.12, 0],
    [-0.12, 0, 0],
    [0, 0, 0.12],
  ];
  const rows = 4;
  for (let k = 0; k < joints.length; k++) {
    for (let i = 0; i < rows; i++) {
      const s = i / rows;
      const centre = stations[k].map((x, c) => x + s * (stations[k + 1][c] - x));
      for (const o of ring) {
        positions.push(
          ...apply(
            toBind,
            centre.map((x, c) => x + o[c]),
          ),
        );
        const next = Math.min(k + 1, joints.length - 1);
        const share = next === k ? 0 : 0.5 * s;
        jointIds.push(k, share > 0 ? next : 0, 0, 0);
        weights.push(1 - share, share, 0, 0);
      }
    }
  }
  const count = positions.length / 3;
  const indices: number[] = [];
  for (let r = 0; r + 1 < count / 4; r++)
    for (let q = 0; q < 4; q++) {
      const a = 4 * r + q;
      const b = 4 * r + ((q + 1) % 4);
      indices.push(a, b, b + 4, a, b + 4, a + 4);
    }
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from(positions)))
    .setAttribute('JOINTS_0', acc('VEC4', Uint16Array.from(jointIds)))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.from(weights)))
    .setIndices(acc('SCALAR', Uint16Array.from(indices)));
  const ibm: number[] = [];
  for (const joint of joints) ibm.push(...mul(invertAffine(world.get(joint)!), bind));
  const skin = doc
    .createSkin('armature')
    .setInverseBindMatrices(acc('MAT4', Float32Array.from(ibm)))
    .setSkeleton(armature);
  for (const joint of joints) skin.addJoint(joint);
  doc
    .getRoot()
    .getDefaultScene()!
    .addChild(doc.createNode('body').setMesh(doc.createMesh('body').addPrimitive(prim)).setSkin(skin));

  /** CUBICSPLINE rotation keys: unit values about a turning axis, tangents that bend the curve off the SLERP arc. */
  const cubicRotation = (times: number[], axis: Vec, amplitude: number, phase: number): Vec[] =>
    times.flatMap((t, k) => [
      [0.4 * Math.sin(k + phase), -0.3, 0.2 * Math.cos(2 * k), 0.1],
      axisAngle([axis[0] + 0.2 * Math.sin(3 * t), axis[1], axis[2] + 0.1 * k], amplitude * Math.sin(2.3 * t + phase)),
      [-0.2, 0.35 * Math.cos(k + phase), 0.25, -0.15 * k],
    ]);
  const cubic = doc.createAnimation('cubic');
  const rest = (n: GltfNode): Vec => [...n.getRotation()];
  const turned = (n: GltfNode, values: Vec[]): Vec[] =>
    values.map((v, i) => (i % 3 === 1 ? normalize(mulQuat(rest(n), v)) : mulQuat(rest(n), v)));
  const pelvisKeys = [0, 0.35, 0.8, 1.3];
  channel(cubic, pelvis, 'rotation', 'CUBICSPLINE', pelvisKeys, turned(pelvis, cubicRotation(pelvisKeys, [0.3, 1, 0.2], 0.9, 0)));
  channel(
    cubic,
    pelvis,
    'translation',
    'CUBICSPLINE',
    [0, 0.5, 0.9, 1.3],
    [0, 0.5, 0.9, 1.3].flatMap((t, k) => [
      [0.3 * Math.cos(k), 0.2, -0.4 * k],
      [0.1 * Math.sin(4 * t), 0.1 + 0.05 * k, 0.5 + 0.2 * Math.sin(3 * t)],
      [-0.2 * k, 0.5, 0.3],
    ]),
  );
  const spineKeys = [0.1, 0.6, 1.1];
  channel(cubic, spine, 'rotation', 'CUBICSPLINE', spineKeys, turned(spine, cubicRotation(spineKeys, [1, 0.2, 0.3], 1.2, 0.5)));
  const chestKeys = [0, 0.2, 0.45, 0.7, 1.0, 1.3];
  channel(cubic, chest, 'rotation', 'CUBICSPLINE', chestKeys, turned(chest, cubicRotation(chestKeys, [0.2, 0.1, 1], 1.5, 1)));
  channel(cubic, neck, 'rotation', 'CUBICSPLINE', [0, 1.3], turned(neck, cubicRotation([0, 1.3], [0.5, 1, 0], 1.0, 0.2)));
  channel(
    cubic,
    neck,
    'translation',
    'CUBICSPLINE',
    [0.2, 0.9],
    [
      [0.4, 0, -0.3],
      [0.02, 0.3, 0],
      [0.1, 0.2, 0.3],
      [-0.5, 0.1, 0.2],
      [0.1, 0.35, 0.05],
      [0.3, -0.2, 0],
    ],
  );

  const stepLinear = doc.createAnimation('step linear');
  channel(
    stepLinear,
    spine,
    'rotation',
    'STEP',
    [0, 0.25, 0.6, 1.0],
    [0.3, 1.1, -0.6, 0.8].map((angle) => mulQuat(rest(spine), axisAngle([0, 0, 1], angle))),
  );
  const chestLinear = Array.from({ length: 13 }, (_, k) => k / 10);
  channel(
    stepLinear,
    chest,
    'rotation',
    'LINEAR',
    chestLinear,
    chestLinear.map((t, k) => mulQuat(rest(chest), axisAngle([0.2, 1, 0.3], 2.2 * Math.sin(5 * t))).map((x) => (k % 2 === 0 ? x : -x))),
  );
  channel(
    stepLinear,
    pelvis,
    'translation',
    'LINEAR',
    [0, 0.5, 1],
    [
      [0, 0.1, 0.5],
      [0.2, 0.15, 0.45],
      [-0.1, 0, 0.6],
    ],
  );
  channel(
    stepLinear,
    neck,
    'translation',
    'STEP',
    [0, 0.4, 0.9],
    [
      [0.02, 0.3, 0],
      [0.05, 0.32, 0.04],
      [0, 0.28, -0.03],
    ],
  );

  const between = doc.createAnimation('between joints');
  channel(between, offset, 'rotation', 'CUBICSPLINE', [0, 0.5, 1], turned(offset, cubicRotation([0, 0.5, 1], [1, 0, 0.4], 1.1, 0.3)));
  channel(between, spine, 'rotation', 'CUBICSPLINE', [0, 0.7, 1], turned(spine, cubicRotation([0, 0.7, 1], [0, 1, 0.2], 0.8, 0.1)));
  channel(
    between,
    head,
    'rotation',
    'LINEAR',
    [0.2, 0.6, 1],
    [0.4, -0.9, 0.6].map((angle) => mulQuat(rest(head), axisAngle([1, 0.5, 0], angle))),
  );
  return new WebIO().writeBinary(doc);
}

/** Hamilton product a · b (x y z w). */
function mulQuat(a: Vec, b: Vec): Vec {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** Times to compare at: every key of the clip, and `between` evenly spaced times inside each gap. */
function sampleTimes(keys: number[], between: number): { atKeys: number[]; inside: number[] } {
  const inside: number[] = [];
  for (let k = 0; k + 1 < keys.length; k++)
    for (let i = 1; i <= between; i++) inside.push(keys[k] + (i / (between + 1)) * (keys[k + 1] - keys[k]));
  return { atKeys: keys, inside };
}

/** Largest posed-vertex distance between the two files over the times, as a fraction of the diagonal. */
function worstOver(source: Document, written: Document, a: number, times: number[], diagonal: number): number {
  let worst = 0;
  for (const t of times) worst = Math.max(worst, maxDistance(fileSkinned(written, a, t), fileSkinned(source, a, t)) / diagonal);
  return worst;
}

/** "<node> <path> <interpolation>" of every channel of animation `a`, with the channel's key times. */
function channelsOf(doc: Document, a: number): Map<string, { interpolation: string; times: number[] }> {
  const out = new Map<string, { interpolation: string; times: number[] }>();
  for (const c of doc.getRoot().listAnimations()[a].listChannels())
    out.set(`${c.getTargetNode()!.getName()} ${c.getTargetPath()}`, {
      interpolation: c.getSampler()!.getInterpolation(),
      times: scalars(c.getSampler()!.getInput()!),
    });
  return out;
}

const BETWEEN = 15;

test('fresh export writes CUBICSPLINE, STEP and LINEAR joint curves as they are: the file poses as the source at and between keys (1e-6 of the diagonal)', async () => {
  const bytes = await armatureAsset();
  await assertValidGltf(bytes, 'armature.glb');
  const source = await new WebIO().readBinary(bytes);
  const rig = await importGltf(bytes, 'armature.glb');
  assert.deepEqual(rig.boneNames, ['pelvis', 'spine', 'chest', 'neck', 'head']);
  const out = await exportGltf({ ...rig }, 'armature-fresh.glb');
  await assertValidGltf(out.bytes, 'armature-fresh.glb');
  const written = await new WebIO().readBinary(out.bytes);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;

  const sourceChannels = (a: number): Map<string, { interpolation: string; times: number[] }> => channelsOf(source, a);
  for (const [a, name] of [
    [0, 'cubic'],
    [1, 'step linear'],
  ] as const) {
    assert.equal(rig.clips[a].name, name);
    // Every source channel on a joint is written with its own interpolation and its own key times.
    const exported = channelsOf(written, a);
    for (const [target, channel] of sourceChannels(a)) {
      const got = exported.get(target);
      assert.ok(got, `${name}: ${target} written`);
      assert.equal(got.interpolation, channel.interpolation, `${name}: ${target} interpolation`);
      assert.deepEqual(got.times, channel.times, `${name}: ${target} key times`);
    }
    if (a === 0)
      assert.deepEqual(
        [...exported].filter(([, c]) => c.interpolation === 'CUBICSPLINE').map(([target]) => target),
        ['pelvis rotation', 'spine rotation', 'chest rotation', 'neck rotation', 'pelvis translation', 'neck translation'],
        'the CUBICSPLINE samplers written',
      );
    assert.deepEqual(fileKeyTimes(written, a), fileKeyTimes(source, a), `${name}: the clip's key times`);
    const { atKeys, inside } = sampleTimes(fileKeyTimes(source, a), BETWEEN);
    const keys = worstOver(source, written, a, atKeys, diagonal);
    const gaps = worstOver(source, written, a, inside, diagonal);
    // Before the first key and after the last, every channel holds its end value.
    const outside = worstOver(source, written, a, [-0.5, atKeys[atKeys.length - 1] + 0.7], diagonal);
    console.log(
      `${name}: ${atKeys.length} keys, ${inside.length} times between: posed mesh off by ${keys.toExponential(2)} at keys, ${gaps.toExponential(2)} between, ${outside.toExponential(2)} outside (of the diagonal)`,
    );
    assert.ok(keys <= 1e-6, `${name}: off by ${keys} at a key`);
    assert.ok(gaps <= 1e-6, `${name}: off by ${gaps} between keys`);
    assert.ok(outside <= 1e-6, `${name}: off by ${outside} outside the keys`);
  }
  // The chest's LINEAR keys, stored on alternating hemispheres, are written on one (SLERP poses them alike).
  const chestKeys = (doc: Document): Accessor =>
    doc
      .getRoot()
      .listAnimations()[1]
      .listChannels()
      .find((c) => c.getTargetNode()!.getName() === 'chest' && c.getTargetPath() === 'rotation')!
      .getSampler()!
      .getOutput()!;
  const dots = (keys: Accessor): number[] =>
    Array.from({ length: keys.getCount() - 1 }, (_, k) => {
      const [p, q] = [keys.getElement(k, []), keys.getElement(k + 1, [])];
      return p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    });
  assert.ok(
    dots(chestKeys(source)).every((d) => d < 0),
    'the source alternates hemispheres',
  );
  assert.ok(
    dots(chestKeys(written)).every((d) => d > 0),
    'the written keys are on one hemisphere',
  );
  // glTF-Transform's own node matrices (LINEAR and STEP only) agree on the STEP and LINEAR clip.
  let second = 0;
  for (const t of sampleTimes(fileKeyTimes(source, 1), 5).inside)
    second = Math.max(second, maxDistance(gltfPosedPositions(written, 1, t), gltfPosedPositions(source, 1, t)) / diagonal);
  assert.ok(second <= 1e-6, `step linear, glTF-Transform's node matrices: off by ${second}`);
  assert.ok(!out.warnings.some((w) => w.startsWith('clip "cubic"') || w.startsWith('clip "step linear"')), out.warnings.join('\n'));
});

test('the old output, LINEAR at the clip keys, matches at the keys but leaves the CUBICSPLINE curves between them (control)', async () => {
  const bytes = await armatureAsset();
  const source = await new WebIO().readBinary(bytes);
  const rig = await importGltf(bytes, 'armature.glb');
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  // Without its curves the clip is only its frames: every joint LINEAR at the clip's keys, as before.
  const withoutCurves = (clip: GltfClip): GltfClip =>
    clip.poses.kind === 'matrices' ? { name: clip.name, poses: { ...clip.poses, curves: undefined } } : clip;
  const out = await exportGltf({ ...rig, clips: [withoutCurves(rig.clips[0])] }, 'armature-linear.glb');
  const written = await new WebIO().readBinary(out.bytes);
  for (const c of written.getRoot().listAnimations()[0].listChannels()) assert.equal(c.getSampler()!.getInterpolation(), 'LINEAR');
  const { atKeys, inside } = sampleTimes(fileKeyTimes(source, 0), BETWEEN);
  const keys = worstOver(source, written, 0, atKeys, diagonal);
  const gaps = worstOver(source, written, 0, inside, diagonal);
  console.log(
    `cubic clip written LINEAR at its ${atKeys.length} keys: off by ${keys.toExponential(2)} at keys, ${(100 * gaps).toFixed(2)}% of the diagonal between keys`,
  );
  assert.ok(keys <= 1e-6, `LINEAR at the keys is exact at the keys (${keys})`);
  assert.ok(gaps > 1e-3, `LINEAR at the keys is not the cubic curve between them (${gaps})`);
});

test('a joint moved by an animated node between joints keeps LINEAR at the keys, and the notice names it alone', async () => {
  const bytes = await armatureAsset();
  const source = await new WebIO().readBinary(bytes);
  const rig = await importGltf(bytes, 'armature.glb');
  const out = await exportGltf({ ...rig }, 'armature-fresh.glb');
  await assertValidGltf(out.bytes, 'armature-fresh.glb');
  const written = await new WebIO().readBinary(out.bytes);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const a = 2;
  assert.equal(rig.clips[a].name, 'between joints');
  const exported = channelsOf(written, a);
  const keys = fileKeyTimes(source, a);
  assert.deepEqual(exported.get('chest rotation'), { interpolation: 'LINEAR', times: keys });
  assert.deepEqual(exported.get('spine rotation'), {
    interpolation: 'CUBICSPLINE',
    times: channelsOf(source, a).get('spine rotation')!.times,
  });
  assert.deepEqual(exported.get('head rotation'), { interpolation: 'LINEAR', times: channelsOf(source, a).get('head rotation')!.times });
  const notice = out.warnings.find((w) => w.startsWith('clip "between joints"'));
  assert.ok(notice, out.warnings.join('\n'));
  assert.match(notice, /1 joint \(chest\)/);
  assert.match(notice, /the pose at every key is exact/);
  const atKeys = worstOver(source, written, a, keys, diagonal);
  assert.ok(atKeys <= 1e-6, `between joints: off by ${atKeys} at a key`);
});

/** three.js's GLTFLoader + AnimationMixer: the skinned mesh's world vertex positions at each time of clip `name`. */
async function threePosed(bytes: Uint8Array, name: string, times: number[]): Promise<Float64Array[]> {
  const { posedAt } = await threePlayer(bytes, name);
  return times.map(posedAt);
}

test("three.js's GLTFLoader and AnimationMixer play the exported CUBICSPLINE, STEP and LINEAR clips as the source between keys (1e-6 of the diagonal)", async () => {
  const bytes = await armatureAsset();
  const rig = await importGltf(bytes, 'armature.glb');
  const out = await exportGltf({ ...rig }, 'armature-fresh.glb');
  const source = await new WebIO().readBinary(bytes);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  for (const [a, name] of [
    [0, 'cubic'],
    [1, 'step linear'],
  ] as const) {
    // Inside the clip (the mixer loops, so its last key is left out); STEP keys are approached from the left.
    const times = sampleTimes(fileKeyTimes(source, a), 4).inside;
    const [ofSource, ofExport] = await Promise.all([threePosed(bytes, name, times), threePosed(out.bytes, name, times)]);
    let worst = 0;
    times.forEach((_, i) => (worst = Math.max(worst, maxDistance(ofExport[i], ofSource[i]) / diagonal)));
    console.log(`three.js, ${name}: ${times.length} times between keys, posed mesh off by ${worst.toExponential(2)} of the diagonal`);
    assert.ok(worst <= 1e-6, `three.js, ${name}: off by ${worst}`);
  }
});

test('CesiumMan: joints keyed with scales at float32 round-off of 1 keep their LINEAR curves, with no notice, and pose as the original between keys', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const source = await new WebIO().readBinary(bytes);
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const out = await exportGltf({ ...rig }, 'CesiumMan-fresh.glb');
  await assertValidGltf(out.bytes, 'CesiumMan-fresh.glb');
  assert.ok(!out.warnings.some((w) => w.startsWith('clip ')), out.warnings.join('\n'));
  const written = await new WebIO().readBinary(out.bytes);
  const rotations = written
    .getRoot()
    .listAnimations()[0]
    .listChannels()
    .filter((c) => c.getTargetPath() === 'rotation');
  assert.equal(rotations.length, rig.boneNames.length);
  for (const c of rotations) assert.equal(c.getSampler()!.getInterpolation(), 'LINEAR', c.getTargetNode()!.getName());
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const keys = fileKeyTimes(source, 0);
  const inside = sampleTimes(keys, 2).inside.filter((_, i) => i % 3 === 0);
  const atKeys = worstOver(
    source,
    written,
    0,
    keys.filter((_, k) => k % 3 === 0),
    diagonal,
  );
  const gaps = worstOver(source, written, 0, inside, diagonal);
  console.log(`CesiumMan: posed mesh off by ${atKeys.toExponential(2)} at keys, ${gaps.toExponential(2)} between keys (of the diagonal)`);
  assert.ok(atKeys <= 1e-6, `CesiumMan: off by ${atKeys} at a key`);
  assert.ok(gaps <= 1e-6, `CesiumMan: off by ${gaps} between keys`);
});
