/**
 * A short fuzz run as part of the unit tests: 300 mutated inputs per format made from the shared data (fixed seed,
 * so the same inputs every run), each read in a worker thread under a time limit. Every input must end in a result
 * whose data is finite and in range with rotations that are rotations, or in a clear error (a FormatError whose
 * message is one printable line of at most 400 characters naming the file and a place, without engine-internal
 * wording); a text with `\r` or `\r\n` line ends reads as it does with `\n`, and a glTF naming a resource outside
 * its folder is refused naming the URI. The table of how the inputs ended is printed; `npm run fuzz` runs longer.
 * The harness's checks themselves are tested in fuzz-outcome.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FUZZ_FORMATS, loadSeeds } from '../fuzz/corpus.ts';
import { formatFailure, formatReport, makeInput, runFuzz } from '../fuzz/harness.ts';
import { runOne } from '../fuzz/outcome.ts';
import { PROJECT_FORMAT_VERSION, readProjectFile } from '../../workers/formats/project-file.ts';

const INPUTS_PER_FORMAT = 300;

test(`fuzz: ${INPUTS_PER_FORMAT} mutated inputs per format end in a sound result or a clear error`, async () => {
  const seeds = await loadSeeds();
  const formats = FUZZ_FORMATS.filter((format) => seeds.some((s) => s.format === format));
  // Every format Rigwright reads has real files to start from (the project file once its fixture exists).
  for (const format of ['obj', 'mtl', 'off', 'tgf', 'dmat-ascii', 'dmat-binary', 'glb', 'gltf'] as const)
    assert.ok(formats.includes(format), format);
  const report = await runFuzz({ count: INPUTS_PER_FORMAT, formats, seed: 15, timeoutMs: 20000 });
  process.stdout.write(`${formatReport(report)}\n`);
  for (const [format, tally] of report.counts) {
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, INPUTS_PER_FORMAT, `${format}: every input ended somehow`);
    // Both kinds of ending occur: the mutations leave some files readable and break others.
    assert.ok((tally.get('result') ?? 0) > 0, `${format}: no input was read as a result`);
    assert.ok((tally.get('clear error') ?? 0) > 0, `${format}: no input was refused`);
  }
  assert.deepEqual(report.failures.map(formatFailure), [], 'inputs that ended otherwise than in a result or a clear error');
});

test('fuzz: an input past the time limit is one hang, and the worker started after it reads the next input', async () => {
  // Input 1 keeps its worker busy (as a reader stuck in a loop) far past the limit; inputs 0 and 2 are plain TGF files.
  const report = await runFuzz({
    count: 3,
    formats: ['tgf'],
    seed: 15,
    timeoutMs: 2000,
    stallMs: (_, index) => (index === 1 ? 600000 : 0),
  });
  const tally = report.counts.get('tgf');
  assert.ok(tally, 'the TGF inputs were counted');
  assert.equal(tally.get('hang'), 1, 'the stalled input is a hang');
  assert.equal(tally.get('crash') ?? 0, 0, 'the terminated worker ended no other input');
  assert.deepEqual(
    report.failures.map((f) => [f.index, f.outcome.kind]),
    [[1, 'hang']],
    'only the stalled input failed; the one after it ended in a result or a clear error',
  );
});

test('fuzz: the project file of the current format is a seed, and its mutants reach the examples section', async () => {
  const seeds = (await loadSeeds()).filter((s) => s.format === 'project');
  const current = seeds.find((s) => s.name === `project-v${PROJECT_FORMAT_VERSION}.rig.glb`);
  assert.ok(current, 'a project seed of the current format');
  // The seed itself: the fixture's mesh and skeleton with two examples sized for them, the second hidden.
  const read = readProjectFile(current.bytes, current.name);
  assert.equal(read.formatVersion, PROJECT_FORMAT_VERSION);
  const vertexCount = read.scene.mesh.positions.length / 3;
  const boneCount = read.scene.skeleton.parents.length;
  assert.deepEqual(
    read.scene.examples.map((e) => [e.name, e.positions.length, e.pose.length, e.hidden]),
    [
      ['bent', 3 * vertexCount, 9 * boneCount, false],
      ['raised', 3 * vertexCount, 9 * boneCount, true],
    ],
  );
  assert.deepEqual((await runOne('project', current.name, current.bytes, undefined, undefined)).kind, 'result');
  // Mutants: some refused for a fault inside the examples section, with the place named; some still read.
  const places = new Set<string>();
  let results = 0;
  // Three project seeds share the inputs (format 1, the current format, the asset sections).
  for (let i = 0; i < 450; i++) {
    const { input, job } = makeInput(15, 'project', i);
    if (input.name !== current.name) continue;
    const outcome = await runOne('project', job.name, job.bytes, undefined, undefined);
    if (outcome.kind === 'result') results++;
    const place = /RIGWRIGHT_project\.examples(\[\d+\])?(\.\w+)?/.exec(outcome.detail);
    if (outcome.kind === 'clear error' && place) places.add(place[0].replace(/\[\d+\]/, '[i]'));
  }
  assert.ok(results > 0, 'no mutant of the current format was read');
  for (const place of ['examples', 'examples[i].positions', 'examples[i].pose', 'examples[i].name', 'examples[i].hidden'])
    assert.ok(places.has(`RIGWRIGHT_project.${place}`), `no mutant refused at ${place} (${[...places].join(', ')})`);
});
