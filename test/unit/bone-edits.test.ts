/**
 * The bone edits (workers/rig/bone-edits.ts) on the course hand, the context-aware body and CesiumMan with every
 * bone-indexed field: each edit applies through a real SceneStore as one undo step that gives back the very same
 * arrays; deleted weight goes to the parent column by column with row sums kept; insert-then-delete and a reorder
 * and its inverse are the identity; posed world rotations survive a delete, a reorder and a re-parent (forward
 * kinematics before and after); CesiumMan's keyframe curves still evaluate to the stored frames after a delete; the
 * input document is never changed; refusals say why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteBone, insertBone, moveJoints, renameBone, reorderBones, reparentBone } from '../../workers/rig/bone-edits.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { evaluateKeyframeCurves } from '../../workers/rig/keyframe-curves.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { appliedEdit, bodyDocument, fullCesiumMan, handDocument, worldTransforms } from './full-documents.ts';
import { seededRandom } from './seeded-random.ts';

/** The fields a bone edit may change, for comparing documents. */
function boneState(doc: SceneDocument): unknown {
  const { joints, bones, parents, order } = doc.skeleton;
  return {
    skeleton: { joints, bones, parents, order },
    weights: doc.weights,
    handles: doc.handles,
    boneScales: doc.boneScales,
    boneNames: doc.boneNames,
    paintLocks: doc.paintLocks,
    poses: doc.poses,
    clips: doc.clips,
    examples: doc.examples,
    jointNodes: doc.gltfSource?.jointNodes,
  };
}

/**
 * Asserts that new bone b's world transform equals old bone source[b]'s at every frame: the rotation always, the
 * translation part when `positions`.
 */
function assertWorldKept(
  before: Float64Array[],
  after: Float64Array[],
  source: (b: number) => number,
  bones: Iterable<number>,
  positions: boolean,
  tolerance: number,
  what: string,
): void {
  assert.equal(after.length, before.length, `${what}: frame count`);
  for (let f = 0; f < before.length; f++)
    for (const b of bones) {
      const o = source(b);
      for (let k = 0; k < 12; k++) {
        if (!positions && k % 4 === 3) continue;
        const d = Math.abs(after[f][12 * b + k] - before[f][12 * o + k]);
        if (!(d <= tolerance)) assert.fail(`${what}: frame ${f}, bone ${b} (was ${o}), entry ${k} off by ${d}`);
      }
    }
}

/** The documents' own pose sequences keep each bone's posed world transform (assertWorldKept on every frame). */
function assertPosesKept(
  doc: SceneDocument,
  after: SceneDocument,
  source: (b: number) => number,
  bones: Iterable<number>,
  what: string,
  { positions = false, tolerance = 1e-12 }: { positions?: boolean; tolerance?: number } = {},
): void {
  assertWorldKept(worldTransforms(doc, doc.poses!), worldTransforms(after, after.poses!), source, bones, positions, tolerance, what);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('deleting a bone gives its weight to its parent, keeps every row sum, and keeps posed world rotations (hand)', () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const { parents } = doc.skeleton;
  // A bone in the middle of a finger: it has a parent and children.
  const d = range(B).find((b) => parents[b] >= 0 && parents.includes(b))!;
  assert.ok(d !== undefined, 'the hand has a bone with a parent and a child');
  const p = parents[d];
  const children = range(B).filter((b) => parents[b] === d);
  const after = appliedEdit(doc, (x) => deleteBone(x, d));
  const kept = range(B).filter((b) => b !== d);
  const newIndex = (o: number): number => kept.indexOf(o);
  assert.equal(boneCountOf(after), B - 1, 'one bone fewer');
  assert.equal(after.skeleton.joints.length, doc.skeleton.joints.length - 3, 'the deleted bone’s end joint is gone');
  for (const c of children) {
    const s = 3 * after.skeleton.bones[2 * newIndex(c)];
    const ds = 3 * doc.skeleton.bones[2 * d];
    assert.deepStrictEqual(
      after.skeleton.joints.slice(s, s + 3),
      doc.skeleton.joints.slice(ds, ds + 3),
      'a child starts where the deleted bone did',
    );
    assert.equal(after.skeleton.parents[newIndex(c)], newIndex(p), 'a child hangs from the deleted bone’s parent');
  }
  const V = doc.weights.rows;
  const w = doc.weights.data;
  const w2 = after.weights.data;
  for (let v = 0; v < V; v++) {
    assert.equal(
      w2[v * (B - 1) + newIndex(p)],
      w[v * B + p] + w[v * B + d],
      `vertex ${v}: the parent’s weight is its own plus the deleted one’s`,
    );
    for (const o of kept)
      if (o !== p) assert.equal(w2[v * (B - 1) + newIndex(o)], w[v * B + o], `vertex ${v}, bone ${o}: weight unchanged`);
  }
  for (let v = 0; v < doc.handles!.length; v++) {
    const h = doc.handles![v];
    const expected = h < 0 ? h : h === d ? newIndex(p) : newIndex(h);
    assert.equal(after.handles![v], expected, `vertex ${v}: its handle follows its bone (a deleted bone’s to the parent)`);
  }
  assertPosesKept(doc, after, (b) => kept[b], range(B - 1), 'hand delete');
});

