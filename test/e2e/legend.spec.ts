/**
 * legend: every heat map shows a colour legend while it is on, with its range and units, and the range of values on
 * the mesh now, which the spec works out itself from the data read through the test hook:
 * - the weight map (View → Weight map): the selected bone's column of the weights; another bone, another range;
 * - the area change (the toolbar's Area change heat map, as in View): log2 of each vertex's one-ring area, posed (the CPU reference at the pose)
 *   over at rest, computed here from the triangles; another frame, another range;
 * - the examples' error at eg2's pose: each vertex's distance to eg2, over 0 … 0.1% of the diagonal;
 * - the examples' correction at rest: |context LBS − LBS| per vertex (at rest LBS moves nothing, so the difference is
 *   Σ_j a_j δ_j itself).
 * Each is turned on with the mouse; turning it off hides the legend. A screenshot at 1440×900 goes to
 * test/e2e/screenshots/legend.png.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { dataFile, loadExamples, loadFiles, menuItem, openApp, repoRoot, runFromMenu } from './app-driver.ts';

const legend = (page: Page) => page.locator('#heat-map-legend');

/** The legend's numbers: the bar's ends and the data range it reports, as the page holds them. */
async function legendNumbers(page: Page): Promise<{ kind: string; min: number; max: number; dataMin: number; dataMax: number }> {
  const d = await legend(page).evaluate((node: HTMLElement) => ({ ...node.dataset }));
  return { kind: d.kind ?? '', min: Number(d.min), max: Number(d.max), dataMin: Number(d.dataMin), dataMax: Number(d.dataMax) };
}

/** Sets the page's theme attribute as the preference does (null: the default, dark). */
const setTheme = (page: Page, theme: 'light' | null) =>
  page.evaluate(
    (t) => (t ? document.documentElement.setAttribute('data-theme', t) : document.documentElement.removeAttribute('data-theme')),
    theme,
  );

const hook = <T>(page: Page, body: string): Promise<T> => page.evaluate<T>(`(() => { const h = window.__rigwright; ${body} })()`);

