/**
 * The export's options are checked before anything is built, each by its step's own check (pipeline.ts
 * checkExportOptions): the write step's refuses a file form or compression it does not write and an empty .bin base
 * name, in a FormatError that names the output file and the option, for the fresh and the in-place export alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebIO } from '@gltf-transform/core';
import { exportGltf, type GltfExportOptions } from '../../workers/formats/gltf-export.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { editOf } from './gltf-edit-input.ts';
import { twoJointSkinnedAsset } from './gltf-build.ts';

/** A triangle skinned to two joints, as read back. */
async function stick(): Promise<GltfImportResult> {
  const { doc } = twoJointSkinnedAsset('stick', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, 0, 2, 0],
    joints: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    triangles: [0, 1, 2],
  });
  return importGltf(await new WebIO().writeBinary(doc), 'stick.glb');
}

/** Options as a script or a project file may pass them: any value in any field. */
const loose = (options: Record<string, unknown>): GltfExportOptions => options;

const REFUSALS: readonly [string, GltfExportOptions, RegExp][] = [
  ['an unknown format', loose({ format: 'obj' }), /^out\.glb: glTF export: format must be glb or gltf, not "obj"$/],
  ['a format of another type', loose({ format: 2 }), /^out\.glb: glTF export: format must be glb or gltf, not 2$/],
  ['an unknown compression', loose({ compression: 'zip' }), /^out\.glb: glTF export: compression must be none, draco, meshopt, not "zip"$/],
  [
    'an empty base name',
    loose({ format: 'gltf', basename: '' }),
    /^out\.glb: glTF export: the \.bin's base name must be a non-empty string, not ""$/,
  ],
  [
    'a base name that is no string',
    loose({ format: 'gltf', basename: null }),
    /^out\.glb: glTF export: the \.bin's base name must be a non-empty string, not null$/,
  ],
];

for (const [what, options, message] of REFUSALS)
  test(`the fresh and the in-place export refuse ${what}, naming the option`, async () => {
    const rig = await stick();
    const refused = (error: unknown): boolean => {
      assert.ok(error instanceof FormatError, `a FormatError: ${String(error)}`);
      assert.match(error.message, message);
      return true;
    };
    await assert.rejects(exportGltf({ mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights }, 'out.glb', options), refused);
    await assert.rejects(exportGltfInPlace(editOf(rig), 'out.glb', options), refused);
  });

test('every format and compression the check lets through is written, a .gltf with its .bin under the base name', async () => {
  const rig = await stick();
  for (const format of ['glb', 'gltf'] as const)
    for (const compression of ['none', 'draco', 'meshopt'] as const) {
      const options = { format, compression, basename: 'my stick' };
      const fresh = await exportGltf({ mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights }, 'out', options);
      const kept = await exportGltfInPlace(editOf(rig), 'out', options);
      for (const [how, result] of [
        ['fresh', fresh],
        ['in place', kept],
      ] as const)
        assert.deepEqual(
          Object.keys(result.resources),
          format === 'gltf' ? ['my%20stick.bin'] : [],
          `${how} ${format} ${compression}: the resources`,
        );
    }
});
