/**
 * `npm start` (app/start.mjs) where Electron's optional download failed: the launcher is copied into a scratch
 * project whose `electron` package is missing, throws as it does without its binary, or names a binary that is not
 * there; each time it says so in one line naming `npm run web`, exits with 1 and does not build. With a stand-in
 * binary it builds, runs the binary on the project with the arguments given, and exits with the binary's status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const launcher = path.join(repoRoot, 'app', 'start.mjs');
const MESSAGE =
  "npm start: Electron's binary is not installed (its optional download failed during npm install); run the same app in the browser with `npm run web`";

/**
 * A scratch project with the launcher in app/, a build script that leaves built.txt, and `electron` as given.
 * @param electronMain  the `electron` package's index.js, or null for no package
 * @returns the project folder
 */
function project(electronMain: string | null): string {
  const root = mkdtempSync(path.join(tmpdir(), 'rigwright-start-'));
  mkdirSync(path.join(root, 'app'));
  copyFileSync(launcher, path.join(root, 'app', 'start.mjs'));
  const build = `node -e "require('fs').writeFileSync('built.txt', '')"`;
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module', scripts: { build } }));
  if (electronMain !== null) {
    const electron = path.join(root, 'node_modules', 'electron');
    mkdirSync(electron, { recursive: true });
    writeFileSync(path.join(electron, 'package.json'), JSON.stringify({ name: 'electron', main: 'index.js' }));
    writeFileSync(path.join(electron, 'index.js'), electronMain);
  }
  return root;
}

function start(root: string, args: string[] = []) {
  return spawnSync(process.execPath, [path.join(root, 'app', 'start.mjs'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

test('npm start is the launcher', () => {
  const scripts = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.start, 'node app/start.mjs');
});

for (const [what, electronMain] of [
  ['no electron package', null],
  ['a package without its binary (its main module throws)', "throw new Error('Electron failed to install correctly');"],
  ['a package naming a binary that is not there', "module.exports = require('path').join(__dirname, 'dist', 'electron');"],
] as const) {
  test(`npm start with ${what}: one line naming npm run web, exit status 1, nothing built`, (t) => {
    const root = project(electronMain);
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const run = start(root);
    assert.equal(run.status, 1, `exit status (stderr: ${run.stderr})`);
    assert.equal(run.stderr, `${MESSAGE}\n`, 'stderr is the one line');
    assert.equal(run.stdout, '', 'nothing on stdout');
    assert.ok(!existsSync(path.join(root, 'built.txt')), 'the app is not built when Electron cannot run it');
  });
}

test('npm start with a binary: builds, runs it on the project with the arguments, exits with its status', (t) => {
  const root = project("module.exports = require('path').join(__dirname, 'dist', 'electron');");
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const binary = path.join(root, 'node_modules', 'electron', 'dist', 'electron');
  mkdirSync(path.dirname(binary));
  writeFileSync(binary, `#!/bin/sh\nprintf '%s|' "$PWD" "$@" > ran.txt\nexit 3\n`);
  chmodSync(binary, 0o755);
  const run = start(root, ['--trace-warnings']);
  assert.equal(run.status, 3, `the binary's exit status (stderr: ${run.stderr})`);
  assert.ok(existsSync(path.join(root, 'built.txt')), 'built before running');
  assert.equal(
    readFileSync(path.join(root, 'ran.txt'), 'utf8'),
    `${root}|.|--trace-warnings|`,
    'run in the project on "." with the arguments',
  );
  assert.ok(!run.stderr.includes('npm run web'), `no missing-binary message: ${run.stderr}`);
});
