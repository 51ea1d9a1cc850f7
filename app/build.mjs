// Bundles the Electron main process and the preload into CommonJS under dist/app/ (Electron loads main with
// require, and a sandboxed preload must be one self-contained CommonJS file). `electron` stays external: it
// is provided by the Electron runtime.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['electron'],
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: repoRoot,
};

await Promise.all([
  build({ ...common, entryPoints: ['app/main.ts'], outfile: 'dist/app/main.cjs' }),
  build({ ...common, entryPoints: ['app/preload.ts'], outfile: 'dist/app/preload.cjs' }),
]);
console.log('built dist/app/main.cjs and dist/app/preload.cjs');
