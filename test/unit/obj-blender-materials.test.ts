/**
 * OBJ materials as Blender writes them, and back: Blender (when `blender` is on the PATH) makes a cube with two
 * materials — "Skin" whose base colour is an image, "Cloth" with base colour (0.2, 0.4, 0.6) — on three faces each
 * (so they share vertices), and exports OBJ + MTL + PNG. Loading those files gives one mesh whose triangles run per
 * material, Skin textured with the PNG's bytes and white, Cloth with Blender's linear base colour as given. The glTF
 * export of that scene, imported into Blender (test/blender/inspect-meshes.py), shows one mesh with both materials,
 * the image feeding Skin's base colour. Without Blender this prints one `SKIP blender:` line and is skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { insertBone } from '../../workers/rig/bone-edits.ts';
import { repoRoot } from './shared-data.ts';
import { inProcessIo as io } from './in-process-io.ts';
import { blenderMissing, blenderReport, runBlender } from './blender.ts';

const noBlender = blenderMissing('the OBJ-materials-from-Blender check');

const MAKE_CUBE = (dir: string) => `
import bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add()
cube = bpy.context.active_object
image = bpy.data.images.new("skin tex", 8, 8)
image.pixels = [0.25, 0.5, 0.75, 1.0] * 64
image.filepath_raw = ${JSON.stringify(path.join(dir, 'skin tex.png'))}
image.file_format = 'PNG'
image.save()
skin = bpy.data.materials.new("Skin")
skin.use_nodes = True
texture = skin.node_tree.nodes.new('ShaderNodeTexImage')
texture.image = image
skin.node_tree.links.new(texture.outputs['Color'], skin.node_tree.nodes['Principled BSDF'].inputs['Base Color'])
cloth = bpy.data.materials.new("Cloth")
cloth.use_nodes = True
cloth.node_tree.nodes['Principled BSDF'].inputs['Base Color'].default_value = (0.2, 0.4, 0.6, 1)
cube.data.materials.append(skin)
cube.data.materials.append(cloth)
for i, polygon in enumerate(cube.data.polygons):
    polygon.material_index = 0 if i < 3 else 1
bpy.ops.wm.obj_export(filepath=${JSON.stringify(path.join(dir, 'cube.obj'))}, export_materials=True, path_mode='RELATIVE')
`;

test(
  "Blender's OBJ + MTL + PNG load as one mesh with a run per material; our glTF of it shows both materials in Blender",
  { skip: noBlender ? 'blender is not installed' : false },
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-blender-mtl-'));
    const script = path.join(dir, 'make.py');
    writeFileSync(script, MAKE_CUBE(dir));
    const made = runBlender(script);
    assert.equal(made.status, 0, `blender failed:\n${made.stdout.slice(-2000)}\n${made.stderr.slice(-2000)}`);
    const files = ['cube.obj', 'cube.mtl', 'skin tex.png'].map((name) => ({
      name,
      bytes: new Uint8Array(readFileSync(path.join(dir, name))),
    }));
    assert.match(new TextDecoder().decode(files[1].bytes), /^map_Kd skin tex\.png$/m);

    const bare = await loadIntoDocument(demoDocument(), files, io);
    assert.deepEqual(bare.warnings, []);
    // A mesh opened alone has no skeleton; a glTF export needs one, so the cube gets one bone as a user would add it.
    assert.equal(bare.skeleton.parents.length, 0, 'the OBJ alone opens without a skeleton');
    const doc = { ...bare, ...insertBone(bare, { parent: null, head: [0, 0, 0], tip: [0, 1, 0] }).fields };
    // 6 faces = 12 triangles; Skin (faces 0–2) comes first in the file, Cloth after; the 8 corners are shared.
    assert.deepEqual(
      doc.parts?.map((p) => [p.name, p.vertexCount, p.triangleCount, p.materialRanges]),
      [
        [
          'Cube',
          8,
          12,
          [
            { triangleCount: 6, material: 0 },
            { triangleCount: 6, material: 1 },
          ],
        ],
      ],
    );
    assert.deepEqual(
      doc.look?.materials.map((m) => [m.name, m.baseColor, m.baseColorTexture?.mimeType ?? null]),
      [
        ['Skin', [1, 1, 1, 1], 'image/png'],
        ['Cloth', [0.2, 0.4, 0.6, 1], null],
      ],
    );
    assert.deepEqual(doc.look?.materials[0].baseColorTexture?.bytes, files[2].bytes);

    const { bytes } = await exportGltf(
      {
        mesh: doc.mesh,
        skeleton: doc.skeleton,
        weights: doc.weights,
        parts: doc.parts,
        look: doc.look,
        objCorners: doc.objCorners,
        name: 'cube',
      },
      'cube.glb',
    );
    const file = path.join(dir, 'cube.glb');
    writeFileSync(file, bytes);
    const report = blenderReport<{
      meshes: { name: string; uvLayers: string[]; materials: { name: string | null; image: boolean }[] }[];
    }>(path.join(repoRoot, 'test/blender/inspect-meshes.py'), [file]);
    assert.deepEqual(
      report.meshes.map((m) => [m.name, m.uvLayers.length, m.materials]),
      [
        [
          'Cube',
          1,
          [
            { name: 'Skin', image: true },
            { name: 'Cloth', image: false },
          ],
        ],
      ],
    );
  },
);
