/**
 * The faster symmetric brush gives the bits the first one gave: paintGathered (mirror targets flattened once per
 * symmetry, marks and slots side by side) against referencePaintGathered, enforceWeightInvariants (zero bones passed
 * over on their bits) against referenceEnforceWeightInvariants, on a mesh cut into welded pieces (seams on and off
 * the mirror plane) with an asymmetric bump, every brush mode, paired, self-paired, unpaired and locked bones, and
 * masked meshes; and on the body. The paint session hands the views its changed vertices in ascending order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Dab, DabMode } from '../../workers/paint/apply-dab.ts';
import type { BrushFalloff } from '../../workers/paint/brush-falloff.ts';
import { enforceWeightInvariants } from '../../workers/paint/enforce-weight-invariants.ts';
import { normalizeAllWeights } from '../../workers/paint/normalize-all-weights.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { createPaintContext, gatherDab, mirrorTargets, paintGathered, type DabSymmetry } from '../../workers/paint/paint-dab.ts';
import { beginStroke, createPaintHistory, endStroke } from '../../workers/paint/paint-history.ts';
import type { PaintSettings, PaintWeights } from '../../workers/paint/paint-weights.ts';
import { createVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { vertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { PaintSession } from '../../renderer/paint/paint-session.ts';
import { referenceApplyDab, referenceEnforceWeightInvariants, referencePaintGathered, referencePaintState } from './paint-reference.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';

/**
 * A patch z = h(x, y) over [-1, 1] × [0, 1.5], symmetric in x but for a bump at x ≈ 0.7, cut into pieces at x = -0.5,
 * 0, 0.5 and y = 0.75 (each piece has its own copies of the vertices on its cuts), vertices numbered in a shuffled
 * order.
 */
function weldedPatch(seed: number) {
  const columns = 25;
  const rows = 17;
  const xAt = (i: number) => -1 + (2 * i) / (columns - 1);
  const yAt = (j: number) => (1.5 * j) / (rows - 1);
  const height = (x: number, y: number) =>
    0.3 * Math.cos((Math.PI * x) / 2) * Math.sin((Math.PI * y) / 1.5) + 0.25 * Math.exp(-((x - 0.7) ** 2 + (y - 1.2) ** 2) / 0.01);
  const columnCuts = [0, 6, 12, 18, 24];
  const rowCuts = [0, 8, 16];
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let pi = 0; pi + 1 < columnCuts.length; pi++) {
    for (let pj = 0; pj + 1 < rowCuts.length; pj++) {
      const first = positions.length / 3;
      const width = columnCuts[pi + 1] - columnCuts[pi] + 1;
      for (let j = rowCuts[pj]; j <= rowCuts[pj + 1]; j++) {
        for (let i = columnCuts[pi]; i <= columnCuts[pi + 1]; i++) positions.push(xAt(i), yAt(j), height(xAt(i), yAt(j)));
      }
      for (let j = 0; j < rowCuts[pj + 1] - rowCuts[pj]; j++) {
        for (let i = 0; i + 1 < width; i++) {
          const a = first + j * width + i;
          triangles.push(a, a + 1, a + width + 1, a, a + width + 1, a + width);
        }
      }
    }
  }
  const n = positions.length / 3;
  const rand = seededRandom(seed);
  const order = [...Array(n).keys()];
  for (let i = n - 1; i > 0; i--) {
    const k = Math.floor(rand() * (i + 1));
    [order[i], order[k]] = [order[k], order[i]];
  }
  // order[old] = new number
  const shuffled = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) shuffled.set(positions.slice(3 * v, 3 * v + 3), 3 * order[v]);
  return { positions: shuffled, triangles: Uint32Array.from(triangles, (v) => order[v]) };
}

function randomWeights(n: number, nb: number, settings: PaintSettings, seed: number): PaintWeights {
  const rand = seededRandom(seed);
  const weights: PaintWeights = { vertexCount: n, boneCount: nb, data: new Float32Array(n * nb) };
  for (let i = 0; i < weights.data.length; i++) weights.data[i] = rand() < 0.5 ? 0 : rand();
  normalizeAllWeights(weights, settings);
  return weights;
}

const bitsOf = (a: Float32Array | Float64Array) => new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));
const MODES: DabMode[] = ['add', 'subtract', 'set', 'smooth', 'blur', 'relax', 'sample'];
const FALLOFFS: BrushFalloff[] = ['smooth', 'linear', 'constant'];

