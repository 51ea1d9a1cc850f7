/**
 * glTF import, today's code against an earlier commit's, for formats.bench.ts: the earlier commit's workers/ tree is
 * written out once with `git archive` into `.bench/gltf-import-HASH/` (HASH the commit's full hash; inside the
 * repository, so that it resolves the same node_modules), and both trees' importGltf run on the same files. Time is taken in this process, the two
 * trees' runs interleaved after warm-up runs, as medians; memory in a child process per run
 * (gltf-import-memory.ts), so that each peak starts from a clean process.
 *
 * Also the production-scale asset the comparison runs on besides the shared samples: many skinned meshes on one skin,
 * two long clips (made with glTF-Transform here, so that neither tree's writer is involved).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Accessor, Document, NodeIO, type GLTF, type Skin } from '@gltf-transform/core';
import { repoRoot } from './bench-util.ts';

/** The commit before the whole-asset round trip (b039347 and after). */
export const BEFORE_ROUND_TRIP = 'b1be9fd';
/** The commit whose importer is the reference: BEFORE_ROUND_TRIP unless RIGWRIGHT_BENCH_IMPORT_REFERENCE names another. */
export const IMPORT_REFERENCE_COMMIT = process.env.RIGWRIGHT_BENCH_IMPORT_REFERENCE ?? BEFORE_ROUND_TRIP;

type ImportGltf = (bytes: Uint8Array, file: string, resources?: Record<string, Uint8Array>) => Promise<unknown>;

/**
 * The full hash of the commit `name` names (a hash, a branch, a tag), or null when this copy of the repository does
 * not have it: a shallow clone, a tarball, no git at all.
 * @param name  what `git rev-parse` takes
 */
export function resolveCommit(name: string): string | null {
  const git = (args: string[]): string | null => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  if (git(['cat-file', '-e', `${name}^{commit}`]) === null) return null;
  return git(['rev-parse', '--verify', `${name}^{commit}`]) || null;
}

/**
 * The repository folder holding `workers/` as it was at a commit (written on first use, kept by the commit's full
 * hash, so that a branch name that moves or a short hash does not find another commit's tree).
 * @param hash  the commit's full hash (resolveCommit)
 */
