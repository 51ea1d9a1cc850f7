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
import { dataFile } from './shared-data.ts';

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

/**
 * What a format 2 reader must make of format 1 contents: no examples, the Gaussian kernel and the binding defaults
 * (written out here: cotan Laplacian, the handles as they are, cylinders of 0.04 × the diagonal, nothing bound
 * rigidly, only exactly coincident vertices welded), all else as it was.
 */
function migratedFromFormatOne(v1: FormatOneContents): ProjectContents {
  return {
    formatVersion: 1,
    scene: { ...v1.scene, examples: [] },
    settings: {
      ...v1.settings,
      posespace: { kernel: 'gaussian' },
      binding: {
        source: 'current',
        laplacian: 'cotan',
        radiusFraction: 0.04,
        bindUnhandled: false,
        weldTolerance: 0,
        method: 'auto',
        voxelResolution: 128,
        falloff: 8,
      },
    },
  };
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
      scene: {
        weights: { rows: number; data: Ref; painted?: unknown };
        handles: Ref;
        clips: { poses: { rotations?: Ref; final?: Ref } }[];
        poses: { rotations?: Ref } | { clip: number } | null;
        gltfSource?: { jointNodes: Ref };
      };
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

test('the weights’ painted mark is saved and read back; a file without it is not painted; a mark that is not a boolean is refused', async () => {
  const contents = randomContents(16, 12, 6);
  const plainBytes = await writeProjectFile(contents, 'plain.rig.glb');
  assert.equal('painted' in jsonOf(plainBytes).extensions[PROJECT_EXTENSION].scene.weights, false, 'unpainted weights write no mark');
  assert.equal(readProjectFile(plainBytes, 'plain.rig.glb').scene.weightsPainted, undefined);

  const painted = { ...contents, scene: { ...contents.scene, weightsPainted: true } };
  const bytes = await writeProjectFile(painted, 'painted.rig.glb');
  assert.equal(jsonOf(bytes).extensions[PROJECT_EXTENSION].scene.weights.painted, true);
  const read = readProjectFile(bytes, 'painted.rig.glb');
  assert.equal(read.scene.weightsPainted, true, 'the mark comes back');
  assertSameContents(read, painted);
  assert.ok(Buffer.from(await writeProjectFile(read, 'painted.rig.glb')).equals(Buffer.from(bytes)), 'written again, the same bytes');

  const bad = withJson(bytes, (j) => (j.extensions[PROJECT_EXTENSION].scene.weights.painted = 'yes'));
  refuses(() => readProjectFile(bad, 'bad.rig.glb'), /^bad\.rig\.glb: RIGWRIGHT_project\.scene\.weights\.painted: .*"yes".*true or false/);
});

/** Two examples of a random scene: moved vertices (float64 that float32 cannot hold) and random rotations per bone. */
function withExamples(contents: ProjectContents, seed: number): ProjectContents {
  const random = seededRandom(seed);
  const B = contents.scene.skeleton.parents.length;
  /** #B rotations about z by random angles, row-major. */
  const randomPose = (): Float64Array => {
    const pose = new Float64Array(9 * B);
    for (let b = 0; b < B; b++) {
      const angle = random() * Math.PI;
      pose.set([Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1], 9 * b);
    }
    return pose;
  };
  const example = (name: string, hidden: boolean) => ({
    name,
    file: `${name}.obj`,
    positions: contents.scene.mesh.positions.map((x) => x + (random() - 0.5) * 0.1),
    pose: randomPose(),
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
  refuses(
    () => readProjectFile(bytes.subarray(0, 10), 'short.rig.glb'),
    /^short\.rig\.glb: GLB header: the file ends after 10 bytes, before the first chunk/,
  );
  refuses(
    () => readProjectFile(bytes.subarray(0, bytes.length - 100), 'cut.rig.glb'),
    /^cut\.rig\.glb: GLB header: the header gives a length of \d+ bytes \(byte 8\), the file has \d+; it looks truncated$/,
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

/** The file with entry `index` of the array `ref` (in the binary chunk) set to `value`: one number changed. */
function withNumber(bytes: Uint8Array, ref: Ref, index: number, value: number, type: 'float64' | 'int32' = 'float64'): Uint8Array {
  const view = jsonOf(bytes).bufferViews[ref.bufferView];
  const out = bytes.slice();
  const at = 20 + jsonLengthOf(bytes) + 8 + view.byteOffset;
  const data = new DataView(out.buffer);
  if (type === 'float64') data.setFloat64(at + 8 * index, value, true);
  else data.setInt32(at + 4 * index, value, true);
  return out;
}

const fixtureBytes = (): Uint8Array => new Uint8Array(readFileSync(FIXTURE_PATH));
const fixtureScene = (bytes: Uint8Array) => jsonOf(bytes).extensions[PROJECT_EXTENSION].scene;

test('a block that is not a rotation or a quaternion that is not a unit one is refused, naming the clip, frame and bone', () => {
  const bytes = fixtureBytes();
  const walk = fixtureScene(bytes).clips[0].poses.rotations!;
  const wave = fixtureScene(bytes).clips[1].poses.final!;
  // walk, frame 1, bone 2 is R_z(30°) = [c −s 0; s c 0; 0 0 1] (block 5, from value 45). Its c doubled: row 0 · row 0
  // = 4c² + s² = 3.25, so R·Rᵀ is off I by 2.25; det = 2c·c + s·s = 1.75.
  refuses(
    () => readProjectFile(withNumber(bytes, walk, 45, 2 * Math.cos(Math.PI / 6)), 'v1.rig.glb'),
    /^v1\.rig\.glb: RIGWRIGHT_project\.scene\.clips\[0\]\.poses\.rotations: frame 1, bone 2 is not a rotation: R·Rᵀ differs from the identity by 2\.25 \(det 1\.750\)$/,
  );
  // walk, frame 0, bone 1 is I (block 1): its last entry −1 makes a reflection, orthonormal with det −1.
  refuses(
    () => readProjectFile(withNumber(bytes, walk, 9 + 8, -1), 'v1.rig.glb'),
    /^v1\.rig\.glb: RIGWRIGHT_project\.scene\.clips\[0\]\.poses\.rotations: frame 0, bone 1 is not a rotation: det -1\.000, should be 1 \(a reflection\)$/,
  );
  // wave's bone 0 is the identity quaternion (0, 0, 0, 1): w = 2 makes it of length 2.
  refuses(
    () => readProjectFile(withNumber(bytes, wave, 3, 2), 'v1.rig.glb'),
    /^v1\.rig\.glb: RIGWRIGHT_project\.scene\.clips\[1\]\.poses\.final: bone 0: the quaternion \(0, 0, 0, 2\) has length 2\.000, not 1$/,
  );
  assert.deepEqual(readProjectFile(bytes, 'v1.rig.glb').notices, [], 'the fixture itself needs no correction');
});

test('a rotation or quaternion slightly off is renormalised with a notice; the others keep their bits', () => {
  const bytes = fixtureBytes();
  const walk = fixtureScene(bytes).clips[0].poses.rotations!;
  const wave = fixtureScene(bytes).clips[1].poses.final!;
  // walk, frame 0, bone 0 = diag(1.0004, 1, 1): R·Rᵀ off I by 1.0004² − 1 = 8.0016e-4 (within 1e-3), det 1.0004.
  // The nearest rotation (polar decomposition of a positive diagonal matrix) is I.
  const read = readProjectFile(withNumber(bytes, walk, 0, 1.0004), 'v1.rig.glb');
  assert.deepEqual(read.notices, [
    'v1.rig.glb: RIGWRIGHT_project.scene.clips[0].poses.rotations: 1 rotation was off by up to 8.0e-4 (the first: frame 0, bone 0); renormalised',
  ]);
  const expected = fixtureContents().scene.clips[0].poses;
  assert.equal(expected.kind, 'matrices');
  assertSameBits(read.scene.clips[0].poses.kind === 'matrices' ? read.scene.clips[0].poses.rotations : null, expected.rotations, 'walk');
  assert.equal(read.scene.poses, read.scene.clips[0].poses, 'the clip shown is the renormalised one');

  // wave's bone 1 is (0, 0, sin 0.3, cos 0.3): its w scaled by 1.0005 gives a length of √(sin² 0.3 + 1.0005² cos² 0.3),
  // about 1 + 0.0005 cos² 0.3 = 1 + 4.6e-4.
  const w = Math.cos(0.3) * 1.0005;
  const length = Math.hypot(Math.sin(0.3), w);
  const nearly = readProjectFile(withNumber(bytes, wave, 7, w), 'v1.rig.glb');
  assert.deepEqual(nearly.notices, [
    'v1.rig.glb: RIGWRIGHT_project.scene.clips[1].poses.final: 1 quaternion was off unit length by up to 4.6e-4 (the first: bone 1); renormalised',
  ]);
  const final = nearly.scene.clips[1].poses.kind === 'quaternions' ? nearly.scene.clips[1].poses.final : new Float64Array(0);
  assert.deepEqual(Array.from(final), [0, 0, 0, 1, 0, 0, Math.sin(0.3) / length, w / length, 0, 0, 0, 1]);
});

test('a weight row that breaks the partition of unity is normalised as import does, with a notice; rows within tolerance keep their bits', () => {
  const bytes = fixtureBytes();
  const weights = fixtureScene(bytes).weights.data;
  // Row 0 is (1, 0, 0): 0.5 in its first entry makes it sum to 0.5; divided by its sum it is (1, 0, 0) again.
  const half = readProjectFile(withNumber(bytes, weights, 0, 0.5), 'v1.rig.glb');
  assert.deepEqual(half.notices, [
    'v1.rig.glb: RIGWRIGHT_project.scene.weights.data: 1 vertices have weights that do not sum to 1 (farthest: 0.5000); normalized',
  ]);
  assertSameBits(half.scene.weights.data, fixtureContents().scene.weights.data, 'weights normalised back');
  // Row 1 is (0.9, 0.1, 0): −0.2 in its last entry is set to 0, the row sums to 1 again (0.9 + 0.1).
  const negative = readProjectFile(withNumber(bytes, weights, 5, -0.2), 'v1.rig.glb');
  assert.deepEqual(negative.notices, ['v1.rig.glb: RIGWRIGHT_project.scene.weights.data: 1 negative weights were set to 0']);
  assert.deepEqual(Array.from(negative.scene.weights.data.subarray(3, 6)), [0.9, 0.1, 0]);
  // Row 5 is (0, 1e-7, 1 − 1e-7): −1e-7 in its first entry is round-off (above −1e-6, sum off 1 by 1e-7): kept.
  const roundOff = readProjectFile(withNumber(bytes, weights, 15, -1e-7), 'v1.rig.glb');
  assert.deepEqual(roundOff.notices, []);
  assert.equal(roundOff.scene.weights.data[15], -1e-7);
});

test("an example's pose and the scene's own poses are checked as the clips are", async () => {
  const contents = withExamples(randomContents(16, 30, 6), 16);
  const own = contents.scene.poses;
  assert.ok(own?.kind === 'matrices', 'the random scene shows rotation matrices');
  // The shown poses as a sequence of their own (not one of the clips), written beside them.
  contents.scene.poses = { ...own, rotations: own.rotations.slice() };
  const bytes = await writeProjectFile(contents, 'ex.rig.glb');
  const ext = jsonOf(bytes).extensions[PROJECT_EXTENSION];
  assert.ok(ext.scene.poses !== null && 'rotations' in ext.scene.poses, 'the scene has poses of its own');
  // Example 1's bone 2 is a rotation about z: its last entry −1 makes a reflection.
  refuses(
    () => readProjectFile(withNumber(bytes, ext.examples![1].pose, 9 * 2 + 8, -1), 'ex.rig.glb'),
    /^ex\.rig\.glb: RIGWRIGHT_project\.examples\[1\]\.pose: bone 2 is not a rotation: det -1\.000, should be 1 \(a reflection\)$/,
  );
  // The own poses' frame 2, bone 3 (block 15) with its last entry 0: R·Rᵀ has 0 where I has 1, det 0.
  refuses(
    () => readProjectFile(withNumber(bytes, (ext.scene.poses as { rotations: Ref }).rotations, 9 * 15 + 8, 0), 'ex.rig.glb'),
    /^ex\.rig\.glb: RIGWRIGHT_project\.scene\.poses\.rotations: frame 2, bone 3 is not a rotation: R·Rᵀ differs from the identity by 1\.00 \(det 0\.000\)$/,
  );
  assert.deepEqual(readProjectFile(bytes, 'ex.rig.glb').notices, []);
});

test("the kept glTF's joint nodes are checked against it: nodes it has, joints of its skin, none twice", async () => {
  // CesiumMan has 22 nodes; its one skin's joints are nodes 3 … 21, the first seven 3, 12, 13, 20, 21, 17, 14.
  const contents = randomContents(17, 12, 7);
  const glb = new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  assert.deepEqual(glbJson<{ skins: { joints: number[] }[] }>(glb).skins[0].joints.slice(0, 7), [3, 12, 13, 20, 21, 17, 14]);
  contents.scene.gltfSource = {
    file: 'CesiumMan.glb',
    bytes: glb,
    resources: {},
    jointNodes: Int32Array.from([3, 12, 13, 20, 21, 17, 14]),
  };
  const bytes = await writeProjectFile(contents, 'cesium.rig.glb');
  assert.deepEqual(Array.from(readProjectFile(bytes, 'cesium.rig.glb').scene.gltfSource!.jointNodes), [3, 12, 13, 20, 21, 17, 14]);
  const jointNodes = jsonOf(bytes).extensions[PROJECT_EXTENSION].scene.gltfSource!.jointNodes;
  const P = 'cesium\\.rig\\.glb: RIGWRIGHT_project\\.scene\\.gltfSource\\.jointNodes';
  refuses(
    () => readProjectFile(withNumber(bytes, jointNodes, 3, 22, 'int32'), 'cesium.rig.glb'),
    new RegExp(`^${P}: bone 3 names node 22; CesiumMan\\.glb has nodes 0 to 21$`),
  );
  refuses(
    () => readProjectFile(withNumber(bytes, jointNodes, 3, 1, 'int32'), 'cesium.rig.glb'),
    new RegExp(`^${P}: bone 3 names node 1, which is not a joint of a skin in CesiumMan\\.glb$`),
  );
  refuses(
    () => readProjectFile(withNumber(bytes, jointNodes, 3, 3, 'int32'), 'cesium.rig.glb'),
    new RegExp(`^${P}: bone 3 names node 3, as bone 0 does$`),
  );
  refuses(
    () => readProjectFile(withNumber(bytes, jointNodes, 6, -1, 'int32'), 'cesium.rig.glb'),
    new RegExp(`^${P}: bone 6 names node -1; CesiumMan\\.glb has nodes 0 to 21$`),
  );
});

test('a project read from a Node Buffer (what readFileSync gives) reads the same arrays as from a plain Uint8Array', async () => {
  const { readFileSync } = await import('node:fs');
  const { FIXTURE_PATH } = await import('../make-project-fixture.ts');
  const buffer = readFileSync(FIXTURE_PATH);
  const fromBuffer = readProjectFile(buffer, 'fixture.rig.glb');
  const fromCopy = readProjectFile(new Uint8Array(buffer), 'fixture.rig.glb');
  assert.deepEqual(fromBuffer.scene.weights, fromCopy.scene.weights);
  assert.deepEqual(fromBuffer.scene.mesh.positions, fromCopy.scene.mesh.positions);
});
