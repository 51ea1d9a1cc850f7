/**
 * Harmonic skinning weights, ours against native C++ Eigen (SimplicialLLT, ../shared/ref/harmonic_ref.cpp) on the
 * same inputs and machine: hand (4.8k vertices, 20 bones), body (18k, 28), body subdivided twice (295k, 28),
 * tube 128×1024 (131k, 32 bones), and once the 1M-vertex, 64-bone tube 256×4096 against the 2 GiB memory budget.
 * Blender's automatic weights (bone heat) on the 131k tube, 10,524 ms in ../shared/ref/README.md, is printed beside it.
 *
 * Like for like: harmonic_ref times Laplacian assembly (incl. the free/handle split), factorization (ordering
 * included) and the multi-column solve, after reading the files, and reports the sum of each stage's best over
 * its repetitions. Ours is harmonicWeights end to end on arrays already in memory (components, Laplacian,
 * ordering, analysis, factorization, solve, clamping and normalisation, the #V × #B output), after a warm-up,
 * reported the same way: Σ of each stage's best over the round's runs.
 *
 * Stage groups, side by side for every case: our ordering + symbolic analysis + numeric factorization, added up run
 * by run (Eigen times its three with one timer), against Eigen's `compute` (its AMD ordering, analysis and
 * factorization), and our solve (right-hand sides placed and the triangular solves, without the clamping and
 * normalisation of the rows after it) against Eigen's multi-column `solve`. The cold first call is the first harmonicWeights of a fresh process (a user's one bind per session:
 * nothing compiled yet), against harmonic_ref's first repetition in a fresh process.
 *
 * The machine may be shared, so ours and Eigen alternate: each case runs several rounds of (ours, then Eigen),
 * and the table gives the best round and the median round of each, so both sides see the same load. Each round
 * of ours runs in its own process so its peak resident memory can be reported.
 *
 *   node --import tsx test/bench/harmonic.bench.ts [--only NAME[,NAME…]]
 *
 * --only runs the cases whose names contain one of the given words (e.g. `--only hand,tube`), skipping the rest.
 *
 *   node --expose-gc --import tsx test/bench/harmonic.bench.ts --against COMMIT [--only …] [--runs N] [--first-calls M]
 *
 * --against compares the solver core of an earlier commit with today's instead: the commit's workers/sparse is
 * written out once with `git archive` into `.bench/solver-HASH/`, and on each case's free block (welded, cotangent
 * Laplacian, lower triangle, as harmonicWeights builds it) both trees' AMD ordering, symbolic analysis and numeric
 * factorization run in this process, interleaved (the order swapped every run) and timed by the process's CPU
 * time, best and median of N runs (default 9) after the case's warm-up runs. Then each tree's first call: the
 * three stages once in a fresh process (nothing compiled yet, as in a user's one bind per session), M processes
 * per tree (default 5), alternating, timed the same way.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { weldVertices, weldedHandles } from '../../workers/mesh/weld-vertices.ts';
import { cotangentLaplacian } from '../../workers/mesh/cotangent-laplacian.ts';
import type { CscMatrix } from '../../workers/sparse/csc-matrix.ts';
import * as amdToday from '../../workers/sparse/amd-ordering.ts';
import * as symbolicToday from '../../workers/sparse/cholesky-symbolic.ts';
import * as numericToday from '../../workers/sparse/cholesky-numeric.ts';
import { cacheDir, dataDir, fmtMs, printTable, refDir, repoRoot, requireFile, tube, type BenchRow } from './bench-util.ts';
import { resolveCommit } from './gltf-import-compare.ts';

interface Case {
  name: string;
  obj: string;
  handles: string;
  /** measured runs of ours per round, and repetitions of Eigen per round */
  runs: number;
  /** unmeasured runs first: small meshes need a dozen before every kernel is optimized */
  warmups: number;
  /** rounds of (ours, Eigen) */
  rounds: number;
  /** Blender's automatic weights on the same mesh (ms, ../shared/ref/README.md), when known */
  blenderMs?: number;
  /** peak resident memory the case must stay under (MiB), when the issue sets one */
  memoryBudgetMiB?: number;
}

