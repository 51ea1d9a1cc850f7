/**
 * New skeletons (workers/rig/skeleton-build.ts): from joints and parents (a hand-made tree, and the course hand's
 * TGF turned into parents and back), with errors naming the file and the entry; put into a document by
 * replaceSkeleton as one undo step, on the fully loaded course body (poses, handles and examples dropped, weights by
 * bone distance for the new bones) and on a bare mesh with no bones; undo gives back every field as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTgf } from '../../workers/formats/tgf.ts';
import { replaceSkeleton, skeletonFromJointTree } from '../../workers/rig/skeleton-build.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { PROVISIONAL_WEIGHTS, assertConsistent, boneCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { assertNearestBoneWeighsMost } from './nearest-bone.ts';
import { bodyDocument } from './full-documents.ts';
import { dataFile } from './shared-data.ts';

test('skeleton from a joint tree: one bone per non-root joint, from its parent, named by its joint', () => {
  //      3
  //      |
  // 0 — 1 — 2      4 — 5 (a second root)
  const s = skeletonFromJointTree(
    {
      joints: [
        [0, 0, 0],
        [1, 0, 0],
        [2, 0, 0],
        [1, 1, 0],
        [5, 0, 0],
        [6, 0, 0],
      ],
      parents: [-1, 0, 1, 1, -1, 4],
      names: ['root', 'upper', 'lower', 'branch', 'other root', 'other'],
    },
    'tree.json',
  );
  assert.deepEqual([...s.bones], [0, 1, 1, 2, 1, 3, 4, 5], 'bones (parent joint, joint) in joint order');
  assert.deepEqual(s.names, ['upper', 'lower', 'branch', 'other']);
  assert.deepEqual([...s.joints], [0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0, 5, 0, 0, 6, 0, 0]);
  const skeleton = buildSkeleton({ joints: s.joints, bones: s.bones }, 'tree.json');
  assert.deepEqual([...skeleton.parents], [-1, 0, 0, -1], 'lower and branch hang from upper; two roots');
  const unnamed = skeletonFromJointTree(
    {
      joints: [
        [0, 0, 0],
        [0, 1, 0],
        [0, 2, 0],
      ],
      parents: [-1, 0, 1],
    },
    'chain.json',
  );
  assert.deepEqual(unnamed.names, ['bone 0', 'bone 1'], 'default names by bone index');
});

test('skeleton from a joint tree: the course hand’s TGF as parents gives back its bones', () => {
  const tgf = readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf');
  const J = tgf.joints.length / 3;
  const parents = new Array<number>(J).fill(-1);
  for (let b = 0; b < tgf.bones.length / 2; b++) parents[tgf.bones[2 * b + 1]] = tgf.bones[2 * b];
  const joints = Array.from({ length: J }, (_, j) => [...tgf.joints.subarray(3 * j, 3 * j + 3)]);
  const s = skeletonFromJointTree({ joints, parents }, 'hand.json');
  const pairs = (bones: Uint32Array): string[] =>
    Array.from({ length: bones.length / 2 }, (_, b) => `${bones[2 * b]}-${bones[2 * b + 1]}`).sort();
  assert.deepEqual(pairs(s.bones), pairs(tgf.bones), 'the same bones');
  assert.deepEqual(s.joints, tgf.joints, 'the same joints');
});

test('skeleton from a joint tree: bad input is refused, naming the file and the entry', () => {
  const ok = {
    joints: [
      [0, 0, 0],
      [1, 0, 0],
      [2, 0, 0],
      [3, 0, 0],
    ],
    parents: [-1, 0, 1, 2],
  };
  const cases: [unknown, string][] = [
    [[], 'bad.json: expected an object with "joints" and "parents"'],
    [
      {
        ...ok,
        joints: [
          [0, 0, 0],
          [1, 0, 0],
          [2, 0, 0],
          [3, Number.NaN, 0],
        ],
      },
      'bad.json: joints[3]: must be three finite numbers',
    ],
    [
      {
        ...ok,
        joints: [
          [0, 0, 0],
          [1, 0],
          [2, 0, 0],
          [3, 0, 0],
        ],
      },
      'bad.json: joints[1]: must be three finite numbers',
    ],
    [{ ...ok, parents: [-1, 0, 1] }, 'bad.json: parents: has 3 entries, but there are 4 joints'],
    [{ ...ok, parents: [-1, 0, 1, 4] }, 'bad.json: parents[3]: must be a joint index from 0 to 3, or -1 for a root'],
    [{ ...ok, parents: [-1, 0, 1.5, 2] }, 'bad.json: parents[2]: must be a joint index'],
    [{ ...ok, parents: [-1, 3, 1, 2] }, 'bad.json: parents[1]: joint 1 is its own ancestor: the parents form a cycle'],
    [{ ...ok, parents: [-1, 1, 1, 2] }, 'bad.json: parents[1]: a joint cannot be its own parent'],
    [{ ...ok, parents: [-1, -1, -1, -1] }, 'bad.json: parents: every joint is a root'],
    [{ ...ok, names: ['a', 'b', 'c'] }, 'bad.json: names: has 3 entries, but there are 4 joints'],
    [{ ...ok, names: ['a', 'b', 'c', 'b'] }, "bad.json: names[3]: the name 'b' is already joint 1's"],
    [{ ...ok, names: ['a', 'b', ' ', 'd'] }, 'bad.json: names[2]: a bone name cannot be empty or blank'],
    [{ ...ok, names: ['a', 'b', 'c\nd', 'e'] }, 'bad.json: names[2]: a bone name cannot hold a line break'],
    [{ ...ok, names: ['a', 'b', 7, 'e'] }, 'bad.json: names[2]: must be a string'],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => skeletonFromJointTree(input as Parameters<typeof skeletonFromJointTree>[0], 'bad.json'),
      (e: Error) => e.name === 'FormatError' && e.message.startsWith(message),
      message,
    );
  }
});

/** A two-bone chain up the middle of a document's mesh, with a branch, named. */
function chainFor(doc: SceneDocument): { joints: Float64Array; bones: Uint32Array; names: string[] } {
  let low = Infinity;
  let high = -Infinity;
  for (let i = 1; i < doc.mesh.positions.length; i += 3)
    [low, high] = [Math.min(low, doc.mesh.positions[i]), Math.max(high, doc.mesh.positions[i])];
  const h = (f: number): number => low + f * (high - low);
  return skeletonFromJointTree(
    {
      joints: [
        [0, h(0.3), 0],
        [0, h(0.6), 0],
        [0, h(0.9), 0],
        [0.1, h(0.7), 0],
      ],
      parents: [-1, 0, 1, 1],
      names: ['', 'spine', 'neck', 'arm'],
    },
    'chain.json',
  );
}

