/**
 * workers/formats/dmat-role.ts on small matrices whose readings are worked out by hand from the shapes Rigwright
 * reads: weights #V × #B, poses 3·B·L × 3 or 4B × 1, handles #V × 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dmatFits, dmatReadings, dmatRole } from '../../workers/formats/dmat-role.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';

/** A matrix from its rows. */
function matrix(rows: number[][]): DenseMatrix {
  return { rows: rows.length, cols: rows[0]?.length ?? 1, data: Float64Array.from(rows.flat()) };
}

const column = (values: number[]): DenseMatrix => matrix(values.map((x) => [x]));

/** Three 3×3 identity blocks, 9 × 3: three rotations, and also nine rows summing to 1. */
const identities = matrix([
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
]);

/** Bones 0–2 and three free vertices: handles for 12 vertices, and 12 = 4 · 3 rows as a quaternion column would be. */
const handleLabels = column([0, 0, 1, 1, 2, 2, -1, -1, 0, 1, 2, -1]);

test('dmatRole: a 12 × 1 handle column with 12 vertices and 3 bones is read as poses (4B × 1 comes before handles)', () => {
  assert.deepEqual(dmatRole(handleLabels, 12, 3), { role: 'poses', fits: true });
  assert.deepEqual(dmatRole(handleLabels, 12, 4), { role: 'handles', fits: true }, '4 bones need 16 rows of quaternions');
});

test('dmatRole: weights fit first when the shape is also a pose or a handle column', () => {
  // 9 × 3 with 9 vertices and 3 bones: #V × #B, and also 3·B·L × 3 with L = 1.
  assert.equal(dmatFits(identities, 'poses', 9, 3), true);
  assert.deepEqual(dmatRole(identities, 9, 3), { role: 'weights', fits: true });
  // 5 × 1 with 5 vertices and 1 bone: #V × #B and #V × 1.
  assert.deepEqual(dmatRole(column([1, 1, 1, 1, 1]), 5, 1), { role: 'weights', fits: true });
  // With 4 vertices the 9 × 3 matrix is three frames of 1 bone (9 = 3 · 1 · 3).
  assert.deepEqual(dmatRole(identities, 4, 1), { role: 'poses', fits: true });
});

test('dmatRole: misfits get the closest reading with fits false', () => {
  assert.deepEqual(
    dmatRole(
      matrix([
        [0.5, 0.5],
        [1, 0],
        [0, 1],
        [0.2, 0.8],
      ]),
      4,
      3,
    ),
    { role: 'weights', fits: false },
    '#V rows, wrong columns',
  );
  assert.deepEqual(dmatRole(column([0, -1, 2, 2, -1, 0, 1]), 4, 3), { role: 'handles', fits: false }, 'whole numbers ≥ -1');
  assert.deepEqual(dmatRole(column([0, -2, 2, 2, -1, 0, 1]), 4, 3), { role: 'poses', fits: false }, '-2 is no handle');
  assert.deepEqual(dmatRole(column([0, 0, 0.6, 0.8, 0, 0, 0, 1]), 4, 3), { role: 'poses', fits: false }, 'fractions: quaternions');
  const twoRotations = matrix([
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ]);
  assert.deepEqual(dmatRole(twoRotations, 4, 3), { role: 'poses', fits: false }, '6 × 3: two rotations, not a multiple of 3 bones');
  assert.deepEqual(
    dmatRole(
      matrix([
        [1, 0],
        [0, 1],
        [1, 0],
        [0, 1],
        [1, 0],
      ]),
      4,
      3,
    ),
    { role: 'weights', fits: false },
    'anything else',
  );
});

test('dmatFits: the shapes for #V vertices and #B bones', () => {
  const twoFrames = matrix(Array.from({ length: 18 }, (_, i) => [i % 3 === 0 ? 1 : 0, i % 3 === 1 ? 1 : 0, i % 3 === 2 ? 1 : 0]));
  assert.equal(dmatFits(twoFrames, 'poses', 100, 3), true, '18 × 3 = 3 · 3 bones · 2 frames');
  assert.equal(dmatFits(twoFrames, 'poses', 100, 4), false, '18 is no multiple of 12');
  assert.equal(dmatFits(column([0, 0, 0, 1, 0, 0, 0, 1]), 'poses', 100, 2), true, '4B × 1');
  assert.equal(dmatFits(handleLabels, 'handles', 12, 7), true, 'handles do not depend on the bones');
  assert.equal(dmatFits(handleLabels, 'handles', 11, 7), false);
  assert.equal(dmatFits(identities, 'weights', 9, 3), true);
  assert.equal(dmatFits(identities, 'weights', 3, 9), false, 'transposed');
});

