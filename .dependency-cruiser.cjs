/**
 * Layer rules of DESIGN.md, checked by `npm run lint` (depcruise) and test/unit/layers.test.ts.
 *
 * Top level: workers/ is pure computation (no app/, renderer/, three, electron, node:*); renderer/ is the page
 * (no node:*, no electron, from app/ only RENDERER_MAY_IMPORT_FROM_APP); app/ is the Node side (no three, no
 * renderer/, but for the CLI's use of the command layer: CLI_MAY_IMPORT_FROM_RENDERER). Inside renderer/: shell → panels, tools → controllers (bind, paint, deform, posespace, scripting, meshes),
 * view → document → workers/ (the scene model itself, its store and undo history, is workers/scene/); only shell/ wires
 * things together. No cycles anywhere.
 *
 * "At run time" rules let `import type` through: a type import is erased, so it loads nothing. An import with
 * only inline `type` specifiers (`import { type A } from …`) is kept as `import {} from …` under
 * verbatimModuleSyntax and does load the module, so it counts as a run-time import.
 *
 * DOM use (document, window, HTMLElement …) is not an import; ESLint checks it (no-restricted-globals in
 * eslint.config.js) for workers/ and the renderer's DOM-free folders.
 */

/** The app/ modules the renderer may import: pure data and types shared with main, nothing that needs Node. */
const RENDERER_MAY_IMPORT_FROM_APP = ['app/ipc-contract.ts'];

/**
 * The renderer folders the command-line tool may import: the command layer (catalog, schemas, registry) and the
 * scripting controllers, both DOM-free (ESLint checks them), so `rigwright run` runs a script's commands through the
 * very registry, argument checks and handlers the app does.
 */
const CLI_MAY_IMPORT_FROM_RENDERER = '^renderer/(commands|scripting)/';

const THREE = '^(node_modules/)?(@types/)?three(-mesh-bvh)?(/|$)';
const ELECTRON = '^(node_modules/)?electron(/|$)';
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** renderer/ folders by role (a folder that does not exist yet matches nothing). */
const CONTROLLERS = 'renderer/(bind|paint|deform|posespace|scripting|meshes)/';
/** The page's code without a DOM: runs in Node tests. */
const DOM_FREE = 'renderer/(document|commands|bind|paint|deform|posespace|scripting|meshes)/';