test('deleting a bone keeps each weight row’s sum on the body’s harmonic weights, which are not exactly 1-summing', () => {
  const doc = bodyDocument();
  const B = boneCountOf(doc);
  const V = doc.weights.rows;
  const sums = (data: Float64Array, cols: number): Float64Array =>
    Float64Array.from({ length: V }, (_, v) => data.subarray(v * cols, (v + 1) * cols).reduce((a, x) => a + x, 0));
  const before = sums(doc.weights.data, B);
  assert.ok(
    before.some((s) => s !== 1),
    'the course weights do not all sum to exactly 1, so the check below is not trivially about 1',
  );
  for (const d of [1, B - 1, doc.skeleton.order[0]]) {
    const after = appliedEdit(doc, (x) => deleteBone(x, d));
    const rows = sums(after.weights.data, B - 1);
    for (let v = 0; v < V; v++)
      assert.ok(Math.abs(rows[v] - before[v]) <= 1e-12, `bone ${d} deleted: row ${v} sums to ${rows[v]}, was ${before[v]}`);
    assert.equal(after.examples!.length, 4, 'the examples stay');
    // The examples' poses follow: each keeps its bones' world rotations.
    const kept = range(B).filter((b) => b !== d);
    for (const [e, example] of after.examples!.entries()) {
      const old = doc.examples![e].pose;
      const seq = (pose: Float64Array, n: number): PoseSequence => ({ kind: 'matrices', boneCount: n, frameCount: 1, rotations: pose });
      assertWorldKept(
        worldTransforms(doc, seq(old, B)),
        worldTransforms(after, seq(example.pose, B - 1)),
        (b) => kept[b],
        range(B - 1),
        false,
        1e-12,
        `example ${e}`,
      );
    }
    assertPosesKept(doc, after, (b) => kept[b], range(B - 1), `body delete ${d}`);
  }
});

test('deleting a bone of the quaternion hand pose composes the children’s quaternions with the deleted one’s', () => {
  const doc = handDocument('quaternions');
  const B = boneCountOf(doc);
  const { parents } = doc.skeleton;
  for (const d of range(B).filter((b) => parents.includes(b))) {
    const after = appliedEdit(doc, (x) => deleteBone(x, d));
    const kept = range(B).filter((b) => b !== d);
    assertPosesKept(doc, after, (b) => kept[b], range(B - 1), `quaternion delete ${d}`);
  }
});

