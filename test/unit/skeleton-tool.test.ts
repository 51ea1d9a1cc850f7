/**
 * The skeleton tool without a browser: the real ToolManager, CommandRegistry, skeleton commands, scene store and undo
 * history over a closed box (x −1.5…1.5, y −0.5…0.5, z −0.5…0.5) seen by an orthographic camera at z = 10 through a
 * 200 × 200 canvas: canvas pixel (x, y) lies over the point ((x − 100) / 50, (100 − y) / 50), and every view ray
 * runs along −z from z = 10, so the middle of the volume under a click is at z = 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { skeletonCommands } from '../../renderer/skeleton/skeleton-commands.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { ToolManager } from '../../renderer/tools/tool-manager.ts';
import { SkeletonTool, type SkeletonGuides, type Vec3 } from '../../renderer/tools/skeleton/skeleton-tool.ts';
import { Tool } from '../../renderer/tools/tool.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { NO_SKELETON_WEIGHTS, boneCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { FakeElement, fakeEvent } from './tool-harness.ts';

const SIZE = 200;

/** A closed box, its triangles wound counter-clockwise seen from outside. */
function box(): { positions: Float64Array; triangles: Uint32Array } {
  const [x, y, z] = [1.5, 0.5, 0.5];
  const positions = new Float64Array([-x, -y, -z, x, -y, -z, x, y, -z, -x, y, -z, -x, -y, z, x, -y, z, x, y, z, -x, y, z]);
  // prettier-ignore
  const triangles = new Uint32Array([
    0, 2, 1, 0, 3, 2, // back (−z)
    4, 5, 6, 4, 6, 7, // front (+z)
    0, 1, 5, 0, 5, 4, // bottom (−y)
    3, 7, 6, 3, 6, 2, // top (+y)
    0, 4, 7, 0, 7, 3, // left (−x)
    1, 2, 6, 1, 6, 5, // right (+x)
  ]);
  return { positions, triangles };
}

