/**
 * The heat map legend's numbers: the deformation controller's range of the vertex map on screen (the area change of
 * the demo's LBS at mid-clip, computed here from workers/skinning and workers/mesh), and the legend state the shell
 * makes of it and of the weights (renderer/shell/heat-map-legend-feed.ts): the bar's ends, the data's range in the
 * legend's units (weights; area ratio 2^x; mesh units) and where it sits along the bar.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeformationController, type DeformationViews } from '../../renderer/deform/deformation-controller.ts';
import { PoseEvaluator } from '../../renderer/deform/pose-evaluator.ts';
import { HeatMapLegendFeed, heatMapLegendState, type HeatMapLegendHost } from '../../renderer/shell/heat-map-legend-feed.ts';
import type { HeatMapLegendState } from '../../renderer/panels/heat-map-legend.ts';
import { plainNumber } from '../../renderer/project/plain-number.ts';
import type { SceneChange } from '../../workers/scene/scene-store.ts';
import { DISTORTION_COLOUR_MAP, WEIGHT_COLOUR_MAP, colourMapSamples } from '../../renderer/view/colour-maps.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { oneRingAreas } from '../../workers/mesh/one-ring-area-change.ts';

/** Views that take whatever they are fed: only the controller's own bookkeeping is under test. */
function quietViews(): DeformationViews<string, string> {
  const feed = {
    setMethod() {},
    setContext() {},
    setTransforms() {},
    setDualQuaternions() {},
    setStreamedPositions() {},
    setDistortion() {},
  };
  return {
    primary: feed,
    secondary: null,
    splitView: null,
    openSplit() {},
    closeSplit() {},
    setDocument() {},
    setInfluences() {},
    setTriangles() {},
    setLook() {},
    setBlendWeights() {},
    setHidden() {},
    lookReady: () => Promise.resolve(),
    readSplitPositions: () => null,
  };
}

test('the controller reports the area change’s lowest and highest log2 ratio over the mesh, and nothing with the map off', () => {
  const doc = demoDocument();
  const influences = influencesFromWeights(doc.weights, 4);
  const controller = new DeformationController(quietViews(), doc, influences, () => {});
  const evaluator = new PoseEvaluator(doc);
  evaluator.evaluate(Math.floor(evaluator.duration / 2));
  controller.applyPose(evaluator);
  // Read through a function: each read is the controller's state then (an assertion would narrow a plain read).
  const mapShown = () => controller.vertexMapShown;
  assert.equal(mapShown(), null, 'no map yet');

  controller.setHeatMap(true);
  const posed = new Float64Array(doc.mesh.positions.length);
  linearBlendSkinning(doc.mesh.positions, influences, evaluator.transforms, posed);
  const n = doc.mesh.positions.length / 3;
  const rest = oneRingAreas(doc.mesh.positions, doc.mesh.triangles, new Float64Array(n));
  const now = oneRingAreas(posed, doc.mesh.triangles, new Float64Array(n));
  let low = Infinity,
    high = -Infinity;
  for (let v = 0; v < n; v++) {
    const ratio = Math.log2(now[v] / rest[v]);
    low = Math.min(low, ratio);
    high = Math.max(high, ratio);
  }
  assert.ok(high - low > 1e-3, `the pose changes some areas (${low} … ${high})`);
  const shown = mapShown();
  assert.ok(shown, 'the map is on');
  assert.equal(shown.map, 'distortion', 'the area change');
  assert.equal(shown.fullScale, 1, 'saturates at ±1 (half, double)');
  // The views' values are single precision.
  assert.ok(Math.abs(shown.min - low) < 1e-6, `lowest ${shown.min} against ${low}`);
  assert.ok(Math.abs(shown.max - high) < 1e-6, `highest ${shown.max} against ${high}`);

  controller.setExampleMap('displacement');
  assert.deepEqual(controller.vertexMapShown, { map: 'displacement', min: 0, max: 0, fullScale: 0 }, 'no examples: a blank map');
  controller.setExampleMap('off');
  controller.setHeatMap(false);
  assert.equal(controller.vertexMapShown, null, 'both off');
});

function host(overrides: Partial<HeatMapLegendHost> & { shown?: HeatMapLegendHost['deformation']['vertexMapShown'] }): HeatMapLegendHost {
  return {
    doc: demoDocument(),
    viewMode: 'shaded',
    selectedBone: 0,
    deformation: { vertexMapShown: overrides.shown ?? null, exampleMapNote: 'not at an example’s pose', hidden: false },
    ...overrides,
  };
}

test('the weight map’s legend: 0 to 1 in weight, the selected bone’s lowest and highest weight, viridis colours', () => {
  const doc = demoDocument();
  const bone = 2;
  const { rows, cols, data } = doc.weights;
  const column = Array.from({ length: rows }, (_, v) => data[v * cols + bone]);
  const state = heatMapLegendState(host({ doc, viewMode: 'heatmap', selectedBone: bone }));
  assert.ok(state, 'a legend');
  assert.equal(state.kind, 'weight', 'the weight map');
  assert.equal(state.title, `Weight of ${doc.boneNames?.[bone] ?? `bone ${bone}`}`, 'names the bone');
  assert.deepEqual([state.scale, state.units, state.low, state.high], [[0, 1], 'weight', '0', '1'], 'the bar’s ends');
  assert.deepEqual(state.colours, colourMapSamples(WEIGHT_COLOUR_MAP), 'the shader’s colour map');
  assert.equal(state.data?.min, Math.min(...column), 'lowest weight');
  assert.equal(state.data?.max, Math.max(...column), 'highest weight');
  assert.deepEqual(state.data?.at, [Math.min(...column), Math.max(...column)], 'along the bar as they are');
});