test('deleting a root gives its weight to its first child, the children becoming roots at its start', () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const root = doc.skeleton.order[0];
  const children = range(B).filter((b) => doc.skeleton.parents[b] === root);
  assert.ok(children.length > 0, 'the hand’s root has children');
  const after = appliedEdit(doc, (x) => deleteBone(x, root));
  const kept = range(B).filter((b) => b !== root);
  const first = kept.indexOf(children[0]);
  for (const c of children) assert.equal(after.skeleton.parents[kept.indexOf(c)], -1, `bone ${c} is a root now`);
  for (let v = 0; v < doc.weights.rows; v++)
    assert.equal(
      after.weights.data[v * (B - 1) + first],
      doc.weights.data[v * B + children[0]] + doc.weights.data[v * B + root],
      `vertex ${v}`,
    );
  assertPosesKept(doc, after, (b) => kept[b], range(B - 1), 'root delete');
});

test('inserting a bone and deleting it again is the identity on every field', async () => {
  const hand = handDocument();
  const cesium = await fullCesiumMan();
  for (const doc of [hand, cesium]) {
    const B = boneCountOf(doc);
    const { parents } = doc.skeleton;
    const p = range(B).find((b) => parents.filter((x) => x === b).length >= 2) ?? range(B).find((b) => parents.includes(b))!;
    const children = range(B).filter((b) => parents[b] === p);
    for (const takeChildren of [[], children.slice(0, 1)]) {
      const inserted = appliedEdit(doc, (x) =>
        insertBone(x, { parent: p, tip: [0.01, 0.02, 0.03], takeChildren, ...(doc.boneNames ? { name: 'extra' } : {}) }),
      );
      assert.equal(boneCountOf(inserted), B + 1, 'one bone more');
      assert.equal(inserted.skeleton.parents[B], p, 'the new bone hangs from the parent');
      for (const c of takeChildren) assert.equal(inserted.skeleton.parents[c], B, `bone ${c} is the new bone’s child`);
      for (let v = 0; v < doc.weights.rows; v++) assert.equal(inserted.weights.data[v * (B + 1) + B], 0, 'the new column is 0');
      assert.equal(inserted.boneNames?.[B], doc.boneNames ? 'extra' : undefined, 'the new bone has its name where bones have names');
      if (doc.gltfSource) assert.equal(inserted.gltfSource!.jointNodes[B], -1, 'the new bone has no node in the file');
      const hasTranslations = doc.poses?.kind === 'matrices' && doc.poses.translations !== undefined;
      // The taken children keep their posed world rotation (and transform, where translations say it).
      assertPosesKept(doc, inserted, (b) => b, range(B), 'insert', { positions: hasTranslations, tolerance: 1e-9 });
      const back = appliedEdit(inserted, (x) => deleteBone(x, B));
      if (hasTranslations && takeChildren.length > 0) {
        // Translations of the children are re-expressed twice: equal up to rounding.
        const exact = (d: SceneDocument): unknown => {
          const strip = (s: PoseSequence | null | undefined): unknown => (s?.kind === 'matrices' ? { ...s, translations: null } : s);
          return { ...(boneState(d) as object), poses: strip(d.poses), clips: d.clips?.map((c) => ({ ...c, poses: strip(c.poses) })) };
        };
        assert.deepStrictEqual(
          exact(back),
          exact(doc),
          'insert then delete: every field but the re-expressed translations is exactly as before',
        );
        const t0 = (doc.poses as { translations: Float64Array }).translations;
        const t1 = (back.poses as { translations: Float64Array }).translations;
        for (let i = 0; i < t0.length; i++) assert.ok(Math.abs(t1[i] - t0[i]) <= 1e-12, `translation ${i}: ${t1[i]} vs ${t0[i]}`);
      } else {
        assert.deepStrictEqual(
          boneState(back),
          boneState(doc),
          `insert then delete (${takeChildren.length} children taken) is the identity`,
        );
      }
    }
  }
});

