/**
 * The layer rules of DESIGN.md, as the tools that enforce them see them:
 * - imports: dependency-cruiser with the project's .dependency-cruiser.cjs, on the whole tree and on a generated
 *   tree with the same folder names in which every rule is broken once (so each rule can fail);
 * - DOM use: ESLint's no-restricted-globals from eslint.config.js, for workers/ and the renderer's DOM-free folders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const depcruiseConfig = path.join(repoRoot, '.dependency-cruiser.cjs');

/** Every rule violation found from `roots` under `baseDir`, as "rule: from → to". */
async function importViolations(baseDir: string, roots: string[], tsconfig?: string): Promise<string[]> {
  const options = { ...(await extractDepcruiseOptions(depcruiseConfig)), baseDir };
  const transpile = tsconfig ? { tsConfig: extractTSConfig(tsconfig) } : undefined;
  // Paths as seen from baseDir, also through a symlinked node_modules.
  const result = (await cruise(roots, options, { symlinks: false }, transpile)).output as ICruiseResult;
  return result.summary.violations.map(({ rule, from, to, cycle }) =>
    cycle ? `${rule.name}: ${[from, ...cycle.map((step) => step.name)].join(' → ')}` : `${rule.name}: ${from} → ${to}`,
  );
}

test('the whole tree keeps the layer rules and has no import cycles', async () => {
  const found = await importViolations(repoRoot, ['app', 'renderer', 'workers', 'test'], path.join(repoRoot, 'tsconfig.json'));
  assert.deepEqual(found, []);
});

/** A tree with the project's folder names; each module's source is given, most of them breaking one rule. */
const WRONG_TREE: Record<string, string> = {
  'app/ipc-contract.ts': `export type Channel = string;\n`,
  'app/main.ts': [
    `import { Mesh } from 'three';`,
    `import { overlay } from '../renderer/view/overlay.ts';`,
    `const electron = require('electron');`,
    `export const parts = [Mesh, overlay, electron];`,
  ].join('\n'),

  // the CLI may use the command layer (allowed), not the rest of the page
  'app/cli/run.ts': [
    `import { CATALOG } from '../../renderer/commands/command-catalog.ts';`,
    `import { overlay } from '../../renderer/view/overlay.ts';`,
    `export const run = [CATALOG, overlay];`,
  ].join('\n'),

  'workers/math/solve.ts': `import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n`,
  'workers/mesh/area.ts': [
    `import { Vector3 } from 'three';`,
    `import { scene } from '../../renderer/document/scene.ts';`,
    `import { main } from '../../app/main.ts';`,
    `export const area = [Vector3, scene, main];`,
  ].join('\n'),
  'workers/rig/skeleton.ts': `export interface Skeleton { bones: number }\nexport const ROOT = -1;\n`,

  'renderer/main.ts': `import { boot } from './shell/boot.ts';\nboot();\n`,
  'renderer/shell/boot.ts': `import { panel } from '../panels/ok-panel.ts';\nexport function boot(): void { panel(); }\n`,
  'renderer/document/scene.ts': [
    `import path from 'node:path';`,
    `import { overlay } from '../view/overlay.ts';`,
    `import { ROOT } from '../../workers/rig/skeleton.ts';`,
    `export const scene = [path, overlay, ROOT];`,
  ].join('\n'),
  'renderer/io/bridge.ts': [
    `import 'electron';`,
    `import type { Channel } from '../../app/ipc-contract.ts';`,
    `import { parts } from '../../app/main.ts';`,
    `export const bridge: Channel[] = [String(parts)];`,
  ].join('\n'),
  // a run-time cycle a → b → a
  'renderer/bind/a.ts': `import { b } from './b.ts';\nexport const a = () => b;\n`,
  'renderer/bind/b.ts': `import { a } from './a.ts';\nexport const b = () => a;\n`,
  // a cycle through a type import only: loads nothing, so allowed outside renderer/ (workers/rig), refused inside it
  'workers/rig/pose.ts': `import type { Chain } from './chain.ts';\nexport const POSE: Chain[] = [];\n`,
  'workers/rig/chain.ts': `import { POSE } from './pose.ts';\nexport type Chain = string;\nexport const CHAINS = POSE;\n`,
  'renderer/commands/catalog.ts': `import type { MenuName } from './menus.ts';\nexport const CATALOG: MenuName[] = [];\n`,
  'renderer/commands/menus.ts': `import { CATALOG } from './catalog.ts';\nexport type MenuName = string;\nexport const MENUS = CATALOG;\n`,
  'renderer/paint/session.ts': [
    `import { boot } from '../shell/boot.ts';`,
    `import { panel } from '../panels/ok-panel.ts';`,
    `export const session = [boot, panel];`,
  ].join('\n'),
  'renderer/view/overlay.ts': `import { pick } from '../tools/pick/pick-idle.ts';\nexport const overlay = pick;\n`,
  'renderer/panels/ok-panel.ts': [
    `import type { Mesh } from 'three';`,
    `import type { Skeleton } from '../../workers/rig/skeleton.ts';`,
    `import type { overlay } from '../view/overlay.ts';`,
    `export function panel(mesh?: Mesh, skeleton?: Skeleton, view?: typeof overlay): void { void [mesh, skeleton, view]; }`,
  ].join('\n'),
  'renderer/panels/wrong-panel.ts': [
    `import { Mesh } from 'three';`,
    `import { ROOT } from '../../workers/rig/skeleton.ts';`,
    `import { overlay } from '../view/overlay.ts';`,
    `export const wrong = [Mesh, ROOT, overlay];`,
  ].join('\n'),
  // a controller with three and a view type, and a deform/ module (any name) with a view at run time
  'renderer/posespace/pose-controller.ts': [
    `import { Mesh } from 'three';`,
    `import type { overlay } from '../view/overlay.ts';`,
    `export const pose = (view?: typeof overlay) => [Mesh, view];`,
  ].join('\n'),
  // the command catalog naming a controller's type: refused, type-only as it is
  'renderer/commands/command-catalog.ts': `import type { pose } from '../posespace/pose-controller.ts';\nexport const CATALOG: (typeof pose)[] = [];\n`,
  'renderer/deform/views-part.ts': `import { overlay } from '../view/overlay.ts';\nexport const part = overlay;\n`,
  'renderer/tools/pick/pick-idle.ts': `import { panel } from '../../panels/ok-panel.ts';\nexport const pick = panel;\n`,
};