export function treeAt(hash: string): string {
  const root = path.join(repoRoot, '.bench', `gltf-import-${hash}`);
  if (!existsSync(path.join(root, 'workers/formats/gltf-import.ts'))) {
    mkdirSync(root, { recursive: true });
    const archive = execFileSync('git', ['archive', hash, 'workers'], { cwd: repoRoot, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
  }
  return root;
}

/** importGltf of the tree at `root` (the repository itself for today's code). */
export async function importerOf(root: string): Promise<ImportGltf> {
  const module = (await import(path.join(root, 'workers/formats/gltf-import.ts'))) as { importGltf: ImportGltf };
  return module.importGltf;
}

/**
 * Median wall time in ms of each importer on the same bytes, their runs interleaved (a, b, a, b, …) after `warmup`
 * runs of each, so that load on the machine falls on both alike.
 */
export async function interleavedMedians(
  importers: ImportGltf[],
  bytes: Uint8Array,
  file: string,
  runs = 9,
  warmup = 2,
): Promise<number[]> {
  const times = importers.map((): number[] => []);
  for (let r = 0; r < warmup + runs; r++) {
    for (const [k, importGltf] of importers.entries()) {
      const start = performance.now();
      await importGltf(bytes, file);
      if (r >= warmup) times[k].push(performance.now() - start);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]);
}

/** What one child process measured: see gltf-import-memory.ts. */
export interface ImportMemory {
  /** how far the import took the process's peak resident set past both its earlier peak and its resident set, bytes */
  peakBytes: number;
  /** heap and array buffers still held with the import's result alive, after a full GC, bytes */
  retainedBytes: number;
}

/** Medians over `runs` child processes per tree, the trees' children alternating; each imports `warmUp` first. */
export function memoryMedians(roots: string[], file: string, warmUp: string, runs = 5): ImportMemory[] {
  const samples = roots.map((): ImportMemory[] => []);
  for (let r = 0; r < runs; r++) {
    for (const [k, root] of roots.entries()) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', path.join(repoRoot, 'test/bench/gltf-import-memory.ts'), root, file, warmUp],
        { cwd: repoRoot, encoding: 'utf8' },
      );
      if (child.status !== 0) throw new Error(`gltf-import-memory.ts ${root} ${file} failed:\n${child.stderr}`);
      samples[k].push(JSON.parse(child.stdout.trim().split('\n').pop()!) as ImportMemory);
    }
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return samples.map((s) => ({ peakBytes: median(s.map((m) => m.peakBytes)), retainedBytes: median(s.map((m) => m.retainedBytes)) }));
}

/**
 * A production-scale rigged GLB, written once into `.bench/`: `meshCount` skinned meshes of a 40 × 40 vertex grid
 * each (positions, normals, texture coordinates, 4 influences), one skin of `jointCount` joints in a binary tree
 * (or, with `skinPerMesh`, a skin of those joints for each mesh, as many assets from elsewhere have), and two clips
 * of 150 keys rotating every joint.
 * @returns the file's path
 */
export async function productionScaleGlb(meshCount = 40, jointCount = 100, skinPerMesh = false): Promise<string> {
  const file = path.join(repoRoot, '.bench', `production-${meshCount}x1600-${jointCount}joints${skinPerMesh ? '-skin-per-mesh' : ''}.glb`);
  if (existsSync(file)) return file;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('scene');
  const joints = Array.from({ length: jointCount }, (_, j) =>
    doc.createNode(`joint_${j}`).setTranslation(j === 0 ? [0, 0, 0] : [0.05 * ((j % 3) - 1), 0.1, 0]),
  );
  const world = new Float64Array(3 * jointCount);
  for (let j = 1; j < jointCount; j++) {
    const parent = (j - 1) >> 1;
    joints[parent].addChild(joints[j]);
    const t = joints[j].getTranslation();
    for (let c = 0; c < 3; c++) world[3 * j + c] = world[3 * parent + c] + t[c];
  }
  scene.addChild(joints[0]);
  const inverseBinds = new Float32Array(16 * jointCount);
  for (let j = 0; j < jointCount; j++) {
    inverseBinds.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -world[3 * j], -world[3 * j + 1], -world[3 * j + 2], 1], 16 * j);
  }
  const makeSkin = (name: string): Skin => {
    const skin = doc
      .createSkin(name)
      .setInverseBindMatrices(doc.createAccessor().setType(Accessor.Type.MAT4).setArray(inverseBinds).setBuffer(buffer));
    for (const joint of joints) skin.addJoint(joint);
    return skin;
  };
  const sharedSkin = makeSkin('skin');
  const material = doc.createMaterial('cloth').setBaseColorFactor([0.8, 0.6, 0.5, 1]).setMetallicFactor(0).setRoughnessFactor(0.7);
  const side = 40;
  const indices = new Uint16Array(6 * (side - 1) * (side - 1));
  let at = 0;
  for (let r = 0; r + 1 < side; r++)
    for (let c = 0; c + 1 < side; c++) {
      const v = r * side + c;
      indices.set([v, v + side, v + 1, v + 1, v + side, v + side + 1], at);
      at += 6;
    }
  for (let m = 0; m < meshCount; m++) {
    const n = side * side;
    const positions = new Float32Array(3 * n);
    const normals = new Float32Array(3 * n);
    const uvs = new Float32Array(2 * n);
    const jointIndices = new Uint16Array(4 * n);
    const weights = new Float32Array(4 * n);
    for (let v = 0; v < n; v++) {
      const u = (v % side) / (side - 1);
      const w = Math.floor(v / side) / (side - 1);
      positions.set([u + m * 0.01, w * 1.5, 0.02 * m], 3 * v);
      normals.set([0, 0, 1], 3 * v);
      uvs.set([u, w], 2 * v);
      const first = (m * 7 + Math.floor(w * 20)) % (jointCount - 3);
      jointIndices.set([first, first + 1, first + 2, first + 3], 4 * v);
      weights.set([0.4, 0.3, 0.2, 0.1], 4 * v);
    }
    const accessor = (type: GLTF.AccessorType, array: Float32Array | Uint16Array) =>
      doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const primitive = doc
      .createPrimitive()
      .setIndices(accessor(Accessor.Type.SCALAR, indices))
      .setAttribute('POSITION', accessor(Accessor.Type.VEC3, positions))
      .setAttribute('NORMAL', accessor(Accessor.Type.VEC3, normals))
      .setAttribute('TEXCOORD_0', accessor(Accessor.Type.VEC2, uvs))
      .setAttribute('JOINTS_0', accessor(Accessor.Type.VEC4, jointIndices))
      .setAttribute('WEIGHTS_0', accessor(Accessor.Type.VEC4, weights))
      .setMaterial(material);
    scene.addChild(
      doc
        .createNode(`mesh_${m}`)
        .setMesh(doc.createMesh(`mesh_${m}`).addPrimitive(primitive))
        .setSkin(skinPerMesh ? makeSkin(`skin_${m}`) : sharedSkin),
    );
  }
  const keys = 150;
  for (const [a, name] of ['walk', 'wave'].entries()) {
    const animation = doc.createAnimation(name);
    const times = doc
      .createAccessor()
      .setType(Accessor.Type.SCALAR)
      .setArray(Float32Array.from({ length: keys }, (_, k) => k / 30))
      .setBuffer(buffer);
    for (const [j, joint] of joints.entries()) {
      const rotations = new Float32Array(4 * keys);
      for (let k = 0; k < keys; k++) {
        const half = 0.2 * Math.sin((2 * Math.PI * k) / keys + j + a);
        rotations.set([Math.sin(half), 0, 0, Math.cos(half)], 4 * k);
      }
      const sampler = doc
        .createAnimationSampler()
        .setInput(times)
        .setOutput(doc.createAccessor().setType(Accessor.Type.VEC4).setArray(rotations).setBuffer(buffer))
        .setInterpolation('LINEAR');
      animation
        .addSampler(sampler)
        .addChannel(doc.createAnimationChannel().setTargetNode(joint).setTargetPath('rotation').setSampler(sampler));
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, await new NodeIO().writeBinary(doc));
  return file;
}
