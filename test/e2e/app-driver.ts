/**
 * What every end-to-end spec needs to reach the app: the shared rigging data and a page opened on the built
 * renderer with its test hook (`window.__rigwright`, renderer/test-hook.ts) ready. Test support, not a spec.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');
export const artifactsDir = path.join(repoRoot, 'test/e2e/artifacts');

/** A file of the shared rigging data; throws, naming the path, when the data folder is missing. */
export function dataFile(...parts: string[]): string {
  const file = path.join(dataDir, ...parts);
  if (!existsSync(file)) throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  return file;
}

/**
 * Opens the app and waits for its first rendered frame. Console errors and uncaught page errors are appended
 * to `errors`, so a spec can assert that there were none.
 */
export async function openApp(page: Page, errors: string[], options: { paused?: boolean } = {}): Promise<void> {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto('/');
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
  if (options.paused) await page.evaluate(() => (window as any).__rigwright.pause());
}

/**
 * Largest distance between corresponding vertices of the GPU readback and the CPU reference at the current pose
 * (Infinity when a position is NaN), with the rest mesh's bounding diagonal and the GPU positions.
 */
export async function gpuCpuDeviation(page: Page): Promise<{ maxError: number; diagonal: number; vertexCount: number; gpu: number[] }> {
  return page.evaluate(async () => {
    const hook = (window as any).__rigwright;
    const gpu: number[] = await hook.gpuPositions();
    const cpu: number[] = hook.cpuPositions();
    let maxError = 0;
    for (let i = 0; i < cpu.length; i += 3) {
      const d = Math.hypot(gpu[i] - cpu[i], gpu[i + 1] - cpu[i + 1], gpu[i + 2] - cpu[i + 2]);
      maxError = Number.isNaN(d) ? Infinity : Math.max(maxError, d);
    }
    return { maxError, diagonal: hook.boundingDiagonal(), vertexCount: cpu.length / 3, gpu };
  });
}

/**
 * Opens files through the page's file input and waits until the scene shows them (the mesh named `mesh`, when
 * given) and a frame has been drawn since, or an error is shown.
 */
export async function loadFiles(page: Page, files: string[], mesh = ''): Promise<void> {
  const before: number = await page.evaluate(() => (window as any).__rigwright.state().framesRendered);
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(
    ([name, frames]) => {
      const s = (window as any).__rigwright.state();
      return s.error !== null || ((name === '' || s.meshFiles.includes(name)) && s.framesRendered > frames);
    },
    [mesh, before] as const,
    { timeout: 90_000 },
  );
}
