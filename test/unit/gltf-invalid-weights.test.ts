/**
 * A glTF whose stored weights are invalid (sums off 1, a joint twice in one vertex) is read normalised by
 * `rigwright import`; `export --base` with those imported weights must write them again, validly, where it used to
 * keep the file's accessors because the rows were the same as imported. The Khronos validator judges both files;
 * the weights written are compared with the ones passed and with the file's own, normalised here by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { twoJointSkinnedAsset } from './gltf-build.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { repoRoot } from './shared-data.ts';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator') as {
  validateBytes(data: Uint8Array): Promise<{ issues: { numErrors: number; messages: { code: string; severity: number }[] } }>;
};
const work = mkdtempSync(path.join(tmpdir(), 'rigwright-invalid-weights-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Stored JOINTS_0 and WEIGHTS_0 of the strip's six vertices on two joints; rows 1, 2 and 4 are not valid glTF. */
const STORED_JOINTS = [0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0];
const STORED_WEIGHTS = [1, 0, 0, 0, 0.6, 0.2, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.7, 0.6, 0, 0, 1, 0, 0, 0];
/** The same rows normalised by hand (a joint named twice adds up): #V × 2 */
const NORMALISED = [1, 0, 0.75, 0.25, 1, 0, 0.5, 0.5, 0, 1, 0, 1];

/** A strip of two quads up +y on the root and the tip, with the stored weights above. */
async function invalidWeightsAsset(): Promise<Uint8Array> {
  const { doc } = twoJointSkinnedAsset('strip', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, -0.2, 1, 0, 0.2, 1, 0, -0.2, 2, 0, 0.2, 2, 0],
    joints: STORED_JOINTS,
    weights: STORED_WEIGHTS,
    triangles: [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4],
  });
  return new NodeIO().writeBinary(doc);
}

test('export --base with the imported weights of a file whose weights are invalid writes them validly', async () => {
  const bytes = await invalidWeightsAsset();
  const source = path.join(work, 'strip.glb');
  writeFileSync(source, bytes);
  const before = await validator.validateBytes(bytes);
  const codes = before.issues.messages.filter((m) => m.severity === 0).map((m) => m.code);
  assert.deepEqual(
    [...new Set(codes)].sort(),
    ['ACCESSOR_JOINTS_INDEX_DUPLICATE', 'ACCESSOR_WEIGHTS_NON_NORMALIZED'],
    'the source is invalid for its weights alone',
  );

  const out = path.join(work, 'imported');
  const imported = rigwright('import', source, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  const weightsFile = path.join(out, 'strip-weights.dmat');
  const read = readRigFile(weightsFile, readFileSync(weightsFile));
  assert.equal(read.kind, 'matrix');
  const passed = read.kind === 'matrix' ? Array.from(read.matrix.data) : [];
  passed.forEach((w, i) => assert.ok(Math.abs(w - NORMALISED[i]) <= 1e-7, `imported weight ${i}: ${w}, by hand ${NORMALISED[i]}`));

  for (const weightType of ['float', 'unsigned-byte']) {
    const file = path.join(work, `strip-${weightType}.glb`);
    const exported = rigwright('export', '--base', source, '--weights', weightsFile, '--weight-type', weightType, '--out', file);
    assert.equal(exported.status, 0, exported.stderr);
    const written = readFileSync(file);
    await assertValidGltf(written, file);
    assert.match(exported.stderr, /the weights of 1 mesh \(strip\) in strip\.glb are not valid glTF/, 'the notice says why they changed');
    const again = await importGltf(written, file);
    const step = weightType === 'float' ? 1e-7 : 1 / 255;
    Array.from(again.weights.data).forEach((w, i) =>
      assert.ok(Math.abs(w - passed[i]) <= step, `${weightType}: weight ${i} written ${w}, passed ${passed[i]}`),
    );
  }

  // Valid weights given back unchanged keep the file's accessors (nothing to repair): the weights bytes stay.
  const valid = path.join(work, 'strip-float.glb');
  const validOut = path.join(work, 'strip-float-again.glb');
  const kept = rigwright('export', '--base', valid, '--out', validOut);
  assert.equal(kept.status, 0, kept.stderr);
  assert.doesNotMatch(kept.stderr, /not valid glTF/);
  const weightsOf = async (file: string) =>
    Array.from(
      (await new NodeIO().read(file)).getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!.getArray() as Float32Array,
    );
  assert.deepEqual(await weightsOf(validOut), await weightsOf(valid), 'valid weights are kept as stored');
});
