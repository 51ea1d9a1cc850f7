import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doneLine } from '../../renderer/bind/done-line.ts';
import type { LastBind } from '../../renderer/bind/binding-controller.ts';

// The parts of a completed bind the Done line reads; the rest as a bind leaves it.
const common = {
  weights: {},
  boundRigidly: false,
  part: null,
  weldTolerance: 0,
  weld: {
    count: 0,
    index: new Int32Array(0),
    representative: new Int32Array(0),
    memberStart: new Int32Array(1),
    members: new Int32Array(0),
  },
  shellOf: new Int32Array(0),
  reason: '',
  bindTimings: { weldMs: 3, shellsMs: 2, handlesMs: 5, totalMs: 1234 },
};

test('the Done line of a volumetric bind: the bind’s own total, the grid, its solid voxels and those on the surface, the stage times', () => {
  const last = {
    ...common,
    method: 'volumetric',
    result: {
      grid: { nx: 40, ny: 130, nz: 90, cellSize: 1, origin: [0, 0, 0] },
      solidVoxels: 123456,
      surfaceVoxels: 7890,
      timings: { voxelizeMs: 150, distancesMs: 420, smoothMs: 300, verticesMs: 10, totalMs: 880 },
    },
  } as unknown as LastBind;
  assert.equal(
    doneLine(last, 24),
    'Done in 1.23 s · volumetric: 40×130×90 grid, 123\u2009456 solid voxels (7\u2009890 on the surface); voxels 0.15 s, distances 0.42 s, weights 0.31 s',
  );
});

test('the Done line of a surface bind: the bind’s own total, the smoothness, and the vertices solved as welded ones only where some were welded', () => {
  const surface = (weldedVertexCount: number, laplacianUsed: string) =>
    ({
      ...common,
      method: 'surface',
      result: { weights: new Float64Array(2 * 1728), weldedVertexCount, laplacianUsed, timings: { totalMs: 99 } },
    }) as unknown as LastBind;
  assert.equal(
    doneLine(surface(290, 'cotan'), 2),
    'Done in 1.23 s · surface-aware smoothness · 1\u2009728 vertices solved as 290 (coincident ones welded)',
  );
  assert.equal(doneLine(surface(1728, 'uniform'), 2), 'Done in 1.23 s · even smoothness');
});
