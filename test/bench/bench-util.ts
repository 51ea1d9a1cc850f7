/** Shared pieces of the benchmarks: timing, data locations, generated inputs and the result table. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');
export const refDir = process.env.RIGWRIGHT_REF ?? path.resolve(repoRoot, '../shared/ref');
export const cacheDir = path.join(repoRoot, 'node_modules/.cache/rigwright-bench');

export function requireFile(file: string): string {
  if (!existsSync(file)) throw new Error(`benchmark input missing: ${file} (set RIGWRIGHT_DATA / RIGWRIGHT_REF)`);
  return file;
}

/** Median wall time in milliseconds of `runs` calls after `warmup` unmeasured ones. */
export function medianMs(fn: () => void, runs = 7, warmup = 2): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** `make_tube.py SEGMENTS RINGS BONES` output (OBJ, TGF, handles), generated once into the cache. */
export function tube(segments: number, rings: number, bones: number): { obj: string; tgf: string; handles: string } {
  mkdirSync(cacheDir, { recursive: true });
  const prefix = path.join(cacheDir, `tube-${segments}x${rings}x${bones}`);
  if (!existsSync(`${prefix}.obj`)) {
    execFileSync('python3', [requireFile(path.join(refDir, 'make_tube.py')), String(segments), String(rings), String(bones), prefix]);
  }
  return { obj: `${prefix}.obj`, tgf: `${prefix}.tgf`, handles: `${prefix}-handles.dmat` };
}

export interface BenchRow {
  case: string;
  ours: string;
  reference: string;
  ratio: string;
  note?: string;
}

export const fmtMs = (ms: number) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;

export function printTable(title: string, rows: BenchRow[]): void {
  console.log(`\n## ${title}\n`);
  console.log('| case | ours | reference | ours / reference | note |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.case} | ${r.ours} | ${r.reference} | ${r.ratio} | ${r.note ?? ''} |`);
}
