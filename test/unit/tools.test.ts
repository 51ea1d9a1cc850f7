/**
 * The tools' state machines, driven headless through the real tool manager (tool-harness.ts): pointer and key
 * events go in as the browser would send them, and the tests check the states each tool goes through, what a
 * finished gesture commits (one undo step), what Escape, a lost pointer or a tool switch restores (the weights bit
 * for bit), the brush's resizing, the lasso's modifiers, and that keys typed into a text field are not shortcuts.
 *
 * Expected values come from the scene's geometry (tool-harness.ts): canvas pixel (x, y) lies over the point
 * ((x - 100) / 100, (100 - y) / 100, 0), grid vertex (i, j) sits at (-1 + 0.25 i, -1 + 0.25 j, 0), and bone 1 weighs
 * (x + 1) / 2 there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANVAS_RECT, GRID, ToolHarness, editableElement, textField, vertexAt } from './tool-harness.ts';

/** An array's bytes, to compare bit for bit. */
const bytesOf = (data: Float64Array | Float32Array): Uint8Array =>
  new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));

/**
 * The paint buffer's bytes: a stroke paints into the session's float32 buffer, and only its end writes the rows into
 * the document's weights.
 */
function paintBuffer(h: ToolHarness): Uint8Array {
  const session = h.paint.session;
  assert.ok(session, 'the brush has a paint session');
  return bytesOf(session.weights.data);
}

/** The rows (vertices) whose weights differ from `before`. */
function changedRows(before: Float64Array, after: Float64Array, cols: number): number[] {
  const rows: number[] = [];
  for (let v = 0; v < before.length / cols; v++) {
    for (let c = 0; c < cols; c++) {
      if (!Object.is(before[v * cols + c], after[v * cols + c])) {
        rows.push(v);
        break;
      }
    }
  }
  return rows;
}

/** A harness with the brush active and bone 1 selected. */
function brushHarness(): ToolHarness {
  const h = new ToolHarness();
  h.manager.activate('brush');
  h.selectedBone = 1;
  return h;
}

// --- brush ------------------------------------------------------------------------------------------------------

test('brush: activating it selects the first bone when none is, and arms the brush', () => {
  const h = new ToolHarness();
  assert.equal(h.manager.active.id, 'select', 'the first tool is active at the start');
  h.manager.activate('brush');
  assert.equal(h.manager.active.id, 'brush', 'the brush is active');
  assert.deepEqual(h.selections, [0], 'bone 0 was selected, there being none');
  assert.deepEqual(h.manager.context(), { tool: 'brush', toolState: 'idle', toolBusy: false }, 'context keys of the idle brush');
});

test('brush: a click lays one dab where it was pressed, as one "Paint stroke" step, on the 9 vertices within its radius', () => {
  const h = brushHarness();
  const states = h.states(h.brush);
  const before = h.store.doc.weights.data.slice();
  const down = h.pointerDown(100, 100);
  assert.equal(down.reachedCanvas, false, 'the brush takes the press: the camera controls do not see it');
  assert.ok(h.canvas.hasPointerCapture(1), 'the pointer is captured while the button is down');
  assert.equal(h.brush.state, 'pointing', 'a press is pointing until it moves');
  h.pointerUp(100, 100);
  assert.deepEqual(states, ['pointing', 'idle'], 'states of a click');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'the capture ends with the release');
  assert.deepEqual(h.history.undoLabels(), ['Paint stroke'], 'one undo step');

  // Radius 40 px is 0.4 world units at the centre: the vertices within 0.4 of (0, 0) are columns and rows 3..5
  // (the nearest others are 0.5 away).
  const expected: number[] = [];
  for (let j = 3; j <= 5; j++) for (let i = 3; i <= 5; i++) expected.push(vertexAt(i, j));
  const after = h.store.doc.weights.data;
  assert.deepEqual(
    changedRows(before, after, 2),
    expected.sort((a, b) => a - b),
    'the dab changed exactly the vertices inside the brush',
  );
  for (const v of expected) {
    assert.ok(after[2 * v + 1] > before[2 * v + 1], `add mode raised bone 1 at vertex ${v}`);
    // The document takes the paint buffer's float32 values.
    assert.ok(Math.abs(after[2 * v] + after[2 * v + 1] - 1) < 1e-6, `vertex ${v} still sums to 1`);
  }

  h.history.undo();
  assert.deepEqual(bytesOf(h.store.doc.weights.data), bytesOf(before), 'undo gives the weights back bit for bit');
});

