/**
 * Poses and keys in scripts: what `rig.scene` reads of triangles, joints, poses and example shapes (sceneScriptCalls),
 * and the pose, key and timeline commands headless (headlessRegistry), on the course hand and the context-aware body.
 *
 * Independent expectations: the numbers of the data files parsed here by hand, without the app's readers (the OFF's
 * face lines, the TGF's joint lines, the pose DMATs' column-major values, the OBJ's `v` lines); the headless commands
 * against the same steps made with the pure scene edits (withBonePosed, insertKeysEdit, moveKeysEdit, deleteKeysEdit)
 * at the frames the script went to; a script through `rigwright run` against the rotations it keyed, read back from
 * the glTF it exported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { HEADLESS_COMMANDS } from '../../renderer/scripting/app-only-commands.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { sceneFromFiles } from '../../renderer/scripting/headless-scene.ts';
import { allBonesPosed, withBonePosed } from '../../renderer/skeleton/pose-commands.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { mirroredPose } from '../../workers/rig/mirror-bones.ts';
import { identityPose, samplePose } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { deleteKeysEdit, insertKeysEdit, moveKeysEdit, newClipEdit } from '../../workers/scene/clip-edits.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { ScriptCalls } from '../../workers/script/script-api.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
import { handDocument } from './full-documents.ts';
import { dataFile } from './shared-data.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-script-poses-'));

function callsOn(store: SceneStore): ScriptCalls {
  const refused = () => Promise.reject(new Error('no files here'));
  return sceneScriptCalls({
    store,
    execute: () => Promise.reject(new Error('no commands here')),
    files: { 'files.open': refused, 'files.saveProject': refused, 'files.exportGltf': refused },
  });
}

const bits = (array: ArrayBufferView): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);

function assertSameBits(actual: ArrayBufferView, expected: ArrayBufferView, what: string): void {
  assert.equal(actual.constructor.name, expected.constructor.name, `${what}: array type`);
  assert.equal(actual.byteLength, expected.byteLength, `${what}: length`);
  assert.ok(bits(actual).equals(bits(expected)), `${what}: the bits differ`);
}

/** An ASCII DMAT's values as a row-major matrix: the header is `cols rows`, the values column-major. */
function dmatRowMajor(file: string): { rows: number; cols: number; data: Float64Array } {
  const tokens = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  const [cols, rows] = tokens;
  const data = new Float64Array(rows * cols);
  for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) data[r * cols + c] = tokens[2 + c * rows + r];
  return { rows, cols, data };
}