interface OursResult {
  medianMs: number;
  minMs: number;
  /** Σ over stages of each stage's best run: how harmonic_ref reports its total */
  stageBestSumMs: number;
  stages: Record<string, number>;
  /** the best run's ordering + symbolic + factorization (summed per run, then the least): against Eigen's compute */
  factorPhaseMs: number;
  /** the median run's ordering + symbolic + factorization */
  factorPhaseMedianMs: number;
  /** best solve stage: against Eigen's solve */
  solvePhaseMs: number;
  /** the process's first call, end to end, and its stages */
  coldMs: number;
  coldStages: Record<string, number>;
  partitionError: number;
  peakRssMiB: number;
  peakDeltaMiB: number;
  vertices: number;
  bones: number;
}

const selfPath = fileURLToPath(import.meta.url);

/** Child mode: run ours on one case and print a JSON line. */
function runOurs(c: Case): OursResult {
  const { mesh } = readObj(readFileSync(c.obj, 'utf8'), path.basename(c.obj));
  const handleMatrix = readDmat(new Uint8Array(readFileSync(c.handles)), path.basename(c.handles));
  const handles = Int32Array.from(handleMatrix.data, (x) => Math.round(x));
  let bones = 0;
  for (const h of handles) bones = Math.max(bones, h + 1);
  const n = handles.length;
  globalThis.gc?.();
  const baseline = process.resourceUsage().maxRSS;
  const totals: number[] = [];
  const stageRuns: Record<string, number[]> = {};
  let weights: Float64Array = new Float64Array(0);
  let coldMs = 0;
  let coldStages: Record<string, number> = {};
  const warmups = c.warmups;
  for (let r = 0; r < c.runs + warmups; r++) {
    // Collect the previous run's arrays outside the timing, as the native reference frees its own between runs.
    globalThis.gc?.();
    const start = performance.now();
    const result = harmonicWeights(mesh.positions, mesh.triangles, handles, bones);
    const elapsed = performance.now() - start;
    weights = result.weights;
    if (r === 0) {
      coldMs = elapsed;
      coldStages = { ...result.timings };
    }
    if (r < warmups) continue; // lets the JIT compile the kernels
    totals.push(elapsed);
    for (const [k, v] of Object.entries(result.timings)) (stageRuns[k] ??= []).push(v);
  }
  const peak = process.resourceUsage().maxRSS;
  let partitionError = 0;
  for (let v = 0; v < n; v++) {
    let sum = 0;
    for (let b = 0; b < bones; b++) sum += weights[v * bones + b];
    partitionError = Math.max(partitionError, Math.abs(sum - 1));
  }
  const best = (stage: string) => Math.min(...(stageRuns[stage] ?? [0]));
  // One timer on Eigen's side covers its ordering, analysis and factorization: ours are added run by run too.
  const factorPhaseRuns = stageRuns.orderingMs.map((ordering, r) => ordering + stageRuns.symbolicMs[r] + stageRuns.factorMs[r]);
  return {
    factorPhaseMs: Math.min(...factorPhaseRuns),
    factorPhaseMedianMs: median(factorPhaseRuns),
    solvePhaseMs: best('solveMs'),
    coldMs,
    coldStages,
    medianMs: median(totals),
    minMs: Math.min(...totals),
    stageBestSumMs: Object.entries(stageRuns).reduce((sum, [stage, runs]) => (stage === 'totalMs' ? sum : sum + Math.min(...runs)), 0),
    stages: Object.fromEntries(Object.entries(stageRuns).map(([k, v]) => [k, median(v)])),
    partitionError,
    peakRssMiB: peak / 1024,
    peakDeltaMiB: (peak - baseline) / 1024,
    vertices: n,
    bones,
  };
}

