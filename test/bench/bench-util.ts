/** Shared pieces of the benchmarks: timing, data locations, generated inputs and the result table. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

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

/**
 * Builds the renderer into `outDir`, serves it on `port` and opens it in headless Chromium (WebGL2 on SwiftShader),
 * waiting for the first frame; `run` gets the page. The server and browser are closed whatever happens.
 * @param outDir   build folder (each benchmark its own, so they do not meet)
 * @param port     preview server port
 * @param run      the measurements
 * @param viewport page size, CSS pixels
 */
export async function withAppPage<T>(
  outDir: string,
  port: number,
  run: (page: Page) => Promise<T>,
  viewport = { width: 1280, height: 800 },
): Promise<T> {
  const { spawn } = await import('node:child_process');
  const { chromium } = await import('@playwright/test');
  execFileSync(
    'npx',
    ['vite', 'build', '--config', 'renderer/vite.config.ts', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'],
    { cwd: repoRoot, stdio: 'inherit' },
  );
  const server = spawn(
    'npx',
    [
      'vite',
      'preview',
      '--config',
      'renderer/vite.config.ts',
      '--outDir',
      outDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--strictPort',
    ],
    { cwd: repoRoot, stdio: 'ignore', detached: true },
  );
  try {
    const browser = await chromium.launch({
      executablePath: process.env.RIGWRIGHT_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--use-gl=angle',
        '--use-angle=swiftshader',
        '--enable-unsafe-swiftshader',
        '--ignore-gpu-blocklist',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport });
      for (let attempt = 0; ; attempt++) {
        try {
          await page.goto(`http://127.0.0.1:${port}/`);
          break;
        } catch (error) {
          if (attempt > 50) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await page.waitForFunction(() => (window as any).__rigwright !== undefined, undefined, { timeout: 120_000 });
      await page.evaluate(() => (window as any).__rigwright.ready());
      return await run(page);
    } finally {
      await browser.close();
    }
  } finally {
    try {
      process.kill(-server.pid!);
    } catch {
      // already gone
    }
  }
}
