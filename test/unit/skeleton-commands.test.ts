/**
 * The skeleton's commands on the course hand through the real command registry and scene store: each edit is one
 * undo step whose undo gives back the very arrays; the selected bone follows its bone through a delete (to its parent
 * when it is the one deleted); a bad argument names the argument; a refused edit says why and changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { skeletonCommands } from '../../renderer/skeleton/skeleton-commands.ts';
import { assertConsistent, boneCountOf } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { handDocument } from './full-documents.ts';
import { insertBone } from '../../workers/rig/bone-edits.ts';
import { boneScaleEdit } from '../../workers/scene/scene-edits.ts';

function setup() {
  const store = new SceneStore(handDocument(), new UndoHistory());
  const boneSelection = new BoneSelection(store);
  const commands = new CommandRegistry(() => ({}), undefined, {
    boneCount: () => boneCountOf(store.doc),
    meshIndex: () => 0,
  });
  const skeletonTool = { active: false, toggle: () => undefined, endChain: () => undefined };
  const handlers = skeletonCommands({ store, boneSelection, skeletonTool });
  for (const id of Object.keys(handlers) as (keyof typeof handlers)[]) commands.register(id, handlers[id] as never);
  return { store, boneSelection, commands };
}

test('rename and delete are one undo step each; undo gives back the same arrays; the selection follows', () => {
  const { store, boneSelection, commands } = setup();
  const start = store.doc;
  const B = boneCountOf(start);
  const { parents } = start.skeleton;
  // A bone with a parent and a bone numbered after it, to see the renumbering.
  const victim = parents.findIndex((p, b) => p >= 0 && b < B - 1);
  const after = B - 1;
  boneSelection.select(after);
  void commands.execute('bone.rename', { bone: after, name: 'pinky tip' });
  assert.equal(store.doc.boneNames?.[after], 'pinky tip');
  void commands.execute('bone.delete', victim);
  assertConsistent(store.doc);
  assert.equal(boneCountOf(store.doc), B - 1);
  assert.equal(boneSelection.bone, after - 1, 'the selected bone, numbered after the deleted one, moved down by one');
  assert.equal(store.doc.boneNames?.[after - 1], 'pinky tip', 'and it is the same bone');
  assert.equal(store.history.undoCount, 2, 'one step per command');

  store.history.undo();
  assert.equal(boneSelection.bone, after, 'undoing the delete gives the selection back to its bone’s old number');
  store.history.redo();
  assert.equal(boneSelection.bone, after - 1, 'redo moves it again');
  assert.equal(store.doc.boneNames?.[boneSelection.bone], 'pinky tip', 'on the same bone');
  store.history.undo();
  store.history.undo();
  assert.equal(boneSelection.bone, after);
  for (const key of Object.keys(start) as (keyof typeof start)[]) assert.equal(store.doc[key], start[key], `undo gives back ${key}`);

  // Deleting the selected bone selects its parent.
  boneSelection.select(victim);
  void commands.execute('bone.delete', victim);
  const parent = parents[victim];
  assert.equal(boneSelection.bone, parent < victim ? parent : parent - 1, 'the deleted bone’s selection went to its parent');
});

test('insert gives the new bone; a bad argument names it; a refused edit says why and changes nothing', () => {
  const { store, commands } = setup();
  const B = boneCountOf(store.doc);
  const added = commands.execute('bone.insert', { parent: 0, tip: [0.1, 0.2, 0.3] });
  assert.equal(added, B, 'the new bone is appended');
  assert.equal(store.history.undoLabels().length, 1);
  assert.throws(() => commands.execute('bone.rename', { bone: 0, name: '' }), /bone\.rename: name/);
  assert.throws(() => commands.execute('bone.delete', B + 5), /bone\.delete/);
  const before = store.doc;
  assert.throws(
    () => commands.execute('bone.reparent', { bone: 0, parent: 0 }),
    /bone 0 is bone 0 or below it|already|cycle/,
    'a bone cannot hang from itself',
  );
  assert.equal(store.doc, before, 'the refused edit changed nothing');
  assert.equal(store.history.undoLabels().length, 1);
});

test('reorder takes one bone per bone: the selection follows its bone; a short order names the count', () => {
  const { store, boneSelection, commands } = setup();
  const B = boneCountOf(store.doc);
  const order = Array.from({ length: B }, (_, i) => B - 1 - i);
  boneSelection.select(2);
  void commands.execute('bone.reorder', order);
  assert.equal(boneSelection.bone, B - 3, 'old bone 2 is new bone B - 3');
  assert.deepEqual(store.history.undoLabels().length, 1);
  assert.throws(() => commands.execute('bone.reorder', order.slice(1)), new RegExp(`an array of ${B} numbers \\(one per bone\\)`));
  assert.throws(
    () =>
      commands.execute(
        'bone.reorder',
        order.map(() => 0),
      ),
    /bone 0 is listed twice/,
  );
});

test('a sparse array is refused: its hole is no number, so no NaN reaches the skeleton or the scales', () => {
  const { store, commands } = setup();
  const before = store.doc;
  // eslint-disable-next-line no-sparse-arrays
  const holed = [0.1, , 0.3];
  assert.throws(() => commands.execute('bone.insert', { parent: 0, tip: holed as never }), /tip\[1\] must be a number/);
  assert.throws(() => insertBone(before, { parent: 0, tip: holed as never }), /the tip must be three finite numbers/);
  assert.throws(() => boneScaleEdit(before, 0, holed as never), /is not three positive numbers/);
  assert.equal(store.doc, before, 'nothing changed');
});
