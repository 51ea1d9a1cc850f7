/**
 * Helpers the Look view's specs share: projecting points into the page with the view's camera, reading the Look and
 * plain-shading pixels there, and the colour the Look view should show (the plain shading's light on the material's
 * albedo); the split view's readback (PNG files for generated textures: test/unit/png-file.ts).
 */
import { expect, type Page } from '@playwright/test';
import { png } from '../unit/png-file.ts';

/** the app's default material, sRGB 0xb9c2cf (surface-look.ts defaultMaterial) */
const DEFAULT_ALBEDO = [0xb9, 0xc2, 0xcf];

const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const linearToSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

/** Every posed vertex in the page: x, y (CSS pixels), NDC depth, 1/w. */
export function projectAll(
  camera: { viewProjection: number[]; left: number; top: number; width: number; height: number },
  positions: number[],
) {
  const m = camera.viewProjection;
  const out = new Float64Array((positions.length / 3) * 4);
  for (let v = 0; v < positions.length / 3; v++) {
    const [x, y, z] = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
    const cx = m[0] * x + m[4] * y + m[8] * z + m[12];
    const cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    const cz = m[2] * x + m[6] * y + m[10] * z + m[14];
    const cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    out[4 * v] = camera.left + ((cx / cw + 1) / 2) * camera.width;
    out[4 * v + 1] = camera.top + ((1 - cy / cw) / 2) * camera.height;
    out[4 * v + 2] = cz / cw;
    out[4 * v + 3] = 1 / cw;
  }
  return out;
}

/** Each world point's page position (CSS pixels) with the view's camera. */
export function projectPoints(
  camera: { viewProjection: number[]; left: number; top: number; width: number; height: number },
  world: number[][],
): { x: number; y: number }[] {
  const screen = projectAll(camera, world.flat());
  return world.map((_, i) => ({ x: screen[4 * i], y: screen[4 * i + 1] }));
}

/** A texel's sRGB colour (0–255; a fourth value is ignored) as linear albedo. */
export const texelAlbedo = (rgb: number[]): number[] => rgb.slice(0, 3).map((c) => srgbToLinear(c / 255));

/**
 * The Look view's colour (sRGB 0–255) of an opaque `albedo` (linear) at a point the plain shading draws as `shaded`:
 * the same light on another albedo, linear(shaded) × albedo / default albedo, clamped as the display does.
 */
export const litColour = (shaded: number[], albedo: number[]): number[] =>
  [0, 1, 2].map(
    (c) => 255 * linearToSrgb(Math.min(1, (srgbToLinear(shaded[c] / 255) * albedo[c]) / srgbToLinear(DEFAULT_ALBEDO[c] / 255))),
  );

/** The largest difference of two colours' red, green and blue. */
export const rgbDistance = (a: number[], b: number[]): number => Math.max(...[0, 1, 2].map((c) => Math.abs(a[c] - b[c])));

/**
 * Each point's Look pixel (`shown`) against litColour of its albedo at the plain shading's pixel there (`shaded`):
 * within `bound` (sRGB 0–255) each, the message naming the point by `label`.
 * @returns the differences, point by point
 */
export function expectLitColours(
  shown: number[][],
  shaded: number[][],
  albedos: number[][],
  bound: number,
  label: (i: number) => string = (i) => `point ${i}`,
): number[] {
  return albedos.map((albedo, i) => {
    const want = litColour(shaded[i], albedo);
    const error = rgbDistance(want, shown[i]);
    expect(
      error,
      `${label(i)}: rendered ${shown[i].slice(0, 3).join(',')}, expected ${want.map((c) => c.toFixed(1)).join(',')}`,
    ).toBeLessThanOrEqual(bound);
    return error;
  });
}

/** The Look pixels at the page points, then the plain shading's at the same points; the view is left in Look. */
export async function lookAndShaded(page: Page, points: { x: number; y: number }[]): Promise<{ look: number[][]; shaded: number[][] }> {
  const pixels = (): Promise<number[][]> => page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);
  const look = await pixels();
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'shaded'));
  const shaded = await pixels();
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'look'));
  return { look, shaded };
}

/**
 * Opens `files` through the file input, waits for the scene `sceneName` and its look's textures, and hides the
 * skeleton so that only the meshes are drawn.
 */
export async function openInLook(page: Page, files: string | string[], sceneName: string): Promise<void> {
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction((name) => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === name;
  }, sceneName);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  await page.evaluate(async () => {
    const h = (window as any).__rigwright;
    await h.look.ready();
    h.command('view.skeleton');
  });
}

/**
 * The split view's second half read back from the GPU against `method`'s CPU reference: the largest distance
 * between a rig vertex's two positions (scene units) and how many vertices were read.
 */
export async function splitViewError(page: Page, method: string): Promise<{ worst: number; count: number }> {
  await page.evaluate(() => (window as any).__rigwright.look.ready());
  return page.evaluate(async (m) => {
    const h = (window as any).__rigwright;
    const gpu: number[] = await h.gpuSplitPositions();
    const cpu: number[] = h.cpuPositionsOf(m);
    let worst = 0;
    for (let i = 0; i < cpu.length; i += 3)
      worst = Math.max(worst, Math.hypot(gpu[i] - cpu[i], gpu[i + 1] - cpu[i + 1], gpu[i + 2] - cpu[i + 2]));
    return { worst, count: gpu.length / 3 };
  }, method);
}

/** The generated texture's quadrants, sRGB: top left, top right, bottom left, bottom right (the image's rows run top first). */
export const QUADRANTS = [
  [230, 40, 40],
  [40, 200, 60],
  [40, 80, 220],
  [240, 200, 30],
];

/** A 64 × 64 PNG in four flat quadrants of `colours` (in QUADRANTS' order; RGB, or RGBA with its alpha). */
export function quadrantPng(colours: number[][]): Uint8Array {
  const rgba = new Uint8Array(64 * 64 * 4);
  for (let y = 0; y < 64; y++)
    for (let x = 0; x < 64; x++) {
      const colour = colours[2 * (y >= 32 ? 1 : 0) + (x >= 32 ? 1 : 0)];
      rgba.set(colour.length === 3 ? [...colour, 255] : colour, 4 * (64 * y + x));
    }
  return png(64, 64, rgba);
}