test('scene reads on the course hand: triangles, joints and every frame’s pose are hand.off’s, hand.tgf’s and hand-pose_matrot.dmat’s own numbers', () => {
  const doc = handDocument();
  const store = new SceneStore(doc, new UndoHistory());
  const calls = callsOn(store);

  // hand.off: `OFF`, `V F 0`, V vertex lines, then F lines `3 a b c`.
  const off = readFileSync(dataFile('hand', 'hand.off'), 'utf8').trim().split('\n');
  const [V, F] = off[1].trim().split(/\s+/).map(Number);
  const faces = new Uint32Array(3 * F);
  for (let f = 0; f < F; f++) {
    const [n, a, b, c] = off[2 + V + f].trim().split(/\s+/).map(Number);
    assert.equal(n, 3, `hand.off face ${f} is a triangle`);
    faces.set([a, b, c], 3 * f);
  }
  const triangles = calls['scene.triangles']();
  assertSameBits(triangles, faces, 'triangles');
  triangles[0] = 999;
  assert.equal(calls['scene.triangles']()[0], faces[0], 'the triangles given are a copy: changing them changes nothing');

  // hand.tgf: joint lines `index x y z …` up to `#`.
  const tgf = readFileSync(dataFile('hand', 'hand.tgf'), 'utf8').split('\n');
  const jointLines = tgf.slice(
    0,
    tgf.findIndex((line) => line.trim() === '#'),
  );
  const joints = calls['scene.joints']();
  assert.equal(joints.length, 3 * jointLines.length, 'one x, y, z per joint of hand.tgf');
  jointLines.forEach((line, j) => {
    const [, x, y, z] = line.trim().split(/\s+/).map(Number);
    assert.deepEqual(Array.from(joints.subarray(3 * j, 3 * j + 3)), [x, y, z], `joint ${j}`);
  });

  // hand-pose_matrot.dmat: 3·B·L × 3, frame-major, each bone's relative rotation row-major.
  const B = boneCountOf(doc);
  const dmat = dmatRowMajor(dataFile('hand', 'hand-pose_matrot.dmat'));
  const L = dmat.rows / (3 * B);
  const frameOf = (f: number) => dmat.data.slice(9 * B * f, 9 * B * (f + 1));
  for (const f of [0, 1, 17, L - 1]) assertSameBits(calls['scene.pose']({ frame: f }), frameOf(f), `pose at frame ${f}`);
  assertSameBits(calls['scene.pose'](), frameOf(0), 'pose() is frame 0 of the clip shown');
  assertSameBits(calls['scene.pose']({ clip: 'hand-pose_matrot.dmat', frame: 9 }), frameOf(9), 'the clip by its name');

  // Errors name the call, the option and what the scene has.
  assert.throws(
    () => calls['scene.pose']({ frame: L }),
    new RegExp(`scene\\.pose: frame ${L} is out of range: clip "hand-pose_matrot\\.dmat" has frames 0 … ${L - 1}`),
  );
  assert.throws(() => calls['scene.pose']({ frame: 0.5 }), /scene\.pose: frame 0\.5 is out of range/);
  assert.throws(
    () => calls['scene.pose']({ clip: 'walk' }),
    /scene\.pose: the scene has no clip "walk"; its clips are "hand-pose_matrot\.dmat"/,
  );
  assert.throws(
    () => calls['scene.pose']({ frames: 2 } as never),
    /scene\.pose: unknown option "frames" \(the options are clip and frame\)/,
  );
  assert.throws(() => calls['scene.pose'](7 as never), /scene\.pose: options are an object \{ clip, frame \}, not 7/);

  // A quaternion pose: frame 1 is the final pose, frame 0 the rest.
  const quat = callsOn(new SceneStore(handDocument('quaternions'), new UndoHistory()));
  const q = dmatRowMajor(dataFile('hand', 'hand-pose_quat.dmat')).data;
  const final = quat['scene.pose']({ frame: 1 });
  for (let b = 0; b < B; b++) {
    const [x, y, z, w] = q.subarray(4 * b, 4 * b + 4);
    const n = Math.hypot(x, y, z, w);
    const [qx, qy, qz, qw] = [x / n, y / n, z / n, w / n];
    // The rotation matrix of a unit quaternion, row-major.
    const expected = [
      1 - 2 * (qy * qy + qz * qz),
      2 * (qx * qy - qz * qw),
      2 * (qx * qz + qy * qw),
      2 * (qx * qy + qz * qw),
      1 - 2 * (qx * qx + qz * qz),
      2 * (qy * qz - qx * qw),
      2 * (qx * qz - qy * qw),
      2 * (qy * qz + qx * qw),
      1 - 2 * (qx * qx + qy * qy),
    ];
    for (let k = 0; k < 9; k++) assert.ok(Math.abs(final[9 * b + k] - expected[k]) < 1e-12, `final pose, bone ${b}, entry ${k}`);
  }
  assertSameBits(quat['scene.pose']({ frame: 0 }), identityPose(B), 'frame 0 of a final pose is the rest pose');
});

test('scene.pose: a bone posed by hand has its hand pose at every frame of the shown clip (as the viewport and scene.skin show it), not in another clip; without a clip, over the rest pose', async () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const store = new SceneStore(
    {
      ...doc,
      clips: [
        { name: 'hand-pose_matrot.dmat', poses: doc.poses! },
        { name: 'other', poses: { ...doc.poses! } },
      ],
    },
    new UndoHistory(),
  );
  const commands = headlessRegistry(store);
  const calls = callsOn(store);
  const rotation = axisAngleMatrix([0, 0, 1], 0.5);
  await commands.execute('pose.rotate', { bone: 4, rotation });
  const dmat = dmatRowMajor(dataFile('hand', 'hand-pose_matrot.dmat'));
  for (const frame of [0, 12]) {
    const expected = dmat.data.slice(9 * B * frame, 9 * B * (frame + 1));
    expected.set(rotation, 36);
    assertSameBits(calls['scene.pose']({ frame }), expected, `frame ${frame} of the shown clip, bone 4 posed by hand`);
  }
  assertSameBits(calls['scene.pose']({ clip: 'other', frame: 12 }), dmat.data.slice(9 * B * 12, 9 * B * 13), 'another clip: its own pose');

  const still = new SceneStore({ ...doc, poses: null, posesFile: null }, new UndoHistory());
  await headlessRegistry(still).execute('pose.rotate', { bone: 2, rotation });
  const expected = identityPose(B);
  expected.set(rotation, 18);
  assertSameBits(callsOn(still)['scene.pose'](), expected, 'no clip: the rest pose with the hand-posed bone');
  assert.throws(
    () => callsOn(still)['scene.pose']({ frame: 1 }),
    /scene\.pose: frame 1 is out of range: the scene has no clip, only the rest pose \(frame 0\)/,
  );
});

