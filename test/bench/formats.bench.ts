/**
 * Parsing: libigl's armadillo.obj (4 MB) with our reader against three.js's OBJLoader.parse in the same process,
 * and the body's 394-frame animation DMAT (1.8 MB ASCII).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { readObj } from '../../workers/formats/obj.ts';
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
