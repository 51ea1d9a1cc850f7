/**
 * Weight painting: cost of one dab (gather in the vertex grid + undo record + apply + invariants) and of one stroke
 * frame (4 dabs along a path) on the body (18k vertices, 28 bones), the body subdivided twice (295k) and three times
 * (1.2M), with a brush covering about 1% of the vertices. Reference: Blender's weight paint reported 49.6 ms per
 * stroke step at 1M vertices. Aims: ≤ 8 ms per dab at 295k, ≤ 16 ms per frame at 1.2M.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { paintWeightsFromDense, defaultPaintSettings } from '../../workers/paint/paint-weights.ts';
import { limitTotalInfluences } from '../../workers/paint/limit-total-influences.ts';
import { createVertexGrid, queryVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { vertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { createPaintContext, paintDab } from '../../workers/paint/paint-dab.ts';
import { beginStroke, createPaintHistory, endStroke } from '../../workers/paint/paint-history.ts';
import { mirrorBonePairs } from '../../workers/paint/mirror-bone-pairs.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import type { Dab, DabMode } from '../../workers/paint/apply-dab.ts';
import { cacheDir, dataDir, fmtMs, printTable, refDir, requireFile, type BenchRow } from './bench-util.ts';

const BLENDER_STEP_MS = 49.6;
const bodyObj = requireFile(path.join(dataDir, 'context-aware/reference.obj'));
const bodyHandles = requireFile(path.join(dataDir, 'context-aware/handles.dmat'));
const skeleton = buildSkeleton(readTgf(readFileSync(requireFile(path.join(dataDir, 'context-aware/skeleton.tgf')), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');

function subdivided(levels: number): string {
  mkdirSync(cacheDir, { recursive: true });
  const prefix = path.join(cacheDir, `body-subdivided-${levels}`);
  if (!existsSync(`${prefix}.obj`)) {
    execFileSync('python3', [requireFile(path.join(refDir, 'subdivide.py')), bodyObj, bodyHandles, String(levels), prefix], { stdio: 'inherit' });
  }
  return `${prefix}.obj`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const rows: BenchRow[] = [];
const cases = [
  { name: 'body', obj: bodyObj },
  { name: 'body subdivided twice', obj: subdivided(2) },
  { name: 'body subdivided 3×', obj: subdivided(3) },
];
for (const c of cases) {
  const { mesh } = readObj(readFileSync(c.obj, 'utf8'), path.basename(c.obj));
  const n = mesh.positions.length / 3;
  const weights = paintWeightsFromDense(boneDistanceWeights(mesh.positions, skeleton));
  const settings = defaultPaintSettings(weights.boneCount);
  settings.locked[0] = 1;
  limitTotalInfluences(weights, settings);
  let t = performance.now();
  const grid = createVertexGrid(mesh.positions);
  const gridMs = performance.now() - t;
  const oneRing = vertexOneRing(n, mesh.triangles);

  // Radius that gathers ~1% of the vertices around typical surface points.
  const centres: number[] = [];
  for (let i = 0; i < 64; i++) centres.push(Math.floor(((i * 2654435761) % 2 ** 32) / 2 ** 32 * n));
  const scratchI = new Uint32Array(n);
  const scratchD = new Float64Array(n);
  const meanGathered = (r: number) => centres.reduce((s, v) => s + queryVertexGrid(grid, mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2], r, scratchI, scratchD), 0) / centres.length;
  let radius = grid.cellSize * 4;
  for (let k = 0; k < 8; k++) radius *= Math.sqrt((0.01 * n) / Math.max(meanGathered(radius), 1));
  const gathered = meanGathered(radius);

  const history = createPaintHistory(weights);
  // Symmetry setup, as the viewport does it once per axis: mirror partners by closest point (1% of the diagonal).
  t = performance.now();
  const map = mirrorVertexMap(mesh.positions, mesh.triangles, 0, 0.01 * boundingBox(mesh.positions).diagonal);
  const mirrorMs = performance.now() - t;
  const symmetry = { axis: 0 as const, bonePairs: mirrorBonePairs(null, skeleton, 0), partner: map.partner };
  const time = (mode: DabMode, dabsPerSample: number, withSymmetry: boolean, samples: number): number => {
    const context = createPaintContext(weights, grid, oneRing, settings, history, withSymmetry ? symmetry : null);
    const dab: Dab = { centre: new Float64Array(3), radius, strength: 0.1, falloff: 'smooth', mode, value: 0.5 };
    const times: number[] = [];
    for (let s = 0; s < samples + 2; s++) {
      const v = centres[s % centres.length];
      const bone = 1 + (s % (weights.boneCount - 1));
      beginStroke(history);
      const start = performance.now();
      for (let d = 0; d < dabsPerSample; d++) {
        // Dabs along a stroke: a quarter radius apart.
        (dab.centre as Float64Array).set([mesh.positions[3 * v] + 0.25 * radius * d, mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]]);
        paintDab(context, bone, dab);
      }
      const elapsed = performance.now() - start;
      endStroke(history);
      if (s >= 2) times.push(elapsed);
    }
    return median(times);
  };
  const samples = n > 500_000 ? 15 : 31;
  const addDab = time('add', 1, false, samples);
  const smoothDab = time('smooth', 1, false, samples);
  const frame = time('add', 4, false, samples);
  const mirroredFrame = time('add', 4, true, samples);
  const label = `${c.name} (${n.toLocaleString('en-US')} v, ${weights.boneCount} bones, brush ≈ ${Math.round(gathered).toLocaleString('en-US')} v)`;
  const note = `grid build ${fmtMs(gridMs)}, weights ${(weights.data.byteLength / 2 ** 20).toFixed(0)} MiB`;
  rows.push({ case: `${label}: one dab, add`, ours: fmtMs(addDab), reference: '—', ratio: '—', note: n > 200_000 && n < 500_000 ? `aim ≤ 8 ms; ${note}` : note });
  rows.push({ case: `${label}: one dab, smooth`, ours: fmtMs(smoothDab), reference: '—', ratio: '—' });
  rows.push({ case: `${label}: frame of 4 dabs`, ours: fmtMs(frame), reference: n > 500_000 ? `${BLENDER_STEP_MS} ms (Blender, 1M v)` : '—', ratio: n > 500_000 ? (frame / BLENDER_STEP_MS).toFixed(2) : '—', note: n > 500_000 ? 'aim ≤ 16 ms' : '' });
  rows.push({ case: `${label}: frame of 4 dabs, X symmetry`, ours: fmtMs(mirroredFrame), reference: n > 500_000 ? `${BLENDER_STEP_MS} ms (Blender, 1M v)` : '—', ratio: n > 500_000 ? (mirroredFrame / BLENDER_STEP_MS).toFixed(2) : '—' });
  rows.push({ case: `${label}: X symmetry setup (mirror partners)`, ours: fmtMs(mirrorMs), reference: '—', ratio: '—', note: `${map.unmatched.length} unmatched` });
}
printTable('Weight painting (gather + undo record + apply + normalize with a locked bone + 4-influence limit)', rows);
