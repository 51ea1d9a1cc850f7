/**
 * A kill at any moment never leaves a partial file. Two writers are killed with SIGKILL at random moments, 100 times
 * each, over an existing complete output: `rigwright export` (the CLI as users run it, on the shared arm rig) and the
 * Electron main process's Save handler (app/save-file.ts, bundled by esbuild as app/build.mjs bundles main, run in a
 * plain Node process). After every kill the target must be byte for byte the complete old file or the complete new
 * one, and it is parsed by the app's glTF importer to the expected rig (the two reference files also pass the Khronos
 * validator). The kill moments: a third uniformly over the whole run, two thirds within a short window after the
 * writer creates its temporary file (seen with fs.watch), so that many kills land while the file is being written,
 * flushed and renamed. Prints how many runs ended with the old file, the new one, and how many temporaries stayed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { seededRandom } from './seeded-random.ts';
import { armRigOptions, repoRoot } from './shared-data.ts';

const KILLS = 100;
/** Writers killed side by side (each into its own folder): the runs are mostly process start-up. */
const PARALLEL = 4;

// Kept inside the repository's disk (not a tmpfs /tmp) so fsync and rename are real; removed at the end.
const work = mkdtempSync(path.join(repoRoot, 'test-results-kill-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const arm = armRigOptions();

interface Writer {
  /** the command line that writes the new file over `target` */
  command(target: string): { file: string; args: string[] };
  /** the longest whole run seen, in ms (from calibration) */
  runMs: number;
  /** from the temporary file's creation to the writer's exit, in ms (from calibration) */
  writeMs: number;
}

/** Starts `writer`, kills it at the chosen moment (or lets it finish), resolves when it is gone. */
function runAndKill(writer: Writer, folder: string, target: string, killAt: { afterTemporaryMs: number } | { afterStartMs: number }) {
  return new Promise<{ killed: boolean }>((resolve, reject) => {
    const { file, args } = writer.command(target);
    const child = spawn(file, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timer: NodeJS.Timeout | undefined;
    const kill = () => child.kill('SIGKILL');
    const watcher = watch(folder, (_event, name) => {
      if ('afterTemporaryMs' in killAt && name?.endsWith('.tmp') && timer === undefined) timer = setTimeout(kill, killAt.afterTemporaryMs);
    });
    if ('afterStartMs' in killAt) timer = setTimeout(kill, killAt.afterStartMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      watcher.close();
      if (code !== null && code !== 0) reject(new Error(`writer failed (exit ${code}): ${stderr}`));
      else resolve({ killed: signal === 'SIGKILL' });
    });
  });
}

/** One uncut run, timing the whole run and the part after the temporary file appears. */
async function calibrate(writer: Omit<Writer, 'runMs' | 'writeMs'>, folder: string, target: string): Promise<Writer> {
  const { file, args } = writer.command(target);
  const start = performance.now();
  let temporaryAt = NaN;
  const watcher = watch(folder, (_event, name) => {
    if (name?.endsWith('.tmp') && Number.isNaN(temporaryAt)) temporaryAt = performance.now();
  });
  const child = spawn(file, args, { cwd: repoRoot, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  watcher.close();
  const end = performance.now();
  assert.equal(code, 0, 'the writer runs to the end when not killed');
  assert.ok(!Number.isNaN(temporaryAt), 'the writer makes a temporary file');
  return { ...writer, runMs: end - start, writeMs: Math.max(1, end - temporaryAt) };
}

interface Tally {
  old: number;
  new: number;
  killed: number;
  finished: number;
  temporariesLeft: number;
}

/**
 * Kills `writer` KILLS times over a target holding `oldBytes` and checks each outcome.
 * @param parse  parses the target as the app would, and checks the rig it holds (throws otherwise)
 */
async function killRepeatedly(
  label: string,
  writer: Omit<Writer, 'runMs' | 'writeMs'>,
  oldBytes: Uint8Array,
  newBytes: Uint8Array,
  parse: (bytes: Uint8Array, which: 'old' | 'new') => Promise<void>,
): Promise<Tally> {
  const random = seededRandom(label === 'export' ? 15 : 16);
  const slots = Array.from({ length: PARALLEL }, (_, i) => {
    const folder = path.join(work, `${label}-${i}`);
    mkdirSync(folder);
    return { folder, target: path.join(folder, 'rig.glb') };
  });
  // Calibration: one uncut run per slot side by side, as the trials run; the medians set the kill windows.
  const runs = await Promise.all(
    slots.map(({ folder, target }) => {
      writeFileSync(target, oldBytes);
      return calibrate(writer, folder, target);
    }),
  );
  for (const { target } of slots) assert.deepEqual(new Uint8Array(readFileSync(target)), newBytes, 'an uncut run writes the new file');
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const calibrated: Writer = { ...writer, runMs: median(runs.map((r) => r.runMs)), writeMs: median(runs.map((r) => r.writeMs)) };

  const tally: Tally = { old: 0, new: 0, killed: 0, finished: 0, temporariesLeft: 0 };
  let next = 0;
  await Promise.all(
    slots.map(async ({ folder, target }) => {
      while (next < KILLS) {
        const trial = next++;
        for (const name of readdirSync(folder)) rmSync(path.join(folder, name));
        writeFileSync(target, oldBytes);
        const killAt =
          random() < 1 / 3 ? { afterStartMs: random() * calibrated.runMs } : { afterTemporaryMs: random() * calibrated.writeMs };
        const outcome = await runAndKill(calibrated, folder, target, killAt);
        if (outcome.killed) tally.killed++;
        else tally.finished++;
        const names = readdirSync(folder);
        const temporaries = names.filter((n) => n !== 'rig.glb');
        assert.ok(
          temporaries.every((n) => /^\.rig\.glb\.\d+-[0-9a-f]+\.tmp$/.test(n)),
          `trial ${trial}: unexpected files ${temporaries.join(', ')}`,
        );
        tally.temporariesLeft += temporaries.length;
        assert.ok(names.includes('rig.glb'), `trial ${trial}: the target is gone`);
        const bytes = new Uint8Array(readFileSync(target));
        const which = Buffer.compare(bytes, oldBytes) === 0 ? 'old' : Buffer.compare(bytes, newBytes) === 0 ? 'new' : 'partial';
        assert.notEqual(which, 'partial', `trial ${trial} (${JSON.stringify(killAt)}): ${bytes.byteLength} bytes, neither old nor new`);
        await parse(bytes, which as 'old' | 'new');
        tally[which as 'old' | 'new']++;
      }
    }),
  );
  console.log(
    `${label}: ${KILLS} runs (whole run ${calibrated.runMs.toFixed(0)} ms, temporary file to exit ${calibrated.writeMs.toFixed(1)} ms): ` +
      `${tally.killed} killed, ${tally.finished} finished; target old ${tally.old}, new ${tally.new}, partial 0; ` +
      `temporary files left by kills ${tally.temporariesLeft}`,
  );
  return tally;
}

/**
 * The kills were not all too early or too late: some ended before the rename (old file), some after (new file), and
 * some while the temporary file was being written (it stays behind, the target is whole).
 */
function assertKillsSpanTheWrite(tally: Tally): void {
  assert.ok(tally.killed >= KILLS / 4, `only ${tally.killed} of ${KILLS} runs were killed`);
  assert.ok(tally.old > 0 && tally.new > 0, 'kills landed both before and after the rename');
  assert.ok(tally.temporariesLeft > 0, 'no kill landed while the temporary file was being written');
}

function exportTo(target: string, ...options: string[]): Uint8Array {
  const run = spawnSync(process.execPath, ['app/cli/rigwright.mjs', 'export', ...arm, ...options, '--out', target], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return new Uint8Array(readFileSync(target));
}

const references = (async () => {
  const folder = path.join(work, 'references');
  mkdirSync(folder);
  // A clip for the new file: the arm's 4 bones × 2 frames of rotations about y, as a DMAT (3 columns, 3·B·L rows,
  // column-major).
  const rotations: string[] = [];
  const rows: number[][] = [];
  for (let f = 0; f < 2; f++) {
    for (let b = 0; b < 4; b++) {
      const a = 0.3 * (f + 1) * (b + 1);
      rows.push([Math.cos(a), 0, Math.sin(a)], [0, 1, 0], [-Math.sin(a), 0, Math.cos(a)]);
    }
  }
  rotations.push(`3 ${rows.length}`);
  for (let c = 0; c < 3; c++) for (const row of rows) rotations.push(String(row[c]));
  const poses = path.join(folder, 'wave.dmat');
  writeFileSync(poses, `${rotations.join('\n')}\n`);
  const oldBytes = exportTo(path.join(folder, 'old.glb'), '--weight-type', 'float');
  const newBytes = exportTo(path.join(folder, 'new.glb'), '--weight-type', 'unsigned-short', '--poses', poses);
  await assertValidGltf(oldBytes, 'old.glb');
  await assertValidGltf(newBytes, 'new.glb');
  return { oldBytes, newBytes, poses };
})();

/** The importer reads the target to the arm rig: 8311 vertices, 4 bones, and the clip only the new file has. */
async function parseArm(bytes: Uint8Array, which: 'old' | 'new'): Promise<void> {
  const rig = await importGltf(bytes, 'rig.glb');
  assert.equal(rig.mesh.positions.length / 3, 8311);
  assert.equal(rig.skeleton.parents.length, 4);
  assert.equal(rig.clips.length, which === 'new' ? 1 : 0);
}

test(`rigwright export killed ${KILLS} times at random moments: the target is always the whole old or the whole new file`, async () => {
  const { oldBytes, newBytes, poses } = await references;
  const writer = {
    command: (target: string) => ({
      file: process.execPath,
      args: ['app/cli/rigwright.mjs', 'export', ...arm, '--weight-type', 'unsigned-short', '--poses', poses, '--out', target],
    }),
  };
  const tally = await killRepeatedly('export', writer, oldBytes, newBytes, parseArm);
  assert.equal(tally.old + tally.new, KILLS);
  assertKillsSpanTheWrite(tally);
});

test(`the app's Save handler killed ${KILLS} times at random moments: the target is always the whole old or the whole new file`, async () => {
  const { oldBytes, newBytes } = await references;
  // The handler as the main process runs it: validate the page's request, then the atomic write to the chosen path.
  const entry = path.join(work, 'app-save-entry.ts');
  writeFileSync(
    entry,
    `import { readFileSync } from 'node:fs';
import { saveRequestedFile } from ${JSON.stringify(path.join(repoRoot, 'app/save-file.ts'))};
const [source, target] = process.argv.slice(2);
const bytes = new Uint8Array(readFileSync(source));
await saveRequestedFile({ suggestedName: 'rig.glb', bytes }, async () => target);
`,
  );
  const bundle = path.join(work, 'app-save.mjs');
  await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', logLevel: 'error' });
  const source = path.join(work, 'references', 'new.glb');
  const writer = { command: (target: string) => ({ file: process.execPath, args: [bundle, source, target] }) };
  const tally = await killRepeatedly('app save', writer, oldBytes, newBytes, parseArm);
  assert.equal(tally.old + tally.new, KILLS);
  assertKillsSpanTheWrite(tally);
});
