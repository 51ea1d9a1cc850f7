/**
 * What every end-to-end spec needs to reach the app: the shared rigging data and a page opened on the built
 * renderer with its test hook (`window.__rigwright`, renderer/test-hook.ts) ready. Test support, not a spec.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type FileChooser, type Locator, type Page } from '@playwright/test';
import { START_HINT_KEY, TOUR_SEEN_KEY } from '../../renderer/panels/first-step-keys.ts';

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
 * to `errors`, so a spec can assert that there were none. The page opens as for an artist who has been here before:
 * the start hint turned off and the toolbar tour seen (the browser's storage says so, as the hint's "Show at
 * startup" and the tour's Skip leave it), unless `firstStep` asks for a first visit.
 */
export async function openApp(page: Page, errors: string[], options: { paused?: boolean; firstStep?: boolean } = {}): Promise<void> {
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  if (!options.firstStep) {
    await page.addInitScript(
      ([hintKey, tourKey]) => {
        localStorage.setItem(hintKey, 'off');
        localStorage.setItem(tourKey, '1');
      },
      [START_HINT_KEY, TOUR_SEEN_KEY],
    );
  }
  await page.goto('/');
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
  if (options.paused) await page.evaluate(() => (window as any).__rigwright.pause());
}

/**
 * Runs `action` (a key press or click that opens the page's file input) and answers the chooser with `files`.
 * Playwright intercepts file choosers only once a listener exists, and turning that on travels to the browser on
 * its own: a listener added just before the action can lose the race with the page's input.click(), and the
 * chooser then never reaches the test. The listener goes first, and a round trip to the page makes sure the
 * browser has it before the action runs.
 */
export async function chooseFiles(page: Page, action: () => Promise<void>, files: string | string[]): Promise<void> {
  const chooser = new Promise<FileChooser>((resolve) => page.once('filechooser', resolve));
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  await action();
  await (await chooser).setFiles(files);
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

/**
 * Opens example meshes with their pose files through the page's file input and waits until the scene lists
 * `count` examples; fails with the app's message when the loading shows an error instead.
 */
export async function loadExamples(page: Page, files: string[], count: number): Promise<void> {
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(
    (n) => {
      const h = (window as any).__rigwright;
      return h.state().error !== null || h.examples.state().examples.length === n;
    },
    count,
    { timeout: 90_000 },
  );
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
}

/** `n` points on a circle of radius `r` pixels around (cx, cy), a closed lasso polygon. */
export function circle(cx: number, cy: number, r: number, n = 24): [number, number][] {
  return Array.from({ length: n }, (_, i) => [cx + r * Math.cos((2 * Math.PI * i) / n), cy + r * Math.sin((2 * Math.PI * i) / n)]);
}

/** Drags a closed polygon with the real mouse: press, a move per vertex, release (with Shift or Control held, when given). */
export async function lasso(page: Page, points: [number, number][], modifier?: 'Shift' | 'Control'): Promise<void> {
  if (modifier) await page.keyboard.down(modifier);
  await page.mouse.move(points[0][0], points[0][1]);
  await page.mouse.down();
  for (const [x, y] of points.slice(1)) await page.mouse.move(x, y, { steps: 2 });
  await page.mouse.up();
  if (modifier) await page.keyboard.up(modifier);
}

/** The screen position of the topmost joint on screen (on the hand: a finger tip). */
export async function topmostJoint(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const h = (window as any).__rigwright;
    let best = { x: 0, y: Infinity };
    for (let j = 0; j < h.state().jointCount; j++) {
      const p = h.jointScreenPosition(j);
      if (p.y < best.y) best = p;
    }
    return best;
  });
}

/**
 * Handles as an artist assigns them: opens the Bind panel (B), lassos (L) a 40-pixel circle around the topmost joint
 * on screen, assigns the selection to `bone` with the A key, and closes the lasso and the panel again.
 * @returns how many vertices the lasso selected
 */
export async function assignHandlesAroundTopJoint(page: Page, bone: number): Promise<number> {
  await page.keyboard.press('b');
  await page.keyboard.press('l');
  const tip = await topmostJoint(page);
  await lasso(page, circle(tip.x, tip.y, 40));
  const selected: number = await page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount);
  await page.evaluate((b) => (window as any).__rigwright.paint.selectBone(b), bone);
  await page.keyboard.press('a');
  await page.keyboard.press('l');
  await page.keyboard.press('b');
  return selected;
}

