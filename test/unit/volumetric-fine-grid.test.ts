import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { spreadWeldedRows, weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { weldedShells } from '../../workers/weights/binding-method.ts';
import { volumetricWeights, VOLUMETRIC_WEIGHTS_DEFAULTS } from '../../workers/weights/volumetric-weights.ts';
import { makeGrid, voxelizeSolid, type Grid, type Solid } from '../../workers/weights/voxel-solid.ts';
import { boneSeeds, GeodesicSearch } from '../../workers/weights/voxel-geodesics.ts';
import {
  aggregateVoxels,
  aggregateWeights,
  nodeVertexWeights,
  vertexWeights,
  voxelGraph,
  weightsFromDistances,
} from '../../workers/weights/voxel-weights.ts';
import type { TgfSkeleton } from '../../workers/formats/types.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';
import { outwardSplitCube } from './split-cube.ts';

/**
 * The smoothing as it ran on a grid before it ran on aggregateVoxels' graph: each solid voxel's weights become the
 * mean of its own and its solid face neighbours' (+x, −x, +y, −y, +z, −z), the K largest kept, normalized. Kept here
 * as the reference the graph's smoothing must equal bit for bit on the grid's own voxels.
 */
function gridSmoothing(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  grid: Grid,
  solid: Solid,
  passes: number,
): Float32Array {
  const { nx, ny } = grid;
  const faces = [1, -1, nx, -nx, nx * ny, -nx * ny];
  const around = new Int32Array(7 * solid.count);
  for (let v = 0; v < solid.count; v++) {
    around[7 * v] = v;
    for (let o = 0; o < 6; o++) around[7 * v + 1 + o] = solid.index[solid.cell[v] + faces[o]];
  }
  let inWeights: Float32Array = weights;
  let inBones: Int16Array = nearestBone;
  let outWeights: Float32Array = new Float32Array(weights.length);
  let outBones: Int16Array = new Int16Array(nearestBone.length);
  const accumulated = new Float64Array(boneCount);
  const seen = new Int32Array(boneCount).fill(-1);
  const touched = new Int32Array(7 * k);
  const topBones = new Int32Array(k);
  const topWeights = new Float64Array(k);
  for (let pass = 0; pass < passes; pass++) {
    for (let v = 0; v < solid.count; v++) {
      let count = 0;
      for (let q = 7 * v; q < 7 * v + 7; q++) {
        const u = around[q];
        if (u < 0) continue;
        for (let i = u * k; i < u * k + k; i++) {
          const b = inBones[i];
          if (b < 0) break;
          if (seen[b] !== v) {
            seen[b] = v;
            accumulated[b] = 0;
            touched[count++] = b;
          }
          accumulated[b] += inWeights[i];
        }
      }
      let kept = 0;
      for (let t = 0; t < count; t++) {
        const b = touched[t];
        const w = accumulated[b];
        seen[b] = -1;
        let i = kept < k ? kept++ : k;
        while (i > 0 && (topWeights[i - 1] < w || (topWeights[i - 1] === w && topBones[i - 1] > b))) {
          if (i < k) {
            topWeights[i] = topWeights[i - 1];
            topBones[i] = topBones[i - 1];
          }
          i--;
        }
        if (i < k) {
          topWeights[i] = w;
          topBones[i] = b;
        }
      }
      let sum = 0;
      for (let i = 0; i < kept; i++) sum += topWeights[i];
      const row = v * k;
      for (let i = 0; i < k; i++) {
        const has = i < kept && sum > 0;
        outBones[row + i] = has ? topBones[i] : -1;
        outWeights[row + i] = has ? topWeights[i] / sum : 0;
      }
    }
    [inWeights, outWeights] = [outWeights, inWeights];
    [inBones, outBones] = [outBones, inBones];
  }
  if (inBones !== nearestBone) nearestBone.set(inBones);
  return inWeights;
}

/**
 * The volumetric binding at the default resolution or a coarser one as it ran before the smoothing's graph: the
 * published stages (weld, voxelize, geodesics, weights from distances) and then gridSmoothing on the grid's voxels and
 * the vertices sampled there. For skeletons none of whose bones is left out (the course body's).
 */
function gridBinding(positions: Float64Array, triangles: Uint32Array, skeleton: TgfSkeleton, resolution: number): Float64Array {
  const { falloff, maxInfluences: k, smoothingPasses, windingAccuracy } = VOLUMETRIC_WEIGHTS_DEFAULTS;
  const weld = weldVertices(positions, triangles);
  const grid = makeGrid(weld.positions, resolution);
  const closed = weldedShells(weld).shells.every((shell) => shell.boundaryEdges === 0 && shell.nonManifoldEdges === 0);
  const { solid } = voxelizeSolid(weld.positions, weld.triangles, grid, closed, windingAccuracy, () => {});
  const boneCount = skeleton.bones.length / 2;
  const nearestBone = new Int16Array(solid.count * k).fill(-1);
  const nearestDistance = new Float32Array(solid.count * k).fill(Infinity);
  const search = new GeodesicSearch(solid.count);
  for (let b = 0; b < boneCount; b++) {
    const seeds = boneSeeds(skeleton, b, grid, solid);
    search.run(seeds.voxels, seeds.distances, b, grid, solid, nearestBone, nearestDistance, k);
  }
  const unit = grid.longest / VOLUMETRIC_WEIGHTS_DEFAULTS.resolution;
  const passes = Math.round(smoothingPasses * (unit / grid.h) ** 2);
  const smoothed = gridSmoothing(
    weightsFromDistances(nearestDistance, nearestBone, k, falloff, unit),
    nearestBone,
    k,
    boneCount,
    grid,
    solid,
    passes,
  );
  const welded = new Float64Array(weld.count * boneCount);
  vertexWeights(weld.positions, grid, solid, nearestBone, smoothed, k, boneCount, welded);
  return spreadWeldedRows(welded, weld, boneCount, new Float64Array((positions.length / 3) * boneCount));
}

test('volumetric weights at the default resolution and a coarser one equal the grid smoothing’s, bit for bit (the graph is the grid itself there)', () => {
  const body = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  for (const resolution of [VOLUMETRIC_WEIGHTS_DEFAULTS.resolution, 64]) {
    const result = volumetricWeights(body.positions, body.triangles, skeleton, { resolution });
    assert.deepEqual(result.bonesLeftOut, [], 'the body leaves no bone out, as the reference assumes');
    const reference = gridBinding(body.positions, body.triangles, skeleton, resolution);
    let differing = 0;
    for (let i = 0; i < reference.length; i++) if (result.weights[i] !== reference[i]) differing++;
    assert.equal(differing, 0, `${resolution} voxels: ${differing} of ${reference.length} weights differ from the grid smoothing's`);
  }
});

/**
 * Two rods [0, 1] × [0, w] × [0, w] side by side along y with a gap g between them, each a closed shell of six
 * separate 6 × 6-quad faces (294 vertices), each with a bone along its axis from x = 0.05 to 0.95.
 */
function twoRods(w: number, g: number): { positions: Float64Array; triangles: Uint32Array; skeleton: TgfSkeleton; perRod: number } {
  const cube = outwardSplitCube(6);
  const perRod = cube.positions.length / 3;
  const positions = new Float64Array(6 * perRod);
  const triangles = new Uint32Array(2 * cube.triangles.length);
  for (let r = 0; r < 2; r++) {
    for (let v = 0; v < perRod; v++) {
      positions[3 * (r * perRod + v)] = cube.positions[3 * v];
      positions[3 * (r * perRod + v) + 1] = w * cube.positions[3 * v + 1] + r * (w + g);
      positions[3 * (r * perRod + v) + 2] = w * cube.positions[3 * v + 2];
    }
    for (let t = 0; t < cube.triangles.length; t++) triangles[r * cube.triangles.length + t] = cube.triangles[t] + r * perRod;
  }
  const axis = (r: number) => [w / 2 + r * (w + g), w / 2];
  const joints = Float64Array.of(0.05, ...axis(0), 0.95, ...axis(0), 0.05, ...axis(1), 0.95, ...axis(1));
  return { positions, triangles, skeleton: buildSkeleton({ joints, bones: Uint32Array.of(0, 1, 2, 3) }, 'two rods'), perRod };
}

test('a 512 grid keeps two rods 0.6 default voxels apart on their own bones; the default grid bleeds one into the other', () => {
  // The rods are 1 long (the longest side: a default voxel is 1/128, a 512-voxel 1/512) and 0.03 thick, 0.6/128 apart:
  // 2.4 voxels of the 512 grid. A voxel is solid where a triangle crosses it or inside, so between the rods' solids
  // lies at least one whole empty layer of 512-voxels (the gap is over two voxels wide): no 26-neighbour path joins
  // them, each rod's voxels are reached by its own bone alone (row [1]), and so are the nodes the smoothing aggregates
  // them into (a node is a connected piece of one default cell; no face joins the rods' pieces). A vertex lies in a
  // voxel its own rod's triangles cross, and the default cells around it take the nodes reached from that voxel's
  // node through the graph, never the other rod's: every row is exactly its rod's bone. At 128 the gap is under one
  // voxel: the rods' surface voxels touch, the distances and the smoothing run across, and the near faces take a
  // large share of the other bone.
  const { positions, triangles, skeleton, perRod } = twoRods(0.03, 0.6 / 128);
  const otherShare = (weights: Float64Array) => {
    let worst = 0;
    for (let v = 0; v < 2 * perRod; v++) worst = Math.max(worst, weights[2 * v + (v < perRod ? 1 : 0)]);
    return worst;
  };
  const start = performance.now();
  const fine = volumetricWeights(positions, triangles, skeleton, { resolution: 512 });
  const ms = performance.now() - start;
  assert.equal(otherShare(fine.weights), 0, 'at 512 no vertex of either rod has any weight of the other rod’s bone');
  for (let v = 0; v < 2 * perRod; v++)
    assert.equal(fine.weights[2 * v + (v < perRod ? 0 : 1)], 1, `vertex ${v}: all its weight on its own rod's bone`);
  assert.ok(ms < 20000, `the 512 bind of two thin rods takes ${ms.toFixed(0)} ms`);
  const coarse = volumetricWeights(positions, triangles, skeleton);
  assert.equal(Math.max(coarse.grid.nx, coarse.grid.ny, coarse.grid.nz), 128 + 4, 'the default grid');
  assert.ok(otherShare(coarse.weights) > 0.2, `at 128 some vertex takes ${otherShare(coarse.weights)} of the other rod's bone`);
});

test('aggregateVoxels: the nodes are the face-connected pieces of the fine solid in each coarse cell, neighbours where a voxel of one touches one of the other; aggregateWeights sums their rows', () => {
  // A fine grid of side 0.5 inside a coarse one of side 1 over the same corner; a random solid (holes make a cell's
  // voxels fall into several pieces).
  const fine: Grid = { nx: 14, ny: 12, nz: 10, h: 0.5, ox: 1, oy: 1, oz: 1, longest: 7 };
  const coarse: Grid = { nx: 10, ny: 9, nz: 8, h: 1, ox: 0, oy: 0, oz: 0, longest: 7 };
  const [k, boneCount] = [2, 5];
  const random = seededRandom(19);
  const index = new Int32Array(fine.nx * fine.ny * fine.nz).fill(-1);
  const cells: number[] = [];
  for (let l = 1; l < fine.nz - 1; l++)
    for (let j = 1; j < fine.ny - 1; j++)
      for (let i = 1; i < fine.nx - 1; i++)
        if (random() > 0.45) {
          index[i + fine.nx * (j + fine.ny * l)] = cells.length;
          cells.push(i + fine.nx * (j + fine.ny * l));
        }
  const solid: Solid = { count: cells.length, cell: Int32Array.from(cells), index };
  let polls = 0;
  const { graph, nodeOf } = aggregateVoxels(fine, solid, coarse, () => polls++);
  assert.ok(polls >= 1, 'it polls for cancel');
  // The reference: union–find over face-adjacent solid voxel pairs whose centres fall in the same coarse cell.
  const xyz = (c: number) => [c % fine.nx, Math.floor(c / fine.nx) % fine.ny, Math.floor(c / (fine.nx * fine.ny))];
  const coarseCell = (c: number) => {
    const [i, j, l] = xyz(c).map((q) => Math.floor(1 + (q + 0.5) * 0.5));
    return i + coarse.nx * (j + coarse.ny * l);
  };
  const parent = cells.map((_, s) => s);
  const find = (s: number): number => (parent[s] === s ? s : (parent[s] = find(parent[s])));
  const faceNeighbours = (c: number) =>
    [1, -1, fine.nx, -fine.nx, fine.nx * fine.ny, -fine.nx * fine.ny].map((o) => index[c + o]).filter((u) => u >= 0);
  for (let s = 0; s < solid.count; s++)
    for (const u of faceNeighbours(cells[s])) if (coarseCell(cells[u]) === coarseCell(cells[s])) parent[find(u)] = find(s);
  const pieces = new Set(cells.map((_, s) => find(s)));
  assert.equal(graph.count, pieces.size, 'one node per connected piece of a coarse cell');
  assert.ok(graph.count > new Set(cells.map(coarseCell)).size, 'some cell holds several pieces (the test has holes)');
  for (let s = 0; s < solid.count; s++)
    for (let u = 0; u < solid.count; u++)
      if (find(u) === find(s) && nodeOf[u] !== nodeOf[s]) assert.fail(`voxels ${s} and ${u} are one piece but two nodes`);
  // Same node ⇔ same piece (the counts agree and each piece lies in one node).
  const expected = new Map<number, Set<number>>();
  for (let s = 0; s < solid.count; s++)
    for (const u of faceNeighbours(cells[s]))
      if (nodeOf[u] !== nodeOf[s]) {
        const set = expected.get(nodeOf[s]) ?? new Set<number>();
        set.add(nodeOf[u]);
        expected.set(nodeOf[s], set);
      }
  for (let node = 0; node < graph.count; node++) {
    const listed = [...graph.neighbours.subarray(graph.start[node], graph.start[node + 1])];
    assert.equal(listed[0], node, `node ${node} lists itself first`);
    assert.equal(new Set(listed).size, listed.length, `node ${node} lists each neighbour once`);
    assert.deepEqual(
      listed.slice(1).sort((a, b) => a - b),
      [...(expected.get(node) ?? [])].sort((a, b) => a - b),
      `node ${node}'s neighbours are the nodes its voxels touch through a face`,
    );
  }
  // Rows: the dense sum of each node's voxels' rows, the K largest, normalized.
  const bones = new Int16Array(solid.count * k).fill(-1);
  const weights = new Float32Array(solid.count * k);
  for (let v = 0; v < solid.count; v++) {
    const first = Math.floor(random() * boneCount);
    const second = (first + 1 + Math.floor(random() * (boneCount - 1))) % boneCount;
    const w = 0.5 + 0.5 * random();
    bones.set([first, second], v * k);
    weights.set([w, 1 - w], v * k);
  }
  const rows = aggregateWeights(weights, bones, k, boneCount, nodeOf, graph.count);
  const sums = Array.from({ length: graph.count }, () => new Float64Array(boneCount));
  for (let v = 0; v < solid.count; v++) for (let i = 0; i < k; i++) sums[nodeOf[v]][bones[v * k + i]] += weights[v * k + i];
  sums.forEach((sum, node) => {
    const kept = [...sum.keys()].sort((a, b) => sum[b] - sum[a] || a - b).slice(0, k);
    const total = kept.reduce((t, b) => t + sum[b], 0);
    for (let i = 0; i < k; i++) {
      assert.equal(rows.nearestBone[node * k + i], kept[i], `node ${node}: bone ${i}`);
      assert.ok(Math.abs(rows.weights[node * k + i] - sum[kept[i]] / total) < 1e-6, `node ${node}: weight ${i}`);
    }
  });
  // On the grid's own cells every node is one voxel, numbered as the voxel.
  const own = aggregateVoxels(fine, solid, fine);
  assert.equal(own.graph.count, solid.count, 'the grid itself: one node per voxel');
  assert.ok(
    own.nodeOf.every((node, s) => node === s),
    'numbered as the voxels',
  );
});

test('nodeVertexWeights: on a convex solid as vertexWeights on the coarse grid; across a slit the other side’s nodes are left out up to the cells where the sides join', () => {
  // A fine grid of side 0.5 inside a coarse one of side 1; the fine solid is a box of 4 × 6 × 3 coarse cells
  // ([2, 6) × [2, 8) × [2, 5)), cut through by an empty fine layer at x ∈ [5, 5.5) where y < 6.5 (the two sides
  // join above it).
  const fine: Grid = { nx: 14, ny: 16, nz: 10, h: 0.5, ox: 1, oy: 1, oz: 1, longest: 7 };
  const coarse: Grid = { nx: 10, ny: 11, nz: 8, h: 1, ox: 0, oy: 0, oz: 0, longest: 7 };
  const [k, boneCount] = [6, 6];
  const build = (slit: boolean) => {
    const index = new Int32Array(fine.nx * fine.ny * fine.nz).fill(-1);
    const cells: number[] = [];
    for (let l = 2; l < 8; l++)
      for (let j = 2; j < 14; j++)
        for (let i = 2; i < 10; i++) {
          const x = 1 + 0.5 * i;
          const y = 1 + 0.5 * j;
          if (slit && x === 5 && y < 6.5) continue;
          index[i + fine.nx * (j + fine.ny * l)] = cells.length;
          cells.push(i + fine.nx * (j + fine.ny * l));
        }
    return { count: cells.length, cell: Int32Array.from(cells), index } satisfies Solid;
  };
  const random = seededRandom(23);
  const rows = (count: number, side: (node: number) => number) => {
    const bones = new Int16Array(count * k).fill(-1);
    const weights = new Float32Array(count * k);
    for (let node = 0; node < count; node++) {
      const first = side(node);
      const w = 0.5 + 0.5 * random();
      bones.set([first, first + 1], node * k);
      weights.set([w, 1 - w], node * k);
    }
    return { bones, weights };
  };
  const points = (count: number, box: [number, number][]) =>
    Float64Array.from({ length: 3 * count }, (_, q) => box[q % 3][0] + random() * (box[q % 3][1] - box[q % 3][0]));
  // Convex: every corner cell's node is a few steps from the vertex's own, so the rows are vertexWeights' on the
  // coarse grid whose voxels carry the nodes' rows.
  const box = build(false);
  const nodes = aggregateVoxels(fine, box, coarse);
  assert.equal(nodes.graph.count, 4 * 6 * 3, 'one node per coarse cell of the box');
  const { bones, weights } = rows(nodes.graph.count, () => (random() < 0.5 ? 0 : 2));
  const coarseIndex = new Int32Array(coarse.nx * coarse.ny * coarse.nz).fill(-1);
  nodes.nodeCell.forEach((cell, node) => (coarseIndex[cell] = node));
  const coarseSolid: Solid = { count: nodes.graph.count, cell: nodes.nodeCell, index: coarseIndex };
  const inside = points(200, [
    [2.05, 5.95],
    [2.05, 7.95],
    [2.05, 4.95],
  ]);
  const ours = new Float64Array(200 * boneCount);
  const fromNearest = nodeVertexWeights(inside, fine, box, coarse, nodes, bones, weights, k, boneCount, ours);
  assert.ok(
    fromNearest.every((f) => f === 0),
    'every vertex lies in a solid voxel',
  );
  const reference = new Float64Array(200 * boneCount);
  vertexWeights(inside, coarse, coarseSolid, bones, weights, k, boneCount, reference);
  let worst = 0;
  for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i] - reference[i]));
  assert.ok(worst < 1e-12, `as vertexWeights on the coarse grid (worst ${worst})`);
  // Slit: the nodes wholly left of it (x < 5) carry bones 0 and 1, those wholly right of it (x ≥ 5.5; below the
  // join, in the coarse cells at x ∈ [5, 6) and y < 6) bones 2 and 3, and those holding voxels of the slit's column
  // (x ∈ [5, 5.5), above the join: the cell at x 5, y 6 joins the sides) bones 4 and 5. A vertex left of the slit
  // (x < 5, its node's cell at x 4 or less) and below the cells that hold the join (y < 6) reaches a node right of it,
  // in a corner cell at x 5 and y < 6, only around the end of the slit: up to the cells at y 6, across, and down, more
  // steps than the cells between (the direct path crosses the slit), so it takes nothing of bones 2 and 3 (at
  // y ≥ 5.5 a corner lies at y 6, where the joined node is directly reached). In the cells of the join (y ∈ [6, 6.5),
  // within half a coarse voxel of it) the path through the joined node and down is as short as the cells between:
  // there a vertex takes up to the trilinear weight of that corner, which the coarse cells cannot tell apart from a
  // direct path (measured below). The vertices right of the slit have no corner cell left of x 5.
  const slit = build(true);
  const split = aggregateVoxels(fine, slit, coarse);
  const xOf = (s: number) => 1 + 0.5 * (slit.cell[s] % fine.nx);
  const sideOf = (node: number) => {
    const xs = [...split.nodeOf.keys()].filter((s) => split.nodeOf[s] === node).map(xOf);
    return xs.every((x) => x < 5) ? 0 : xs.every((x) => x >= 5.5) ? 2 : 4;
  };
  const sided = rows(split.graph.count, sideOf);
  const right = (weights: Float64Array, v: number) => weights[v * boneCount + 2] + weights[v * boneCount + 3];
  const near = points(800, [
    [4.55, 5.95],
    [2.05, 6.4],
    [2.05, 4.95],
  ]);
  const out = new Float64Array(800 * boneCount);
  nodeVertexWeights(near, fine, slit, coarse, split, sided.bones, sided.weights, k, boneCount, out);
  let leftNearJoin = 0;
  for (let v = 0; v < 800; v++) {
    const x = near[3 * v];
    if (x >= 5 && x < 5.5) continue;
    let sum = 0;
    for (let b = 0; b < boneCount; b++) sum += out[v * boneCount + b];
    assert.ok(Math.abs(sum - 1) < 1e-12, `vertex ${v}: its row sums to 1`);
    if (x >= 5.5) {
      assert.equal(out[v * boneCount] + out[v * boneCount + 1], 0, `vertex at x = ${x.toFixed(3)}: nothing from left of the slit`);
      continue;
    }
    const y = near[3 * v + 1];
    if (y >= 6) continue;
    if (y >= 5) leftNearJoin++;
    assert.equal(right(out, v), 0, `vertex at (${x.toFixed(3)}, ${y.toFixed(3)}): nothing from right of the slit`);
  }
  assert.ok(leftNearJoin >= 60, `${leftNearJoin} vertices left of the slit within a coarse voxel below the join's cells`);
  // Where the defect was measured (x = 4.9, y 5.0 to 5.99): a corner cell right of the slit one cell across, its node
  // 3 steps around; the same places without the slit take that corner's weight (the direct path is there).
  const ys = [5.0, 5.25, 5.5, 5.75, 5.99];
  const measured = Float64Array.from(ys.flatMap((y) => [4.9, y, 3.5]));
  const measuredOut = new Float64Array(ys.length * boneCount);
  nodeVertexWeights(measured, fine, slit, coarse, split, sided.bones, sided.weights, k, boneCount, measuredOut);
  const whole = new Float64Array(ys.length * boneCount);
  const wholeSided = rows(nodes.graph.count, (node) => (nodes.nodeCell[node] % coarse.nx < 5 ? 0 : 2));
  nodeVertexWeights(measured, fine, box, coarse, nodes, wholeSided.bones, wholeSided.weights, k, boneCount, whole);
  ys.forEach((y, v) => {
    assert.equal(right(measuredOut, v), 0, `at x = 4.9, y = ${y}: nothing from right of the slit`);
    // x = 4.9: the corners at x 4 and 5 weigh 0.6 and 0.4 (centres 4.5 and 5.5).
    assert.ok(Math.abs(right(whole, v) - 0.4) < 1e-6, `without the slit, (4.9, ${y}) takes 0.4 of the right: ${right(whole, v)}`);
  });
});

