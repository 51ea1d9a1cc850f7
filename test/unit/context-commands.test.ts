/**
 * The right-click menus' commands and items, without DOM: the weights at a vertex and the vertices a bone weighs (on a
 * hand-written 4 × 3 weight matrix), what each command does to the app it is given (a pick armed away from the mesh),
 * the errors that name the command, and every menu item's argument fitting its command's schema in the catalog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../renderer/commands/command-catalog.ts';
import { checkArgument } from '../../renderer/commands/command-schema.ts';
import type { ContextMenuEntries } from '../../renderer/panels/context-menu.ts';
import {
  boneMenu,
  clipMenu,
  contextCommands,
  meshMenu,
  meshRowMenu,
  verticesWeighted,
  viewMenu,
  weightsAtVertex,
  type ContextCommandsHost,
} from '../../renderer/shell/context-commands.ts';
import type { ViewMode } from '../../renderer/view/view-modes.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { limbRoot, mirrorBones } from '../../workers/rig/mirror-bones.ts';
import { handDocument } from './full-documents.ts';

/** 4 vertices × 3 bones, row-major; each row sums to 1. */
const WEIGHTS = {
  rows: 4,
  cols: 3,
  data: Float64Array.from([0.7, 0.3, 0, 0.5, 0.0004, 0.4996, 0, 0, 1, 0.2, 0.5, 0.3]),
};
const NAMES = ['hip', 'knee', 'foot'];

test('the weights at a vertex: bones weighing at least the threshold, largest first', () => {
  assert.deepEqual(weightsAtVertex(WEIGHTS, NAMES, 0), [
    { bone: 0, name: 'hip', weight: 0.7 },
    { bone: 1, name: 'knee', weight: 0.3 },
  ]);
  // 0.0004 is under the 5e-4 shown; the rest sorted by weight.
  assert.deepEqual(
    weightsAtVertex(WEIGHTS, NAMES, 1).map((w) => w.name),
    ['hip', 'foot'],
  );
  assert.deepEqual(
    weightsAtVertex(WEIGHTS, NAMES, 1, 0).map((w) => w.name),
    ['hip', 'foot', 'knee'],
    'with threshold 0 every bone is listed',
  );
  assert.deepEqual(weightsAtVertex(WEIGHTS, NAMES, 2), [{ bone: 2, name: 'foot', weight: 1 }]);
});

test('the vertices a bone weighs at least min on', () => {
  assert.deepEqual([...verticesWeighted(WEIGHTS, 0, 0.5)], [1, 1, 0, 0]);
  assert.deepEqual([...verticesWeighted(WEIGHTS, 1, 0.5)], [0, 0, 0, 1], 'exactly 0.5 counts');
  assert.deepEqual([...verticesWeighted(WEIGHTS, 2, 0.3)], [0, 1, 1, 1]);
  assert.deepEqual([...verticesWeighted(WEIGHTS, 2, 0)], [1, 1, 1, 1], 'min 0: every vertex');
});

/** A host that records what the commands do to it. */
function recordingHost(doc: SceneDocument, selected: number, underPointer = -1) {
  const calls = {
    selected: [] as number[],
    views: [] as ViewMode[],
    bindPanel: [] as boolean[],
    selection: null as Uint8Array | null,
    notices: [] as { title: string; items: readonly string[] }[],
    picking: null as ((vertex: number) => void) | null,
    cancel: null as (() => void) | null,
    hidden: 0,
  };
  const host: ContextCommandsHost = {
    store: { doc },
    boneSelection: { bone: selected },
    binding: {
      selectVertices: (inside) => (calls.selection = inside.slice()),
      get selectedCount() {
        return calls.selection ? calls.selection.reduce((n, s) => n + s, 0) : 0;
      },
    },
    notice: { show: (title, items) => calls.notices.push({ title, items }), hide: () => calls.hidden++ },
    selectBone: (bone) => calls.selected.push(bone),
    setView: (mode) => calls.views.push(mode),
    setBindPanel: (open) => calls.bindPanel.push(open),
    vertexUnderPointer: () => underPointer,
    pickVertex: (picked, cancelled) => {
      calls.picking = picked;
      calls.cancel = cancelled;
    },
  };
  return { host, calls };
}