const EXPECTED_VIOLATIONS = [
  'app-not-to-renderer: app/main.ts → renderer/view/overlay.ts',
  'app-not-to-three: app/main.ts → node_modules/three/build/three.module.js',
  'cli-to-renderer-command-layer-only: app/cli/run.ts → renderer/view/overlay.ts',
  'no-circular: renderer/bind/a.ts → renderer/bind/b.ts → renderer/bind/a.ts',
  'renderer-command-catalog-not-to-controllers: renderer/commands/command-catalog.ts → renderer/posespace/pose-controller.ts',
  'renderer-controllers-not-to-view: renderer/deform/views-part.ts → renderer/view/overlay.ts',
  'renderer-controllers-not-to-view: renderer/posespace/pose-controller.ts → node_modules/three/build/three.module.js',
  'renderer-controllers-not-to-view: renderer/posespace/pose-controller.ts → renderer/view/overlay.ts',
  'renderer-document-below-controllers: renderer/document/scene.ts → renderer/view/overlay.ts',
  'renderer-dom-free-not-to-ui: renderer/paint/session.ts → renderer/panels/ok-panel.ts',
  'renderer-no-circular-types: renderer/bind/a.ts → renderer/bind/b.ts → renderer/bind/a.ts',
  'renderer-no-circular-types: renderer/commands/catalog.ts → renderer/commands/menus.ts → renderer/commands/catalog.ts',
  'renderer-no-circular-types: renderer/panels/ok-panel.ts → renderer/view/overlay.ts → renderer/tools/pick/pick-idle.ts → renderer/panels/ok-panel.ts',
  'renderer-not-to-electron: renderer/io/bridge.ts → electron',
  'renderer-not-to-node: renderer/document/scene.ts → path',
  'renderer-panels-not-to-three: renderer/panels/wrong-panel.ts → node_modules/three/build/three.module.js',
  'renderer-panels-not-to-view: renderer/panels/wrong-panel.ts → renderer/view/overlay.ts',
  'renderer-panels-not-to-workers: renderer/panels/wrong-panel.ts → workers/rig/skeleton.ts',
  'renderer-shell-only-from-main: renderer/paint/session.ts → renderer/shell/boot.ts',
  'renderer-to-app-only-allowed: renderer/io/bridge.ts → app/main.ts',
  'renderer-tools-not-to-panels: renderer/tools/pick/pick-idle.ts → renderer/panels/ok-panel.ts',
  'renderer-view-not-to-ui: renderer/view/overlay.ts → renderer/tools/pick/pick-idle.ts',
  'workers-not-to-app-or-renderer: workers/mesh/area.ts → app/main.ts',
  'workers-not-to-app-or-renderer: workers/mesh/area.ts → renderer/document/scene.ts',
  'workers-not-to-node: workers/math/solve.ts → fs',
  'workers-not-to-three-or-electron: workers/mesh/area.ts → node_modules/three/build/three.module.js',
];