function bareBox(): SceneDocument {
  const mesh = box();
  return withDerived({
    name: 'box.obj',
    meshFiles: ['box.obj'],
    mesh,
    skeletonFile: null,
    skeleton: buildSkeleton({ joints: new Float64Array(0), bones: new Uint32Array(0) }, 'box.obj'),
    weights: { rows: 8, cols: 0, data: new Float64Array(0) },
    weightsSource: NO_SKELETON_WEIGHTS,
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
}

/** The canvas pixel over a world point (the camera looks along −z). */
const pixel = (p: Vec3): [number, number] => [100 + 50 * p[0], 100 - 50 * p[1]];

function setup() {
  const g = globalThis as Record<string, unknown>;
  for (const name of ['HTMLElement', 'HTMLInputElement', 'HTMLSelectElement', 'HTMLTextAreaElement']) g[name] ??= class {};
  const window = new FakeElement();
  g.window = window;
  g.document = { querySelector: () => null };
  const container = new FakeElement({ left: 0, top: 0, width: 400, height: 300 });
  const canvas = new FakeElement({ left: 10, top: 20, width: SIZE, height: SIZE });
  canvas.parentElement = container;
  /** the pose view's rest toggle, as the app keeps it */
  const view = { rest: false };

  const history = new UndoHistory();
  const store = new SceneStore(bareBox(), history);
  const boneSelection = new BoneSelection(store);
  const told: string[] = [];
  let guides: SkeletonGuides = { pending: null, band: null, moved: null };
  const tool: SkeletonTool = new SkeletonTool({
    doc: () => store.doc,
    rayThrough: (x, y) => ({ origin: [(x - 100) / 50, (100 - y) / 50, 10], direction: [0, 0, -1] }),
    viewDirection: () => [0, 0, -1],
    showRest: (on) => {
      const before = view.rest;
      view.rest = on;
      return before;
    },
    jointAt: (x, y) => {
      const { joints } = store.doc.skeleton;
      for (let j = 0; j < joints.length / 3; j++) {
        const [px, py] = pixel([joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]]);
        if (Math.hypot(px - x, py - y) <= 6) return j;
      }
      return -1;
    },
    insertBone: ({ parent, tip, head }) =>
      commands.execute('bone.insert', { parent, tip: [...tip], ...(head ? { head: [...head] } : {}) }) as number,
    moveJoint: (joint, position) => void commands.execute('bone.moveJoint', { joint, position: [...position] }),
    reparentBone: (bone, parent) => void commands.execute('bone.reparent', { bone, parent }),
    selectBone: (bone) => void commands.execute('bone.select', bone),
    showGuides: (shown) => (guides = shown),
    tell: (message) => void told.push(message),
  });
  const context = () => ({ ...manager.context(), hasSkeleton: boneCountOf(store.doc) > 0, bindPanel: false });
  const commands: CommandRegistry = new CommandRegistry(
    context,
    (id, error) => {
      throw new Error(`command ${id} failed: ${String(error)}`);
    },
    { boneCount: () => boneCountOf(store.doc) },
  );
  const manager: ToolManager = new ToolManager(
    { container: container as unknown as HTMLElement, canvas: canvas as unknown as HTMLCanvasElement, commands, context },
    // A default tool first, as in the app: switching to the skeleton tool activates it, switching back leaves it.
    [new Tool('select', { idle: { name: 'idle' } }), tool],
  );
  const skeletonTool = { active: true, toggle: () => undefined, endChain: () => tool.endChain() };
  const handlers = skeletonCommands({ store, boneSelection, skeletonTool });
  for (const id of Object.keys(handlers) as (keyof typeof handlers)[]) commands.register(id, handlers[id] as never);
  commands.register('bone.select', { run: (bone) => boneSelection.select(bone) });
  commands.register('tool.cancel', { run: () => manager.active.cancel() });
  commands.register('view.dismiss', { run: () => undefined });

  let held = 0;
  const pointer = (type: string, x: number, y: number, modifiers: { shiftKey?: boolean; altKey?: boolean } = {}): boolean => {
    if (type === 'pointerdown') held = 1;
    if (type === 'pointerup') held = 0;
    const e = fakeEvent(type, canvas, {
      clientX: x + 10,
      clientY: y + 20,
      button: type === 'pointermove' ? -1 : 0,
      buttons: held,
      pointerId: 1,
      pointerType: 'mouse',
      pressure: held ? 0.5 : 0,
      shiftKey: modifiers.shiftKey ?? false,
      ctrlKey: false,
      metaKey: false,
      altKey: modifiers.altKey ?? false,
    });
    for (const listener of container.listeners.get(type) ?? []) listener(e);
    return e.stopped;
  };
  const at = (p: Vec3) => pixel(p);
  const click = (p: Vec3): void => {
    const [x, y] = at(p);
    pointer('pointerdown', x, y);
    pointer('pointerup', x, y);
  };
  const drag = (from: Vec3, to: Vec3, modifiers: { shiftKey?: boolean; altKey?: boolean } = {}, release = true): void => {
    const [x0, y0] = at(from);
    const [x1, y1] = at(to);
    pointer('pointerdown', x0, y0, modifiers);
    pointer('pointermove', (x0 + x1) / 2, (y0 + y1) / 2, modifiers);
    pointer('pointermove', x1, y1, modifiers);
    if (release) pointer('pointerup', x1, y1, modifiers);
  };
  const key = (name: string, shiftKey = false): void => {
    const e = fakeEvent(
      'keydown',
      {},
      { key: name, shiftKey, ctrlKey: false, metaKey: false, altKey: false, repeat: false, isComposing: false },
    );
    for (const listener of window.listeners.get('keydown') ?? []) listener(e);
  };
  manager.activate('skeleton');
  return { store, history, tool, manager, view, commands, boneSelection, told, guides: () => guides, pointer, click, drag, key };
}

const joint = (doc: SceneDocument, j: number): number[] => Array.from(doc.skeleton.joints.subarray(3 * j, 3 * j + 3));

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string, tolerance = 1e-9): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++)
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what}: [${i}] is ${actual[i]}, expected ${expected[i]}`);
}

test('skeleton tool: the first click places a pending joint, each next click one bone.insert from the chain’s end, in the volume’s middle', () => {
  const { store, history, tool, click, guides } = setup();
  assert.match(tool.hint(), /place the first joint/);
  click([-1, 0.2, 0.5]);
  assert.equal(boneCountOf(store.doc), 0, 'no bone from one click');
  assert.equal(tool.state, 'chaining');
  assert.equal(tool.busy, false, 'an open chain is no gesture');
  assertClose(guides().pending!, [-1, 0.2, 0], 'the pending joint, in the middle of the box (z = 0)');
  assert.match(tool.hint(), /add a bone.*Esc ends the chain/);

  click([0, 0.2, 0.5]);
  assert.equal(boneCountOf(store.doc), 1);
  assertClose(store.doc.skeleton.joints, [-1, 0.2, 0, 0, 0.2, 0], 'a root from the pending joint to the click');
  assert.deepEqual([...store.doc.weights.data], new Array(8).fill(1), 'the first bone weighs 1 at every vertex');
  assert.equal(guides().pending, null, 'the pending joint became the bone’s start');

  click([1, -0.2, -0.5]);
  assert.equal(boneCountOf(store.doc), 2);
  assert.deepEqual([...store.doc.skeleton.parents], [-1, 0], 'the second bone hangs from the first');
  assert.deepEqual([...store.doc.skeleton.bones], [0, 1, 1, 2], 'and starts at its end joint');
  assertClose(joint(store.doc, 2), [1, -0.2, 0], 'the third joint');
  assert.deepEqual(history.undoLabels(), ['Insert bone 0', 'Insert bone 1'], 'one undo step per bone');

  store.history.undo();
  assert.equal(boneCountOf(store.doc), 1, 'undo takes the last bone back');
  store.history.undo();
  assert.equal(boneCountOf(store.doc), 0, 'and the first: the bare mesh again');
  assert.deepEqual([store.doc.weights.rows, store.doc.weights.cols], [8, 0]);
});

test('skeleton tool: a click on a joint branches from it; Escape ends the chain and the next click starts a new one', () => {
  const { store, tool, click, key, guides } = setup();
  click([-1, 0, 0]);
  click([0, 0, 0]);
  click([1, 0, 0]);
  // Branch from the middle joint (the end of bone 0): the new bone hangs from bone 0.
  click([0, 0, 0]);
  assert.equal(boneCountOf(store.doc), 2, 'a click on a joint adds no bone');
  assert.equal(tool.state, 'chaining');
  click([0, 0.4, 0]);
  assert.deepEqual([...store.doc.skeleton.parents], [-1, 0, 0], 'the branch hangs from the bone ending at the joint');
  assertClose(joint(store.doc, 3), [0, 0.4, 0], 'the branch’s tip');

  key('Escape');
  assert.equal(tool.state, 'idle', 'Escape ends the chain');
  assert.equal(guides().band, null);
  assert.equal(boneCountOf(store.doc), 3, 'the bones made stay');
  click([-1, -0.4, 0]);
  assert.equal(boneCountOf(store.doc), 3, 'a new chain starts with a pending joint');
  click([-0.5, -0.4, 0]);
  assert.equal(store.doc.skeleton.parents[3], -1, 'its first bone is a new root');

  // A click on a root's start joint branches a new root from the same place.
  key('Escape');
  click([-1, 0, 0]);
  click([-1, 0.4, 0]);
  const b = boneCountOf(store.doc) - 1;
  assert.equal(store.doc.skeleton.parents[b], -1);
  assertClose(joint(store.doc, store.doc.skeleton.bones[2 * b]), [-1, 0, 0], 'it starts where the root starts');
});

test('skeleton tool: a click off the mesh places at the chain’s depth, or says why it placed nothing', () => {
  const { store, tool, click, told } = setup();
  click([1.8, 1.5, 0]);
  assert.equal(tool.state, 'idle');
  assert.match(told[0], /missed the mesh/);
  click([0, 0, 0]);
  click([1.8, 1.5, 0]);
  assert.equal(boneCountOf(store.doc), 1, 'off the mesh with a chain open: a bone at the chain’s depth');
  assertClose(joint(store.doc, 1), [1.8, 1.5, 0], 'the tip, on the view plane through the chain’s last joint');
});

test('skeleton tool: the rubber band follows the pointer from the chain’s last joint; hovering changes nothing', () => {
  const { store, pointer, click, guides, history } = setup();
  click([0, 0, 0]);
  pointer('pointermove', ...pixel([1, 0.5, 0]));
  assertClose(guides().band!.from, [0, 0, 0], 'from the pending joint');
  assertClose(guides().band!.to, [1, 0.5, 0], 'to the pointer on the view plane');
  assert.equal(history.undoCount, 0);
  assert.equal(boneCountOf(store.doc), 0);
});

test('skeleton tool: a drag moves a joint in the view plane, shown live, one bone.moveJoint at release; Escape puts it back', () => {
  const { store, history, tool, click, drag, pointer, key, guides } = setup();
  click([-1, 0, 0]);
  click([0, 0, 0]);
  click([1, 0, 0]);
  key('Escape');
  // Off the middle in depth first (a command), so the view plane through the joint is not z = 0.
  store.edit('Move joint 1', { skeleton: { ...store.doc.skeleton, joints: Float64Array.from([-1, 0, 0, 0, 0, 0.3, 1, 0, 0]) } });
  const steps = history.undoCount;
  const before = store.doc;

  drag([0, 0, 0.3], [0.5, 0.4, 0.3], {}, false);
  assert.equal(tool.state, 'dragging');
  assert.equal(store.doc, before, 'the scene is unchanged while dragging');
  assertClose(guides().moved!.position, [0.5, 0.4, 0.3], 'the joint is shown under the pointer, at its depth');
  assert.match(tool.hint(), /view plane/);
  key('Escape');
  assert.equal(tool.state, 'idle');
  assert.equal(store.doc, before, 'Escape changes nothing');
  assert.equal(guides().moved, null, 'and draws the joint back in place');
  pointer('pointerup', ...pixel([0.5, 0.4, 0.3]));
  assert.equal(history.undoCount, steps, 'the release after Escape does nothing');

  drag([0, 0, 0.3], [0.5, 0.4, 0.3]);
  assert.equal(history.undoCount, steps + 1, 'one undo step');
  assert.equal(history.undoLabel, 'Move joint 1');
  assertClose(joint(store.doc, 1), [0.5, 0.4, 0.3], 'moved in the view plane');
  history.undo();
  assertClose(joint(store.doc, 1), [0, 0, 0.3], 'undo puts it back');

  drag([0, 0, 0.3], [0.5, 0.4, 0.3], { shiftKey: true });
  assertClose(joint(store.doc, 1), [0.5, 0.4, 0], 'with Shift, the middle of the volume along the view ray');
});

test('skeleton tool: Alt-drag from a joint onto another re-parents the bone ending at the first under the bone ending at the second', () => {
  const { store, history, click, key, drag, told } = setup();
  click([-1, 0, 0]);
  click([0, 0, 0]);
  click([1, 0, 0]);
  key('Escape');
  click([-1, 0.4, 0]);
  click([-0.5, 0.4, 0]);
  key('Escape');
  assert.deepEqual([...store.doc.skeleton.parents], [-1, 0, -1]);
  const steps = history.undoCount;
  drag([-0.5, 0.4, 0], [0, 0, 0], { altKey: true });
  assert.deepEqual([...store.doc.skeleton.parents], [-1, 0, 0], 'bone 2 now hangs from bone 0');
  assert.equal(history.undoCount, steps + 1, 'one undo step');
  assert.match(history.undoLabel!, /^Re-parent/);
  // The same re-parent again is refused: the tool says why and the scene keeps its bones and its undo steps.
  assert.equal(told.length, 0, 'nothing told before');
  drag([-0.5, 0.4, 0], [0, 0, 0], { altKey: true });
  assert.match(told.at(-1) ?? '', /already the parent/, 'the refusal is told');
  assert.deepEqual([...store.doc.skeleton.parents], [-1, 0, 0], 'the bones as they were');
  assert.equal(history.undoCount, steps + 1, 'no undo step for a refusal');
});

test('skeleton tool: Delete deletes the selected bone, S splits it, Shift+M mirrors its limb, each one undo step', () => {
  const { store, history, click, key, boneSelection } = setup();
  click([0.2, 0, 0]);
  click([0.8, 0, 0]);
  click([1.3, 0.2, 0]);
  key('Escape');
  assert.equal(boneSelection.bone, 1, 'the last bone made is selected');
  key('s');
  assert.equal(boneCountOf(store.doc), 3, 'S splits the selected bone');
  assertClose(joint(store.doc, store.doc.skeleton.bones[2 * 2]), [1.05, 0.1, 0], 'at its middle');
  boneSelection.select(0);
  key('M', true);
  assert.equal(boneCountOf(store.doc), 6, 'Shift+M mirrors the whole limb of the bone');
  const names = store.doc.boneNames!;
  assert.deepEqual(
    names.slice(3).map((n) => n.endsWith('.R')),
    [true, true, true],
    `the copies are right-side names: ${names.join(', ')}`,
  );
  for (let b = 3; b < 6; b++) {
    const o = b - 3;
    const original = joint(store.doc, store.doc.skeleton.bones[2 * o + 1]);
    const copy = joint(store.doc, store.doc.skeleton.bones[2 * b + 1]);
    assertClose(copy, [-original[0], original[1], original[2]], `bone ${b} mirrors bone ${o} across x = 0`);
  }
  boneSelection.select(5);
  key('Delete');
  assert.equal(boneCountOf(store.doc), 5, 'Delete deletes the selected bone');
  const labels = history.undoLabels();
  assert.equal(labels.length, 5, `one step each: ${labels.join(', ')}`);
  while (history.undoCount > 0) history.undo();
  assert.equal(boneCountOf(store.doc), 0, 'undo all the way: the bare mesh');
});

test('skeleton tool: undo while a chain is open is allowed; a chain whose bone is gone, or whose scene is, starts over', () => {
  const { store, history, tool, click, guides } = setup();
  click([-1, 0, 0]);
  click([0, 0, 0]);
  click([1, 0, 0]);
  assert.equal(tool.busy, false);
  history.undo();
  history.undo();
  assert.equal(boneCountOf(store.doc), 0);
  click([0.5, 0.3, 0]);
  assert.equal(boneCountOf(store.doc), 0, 'the chain’s bone is gone: this click is a new chain’s first joint');
  click([1, 0.3, 0]);
  assert.equal(boneCountOf(store.doc), 1);
  assertClose(store.doc.skeleton.joints, [0.5, 0.3, 0, 1, 0.3, 0], 'a fresh root');

  // Another scene opened while the chain is open: the chain ends with it.
  store.open(bareBox(), 'opened box.obj');
  click([-1, 0, 0]);
  assert.equal(boneCountOf(store.doc), 0, 'the first click in the new scene is a new chain’s pending joint');
  assertClose(guides().pending!, [-1, 0, 0], 'shown as such');
});

test('skeleton tool: bone commands from a key are refused while a joint is dragged (a gesture holds the scene)', () => {
  const { tool, click, drag, commands } = setup();
  click([-1, 0, 0]);
  click([0, 0, 0]);
  drag([0, 0, 0], [0.5, 0.2, 0], {}, false);
  assert.equal(tool.busy, true);
  assert.throws(() => commands.execute('bone.delete', 0), /a gesture is in progress/);
});

/** Three bones along x from a chain left open: joints (−1, 0, 0), (−0.4, 0, 0), (0.2, 0, 0), (0.8, 0, 0). */
function openChain(rig: ReturnType<typeof setup>): void {
  for (const x of [-1, -0.4, 0.2, 0.8]) rig.click([x, 0, 0]);
  assert.equal(boneCountOf(rig.store.doc), 3, 'three bones');
  assert.equal(rig.tool.state, 'chaining', 'the chain is still open');
}

/** The next click off the joints adds no bone and shows a pending joint: the chain ended, a new one starts. */
function assertChainEnded(rig: ReturnType<typeof setup>, what: string): void {
  const bones = boneCountOf(rig.store.doc);
  rig.click([1.3, 0.3, 0]);
  assert.equal(boneCountOf(rig.store.doc), bones, `${what}: the next click adds no bone to the old chain`);
  assertClose(rig.guides().pending!, [1.3, 0.3, 0], `${what}: it is a new chain's pending joint`);
}