test('brush: a drag goes pointing → painting → idle, dabs every spacing × radius along the way, and commits one step', () => {
  const h = brushHarness();
  const states = h.states(h.brush);
  const before = h.store.doc.weights.data.slice();
  h.pointerDown(100, 100);
  h.pointerMove(102, 100);
  assert.equal(h.brush.state, 'pointing', 'a move under the click slop (4 px) is still a click');
  assert.deepEqual(h.history.undoLabels(), [], 'nothing is committed while pointing');
  h.pointerMove(140, 100);
  assert.equal(h.brush.state, 'painting', 'past the slop the stroke opens');
  assert.deepEqual(h.manager.context(), { tool: 'brush', toolState: 'painting', toolBusy: true }, 'context keys while painting');
  h.pointerUp(140, 100);
  assert.deepEqual(states, ['pointing', 'painting', 'idle'], 'states of a drag');
  assert.deepEqual(h.history.undoLabels(), ['Paint stroke'], 'the whole drag is one undo step');

  // A dab where the button went down, then one every 0.25 × 40 = 10 px to the release: pixels 100, 110, …, 140,
  // over x = 0, 0.1, …, 0.4 on the plane.
  const centres = h.paint.lastStroke;
  assert.equal(centres.length, 15, 'five dabs (x y z each)');
  for (let d = 0; d < 5; d++) {
    const expected = [d / 10, 0, 0];
    for (let k = 0; k < 3; k++)
      assert.ok(Math.abs(centres[3 * d + k] - expected[k]) < 1e-6, `dab ${d} coordinate ${k}: ${centres[3 * d + k]} vs ${expected[k]}`);
  }
  // The last dab (x = 0.4, 1.077 from the camera, so 0.431 wide) reaches (0.5, 0) and (0.75, 0); no dab reaches
  // a row |y| ≥ 0.5, a column x ≤ -0.5 or the column x = 1.
  const changed = new Set(changedRows(before, h.store.doc.weights.data, 2));
  for (const [i, j] of [
    [6, 4],
    [7, 4],
  ])
    assert.ok(changed.has(vertexAt(i, j)), `the drag painted vertex (${i}, ${j})`);
  for (const v of changed) {
    const i = v % GRID,
      j = Math.floor(v / GRID);
    assert.ok(j >= 3 && j <= 5 && i >= 3 && i <= 7, `vertex (${i}, ${j}) is out of the brush's reach`);
  }

  h.history.undo();
  assert.deepEqual(bytesOf(h.store.doc.weights.data), bytesOf(before), 'undo gives the weights back bit for bit');
});

test('brush: Escape during a drag puts every weight back bit for bit and commits nothing; the release then does nothing', () => {
  const h = brushHarness();
  const weights = h.store.doc.weights;
  const before = bytesOf(weights.data);
  const buffer = paintBuffer(h);
  const states = h.states(h.brush);
  h.pointerDown(100, 100);
  h.pointerMove(130, 110);
  h.pointerMove(160, 120);
  assert.notDeepEqual(paintBuffer(h), buffer, 'the drag has painted');
  const escape = h.key('Escape');
  assert.equal(escape.defaultPrevented, true, 'Escape was taken as a shortcut');
  assert.equal(h.brush.state, 'idle', 'Escape ends the stroke');
  assert.deepEqual(paintBuffer(h), buffer, 'every painted weight is back, bit for bit');
  assert.equal(h.store.doc.weights, weights, 'the same weights, not a replacement');
  assert.deepEqual(bytesOf(weights.data), before, 'the document’s weights never changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');

  h.pointerMove(170, 120);
  h.pointerUp(170, 120);
  assert.deepEqual(states, ['pointing', 'painting', 'idle'], 'nothing after Escape restarts a gesture');
  assert.deepEqual(paintBuffer(h), buffer, 'moving on and releasing paints nothing');
  assert.deepEqual(bytesOf(weights.data), before, 'nor writes the document');
  assert.deepEqual(h.history.undoLabels(), [], 'and commits nothing');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'the release ends the capture');
  assert.deepEqual(h.ran, [], 'Escape while busy is not view.dismiss');
});

