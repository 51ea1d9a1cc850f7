/**
 * The project file: the fixture written by format 1 reads back every value its script put in; a scene written and
 * read again is equal bit for bit (float64 weights with more than four influences per vertex); any glTF viewer's
 * validator accepts the file; a newer format is refused with a clear message, and broken files with the file,
 * the place and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FormatError } from '../../workers/formats/format-error.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import {
  PROJECT_EXTENSION,
  MIGRATIONS,
  PROJECT_FORMAT_VERSION,
  defaultProjectSettings,
  isProjectFile,
  readProjectFile,
  writeProjectFile,
  type ProjectContents,
} from '../../workers/formats/project-file.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { FIXTURE_NAME, FIXTURE_PATH, fixtureContents, type FormatOneContents } from '../make-project-fixture.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { seededRandom } from './seeded-random.ts';
import { glbJson, withGlbJson } from './glb-json.ts';

/** The bytes of a typed array, for bit-for-bit comparison (NaN and -0 included). */
function bitsOf(array: ArrayBufferView | null | undefined): Buffer | null {
  return array ? Buffer.from(array.buffer, array.byteOffset, array.byteLength) : null;
}

function assertSameBits(actual: ArrayBufferView | null | undefined, expected: ArrayBufferView | null | undefined, what: string): void {
  assert.equal(actual?.constructor.name, expected?.constructor.name, `${what}: array type`);
  assert.ok(bitsOf(actual)?.equals(bitsOf(expected)!) ?? expected == null, `${what}: bits differ`);
}

function assertSamePoses(actual: PoseSequence | null, expected: PoseSequence | null, what: string): void {
  assert.equal(actual?.kind, expected?.kind, `${what}: kind`);
  if (!actual || !expected) return;
  assert.equal(actual.boneCount, expected.boneCount, `${what}: bones`);
  if (actual.kind === 'quaternions' && expected.kind === 'quaternions') assertSameBits(actual.final, expected.final, `${what}.final`);
  if (actual.kind === 'matrices' && expected.kind === 'matrices') {
    assert.equal(actual.frameCount, expected.frameCount, `${what}: frames`);
    assertSameBits(actual.rotations, expected.rotations, `${what}.rotations`);
    assertSameBits(actual.translations, expected.translations, `${what}.translations`);
    assertSameBits(actual.times, expected.times, `${what}.times`);
  }
}

