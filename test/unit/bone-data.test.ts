/**
 * The scene layer's access to bone-indexed data (workers/scene/bone-data.ts) against values worked out by hand on a
 * 3 × 2 weight matrix.
 */
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { boneColumn, boneRotation, denseWeights, dominantBone, weightAt, withRows } from '../../workers/scene/bone-data.ts';

// Rows: vertex 0 (0.25, 0.75), vertex 1 (0.5, 0.5), vertex 2 (1, 0).
const weights = { rows: 3, cols: 2, data: new Float64Array([0.25, 0.75, 0.5, 0.5, 1, 0]) };

test('a weight, a column and the strongest bone read the row-major matrix', () => {
  assert.equal(weightAt(weights, 0, 1), 0.75);
  assert.equal(weightAt(weights, 2, 0), 1);
  assert.equal(weightAt(weights, 1, -1), 0, 'no bone weighs 0');
  const column = new Float32Array(3);
  boneColumn(weights, 1, column);
  assert.deepEqual([...column], [0.75, 0.5, 0]);
  const two = new Float64Array(3).fill(9);
  boneColumn(weights, 0, two, 2);
  assert.deepEqual([...two], [0.25, 0.5, 9], 'only the first `count` vertices');
  boneColumn(weights, -1, two);
  assert.deepEqual([...two], [0, 0, 0]);
  assert.deepEqual(
    [0, 1, 2].map((v) => dominantBone(weights, v)),
    [1, 0, 0],
    'a tie goes to the first bone',
  );
});

test('rows replaced make a new matrix; the rest is copied and the input kept', () => {
  const next = withRows(weights, 1, [0, 1]);
  assert.deepEqual([...next.data], [0.25, 0.75, 0, 1, 1, 0]);
  assert.deepEqual([...weights.data], [0.25, 0.75, 0.5, 0.5, 1, 0], 'the input is not modified');
  assert.throws(() => withRows(weights, 2, [0, 1, 1, 0]), /4 weights are not whole rows of 2 bones from vertex 2 of 3/);
  assert.throws(() => withRows(weights, 0, [1]), /1 weights are not whole rows/);
  const pose = Float64Array.from({ length: 18 }, (_, i) => i);
  assert.deepEqual([...boneRotation(pose, 1)], [9, 10, 11, 12, 13, 14, 15, 16, 17]);
});

test('the dense weights are the rows one after another, in a copy of their own', () => {
  const dense = denseWeights(weights);
  assert.ok(dense instanceof Float64Array, 'float64, as the scene keeps them');
  // Vertex v's weight of bone b at v · 2 + b: rows (0.25, 0.75), (0.5, 0.5), (1, 0) in order.
  assert.deepEqual([...dense], [0.25, 0.75, 0.5, 0.5, 1, 0]);
  for (let v = 0; v < 3; v++) for (let b = 0; b < 2; b++) assert.equal(dense[v * 2 + b], weightAt(weights, v, b), `vertex ${v}, bone ${b}`);
  dense[1] = 9;
  assert.equal(weightAt(weights, 0, 1), 0.75, 'changing the copy leaves the scene’s weights');
  assert.equal(denseWeights({ rows: 0, cols: 4, data: new Float64Array(0) }).length, 0, 'no vertices, no weights');
});

test('no renderer module indexes the scene’s weights matrix itself: it goes through the scene layer', () => {
  // The paint controller's flush reads the paint session's own float32 buffer (workers/paint/paint-weights.ts), a
  // copy the session keeps while painting, not the document's matrix.
  const OWN_BUFFER = new Set([path.join('renderer', 'paint', 'paint-controller.ts')]);
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts') && !OWN_BUFFER.has(file) && /weights\.data\b/.test(readFileSync(file, 'utf8')))
        offenders.push(file);
    }
  };
  walk('renderer');
  assert.deepEqual(offenders, [], 'renderer modules reading weights.data directly');
  assert.match(
    readFileSync(path.join('renderer', 'paint', 'paint-controller.ts'), 'utf8'),
    /session\.weights\.data/,
    'the exception is still the paint buffer (drop it from OWN_BUFFER when it goes)',
  );
});