function assertReplaced(doc: SceneDocument, label: string): void {
  const skeleton = chainFor(doc);
  const edit = replaceSkeleton(doc, skeleton, 'chain.json', label);
  assert.equal(edit.label, label);
  assert.deepEqual([...(edit.newIndexOf ?? [])], new Array(boneCountOf(doc)).fill(-1), 'no old bone is kept');
  const store = new SceneStore(doc, new UndoHistory());
  store.edit(edit.label, edit.fields);
  const after = store.doc;
  assert.doesNotThrow(() => assertConsistent(after), 'consistent');
  assert.equal(store.history.undoCount, 1, 'one undo step');
  assert.deepEqual([...after.skeleton.bones], [...skeleton.bones]);
  assert.deepEqual([...after.skeleton.parents], [-1, 0, 0], 'neck and arm hang from spine');
  assert.deepEqual(after.boneNames, ['spine', 'neck', 'arm']);
  assert.equal(after.skeletonFile, 'chain.json');
  assert.equal(after.weightsSource, PROVISIONAL_WEIGHTS);
  assert.deepEqual(after.weights, boneDistanceWeights(doc.mesh.positions, after.skeleton), 'weights by bone distance');
  assertNearestBoneWeighsMost(doc.mesh.positions, after.skeleton, after.weights, label);
  for (let v = 0; v < after.weights.rows; v++) {
    const row = after.weights.data.subarray(3 * v, 3 * v + 3);
    assert.ok(Math.abs(row[0] + row[1] + row[2] - 1) < 1e-12, `vertex ${v}: weights sum to 1`);
  }
  assert.equal(after.poses, null);
  assert.equal(after.posesFile, null);
  assert.equal(after.handles, null);
  assert.equal(after.handlesFile, null);
  assert.equal(after.examples, undefined);
  assert.equal(after.clips, undefined);
  assert.equal(after.posedBones, undefined);
  assert.equal(after.paintLocks, undefined);
  assert.equal(after.boneScales, null);
  assert.ok(!after.bindingStale, 'the provisional binding is for these bones');
  assert.ok(store.history.undo(), 'undoes');
  for (const key of Object.keys({ ...doc, ...after }) as (keyof SceneDocument)[])
    assert.ok(store.doc[key] === doc[key], `undo gives back the same ${key}`);
}

test('replace skeleton: the loaded course body gets the new bones, provisional weights, and no old poses or examples', () => {
  const doc = bodyDocument();
  assert.ok(doc.poses && doc.handles && doc.examples?.length, 'the body comes with poses, handles and examples');
  assertReplaced(
    { ...doc, paintLocks: new Uint8Array(boneCountOf(doc)).fill(1), boneScales: new Float64Array(3 * boneCountOf(doc)).fill(2) },
    'Replace',
  );
});

test('replace skeleton: a bare mesh with no bones gets its first skeleton', () => {
  const body = bodyDocument();
  const bare = withDerived({
    name: 'reference.obj',
    meshFiles: ['reference.obj'],
    mesh: body.mesh,
    skeletonFile: null,
    skeleton: buildSkeleton({ joints: new Float64Array(0), bones: new Uint32Array(0) }, 'none'),
    weights: { rows: body.weights.rows, cols: 0, data: new Float64Array(0) },
    weightsSource: 'none',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
  assert.equal(boneCountOf(bare), 0);
  assertReplaced(bare, 'Build skeleton');
});

test('replace skeleton: names must be one per bone and distinct', () => {
  const doc = bodyDocument();
  const skeleton = chainFor(doc);
  assert.throws(() => replaceSkeleton(doc, { ...skeleton, names: ['a', 'b'] }, 's.tgf', 'x'), /s\.tgf: names: 2 names for 3 bones/);
  assert.throws(
    () => replaceSkeleton(doc, { ...skeleton, names: ['a', 'b', 'a'] }, 's.tgf', 'x'),
    /s\.tgf: bone 2: the name 'a' is already bone 0's/,
  );
  assert.throws(
    () => replaceSkeleton(doc, { ...skeleton, names: ['a', 'b\nc', 'd'] }, 's.tgf', 'x'),
    /s\.tgf: bone 1: a bone name cannot hold a line break/,
  );
  assert.throws(
    () => replaceSkeleton(doc, { ...skeleton, bones: Uint32Array.from([0, 1, 2, 1, 1, 3]) }, 's.tgf', 'x'),
    /s\.tgf: bone 1: joint 2 is the end of both bone 0 and bone 1/,
  );
});