test('the context commands: isolate, sample and select by weight act on the app, and name the command when they cannot', () => {
  const hand = handDocument();
  const doc: SceneDocument = {
    ...hand,
    weights: { rows: vertexCountOf(hand), cols: boneCountOf(hand), data: new Float64Array(hand.weights.data) },
  };
  const B = boneCountOf(doc);
  // Vertex 0 is weighed by bones 2 (0.75) and 5 (0.25); vertex 1 entirely by bone 2.
  doc.weights.data.fill(0, 0, 2 * B);
  doc.weights.data[2] = 0.75;
  doc.weights.data[5] = 0.25;
  doc.weights.data[B + 2] = 1;
  const { host, calls } = recordingHost(doc, -1, 0);
  const commands = contextCommands(host);

  void commands['bone.isolateWeights'].run(4);
  assert.deepEqual(calls.selected, [4]);
  assert.deepEqual(calls.views, ['heatmap']);
  assert.throws(() => commands['bone.isolateWeights'].run(undefined), /^Error: bone\.isolateWeights: no bone given and none is selected/);

  void commands['paint.sampleWeights'].run(undefined);
  assert.deepEqual(calls.notices.at(-1), { title: 'Vertex 0: 2 bones', items: ['bone 2: 0.750', 'bone 5: 0.250'] });
  void commands['paint.sampleWeights'].run(1);
  assert.deepEqual(calls.notices.at(-1), { title: 'Vertex 1: 1 bone', items: ['bone 2: 1.000'] });
  assert.throws(() => commands['paint.sampleWeights'].run(vertexCountOf(doc)), /paint\.sampleWeights: argument must be a vertex from 0 to/);
  // Away from the mesh (from a menu): the next click picks the vertex, as an eyedropper.
  const away = recordingHost(doc, -1, -1);
  void contextCommands(away.host)['paint.sampleWeights'].run(undefined);
  assert.deepEqual(away.calls.notices.at(-1), { title: 'Sample weights: click a point of the mesh (Esc cancels)', items: [] });
  assert.ok(away.calls.picking, 'a pick is armed');
  assert.ok(away.calls.cancel, 'the pick can be cancelled');
  assert.equal(away.calls.hidden, 0, 'the notice asking for a click stays while the pick waits');
  away.calls.cancel();
  assert.equal(away.calls.hidden, 1, 'a cancelled pick takes its notice away');
  away.calls.picking(1);
  assert.deepEqual(away.calls.notices.at(-1), { title: 'Vertex 1: 1 bone', items: ['bone 2: 1.000'] });
  away.calls.picking(-1);
  assert.deepEqual(away.calls.notices.at(-1), { title: 'Sample weights: the click missed the mesh', items: [] });

  const expected = Array.from({ length: vertexCountOf(doc) }, (_, v) => (doc.weights.data[v * B + 2] >= 0.5 ? 1 : 0));
  const count = commands['bind.selectByWeight'].run({ bone: 2 });
  assert.deepEqual([...calls.selection!], expected);
  assert.equal(
    count,
    expected.reduce<number>((n, s) => n + s, 0),
    'gives back how many are selected',
  );
  assert.deepEqual(calls.bindPanel, [true], 'the Bind panel opens on the selection');
  assert.equal(calls.selected.at(-1), 2, 'the bone whose vertices are selected is selected too (Assign acts on it)');
  void commands['bind.selectByWeight'].run({ bone: 2, min: 0.8 });
  assert.equal(calls.selection![0], 0, 'vertex 0 (0.75) is under min 0.8');
  assert.equal(calls.selection![1], 1, 'vertex 1 (1) is over it');
  assert.throws(() => commands['bind.selectByWeight'].run(undefined), /^Error: bind\.selectByWeight: no bone given and none is selected/);
  const selected = recordingHost(doc, 2);
  void contextCommands(selected.host)['bind.selectByWeight'].run(undefined);
  assert.deepEqual([...selected.calls.selection!], expected, 'without a bone: the selected one');
  assert.deepEqual(selected.calls.selected, [], 'the selected bone is not selected again');
  void contextCommands(selected.host)['bind.selectByWeight'].run({ bone: 5 });
  assert.deepEqual(selected.calls.selected, [5], 'another bone given: it becomes the selected one');
});