function closeTo(actual: number, expected: number, tolerance: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} against ${expected}`).toBeLessThanOrEqual(tolerance);
}

function range(values: number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/** Each vertex's one-ring area (the sum of its triangles' areas), from #V × 3 positions and #F × 3 indices. */
function oneRingAreas(positions: number[], triangles: number[]): number[] {
  const areas = new Array<number>(positions.length / 3).fill(0);
  for (let f = 0; f < triangles.length; f += 3) {
    const [a, b, c] = [triangles[f], triangles[f + 1], triangles[f + 2]];
    const u = [0, 1, 2].map((k) => positions[3 * b + k] - positions[3 * a + k]);
    const v = [0, 1, 2].map((k) => positions[3 * c + k] - positions[3 * a + k]);
    const area = 0.5 * Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    areas[a] += area;
    areas[b] += area;
    areas[c] += area;
  }
  return areas;
}

/** The lowest and highest posed-over-rest area ratio of the current method at the current pose. */
async function areaRatioRange(page: Page): Promise<[number, number]> {
  const { positions, triangles, posed } = await hook<{ positions: number[]; triangles: number[]; posed: number[] }>(
    page,
    'const s = h.work.scene(); return { positions: s.positions, triangles: s.triangles, posed: h.cpuPositions() };',
  );
  const rest = oneRingAreas(positions, triangles);
  const now = oneRingAreas(posed, triangles);
  return range(rest.flatMap((r, v) => (r > 0 && now[v] > 0 ? [now[v] / r] : [])));
}

async function weightRange(page: Page): Promise<[number, number]> {
  const { weights, bones, bone } = await hook<{ weights: number[]; bones: number; bone: number }>(
    page,
    'const s = h.state(); return { weights: h.paint.weightsSnapshot(), bones: s.boneCount, bone: s.selectedBone };',
  );
  return range(weights.filter((_, i) => i % bones === bone));
}

test('legend: the weight map and the area change show a legend whose range is the data’s, and follow the data', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await expect(legend(page)).toBeHidden();

  await page.locator('.view-select').selectOption('heatmap');
  await expect(legend(page)).toBeVisible();
  await expect(legend(page).locator('.legend-title')).toHaveText(/^Weight of /);
  await expect(legend(page).locator('.legend-units')).toHaveText('weight');
  let shown = await legendNumbers(page);
  expect(shown.kind).toBe('weight');
  expect([shown.min, shown.max]).toEqual([0, 1]);
  const [low, high] = await weightRange(page);
  closeTo(shown.dataMin, low, 1e-12, 'weight map: lowest weight');
  closeTo(shown.dataMax, high, 1e-12, 'weight map: highest weight');

  // Another bone: the legend follows its weights.
  const bones: number = await hook(page, 'return h.state().boneCount;');
  const other = (await hook<number>(page, 'return h.state().selectedBone;')) === bones - 1 ? 0 : bones - 1;
  await hook(page, `h.paint.selectBone(${other});`);
  await expect.poll(() => hook<number>(page, 'return h.state().selectedBone;')).toBe(other);
  const [otherLow, otherHigh] = await weightRange(page);
  await expect.poll(async () => (await legendNumbers(page)).dataMax).toBeCloseTo(otherHigh, 12);
  closeTo((await legendNumbers(page)).dataMin, otherLow, 1e-12, 'weight map of another bone: lowest weight');

  await page.setViewportSize({ width: 1440, height: 900 });
  const screenshots = path.join(repoRoot, 'test/e2e/screenshots');
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, 'legend.png') });

  // The light theme (style.css's light variables): the legend is light too, its text dark.
  await setTheme(page, 'light');
  await expect(legend(page)).toHaveCSS('background-color', 'rgba(247, 248, 250, 0.95)');
  await expect(legend(page)).toHaveCSS('color', 'rgb(30, 34, 41)');
  await setTheme(page, null);

  await page.locator('.view-select').selectOption('shaded');
  await expect(legend(page)).toBeHidden();

  // The area change, at a frame where the demo bends.
  await hook(page, 'h.setTime(Math.floor(h.state().duration / 2));');
  const areaChange = await menuItem(page, 'View', 'skin.heatMap');
  // One plain name in the menus and in the legend; the paper's term in the tooltip.
  await expect(areaChange.locator('.menu-label')).toHaveText('Area change heat map');
  await expect(areaChange).toHaveAttribute('title', /distortion heat map/);
  await areaChange.click();
  await expect(legend(page)).toBeVisible();
  await expect(legend(page).locator('.legend-title')).toHaveText('Area change heat map');
  await expect(legend(page).locator('.legend-min')).toHaveText('×0.5 (half)');
  await expect(legend(page).locator('.legend-max')).toHaveText('×2 (double)');
  await expect(legend(page).locator('.legend-units')).toHaveText('× area');
  shown = await legendNumbers(page);
  expect(shown.kind).toBe('distortion');
  expect([shown.min, shown.max]).toEqual([0.5, 2]);
  const [shrink, grow] = await areaRatioRange(page);
  expect(grow - shrink, 'the pose changes some areas').toBeGreaterThan(1e-3);
  // The app's values are single-precision log2 ratios.
  closeTo(shown.dataMin, shrink, 1e-5 * shrink, 'area change: smallest ratio');
  closeTo(shown.dataMax, grow, 1e-5 * grow, 'area change: largest ratio');

  await hook(page, 'h.setTime(0);');
  const [restShrink, restGrow] = await areaRatioRange(page);
  await expect.poll(async () => (await legendNumbers(page)).dataMax).toBeCloseTo(restGrow, 4);
  closeTo((await legendNumbers(page)).dataMin, restShrink, 1e-5 * restShrink, 'area change at frame 0: smallest ratio');

  await runFromMenu(page, 'View', 'skin.heatMap');
  await expect(legend(page)).toBeHidden();
  expect(errors).toEqual([]);
});

const body = (name: string) => dataFile('context-aware', name);

/** What an artist should not have to read: the paper's symbols and numbers in exponent notation. */
const JARGON = /a_j|δ|Σ|\de-\d/;

test('legend: the examples’ error and correction maps show their full scale in mesh units and the data’s range', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf'), body('all_frames.dmat')], 'reference.obj');
  await loadExamples(
    page,
    [0, 1, 2, 3].flatMap((i) => [body(`eg${i}.obj`), body(`eg${i}.dmat`)]),
    4,
  );
  await hook(page, "h.pause(); h.command('skin.method', 'context-lbs'); h.setTime(87);");
  await page.evaluate(() => (window as any).__rigwright.examples.unposed());
  await page.keyboard.press('g');
  await page.locator('.example-map-select').selectOption('error');
  await expect(legend(page)).toBeVisible();
  await expect(legend(page).locator('.legend-units')).toHaveText('mesh units');
  await expect.poll(async () => (await legendNumbers(page)).kind).toBe('error');
  // The panel speaks plainly; the formula is in the note's tooltip.
  const examplesPanel = page.locator('#examples-panel');
  const mapNote = examplesPanel.locator('.example-map-note');
  await expect(mapNote).toHaveText(/^distance to eg2: up to (< )?[\d.]+% of the mesh size; full colour at 0\.1%$/);
  await expect(examplesPanel).not.toContainText(JARGON);

  const diagonal: number = await hook(page, 'return h.boundingDiagonal();');
  const distances = await hook<number[]>(
    page,
    `const p = h.cpuPositions(), e = h.examples.positions('eg2'), d = [];
     for (let i = 0; i < e.length; i += 3) d.push(Math.hypot(p[i] - e[i], p[i + 1] - e[i + 1], p[i + 2] - e[i + 2]));
     return d;`,
  );
  let shown = await legendNumbers(page);
  closeTo(shown.min, 0, 0, 'error map: low end');
  closeTo(shown.max, 1e-3 * diagonal, 1e-9 * diagonal, 'error map: full scale, 0.1% of the diagonal');
  const [near, far] = range(distances);
  // Single-precision fractions of the full scale, times the scale.
  closeTo(shown.dataMin, near, 1e-6 * shown.max, 'error map: nearest vertex');
  closeTo(shown.dataMax, far, 1e-6 * shown.max, 'error map: farthest vertex');

  // Plain LBS at the same pose is much farther from eg2: the legend's data follows.
  await hook(page, "h.command('skin.method', 'lbs');");
  const lbsFar = Math.max(
    ...(await hook<number[]>(
      page,
      `const p = h.cpuPositions(), e = h.examples.positions('eg2'), d = [];
       for (let i = 0; i < e.length; i += 3) d.push(Math.hypot(p[i] - e[i], p[i + 1] - e[i + 1], p[i + 2] - e[i + 2]));
       return d;`,
    )),
  );
  expect(lbsFar).toBeGreaterThan(10 * far);
  await expect.poll(async () => (await legendNumbers(page)).dataMax).toBeCloseTo(lbsFar, 6);

  // The correction applied at rest: LBS moves nothing there, so context LBS − LBS is Σ_j a_j δ_j.
  await hook(page, "h.command('skin.method', 'context-lbs'); h.command('pose.rest');");
  await page.locator('.example-map-select').selectOption('displacement');
  await expect.poll(async () => (await legendNumbers(page)).kind).toBe('displacement');
  await expect(mapNote).toHaveText(/^the correction now, through linear blend: up to [\d.]+ \((< )?[\d.]+% of the mesh size\)/);
  await expect(mapNote).toHaveAttribute('title', /\|Σ_j a_j δ_j\|.*\(Eq\. 7\)/);
  await expect(examplesPanel).not.toContainText(JARGON);
  const corrections = await hook<number[]>(
    page,
    `const c = h.cpuPositionsOf('context-lbs'), p = h.cpuPositionsOf('lbs'), d = [];
     for (let i = 0; i < c.length; i += 3) d.push(Math.hypot(c[i] - p[i], c[i + 1] - p[i + 1], c[i + 2] - p[i + 2]));
     return d;`,
  );
  const [least, most] = range(corrections);
  expect(most, 'the examples correct the rest shape somewhere').toBeGreaterThan(0);
  await expect.poll(async () => (await legendNumbers(page)).dataMax).toBeCloseTo(most, 6);
  shown = await legendNumbers(page);
  closeTo(shown.dataMin, least, 1e-6 * shown.max, 'correction map: least corrected vertex');
  expect(shown.max, 'full scale: the largest correction of any example').toBeGreaterThanOrEqual(most * (1 - 1e-6));

  await page.locator('.example-map-select').selectOption('off');
  await expect(legend(page)).toBeHidden();
  expect(errors).toEqual([]);
});

test('legend: every slider shows its value in a field; typing a value moves the slider and the setting, out of range clamps with a note', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const brush = () => hook<Record<string, number>>(page, 'return h.paint.state().brush;');

  await page.keyboard.press('p');
  const paint = page.locator('#paint-panel');
  await expect(paint).toBeVisible();
  const rows = paint.locator('.slider-row:has(input[type="range"])');
  const sliderCount = await rows.count();
  expect(sliderCount, 'the paint panel has its sliders').toBeGreaterThanOrEqual(4);
  for (let k = 0; k < sliderCount; k++) {
    const range = rows.nth(k).locator('input[type="range"]');
    const field = rows.nth(k).locator('input.slider-value');
    await expect(field, `slider ${k} has a value field`).toBeVisible();
    expect(Number(await field.inputValue()), `slider ${k}'s field shows its value`).toBeCloseTo(Number(await range.inputValue()), 6);
    // On the slider's own row, to its right.
    const [rangeBox, fieldBox] = [await range.boundingBox(), await field.boundingBox()];
    expect(rangeBox && fieldBox, `slider ${k} and its field are laid out`).toBeTruthy();
    const centre = fieldBox!.y + fieldBox!.height / 2;
    expect(centre, `slider ${k}'s field is on its row`).toBeGreaterThan(rangeBox!.y);
    expect(centre, `slider ${k}'s field is on its row`).toBeLessThan(rangeBox!.y + rangeBox!.height);
    expect(fieldBox!.x, `slider ${k}'s field is right of it`).toBeGreaterThanOrEqual(rangeBox!.x + rangeBox!.width);
  }

  const strength = paint.getByRole('spinbutton', { name: 'strength value' });
  await strength.click();
  await strength.fill('0.37');
  await strength.press('Enter');
  await expect.poll(async () => (await brush()).strength).toBeCloseTo(0.37, 12);
  await expect(paint.locator('.slider-row:has(input[aria-label="strength value"]) input[type="range"]')).toHaveValue('0.37');

  await strength.click();
  await strength.fill('5');
  await strength.press('Enter');
  await expect.poll(async () => (await brush()).strength).toBe(1);
  await expect(strength).toHaveValue('1');
  const note = paint.locator('.slider-row:has(input[aria-label="strength value"]) .value-note');
  await expect(note).toBeVisible();
  await expect(note).toHaveText('5 is outside 0 to 1: set to 1');
  // The note takes the theme's accent colour (#c46a00 in the light theme).
  await setTheme(page, 'light');
  await expect(note).toHaveCSS('color', 'rgb(196, 106, 0)');
  await setTheme(page, null);

  // The slider moved by keys: the field follows, the note goes.
  const strengthSlider = paint.locator('.slider-row:has(input[aria-label="strength value"]) input[type="range"]');
  await strengthSlider.focus();
  await page.keyboard.press('Home');
  await expect.poll(async () => (await brush()).strength).toBe(0);
  await expect(strength).toHaveValue('0');
  await expect(note).toBeHidden();

  const radius = paint.getByRole('spinbutton', { name: 'radius px value' });
  await radius.click();
  // A number field takes no letters: an emptied field is what is left to refuse.
  await radius.fill('');
  await radius.press('Enter');
  await expect(paint.locator('.slider-row:has(input[aria-label="radius px value"]) .value-note')).toHaveText(/^not a number: kept \d+/);
  const radiusBefore = (await brush()).radius;
  await radius.fill('64');
  await radius.press('Enter');
  await expect.poll(async () => (await brush()).radius).toBe(64);
  expect(radiusBefore).not.toBe(64);
  await page.keyboard.press('p');

  // The Bind panel's cylinder radius: its field is off with the slider until cylinders are the handle source.
  await page.keyboard.press('b');
  const bind = page.locator('#bind-panel');
  const cylinderRadius = bind.getByRole('spinbutton', { name: 'radius value' });
  await expect(cylinderRadius).toBeDisabled();
  await bind.getByLabel('Automatic: bone cylinders').check();
  await expect(cylinderRadius).toBeEnabled();
  await cylinderRadius.fill('0.06');
  await cylinderRadius.press('Enter');
  // The slider is redrawn from the binding options, so its value is the setting's.
  const radiusRow = bind.locator('.slider-row:has(input[aria-label="radius value"])');
  await expect(radiusRow.locator('input[type="range"]')).toHaveValue('0.06');
  // Between two steps of 0.005: the nearest step is set, so the length beside it (the setting times the mesh size)
  // is 0.06's, and the note says so.
  const lengthAtStep = await radiusRow.locator('.dim').textContent();
  await cylinderRadius.fill('0.0613');
  await cylinderRadius.press('Enter');
  await expect(cylinderRadius).toHaveValue('0.06');
  await expect(radiusRow.locator('.value-note')).toHaveText('0.0613 is between steps of 0.005: set to 0.06');
  await expect(radiusRow.locator('.dim')).toHaveText(lengthAtStep ?? '');
  await page.keyboard.press('b');

  // The timeline's frame: typing one goes there; past the clip's end it stops at the last frame and says so.
  const frame = page.getByRole('spinbutton', { name: 'Frame' });
  const duration = await hook<number>(page, 'return h.state().duration;');
  await frame.fill('40');
  await frame.press('Enter');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(40);
  await expect(page.getByRole('slider', { name: 'Time' })).toHaveValue('40');
  await expect(page.locator('.time-readout')).toHaveText(`frame 40 / ${duration}`);
  await frame.fill(String(duration + 100));
  await frame.press('Enter');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(duration);
  await expect(page.locator('.frame-field .value-note')).toHaveText(`${duration + 100} is outside 0 to ${duration}: set to ${duration}`);
  // A frame between two frames goes to the nearest, as the slider would.
  await frame.fill('12.5');
  await frame.press('Enter');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(13);
  await expect(frame).toHaveValue('13');
  await expect(page.locator('.frame-field .value-note')).toHaveText('12.5 is between steps of 1: set to 13');

  // The weight-blended method's amount, in the toolbar.
  await page.selectOption('#skinning-method', 'blend');
  const amount = page.getByRole('spinbutton', { name: 'Dual quaternion amount value' });
  await expect(amount).toHaveValue('0');
  await amount.click();
  await amount.fill('0.6');
  await amount.press('Enter');
  await expect(page.locator('#blend-amount')).toHaveValue('0.6');
  expect(await hook<number>(page, 'return h.state().framesRendered;')).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test('legend: a quaternion pose’s t has a value field beside the timeline’s slider', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const bones = await hook<number>(page, 'return h.state().boneCount;');
  // A final pose of quaternions (x, y, z, w per bone): the first bone turns 0.6 rad about z, the others stay.
  const quaternions = Array.from({ length: bones }, (_, b) => (b === 0 ? [0, 0, Math.sin(0.3), Math.cos(0.3)] : [0, 0, 0, 1])).flat();
  const poseFile = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-legend-')), 'turn.dmat');
  writeFileSync(poseFile, writeDmatAscii({ rows: 4 * bones, cols: 1, data: Float64Array.from(quaternions) }));
  await page.setInputFiles('#file-input', poseFile);
  await page.waitForFunction(() => (window as any).__rigwright.snapshot().posesFile === 'turn.dmat');
  await hook(page, 'h.pause();');

  const t = page.getByRole('spinbutton', { name: 't', exact: true });
  await expect(t).toBeVisible();
  await expect(page.getByRole('spinbutton', { name: 'Frame' })).toBeHidden();
  await t.fill('0.25');
  await t.press('Enter');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(0.25);
  await expect(page.getByRole('slider', { name: 'Time' })).toHaveValue('0.25');
  await expect(page.locator('.time-readout')).toHaveText('t 0.250');
  // Between steps of 0.001: the nearest step.
  await t.fill('0.4567');
  await t.press('Enter');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(0.457);
  await expect(page.locator('.t-field .value-note')).toHaveText('0.4567 is between steps of 0.001: set to 0.457');
  // The slider moved by keys: the field follows.
  await page.getByRole('slider', { name: 'Time' }).focus();
  await page.keyboard.press('End');
  await expect.poll(() => hook<number>(page, 'return h.state().time;')).toBe(1);
  await expect(t).toHaveValue('1');
  expect(errors).toEqual([]);
});