test('dmatReadings: every reading a matrix allows alone, poses first, weights last', () => {
  assert.deepEqual(dmatReadings(identities), [
    { role: 'poses', layout: 'rotation-matrices', rotationCount: 3 },
    { role: 'weights', vertexCount: 9, boneCount: 3 },
  ]);
  // (0,0,1,1) has length √2, so these labels are no quaternions; rows of 0 do not sum to 1, so no weights.
  assert.deepEqual(dmatReadings(handleLabels), [{ role: 'handles', vertexCount: 12, largestBone: 2, freeVertexCount: 3 }]);
  // Two identity quaternions are also whole numbers ≥ -1 with bone 1 present.
  assert.deepEqual(dmatReadings(column([0, 0, 0, 1, 0, 0, 0, 1])), [
    { role: 'poses', layout: 'quaternions', boneCount: 2 },
    { role: 'handles', vertexCount: 8, largestBone: 1, freeVertexCount: 0 },
  ]);
  assert.deepEqual(dmatReadings(column([0, 0, 0.6, 0.8])), [{ role: 'poses', layout: 'quaternions', boneCount: 1 }]);
  assert.deepEqual(
    dmatReadings(column([0, 0, 0, 1.0005])),
    [{ role: 'poses', layout: 'quaternions', boneCount: 1 }],
    'length 1 to within 1e-3',
  );
  assert.deepEqual(
    dmatReadings(column([0, 0, 0, 1.002])),
    [],
    'length 1.002: no quaternion; 1.002 is no bone index; rows of 0 are no weights',
  );
  assert.deepEqual(dmatReadings(column([-1, -1, -1])), [], 'no vertex is a handle');
  assert.deepEqual(dmatReadings(column([1, 1, 1])), [
    { role: 'handles', vertexCount: 3, largestBone: 1, freeVertexCount: 0 },
    { role: 'weights', vertexCount: 3, boneCount: 1 },
  ]);
});

test('dmatReadings: what fits nothing, without throwing', () => {
  assert.deepEqual(
    dmatReadings(
      matrix([
        [2, 0, 0],
        [0, 2, 0],
        [0, 0, 2],
      ]),
    ),
    [],
    'a scale is no rotation and its rows sum to 2',
  );
  assert.deepEqual(
    dmatReadings(
      matrix([
        [0.5, 0.7],
        [0.5, 0.3],
      ]),
    ),
    [],
    'rows sum to 1.2 and 0.8',
  );
  assert.deepEqual(
    dmatReadings(
      matrix([
        [1.5, -0.5],
        [0, 1],
      ]),
    ),
    [],
    'a negative weight',
  );
  assert.deepEqual(
    dmatReadings(
      matrix([
        [Infinity, 0],
        [0, 1],
      ]),
    ),
    [],
    'a value that is not finite',
  );
  assert.deepEqual(dmatReadings({ rows: 0, cols: 1, data: new Float64Array(0) }), [], 'empty');
});

/** One bone's identity transform as libigl's animation stores it: a 12 × 1 column, rows c·4 + k of [I | 0]. */
const restFrame = column([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);

test('dmatRole: 12·B × L is an animation of absolute transforms when nothing before it fits', () => {
  assert.deepEqual(dmatRole(restFrame, 5, 1), { role: 'animation', fits: true }, '12 = 12 · 1 bone, one frame');
  assert.deepEqual(dmatRole(restFrame, 5, 3), { role: 'poses', fits: true }, '12 = 4 · 3 bones: quaternions come first');
  assert.deepEqual(dmatRole(restFrame, 5, 2), { role: 'animation', fits: false }, 'two bones need 24 rows');
  // Its four-number groups (1,0,0,0), (0,1,0,0), (0,0,1,0) are unit quaternions, its entries bones 0 and 1.
  assert.deepEqual(dmatReadings(restFrame), [
    { role: 'poses', layout: 'quaternions', boneCount: 3 },
    { role: 'handles', vertexCount: 12, largestBone: 1, freeVertexCount: 0 },
    { role: 'animation', boneCount: 1, frameCount: 1 },
  ]);
  const stretched = column([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
  assert.equal(
    dmatReadings(stretched).some((r) => r.role === 'animation'),
    false,
    'a matrix whose 3×3 parts are not rotations is no animation on its own',
  );
});
