/**
 * The layer rules of DESIGN.md, checked on every file's import specifiers:
 * workers/ imports nothing from app/, renderer/, three, electron or node:*, and touches no DOM;
 * renderer/ imports no node:* (and from app/ only the IPC contract's types); app/ imports no three and nothing
 * from renderer/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every module specifier in static imports, re-exports and dynamic imports. */
export function importSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:\bimport\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?|\bexport\s+[^'";]*?\s+from\s+|\bimport\s*\(\s*)['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1]);
  return specifiers;
}

function resolvesInto(file: string, specifier: string, folder: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = path.resolve(path.dirname(file), specifier);
  return target.startsWith(path.join(repoRoot, folder) + path.sep);
}

interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

function violations(layer: string, rule: (file: string, specifier: string) => string | null): Violation[] {
  const found: Violation[] = [];
  for (const file of sourceFiles(path.join(repoRoot, layer))) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      const broken = rule(file, specifier);
      if (broken) found.push({ file: path.relative(repoRoot, file), specifier, rule: broken });
    }
  }
  return found;
}

const isNodeBuiltin = (s: string) =>
  s.startsWith('node:') || ['fs', 'path', 'os', 'child_process', 'url', 'util', 'worker_threads'].includes(s);
const isThree = (s: string) => s === 'three' || s.startsWith('three/');

test('the import scanner sees static, type, re-export and dynamic imports', () => {
  const sample = `import a from 'a';\nimport type { B } from "./b.ts";\nexport { c } from '../c.ts';\nconst d = await import('node:fs');\nimport 'side-effect';`;
  assert.deepEqual(importSpecifiers(sample), ['a', './b.ts', '../c.ts', 'node:fs', 'side-effect']);
});

test('workers/ is pure: no app, renderer, three, electron, node:* or DOM', () => {
  const found = violations('workers', (file, s) => {
    if (isNodeBuiltin(s)) return 'node built-in';
    if (isThree(s)) return 'three';
    if (s === 'electron') return 'electron';
    if (resolvesInto(file, s, 'app') || resolvesInto(file, s, 'renderer')) return 'app/renderer';
    return null;
  });
  assert.deepEqual(found, []);
  const domUse: string[] = [];
  for (const file of sourceFiles(path.join(repoRoot, 'workers'))) {
    const text = readFileSync(file, 'utf8');
    if (/\b(document|window)\.|\bHTMLElement\b/.test(text)) domUse.push(path.relative(repoRoot, file));
  }
  assert.deepEqual(domUse, []);
});

test('renderer/ imports no node:* and from app/ only the IPC contract', () => {
  const found = violations('renderer', (file, s) => {
    if (isNodeBuiltin(s)) return 'node built-in';
    if (s === 'electron') return 'electron';
    if (resolvesInto(file, s, 'app') && !s.endsWith('ipc-contract.ts')) return 'app/ (only ipc-contract.ts allowed)';
    return null;
  });
  assert.deepEqual(found, []);
});

test('app/ imports no three and nothing from renderer/', () => {
  const found = violations('app', (file, s) => {
    if (isThree(s)) return 'three';
    if (resolvesInto(file, s, 'renderer')) return 'renderer/';
    return null;
  });
  assert.deepEqual(found, []);
});