test('skeleton tool: shows the rest pose while active and puts the rest toggle back as it was when left', () => {
  const rig = setup();
  assert.equal(rig.view.rest, true, 'the rest pose is shown while the tool is active');
  rig.click([-1, 0, 0]);
  rig.click([0, 0, 0]);
  assert.equal(
    rig.tool.hint(),
    'Skeleton: click on the mesh to add a bone, on a joint to branch from it; Esc ends the chain',
    'a chain is open: the hint says how it grows and ends',
  );
  rig.key('Escape');
  assert.match(rig.tool.hint(), /rest pose shown/, `the hint says so: ${rig.tool.hint()}`);
  rig.manager.activate('select');
  assert.equal(rig.view.rest, false, 'leaving the tool shows the pose again');

  rig.view.rest = true;
  rig.manager.activate('skeleton');
  rig.manager.activate('select');
  assert.equal(rig.view.rest, true, 'a rest toggle that was on before stays on');
});

test('skeleton tool: a split of the chain’s bone ends the chain (it would grow from the split’s middle joint)', () => {
  const rig = setup();
  openChain(rig);
  rig.key('s');
  assert.equal(boneCountOf(rig.store.doc), 4, 'S split the selected (last) bone');
  assertChainEnded(rig, 'after a split');
});

test('skeleton tool: a bone deleted or the bones re-ordered from the bone list end the chain', () => {
  const rig = setup();
  openChain(rig);
  void rig.commands.execute('bone.delete', 0);
  assertChainEnded(rig, 'after a delete');

  const other = setup();
  openChain(other);
  void other.commands.execute('bone.reorder', [2, 1, 0]);
  assert.deepEqual([...other.store.doc.skeleton.parents], [1, 2, -1], 'the bones are numbered anew');
  assertChainEnded(other, 'after a re-order');
});