function prepare(): { cases: Case[]; refBinary: string } {
  mkdirSync(cacheDir, { recursive: true });
  if (!existsSync('/usr/include/eigen3/Eigen/Sparse')) {
    throw new Error('Eigen headers missing at /usr/include/eigen3 (apt-get install -y libeigen3-dev)');
  }
  const refSource = requireFile(path.join(refDir, 'harmonic_ref.cpp'));
  const refBinary = path.join(cacheDir, 'harmonic_ref');
  if (!existsSync(refBinary)) {
    console.log('building harmonic_ref with g++ …');
    execFileSync('g++', ['-O3', '-march=native', '-DNDEBUG', '-I/usr/include/eigen3', refSource, '-o', refBinary], { stdio: 'inherit' });
  }
  const handObj = path.join(cacheDir, 'hand.obj');
  if (!existsSync(handObj)) {
    const { mesh } = readOff(readFileSync(requireFile(path.join(dataDir, 'hand/hand.off')), 'utf8'), 'hand.off');
    writeFileSync(handObj, writeObj(mesh));
  }
  const bodyObj = requireFile(path.join(dataDir, 'context-aware/reference.obj'));
  const bodyHandles = requireFile(path.join(dataDir, 'context-aware/handles.dmat'));
  const bigBody = path.join(cacheDir, 'body-subdivided-2');
  if (!existsSync(`${bigBody}.obj`)) {
    execFileSync('python3', [requireFile(path.join(refDir, 'subdivide.py')), bodyObj, bodyHandles, '2', bigBody], { stdio: 'inherit' });
  }
  const tubeFiles = tube(128, 1024, 32);
  const millionTube = tube(256, 4096, 64);
  const cases: Case[] = [
    {
      name: 'hand (4,780 v, 20 bones)',
      obj: handObj,
      handles: requireFile(path.join(dataDir, 'hand/hand-handles.dmat')),
      runs: 7,
      warmups: 15,
      rounds: 5,
    },
    { name: 'body (18,453 v, 28 bones)', obj: bodyObj, handles: bodyHandles, runs: 7, warmups: 15, rounds: 5 },
    {
      name: 'body subdivided twice (295,218 v, 28 bones)',
      obj: `${bigBody}.obj`,
      handles: `${bigBody}-handles.dmat`,
      runs: 3,
      warmups: 1,
      rounds: 3,
    },
    {
      name: 'tube 128×1024 (131,072 v, 32 bones)',
      obj: tubeFiles.obj,
      handles: tubeFiles.handles,
      runs: 3,
      warmups: 1,
      rounds: 3,
      blenderMs: 10_524,
    },
    {
      name: 'tube 256×4096 (1,048,576 v, 64 bones)',
      obj: millionTube.obj,
      handles: millionTube.handles,
      runs: 1,
      warmups: 0,
      rounds: 1,
      memoryBudgetMiB: 2048,
    },
  ];
  return { cases, refBinary };
}

interface EigenResult {
  totalMs: number;
  /** SimplicialLLT compute: AMD ordering, analysis and factorization */
  factorMs: number;
  solveMs: number;
  line: string;
  partitionError: number;
}

/** harmonic_ref with `repetitions` (1: a fresh process's first run), each stage its best over them. */
function runEigen(refBinary: string, c: Case, repetitions = c.runs): EigenResult {
  const out = execFileSync(refBinary, [c.obj, c.handles, String(repetitions)], { encoding: 'utf8' });
  const field = (name: string) => Number(new RegExp(`${name}=([^ \\n]+)`).exec(out)?.[1]);
  return {
    totalMs: field('total_ms'),
    factorMs: field('factor_ms'),
    solveMs: field('solve_ms'),
    line: out.trim(),
    partitionError: field('max_partition_of_unity_error'),
  };
}