test('scene.examples and examplePositions on the context-aware body: eg0’s and eg1’s poses and positions are their DMAT’s and OBJ’s numbers, hidden as the document says', () => {
  const file = (name: string) => dataFile('context-aware', name);
  const mesh = readObj(readFileSync(file('reference.obj'), 'utf8'), 'reference.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(file('skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const B = skeleton.parents.length;
  const V = mesh.positions.length / 3;
  const example = (name: string, hidden: boolean) => ({
    name,
    file: `${name}.obj`,
    positions: readObj(readFileSync(file(`${name}.obj`), 'utf8'), `${name}.obj`).mesh.positions,
    pose: (
      poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(file(`${name}.dmat`))), `${name}.dmat`), B, `${name}.dmat`) as {
        rotations: Float64Array;
      }
    ).rotations,
    poseSource: `${name}.dmat`,
    hidden,
  });
  const doc = withDerived({
    name: 'reference.obj',
    meshFiles: ['reference.obj'],
    mesh,
    skeletonFile: 'skeleton.tgf',
    skeleton,
    weights: { rows: V, cols: B, data: new Float64Array(V * B).fill(1 / B) },
    weightsSource: 'uniform',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    examples: [example('eg0', false), example('eg1', true)],
  });
  const calls = callsOn(new SceneStore(doc, new UndoHistory()));

  const examples = calls['scene.examples']();
  assert.deepEqual(
    examples.map(({ name, poseSource, hidden }) => ({ name, poseSource, hidden })),
    [
      { name: 'eg0', poseSource: 'eg0.dmat', hidden: false },
      { name: 'eg1', poseSource: 'eg1.dmat', hidden: true },
    ],
  );
  for (const [e, name] of ['eg0', 'eg1'].entries()) {
    assertSameBits(examples[e].pose, dmatRowMajor(file(`${name}.dmat`)).data, `${name}'s pose`);
    const vLines = readFileSync(file(`${name}.obj`), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('v '));
    const positions = calls['scene.examplePositions'](name);
    assert.equal(positions.length, 3 * vLines.length, `${name}: one x, y, z per v line`);
    assert.equal(vertexCountOf(doc), vLines.length, `${name} has the rest mesh's vertices`);
    for (const v of [0, 1, 4321, vLines.length - 1]) {
      const expected = vLines[v].trim().split(/\s+/).slice(1, 4).map(Number);
      assert.deepEqual(Array.from(positions.subarray(3 * v, 3 * v + 3)), expected, `${name}, vertex ${v}`);
    }
  }
  examples[0].pose[0] = 42;
  assert.notEqual(doc.examples![0].pose[0], 42, 'the poses given are copies');
  assert.throws(
    () => calls['scene.examplePositions']('eg7'),
    /scene\.examplePositions: the scene has no example "eg7"; its examples are "eg0", "eg1"/,
  );
  assert.deepEqual(callsOn(new SceneStore(handDocument(), new UndoHistory()))['scene.examples'](), [], 'the hand has no examples');
});

