/**
 * Keyed clips (workers/rig/keyed-clip.ts): the frames between two keys are the quaternion SLERP formula of course
 * handout Eq. 1, slerp(q0, q1, t) = sin((1−t)θ)/sin θ · q0 + sin(tθ)/sin θ · q1, written out here independently (axis–
 * angle to quaternion, no library code), at t = 0.25, 0.5, 0.75; the first key is held before it and the last after
 * it; a bone without keys rests; with key times the SLERP parameter is the fraction of the seconds between the keys;
 * moving, deleting, trimming and lengthening; many keys set at once equal the same keys set frame by frame; a file's
 * sequence keyed for the first time keeps every frame; inputs never change; the DMAT written by poseSequenceToDmat
 * reads back as the same frames.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deleteKeys,
  keyedFrames,
  lengthenClip,
  moveKeys,
  newKeyedClip,
  setKeys,
  setKeysAt,
  trimClip,
} from '../../workers/rig/keyed-clip.ts';
import { identityPose, samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { poseSequenceFromDmat, poseSequenceToDmat } from '../../workers/formats/pose-file.ts';
import { readDmat, writeDmatAscii, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { quaternionMatrix } from './rotation-matrix.ts';
import { seededRandom } from './seeded-random.ts';

type Matrices = Extract<PoseSequence, { kind: 'matrices' }>;

/** Quaternion [x, y, z, w] of a rotation by `angle` about `axis` (handout Sec. 1.2). */
function axisAngle(axis: number[], angle: number): number[] {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/** Eq. 1 of the handout, on the shorter arc. */
function slerpFormula(q0: number[], q1In: number[], t: number): number[] {
  let dot = q0.reduce((s, x, i) => s + x * q1In[i], 0);
  const q1 = dot < 0 ? q1In.map((x) => -x) : q1In;
  dot = Math.abs(dot);
  const theta = Math.acos(Math.min(1, dot));
  return q0.map((x, i) => (Math.sin((1 - t) * theta) / Math.sin(theta)) * x + (Math.sin(t * theta) / Math.sin(theta)) * q1[i]);
}

const frameOf = (seq: PoseSequence, f: number, b: number): Float64Array =>
  (seq as Matrices).rotations.subarray(9 * (seq.boneCount * f + b), 9 * (seq.boneCount * f + b) + 9);

function assertMatrix(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what: string): void {
  for (let i = 0; i < 9; i++)
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what}: entry ${i} is ${actual[i]}, expected ${expected[i]}`);
}

/** A pose of B bones with bone b's rotation set from a quaternion. */
function poseWith(B: number, entries: [number, number[]][]): Float64Array {
  const pose = identityPose(B);
  for (const [b, q] of entries) pose.set(quaternionMatrix(q), 9 * b);
  return pose;
}

test('in-between frames of two keys are the SLERP formula (handout Eq. 1) at t = 0.25, 0.5, 0.75, held before and after', () => {
  const random = seededRandom(11);
  for (let trial = 0; trial < 20; trial++) {
    const q0 = axisAngle([random() - 0.5, random() - 0.5, random() - 0.5], 3 * random());
    const q1 = axisAngle([random() - 0.5, random() - 0.5, random() - 0.5], 3 * random());
    let seq = newKeyedClip(3, 10);
    seq = setKeys(seq, 2, [1], poseWith(3, [[1, q0]]));
    seq = setKeys(seq, 6, [1], poseWith(3, [[1, q1]]));
    assert.deepStrictEqual(keyedFrames(seq, 1), [2, 6], 'bone 1 is keyed at frames 2 and 6');
    assert.deepStrictEqual(keyedFrames(seq), [2, 6], 'the clip has keys at frames 2 and 6');
    for (const [f, t] of [
      [3, 0.25],
      [4, 0.5],
      [5, 0.75],
    ])
      assertMatrix(frameOf(seq, f, 1), quaternionMatrix(slerpFormula(q0, q1, t)), 1e-12, `trial ${trial}: frame ${f} (t = ${t})`);
    for (const f of [0, 1, 2])
      assertMatrix(frameOf(seq, f, 1), quaternionMatrix(q0), 1e-12, `trial ${trial}: frame ${f} holds the first key`);
    for (const f of [6, 7, 8, 9])
      assertMatrix(frameOf(seq, f, 1), quaternionMatrix(q1), 1e-12, `trial ${trial}: frame ${f} holds the last key`);
    for (let f = 0; f < 10; f++)
      for (const b of [0, 2]) assertMatrix(frameOf(seq, f, b), [1, 0, 0, 0, 1, 0, 0, 0, 1], 0, `frame ${f}: unkeyed bone ${b} rests`);
  }
});

test('moving, deleting and trimming keys re-make the in-between frames; the inputs never change', () => {
  const qa = axisAngle([0, 0, 1], Math.PI / 2);
  const qb = axisAngle([1, 0, 0], Math.PI / 3);
  const qc = axisAngle([0, 1, 0], -Math.PI / 4);
  let seq = newKeyedClip(2, 13);
  seq = setKeys(seq, 0, [0, 1], poseWith(2, [[0, qa]]));
  seq = setKeys(seq, 4, [0], poseWith(2, [[0, qb]]));
  seq = setKeys(
    seq,
    8,
    [0, 1],
    poseWith(2, [
      [0, qc],
      [1, qb],
    ]),
  );
  assert.deepStrictEqual(keyedFrames(seq), [0, 4, 8], 'keys at 0, 4 and 8');
  assert.deepStrictEqual(keyedFrames(seq, 1), [0, 8], 'bone 1 at 0 and 8');
  const before = (seq as Matrices).rotations.slice();
  const keysBefore = (seq as Matrices).keys!.slice();

  // Move bone 0's key from 4 to 6: frames 1…5 SLERP from qa to qb over 6 frames, 7 between qb and qc.
  const moved = moveKeys(seq, 4, 6, [0]);
  assert.deepStrictEqual(keyedFrames(moved, 0), [0, 6, 8], 'the key moved to frame 6');
  assertMatrix(frameOf(moved, 3, 0), quaternionMatrix(slerpFormula(qa, qb, 0.5)), 1e-12, 'frame 3 is half way from frame 0 to 6');
  assertMatrix(frameOf(moved, 7, 0), quaternionMatrix(slerpFormula(qb, qc, 0.5)), 1e-12, 'frame 7 is half way from frame 6 to 8');
  assertMatrix(frameOf(moved, 6, 0), quaternionMatrix(qb), 1e-15, 'the moved key keeps its pose');
  assert.deepStrictEqual((seq as Matrices).rotations, before, 'moveKeys leaves its input as it was');
  assert.deepStrictEqual((seq as Matrices).keys, keysBefore, 'moveKeys leaves its input keys as they were');
  // Without bones: every bone keyed at the frame moves.
  assert.deepStrictEqual(keyedFrames(moveKeys(seq, 8, 12), 1), [0, 12], 'bone 1 moves with the whole frame');
  assert.throws(() => moveKeys(seq, 4, 5, [1]), /moveKeys: no key at frame 4 of bone 1/);

  // Delete bone 0's key at 4: frame 4 is half way between qa and qc again.
  const deleted = deleteKeys(seq, 4);
  assert.deepStrictEqual(keyedFrames(deleted), [0, 8], 'the key at 4 is gone');
  assertMatrix(frameOf(deleted, 4, 0), quaternionMatrix(slerpFormula(qa, qc, 0.5)), 1e-12, 'frame 4 is re-made from frames 0 and 8');
  assertMatrix(frameOf(deleted, 2, 0), quaternionMatrix(slerpFormula(qa, qc, 0.25)), 1e-12, 'frame 2 is a quarter of the way');
  assert.throws(() => deleteKeys(seq, 5), /deleteKeys: no key at frame 5/);
  // A bone left without keys rests.
  const bare = deleteKeys(deleteKeys(seq, 0, [1]), 8, [1]);
  assert.deepStrictEqual(keyedFrames(bare, 1), [], 'bone 1 has no key left');
  for (let f = 0; f < 13; f++) assertMatrix(frameOf(bare, f, 1), [1, 0, 0, 0, 1, 0, 0, 0, 1], 0, `frame ${f}: bone 1 rests`);

  // Trim to 2…6: bone 0 gets keys at the cuts (it had keys before 2 and after 6), the kept frames play as before.
  const trimmed = trimClip(seq, 2, 6);
  assert.equal(trimmed.kind === 'matrices' && trimmed.frameCount, 5, 'five frames kept');
  assert.deepStrictEqual(keyedFrames(trimmed, 0), [0, 2, 4], 'bone 0: the cut at 2, its key at 4, the cut at 6');
  assert.deepStrictEqual(keyedFrames(trimmed, 1), [0, 4], 'bone 1: keys made at both cuts');
  for (let f = 0; f < 5; f++)
    for (let b = 0; b < 2; b++) assertMatrix(frameOf(trimmed, f, b), frameOf(seq, f + 2, b), 0, `trimmed frame ${f} bone ${b}`);
  // Keying its middle key again re-makes the frames between the cuts and it: they lie on the same arcs.
  const rekeyed = setKeys(trimmed, 2, [0], poseWith(2, [[0, qb]]));
  for (let f = 0; f < 5; f++) assertMatrix(frameOf(rekeyed, f, 0), frameOf(seq, f + 2, 0), 1e-12, `re-keyed trimmed frame ${f}`);
  assert.throws(() => trimClip(seq, 6, 2), /trimClip: the first frame 6 is after the last 2/);
  assert.throws(() => setKeys(seq, 13, [0], identityPose(2)), /setKeys: frame 13 is out of range: the clip has 13 frames \(0–12\)/);
  assert.throws(() => setKeys(seq, 1, [2], identityPose(2)), /setKeys: bone 2 is out of range/);
});

test('a sequence without keys keyed for the first time keeps every frame it had', () => {
  const random = seededRandom(3);
  const B = 2;
  const L = 6;
  const rotations = new Float64Array(9 * B * L);
  for (let i = 0; i < B * L; i++) rotations.set(quaternionMatrix(axisAngle([random(), random(), random() - 0.5], 2 * random())), 9 * i);
  const file: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: L, rotations };
  assert.deepStrictEqual(keyedFrames(file), [], 'a file sequence has no keys');
  const q = axisAngle([0, 1, 0], 1);
  const keyed = setKeys(file, 3, [1], poseWith(B, [[1, q]]));
  assert.deepStrictEqual(keyedFrames(keyed, 1), [0, 1, 2, 3, 4, 5], 'every frame is a key');
  for (let f = 0; f < L; f++)
    for (let b = 0; b < B; b++)
      if (f !== 3 || b !== 1) assertMatrix(frameOf(keyed, f, b), frameOf(file, f, b), 0, `frame ${f} bone ${b} stays as the file had it`);
  assertMatrix(frameOf(keyed, 3, 1), quaternionMatrix(q), 1e-15, 'the new key is set');
  assert.equal(file.keys, undefined, 'the input gets no keys');
});

test('a keyed clip written by poseSequenceToDmat reads back as the same frames (ASCII and binary DMAT)', () => {
  let seq = newKeyedClip(3, 7);
  seq = setKeys(
    seq,
    0,
    [0, 1, 2],
    poseWith(3, [
      [0, axisAngle([1, 2, 3], 0.7)],
      [2, axisAngle([0, 0, 1], -1.2)],
    ]),
  );
  seq = setKeys(
    seq,
    6,
    [0, 2],
    poseWith(3, [
      [0, axisAngle([3, -1, 0], 2.1)],
      [2, axisAngle([0, 1, 1], 0.4)],
    ]),
  );
  const dmat = poseSequenceToDmat(seq);
  assert.deepStrictEqual([dmat.rows, dmat.cols], [3 * 3 * 7, 3], 'the DMAT is 3·B·L × 3');
  for (const [bytes, kind] of [
    [new TextEncoder().encode(writeDmatAscii(dmat)), 'ASCII'],
    [writeDmatBinary(dmat), 'binary'],
  ] as const) {
    const back = poseSequenceFromDmat(readDmat(bytes, 'clip.dmat'), 3, 'clip.dmat');
    assert.equal(back.kind === 'matrices' && back.frameCount, 7, `${kind}: seven frames`);
    const a = new Float64Array(27);
    const b = new Float64Array(27);
    for (let f = 0; f < 7; f++) {
      samplePose(seq, f, a);
      samplePose(back, f, b);
      for (let i = 0; i < 27; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-12, `${kind}: frame ${f} entry ${i} reads back`);
    }
  }
});

test('start-joint translations go linearly between the same keys and are held outside them; trimming shifts key times', () => {
  const B = 1;
  const L = 5;
  const rotations = new Float64Array(9 * L);
  for (let f = 0; f < L; f++) rotations.set(quaternionMatrix(axisAngle([0, 0, 1], 0.1 * f)), 9 * f);
  const translations = Float64Array.from({ length: 3 * L }, (_, i) => i * 0.5);
  const times = Float64Array.of(0, 0.1, 0.2, 0.3, 0.4);
  const file: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: L, rotations, translations, times };
  // Keyed the first time (every frame a key), then the keys at 1, 2 and 3 deleted: 1–3 are re-made from 0 and 4.
  let seq = deleteKeys(file, 1);
  seq = deleteKeys(seq, 2);
  seq = deleteKeys(seq, 3);
  const m = seq as Matrices;
  assert.deepStrictEqual(keyedFrames(seq), [0, 4], 'keys left at 0 and 4');
  for (let f = 1; f < 4; f++)
    for (let c = 0; c < 3; c++) {
      const expected = (1 - f / 4) * translations[c] + (f / 4) * translations[12 + c];
      assert.ok(Math.abs(m.translations![3 * f + c] - expected) < 1e-12, `frame ${f} translation ${c} is linear between the keys`);
    }
  assert.deepStrictEqual(m.times, times, 'key times are kept');
  const held = moveKeys(seq, 0, 2);
  for (const f of [0, 1])
    assert.deepStrictEqual(
      (held as Matrices).translations!.subarray(3 * f, 3 * f + 3),
      translations.subarray(0, 3),
      `frame ${f} holds the moved first key's translation`,
    );
  const trimmed = trimClip(file, 1, 3) as Matrices;
  const shifted = [0, 0.1, 0.2];
  assert.equal(trimmed.times!.length, shifted.length, 'one key time per kept frame');
  for (let f = 0; f < shifted.length; f++)
    assert.ok(Math.abs(trimmed.times![f] - shifted[f]) < 1e-15, `trimmed key time ${f} is ${trimmed.times![f]}, expected ${shifted[f]}`);
  assert.equal(trimmed.keys, undefined, 'a sequence without keys is cut without getting any');
});

