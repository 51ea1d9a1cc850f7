/**
 * The paint operations keep no weights buffer of their own once they return: a mesh's weights (134 MB at 1.2M
 * vertices and 28 bones) are freed with the mesh, not held until the next mesh is painted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { enforceWeightInvariants } from '../../workers/paint/enforce-weight-invariants.ts';
import { defaultPaintSettings } from '../../workers/paint/paint-weights.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

test('enforceWeightInvariants keeps no view of the weights it repaired: their buffer is collected once dropped', async () => {
  let released: WeakRef<ArrayBuffer> | null = null;
  (() => {
    // Two vertices, two bones: row 0 sums to 2 and is normalized, row 1 is left as it is.
    const weights = { vertexCount: 2, boneCount: 2, data: new Float32Array([1.5, 0.5, 1, 0]) };
    assert.equal(enforceWeightInvariants(weights, [0, 1], 2, -1, defaultPaintSettings(2)), 0);
    assert.deepEqual(Array.from(weights.data), [0.75, 0.25, 1, 0], 'row 0 scaled to a sum of one, row 1 kept');
    released = new WeakRef(weights.data.buffer);
  })();
  // A WeakRef's target is kept until the current job ends: collect after a turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 0));
  collectGarbage();
  assert.equal(released.deref(), undefined, 'the weights buffer is still referenced after the call returned');
});