/**
 * Strokes of random dabs, each painted by paintGathered on one copy of the weights and by referencePaintGathered on
 * another, compared bit for bit after every dab.
 * @returns the mirrored vertices painted, summed over the dabs
 */
function compareStrokes(
  positions: Float64Array,
  triangles: Uint32Array,
  symmetry: DabSymmetry,
  settings: PaintSettings,
  masks: (Uint8Array | null)[],
  seed: number,
  dabs: number,
  modes: DabMode[] = MODES,
  apply?: Parameters<typeof referencePaintGathered>[3],
): number {
  const n = positions.length / 3;
  const nb = symmetry.bonePairs.length;
  const start = randomWeights(n, nb, settings, seed);
  const fast: PaintWeights = { ...start, data: start.data.slice() };
  const slow: PaintWeights = { ...start, data: start.data.slice() };
  const oneRing = vertexOneRing(n, triangles, positions);
  const fastHistory = createPaintHistory(fast);
  const slowHistory = createPaintHistory(slow);
  const context = createPaintContext(fast, createVertexGrid(positions), oneRing, settings, fastHistory, symmetry, 16);
  const reference = referencePaintState(slow, oneRing, settings, slowHistory, symmetry, 2 * n);
  const rand = seededRandom(seed + 1);
  let mirroredTotal = 0;
  for (let stroke = 0; stroke < dabs / 8; stroke++) {
    const mask = masks[stroke % masks.length];
    context.vertexMask = reference.vertexMask = mask;
    beginStroke(fastHistory);
    beginStroke(slowHistory);
    for (let d = 0; d < 8; d++) {
      const v = Math.floor(rand() * n);
      const dab: Dab = {
        centre: [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]],
        radius: 0.1 + 0.4 * rand(),
        strength: rand(),
        falloff: FALLOFFS[Math.floor(rand() * FALLOFFS.length)],
        mode: modes[Math.floor(rand() * modes.length)],
        value: rand(),
      };
      const bone = Math.floor(rand() * nb);
      let count = gatherDab(context, dab);
      if (mask) {
        let kept = 0;
        for (let i = 0; i < count; i++) {
          if (!mask[context.indices[i]]) continue;
          context.indices[kept] = context.indices[i];
          context.distances[kept++] = context.distances[i];
        }
        context.count = count = kept;
      }
      reference.indices.set(context.indices.subarray(0, count));
      reference.distances.set(context.distances.subarray(0, count));
      reference.count = count;
      const sampled = paintGathered(context, bone, dab);
      const sampledReference = referencePaintGathered(reference, bone, dab, apply);
      const where = `stroke ${stroke} dab ${d} (${dab.mode}, bone ${bone})`;
      assert.ok(Object.is(sampled, sampledReference), `${where}: sampled ${sampled}, reference ${sampledReference}`);
      assert.equal(context.mirroredCount, reference.mirroredCount, `${where}: mirrored vertices`);
      const m = context.mirroredCount;
      assert.deepEqual(context.mirroredIndices.subarray(0, m), reference.mirroredIndices.subarray(0, m), `${where}: mirrored order`);
      assert.deepEqual(bitsOf(context.mirroredDistances.subarray(0, m)), bitsOf(reference.mirroredDistances.subarray(0, m)), where);
      assert.deepEqual(bitsOf(fast.data), bitsOf(slow.data), `${where}: weights bit for bit`);
      mirroredTotal += m;
    }
    assert.deepEqual(endStroke(fastHistory), endStroke(slowHistory), `stroke ${stroke}: changed rows`);
  }
  return mirroredTotal;
}