/** "ours (median m) vs Eigen e (median m): ratio r (median r)" over rounds, best and median of each side. */
function sideBySide(ours: number[], eigen: number[]): { ours: string; reference: string; ratio: string } {
  const oursBest = Math.min(...ours);
  const eigenBest = Math.min(...eigen);
  return {
    ours: `${fmtMs(oursBest)} (median ${fmtMs(median(ours))})`,
    reference: `${fmtMs(eigenBest)} (median ${fmtMs(median(eigen))})`,
    ratio: `${(oursBest / eigenBest).toFixed(2)} (median ${(median(ours) / median(eigen)).toFixed(2)})`,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The lower triangle of the cotangent Laplacian on a case's free vertices, after the weld harmonicWeights does. */
function freeBlock(c: Case): CscMatrix {
  const { mesh } = readObj(readFileSync(c.obj, 'utf8'), path.basename(c.obj));
  const handleMatrix = readDmat(new Uint8Array(readFileSync(c.handles)), path.basename(c.handles));
  const weld = weldVertices(mesh.positions, mesh.triangles);
  const handles = weldedHandles(
    Int32Array.from(handleMatrix.data, (x) => Math.round(x)),
    weld,
  );
  const n = handles.length;
  const freeIndex = new Int32Array(n).fill(-1);
  let m = 0;
  for (let v = 0; v < n; v++) if (handles[v] < 0) freeIndex[v] = m++;
  const k = cotangentLaplacian(
    weld.positions,
    weld.triangles,
    Uint8Array.from(freeIndex, (f) => (f >= 0 ? 1 : 0)),
  );
  const colPointers = new Int32Array(m + 1);
  const rows: number[] = [];
  const values: number[] = [];
  for (let v = 0; v < n; v++) {
    const f = freeIndex[v];
    if (f < 0) continue;
    for (let p = k.colPointers[v]; p < k.colPointers[v + 1]; p++) {
      const r = freeIndex[k.rowIndices[p]];
      if (r < f) continue;
      rows.push(r);
      values.push(k.values[p]);
    }
    colPointers[f + 1] = rows.length;
  }
  return { rows: m, cols: m, colPointers, rowIndices: Int32Array.from(rows), values: Float64Array.from(values) };
}

interface SolverCore {
  amdOrdering: typeof amdToday.amdOrdering;
  choleskySymbolic: typeof symbolicToday.choleskySymbolic;
  choleskyNumeric: typeof numericToday.choleskyNumeric;
}

/** The solver core of a commit: its workers/sparse written out once under .bench/solver-HASH/. */
async function solverCoreAt(name: string): Promise<SolverCore> {
  const hash = resolveCommit(name);
  if (hash === null) throw new Error(`harmonic bench --against: ${name} is not a commit of this clone`);
  const root = path.join(repoRoot, '.bench', `solver-${hash}`);
  if (!existsSync(path.join(root, 'workers/sparse/cholesky-numeric.ts'))) {
    mkdirSync(root, { recursive: true });
    const archive = execFileSync('git', ['archive', hash, 'workers/sparse'], { cwd: repoRoot, maxBuffer: 1 << 26 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
  }
  const load = async (file: string) => (await import(path.join(root, 'workers/sparse', file))) as Record<string, unknown>;
  return {
    amdOrdering: (await load('amd-ordering.ts')).amdOrdering as SolverCore['amdOrdering'],
    choleskySymbolic: (await load('cholesky-symbolic.ts')).choleskySymbolic as SolverCore['choleskySymbolic'],
    choleskyNumeric: (await load('cholesky-numeric.ts')).choleskyNumeric as SolverCore['choleskyNumeric'],
  };
}

/** This process's CPU time (all threads, the compiler's included), ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The first AMD ordering, symbolic analysis and numeric factorization of a fresh process on a case's free block,
 * with the solver core of `commit` ('today' for this tree's).
 *
 * @returns CPU ms of the three stages and of all three
 */
async function firstCall(commit: string, c: Case): Promise<number[]> {
  const core: SolverCore = commit === 'today' ? { ...amdToday, ...symbolicToday, ...numericToday } : await solverCoreAt(commit);
  return timedStages(core, freeBlock(c)).times;
}

/**
 * One AMD ordering, symbolic analysis and numeric factorization of a free block by a solver core.
 * @returns CPU ms of the three stages and of all three, and the factor's non-zeros
 */
function timedStages(core: SolverCore, kff: CscMatrix): { times: number[]; factorNonzeros: number } {
  const t0 = cpuMs();
  const perm = core.amdOrdering(kff);
  const t1 = cpuMs();
  const symbolic = core.choleskySymbolic(kff, perm);
  const t2 = cpuMs();
  core.choleskyNumeric(kff, symbolic);
  const t3 = cpuMs();
  return { times: [t1 - t0, t2 - t1, t3 - t2, t3 - t0], factorNonzeros: symbolic.factorNonzeros };
}

/** Earlier commit's solver core against today's by CPU time, interleaved, on each case's free block. */
async function compareSolverCores(commit: string, cases: Case[], runs: number, firstCalls: number): Promise<void> {
  const before = await solverCoreAt(commit);
  const today: SolverCore = { ...amdToday, ...symbolicToday, ...numericToday };
  const stages = ['AMD ordering', 'symbolic analysis', 'numeric factorization', 'all three'] as const;
  const rows: BenchRow[] = [];
  for (const c of cases) {
    const kff = freeBlock(c);
    const times = [before, today].map(() => stages.map((): number[] => []));
    const factorNonzeros = [0, 0];
    for (let r = 0; r < c.warmups + runs; r++) {
      for (const side of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const core = side === 0 ? before : today;
        globalThis.gc?.();
        const run = timedStages(core, kff);
        if (r >= c.warmups) run.times.forEach((t, s) => times[side][s].push(t));
        factorNonzeros[side] = run.factorNonzeros;
      }
    }
    if (factorNonzeros[0] !== factorNonzeros[1])
      console.log(`  ${c.name}: factor non-zeros ${factorNonzeros[0]} before, ${factorNonzeros[1]} today`);
    const firstTimes = [before, today].map(() => stages.map((): number[] => []));
    for (let r = 0; r < firstCalls; r++) {
      for (const side of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const child = spawnSync(
          process.execPath,
          ['--import', 'tsx', selfPath, '--first-call', side === 0 ? commit : 'today', JSON.stringify(c)],
          {
            encoding: 'utf8',
            maxBuffer: 1 << 24,
          },
        );
        if (child.status !== 0) throw new Error(`harmonic bench --against: first call failed on ${c.name}:\n${child.stderr}`);
        (JSON.parse(child.stdout.trim().split('\n').pop()!) as number[]).forEach((t, s) => firstTimes[side][s].push(t));
      }
    }
    for (const [label, measured, count] of [
      ['', times, runs],
      [', first call in a fresh process', firstTimes, firstCalls],
    ] as const) {
      stages.forEach((stage, s) => {
        const [b, t] = [measured[0][s], measured[1][s]];
        rows.push({
          case: `${c.name}, ${kff.cols.toLocaleString('en')} free: ${stage}${label}`,
          ours: `${fmtMs(Math.min(...t))} (median ${fmtMs(median(t))})`,
          reference: `${fmtMs(Math.min(...b))} (median ${fmtMs(median(b))})`,
          ratio: `${(Math.min(...t) / Math.min(...b)).toFixed(2)} (median ${(median(t) / median(b)).toFixed(2)})`,
          note: `${count} runs`,
        });
      });
    }
  }
  printTable(
    `Solver core, today's (ours) against ${commit}'s (reference), CPU time, best and median of interleaved runs in one process and of first calls in fresh processes`,
    rows,
  );
}

const caseArg = process.argv.indexOf('--case');
const againstArg = process.argv.indexOf('--against');
const firstCallArg = process.argv.indexOf('--first-call');
if (firstCallArg >= 0) {
  console.log(JSON.stringify(await firstCall(process.argv[firstCallArg + 1], JSON.parse(process.argv[firstCallArg + 2]) as Case)));
} else if (againstArg >= 0) {
  const { cases } = prepare();
  const onlyArg = process.argv.indexOf('--only');
  const only = onlyArg >= 0 ? process.argv[onlyArg + 1].split(',') : [];
  const runsArg = process.argv.indexOf('--runs');
  const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 9;
  const firstCallsArg = process.argv.indexOf('--first-calls');
  const firstCalls = firstCallsArg >= 0 ? Number(process.argv[firstCallsArg + 1]) : 5;
  await compareSolverCores(
    process.argv[againstArg + 1],
    cases.filter((c) => only.length === 0 || only.some((word) => c.name.includes(word))),
    runs,
    firstCalls,
  );
} else if (caseArg >= 0) {
  const c = JSON.parse(process.argv[caseArg + 1]) as Case;
  console.log(JSON.stringify(runOurs(c)));
} else {
  const { cases, refBinary } = prepare();
  const onlyArg = process.argv.indexOf('--only');
  const only = onlyArg >= 0 ? process.argv[onlyArg + 1].split(',') : [];
  const rows = [];
  const stageRows: BenchRow[] = [];
  for (const c of cases) {
    if (only.length > 0 && !only.some((word) => c.name.includes(word))) continue;
    const ours: OursResult[] = [];
    const eigen: EigenResult[] = [];
    const eigenCold: EigenResult[] = [];
    for (let round = 0; round < c.rounds; round++) {
      const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', selfPath, '--case', JSON.stringify(c)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      if (child.status !== 0) throw new Error(`ours failed on ${c.name}:\n${child.stderr}`);
      ours.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as OursResult);
      eigen.push(runEigen(refBinary, c));
      eigenCold.push(c.runs > 1 ? runEigen(refBinary, c, 1) : eigen[eigen.length - 1]);
    }
    const oursRounds = ours.map((o) => o.stageBestSumMs);
    const eigenRounds = eigen.map((e) => e.totalMs);
    const oursBest = Math.min(...oursRounds);
    const eigenBest = Math.min(...eigenRounds);
    const oursMedian = median(oursRounds);
    const eigenMedian = median(eigenRounds);
    const stages = Object.keys(ours[0].stages)
      .filter((k) => k !== 'totalMs')
      .map((k) => `${k.replace(/Ms$/, '')} ${median(ours.map((o) => o.stages[k])).toFixed(1)}`)
      .join(', ');
    const peak = Math.max(...ours.map((o) => o.peakRssMiB));
    const peakDelta = Math.max(...ours.map((o) => o.peakDeltaMiB));
    const partitionError = Math.max(...ours.map((o) => o.partitionError));
    console.log(`\n${c.name}: ${c.rounds} rounds of (ours ${c.warmups}+${c.runs} runs, Eigen ${c.runs} repetitions)`);
    console.log(
      `  ours  per round, Σ stage best: ${oursRounds.map((x) => x.toFixed(1)).join(', ')} ms; single runs: best ${Math.min(...ours.map((o) => o.minMs)).toFixed(1)}, median ${median(ours.map((o) => o.medianMs)).toFixed(1)} ms (median stages: ${stages})`,
    );
    console.log(
      `  Eigen per round, Σ stage best: ${eigenRounds.map((x) => x.toFixed(1)).join(', ')} ms; last: ${eigen[eigen.length - 1].line}`,
    );
    const coldStages = Object.entries(ours[0].coldStages)
      .filter(([k]) => k !== 'totalMs')
      .map(([k, v]) => `${k.replace(/Ms$/, '')} ${v.toFixed(1)}`)
      .join(', ');
    console.log(
      `  ours ordering + analysis + factorization per round, best run (median run): ${ours.map((o) => `${o.factorPhaseMs.toFixed(1)} (${o.factorPhaseMedianMs.toFixed(1)})`).join(', ')} ms`,
    );
    console.log(`  cold first calls: ours ${ours.map((o) => o.coldMs.toFixed(1)).join(', ')} ms (first round's stages: ${coldStages})`);
    stageRows.push(
      {
        case: `${c.name}: ordering + analysis + factorization vs Eigen compute`,
        ...sideBySide(
          ours.map((o) => o.factorPhaseMs),
          eigen.map((e) => e.factorMs),
        ),
      },
      {
        case: `${c.name}: solve vs Eigen solve`,
        ...sideBySide(
          ours.map((o) => o.solvePhaseMs),
          eigen.map((e) => e.solveMs),
        ),
      },
      {
        case: `${c.name}: cold first call, whole binding`,
        ...sideBySide(
          ours.map((o) => o.coldMs),
          eigenCold.map((e) => e.totalMs),
        ),
        note: "ours: the process's first harmonicWeights; Eigen: harmonic_ref's first run",
      },
    );
    rows.push({
      case: c.name,
      ours: `${fmtMs(oursBest)} (median ${fmtMs(oursMedian)})`,
      reference: `${fmtMs(eigenBest)} (median ${fmtMs(eigenMedian)}; Eigen SimplicialLLT)`,
      ratio: `${(oursBest / eigenBest).toFixed(2)} (median ${(oursMedian / eigenMedian).toFixed(2)})`,
      note: [
        `peak RSS ${peak.toFixed(0)} MiB (+${peakDelta.toFixed(0)})${c.memoryBudgetMiB ? `, budget ${c.memoryBudgetMiB} MiB: ${peak <= c.memoryBudgetMiB ? 'within' : 'OVER'}` : ''}`,
        `PoU error ${partitionError.toExponential(1)} (Eigen ${Math.max(...eigen.map((e) => e.partitionError)).toExponential(1)})`,
        ...(c.blenderMs
          ? [`Blender automatic weights ${c.blenderMs.toLocaleString('en')} ms: ours ${(c.blenderMs / oursBest).toFixed(1)}× faster`]
          : []),
      ].join('; '),
    });
  }
  printTable(
    "Harmonic skinning weights — Σ of per-stage best runs (harmonic_ref's convention), best and median of alternating rounds; targets: ≤ 1.5 everywhere, < 1 on the large cases",
    rows,
  );
  printTable('Harmonic skinning weights by stage group, best and median of alternating rounds; target ≤ 1.0 on every line', stageRows);
}
