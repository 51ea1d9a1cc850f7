/**
 * Edits keep the rig consistent: deleting a bone of the course hand hands its weights to its parent with every row
 * still summing to 1; the edits that change the skeleton's topology or rest joints mark the binding stale and those
 * that do not leave it; weights made anew (computed by the binding controller, or read or bound with a new rig)
 * clear it, undo puts it back, and a project keeps it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { deleteBone, insertBone, moveJoints, renameBone, reorderBones, reparentBone } from '../../workers/rig/bone-edits.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { handDocument } from './full-documents.ts';
import { bindInProcess, headlessBindingController } from './headless-hosts.ts';
import { inProcessIo } from './in-process-io.ts';
import { dataFile } from './shared-data.ts';

/** Σ_b w[v, b] for every row. */
function rowSums(doc: SceneDocument): Float64Array {
  const { rows, cols, data } = doc.weights;
  const sums = new Float64Array(rows);
  for (let v = 0; v < rows; v++) for (let b = 0; b < cols; b++) sums[v] += data[v * cols + b];
  return sums;
}

test('deleting any bone of the course hand hands its weights to its parent (a root’s to its first child): rows still sum to 1 within 1e-12', () => {
  const hand = handDocument();
  const B = hand.skeleton.parents.length;
  const before = rowSums(hand);
  for (const sum of before) assert.ok(Math.abs(sum - 1) < 1e-12, `the hand's weights are a partition of unity (row sum ${sum})`);
  let deleted = 0;
  for (let bone = 0; bone < B; bone++) {
    const parent = hand.skeleton.parents[bone];
    const children = Array.from(hand.skeleton.parents.keys()).filter((c) => hand.skeleton.parents[c] === bone);
    if (parent < 0 && children.length === 0) continue; // refused: its weights would have nowhere to go
    const edit = deleteBone(hand, bone);
    const after: SceneDocument = { ...hand, ...edit.fields };
    const { newIndexOf } = edit;
    assert.ok(newIndexOf, `deleting bone ${bone} numbers the bones anew`);
    assert.equal(newIndexOf[bone], -1, `bone ${bone} is gone`);
    const heir = parent >= 0 ? parent : children[0];
    const { rows, cols } = hand.weights;
    const w = hand.weights.data;
    const w2 = after.weights.data;
    assert.equal(after.weights.cols, cols - 1);
    for (let v = 0; v < rows; v++) {
      for (let b = 0; b < cols; b++) {
        if (b === bone) continue;
        const expected = b === heir ? w[v * cols + heir] + w[v * cols + bone] : w[v * cols + b];
        assert.equal(w2[v * (cols - 1) + newIndexOf[b]], expected, `vertex ${v}, bone ${b} after deleting bone ${bone}`);
      }
    }
    const sums = rowSums(after);
    for (let v = 0; v < rows; v++)
      assert.ok(Math.abs(sums[v] - 1) < 1e-12, `deleting bone ${bone}: row ${v} sums to ${sums[v]}, not 1 within 1e-12`);
    assert.equal(after.bindingStale, true, `deleting bone ${bone} marks the binding stale`);
    deleted++;
  }
  assert.equal(deleted, B, 'every bone of the hand, its root included, can be deleted');
});

test('insert, delete, re-parent and joint moves mark the binding stale; rename and reorder leave it as it is', () => {
  const hand = handDocument();
  const B = hand.skeleton.parents.length;
  const leaf = Array.from(hand.skeleton.parents.keys()).find((b) => !hand.skeleton.parents.includes(b))!;
  const root = hand.skeleton.parents.indexOf(-1);
  const stale = {
    insert: insertBone(hand, { parent: leaf, tip: [0.1, 0.2, 0.3] }),
    delete: deleteBone(hand, leaf),
    reparent: reparentBone(hand, leaf, root === hand.skeleton.parents[leaf] ? hand.skeleton.parents[hand.skeleton.parents[leaf]] : root),
    move: moveJoints(hand, [{ joint: hand.skeleton.bones[2 * leaf + 1], position: [0, 0, 0] }]),
  };
  for (const [name, edit] of Object.entries(stale)) assert.equal(edit.fields.bindingStale, true, `${name} marks the binding stale`);
  const kept = {
    rename: renameBone(hand, leaf, 'fingertip'),
    reorder: reorderBones(
      hand,
      Array.from({ length: B }, (_, b) => B - 1 - b),
    ),
  };
  for (const [name, edit] of Object.entries(kept)) assert.ok(!('bindingStale' in edit.fields), `${name} does not touch the binding`);
  // A rename of a stale scene keeps it stale: the store keeps the fields the edit does not name.
  const store = new SceneStore({ ...hand, bindingStale: true }, new UndoHistory());
  store.edit(kept.rename.label, kept.rename.fields);
  assert.equal(store.doc.bindingStale, true, 'still stale after a rename');
});

test('computing weights clears the stale mark; undo brings it back with the old weights', async () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const controller = headlessBindingController(store, {
    running: false,
    cancel: () => undefined,
    bindMesh: bindInProcess,
  });
  const leaf = Array.from(store.doc.skeleton.parents.keys()).find((b) => !store.doc.skeleton.parents.includes(b))!;
  const edit = deleteBone(store.doc, leaf);
  store.edit(edit.label, edit.fields);
  assert.equal(store.doc.bindingStale, true, 'stale after the delete');
  const staleWeights = store.doc.weights;
  await controller.startBind({ source: 'distance', method: 'surface' });
  assert.equal(history.undoLabels().at(-1), 'Compute weights');
  assert.equal(store.doc.bindingStale, undefined, 'bound again: up to date');
  history.undo();
  assert.equal(store.doc.bindingStale, true, 'undoing the bind makes it stale again');
  assert.equal(store.doc.weights, staleWeights);
  history.undo();
  assert.equal(store.doc.bindingStale, undefined, 'undoing the delete too: the scene as it was');
});

test('loading: a weights file or a new rig clears the stale mark, a pose file alone keeps it', async () => {
  const hand = { ...handDocument(), bindingStale: true };
  const { rows, cols, data } = hand.weights;
  const weightsFile = { name: 'w.dmat', bytes: new TextEncoder().encode(writeDmatAscii({ rows, cols, data })) };
  const poseFile = { name: 'hand-pose_quat.dmat', bytes: new Uint8Array(readFileSync(dataFile('hand', 'hand-pose_quat.dmat'))) };
  const tgf = { name: 'hand.tgf', bytes: new Uint8Array(readFileSync(dataFile('hand', 'hand.tgf'))) };
  assert.equal((await loadIntoDocument(hand, [poseFile], inProcessIo)).bindingStale, true, 'new poses: still stale');
  assert.equal((await loadIntoDocument(hand, [weightsFile], inProcessIo)).bindingStale, undefined, 'weights read anew');
  assert.equal((await loadIntoDocument(hand, [tgf], inProcessIo)).bindingStale, undefined, 'a new skeleton is bound anew');
});

test('a project keeps the stale mark (and a scene that is not stale stays so)', async () => {
  for (const stale of [true, undefined]) {
    const doc: SceneDocument = { ...handDocument(), ...(stale ? { bindingStale: true } : {}) };
    const bytes = await writeProjectFile({
      scene: projectSceneOf(doc),
      settings: projectSettingsOf(doc, defaultProjectSettings(doc.weights.rows, doc.weights.cols)),
    });
    const read = readProjectFile(bytes, 'hand.rig.glb');
    assert.equal(documentFromProject(read.scene, read.settings).bindingStale, stale, `bindingStale ${stale} comes back`);
  }
});
