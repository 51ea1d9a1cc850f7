/**
 * Handle editing: assignment keeps handles disjoint (a reassigned vertex moves), clearing frees, the overlap table
 * is the Jaccard index counted by hand on a small case, and the DMAT round trip reproduces the shared hand handles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assignHandles, clearHandles, handleCounts, handleOverlap, handlesToMatrix } from '../../workers/weights/handle-edits.ts';
import { readDmat, writeDmatAscii } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

test('assign moves vertices between bones and leaves the rest; clear frees; inputs are not modified', () => {
  const handles = Int32Array.from([-1, 0, 0, 1, 1, -1]);
  const selection = Uint8Array.from([1, 0, 1, 1, 0, 0]);
  const assigned = assignHandles(handles, selection, 2);
  assert.deepEqual(Array.from(assigned), [2, 0, 2, 2, 1, -1]);
  assert.deepEqual(Array.from(handles), [-1, 0, 0, 1, 1, -1]);
  assert.deepEqual(handleCounts(assigned, 3), [1, 1, 3]);
  assert.deepEqual(Array.from(clearHandles(assigned, Uint8Array.from([0, 1, 0, 0, 1, 1]))), [2, -1, 2, 2, -1, -1]);
});

test('overlap per bone is |ours ∩ ref| / |ours ∪ ref|', () => {
  const ours = Int32Array.from([0, 0, 0, 1, -1, -1, 2]);
  const reference = Int32Array.from([0, 0, 1, 1, 1, -1, -1]);
  const rows = handleOverlap(ours, reference, 4);
  assert.deepEqual(
    rows.map((r) => [r.ours, r.reference, r.intersection, r.union]),
    [
      [3, 2, 2, 3],
      [1, 3, 1, 3],
      [1, 0, 0, 1],
      [0, 0, 0, 0],
    ],
  );
  assert.deepEqual(
    rows.map((r) => r.jaccard),
    [2 / 3, 1 / 3, 0, 1],
  );
});

test('the shared hand handles survive a DMAT round trip and overlap themselves fully', () => {
  const file = path.join(dataDir, 'hand/hand-handles.dmat');
  if (!existsSync(file)) throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  const handles = handlesFromDmat(readDmat(new Uint8Array(readFileSync(file)), 'hand-handles.dmat'), 4780, 20, 'hand-handles.dmat');
  const text = writeDmatAscii(handlesToMatrix(handles));
  assert.equal(text.split('\n')[0], '1 4780');
  const back = handlesFromDmat(readDmat(new TextEncoder().encode(text), 'again.dmat'), 4780, 20, 'again.dmat');
  assert.deepEqual(back, handles);
  assert.ok(
    handleOverlap(handles, back, 20).every((r) => r.jaccard === 1),
    "every bone's handles read back with Jaccard index 1",
  );
});