/** Presses the export dialog's Export button and returns the downloaded file's suggested name and bytes. */
export async function exportFromDialog(page: Page, dialog: Locator): Promise<{ name: string; bytes: Uint8Array }> {
  const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
  return { name: download.suggestedFilename(), bytes: new Uint8Array(readFileSync(await download.path())) };
}

/** Opens the export dialog with Ctrl+E, chooses GLB, checks the clip is included, exports: the file's bytes. */
export async function exportGlbWithClip(page: Page): Promise<Uint8Array> {
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: /GLB/ }).check({ force: true });
  await expect(dialog.locator('input[name="include-clip"]')).toBeChecked();
  return (await exportFromDialog(page, dialog)).bytes;
}

/** The page point (CSS px) a world point is drawn at, from the camera's view-projection matrix (column-major 4×4). */
export async function pagePoint(page: Page, p: readonly number[]): Promise<{ x: number; y: number }> {
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const m: number[] = camera.viewProjection;
  const w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
  const x = (m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12]) / w;
  const y = (m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13]) / w;
  return { x: camera.left + ((x + 1) / 2) * camera.width, y: camera.top + ((1 - y) / 2) * camera.height };
}

/** Clicks the page point a world point is drawn at (see pagePoint). */
export async function clickAt(page: Page, p: readonly number[]): Promise<void> {
  const { x, y } = await pagePoint(page, p);
  await page.mouse.click(x, y);
}

/**
 * World points inside the left arm (+x: the body faces +z) and the spine of the body mesh
 * (context-aware/reference.obj), from the course's own skeleton for it: where a spec clicks to build a skeleton on it.
 */
export const BODY_LEFT_ARM: readonly (readonly [number, number, number])[] = [
  [0.176, 0.236, -0.02],
  [0.448, 0.219, -0.046],
  [0.705, 0.228, -0.047],
  [0.787, 0.219, -0.06],
];
/** See BODY_LEFT_ARM. */
export const BODY_SPINE: readonly (readonly [number, number, number])[] = [
  [-0.003, -0.215, 0.02],
  [0.002, 0.03, 0.002],
];

/**
 * Finds a point on the pose gizmo's ring `axis` (0, 1, 2) that the gizmo picks as that axis (`name`: 'X', 'Y', 'Z'),
 * by hovering the mouse over candidates around the ring; the mouse is left there.
 * @returns the point's angle around the ring (radians) and its page position
 */
export async function grabRing(page: Page, axis: number, name: string): Promise<{ angle: number; x: number; y: number }> {
  for (let k = 0; k < 16; k++) {
    const angle = Math.PI / 4 + (k * Math.PI) / 8;
    const p = await page.evaluate(([a, t]) => (window as any).__rigwright.pose.ringPoint(a, t), [axis, angle] as const);
    await page.mouse.move(p.x, p.y);
    if ((await page.evaluate(() => (window as any).__rigwright.pose.state().gizmo.axis)) === name) return { angle, ...p };
  }
  throw new Error(`no point of the ${name} ring picks it`);
}

/** Presses the mouse where it is and drags it along the gizmo's ring `axis` from `from` radians to `to`, in 8 moves; releases unless told not to. */
export async function dragRing(page: Page, axis: number, from: number, to: number, release = true): Promise<void> {
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    const t = from + ((to - from) * k) / 8;
    const p = await page.evaluate(([a, tt]) => (window as any).__rigwright.pose.ringPoint(a, tt), [axis, t] as const);
    await page.mouse.move(p.x, p.y);
  }
  if (release) await page.mouse.up();
}

/** A menu bar item: the command `command`'s row in the menu `menu` ('File', 'View', …), shown by opening that menu. */
export async function menuItem(page: Page, menu: string, command: string): Promise<Locator> {
  const popup = page.locator('#menu-bar .menu-popup');
  const title = page.getByRole('menubar', { name: 'Menu bar' }).locator('.menu-title', { hasText: new RegExp(`^${menu}$`) });
  if (!(await popup.isVisible()) || (await title.getAttribute('aria-expanded')) !== 'true') await title.click();
  const item = popup.locator(`button[data-command="${command}"]`);
  await expect(item, `${command} in the ${menu} menu`).toBeVisible();
  return item;
}

/** Runs a command by mouse through the menu bar, as an artist does: opens `menu`, clicks the command's item. */
export async function runFromMenu(page: Page, menu: string, command: string): Promise<void> {
  await (await menuItem(page, menu, command)).click();
  await expect(page.locator('#menu-bar .menu-popup'), 'the menu closes').toBeHidden();
}