test('the symmetric dab paints what the first one painted, bit for bit, on welded seams, masks and every brush mode', () => {
  const { positions, triangles } = weldedPatch(3);
  const n = positions.length / 3;
  const welded = weldVertices(positions, triangles);
  assert.ok(welded.count < n - 50, `the patch's cuts leave coincident vertices (${n - welded.count})`);
  const map = mirrorVertexMap(positions, triangles, 0, 0.01);
  assert.ok(map.unmatched.length > 0, 'the bump leaves vertices without a partner');
  // 0 ↔ 1, 2 on the plane (paired with itself), 3 without a pair, 4 on the plane and locked in one of the settings.
  const symmetry: DabSymmetry = { axis: 0, bonePairs: Int32Array.of(1, 0, 2, -1, 4), partner: map.partner, welded };
  // The mirrored dab spreads onto coincident copies: some targets have more than one vertex.
  const targets = mirrorTargets(symmetry);
  assert.ok(targets.start, 'welded targets are listed per vertex');
  let multiple = 0;
  for (let v = 0; v < n; v++) {
    const p = map.partner[v];
    const expected =
      p < 0 ? [] : [...welded.members.subarray(welded.memberStart[welded.index[p]], welded.memberStart[welded.index[p] + 1])];
    assert.deepEqual([...targets.targets.subarray(targets.start[v], targets.start[v + 1])], expected, `vertex ${v}'s targets`);
    if (expected.length > 1) multiple++;
  }
  assert.ok(multiple > 20, `${multiple} vertices mirror onto a seam's copies`);
  // A mask that leaves out the pieces left of x = -0.5: the mirrored dab skips them.
  const leftOut = new Uint8Array(n);
  for (let v = 0; v < n; v++) leftOut[v] = positions[3 * v] < -0.5 ? 0 : 1;
  const cases: { locked: number[]; maxInfluences: number }[] = [
    { locked: [], maxInfluences: 4 },
    { locked: [4], maxInfluences: 2 },
    { locked: [3], maxInfluences: 0 },
  ];
  for (const [k, { locked, maxInfluences }] of cases.entries()) {
    const settings: PaintSettings = { locked: new Uint8Array(5), maxInfluences };
    for (const b of locked) settings.locked[b] = 1;
    const mirrored = compareStrokes(positions, triangles, symmetry, settings, [null, leftOut], 10 + k, 96);
    assert.ok(mirrored > 1000, `case ${k}: the dabs were mirrored (${mirrored} vertices)`);
  }
  // The same without welding: partners alone.
  const bare: DabSymmetry = { axis: 0, bonePairs: symmetry.bonePairs, partner: map.partner };
  assert.equal(mirrorTargets(bare).start, null, 'without welding the partners are the targets');
  compareStrokes(positions, triangles, bare, { locked: new Uint8Array(5), maxInfluences: 4 }, [null], 20, 48);
  // The first brush's whole dab (its own row repair too) in the modes the bench replays.
  const settings: PaintSettings = { locked: Uint8Array.of(0, 0, 0, 0, 1), maxInfluences: 3 };
  const mirrored = compareStrokes(
    positions,
    triangles,
    symmetry,
    settings,
    [null, leftOut],
    21,
    64,
    ['add', 'subtract', 'set'],
    referenceApplyDab,
  );
  assert.ok(mirrored > 1000, `the first brush's dabs were mirrored (${mirrored} vertices)`);
});

test('the symmetric dab paints what the first one painted on the body (no coincident vertices: partners alone)', () => {
  const { mesh } = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj');
  const welded = weldVertices(mesh.positions, mesh.triangles);
  const map = mirrorVertexMap(mesh.positions, mesh.triangles, 0, 0.01 * boundingBox(mesh.positions).diagonal);
  const pairs = Int32Array.from({ length: 6 }, (_, b) => [1, 0, 2, 3, -1, 5][b]);
  const symmetry: DabSymmetry = { axis: 0, bonePairs: pairs, partner: map.partner, welded };
  assert.equal(mirrorTargets(symmetry).start, null, 'the body has no coincident vertices');
  const mirrored = compareStrokes(
    mesh.positions,
    mesh.triangles,
    symmetry,
    { locked: new Uint8Array(6), maxInfluences: 4 },
    [null],
    30,
    32,
  );
  assert.ok(mirrored > 500, `the dabs were mirrored (${mirrored} vertices)`);
});

test('the row repair gives the bits of the first one on rows with negatives, NaN, −0, locks and every limit', () => {
  const rand = seededRandom(41);
  const nb = 9;
  const n = 400;
  const special = [0, -0, NaN, -0.25, 1e-30, 1, 0.5];
  for (const maxInfluences of [0, 1, 2, 4]) {
    for (const lockedBones of [[], [2], [0, 5, 8]]) {
      for (const painted of [-1, 2, 3, 7]) {
        const settings: PaintSettings = { locked: new Uint8Array(nb), maxInfluences };
        for (const b of lockedBones) settings.locked[b] = 1;
        const data = new Float32Array(n * nb);
        for (let i = 0; i < data.length; i++) {
          const r = rand();
          data[i] = r < 0.45 ? 0 : r < 0.55 ? special[Math.floor(rand() * special.length)] : lockedBones.length > 1 ? 0.3 * rand() : rand();
        }
        const fast: PaintWeights = { vertexCount: n, boneCount: nb, data: data.slice() };
        const slow: PaintWeights = { vertexCount: n, boneCount: nb, data: data.slice() };
        const rows = Uint32Array.from({ length: n / 2 }, (_, i) => (i * 7) % n);
        const where = `limit ${maxInfluences}, locked [${lockedBones.join(', ')}], painted ${painted}`;
        assert.equal(
          enforceWeightInvariants(fast, rows, rows.length, painted, settings),
          referenceEnforceWeightInvariants(slow, rows, rows.length, painted, settings),
          `${where}: rows not repaired`,
        );
        assert.deepEqual(bitsOf(fast.data), bitsOf(slow.data), `${where}: weights bit for bit`);
      }
    }
  }
});

