/**
 * The real files the fuzzer mutates, per format: the shared data (`../shared/data`), plus files derived from it
 * where a format has no small real example (binary DMATs written from the hand's ASCII ones, a .gltf + .bin
 * split from each GLB, RiggedFigure quantized with KHR_mesh_quantization so that normalized vertex data is fuzzed,
 * and a project file of the current format written from the format 1 fixture's contents plus two example shapes,
 * so the examples section is fuzzed too).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NodeIO, type Accessor } from '@gltf-transform/core';
import { ALL_EXTENSIONS, KHRMeshQuantization } from '@gltf-transform/extensions';
import { readDmat, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { PROJECT_FORMAT_VERSION, readProjectFile, writeProjectFile, type ProjectExample } from '../../workers/formats/project-file.ts';
import { dataFile, repoRoot } from '../unit/shared-data.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { projectContents } from '../unit/project-scene.ts';

// New formats go last: a format's inputs are drawn from a stream seeded by its place in this list.
export const FUZZ_FORMATS = [
  'obj',
  'off',
  'tgf',
  'dmat-ascii',
  'dmat-binary',
  'glb',
  'gltf',
  'project',
  'mtl',
  'glb-write',
  'gltf-write',
  'obj-write',
] as const;
export type FuzzFormat = (typeof FUZZ_FORMATS)[number];

/**
 * Formats whose inputs are also written: a mutant of the read format's seeds that the reader returns a scene for is
 * exported in place (with nothing changed, and with an edit) and fresh, and each file read back (write-outcome.ts);
 * an OBJ's mesh, rigged with the skeleton its seed was made for, is exported fresh (obj-write-outcome.ts).
 */
export const WRITE_FORMATS: Partial<Record<FuzzFormat, FuzzFormat>> = { 'glb-write': 'glb', 'gltf-write': 'gltf', 'obj-write': 'obj' };

/** The format whose seed files (and reader) a format's inputs come from: its own, or the read format of a write format. */
export const seedFormat = (format: FuzzFormat): FuzzFormat => WRITE_FORMATS[format] ?? format;

/** How a DMAT seed is also read as the rig file it is (poses, weights, handles), with the sizes it was made for. */
export interface DmatRole {
  poseBones?: number;
  weights?: { vertices: number; bones: number };
  handles?: { vertices: number; bones: number };
}

/** One real file: its name, bytes, and for a .gltf the resources it names (URI → bytes). */
export interface Seed {
  format: FuzzFormat;
  name: string;
  bytes: Uint8Array;
  resources?: Record<string, Uint8Array>;
  dmat?: DmatRole;
}

const read = (...parts: string[]): Uint8Array => new Uint8Array(readFileSync(dataFile(...parts)));

/** Splits a GLB into its JSON (buffer 0 named by `binName`) and its binary chunk. */
export function splitGlb(glb: Uint8Array, binName: string): { json: Record<string, unknown>; bin: Uint8Array } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as Record<string, unknown>;
  const binStart = 20 + jsonLength;
  const bin = binStart + 8 <= glb.length ? glb.slice(binStart + 8, binStart + 8 + view.getUint32(binStart, true)) : new Uint8Array(0);
  const buffers = json.buffers as { uri?: string; byteLength: number }[] | undefined;
  if (buffers?.[0]) buffers[0].uri = binName;
  return { json, bin };
}

/**
 * A skinned GLB with its vertex data quantized as KHR_mesh_quantization allows (the extension required): positions as
 * normalized signed shorts over the mesh's bounding cube, the skins' inverse bind matrices taking up the cube's scale
 * and centre (IBM · T(centre) · S(half side), as skinned positions are read through them), normals as normalized
 * signed bytes, weights as normalized unsigned bytes, and texture coordinates (a projection of the positions onto x
 * and z) as normalized unsigned shorts: every normalized component type the vertex reader denormalizes. For a file
 * whose primitives are all on skinned nodes of one skin (RiggedFigure); the rest of the file is kept.
 * @param glb  the file's bytes
 * @returns the quantized file's bytes
 */