test('brush: a lost pointer (pointercancel) during a drag restores the weights and ends the capture; another pointer’s cancel is ignored', () => {
  const h = brushHarness();
  const before = bytesOf(h.store.doc.weights.data);
  const buffer = paintBuffer(h);
  h.pointerDown(100, 100);
  h.pointerMove(140, 100);
  h.pointerCancel(140, 100, { pointerId: 2 });
  assert.equal(h.brush.state, 'painting', 'a cancel of a pointer the brush does not hold changes nothing');
  assert.notDeepEqual(paintBuffer(h), buffer, 'the drag has painted');
  h.pointerCancel(140, 100);
  assert.equal(h.brush.state, 'idle', 'the lost pointer ends the stroke');
  assert.deepEqual(paintBuffer(h), buffer, 'every painted weight is back, bit for bit');
  assert.deepEqual(bytesOf(h.store.doc.weights.data), before, 'the document’s weights never changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'the capture is released');
  h.pointerDown(100, 100);
  assert.equal(h.brush.state, 'pointing', 'the next press starts a new gesture');
});

test('brush: a second pointer during a stroke drives nothing (no dab, no end, no camera); the first one’s release commits the stroke', () => {
  const h = brushHarness();
  h.pointerDown(100, 100);
  h.pointerMove(140, 100);
  const painted = paintBuffer(h);
  const second = h.pointerDown(50, 50, { pointerId: 2 });
  assert.equal(second.reachedCanvas, false, 'the camera does not get a second press in the middle of a stroke');
  assert.equal(h.brush.state, 'painting', 'the stroke goes on');
  assert.equal(h.canvas.hasPointerCapture(2), false, 'the second pointer is not captured');
  h.pointerMove(20, 180, { pointerId: 2 });
  h.pointerMove(10, 190, { pointerId: 2 });
  assert.deepEqual(paintBuffer(h), painted, 'the second pointer’s moves lay no dab');
  h.pointerUp(10, 190, { pointerId: 2 });
  assert.equal(h.brush.state, 'painting', 'the second pointer’s release does not end the stroke');
  assert.deepEqual(h.history.undoLabels(), [], 'nothing committed yet');
  h.pointerUp(140, 100);
  assert.equal(h.brush.state, 'idle', 'the first pointer’s release ends the stroke');
  assert.deepEqual(h.history.undoLabels(), ['Paint stroke'], 'one undo step');
});

test('brush: switching tool during a stroke cancels it (weights back bit for bit) and releases the pointer', () => {
  const h = brushHarness();
  const before = bytesOf(h.store.doc.weights.data);
  const buffer = paintBuffer(h);
  h.pointerDown(100, 100);
  h.pointerMove(140, 100);
  assert.notDeepEqual(paintBuffer(h), buffer, 'the drag has painted');
  h.key('p');
  assert.equal(h.manager.active.id, 'select', 'P toggles back to the default tool');
  assert.equal(h.brush.state, 'idle', 'the brush’s stroke was cancelled');
  assert.deepEqual(paintBuffer(h), buffer, 'every painted weight is back, bit for bit');
  assert.deepEqual(bytesOf(h.store.doc.weights.data), before, 'the document’s weights never changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'the capture is released');
});

test('brush: a click on a joint picks its bone and paints nothing; with no bone selected a drag paints nothing', () => {
  const h = brushHarness();
  const before = bytesOf(h.store.doc.weights.data);
  h.selectedBone = 0;
  h.joint = { bone: 1, clientX: 100 + CANVAS_RECT.left, clientY: 100 + CANVAS_RECT.top };
  h.pointerDown(100, 100);
  h.pointerUp(101, 100);
  assert.deepEqual(h.selections.slice(-1), [1], 'the joint’s bone is selected');
  assert.equal(h.selectedBone, 1, 'bone 1 is the selected bone');

  h.joint = null;
  h.selectedBone = -1;
  const states = h.states(h.brush);
  h.pointerDown(100, 100);
  h.pointerMove(150, 100);
  assert.equal(h.brush.state, 'pointing', 'without a bone the stroke does not open');
  h.pointerUp(150, 100);
  assert.deepEqual(states, ['pointing', 'idle'], 'states of the drag without a bone');
  assert.deepEqual(bytesOf(h.store.doc.weights.data), before, 'no weight changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');
});

test('brush: in sample mode a press picks up the weight under it and switches to set, changing nothing', () => {
  const h = brushHarness();
  const before = bytesOf(h.store.doc.weights.data);
  const states = h.states(h.brush);
  h.paint.brush.mode = 'sample';
  // Pixel (125, 100) lies over (0.25, 0), grid vertex (5, 4), where bone 1 weighs (0.25 + 1) / 2 = 0.625.
  const down = h.pointerDown(125, 100);
  assert.equal(down.reachedCanvas, false, 'the press is taken');
  assert.equal(h.paint.brush.value, 0.625, 'the sampled weight');
  assert.equal(h.paint.brush.mode, 'set', 'sampling switches to set');
  h.pointerUp(125, 100);
  assert.deepEqual(states, [], 'sampling stays idle');
  assert.deepEqual(bytesOf(h.store.doc.weights.data), before, 'no weight changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');
});

test('brush gradient: a drag back onto its start takes the gradient back, and the release there commits nothing', () => {
  const h = brushHarness();
  const before = bytesOf(h.store.doc.weights.data);
  Object.assign(h.paint.brush, { mode: 'gradient', value: 1, strength: 1, falloff: 'linear' });
  h.pointerDown(100, 100);
  h.pointerMove(160, 100);
  assert.equal(h.brush.state, 'gradient', 'a drag in gradient mode lays a gradient');
  assert.notDeepEqual(paintBuffer(h), bytesOf(Float32Array.from(h.store.doc.weights.data)), 'the drag to (160, 100) laid a gradient');
  // Back on A: no end point, no gradient; the one of the move before must not stay in the open stroke.
  h.pointerMove(100, 100);
  assert.deepEqual(paintBuffer(h), bytesOf(Float32Array.from(h.store.doc.weights.data)), 'the paint buffer holds the weights again');
  h.pointerUp(100, 100);
  assert.equal(h.brush.state, 'idle', 'the release ends the drag');
  assert.deepEqual(bytesOf(h.store.doc.weights.data), before, 'the document’s weights never changed');
  assert.deepEqual(h.history.undoLabels(), [], 'no undo step');

  // A drag that ends away from A is one "Gradient" step.
  h.pointerDown(100, 100);
  h.pointerMove(100, 100);
  h.pointerMove(160, 100);
  h.pointerUp(160, 100);
  assert.deepEqual(h.history.undoLabels(), ['Gradient'], 'a gradient with an end is committed');
});

test('brush: the right button is not taken (the camera pans)', () => {
  const h = brushHarness();
  const down = h.pointerDown(100, 100, { button: 2 });
  assert.equal(down.reachedCanvas, true, 'the camera controls see a right press');
  assert.equal(h.brush.state, 'idle', 'the brush stays idle');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'no capture');
});

test('brush resize: F, a move and Enter set the radius to the distance from the ring’s centre', () => {
  const h = brushHarness();
  const states = h.states(h.brush);
  h.pointerMove(150, 100);
  h.key('f');
  assert.equal(h.brush.state, 'resizing', 'F resizes the brush');
  // The cursor sits on the rim of the 40 px ring: its centre is (150 - 40, 100) = (110, 100).
  h.pointerMove(170, 100);
  assert.equal(h.paint.brush.radius, 60, 'radius = distance from (110, 100) to (170, 100)');
  h.pointerMove(140, 140);
  assert.equal(h.paint.brush.radius, 50, 'radius = distance from (110, 100) to (140, 140)');
  const enter = h.key('Enter');
  assert.equal(enter.defaultPrevented, true, 'Enter was a shortcut');
  assert.deepEqual(states, ['resizing', 'idle'], 'Enter confirms');
  assert.equal(h.paint.brush.radius, 50, 'the new radius stays');
  assert.deepEqual(h.history.undoLabels(), [], 'resizing is no undo step');
  assert.deepEqual(h.ran, [], 'F in the brush is not Frame all');
});

test('brush resize: Escape or a right click puts the old radius back; a left click confirms; the radius keeps to 2..400', () => {
  const h = brushHarness();
  h.pointerMove(150, 100);
  h.key('F');
  h.pointerMove(111, 100);
  assert.equal(h.paint.brush.radius, 2, '1 px from the centre is clamped to 2');
  h.pointerMove(600, 100);
  assert.equal(h.paint.brush.radius, 400, '490 px from the centre is clamped to 400');
  h.key('Escape');
  assert.equal(h.brush.state, 'idle', 'Escape ends resizing');
  assert.equal(h.paint.brush.radius, 40, 'Escape puts the radius back');

  h.pointerMove(150, 100);
  h.key('f');
  h.pointerMove(180, 100);
  const right = h.pointerDown(180, 100, { button: 2 });
  assert.equal(right.reachedCanvas, false, 'the click that ends resizing is taken');
  assert.equal(h.brush.state, 'idle', 'a right click ends resizing');
  assert.equal(h.paint.brush.radius, 40, 'a right click puts the radius back');
  h.pointerUp(180, 100, { button: 2 });

  h.pointerMove(150, 100);
  h.key('f');
  h.pointerMove(180, 100);
  h.pointerDown(180, 100);
  assert.equal(h.brush.state, 'idle', 'a left click ends resizing');
  assert.equal(h.paint.brush.radius, 70, 'a left click keeps the radius (180 - 110)');
  h.pointerUp(180, 100);
  assert.equal(h.brush.state, 'idle', 'the release of the confirming click starts nothing');
  assert.deepEqual(h.history.undoLabels(), [], 'nothing painted');
});

test('brush resize: F during a stroke does not resize; F with another tool frames the view', () => {
  const h = brushHarness();
  h.pointerDown(100, 100);
  h.pointerMove(140, 100);
  h.key('f');
  assert.equal(h.brush.state, 'painting', 'resizing is refused while painting');
  h.pointerUp(140, 100);
  h.manager.activate('select');
  h.key('f');
  assert.deepEqual(h.ran, ['view.frameAll'], 'F outside the brush is Frame all');
});

// --- keys ---------------------------------------------------------------------------------------------------------

test('keys: typed into a text field or a contenteditable, inside an open dialog, repeated or composing, Escape is no shortcut', () => {
  const h = brushHarness();
  const before = paintBuffer(h);
  h.pointerDown(100, 100);
  h.pointerMove(140, 100);
  const painted = paintBuffer(h);
  assert.notDeepEqual(painted, before, 'the drag has painted');
  const ignored = [
    h.key('Escape', { target: textField() }),
    h.key('Escape', { target: editableElement() }),
    h.key('Escape', { repeat: true }),
    h.key('Escape', { isComposing: true }),
  ];
  h.dialog(true);
  ignored.push(h.key('Escape'));
  h.dialog(false);
  for (const [k, event] of ignored.entries()) assert.equal(event.defaultPrevented, false, `key event ${k} was not taken`);
  assert.equal(h.brush.state, 'painting', 'the stroke goes on');
  assert.deepEqual(paintBuffer(h), painted, 'nothing was restored');
  h.key('Escape');
  assert.equal(h.brush.state, 'idle', 'a plain Escape cancels');
  assert.deepEqual(paintBuffer(h), before, 'and restores');
});

test('keys: Escape with no gesture goes to view.dismiss; a lone modifier key does nothing', () => {
  const h = new ToolHarness();
  const shift = h.key('Shift', { shiftKey: true });
  assert.equal(shift.defaultPrevented, false, 'a modifier alone is no chord');
  h.key('Escape');
  assert.deepEqual(h.ran, ['view.dismiss'], 'Escape while no tool is busy');
});

// --- lasso ----------------------------------------------------------------------------------------------------------

test('lasso: a drag goes idle → drawing → idle and hands the polygon over; the outline follows it over the canvas', () => {
  const h = new ToolHarness();
  h.manager.activate('lasso');
  assert.ok(h.canvas.classes.has('lasso-armed'), 'the canvas shows the lasso is armed');
  const svg = h.container.children[0];
  const outline = svg.children[0];
  const states = h.states(h.lasso);
  const down = h.pointerDown(50, 50);
  assert.equal(down.reachedCanvas, false, 'the lasso takes the press');
  h.pointerMove(51, 50);
  h.pointerMove(80, 50);
  h.pointerMove(80, 90);
  assert.deepEqual(h.lasso.points, [50, 50, 80, 50, 80, 90], 'points closer than 2 px to the last are skipped');
  // The container is at the page's corner, the canvas at (10, 20): the outline is drawn in the container's frame.
  assert.equal(outline.attributes.get('points'), '60,70 90,70 90,110 ', 'the outline in the container’s coordinates');
  assert.equal(svg.style.display, '', 'the outline shows');
  assert.equal(svg.dataset.combine, 'replace', 'no modifier replaces');
  assert.deepEqual(h.lassos, [], 'nothing is handed over before the release');
  // A second pointer adds no point and does not close the polygon.
  h.pointerMove(20, 20, { pointerId: 2 });
  h.pointerUp(20, 20, { pointerId: 2 });
  assert.deepEqual(h.lasso.points, [50, 50, 80, 50, 80, 90], 'a second pointer adds no point');
  assert.deepEqual(h.lassos, [], 'a second pointer’s release hands nothing over');
  h.pointerUp(80, 90);
  assert.deepEqual(states, ['drawing', 'idle'], 'states of a lasso');
  assert.deepEqual(h.lassos, [{ polygon: [50, 50, 80, 50, 80, 90], combine: 'replace' }], 'the closed polygon');
  assert.equal(svg.style.display, 'none', 'the outline is gone');
  h.manager.activate('select');
  assert.equal(h.canvas.classes.has('lasso-armed'), false, 'switching away disarms');
});

test('lasso: the modifiers held at the press choose the combination: Shift adds, Ctrl or Cmd removes (over Shift)', () => {
  const h = new ToolHarness();
  h.manager.activate('lasso');
  const cases = [
    [{}, 'replace'],
    [{ shiftKey: true }, 'add'],
    [{ ctrlKey: true }, 'remove'],
    [{ metaKey: true }, 'remove'],
    [{ ctrlKey: true, shiftKey: true }, 'remove'],
  ] as const;
  for (const [modifiers] of cases) {
    h.pointerDown(10, 10, modifiers);
    // The modifiers are let go during the drag: the press decided.
    h.pointerMove(40, 10);
    h.pointerMove(40, 40);
    h.pointerUp(40, 40);
  }
  assert.deepEqual(
    h.lassos.map((l) => l.combine),
    cases.map(([, combine]) => combine),
    'each lasso’s combination',
  );
});

test('lasso: Escape while drawing drops the polygon; a press without a polygon, and the right button, hand over nothing', () => {
  const h = new ToolHarness();
  h.manager.activate('lasso');
  const svg = h.container.children[0];
  h.pointerDown(50, 50);
  h.pointerMove(80, 50);
  h.pointerMove(80, 90);
  h.key('Escape');
  assert.equal(h.lasso.state, 'idle', 'Escape ends drawing');
  assert.deepEqual(h.lasso.points, [], 'the polygon is dropped');
  assert.equal(svg.style.display, 'none', 'the outline is gone');
  h.pointerUp(80, 90);
  assert.deepEqual(h.lassos, [], 'the release after Escape hands nothing over');

  h.pointerDown(50, 50);
  h.pointerMove(80, 50);
  h.pointerUp(80, 50);
  assert.deepEqual(h.lassos, [], 'two points are no polygon');

  const right = h.pointerDown(50, 50, { button: 2 });
  assert.equal(right.reachedCanvas, true, 'the right button still pans');
  assert.equal(h.lasso.state, 'idle', 'the lasso stays idle');
  assert.deepEqual(h.ran, [], 'Escape while drawing is not view.dismiss');
});

test('lasso: a lost pointer drops the polygon', () => {
  const h = new ToolHarness();
  h.manager.activate('lasso');
  h.pointerDown(50, 50);
  h.pointerMove(80, 50);
  h.pointerMove(80, 90);
  h.pointerCancel(80, 90);
  assert.equal(h.lasso.state, 'idle', 'the lost pointer ends drawing');
  assert.deepEqual(h.lasso.points, [], 'the polygon is dropped');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'the capture is released');
  assert.deepEqual(h.lassos, [], 'nothing handed over');
});