test('the paint session hands the views its changed vertices in ascending order, the surface in the order first changed', () => {
  const { positions, triangles } = weldedPatch(5);
  const n = positions.length / 3;
  const nb = 5;
  const settings: PaintSettings = { locked: new Uint8Array(nb), maxInfluences: 4 };
  const start = randomWeights(n, nb, settings, 7);
  const dense = { rows: n, cols: nb, data: Float64Array.from(start.data) };
  const skeleton = { joints: new Float64Array(6 * nb), bones: new Uint32Array(2 * nb), parents: new Int32Array(nb).fill(-1) };
  const map = mirrorVertexMap(positions, triangles, 0, 0.01);
  const session = new PaintSession(dense, positions, triangles, skeleton as never, null, 3, [map], settings);
  // Turning symmetry on lists the mirrored dab's targets then, not in the first dab.
  session.setSymmetry(0);
  assert.equal(session.context.mirrorTargets?.partner, map.partner, 'the targets are built with the symmetry');
  assert.ok(session.context.mirrorTargets.start, 'the patch is welded: targets per vertex');
  session.setSymmetry(null);
  assert.equal(session.context.mirrorTargets, null, 'symmetry off: no targets');
  const welded = weldVertices(positions, triangles);
  const symmetry = {
    axis: 0 as const,
    bonePairs: Int32Array.of(1, 0, 2, -1, 4),
    partner: map.partner,
    welded,
  };
  session.context.symmetry = symmetry;
  session.context.grid = createVertexGrid(positions);
  session.beginStroke();
  const firstChanged: number[] = [];
  const painted = new Set<number>();
  const rand = seededRandom(8);
  for (let round = 0; round < 3; round++) {
    painted.clear();
    firstChanged.length = 0;
    for (let d = 0; d < 4; d++) {
      const v = Math.floor(rand() * n);
      const dab: Dab = {
        centre: positions.subarray(3 * v, 3 * v + 3),
        radius: 0.3,
        strength: 0.2,
        falloff: 'smooth',
        mode: 'add',
        value: 1,
      };
      gatherDab(session.context, dab);
      session.dab(0, dab);
      const { indices, count, mirroredIndices, mirroredCount } = session.context;
      for (const u of [...indices.subarray(0, count), ...mirroredIndices.subarray(0, mirroredCount)]) {
        if (!painted.has(u)) firstChanged.push(u);
        painted.add(u);
      }
    }
    assert.ok(painted.size > 50, `round ${round}: the dabs painted ${painted.size} vertices`);
    const views = session.takeDirty();
    assert.deepEqual(
      [...views.vertices.subarray(0, views.count)],
      [...painted].sort((a, b) => a - b),
      `round ${round}: views, ascending`,
    );
    assert.equal(session.hasDirty, false, `round ${round}: nothing left for the views`);
    const surface = session.takeMoved();
    assert.deepEqual([...surface.vertices.subarray(0, surface.count)], firstChanged, `round ${round}: surface, in the order first changed`);
  }
  // The views' set empties on its own: the surface still has what changed since it last caught up.
  const v = 0;
  const dab: Dab = { centre: positions.subarray(3 * v, 3 * v + 3), radius: 0.3, strength: 0.2, falloff: 'smooth', mode: 'add', value: 1 };
  gatherDab(session.context, dab);
  session.dab(0, dab);
  const count = session.takeDirty().count;
  assert.ok(count > 0, 'the dab changed vertices');
  assert.equal(session.takeDirty().count, 0, 'taken once');
  assert.equal(session.takeMoved().count, count, 'the surface gets the same vertices');
  session.endStroke();
});