/** Every field of two contents equal, arrays bit for bit. */
function assertSameContents(actual: ProjectContents, expected: ProjectContents): void {
  const a = actual.scene;
  const e = expected.scene;
  assert.equal(a.name, e.name);
  assert.deepEqual(a.meshFiles, e.meshFiles);
  assertSameBits(a.mesh.positions, e.mesh.positions, 'positions');
  assertSameBits(a.mesh.triangles, e.mesh.triangles, 'triangles');
  assert.equal(a.skeletonFile, e.skeletonFile);
  assertSameBits(a.skeleton.joints, e.skeleton.joints, 'joints');
  assertSameBits(a.skeleton.bones, e.skeleton.bones, 'bones');
  assertSameBits(a.skeleton.parents, e.skeleton.parents, 'parents');
  assertSameBits(a.skeleton.order, e.skeleton.order, 'order');
  assert.deepEqual(a.boneNames, e.boneNames);
  assert.equal(a.weights.rows, e.weights.rows);
  assert.equal(a.weights.cols, e.weights.cols);
  assertSameBits(a.weights.data, e.weights.data, 'weights');
  assert.equal(a.weightsSource, e.weightsSource);
  assertSamePoses(a.poses, e.poses, 'poses');
  assert.equal(a.posesFile, e.posesFile);
  assert.deepEqual(
    a.clips.map((c) => c.name),
    e.clips.map((c) => c.name),
  );
  a.clips.forEach((clip, i) => assertSamePoses(clip.poses, e.clips[i].poses, `clip ${clip.name}`));
  assert.deepEqual(
    a.clips.map((c) => [c.source, c.from]),
    e.clips.map((c) => [c.source, c.from]),
    'the animation each clip still is, or was made from',
  );
  assert.equal(
    a.clips.findIndex((c) => c.poses === a.poses),
    e.clips.findIndex((c) => c.poses === e.poses),
    'the clip shown is the same object as one of the clips',
  );
  assertSameBits(a.handles, e.handles, 'handles');
  assert.equal(a.handlesFile, e.handlesFile);
  assertSameBits(a.boneScales, e.boneScales, 'bone scales');
  assert.deepEqual(a.warnings, e.warnings);
  const { blend: blendA, ...skinA } = actual.settings.skin;
  const { blend: blendE, ...skinE } = expected.settings.skin;
  assert.deepEqual(skinA, skinE);
  assertSameBits(blendA, blendE, 'blend map');
  assert.deepEqual(actual.settings.view, expected.settings.view);
  const { locked: lockedA, ...paintA } = actual.settings.paint;
  const { locked: lockedE, ...paintE } = expected.settings.paint;
  assert.deepEqual(paintA, paintE);
  assertSameBits(lockedA, lockedE, 'locks');
  assert.deepEqual(actual.settings.export, expected.settings.export);
  assert.deepEqual(actual.settings.posespace, expected.settings.posespace);
  assert.equal(a.examples.length, e.examples.length, 'examples');
  a.examples.forEach((example, i) => {
    const { positions, pose, ...rest } = example;
    const { positions: positionsE, pose: poseE, ...restE } = e.examples[i];
    assert.deepEqual(rest, restE, `example ${i}`);
    assertSameBits(positions, positionsE, `example ${i} positions`);
    assertSameBits(pose, poseE, `example ${i} pose`);
  });
}

/** What a format 2 reader must make of format 1 contents: no examples and the Gaussian kernel, all else as it was. */
function migratedFromFormatOne(v1: FormatOneContents): ProjectContents {
  return { formatVersion: 1, scene: { ...v1.scene, examples: [] }, settings: { ...v1.settings, posespace: { kernel: 'gaussian' } } };
}

interface Ref {
  bufferView: number;
  length: number;
}
/** The parts of a project's glTF JSON these tests read or change. */
interface ProjectJson {
  skins: { joints: number[] }[];
  animations: { name: string }[];
  extensionsUsed: string[];
  extensionsRequired?: string[];
  bufferViews: { byteOffset: number }[];
  extensions: Record<
    string,
    {
      formatVersion: number;
      scene: { weights: { rows: number; data: Ref }; handles: Ref };
      examples?: { name: string; positions: Ref; pose: Ref; hidden: unknown }[];
      settings?: { view: { wireframe: unknown } };
    }
  >;
}

function jsonLengthOf(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
}

const jsonOf = (bytes: Uint8Array): ProjectJson => glbJson<ProjectJson>(bytes);

/** The GLB's JSON, changed by `edit`, put back with the same binary chunk. */
function withJson(bytes: Uint8Array, edit: (json: ProjectJson) => void): Uint8Array {
  const json = jsonOf(bytes);
  edit(json);
  return withGlbJson(bytes, json);
}