// --- select -------------------------------------------------------------------------------------------------------

test('select: a click goes idle → pointing → idle and picks at the page point; the camera controls see the press', () => {
  const h = new ToolHarness();
  const states = h.states(h.select);
  const down = h.pointerDown(30, 40);
  assert.equal(down.reachedCanvas, true, 'the select tool leaves the press to the camera controls');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'and captures nothing');
  assert.equal(h.select.state, 'pointing', 'pointing while the button is down');
  h.pointerUp(33, 43);
  assert.deepEqual(states, ['pointing', 'idle'], 'states of a click');
  // (3, 3) away is 3√2 ≈ 4.24 px, past the 4 px a click may move.
  assert.deepEqual(h.picks, [], 'a release 4.24 px away is a drag, not a click');
  h.pointerDown(30, 40);
  h.pointerUp(32, 41);
  // Canvas (32, 41) is page (32 + 10, 41 + 20).
  assert.deepEqual(h.picks, [{ clientX: 42, clientY: 61 }], 'a click picks at its page point');
});

test('select: a drag orbits and picks nothing; Escape during it cancels the pick; the right button stays idle', () => {
  const h = new ToolHarness();
  h.pointerDown(30, 40);
  h.pointerMove(90, 40);
  h.pointerUp(90, 40);
  assert.deepEqual(h.picks, [], 'a drag picks nothing');
  assert.equal(h.select.state, 'idle', 'idle after the drag');

  h.pointerDown(30, 40);
  h.key('Escape');
  assert.equal(h.select.state, 'idle', 'Escape goes back to idle');
  h.pointerUp(30, 40);
  assert.deepEqual(h.picks, [], 'the release after Escape picks nothing');

  h.pointerDown(30, 40, { button: 2 });
  assert.equal(h.select.state, 'idle', 'a right press does not point');
  h.pointerUp(30, 40, { button: 2 });
  assert.deepEqual(h.picks, [], 'nor pick');
});

test('manager: a press outside the canvas (a panel over the viewport) goes to no tool', () => {
  const h = brushHarness();
  const down = h.pointerDown(100, 100, { target: h.container });
  assert.equal(down.reachedCanvas, true, 'not stopped');
  assert.equal(h.brush.state, 'idle', 'the brush did not see it');
  assert.equal(h.canvas.hasPointerCapture(1), false, 'no capture');
});
