/**
 * Parsing: libigl's armadillo.obj (4 MB) with our reader against three.js's OBJLoader.parse in the same process, the
 * same mesh written with a `vt` and a `vn` per vertex and every corner `v/vt/vn` (both readers keep them), and the
 * body's 394-frame animation DMAT (1.8 MB ASCII). glTF import: today's importGltf against the one of the commit
 * before the whole-asset round trip (IMPORT_REFERENCE_COMMIT), time and memory, on a production-scale asset and the
 * shared samples (gltf-import-compare.ts says how); left out, with a line saying so, where this copy of the repository
 * does not have that commit (a shallow clone, a tarball).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { dataDir, fmtMs, medianMs, printTable, repoRoot, requireFile, type BenchRow } from './bench-util.ts';
import {
  BEFORE_ROUND_TRIP,
  IMPORT_REFERENCE_COMMIT,
  importerOf,
  interleavedMedians,
  memoryMedians,
  productionScaleGlb,
  resolveCommit,
  treeAt,
} from './gltf-import-compare.ts';

const rows: BenchRow[] = [];

const armadilloFile = requireFile(path.join(dataDir, 'libigl/armadillo.obj'));
const armadilloText = readFileSync(armadilloFile, 'utf8');
let vertexCount = 0;
const ours = medianMs(() => {
  vertexCount = readObj(armadilloText, 'armadillo.obj').mesh.positions.length / 3;
});
const loader = new OBJLoader();
const three = medianMs(() => {
  loader.parse(armadilloText);
});
rows.push({
  case: `armadillo.obj (${vertexCount} vertices), text → mesh`,
  ours: fmtMs(ours),
  reference: `${fmtMs(three)} (three.js OBJLoader)`,
  ratio: (ours / three).toFixed(2),
});

const bytes = new Uint8Array(readFileSync(armadilloFile));
const oursBytes = medianMs(() => {
  readObj(new TextDecoder().decode(bytes), 'armadillo.obj');
});
rows.push({ case: 'armadillo.obj, bytes → mesh (incl. UTF-8 decode)', ours: fmtMs(oursBytes), reference: '—', ratio: '—' });

// The same mesh with texture coordinates and normals at every corner (made-up values: only the parsing is timed).
const armadillo = readObj(armadilloText, 'armadillo.obj').mesh;
const uvs = Float32Array.from({ length: 2 * vertexCount }, (_, i) => (i * 0.618) % 1);
const normals = Float64Array.from({ length: 3 * vertexCount }, (_, i) => [0.6, 0.8, 0][i % 3]);
const cornersText = writeObj(armadillo, { uvs, normals });
const oursCorners = medianMs(() => {
  readObj(cornersText, 'armadillo-vt-vn.obj');
});
const threeCorners = medianMs(() => {
  loader.parse(cornersText);
});
rows.push({
  case: 'armadillo.obj with vt and vn at every corner, text → mesh + corners',
  ours: fmtMs(oursCorners),
  reference: `${fmtMs(threeCorners)} (three.js OBJLoader)`,
  ratio: (oursCorners / threeCorners).toFixed(2),
});

const framesFile = requireFile(path.join(dataDir, 'context-aware/all_frames.dmat'));
const framesBytes = new Uint8Array(readFileSync(framesFile));
const dmatMs = medianMs(() => {
  readDmat(framesBytes, 'all_frames.dmat');
});
const naive = medianMs(() => {
  const tokens = new TextDecoder().decode(framesBytes).trim().split(/\s+/);
  const values = new Float64Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) values[i] = Number(tokens[i]);
});
rows.push({
  case: 'all_frames.dmat (33096×3 ASCII)',
  ours: fmtMs(dmatMs),
  reference: `${fmtMs(naive)} (split + Number, no checks)`,
  ratio: (dmatMs / naive).toFixed(2),
});

printTable('Parsing', rows);

// glTF import: today's tree against the reference commit's, on the same bytes.
const referenceHash = resolveCommit(IMPORT_REFERENCE_COMMIT);
if (referenceHash) await compareImports(referenceHash);
else console.log(`\n${IMPORT_REFERENCE_COMMIT} is not in this clone; \`git fetch --unshallow\` to compare`);

/** The glTF import table: today's importGltf against that of the commit `referenceHash`. */
async function compareImports(referenceHash: string): Promise<void> {
  const referenceTree = treeAt(referenceHash);
  const importers = [await importerOf(repoRoot), await importerOf(referenceTree)];
  const importedVertices = (result: unknown): number => (result as { mesh: { positions: Float64Array } }).mesh.positions.length / 3;
  const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const importRows: BenchRow[] = [];
  // BrainStem when the shared data has it (it is not one of its samples today).
  const brainStem = path.join(dataDir, 'gltf/BrainStem/BrainStem.glb');
  if (!existsSync(brainStem)) console.log(`\n(${brainStem} is not there: glTF import is compared on the other assets)`);
  const warmUp = requireFile(path.join(dataDir, 'gltf/RiggedSimple/RiggedSimple.glb'));
  const gltfFiles = [
    await productionScaleGlb(),
    await productionScaleGlb(40, 100, true),
    ...(existsSync(brainStem) ? [brainStem] : []),
    requireFile(path.join(dataDir, 'gltf/CesiumMan/CesiumMan.glb')),
    requireFile(path.join(dataDir, 'gltf/Fox/Fox.glb')),
  ];
  for (const file of gltfFiles) {
    const name = path.basename(file);
    const bytes = new Uint8Array(readFileSync(file));
    // Both must read the same mesh for the figures to compare (the reference reads only the first skin's meshes).
    const [todayVertices, referenceVertices] = await Promise.all(
      importers.map(async (importGltf) => importedVertices(await importGltf(bytes, name))),
    );
    const partial =
      todayVertices === referenceVertices ? '' : `; the reference reads ${referenceVertices} of the ${todayVertices} vertices`;
    const [todayMs, referenceMs] = await interleavedMedians(importers, bytes, name);
    const [today, reference] = memoryMedians([repoRoot, referenceTree], file, warmUp);
    const size = `${name} (${mib(bytes.length)})`;
    importRows.push(
      {
        case: `${size}: import time`,
        ours: fmtMs(todayMs),
        reference: fmtMs(referenceMs),
        ratio: (todayMs / referenceMs).toFixed(2),
        note: `interleaved medians${partial}`,
      },
      {
        case: `${size}: peak memory growth`,
        ours: mib(today.peakBytes),
        reference: mib(reference.peakBytes),
        ratio: reference.peakBytes > 0 ? (today.peakBytes / reference.peakBytes).toFixed(2) : '—',
        note: `resident set, child process per run${partial}`,
      },
      {
        case: `${size}: held by the result`,
        ours: mib(today.retainedBytes),
        reference: mib(reference.retainedBytes),
        ratio: (today.retainedBytes / reference.retainedBytes).toFixed(2),
        note: `heap + array buffers after GC${partial}`,
      },
    );
  }
  const referenceIs = IMPORT_REFERENCE_COMMIT === BEFORE_ROUND_TRIP ? ' (before the whole-asset round trip)' : '';
  printTable(`glTF import: today against ${IMPORT_REFERENCE_COMMIT}${referenceIs}`, importRows);
}