test('reordering by a permutation and then by its inverse is the identity and keeps every bone’s world transform', async () => {
  const random = seededRandom(7);
  for (const doc of [handDocument(), bodyDocument(), await fullCesiumMan()]) {
    const B = boneCountOf(doc);
    const order = range(B);
    for (let i = B - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const inverse = new Array<number>(B);
    order.forEach((o, i) => (inverse[o] = i));
    const permuted = appliedEdit(doc, (x) => reorderBones(x, order));
    assertPosesKept(doc, permuted, (b) => order[b], range(B), 'reorder', { positions: true });
    if (doc.boneNames) assert.equal(permuted.boneNames![0], doc.boneNames[order[0]], 'names follow their bones');
    const back = appliedEdit(permuted, (x) => reorderBones(x, inverse));
    assert.deepStrictEqual(boneState(back), boneState(doc), `${doc.name}: reorder then the inverse is the identity`);
  }
});

test('CesiumMan: a delete keeps every bone’s posed transform, and the keyframe curves still evaluate to the stored frames', async () => {
  const doc = await fullCesiumMan();
  const B = boneCountOf(doc);
  const { parents } = doc.skeleton;
  for (const d of range(B)
    .filter((b) => parents[b] >= 0 && parents.includes(b))
    .slice(0, 3)) {
    const after = appliedEdit(doc, (x) => deleteBone(x, d));
    const kept = range(B).filter((b) => b !== d);
    assertPosesKept(doc, after, (b) => kept[b], range(B - 1), `delete ${d}`, { positions: true, tolerance: 1e-9 });
    const seq = after.poses!;
    assert.ok(seq.kind === 'matrices' && seq.curves && seq.times && seq.translations, 'the curves are kept');
    assert.equal(after.clips![0].poses, seq, 'the shown poses are still the clip’s');
    assert.equal(after.clips![0].source, doc.clips![0].source, 'the file’s animation still says the clip');
    const R = new Float64Array(9 * (B - 1));
    const T = new Float64Array(3 * (B - 1));
    // The file's joint matrices are float32 and rigid only to their stretch (the curves' worstScale); a head moved
    // to another joint is placed by the joint matrix, so it is off by up to that stretch times the mesh's size.
    const measure = { worstScale: 0, farthest: 0 };
    for (let f = 0; f < seq.frameCount; f++) evaluateKeyframeCurves(seq.curves, seq.times[f], R, T, measure);
    const tolerance = 2 * measure.worstScale * doc.diagonal + 1e-12;
    assert.ok(tolerance < 1e-5 * doc.diagonal, `the file's joints are rigid to ${measure.worstScale}`);
    for (let f = 0; f < seq.frameCount; f++) {
      evaluateKeyframeCurves(seq.curves, seq.times[f], R, T);
      for (let i = 0; i < R.length; i++)
        assert.ok(Math.abs(R[i] - seq.rotations[9 * (B - 1) * f + i]) <= 1e-9, `delete ${d}, frame ${f}: curves’ rotation ${i}`);
      for (let i = 0; i < T.length; i++)
        assert.ok(
          Math.abs(T[i] - seq.translations[3 * (B - 1) * f + i]) <= tolerance,
          `delete ${d}, frame ${f}: curves’ translation ${i}: ${T[i]} vs ${seq.translations[3 * (B - 1) * f + i]}`,
        );
    }
    assert.deepStrictEqual(after.boneScales!.slice(0, 3), doc.boneScales!.slice(0, 3), 'scales follow their bones');
    if (d !== 1) assert.equal(after.paintLocks![kept.indexOf(1)], 1, 'locks follow their bones');
    assert.equal(
      after.paintLocks!.reduce((a, x) => a + x, 0),
      d === 1 ? 0 : 1,
      'no other bone locked',
    );
  }
});

test('re-parenting keeps the bone’s posed world rotation, its subtree following; re-parenting into its own subtree is refused', async () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const { parents } = doc.skeleton;
  const bone = range(B).find((b) => parents[b] >= 0 && parents[parents[b]] >= 0 && parents.includes(b))!;
  const target = doc.skeleton.order[0];
  const after = appliedEdit(doc, (x) => reparentBone(x, bone, target));
  assert.equal(after.skeleton.parents[bone], target, 'the new parent');
  assertPosesKept(doc, after, (b) => b, range(B), 're-parent');
  const rooted = appliedEdit(doc, (x) => reparentBone(x, bone, null));
  assert.equal(rooted.skeleton.parents[bone], -1, 'a root');
  assert.equal(rooted.skeleton.joints.length, doc.skeleton.joints.length + 3, 'with a start joint of its own');
  assertPosesKept(doc, rooted, (b) => b, range(B), 'to root');
  const child = range(B).find((b) => parents[b] === bone)!;
  assert.throws(() => reparentBone(doc, bone, child), /cycle/, 'under its own child');
  assert.throws(() => reparentBone(doc, bone, bone), /cycle/, 'under itself');
  assert.throws(() => reparentBone(doc, bone, parents[bone]), /already the parent/, 'the same parent');

  const cesium = await fullCesiumMan();
  const cb = range(boneCountOf(cesium)).find((b) => cesium.skeleton.parents[b] > 0)!;
  const moved = appliedEdit(cesium, (x) => reparentBone(x, cb, 0));
  assertPosesKept(cesium, moved, (b) => b, range(boneCountOf(cesium)), 'CesiumMan re-parent', { positions: true, tolerance: 1e-9 });
  assert.equal(moved.clips![0].source, undefined, 'the clip no longer is the file’s animation');
  assert.equal(moved.clips![0].from, cesium.clips![0].source, 'it says which it came from');
});