test('headless pose, key and timeline commands: rotate, reset, paste mirrored, key at the frames gone to, move and delete keys give the document the scene edits give at those frames, bit for bit, one undo step each', async () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const store = new SceneStore(doc, new UndoHistory());
  const commands = headlessRegistry(store);
  for (const id of [
    'pose.rotate',
    'pose.reset',
    'pose.resetAll',
    'pose.copy',
    'pose.pasteMirrored',
    'key.insert',
    'key.move',
    'key.delete',
    'playback.seek',
  ] as const)
    assert.ok((HEADLESS_COMMANDS as readonly string[]).includes(id), `${id} runs headless`);

  const r1 = axisAngleMatrix([0, 0, 1], 0.4);
  const r2 = axisAngleMatrix([1, 0, 0], -0.7);
  let expected: SceneDocument = doc;
  const step = (fields: Partial<SceneDocument>) => (expected = { ...expected, ...fields });

  await commands.execute('playback.seek', 12);
  assert.equal(commands.state.time, 12, 'the timeline went to frame 12');
  await commands.execute('pose.rotate', { bone: 5, rotation: r1 });
  step({ posedBones: withBonePosed(expected, 5, r1) });
  await commands.execute('bone.select', 5);
  assert.equal(await commands.execute('key.insert'), 12, 'the selected bone keyed at frame 12');
  step(insertKeysEdit(expected, 12, [5]).fields);

  await commands.execute('playback.nextFrame');
  await commands.execute('playback.nextFrame');
  assert.equal(commands.state.time, 14, 'two frames on');
  await commands.execute('pose.rotate', { bone: 6, quaternion: [0, Math.sin(0.3), 0, Math.cos(0.3)] });
  const turned = store.doc.posedBones!.rotations.subarray(54, 63);
  axisAngleMatrix([0, 1, 0], 0.6).forEach((value, k) =>
    assert.ok(Math.abs(turned[k] - value) < 1e-15, `bone 6 by its quaternion, entry ${k}`),
  );
  await commands.execute('pose.rotate', { bone: 7, rotation: r2 });
  // Bone 6's rotation is reset next: what it was does not reach the expected document.
  step({ posedBones: withBonePosed({ ...expected, posedBones: withBonePosed(expected, 6, turned) }, 7, r2) });
  await commands.execute('pose.reset', 6);
  step({ posedBones: withBonePosed(expected, 6, identityPose(1)) });
  assert.equal(await commands.execute('key.insertAll'), 14, 'every bone keyed at frame 14');
  step(
    insertKeysEdit(
      expected,
      14,
      Array.from({ length: B }, (_, b) => b),
    ).fields,
  );

  await commands.execute('key.move', { from: 14, to: 20, bones: 'all' });
  step(moveKeysEdit(expected, 14, 20).fields);
  await commands.execute('key.delete', { frame: 12, bones: 'selected' });
  step(deleteKeysEdit(expected, 12, [5]).fields);

  // The pose copied at frame 20 (the keys moved there), pasted mirrored across x.
  await commands.execute('playback.seek', 20);
  await commands.execute('pose.copy');
  const atTwenty = identityPose(B);
  samplePose(expected.poses!, 20, atTwenty);
  await commands.execute('pose.pasteMirrored');
  step({ posedBones: allBonesPosed(mirroredPose(expected, atTwenty, undefined)) });

  for (const field of ['poses', 'posesFile', 'posedBones', 'clips'] as const)
    assert.deepEqual(store.doc[field], expected[field], `${field}: the scene edits' at the same frames`);
  assert.deepEqual(store.history.undoLabels(), [
    'Pose bone 5',
    'Key bone 5 at frame 12 of hand-pose_matrot.dmat',
    'Pose bone 6',
    'Pose bone 7',
    'Reset bone 6 to rest',
    'Key all bones at frame 14 of hand-pose_matrot.dmat',
    'Move keys from frame 14 to 20 of hand-pose_matrot.dmat',
    'Delete keys at frame 12 of hand-pose_matrot.dmat',
    'Paste the pose mirrored',
  ]);

  // Seeking past the end clamps, as the app's slider does; the rest toggle is a view, not an edit.
  await commands.execute('playback.seek', 1e6);
  assert.equal(commands.state.time, (expected.poses as { frameCount: number }).frameCount - 1, 'clamped to the last frame');
  assert.equal(await commands.execute('pose.rest'), true, 'the rest pose shown');
  assert.equal(store.history.undoLabels().length, 9, 'pose.rest is no undo step');

  // A new clip starts the timeline over: a key lands at the frame sought in it.
  await commands.execute('clip.new', { frames: 30 });
  assert.equal(commands.state.time, 0, 'a new clip is shown from frame 0');
  const made = newClipEdit(expected, undefined, 30);
  step(made.fields);
  await commands.execute('playback.seek', 7);
  await commands.execute('key.insert', 'all');
  step(
    insertKeysEdit(
      expected,
      7,
      Array.from({ length: B }, (_, b) => b),
    ).fields,
  );
  for (const field of ['poses', 'posesFile', 'posedBones', 'clips'] as const)
    assert.deepEqual(store.doc[field], expected[field], `${field} after keying the new clip at frame 7`);

  // Refusals say why: the pose tool's settings need the viewport; key.move of a frame with no key.
  assert.throws(() => commands.execute('pose.space', 'global'), /pose\.space runs only in the app: it sets how the pose tool’s gizmo/);
  assert.throws(() => commands.execute('playback.playing', true), /playback\.playing runs only in the app: headless nothing plays/);
  await assert.rejects(
    async () => commands.execute('key.move', { from: 3, to: 4 }),
    /Move keys: Action has no key of those bones at frame 3/,
  );
  // Undo takes each step back: the hand as it was opened.
  while (store.history.canUndo) store.history.undo();
  assert.equal(store.doc.poses, doc.poses, 'undone to the opened clip');
  assert.equal(store.doc.posedBones, undefined, 'no bone posed by hand');
});