test('legend: plain labels name what a setting does, with the paper’s term in the tooltip', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const field = (text: string) => page.locator('label.deform-field', { hasText: text });
  await expect(field('Flip guard')).toHaveAttribute('title', /antipodality, Kavan 2008/);
  await expect(field('Compare with')).toHaveAttribute('title', /^Split view/);
  await expect(field('Compare with').locator('option[value="off"]')).toHaveText('nothing');
  const methods = page.locator('#skinning-method option');
  await expect(methods.filter({ hasText: 'Linear blend + examples' })).toHaveAttribute('title', /^Context-aware LBS: .*\(Eq\. 7\)$/);
  await expect(methods.filter({ hasText: 'Per-face + examples (rotation mix)' })).toHaveAttribute(
    'title',
    /polar decomposition \(Eq\. 10\)$/,
  );
  expect((await methods.allTextContents()).filter((name) => /Eq\.|Context|LBS|DQS/.test(name))).toEqual([]);
  await expect(page.locator('label.deform-field', { hasText: /^Signs/ })).toHaveCount(0);
  await expect(page.locator('label.deform-field', { hasText: /^Split/ })).toHaveCount(0);

  await page.keyboard.press('b');
  const smoothness = page.locator('#bind-panel .slider-row', { hasText: 'Smoothness' }).locator('select');
  await expect(smoothness).toHaveAttribute('title', /Laplacian of the harmonic solve: cotangent or uniform/);
  expect(await smoothness.locator('option').allTextContents()).toEqual(['surface-aware (cotangent)', 'even (uniform)']);
  await expect(page.locator('#bind-panel')).not.toContainText('Laplacian');
  await page.keyboard.press('b');

  await page.keyboard.press('g');
  const examples = page.locator('#examples-panel');
  await expect(examples.locator('.slider-row', { hasText: 'Falloff between poses' }).locator('select')).toHaveAttribute(
    'title',
    /radial basis function \(RBF kernel\)/,
  );
  await expect(examples.locator('p', { hasText: /^Bars: how much each example counts/ })).toHaveAttribute('title', /a_j \(Eq\. 8\)/);
  expect(await examples.locator('.example-map-select option').allTextContents()).toEqual([
    'off',
    'correction applied now',
    'distance to the example at its pose',
  ]);
  await expect(examples).not.toContainText('Eq. 8');
  expect(errors).toEqual([]);
});