module.exports = {
  forbidden: [
    // ---- top level ----
    {
      name: 'workers-not-to-app-or-renderer',
      comment: 'workers/ is pure computation shared by the page, the CLI and Node tests: it imports nothing from app/ or renderer/.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^(app|renderer)/' },
    },
    {
      name: 'workers-not-to-three-or-electron',
      comment: 'workers/ runs in web workers, Node tests and the CLI: no three, no electron.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: [THREE, ELECTRON] },
    },
    {
      name: 'workers-not-to-node',
      comment: 'workers/ also runs in web workers: no node:* or other Node built-ins.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-not-to-electron',
      comment: 'renderer/ is a web page (also served without Electron): it reaches main through the preload bridge, not electron.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: ELECTRON },
    },
    {
      name: 'renderer-not-to-node',
      comment: 'renderer/ is a web page: no node:* or other Node built-ins (its Vite config runs in Node and may).',
      severity: 'error',
      from: { path: '^renderer/', pathNot: '^renderer/vite\\.config\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-to-app-only-allowed',
      comment: `renderer/ imports from app/ only ${RENDERER_MAY_IMPORT_FROM_APP.join(', ')} (RENDERER_MAY_IMPORT_FROM_APP in .dependency-cruiser.cjs).`,
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^app/', pathNot: RENDERER_MAY_IMPORT_FROM_APP.map((file) => `^${escapeRegExp(file)}$`) },
    },
    {
      name: 'app-not-to-three',
      comment: 'app/ (Electron main, preload, CLI) draws nothing: no three.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: THREE },
    },
    {
      name: 'app-not-to-renderer',
      comment: 'app/ may use workers/ (pure code) but never renderer/, except the CLI its command layer (CLI_MAY_IMPORT_FROM_RENDERER).',
      severity: 'error',
      from: { path: '^app/', pathNot: '^app/cli/' },
      to: { path: '^renderer/' },
    },
    {
      name: 'cli-to-renderer-command-layer-only',
      comment:
        'the command-line tool imports from renderer/ only its command layer and scripting controllers (CLI_MAY_IMPORT_FROM_RENDERER).',
      severity: 'error',
      from: { path: '^app/cli/' },
      to: { path: '^renderer/', pathNot: CLI_MAY_IMPORT_FROM_RENDERER },
    },

    // ---- inside renderer/ ----
    {
      name: 'renderer-shell-only-from-main',
      comment: 'Only shell/ wires things together: nothing imports shell/ except renderer/main.ts (and shell/ itself).',
      severity: 'error',
      from: { path: '^renderer/', pathNot: '^renderer/(main\\.ts$|shell/)' },
      to: { path: '^renderer/shell/' },
    },
    {
      name: 'renderer-panels-not-to-three',
      comment: 'panels/ is DOM only: no three at run time (type imports are fine).',
      severity: 'error',
      from: { path: '^renderer/panels/' },
      to: { path: THREE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-panels-not-to-workers',
      comment: 'panels/ is DOM only: no workers/ code at run time (type imports are fine); computation goes through controllers and io/.',
      severity: 'error',
      from: { path: '^renderer/panels/' },
      to: { path: '^workers/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-panels-not-to-view',
      comment: 'panels/ is DOM only: view/ is three.js objects, so no view/ at run time (type imports are fine).',
      severity: 'error',
      from: { path: '^renderer/panels/' },
      to: { path: '^renderer/view/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'renderer-tools-not-to-panels',
      comment: 'tools/ never import panels/: a tool changes the scene through controllers and commands; shell/ connects panels.',
      severity: 'error',
      from: { path: '^renderer/tools/' },
      to: { path: '^renderer/panels/' },
    },
    {
      name: 'renderer-dom-free-not-to-ui',
      comment:
        'document/, commands/ and the controllers run without a DOM (Node tests): they import no panels/ or tools/, which are DOM and pointer code.',
      severity: 'error',
      from: { path: `^${DOM_FREE}` },
      to: { path: '^renderer/(panels|tools)/' },
    },
    {
      name: 'renderer-document-below-controllers',
      comment: 'Import direction controllers, view → document: document/ imports none of them.',
      severity: 'error',
      from: { path: '^renderer/document/' },
      to: { path: `^(${CONTROLLERS}|renderer/view/)` },
    },
    {
      name: 'renderer-controllers-not-to-view',
      comment:
        'Controllers (renderer/**/*-controller.ts) and all of deform/ are state and workflow without three.js: they import neither three nor view/, not even types; they are given narrow view interfaces (e.g. PaintViews, DeformationViews) that view/ implements.',
      severity: 'error',
      from: { path: ['^renderer/.+-controller\\.ts$', '^renderer/deform/'] },
      to: { path: [THREE, '^renderer/view/'] },
    },
    {
      name: 'renderer-view-not-to-ui',
      comment: 'view/ is three.js objects below tools and panels: it imports neither.',
      severity: 'error',
      from: { path: '^renderer/view/' },
      to: { path: '^renderer/(panels|tools)/' },
    },
    {
      name: 'renderer-command-catalog-not-to-controllers',
      comment:
        'The command catalog is data that menus, keys, preferences and scripts read: it imports no controller, not even a type, so what reads it is never tied to one. The choices it shares with a controller live in import-free modules (bind/handle-sources.ts, skeleton/template-kinds.ts, paint/brush-options.ts).',
      severity: 'error',
      from: { path: '^renderer/commands/command-catalog\\.ts$' },
      to: { path: '^renderer/.*-controller\\.ts$' },
    },

    // ---- everywhere ----
    {
      name: 'no-circular',
      comment:
        'No import cycles: a cycle means two modules are one, or one is in the wrong folder. Outside renderer/ a type import breaks a cycle (it loads nothing); inside it, renderer-no-circular-types refuses those too.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'renderer-no-circular-types',
      comment:
        'No import cycles inside renderer/, type-only ones included: a module that names the App (or any module that imports it back) is tied to all of it; it declares the narrow interface it needs instead.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^renderer/', circular: true },
    },
  ],

  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|release|test-results|playwright-report|test/e2e/artifacts|\\.bench)/' },
    moduleSystems: ['es6', 'cjs'],
    // Sees `import type` as well as run-time imports, and tells them apart (dependencyTypes 'type-only').
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