test('with uneven key times the in-between frames SLERP by the seconds between the keys, not by the frame count', () => {
  const times = Float64Array.of(0, 0.1, 0.5, 0.6, 1);
  const L = times.length;
  const q0 = axisAngle([0.2, -1, 0.4], 0.3);
  const q1 = axisAngle([1, 0.5, -0.3], 2.2);
  const rotations = new Float64Array(9 * L);
  for (let f = 0; f < L; f++) rotations.set(quaternionMatrix(f === L - 1 ? q1 : q0), 9 * f);
  const translations = new Float64Array(3 * L);
  translations.set([1, -2, 4], 3 * (L - 1));
  const file: PoseSequence = { kind: 'matrices', boneCount: 1, frameCount: L, rotations, translations, times };
  // Every frame is a key the first time; deleting 1, 2 and 3 leaves keys at 0 s (q0) and 1 s (q1).
  const seq = deleteKeys(deleteKeys(deleteKeys(file, 1), 2), 3) as Matrices;
  assert.deepStrictEqual(keyedFrames(seq), [0, L - 1], 'keys left at the first and last frame');
  // The keys are 1 s apart, so frame f is the fraction times[f] of the way: 0.1, 0.5, 0.6.
  for (const [f, t] of [
    [1, 0.1],
    [2, 0.5],
    [3, 0.6],
  ]) {
    assertMatrix(frameOf(seq, f, 0), quaternionMatrix(slerpFormula(q0, q1, t)), 1e-12, `frame ${f} at ${t} s`);
    const expected = [t * 1, t * -2, t * 4];
    for (let c = 0; c < 3; c++)
      assert.ok(Math.abs(seq.translations![3 * f + c] - expected[c]) < 1e-12, `frame ${f} translation ${c} is ${t} of the way`);
  }
  // Trimmed (times shifted to start at 0) and keyed again, the seconds still decide.
  const trimmed = trimClip(seq, 1, 4) as Matrices;
  const rekeyed = setKeys(trimmed, 0, [0], poseWith(1, [[0, q0]])) as Matrices;
  // Keys at 0 s (q0) and 0.9 s (q1): frame 1 is at 0.4 s, frame 2 at 0.5 s.
  assertMatrix(frameOf(rekeyed, 1, 0), quaternionMatrix(slerpFormula(q0, q1, 0.4 / 0.9)), 1e-12, 'trimmed frame 1 at 0.4 of 0.9 s');
  assertMatrix(frameOf(rekeyed, 2, 0), quaternionMatrix(slerpFormula(q0, q1, 0.5 / 0.9)), 1e-12, 'trimmed frame 2 at 0.5 of 0.9 s');
});