test('rigwright run: a script that rotates a bone, keys it at two frames and exports writes a clip with those keys', async () => {
  const script = path.join(work, 'key-two-frames.ts');
  writeFileSync(
    script,
    `const bone = (await rig.scene.bone('bone 3')).index;
await rig.clip.new({ name: 'Wave', frames: 31 });
await rig.playback.seek(6);
await rig.pose.rotate({ bone, quaternion: [0, 0, Math.sin(0.25), Math.cos(0.25)] });
await rig.bone.select(bone);
print('keyed', await rig.key.insert('selected'));
await rig.playback.seek(24);
await rig.pose.rotate({ bone, quaternion: [Math.sin(-0.4), 0, 0, Math.cos(-0.4)] });
print('keyed', await rig.key.insert('selected'));
const pose = await rig.scene.pose({ clip: 'Wave', frame: 24 });
print('pose', pose[9 * bone + 4].toFixed(6));
await rig.files.exportGltf(args[0]);
`,
  );
  const out = path.join(work, 'wave.glb');
  let stdout = '';
  let stderr = '';
  const status = await runCli(
    ['run', script, '--scene', dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'), '--allow-write', '--', out],
    {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
    },
  );
  assert.equal(status, 0, stderr);
  assert.equal(stdout, `keyed 6\nkeyed 24\npose ${Math.cos(-0.8).toFixed(6)}\n`, 'the frames keyed and the pose read back');

  const exported = await sceneFromFiles([{ name: 'wave.glb', bytes: new Uint8Array(readFileSync(out)) }]);
  const wave = exported.clips?.find((clip) => clip.name === 'Wave');
  assert.ok(wave, `the export has the clip Wave (it has ${exported.clips?.map((clip) => clip.name).join(', ')})`);
  const bone = exported.boneNames?.indexOf('bone 3') ?? 3;
  const at = (seconds: number) => {
    const seq = wave.poses;
    assert.equal(seq.kind, 'matrices', 'a clip of frames');
    const times = seq.kind === 'matrices' ? seq.times : undefined;
    const frame = times ? times.findIndex((t) => Math.abs(t - seconds) < 1e-6) : Math.round(seconds * 30);
    assert.ok(frame >= 0, `a frame at ${seconds} s`);
    const out = identityPose(boneCountOf(exported));
    samplePose(seq, frame, out);
    return Array.from(out.subarray(9 * bone, 9 * bone + 9));
  };
  const close = (actual: number[], expected: number[], what: string) =>
    actual.forEach((value, k) => assert.ok(Math.abs(value - expected[k]) < 1e-6, `${what}, entry ${k}: ${value} against ${expected[k]}`));
  close(at(6 / 30), axisAngleMatrix([0, 0, 1], 0.5), 'the key at frame 6');
  close(at(24 / 30), axisAngleMatrix([1, 0, 0], -0.8), 'the key at frame 24');
});
