// ESLint for the whole tree: typescript-eslint with type information (each file is checked with the nearest
// tsconfig.json, so workers/ gets workers/tsconfig.json and its no-DOM lib), then eslint-config-prettier last so
// no rule argues with the formatter. Layer and cycle rules between folders live in .dependency-cruiser.cjs.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Browser globals that code without a DOM must not use: workers/ (which also runs in Node tests and the CLI) and
 * the renderer's document, commands and controllers (which run in Node tests). These are value uses
 * (`document.title`, `x instanceof HTMLElement`); a DOM type in a type position is erased and not flagged, and
 * workers/tsconfig.json has no DOM types at all. What Node and web workers share (performance, TextEncoder,
 * EventTarget and Event, setTimeout, console) stays allowed.
 */
const DOM_GLOBALS = [
  'document',
  'window',
  'navigator',
  'location',
  'history',
  'localStorage',
  'sessionStorage',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'getComputedStyle',
  'matchMedia',
  'alert',
  'confirm',
  'prompt',
  'Element',
  'HTMLElement',
  'HTMLCanvasElement',
  'HTMLInputElement',
  'Image',
  'DOMParser',
].map((name) => ({ name, message: `${name} is DOM: this folder runs without a DOM (workers, Node tests, the CLI).` }));

export default defineConfig([
  globalIgnores(['dist/', 'release/', 'node_modules/', 'test-results/', 'playwright-report/', 'test/e2e/artifacts/', '.bench/']),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      // Off: it flags async functions without await, which here are stand-ins and fakes that implement a
      // Promise-returning interface; `async` is their contract, and the rule finds no bug in them.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      // `import { type A }` alone still loads its module under verbatimModuleSyntax; `import type` does not.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },

  // Plain JavaScript (build script, CLI launcher, these configs) is outside every tsconfig: no type-aware rules.
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  // Electron is an optional dependency, so main and preload `require('electron')` and type it through
  // app/electron-api.ts instead of importing the package's own types (see that file).
  {
    files: ['app/**'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allow: ['^electron$'] }] },
  },

  // Code that runs without a DOM.
  {
    files: [
      'workers/**',
      'renderer/document/**',
      'renderer/commands/**',
      'renderer/bind/**',
      'renderer/paint/**',
      'renderer/deform/**',
      'renderer/posespace/**',
      'renderer/scripting/**',
      'renderer/meshes/**',
    ],
    rules: { 'no-restricted-globals': ['error', ...DOM_GLOBALS] },
  },

  // A failing assert.ok(x) (or assert(x)) without a message makes Node read the test's source to describe the
  // expression; under tsx that source is TypeScript at positions of the compiled code, and the search can take
  // minutes, so a regression shows as a hang. The message says what was expected instead.
  {
    files: ['test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "CallExpression[callee.name='assert'][arguments.length<2]",
          "CallExpression[callee.object.name='assert'][callee.property.name=/^(ok|strict)$/][arguments.length<2]",
          "CallExpression[callee.object.object.name='assert'][callee.object.property.name='strict'][callee.property.name='ok'][arguments.length<2]",
        ].map((selector) => ({
          selector,
          message: 'assert.ok needs a message saying what was expected (without one, a failure makes Node re-read the source).',
        })),
      ],
    },
  },

  // page.evaluate code reaches into the page's untyped test hook, `(window as any).__rigwright`, and works with
  // what it returns.
  {
    files: ['test/e2e/**', 'test/bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  prettier,
]);