test('setKeysAt sets keys at many frames in one copy: the same clip as setting them frame by frame, the SLERP formula between', () => {
  const random = seededRandom(5);
  const B = 4;
  const L = 40;
  const entries: { frame: number; bone: number; rotation: number[] }[] = [];
  const quaternions = new Map<string, number[]>();
  for (const frame of [0, 7, 19, 30, 39])
    for (let bone = 0; bone < B; bone++) {
      if (bone === 3 || random() < 0.3) continue;
      const q = axisAngle([random() - 0.5, random() - 0.5, random() - 0.5], 3 * random());
      quaternions.set(`${frame} ${bone}`, q);
      entries.push({ frame, bone, rotation: quaternionMatrix(q) });
    }
  const empty = newKeyedClip(B, L);
  const before = (empty as Matrices).rotations.slice();
  const atOnce = setKeysAt(empty, entries) as Matrices;
  let byFrame = empty;
  for (const { frame, bone, rotation } of entries) {
    const pose = identityPose(B);
    pose.set(rotation, 9 * bone);
    byFrame = setKeys(byFrame, frame, [bone], pose);
  }
  assert.deepStrictEqual(atOnce.rotations, (byFrame as Matrices).rotations, 'the same frames as one key at a time');
  assert.deepStrictEqual(atOnce.keys, (byFrame as Matrices).keys, 'the same keys as one key at a time');
  assert.deepStrictEqual((empty as Matrices).rotations, before, 'the input is unchanged');
  // Between two neighbouring keys of a bone, the formula.
  for (let bone = 0; bone < 3; bone++) {
    const frames = keyedFrames(atOnce, bone);
    for (let k = 0; k + 1 < frames.length; k++) {
      const [k0, k1] = [frames[k], frames[k + 1]];
      const f = Math.floor((k0 + k1) / 2);
      if (f === k0) continue;
      const expected = slerpFormula(quaternions.get(`${k0} ${bone}`)!, quaternions.get(`${k1} ${bone}`)!, (f - k0) / (k1 - k0));
      assertMatrix(frameOf(atOnce, f, bone), quaternionMatrix(expected), 1e-12, `bone ${bone} frame ${f} between keys ${k0} and ${k1}`);
    }
  }
  for (let f = 0; f < L; f++) assertMatrix(frameOf(atOnce, f, 3), [1, 0, 0, 0, 1, 0, 0, 0, 1], 0, `frame ${f}: unkeyed bone 3 rests`);
  const rotation = quaternionMatrix([0, 0, 0, 1]);
  const good = { frame: 2, bone: 1, rotation };
  assert.throws(
    () => setKeysAt(empty, [good, { frame: L, bone: 0, rotation }]),
    /setKeysAt: entry 1: frame 40 is out of range: the clip has 40 frames/,
  );
  assert.throws(
    () => setKeysAt(empty, [good, { frame: 5, bone: 0, rotation }, { frame: 0, bone: B, rotation }]),
    /setKeysAt: entry 2: bone 4 is out of range: the clip has 4 bones/,
  );
  assert.throws(
    () =>
      setKeysAt(empty, [
        { frame: 3, bone: 1, rotation },
        { frame: 3, bone: 1, rotation },
      ]),
    /setKeysAt: entry 1 keys bone 1 at frame 3 again \(entry 0 too\)/,
  );
  assert.throws(
    () => setKeysAt(empty, [{ frame: 0, bone: 0, rotation: [1, 0, 0] }]),
    /setKeysAt: entry 0 has 3 numbers, not a 3×3 rotation \(9\)/,
  );
});