export async function quantizedSkinnedGlb(glb: Uint8Array): Promise<Uint8Array> {
  // Read as numbers whatever the component type (glTF-Transform's TypedArray names Float16Array, unknown here).
  const valuesOf = (accessor: Accessor): ArrayLike<number> => {
    const array = accessor.getArray() as Float32Array | null;
    return array ?? [];
  };
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
  const doc = await io.readBinary(glb);
  const root = doc.getRoot();
  doc.createExtension(KHRMeshQuantization).setRequired(true);
  const primitives = root.listMeshes().flatMap((mesh) => mesh.listPrimitives());
  const low = [Infinity, Infinity, Infinity];
  const high = [-Infinity, -Infinity, -Infinity];
  for (const primitive of primitives) {
    const position = primitive.getAttribute('POSITION')!;
    const min = position.getMin([]);
    const max = position.getMax([]);
    for (let c = 0; c < 3; c++) [low[c], high[c]] = [Math.min(low[c], min[c]), Math.max(high[c], max[c])];
  }
  const centre = low.map((l, c) => (l + high[c]) / 2);
  const half = Math.max(...low.map((l, c) => (high[c] - l) / 2)) || 1;
  const quantized = (values: ArrayLike<number>, make: (n: number) => Int8Array | Int16Array | Uint8Array | Uint16Array, unit: number) => {
    const out = make(values.length);
    for (let i = 0; i < values.length; i++) out[i] = Math.round(values[i] * unit);
    return out;
  };
  for (const primitive of primitives) {
    const position = primitive.getAttribute('POSITION')!;
    const p = valuesOf(position);
    const scaled = Array.from(p, (x, i) => (x - centre[i % 3]) / half);
    position.setArray(quantized(scaled, (n) => new Int16Array(n), 32767)).setNormalized(true);
    const normal = primitive.getAttribute('NORMAL');
    if (normal) normal.setArray(quantized(valuesOf(normal), (n) => new Int8Array(n), 127)).setNormalized(true);
    const weights = primitive.getAttribute('WEIGHTS_0');
    if (weights) weights.setArray(quantized(valuesOf(weights), (n) => new Uint8Array(n), 255)).setNormalized(true);
    const uv = Array.from({ length: 2 * position.getCount() }, (_, i) => 0.5 + 0.5 * scaled[3 * (i >> 1) + 2 * (i & 1)]);
    const texcoord = doc.createAccessor().setType('VEC2').setBuffer(position.getBuffer());
    primitive.setAttribute('TEXCOORD_0', texcoord.setArray(quantized(uv, (n) => new Uint16Array(n), 65535)).setNormalized(true));
  }
  // IBM' = IBM · T(centre) · S(half), column-major: the linear columns scaled, the translation column IBM · centre.
  for (const skin of root.listSkins()) {
    const accessor = skin.getInverseBindMatrices();
    if (!accessor) continue;
    const m = Float32Array.from(valuesOf(accessor));
    for (let j = 0; j < m.length; j += 16) {
      const translation = [0, 1, 2].map((r) => m[j + r] * centre[0] + m[j + 4 + r] * centre[1] + m[j + 8 + r] * centre[2] + m[j + 12 + r]);
      for (let k = 0; k < 12; k++) if (k % 4 !== 3) m[j + k] *= half;
      for (let r = 0; r < 3; r++) m[j + 12 + r] = translation[r];
    }
    accessor.setArray(m);
  }
  return io.writeBinary(doc);
}

/**
 * The fixture's contents written in the current format with two examples: the mesh's positions moved by up to
 * 0.03 along x (the first) or y (the second, hidden), and identity rotations for every bone.
 */
export async function projectSeedWithExamples(fixture: Uint8Array): Promise<Uint8Array> {
  const contents = readProjectFile(fixture, 'project-v1.rig.glb');
  const { positions } = contents.scene.mesh;
  const boneCount = contents.scene.skeleton.parents.length;
  const identity = new Float64Array(9 * boneCount);
  for (let b = 0; b < boneCount; b++) identity.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * b);
  const example = (name: string, axis: number, hidden: boolean): ProjectExample => ({
    name,
    file: `${name}.obj`,
    positions: positions.map((x, i) => (i % 3 === axis ? x + 0.01 * ((i % 7) - 3) : x)),
    pose: identity.slice(),
    poseSource: 'rest',
    hidden,
  });
  contents.scene.examples = [example('bent', 0, false), example('raised', 1, true)];
  return writeProjectFile(contents, `project-v${PROJECT_FORMAT_VERSION}.rig.glb`);
}

/**
 * A material library as exporters write them (the shared data has none): Blender-style materials with every
 * statement it writes, a texture with map_Kd options, one-value and clamped colours, Tr, unknown statements.
 */
export function mtlSeed(): string {
  return [
    '# Blender MTL File',
    '# Material Count: 3',
    '',
    'newmtl body',
    'Ns 250.000000',
    'Ka 1.000000 1.000000 1.000000',
    'Kd 0.800000 0.552000 0.412000',
    'Ks 0.500000 0.500000 0.500000',
    'Ke 0.000000 0.000000 0.000000',
    'Ni 1.450000',
    'd 1.000000',
    'illum 2',
    'map_Kd -blendu on -s 1 1 1 -o 0 0 0 textures/body color.png',
    'map_Bump -bm 0.500000 textures/body_normal.png',
    '',
    'newmtl eye',
    'Kd 0.9',
    'Tr 0.25',
    'map_Kd eye.jpg',
    'refl -type sphere sky.png',
    '',
    'newmtl cloth',
    'Kd 1.2 0.3 -0.1',
    'd -halo 0.5',
    'Pr 0.4',
    'Pm 0.7',
    'map_Ke -s 2 2 glow.png',
    'norm -bm 1.5 cloth_n.png',
    'map_d cloth alpha.png',
    'map_Pr rough.png',
    'map_Pm metal.png',
    '',
  ].join('\n');
}

