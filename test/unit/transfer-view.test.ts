/**
 * The Transfer view's source data: the last transfer's outcome per scene vertex (renderer/meshes/last-transfer.ts),
 * the colour the shader gives each outcome (the GLSL generated from renderer/view/transfer-colours.ts, run here as
 * written) and the legend the shell makes of it (renderer/shell/heat-map-legend-feed.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { LastTransfer, TRANSFER_OUTSIDE } from '../../renderer/meshes/last-transfer.ts';
import { heatMapLegendState } from '../../renderer/shell/heat-map-legend-feed.ts';
import { TRANSFER_COLOURS, cssColour, transferColour, transferColourGlsl, type Rgb } from '../../renderer/view/transfer-colours.ts';
import { demoDocument, vertexCountOf } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { TRANSFER_INPAINTED, TRANSFER_MATCHED, TRANSFER_NEAREST } from '../../workers/weights/weight-transfer.ts';

/** Runs the generated GLSL function in JavaScript: its statements are ifs and returns of vec3 constants. */
function runGlsl(): (status: number) => Rgb {
  const js = transferColourGlsl().replace(/^vec3 (\w+)\(float status\) \{/, '(function $1(status) {');
  return runInNewContext(`${js})`, { vec3: (x: number, y: number, z: number): Rgb => [x, y, z] }) as (status: number) => Rgb;
}

test('the shader colours each outcome with the table’s colour, grey outside the transfer; the four colours differ', () => {
  const shader = runGlsl();
  const cases: [number, Rgb][] = [
    [TRANSFER_OUTSIDE, TRANSFER_COLOURS.outside],
    [TRANSFER_MATCHED, TRANSFER_COLOURS.matched],
    [TRANSFER_INPAINTED, TRANSFER_COLOURS.inpainted],
    [TRANSFER_NEAREST, TRANSFER_COLOURS.nearest],
  ];
  for (const [status, colour] of cases) {
    const drawn = shader(status);
    // The GLSL writes each channel with 4 decimals.
    for (let c = 0; c < 3; c++)
      assert.ok(Math.abs(drawn[c] - colour[c]) <= 5e-5, `status ${status} channel ${c}: ${drawn[c]} vs ${colour[c]}`);
    assert.deepEqual(transferColour(status), colour, `transferColour(${status})`);
  }
  const distinct = new Set(cases.map(([, colour]) => colour.join()));
  assert.equal(distinct.size, 4, 'four different colours');
});

test('the last transfer: each scene vertex’s outcome at its place, the counts, kept through edits, gone with a new scene', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const n = vertexCountOf(store.doc);
  const last = new LastTransfer(store);
  let changes = 0;
  last.onChange(() => changes++);
  assert.equal(last.record, null, 'none before a transfer');
  // A target of 5 vertices starting at vertex 3: matched, inpainted, matched, no match, inpainted.
  last.remember('body.obj', 'shirt.obj', n, 3, Uint8Array.of(0, 1, 0, 2, 1));
  const record = last.record!;
  const expected = new Int8Array(n).fill(-1);
  expected.set([0, 1, 0, 2, 1], 3);
  assert.deepEqual(record.status, expected, 'outside the target: -1');
  assert.deepEqual(record.counts, { matched: 2, inpainted: 2, nearest: 1 });
  assert.deepEqual(
    [...last.verticesOf('inpainted')!].flatMap((s, v) => (s ? [v] : [])),
    [4, 7],
    'the inpainted vertices',
  );
  assert.deepEqual(
    [...last.verticesOf('nearest')!].flatMap((s, v) => (s ? [v] : [])),
    [6],
    'the vertex with no match',
  );
  assert.equal(changes, 1);
  store.edit('Paint stroke', { weights: { ...store.doc.weights, data: store.doc.weights.data.slice() } });
  assert.equal(last.record, record, 'an edit of the weights keeps it');
  store.open(demoDocument(), 'opened the demo');
  assert.equal(last.record, null, 'a new scene drops it');
  assert.equal(changes, 2);
});

test('the Transfer view’s legend: three blocks in the table’s colours named under them, the counts, whatever bone is selected', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const last = new LastTransfer(store);
  last.remember('body.obj', 'shirt.obj', vertexCountOf(store.doc), 0, Uint8Array.of(0, 0, 0, 1, 2));
  const deformation = { vertexMapShown: null, exampleMapNote: '', hidden: false };
  const legend = heatMapLegendState({ doc: store.doc, viewMode: 'transfer', selectedBone: 1, deformation, transfer: last.record });
  assert.ok(legend, 'a legend while the Transfer view is on');
  assert.equal(legend.kind, 'transfer');
  assert.equal(legend.steps, true, 'categories, not a ramp');
  assert.deepEqual(legend.colours, [TRANSFER_COLOURS.matched, TRANSFER_COLOURS.inpainted, TRANSFER_COLOURS.nearest].map(cssColour));
  assert.deepEqual([legend.low, legend.units, legend.high], ['matched', 'inpainted', 'no match']);
  assert.equal(legend.title, 'Transfer from body.obj to shirt.obj');
  assert.equal(legend.note, '3 vertices matched · 1 inpainted · 1 with no match');
  const none = heatMapLegendState({ doc: store.doc, viewMode: 'transfer', selectedBone: 1, deformation, transfer: null });
  assert.match(none?.title ?? '', /no transfer on this scene yet/);
  assert.equal(heatMapLegendState({ doc: store.doc, viewMode: 'shaded', selectedBone: 1, deformation, transfer: last.record }), null);
});