test('skeleton tool: a fitted template or a skeleton file opened onto the same mesh ends the chain', () => {
  // Another skeleton with as many bones: a bone number alone would still look valid in it.
  const replacement = buildSkeleton(
    { joints: new Float64Array([0, -0.4, 0, 0, -0.2, 0, 0, 0, 0, 0, 0.2, 0]), bones: new Uint32Array([0, 1, 1, 2, 2, 3]) },
    'other.tgf',
  );
  const rig = setup();
  openChain(rig);
  rig.store.edit('Fit the template', { skeleton: replacement });
  assertChainEnded(rig, 'after a template fit');

  const other = setup();
  openChain(other);
  const mesh = other.store.doc.mesh;
  other.store.open(withDerived({ ...other.store.doc, skeleton: replacement, skeletonFile: 'other.tgf' }), 'opened other.tgf');
  assert.equal(other.store.doc.mesh, mesh, 'the same mesh');
  assertChainEnded(other, 'after a skeleton file opened onto the mesh');
});

test('skeleton tool: undo of the chain’s last bone ends the chain; the tool’s own joint drag keeps it', () => {
  const rig = setup();
  openChain(rig);
  rig.history.undo();
  assert.equal(boneCountOf(rig.store.doc), 2);
  assertChainEnded(rig, 'after an undo');

  const other = setup();
  openChain(other);
  other.drag([0.8, 0, 0], [0.8, 0.3, 0]);
  assertClose(joint(other.store.doc, 3), [0.8, 0.3, 0], 'the chain’s last joint moved');
  assert.equal(other.tool.state, 'chaining', 'the chain is still open');
  other.click([1.3, 0.3, 0]);
  assert.equal(boneCountOf(other.store.doc), 4, 'the next click adds a bone');
  assert.deepEqual([...other.store.doc.skeleton.parents], [-1, 0, 1, 2], 'from the moved end of the chain');
});