test('each layer rule reports a deliberately wrong import, and type imports pass where only run time counts', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-layers-'));
  try {
    for (const [file, source] of Object.entries(WRONG_TREE)) {
      mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(dir, file), source);
    }
    // The project's packages, so 'three' resolves as in the real tree (its types to @types/three).
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    // `electron` resolves into node_modules where its package is installed (the optional download worked) and stays
    // a bare name where it is not: the rule is broken either way.
    const found = (await importViolations(dir, ['app', 'renderer', 'workers'])).map((v) =>
      v.replace(/→ node_modules\/electron\/index\.js$/, '→ electron'),
    );
    assert.deepEqual([...found].sort(), EXPECTED_VIOLATIONS, 'the wrong tree breaks every rule where it was meant to');

    const { ruleSet } = await extractDepcruiseOptions(depcruiseConfig);
    const untested = (ruleSet?.forbidden ?? []).map((rule) => rule.name).filter((name) => !found.some((v) => v.startsWith(`${name}:`)));
    assert.deepEqual(untested, [], 'every rule in .dependency-cruiser.cjs is broken once in the wrong tree');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Folders whose code runs without a DOM (web workers, Node tests, the CLI); renderer folders may not exist yet. */
const DOM_FREE_FOLDERS = [
  'workers',
  'renderer/document',
  'renderer/commands',
  'renderer/bind',
  'renderer/paint',
  'renderer/deform',
  'renderer/posespace',
  'renderer/scripting',
  'renderer/meshes',
];

async function domRule(file: string): Promise<Linter.RuleEntry | undefined> {
  const config = (await new ESLint({ cwd: repoRoot }).calculateConfigForFile(file)) as Linter.Config;
  return config.rules?.['no-restricted-globals'];
}

/** ESLint with only the project's no-restricted-globals setting for `file` (no type information needed). */
async function domLinter(file: string): Promise<ESLint> {
  const rule = await domRule(file);
  assert.ok(rule, `eslint.config.js restricts DOM globals in ${file}`);
  return new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-globals': rule } }],
  });
}

test('eslint.config.js forbids DOM globals where there is no DOM, and only there', async () => {
  const linter = await domLinter('workers/mesh/area.ts');
  const sample = [
    `export function area(canvas: unknown): number {`,
    `  document.title = 'x';`,
    `  requestAnimationFrame(() => window.scrollTo(0, 0));`,
    `  if (!(canvas instanceof HTMLElement)) return 0;`,
    `  return navigator.hardwareConcurrency + localStorage.length + canvas.clientWidth;`,
    `}`,
    `export const ok = performance.now() + new TextEncoder().encode('x').length;`,
  ].join('\n');
  const [result] = await linter.lintText(sample, { filePath: path.join(repoRoot, 'workers/mesh/area.ts') });
  const flagged = result.messages.map((m) => `${m.ruleId}: ${m.line}:${m.column}`);
  assert.deepEqual(flagged, [
    'no-restricted-globals: 2:3',
    'no-restricted-globals: 3:3',
    'no-restricted-globals: 3:31',
    'no-restricted-globals: 4:27',
    'no-restricted-globals: 5:10',
    'no-restricted-globals: 5:42',
  ]);

  for (const folder of DOM_FREE_FOLDERS) assert.deepEqual(await domRule(`${folder}/x.ts`), await domRule('workers/mesh/area.ts'), folder);
  for (const folder of ['renderer/panels', 'renderer/view', 'renderer/tools', 'renderer/shell', 'renderer/io', 'app', 'test/unit']) {
    assert.equal(await domRule(`${folder}/x.ts`), undefined, folder);
  }
});

test('workers/ and the DOM-free renderer folders use no DOM globals', async () => {
  const linter = await domLinter('workers/mesh/area.ts');
  const folders = DOM_FREE_FOLDERS.filter((folder) => existsSync(path.join(repoRoot, folder)));
  const results = await linter.lintFiles(folders.map((folder) => `${folder}/**/*.ts`));
  const found = results.flatMap((r) => r.messages.map((m) => `${path.relative(repoRoot, r.filePath)}:${m.line}: ${m.message}`));
  assert.deepEqual(found, []);
});