test('every menu item runs a catalog command with an argument its schema takes', () => {
  const doc = handDocument();
  const scene = {
    boneCount: () => boneCountOf(doc),
    vertexCount: () => vertexCountOf(doc),
    meshIndex: (value: number | string) => Number(value),
  };
  const menus: [string, ContextMenuEntries][] = [
    ['bone', boneMenu(3, { doc, locked: false }).entries],
    ['mesh', meshMenu(7, doc, -1).entries],
    ['mesh, bone selected', meshMenu(7, doc, 2).entries],
    ['view', viewMenu().entries],
    ['mesh row', meshRowMenu(0, 'body').entries],
    ['all meshes row', meshRowMenu(-1, '').entries],
    ['clip', clipMenu('Walk').entries],
    ['clip shown', clipMenu('Walk', 0).entries],
    ['hidden mesh row', meshRowMenu(0, 'body', true).entries],
  ];
  for (const [name, entries] of menus) {
    assert.ok(
      entries.some((entry) => entry !== null),
      `the ${name} menu has items`,
    );
    for (const entry of entries) {
      if (entry === null) continue;
      assert.ok(entry.command in COMMANDS, `${name} menu: ${entry.command} is a catalog command`);
      // An item that asks for a text runs with the text in its field (askFor).
      const argument = entry.ask ? { ...(entry.argument as object), [entry.ask.field]: 'new name' } : entry.argument;
      assert.doesNotThrow(() => checkArgument(COMMANDS[entry.command].argument ?? { kind: 'none' }, argument, entry.command, scene));
    }
  }
  assert.equal(boneMenu(3, { doc, locked: false }).title, 'Bone bone 3');
  const labels = (entries: ContextMenuEntries) => entries.flatMap((entry) => (entry ? [entry.label] : []));
  assert.ok(labels(boneMenu(3, { doc, locked: true }).entries).includes('Unlock its weights'), 'a locked bone offers Unlock');
  assert.ok(labels(boneMenu(3, { doc, locked: false }).entries).includes('Lock its weights'), 'an unlocked bone offers Lock');
  // Without a selected bone, the mesh menu offers the vertex's strongest bone.
  const B = boneCountOf(doc);
  const row = Array.from({ length: B }, (_, b) => doc.weights.data[7 * B + b]);
  const strongest = row.indexOf(Math.max(...row));
  assert.ok(
    meshMenu(7, doc, -1).entries.some(
      (entry) => entry?.command === 'bind.selectByWeight' && (entry.argument as { bone: number }).bone === strongest,
    ),
    'select by weight of the strongest bone at the vertex',
  );
  // A vertex no bone weighs on (a row of zeros, or only rounding under what Sample weights shows) has no strongest
  // bone: the menu offers neither selecting one nor its vertices (it offered bone 0, the first of equal zeros).
  const bare: SceneDocument = { ...doc, weights: { ...doc.weights, data: new Float64Array(doc.weights.data) } };
  bare.weights.data.fill(0, 7 * B, 8 * B);
  const commandsOf = (entries: ContextMenuEntries) => entries.flatMap((entry) => (entry ? [entry.command] : []));
  assert.deepEqual(
    commandsOf(meshMenu(7, bare, -1).entries).filter((c) => c === 'bone.select' || c === 'bind.selectByWeight'),
    [],
    'an unweighted vertex offers no bone',
  );
  bare.weights.data[7 * B + 3] = 4e-4;
  assert.ok(!commandsOf(meshMenu(7, bare, -1).entries).includes('bone.select'), 'a weight under the shown minimum is no strongest bone');
  bare.weights.data[7 * B + 3] = 0.01;
  assert.ok(
    meshMenu(7, bare, -1).entries.some((entry) => entry?.command === 'bone.select' && entry.argument === 3),
    'a small weight over it is',
  );
  assert.ok(commandsOf(meshMenu(7, bare, 2).entries).includes('bind.selectByWeight'), 'with a bone selected, its vertices are offered');
});

test('the menus rename a bone or a clip by asking for the name, say Hide or Show by state, and offer Mirror only where it can run', () => {
  const doc = handDocument();
  const items = (entries: ContextMenuEntries) => entries.flatMap((entry) => (entry ? [entry] : []));
  const rename = items(boneMenu(3, { doc, locked: false }).entries).find((entry) => entry.command === 'bone.rename');
  assert.deepEqual(
    rename && { argument: rename.argument, ask: rename.ask },
    { argument: { bone: 3 }, ask: { field: 'name', label: 'Bone name', value: 'bone 3' } },
    "the bone's Rename asks for its name, starting from the one it has",
  );
  const clipRename = items(clipMenu('Walk', 2).entries).find((entry) => entry.command === 'clip.rename');
  assert.deepEqual(clipRename && { argument: clipRename.argument, value: clipRename.ask?.value }, { argument: { clip: 2 }, value: 'Walk' });
  assert.ok(!items(clipMenu('', -1).entries).some((entry) => entry.command === 'clip.rename'), 'no clip shown: no Rename');

  const toggle = (hidden: boolean) =>
    items(meshRowMenu(1, 'hat', hidden).entries).find((entry) => entry.command === 'meshes.toggle')?.label;
  assert.equal(toggle(false), 'Hide it', 'a shown mesh offers Hide');
  assert.equal(toggle(true), 'Show it', 'a hidden mesh offers Show');

  // Mirror: the item is available exactly where the command runs; its reason is the command's own.
  const B = boneCountOf(doc);
  let available = 0;
  for (let bone = 0; bone < B; bone++) {
    const mirror = items(boneMenu(bone, { doc, locked: false }).entries).find((entry) => entry.command === 'bone.mirror')!;
    let error: string | null = null;
    try {
      mirrorBones(doc, [limbRoot(doc, bone, 0)], { axis: 0 });
    } catch (thrown) {
      error = (thrown as Error).message;
    }
    assert.equal(mirror.unavailable, error === null ? undefined : `Mirror the limb: ${error}`, `bone ${bone}`);
    if (error === null) available++;
  }
  assert.ok(available > 0, 'some bone of the hand can be mirrored');
  // Once mirrored, the limb has its partner: mirroring it again is refused, and the menu says so.
  const bone = [...Array(B).keys()].find((b) => items(boneMenu(b, { doc, locked: false }).entries).every((e) => !e.unavailable))!;
  const mirrored = { ...doc, ...mirrorBones(doc, [limbRoot(doc, bone, 0)], { axis: 0 }).fields };
  const again = items(boneMenu(bone, { doc: mirrored, locked: false }).entries).find((entry) => entry.command === 'bone.mirror')!;
  assert.match(again.unavailable ?? '', /^Mirror the limb: /, 'a limb mirrored already cannot be mirrored again');
});