test('moving joints and renaming bones are one step each, and names are made when the document had none', () => {
  const doc = handDocument();
  const moved = appliedEdit(doc, (x) => moveJoints(x, [{ joint: 2, position: [0.1, 0.2, 0.3] }]));
  assert.deepStrictEqual(Array.from(moved.skeleton.joints.slice(6, 9)), [0.1, 0.2, 0.3], 'the joint moved');
  assert.equal(moved.poses, doc.poses, 'poses stay');
  const named = appliedEdit(doc, (x) => renameBone(x, 3, 'index tip'));
  assert.equal(named.boneNames!.length, boneCountOf(doc), 'a name per bone');
  assert.equal(named.boneNames![3], 'index tip', 'the new name');
  assert.equal(named.boneNames![0], 'bone 0', 'the others named by index');
  assert.throws(() => renameBone(named, 4, 'index tip'), /already used by bone 3/, 'a duplicate name');
  assert.throws(() => renameBone(named, 4, '  '), /cannot be empty/, 'an empty name');
  // A name a names file could not hold is refused here, not later when the skeleton is saved.
  assert.throws(() => renameBone(named, 4, 'a\nb'), /a bone name cannot hold a line break: “a\\u000ab”/, 'a line break');
  assert.throws(() => insertBone(named, { parent: 0, tip: [0, 0, 0], name: '\ufeffx' }), /byte-order mark/, 'a leading byte-order mark');
  assert.throws(() => moveJoints(doc, [{ joint: 99, position: [0, 0, 0] }]), /joint 99 is out of range/, 'a joint out of range');
});