/**
 * An OBJ with what the libigl files lack: two objects (the second with groups), each a 6 × 6 grid of quads written
 * `v/vt/vn` with a texture seam down the middle (its vt differ on the two sides) and relative indices in the second.
 */
export function objSeedWithParts(): string {
  const lines: string[] = ['mtllib parts.mtl'];
  let base = 0;
  let vtBase = 0;
  for (const [o, name] of ['body', 'eye'].entries()) {
    lines.push(`o ${name}`);
    for (let j = 0; j <= 6; j++) for (let i = 0; i <= 6; i++) lines.push(`v ${i + 10 * o} ${j} ${0.1 * Math.sin(i + j)}`);
    for (let j = 0; j <= 6; j++) for (let i = 0; i <= 7; i++) lines.push(`vt ${Math.min(i, 6) / 6 + (i > 3 ? 0.01 : 0)} ${j / 6}`);
    lines.push('vn 0 0 1', `vn 0.6 0 0.8`, `usemtl m${o}`);
    for (let j = 0; j < 6; j++) {
      if (o === 1) lines.push(`g ${name}_${j % 2}`);
      for (let i = 0; i < 6; i++) {
        const corner = (di: number, dj: number): string => {
          const v = base + (j + dj) * 7 + i + di + 1;
          const vt = vtBase + (j + dj) * 8 + i + di + (i + di > 3 || (i >= 3 && di === 1) ? 1 : 0) + 1;
          const vn = 2 * o + ((i + di) % 2) + 1;
          return o === 0 ? `${v}/${vt}/${vn}` : `${v - base - 50}/${vt}/-${2 - ((i + di) % 2)}`;
        };
        lines.push(`f ${corner(0, 0)} ${corner(1, 0)} ${corner(1, 1)} ${corner(0, 1)}`);
      }
    }
    base += 49;
    vtBase += 56;
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A project of the two-object OBJ seed with every asset section: parts, look (uvs, a material with image bytes and one
 * without), OBJ corners and a glTF source (RiggedSimple's bytes, one resource, joint nodes); settings from the fixture.
 */
export async function projectSeedWithAsset(fixture: Uint8Array): Promise<Uint8Array> {
  const { settings } = readProjectFile(fixture, 'project-v1.rig.glb');
  const obj = readObj(objSeedWithParts(), 'two-objects.obj');
  const V = obj.mesh.positions.length / 3;
  const data = new Float64Array(2 * V);
  for (let v = 0; v < V; v++) data[2 * v + 1] = 1 - (data[2 * v] = (v % 10) / 10);
  settings.paint.locked = new Uint8Array(2);
  settings.skin.blend = null;
  settings.view.selectedBone = -1;
  return writeProjectFile(
    {
      ...projectContents({
        name: 'two-objects.obj',
        mesh: obj.mesh,
        skeletonFile: 'two.tgf',
        skeleton: buildSkeleton(
          { joints: Float64Array.from([0, 0, 0, 5, 3, 0, 10, 6, 0]), bones: Uint32Array.from([0, 1, 1, 2]) },
          'two.tgf',
        ),
        boneNames: ['hip', 'knee'],
        weights: { rows: V, cols: 2, data },
        parts: obj.parts!.map((part, i) => ({ ...part, material: i, source: i === 0 ? { node: 1, mesh: 0, primitive: 0 } : null })),
        look: {
          uvs: Float32Array.from({ length: 2 * V }, (_, i) => (i % 7) / 7),
          materials: [
            {
              name: 'skin',
              baseColor: [1, 0.9, 0.8, 1],
              baseColorTexture: { bytes: Uint8Array.from([137, 80, 78, 71]), mimeType: 'image/png' },
              doubleSided: false,
            },
            { name: 'eye', baseColor: [0, 0, 0.5, 1], baseColorTexture: null, doubleSided: true },
          ],
        },
        objCorners: obj.corners,
        gltfSource: {
          file: 'RiggedSimple.glb',
          bytes: read('gltf', 'RiggedSimple', 'RiggedSimple.glb'),
          resources: { 'extra.bin': Uint8Array.from([1, 2, 3, 4, 5]) },
          jointNodes: Int32Array.from([2, 3]),
        },
      }),
      settings,
    },
    'project-asset.rig.glb',
  );
}

let cached: Seed[] | null = null;

/** Every seed, once loadSeeds has run. */
export function loadedSeeds(): Seed[] {
  if (!cached) throw new Error('fuzz: loadSeeds() has not run');
  return cached;
}

/** Every seed, loaded once (the project file of the current format is written here, from the fixture). */
export async function loadSeeds(): Promise<Seed[]> {
  if (cached) return cached;
  const seeds: Seed[] = [];
  const add = (format: FuzzFormat, parts: string[], extra: Partial<Seed> = {}): void => {
    seeds.push({ format, name: path.basename(parts[parts.length - 1]), bytes: read(...parts), ...extra });
  };
  add('obj', ['libigl', 'arm.obj']);
  add('obj', ['libigl', 'elephant.obj']);
  seeds.push({ format: 'obj', name: 'two-objects.obj', bytes: new TextEncoder().encode(objSeedWithParts()) });
  seeds.push({ format: 'mtl', name: 'materials.mtl', bytes: new TextEncoder().encode(mtlSeed()) });
  add('off', ['libigl', 'decimated-knight.off']);
  add('off', ['hand', 'hand.off']);
  add('tgf', ['hand', 'hand.tgf']);
  add('tgf', ['libigl', 'arm.tgf']);
  add('tgf', ['libigl', 'elephant.tgf']);
  add('tgf', ['context-aware', 'skeleton.tgf']);
  add('dmat-ascii', ['hand', 'hand-pose_quat.dmat'], { dmat: { poseBones: 20 } });
  add('dmat-ascii', ['hand', 'hand-pose_matrot.dmat'], { dmat: { poseBones: 20 } });
  add('dmat-ascii', ['hand', 'hand-handles.dmat'], { dmat: { handles: { vertices: 4780, bones: 20 } } });
  add('dmat-ascii', ['context-aware', 'eg0.dmat'], { dmat: { poseBones: 28 } });
  add('dmat-ascii', ['libigl', 'decimated-knight-selection.dmat']);
  for (const [file, role] of [
    ['hand-pose_matrot.dmat', { poseBones: 20 }],
    ['hand-handles.dmat', { handles: { vertices: 4780, bones: 20 } }],
    ['hand-pose_quat.dmat', { poseBones: 20 }],
  ] as const) {
    const matrix = readDmat(read('hand', file), file);
    seeds.push({ format: 'dmat-binary', name: file.replace('.dmat', '-binary.dmat'), bytes: writeDmatBinary(matrix), dmat: role });
  }
  add('dmat-binary', ['libigl', 'elephant-weights.dmat'], { dmat: { weights: { vertices: 14007, bones: 26 } } });
  for (const name of ['RiggedSimple', 'RiggedFigure', 'CesiumMan', 'Fox']) {
    add('glb', ['gltf', name, `${name}.glb`]);
    const { json, bin } = splitGlb(read('gltf', name, `${name}.glb`), `${name}.bin`);
    seeds.push({
      format: 'gltf',
      name: `${name}.gltf`,
      bytes: new TextEncoder().encode(JSON.stringify(json, null, 1)),
      resources: { [`${name}.bin`]: bin },
    });
  }
  // One more seed per format draws each input's seed file anew: GLB and glTF inputs of a given --seed differ from before.
  const quantized = await quantizedSkinnedGlb(read('gltf', 'RiggedFigure', 'RiggedFigure.glb'));
  seeds.push({ format: 'glb', name: 'RiggedFigure-quantized.glb', bytes: quantized });
  const split = splitGlb(quantized, 'RiggedFigure-quantized.bin');
  seeds.push({
    format: 'gltf',
    name: 'RiggedFigure-quantized.gltf',
    bytes: new TextEncoder().encode(JSON.stringify(split.json, null, 1)),
    resources: { 'RiggedFigure-quantized.bin': split.bin },
  });
  const simpleSkin = ['gltf', 'SimpleSkin', 'glTF'];
  const resources: Record<string, Uint8Array> = {};
  for (const bin of ['skinGeometry.bin', 'skinningData.bin', 'inverseBindMatrices.bin', 'skinAnimation.bin']) {
    resources[bin] = read(...simpleSkin, bin);
  }
  add('gltf', [...simpleSkin, 'SimpleSkin.gltf'], { resources });
  add('gltf', ['gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf']);
  // The project file: the first format version's fixture (a GLB with the project extension), and the same contents
  // written in the current format with an examples section.
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'project-v1.rig.glb');
  if (existsSync(fixture)) {
    const v1 = new Uint8Array(readFileSync(fixture));
    seeds.push({ format: 'project', name: 'project-v1.rig.glb', bytes: v1 });
    seeds.push({ format: 'project', name: `project-v${PROJECT_FORMAT_VERSION}.rig.glb`, bytes: await projectSeedWithExamples(v1) });
    seeds.push({ format: 'project', name: 'project-asset.rig.glb', bytes: await projectSeedWithAsset(v1) });
  }
  cached = seeds;
  return seeds;
}