test('lengthenClip: the new frames hold each bone’s last pose and are not keys; key times go on at 30 frames per second', () => {
  const qa = axisAngle([0, 0, 1], 0.8);
  const qb = axisAngle([1, 1, 0], -1.1);
  let seq = newKeyedClip(2, 6);
  seq = setKeys(seq, 1, [0], poseWith(2, [[0, qa]]));
  seq = setKeys(seq, 3, [0], poseWith(2, [[0, qb]]));
  const longer = lengthenClip(seq, 10) as Matrices;
  assert.equal(longer.frameCount, 10, 'ten frames');
  assert.deepStrictEqual(keyedFrames(longer), [1, 3], 'the keys stay where they were, and only they are keys');
  for (let f = 0; f < 6; f++)
    for (let b = 0; b < 2; b++) assertMatrix(frameOf(longer, f, b), frameOf(seq, f, b), 0, `frame ${f} bone ${b} as before`);
  for (let f = 6; f < 10; f++) {
    assertMatrix(frameOf(longer, f, 0), quaternionMatrix(qb), 1e-15, `new frame ${f}: bone 0 holds its last key`);
    assertMatrix(frameOf(longer, f, 1), [1, 0, 0, 0, 1, 0, 0, 0, 1], 0, `new frame ${f}: bone 1 rests`);
  }
  // A key at a new frame SLERPs from the last key to it.
  const keyed = setKeys(longer, 9, [0], poseWith(2, [[0, qa]]));
  assertMatrix(frameOf(keyed, 6, 0), quaternionMatrix(slerpFormula(qb, qa, 0.5)), 1e-12, 'frame 6 is half way from frame 3 to 9');

  const timed: PoseSequence = {
    kind: 'matrices',
    boneCount: 1,
    frameCount: 2,
    rotations: Float64Array.of(...quaternionMatrix(qa), ...quaternionMatrix(qb)),
    translations: Float64Array.of(0, 0, 0, 1, 2, 3),
    times: Float64Array.of(0.5, 0.7),
  };
  const timedLonger = lengthenClip(timed, 4) as Matrices;
  const expectedTimes = [0.5, 0.7, 0.7 + 1 / 30, 0.7 + 2 / 30];
  for (let f = 0; f < 4; f++) assert.ok(Math.abs(timedLonger.times![f] - expectedTimes[f]) < 1e-15, `key time ${f}`);
  assert.deepStrictEqual(Array.from(timedLonger.translations!.subarray(9)), [1, 2, 3], 'the last translation is held');
  assert.equal(timedLonger.keys, undefined, 'a sequence without keys gets none');
  assert.throws(() => lengthenClip(seq, 5), /lengthenClip: 5 frames is shorter than the clip's 6 \(trimClip shortens\)/);
  assert.throws(() => lengthenClip(seq, 7.5), /lengthenClip: 7.5 is not a whole number of frames/);
});