test('a fine grid’s bind polls for cancel inside a bone’s geodesic search', () => {
  // Each rod holds about 131 000 voxels of the 512 grid, all of them settled by its bone's search: the search polls
  // every 65 536. The stage polls once before the first bone; the second poll is inside its search.
  const { positions, triangles, skeleton } = twoRods(0.03, 0.6 / 128);
  const calls: [string, number][] = [];
  let pollsInDistances = 0;
  assert.throws(
    () =>
      volumetricWeights(
        positions,
        triangles,
        skeleton,
        { resolution: 512 },
        (stage, fraction) => calls.push([stage, fraction]),
        () => calls.at(-1)?.[0] === 'distances' && ++pollsInDistances > 1,
      ),
    (e: unknown) => e instanceof DOMException && e.name === 'AbortError',
  );
  assert.equal(pollsInDistances, 2, 'stopped at the second poll of the distances stage');
  assert.deepEqual(calls.at(-1), ['distances', 0.2], 'before the first bone’s search was done');
});

test('a fine grid’s bind polls for cancel while its smoothing graph is built, before the first pass', () => {
  // The two rods hold 263 168 voxels of the 512 grid: before the first pass the stage polls every 65 536 of them
  // while their weights are found from the distances (5 polls) and their cells (5), every 65 536 of the flood's and
  // the neighbour listing's work (each voxel once in each: 8), in each of the three sweeps summing the nodes' rows (15)
  // and once more. So its sixth poll comes before the first pass reports progress; with the graph's building polled
  // only at its start and every 65 536 nodes (4 polls before the first pass), it came in the second pass.
  const { positions, triangles, skeleton } = twoRods(0.03, 0.6 / 128);
  const smoothing: number[] = [];
  let stage = '';
  let pollsInSmoothing = 0;
  assert.throws(
    () =>
      volumetricWeights(
        positions,
        triangles,
        skeleton,
        { resolution: 512 },
        (name, fraction) => {
          stage = name;
          if (name === 'smoothing') smoothing.push(fraction);
        },
        () => stage === 'smoothing' && ++pollsInSmoothing > 5,
      ),
    (e: unknown) => e instanceof DOMException && e.name === 'AbortError',
  );
  assert.equal(pollsInSmoothing, 6, 'stopped at the first poll of the smoothing stage that says cancel');
  assert.deepEqual(smoothing, [0.4], 'the stage had begun and no pass had started');
});