test('skeleton tool: an Alt-drag draws a band from the dragged joint to the joint under the pointer, and leaves no band after', () => {
  const rig = setup();
  for (const x of [-1, 0, 1]) rig.click([x, 0, 0]);
  rig.key('Escape');
  rig.click([-1, 0.4, 0]);
  rig.click([-0.5, 0.4, 0]);
  rig.drag([-0.5, 0.4, 0], [0.3, 0.2, 0], { altKey: true }, false);
  assert.equal(rig.tool.state, 'reparenting');
  assertClose(rig.guides().band!.from, [-0.5, 0.4, 0], 'the band starts at the dragged joint');
  assertClose(rig.guides().band!.to, [0.3, 0.2, 0], 'and follows the pointer off the joints');
  rig.pointer('pointermove', ...pixel([0, 0, 0]), { altKey: true });
  assertClose(rig.guides().band!.to, [0, 0, 0], 'over a joint it ends at the joint');
  rig.pointer('pointerup', ...pixel([0, 0, 0]), { altKey: true });
  assert.deepEqual([...rig.store.doc.skeleton.parents], [-1, 0, 0], 're-parented');
  assert.equal(rig.guides().band, null, 'no band once released');
  assert.equal(rig.tool.hover, null, 'and no pointer position left for a later rubber band');

  rig.drag([-0.5, 0.4, 0], [0.3, 0.2, 0], { altKey: true }, false);
  rig.key('Escape');
  assert.equal(rig.guides().band, null, 'Escape takes the band away too');
  assert.equal(rig.tool.hover, null);
});