function refuses(run: () => unknown, message: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof FormatError, `a FormatError, not ${String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

test('the fixture written by format 1 reads back every value its script put in, migrated to no examples and the default kernel', () => {
  const bytes = new Uint8Array(readFileSync(FIXTURE_PATH));
  assert.ok(isProjectFile(bytes), 'the format-1 fixture is recognised as a project file');
  assert.equal(jsonOf(bytes).extensions[PROJECT_EXTENSION].formatVersion, 1, "the fixture is the first version's file");
  assert.equal(jsonOf(bytes).extensions[PROJECT_EXTENSION].examples, undefined, 'format 1 has no examples section');
  const read = readProjectFile(bytes, FIXTURE_NAME);
  assert.equal(read.formatVersion, 1);
  assertSameContents(read, migratedFromFormatOne(fixtureContents()));
  assert.deepEqual(read.scene.examples, []);
  assert.equal(read.settings.posespace.kernel, 'gaussian');
  // The migration step itself: format 1's JSON becomes format 2's, with an empty examples section.
  const migrated = MIGRATIONS[1]({ formatVersion: 1, scene: {}, settings: { skin: {} } });
  assert.deepEqual(migrated, { formatVersion: 2, scene: {}, examples: [], settings: { skin: {}, posespace: { kernel: 'gaussian' } } });
  // The values themselves, not only the script's arrays: a float64 third survives, float32 would not.
  assert.equal(read.scene.weights.data[6], 1 / 3);
  assert.equal(read.scene.weights.data[17], 1 - 1e-7);
  assert.deepEqual(Array.from(read.scene.skeleton.parents), [-1, 0, 1]);
  assert.equal(read.scene.poses, read.scene.clips[0].poses);
  assert.deepEqual(Array.from(read.scene.handles!), [0, -1, 1, -1, 2, -1]);
  assert.equal(read.settings.skin.method, 'dqs');
  assert.equal(read.settings.paint.brush.falloff, 'linear');
  assert.deepEqual(Array.from(read.settings.paint.locked), [0, 1, 0]);
});

test('a glTF viewer sees the rig: the Khronos validator accepts the fixture, which has a skinned mesh and both clips', async () => {
  const bytes = new Uint8Array(readFileSync(FIXTURE_PATH));
  await assertValidGltf(bytes, FIXTURE_NAME);
  const json = jsonOf(bytes);
  assert.equal(json.skins.length, 1);
  assert.equal(json.skins[0].joints.length, 3);
  assert.deepEqual(
    json.animations.map((a: { name: string }) => a.name),
    ['walk', 'wave'],
  );
  assert.ok(json.extensionsUsed.includes(PROJECT_EXTENSION), 'the file lists the project extension in extensionsUsed');
  assert.ok(!(json.extensionsRequired ?? []).includes(PROJECT_EXTENSION), 'the project extension is not required');
});

/** A scene of `V` vertices and a chain of `B` bones whose weights have 5 to B influences per vertex. */
function randomContents(seed: number, V: number, B: number): ProjectContents {
  const random = seededRandom(seed);
  const positions = Float64Array.from({ length: 3 * V }, () => random() * 2 - 1);
  const triangles = Uint32Array.from({ length: 3 * (V - 2) }, (_, i) => Math.floor(i / 3) + (i % 3));
  const joints = Float64Array.from({ length: 3 * (B + 1) }, (_, i) => (i % 3 === 1 ? Math.floor(i / 3) / B : random() * 0.1));
  const bones = Uint32Array.from({ length: 2 * B }, (_, i) => Math.floor(i / 2) + (i % 2));
  const data = new Float64Array(V * B);
  for (let v = 0; v < V; v++) {
    const influences = 5 + (v % (B - 4));
    let sum = 0;
    for (let k = 0; k < influences; k++) sum += data[v * B + ((v + k) % B)] = random() + 1e-3;
    for (let b = 0; b < B; b++) data[v * B + b] /= sum;
  }
  const frames = 4;
  const rotations = new Float64Array(9 * B * frames);
  for (let i = 0; i < B * frames; i++) {
    const angle = random() * Math.PI;
    rotations.set([Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1], 9 * i);
  }
  const poses: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: frames, rotations };
  const settings = defaultProjectSettings(V, B);
  settings.skin.blend = Float32Array.from({ length: V }, () => Math.fround(random()));
  settings.paint.locked[B - 1] = 1;
  return {
    formatVersion: PROJECT_FORMAT_VERSION,
    scene: {
      name: 'random.off',
      meshFiles: ['random.off'],
      mesh: { positions, triangles },
      skeletonFile: 'chain.tgf',
      skeleton: buildSkeleton({ joints, bones }, 'chain.tgf'),
      boneNames: null,
      weights: { rows: V, cols: B, data },
      weightsSource: 'painted',
      poses,
      posesFile: 'random-poses.dmat',
      // A clip that is still the file's animation 2, and one baked from its animation 1.
      clips: [
        { name: 'random-poses', poses, source: 2 },
        { name: 'baked', poses: { ...poses, rotations: rotations.slice().reverse() }, from: 1 },
      ],
      handles: Int32Array.from({ length: V }, (_, v) => (v % 3 === 0 ? v % B : -1)),
      handlesFile: null,
      boneScales: Float64Array.from({ length: 3 * B }, () => 0.5 + random()),
      warnings: [],
      examples: [],
    },
    settings,
  };
}

test('write then read: every array bit for bit, float64 weights with 5 to 7 influences per vertex; writing again gives the same bytes', async () => {
  const contents = randomContents(15, 40, 7);
  const influences = new Set<number>();
  for (let v = 0; v < 40; v++) influences.add(contents.scene.weights.data.subarray(7 * v, 7 * v + 7).filter((w) => w !== 0).length);
  assert.deepEqual([...influences].sort(), [5, 6, 7]);
  assert.ok(
    contents.scene.weights.data.some((w) => Math.fround(w) !== w),
    'weights float32 cannot hold',
  );
  const bytes = await writeProjectFile(contents, 'random.rig.glb');
  const read = readProjectFile(bytes, 'random.rig.glb');
  assert.ok(
    read.scene.weights.data.every((w) => Number.isFinite(w)),
    'every weight reads back finite',
  );
  assertSameContents(read, contents);
  const again = await writeProjectFile(read, 'random.rig.glb');
  assert.ok(Buffer.from(again).equals(Buffer.from(bytes)), 'the same contents write the same bytes');
});

/** Two examples of a random scene: moved vertices (float64 that float32 cannot hold) and random rotations per bone. */
function withExamples(contents: ProjectContents, seed: number): ProjectContents {
  const random = seededRandom(seed);
  const B = contents.scene.skeleton.parents.length;
  const example = (name: string, hidden: boolean) => ({
    name,
    file: `${name}.obj`,
    positions: contents.scene.mesh.positions.map((x) => x + (random() - 0.5) * 0.1),
    pose: Float64Array.from({ length: 9 * B }, (_, i) => {
      const angle = random() * Math.PI;
      return [Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1][i % 9];
    }),
    poseSource: hidden ? 'frame 3 of random-poses.dmat' : `${name}.dmat`,
    hidden,
  });
  contents.scene.examples = [example('bent', false), example('twisted', true)];
  contents.settings.posespace = { kernel: 'linear' };
  return contents;
}

test('write then read with two examples: positions and poses bit for bit, names, sources, hidden flags and the kernel', async () => {
  const contents = withExamples(randomContents(12, 30, 6), 12);
  assert.ok(
    contents.scene.examples[0].positions.some((x) => Math.fround(x) !== x),
    'some example position is not a float32 (precondition: the file keeps float64)',
  );
  const bytes = await writeProjectFile(contents, 'examples.rig.glb');
  const json = jsonOf(bytes).extensions[PROJECT_EXTENSION];
  assert.equal(json.formatVersion, 2);
  assert.deepEqual(
    json.examples!.map((e) => [e.name, e.positions.length, e.pose.length, e.hidden]),
    [
      ['bent', 90, 54, false],
      ['twisted', 90, 54, true],
    ],
  );
  const read = readProjectFile(bytes, 'examples.rig.glb');
  assert.equal(read.formatVersion, 2);
  assertSameContents(read, contents);
  const again = await writeProjectFile(read, 'examples.rig.glb');
  assert.ok(Buffer.from(again).equals(Buffer.from(bytes)), 'the same contents write the same bytes');
});

test('a bad example is refused naming the example and the field', async () => {
  const contents = withExamples(randomContents(13, 30, 6), 13);
  const bytes = await writeProjectFile(contents, 'examples.rig.glb');
  const ext = (j: ProjectJson) => j.extensions[PROJECT_EXTENSION];
  const fewer = withJson(bytes, (j) => (ext(j).examples![1].positions.length = 87));
  refuses(
    () => readProjectFile(fewer, 'e.rig.glb'),
    /^e\.rig\.glb: RIGWRIGHT_project\.examples\[1\]\.positions: 29 vertices, the mesh has 30$/,
  );
  const shortPose = withJson(bytes, (j) => (ext(j).examples![0].pose.length = 45));
  refuses(
    () => readProjectFile(shortPose, 'e.rig.glb'),
    /^e\.rig\.glb: RIGWRIGHT_project\.examples\[0\]\.pose: a pose for 5 bones, the skeleton has 6$/,
  );
  const hidden = withJson(bytes, (j) => (ext(j).examples![1].hidden = 'no'));
  refuses(() => readProjectFile(hidden, 'e.rig.glb'), /^e\.rig\.glb: RIGWRIGHT_project\.examples\[1\]\.hidden: "no" is not true or false$/);
  const twice = withJson(bytes, (j) => (ext(j).examples![1].name = 'bent'));
  refuses(
    () => readProjectFile(twice, 'e.rig.glb'),
    /^e\.rig\.glb: RIGWRIGHT_project\.examples\[1\]\.name: "bent" is the name of an earlier example$/,
  );
  const noSection = withJson(bytes, (j) => void delete ext(j).examples);
  refuses(() => readProjectFile(noSection, 'e.rig.glb'), /^e\.rig\.glb: RIGWRIGHT_project\.examples: missing \(expected a list\)$/);
  // A non-finite coordinate: the bits of example 1's vertex 4 y set to Infinity.
  const json = jsonOf(bytes);
  const view = json.bufferViews[ext(json).examples![1].positions.bufferView];
  const inf = bytes.slice();
  new DataView(inf.buffer).setFloat64(20 + jsonLengthOf(bytes) + 8 + view.byteOffset + 8 * 13, Infinity, true);
  refuses(
    () => readProjectFile(inf, 'inf.rig.glb'),
    /^inf\.rig\.glb: RIGWRIGHT_project\.examples\[1\]\.positions: value 13 is Infinity, not a finite number$/,
  );
});

test('a file of a newer format is refused, saying so', async () => {
  const bytes = new Uint8Array(readFileSync(FIXTURE_PATH));
  const newer = withJson(bytes, (json) => (json.extensions[PROJECT_EXTENSION].formatVersion = 3));
  refuses(
    () => readProjectFile(newer, 'later.rig.glb'),
    /^later\.rig\.glb: RIGWRIGHT_project: written by a newer Rigwright \(format 3\); this version reads up to 2$/,
  );
  const none = withJson(bytes, (json) => (json.extensions[PROJECT_EXTENSION].formatVersion = 0));
  refuses(() => readProjectFile(none, 'zero.rig.glb'), /^zero\.rig\.glb: RIGWRIGHT_project\.formatVersion: 0 is not a format version$/);
  const written = await writeProjectFile(migratedFromFormatOne(fixtureContents()));
  assert.equal(readProjectFile(written, 'x').formatVersion, PROJECT_FORMAT_VERSION);
});

test('broken project files are refused with the file, the place and the reason', async () => {
  const bytes = new Uint8Array(readFileSync(FIXTURE_PATH));
  refuses(() => readProjectFile(bytes.subarray(0, 10), 'short.rig.glb'), /^short\.rig\.glb: header: 10 bytes is too short/);
  refuses(
    () => readProjectFile(bytes.subarray(0, bytes.length - 100), 'cut.rig.glb'),
    /^cut\.rig\.glb: header: the header says \d+ bytes, the file has \d+/,
  );
  const plain = await exportGltf(
    { mesh: fixtureContents().scene.mesh, skeleton: fixtureContents().scene.skeleton, weights: fixtureContents().scene.weights },
    'plain.glb',
  );
  assert.equal(isProjectFile(plain.bytes), false);
  assert.equal(isProjectFile(new TextEncoder().encode('v 0 0 0\n')), false);
  refuses(
    () => readProjectFile(plain.bytes, 'plain.glb'),
    /^plain\.glb: a glTF file but not a Rigwright project \(no RIGWRIGHT_project extension\)$/,
  );

  // A weight that is not a number: the bits of one float64 in the binary chunk set to NaN.
  const read = readProjectFile(bytes, FIXTURE_NAME);
  const json = jsonOf(bytes);
  const weightsView = json.bufferViews[json.extensions[PROJECT_EXTENSION].scene.weights.data.bufferView];
  const binStart = 20 + jsonLengthOf(bytes) + 8;
  const nan = bytes.slice();
  new DataView(nan.buffer).setFloat64(binStart + weightsView.byteOffset + 8 * 4, NaN, true);
  refuses(
    () => readProjectFile(nan, 'nan.rig.glb'),
    /^nan\.rig\.glb: RIGWRIGHT_project\.scene\.weights\.data: value 4 is NaN, not a finite number$/,
  );
  assert.equal(read.scene.weights.data[4], 0.1);

  const past = withJson(bytes, (j) => (j.bufferViews[j.extensions[PROJECT_EXTENSION].scene.handles.bufferView].byteOffset = 1e9));
  refuses(
    () => readProjectFile(past, 'past.rig.glb'),
    /^past\.rig\.glb: RIGWRIGHT_project\.scene\.handles: bufferView \d+ runs past the end of the binary chunk$/,
  );
  const huge = withJson(bytes, (j) => (j.extensions[PROJECT_EXTENSION].scene.weights.data.length = 4294967296));
  refuses(
    () => readProjectFile(huge, 'huge.rig.glb'),
    /^huge\.rig\.glb: RIGWRIGHT_project\.scene\.weights\.data: 4294967296 values, expected 18$/,
  );
  const badHandle = withJson(bytes, (j) => (j.extensions[PROJECT_EXTENSION].scene.weights.rows = 5));
  refuses(
    () => readProjectFile(badHandle, 'rows.rig.glb'),
    /^rows\.rig\.glb: RIGWRIGHT_project\.scene\.weights: 5 × 3 weights, the scene needs 6 × 3$/,
  );
  const badSetting = withJson(bytes, (j) => (j.extensions[PROJECT_EXTENSION].settings!.view.wireframe = 'yes'));
  refuses(
    () => readProjectFile(badSetting, 'set.rig.glb'),
    /^set\.rig\.glb: RIGWRIGHT_project\.settings\.view\.wireframe: expected a boolean, got "yes"$/,
  );
  const noCols = withJson(bytes, (j) => void delete (j.extensions[PROJECT_EXTENSION].scene.weights as { cols?: number }).cols);
  refuses(
    () => readProjectFile(noCols, 'cols.rig.glb'),
    /^cols\.rig\.glb: RIGWRIGHT_project\.scene\.weights\.cols: missing \(expected a count\)$/,
  );
  const noView = withJson(bytes, (j) => void delete (j.extensions[PROJECT_EXTENSION].scene.handles as { bufferView?: number }).bufferView);
  refuses(() => readProjectFile(noView, 'view.rig.glb'), /^view\.rig\.glb: RIGWRIGHT_project\.scene\.handles: bufferView missing$/);
  const noSettings = withJson(bytes, (j) => void delete j.extensions[PROJECT_EXTENSION].settings);
  assert.deepEqual(
    readProjectFile(noSettings, 'old.rig.glb').settings.view,
    defaultProjectSettings(6, 3).view,
    'missing settings take defaults',
  );
});
