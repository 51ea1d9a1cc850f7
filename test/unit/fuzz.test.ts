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
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { parseGlb } from '../../workers/formats/gltf/glb.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { dataFile } from './shared-data.ts';

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

test('fuzz: the quantized RiggedFigure seed holds normalized vertex data of four component types and imports as RiggedFigure does within a step', async () => {
  const seeds = await loadSeeds();
  const glb = seeds.find((s) => s.name === 'RiggedFigure-quantized.glb');
  const gltf = seeds.find((s) => s.name === 'RiggedFigure-quantized.gltf');
  assert.ok(glb && glb.format === 'glb', 'a GLB seed of the quantized RiggedFigure');
  assert.ok(gltf && gltf.format === 'gltf' && gltf.resources, 'a .gltf seed of it with its .bin');
  const json = JSON.parse(new TextDecoder().decode(parseGlb(glb.bytes, glb.name).jsonBytes)) as {
    extensionsRequired?: string[];
    accessors: { componentType: number; normalized?: boolean }[];
    meshes: { primitives: { attributes: Record<string, number> }[] }[];
  };
  assert.ok(json.extensionsRequired?.includes('KHR_mesh_quantization'), 'KHR_mesh_quantization is required');
  const attributes = json.meshes[0].primitives[0].attributes;
  // glTF 2.0 component types: 5120 byte, 5121 unsigned byte, 5122 short, 5123 unsigned short.
  const stored = Object.fromEntries(
    ['POSITION', 'NORMAL', 'TEXCOORD_0', 'WEIGHTS_0'].map((s) => [
      s,
      [json.accessors[attributes[s]].componentType, json.accessors[attributes[s]].normalized],
    ]),
  );
  assert.deepEqual(
    stored,
    { POSITION: [5122, true], NORMAL: [5120, true], TEXCOORD_0: [5123, true], WEIGHTS_0: [5121, true] },
    'normalized shorts, bytes, unsigned shorts and unsigned bytes',
  );
  const original = await importGltf(new Uint8Array(readFileSync(dataFile('gltf', 'RiggedFigure', 'RiggedFigure.glb'))), 'RiggedFigure.glb');
  const fromGlb = await importGltf(glb.bytes, glb.name);
  const fromGltf = await importGltf(gltf.bytes, gltf.name, gltf.resources);
  assert.deepEqual(fromGltf.mesh.positions, fromGlb.mesh.positions, 'the .gltf seed reads as the GLB seed');
  const largest = (a: Float64Array, b: Float64Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
  // Positions are stored to 1/32767 of the half side of the mesh's bounding cube, which is at most its diagonal.
  const diagonal = boundingBox(original.mesh.positions).diagonal;
  assert.ok(largest(fromGlb.mesh.positions, original.mesh.positions) <= diagonal / 32767, 'positions within a step');
  assert.ok(largest(fromGlb.skeleton.joints, original.skeleton.joints) <= diagonal * 1e-6, 'the bones stand where they did');
  assert.ok(largest(fromGlb.normals, original.normals) <= 2 / 127, 'normals within two steps of a byte');
  assert.ok(
    fromGlb.look.uvs?.every((x) => x >= 0 && x <= 1),
    'texture coordinates read, in 0 … 1',
  );
});