/** A solid box of 60³ voxels (216 000, over 3 × 65 536) in a 62³ grid of side 0.5, and the grid of side 2 over it. */
function bigBox(): { fine: Grid; coarse: Grid; solid: Solid } {
  const fine: Grid = { nx: 62, ny: 62, nz: 62, h: 0.5, ox: 0, oy: 0, oz: 0, longest: 31 };
  const coarse: Grid = { nx: 16, ny: 16, nz: 16, h: 2, ox: 0, oy: 0, oz: 0, longest: 31 };
  const index = new Int32Array(62 ** 3).fill(-1);
  const cells: number[] = [];
  for (let l = 1; l < 61; l++)
    for (let j = 1; j < 61; j++)
      for (let i = 1; i < 61; i++) {
        index[i + 62 * (j + 62 * l)] = cells.length;
        cells.push(i + 62 * (j + 62 * l));
      }
  return { fine, coarse, solid: { count: cells.length, cell: Int32Array.from(cells), index } };
}

test('the smoothing graph’s builders and nodeVertexWeights poll for cancel every 65 536 voxels or vertices', () => {
  const { fine, coarse, solid } = bigBox();
  const count = solid.count;
  assert.ok(count > 3 * 65536, `${count} solid voxels`);
  const every = Math.ceil(count / 65536);
  // aggregateVoxels: at voxel 0, 65 536, … while finding the cells, then at each multiple of 65 536 of its work,
  // 2 × count (each voxel dequeued once by the flood and visited once while listing the neighbours).
  let polls = 0;
  const nodes = aggregateVoxels(fine, solid, coarse, () => polls++);
  // Voxel centres 0.75 to 30.25 along each axis: in the coarse cells 0 to 15.
  assert.equal(nodes.graph.count, 16 ** 3, 'one node per coarse cell the box reaches into');
  assert.equal(polls, every + Math.floor((2 * count) / 65536), `aggregateVoxels polled ${polls} times`);
  // weightsFromDistances: at voxel 0, 65 536, …; aggregateWeights: so in each of its three sweeps over the voxels.
  polls = 0;
  const rows = weightsFromDistances(new Float32Array(count).fill(3), new Int16Array(count), 1, 12, 1, () => polls++);
  assert.equal(polls, every, `weightsFromDistances polled ${polls} times`);
  polls = 0;
  aggregateWeights(rows, new Int16Array(count), 1, 1, nodes.nodeOf, nodes.graph.count, () => polls++);
  assert.equal(polls, 3 * every, `aggregateWeights polled ${polls} times`);
  // voxelGraph: at voxel 0, 65 536, … of each of its two sweeps; the same graph as aggregateVoxels on the grid's cells.
  polls = 0;
  const graph = voxelGraph(fine, solid, () => polls++);
  assert.equal(polls, 2 * Math.ceil(count / 65536), `voxelGraph polled ${polls} times`);
  const own = aggregateVoxels(fine, solid, fine).graph;
  assert.deepEqual([graph.count, graph.start, graph.neighbours], [own.count, own.start, own.neighbours], 'the grid’s own graph');
  // nodeVertexWeights: at vertex 0, 65 536 and 131 072 of 140 000.
  const n = 140000;
  const random = seededRandom(29);
  const positions = Float64Array.from({ length: 3 * n }, () => 1 + 28 * random());
  const bones = new Int16Array(nodes.graph.count).fill(0);
  const weights = new Float32Array(nodes.graph.count).fill(1);
  const out = new Float64Array(n);
  polls = 0;
  nodeVertexWeights(positions, fine, solid, coarse, nodes, bones, weights, 1, 1, out, () => polls++);
  assert.equal(polls, 3, `nodeVertexWeights polled ${polls} times`);
  assert.ok(
    out.every((w) => w === 1),
    'every vertex weighted',
  );
});
