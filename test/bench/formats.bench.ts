/**
 * Parsing: libigl's armadillo.obj (4 MB) with our reader against three.js's OBJLoader.parse in the same process, the
 * same mesh written with a `vt` and a `vn` per vertex and every corner `v/vt/vn` (both readers keep them), and the
 * body's 394-frame animation DMAT (1.8 MB ASCII).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { dataDir, fmtMs, medianMs, printTable, requireFile, type BenchRow } from './bench-util.ts';

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