test('refusals name the reason', () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  assert.throws(() => deleteBone(doc, B), new RegExp(`bone ${B} is out of range`), 'a bone out of range');
  assert.throws(() => insertBone(doc, { parent: -1, tip: [0, 0, 0] }), /parent -1 is out of range/, 'a parent out of range');
  assert.throws(() => insertBone(doc, { parent: null, tip: [0, 0, 0] }), /needs a head/, 'a root without a head');
  assert.throws(() => insertBone(doc, { parent: 0, tip: [0, Number.NaN, 0] }), /three finite numbers/, 'a NaN tip');
  const notChild = range(B).find((b) => doc.skeleton.parents[b] !== 0)!;
  assert.throws(
    () => insertBone(doc, { parent: 0, tip: [0, 0, 0], takeChildren: [notChild] }),
    /is not a child of bone 0/,
    'a child of another bone',
  );
  assert.throws(() => reorderBones(doc, range(B - 1)), /lists 19 bones, the skeleton has 20/, 'an order too short');
  assert.throws(() => reorderBones(doc, [0, ...range(B - 1)]), /listed twice/, 'not a permutation');
  const withRoot = appliedEdit(doc, (x) => insertBone(x, { parent: null, head: [1, 1, 1], tip: [1, 2, 1] }));
  assert.throws(() => deleteBone(withRoot, B), /root without children/, 'a lone root');
  assert.throws(() => reparentBone(withRoot, B, null), /already a root/, 'a root to the root');
  // The last bone: delete bones with a parent until the root alone is left.
  let lone = doc;
  while (boneCountOf(lone) > 1) {
    const b = lone.skeleton.parents.findIndex((p) => p >= 0);
    lone = appliedEdit(lone, (x) => deleteBone(x, b));
  }
  assert.equal(lone.weights.cols, 1, 'one weight column');
  for (let v = 0; v < lone.weights.rows; v++)
    assert.ok(Math.abs(lone.weights.data[v] - 1) <= 1e-12, `vertex ${v}: the last bone has all the weight`);
  // The only bone deleted: the mesh is bare again, with nothing left that belonged to the bones; undo brings it back.
  const store = new SceneStore(lone, new UndoHistory());
  const edit = deleteBone(lone, 0);
  assert.deepEqual(Array.from(edit.newIndexOf!), [-1], 'the selected bone goes');
  store.edit(edit.label, edit.fields);
  const bare = store.doc;
  assert.equal(boneCountOf(bare), 0, 'no bones');
  assert.equal(bare.skeleton.joints.length, 0, 'no joints');
  assert.deepEqual([bare.weights.rows, bare.weights.cols, bare.weights.data.length], [lone.weights.rows, 0, 0], '#V × 0 weights');
  assert.equal(bare.poses, null, 'the rest pose');
  assert.equal(bare.clips, undefined, 'no clips');
  assert.equal(bare.mesh, lone.mesh, 'the mesh stays');
  store.history.undo();
  assert.equal(store.doc.skeleton, lone.skeleton, 'undo: the bone back');
  assert.equal(store.doc.weights, lone.weights, 'undo: its weights back');
  assert.equal(store.doc.handles, lone.handles, 'undo: the handles back');
});

test('an inserted root bone plays at rest; the clips lose the curves (no node for it) but keep their frames', async () => {
  const doc = await fullCesiumMan();
  const B = boneCountOf(doc);
  const after = appliedEdit(doc, (x) => insertBone(x, { parent: null, head: [0, 0, 0], tip: [0, 0, 1] }));
  const seq = after.poses!;
  assert.ok(seq.kind === 'matrices' && !seq.curves, 'no curves');
  assertPosesKept(doc, after, (b) => b, range(B), 'root insert', { positions: true, tolerance: 1e-15 });
  const transforms = new Float64Array(12 * (B + 1));
  forwardKinematics(after.skeleton, seq.rotations.subarray(0, 9 * (B + 1)), transforms, seq.translations!.subarray(0, 3 * (B + 1)));
  assert.deepStrictEqual(
    Array.from(transforms.subarray(12 * B, 12 * B + 12)),
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
    'the new root stays at rest',
  );
  assert.equal(after.boneNames![B], `bone ${B}`, 'a default name');
});

test('an edit that numbers the bones anew says where each old bone went; one that keeps the numbers says nothing', () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const leaf = doc.skeleton.parents.findIndex((_, b) => !doc.skeleton.parents.includes(b) && b < B - 1);
  assert.ok(leaf >= 0, 'the hand has a leaf bone that is not the last');
  const deleted = deleteBone(doc, leaf).newIndexOf!;
  assert.deepEqual(
    [...deleted],
    Array.from({ length: B }, (_, b) => (b < leaf ? b : b === leaf ? -1 : b - 1)),
    'the bones after the deleted one move down by one',
  );
  const order = Array.from({ length: B }, (_, i) => (i + 3) % B);
  const reordered = reorderBones(doc, order).newIndexOf!;
  for (let i = 0; i < B; i++) assert.equal(reordered[order[i]], i, `old bone ${order[i]} is new bone ${i}`);
  assert.equal(renameBone(doc, 0, 'palm').newIndexOf, undefined, 'a rename keeps every number');
  const inserted = insertBone(doc, { parent: 0, tip: [0, 0, 0] });
  assert.equal(inserted.newIndexOf, undefined, 'an inserted bone is appended: the others keep their numbers');
});