test('the area change’s legend speaks of area ratios: ×0.5 to ×2, the data as 2^x, placed by x along the bar', () => {
  const state = heatMapLegendState(host({ shown: { map: 'distortion', min: -0.5, max: 0.25, fullScale: 1 } }));
  assert.ok(state, 'a legend');
  assert.deepEqual([state.kind, state.scale, state.units], ['distortion', [0.5, 2], '× area'], 'area ratio, half to double');
  assert.deepEqual(state.colours, colourMapSamples(DISTORTION_COLOUR_MAP), 'the shader’s colour map');
  assert.equal(state.data?.min, 2 ** -0.5, 'smallest ratio');
  assert.equal(state.data?.max, 2 ** 0.25, 'largest ratio');
  // log2 −1 … 1 along the bar: −0.5 at a quarter, 0.25 at five eighths.
  assert.deepEqual(state.data?.at, [0.25, 0.625], 'along the bar');
  assert.equal(state.data?.text, 'on the mesh: ×0.707 to ×1.19', 'in words');
  // The colour map's domain is log2 −1 … 1: its ends are half and double the area.
  assert.deepEqual([state.low, state.high], ['×0.5 (half)', '×2 (double)'], 'the bar’s ends in words');
});

test('the examples’ legends: 0 to the full scale in mesh units; a blank map says why; hidden or no map, no legend', () => {
  const doc = demoDocument();
  const error = heatMapLegendState(host({ doc, shown: { map: 'error', min: 0.001, max: 0.004, fullScale: 0.008 } }));
  assert.ok(error, 'a legend');
  assert.deepEqual([error.kind, error.scale, error.units, error.high], ['error', [0, 0.008], 'mesh units', '0.008'], 'its ends');
  assert.deepEqual(error.data?.at, [0.125, 0.5], 'along the bar: fractions of the full scale');
  assert.match(error.data.text, new RegExp(`up to ${plainNumber((100 * 0.004) / doc.diagonal).replace('.', '\\.')}% of the mesh size`));
  const blank = heatMapLegendState(host({ shown: { map: 'displacement', min: 0, max: 0, fullScale: 0 } }));
  assert.equal(blank?.data, null, 'no data to show');
  assert.equal(blank?.note, 'not at an example’s pose', 'the reason');
  assert.equal(heatMapLegendState(host({})), null, 'no heat map, no legend');
  const hidden = host({ viewMode: 'heatmap' });
  assert.equal(heatMapLegendState({ ...hidden, deformation: { ...hidden.deformation, hidden: true } }), null, 'the mesh is not shown');
});

test('legend numbers are plain: a tiny distance reads "< 0.001", never in exponent notation', () => {
  const doc = demoDocument();
  // The body's examples match their sculpts to about 2.9e-6 mesh units: the legend says "< 0.001".
  const state = heatMapLegendState(host({ doc, shown: { map: 'error', min: 0, max: 0.00000288, fullScale: 0.002 } }));
  assert.ok(state?.data, 'a legend with data');
  assert.equal(state.data.text, 'on the mesh: 0 to < 0.001 (up to < 0.001% of the mesh size)', 'in words');
  assert.deepEqual([state.low, state.high], ['0', '0.002'], 'the bar’s ends');
  assert.equal(state.data.max, 0.00000288, 'the number itself is kept for the test hook');
});

test('the weight map’s range is kept until the weights change: another weights object, or rows edited in place', () => {
  const doc = demoDocument();
  const bone = 1;
  const shown: (HeatMapLegendState | null)[] = [];
  const listeners: ((change: SceneChange) => void)[] = [];
  const store = { subscribe: (listener: (change: SceneChange) => void) => (listeners.push(listener), () => {}) };
  let current = doc;
  const feed = new HeatMapLegendFeed(
    { show: (state) => shown.push(state) },
    () => host({ doc: current, viewMode: 'heatmap', selectedBone: bone }),
    store,
  );
  const { rows, cols, data } = doc.weights;
  const columnMax = () => Math.max(...Array.from({ length: rows }, (_, v) => data[v * cols + bone]));
  feed.refresh();
  assert.equal(shown.at(-1)?.data?.max, columnMax(), 'the bone’s highest weight');
  const before = columnMax();
  // A change the store has not announced is not seen: the range is the cached one, not a new scan.
  const v = Array.from({ length: rows }, (_, k) => k).find((k) => data[k * cols + bone] < before)!;
  const old = data[v * cols + bone];
  data[v * cols + bone] = before + 0.5;
  feed.refresh();
  assert.equal(shown.at(-1)?.data?.max, before, 'no scan on a frame where the weights did not change');
  for (const listener of listeners) listener({ kind: 'weight-rows', vertices: Uint32Array.of(v), count: 1 });
  feed.refresh();
  assert.equal(shown.at(-1)?.data?.max, before + 0.5, 'rows edited in place: scanned again');
  data[v * cols + bone] = old;
  // Another weights object (an undo of a bind, a new scene): scanned again without an announcement.
  current = { ...doc, weights: { rows, cols, data: Float64Array.from(data) } };
  feed.refresh();
  assert.equal(shown.at(-1)?.data?.max, before, 'another weights object');
  // Another bone: its own range.
  const other = Math.max(...Array.from({ length: rows }, (_, k) => data[k * cols + 0]));
  const feedOther = new HeatMapLegendFeed(
    { show: (state) => shown.push(state) },
    () => host({ doc: current, viewMode: 'heatmap', selectedBone: 0 }),
    store,
  );
  feedOther.refresh();
  assert.equal(shown.at(-1)?.data?.max, other, 'bone 0’s highest weight');
});
