// `npm start`: opens the desktop app. Electron is an optional dependency, and where its binary could not be
// downloaded (an offline or locked-down `npm install`) the `electron` package is missing, or present without its
// binary. That is found before the build, and said in one line naming `npm run web`, which runs the same app as a
// web page; the exit status is then 1. Otherwise the app is built (`npm run build`) and Electron runs it with the
// arguments given after `npm start --`, and its exit status is this script's.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The path of Electron's binary, or null where its optional download failed: the `electron` package's main
 * module is that path, and it throws, or names a file that is not there, when the binary was never downloaded.
 * @returns {string | null}
 */
function electronBinary() {
  try {
    const binary = createRequire(path.join(repoRoot, 'package.json'))('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const electron = electronBinary();
if (electron === null) {
  console.error(
    "npm start: Electron's binary is not installed (its optional download failed during npm install); run the same app in the browser with `npm run web`",
  );
  process.exit(1);
}

const built = spawnSync('npm run build', { cwd: repoRoot, stdio: 'inherit', shell: true });
if (built.status !== 0) process.exit(built.status ?? 1);

const run = spawnSync(electron, ['.', ...process.argv.slice(2)], { cwd: repoRoot, stdio: 'inherit' });
if (run.error) {
  console.error(`npm start: cannot run Electron (${run.error.message}); run the same app in the browser with \`npm run web\``);
  process.exit(1);
}
process.exit(run.status ?? 1);
