/**
 * Binding the shipped glTF samples from their own skeletons, as `rigwright weights --auto-handles` does with its
 * defaults (automatic handles by the distance rule, harmonic weights, no hand-made handles), against the artists' own
 * weights: each asset is posed with linear blend skinning at 8 keys of its clip 0 with our weights and with the
 * file's, and the table gives the max and mean distance between the two over the rest bounding-box diagonal (over
 * every vertex and key), the tears (vertices pulled away from a vertex at the same rest position, by more than 1e-9
 * of the diagonal, at some key), the unweighted vertices (rows of zeros: left at rest) and the bind time.
 *
 * "before" binds on the file's index topology (harmonicWeights with weld: false, the rule on every vertex), "surface"
 * on the welded mesh, "volumetric" by geodesic voxel binding from the bones (no handles; its default grid and
 * falloff), and "auto" as the defaults choose between the two (volumetric for several shells or a boundary after
 * welding, or where the automatic handles take over half the vertices) — what the app's Compute weights runs (bindMesh) and `rigwright weights --auto-handles` chooses. Blender's column is its automatic weights (bone heat, `parent_set(type=
 * 'ARMATURE_AUTO')`) after an import with merged vertices (blender-automatic-weights.py), run headless when
 * `blender` is on the PATH; its weights reach our vertices by rest position and deform through the same LBS.
 *
 *   npm run bench -- binding
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { weldVertices, type WeldedVertices } from '../../workers/mesh/weld-vertices.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { automaticHandles, jointDistanceHandles } from '../../workers/weights/automatic-handles.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { volumetricWeights, VOLUMETRIC_WEIGHTS_DEFAULTS } from '../../workers/weights/volumetric-weights.ts';
import { meshShells } from '../../workers/weights/binding-method.ts';
import { bindMesh } from '../../workers/weights/bind-mesh.ts';
import { cacheDir, dataDir, repoRoot, requireFile } from './bench-util.ts';

const ASSETS: { name: string; parts: string[] }[] = [
  { name: 'Fox', parts: ['Fox', 'Fox.glb'] },
  { name: 'CesiumMan', parts: ['CesiumMan', 'CesiumMan.glb'] },
  { name: 'RiggedFigure', parts: ['RiggedFigure', 'RiggedFigure.glb'] },
  { name: 'SimpleSkin', parts: ['SimpleSkin', 'glTF', 'SimpleSkin.gltf'] },
];
/** keys of clip 0 posed, evenly spread over its frames */
const KEYS = 8;
/** how far apart two vertices at one rest position may be posed before they count as torn, over the diagonal */
const TEAR = 1e-9;

interface Measure {
  max: number;
  mean: number;
  tears: number;
  unweighted: number;
  ms: number;
}

async function readAsset(parts: string[]): Promise<GltfImportResult> {
  const file = requireFile(path.join(dataDir, 'gltf', ...parts));
  const bytes = readFileSync(file);
  const resources: Record<string, Uint8Array> = {};
  for (const { uri, path: relative } of gltfResources(bytes, file)) resources[uri] = readFileSync(path.join(path.dirname(file), relative));
  return importGltf(bytes, parts[parts.length - 1], resources);
}

/** #V × 3 posed positions at each of the KEYS frames, with the given #V × #B weights (every influence kept). */
function posedAtKeys(rig: GltfImportResult, weights: Float64Array): Float64Array[] {
  const boneCount = rig.skeleton.parents.length;
  const n = rig.mesh.positions.length / 3;
  const poses = rig.clips[0].poses;
  const frames = poses.kind === 'matrices' ? poses.frameCount : 1;
  const influences = influencesFromWeights({ rows: n, cols: boneCount, data: weights }, 0);
  const transforms = new Float64Array(12 * boneCount);
  const out: Float64Array[] = [];
  for (let k = 0; k < KEYS; k++) {
    const frame = Math.round((k * (frames - 1)) / (KEYS - 1));
    poseForwardKinematics(rig.skeleton, poses, frame, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
    const posed = new Float64Array(3 * n);
    linearBlendSkinning(rig.mesh.positions, influences, transforms, posed);
    out.push(posed);
  }
  return out;
}

function measure(rig: GltfImportResult, weld: WeldedVertices, reference: Float64Array[], weights: Float64Array, ms: number): Measure {
  const n = rig.mesh.positions.length / 3;
  const boneCount = rig.skeleton.parents.length;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const posed = posedAtKeys(rig, weights);
  let max = 0;
  let sum = 0;
  const torn = new Uint8Array(n);
  for (let k = 0; k < KEYS; k++) {
    const p = posed[k];
    const r = reference[k];
    for (let v = 0; v < n; v++) {
      const d = Math.hypot(p[3 * v] - r[3 * v], p[3 * v + 1] - r[3 * v + 1], p[3 * v + 2] - r[3 * v + 2]) / diagonal;
      if (d > max) max = d;
      sum += d;
      const u = weld.representative[weld.index[v]];
      if (Math.hypot(p[3 * v] - p[3 * u], p[3 * v + 1] - p[3 * u + 1], p[3 * v + 2] - p[3 * u + 2]) > TEAR * diagonal) torn[v] = 1;
    }
  }
  let unweighted = 0;
  for (let v = 0; v < n; v++) {
    let total = 0;
    for (let b = 0; b < boneCount; b++) total += weights[v * boneCount + b];
    if (!(total > 0)) unweighted++;
  }
  return { max, mean: sum / (KEYS * n), tears: torn.reduce((a, t) => a + t, 0), unweighted, ms };
}

/** Blender's automatic weights on our vertices (matched by rest position), or why there are none. */
function blenderWeights(rig: GltfImportResult, parts: string[], names: string[]): { weights: Float64Array; ms: number } | string {
  const which = spawnSync('blender', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) return 'blender is not installed';
  mkdirSync(cacheDir, { recursive: true });
  const out = path.join(cacheDir, `blender-weights-${parts[0]}.json`);
  const run = spawnSync(
    'blender',
    [
      '-b',
      '--factory-startup',
      '--python',
      path.join(repoRoot, 'test/bench/blender-automatic-weights.py'),
      '--',
      path.join(dataDir, 'gltf', ...parts),
      out,
    ],
    { encoding: 'utf8', timeout: 600_000 },
  );
  if (run.status !== 0 || /Traceback|Error:/.test(run.stdout + run.stderr))
    return `blender failed: ${(run.stdout + run.stderr).split('\n').filter((l) => /Error|error/.test(l))[0] ?? `exit ${run.status}`}`;
  const result = JSON.parse(readFileSync(out, 'utf8')) as { bindMs: number; vertices: { p: number[]; w: Record<string, number> }[] };
  const n = rig.mesh.positions.length / 3;
  const boneCount = names.length;
  const m = result.vertices.length;
  const tolerance = 1e-6 * boundingBox(rig.mesh.positions).diagonal;
  // Blender's importer may keep a root node's axis change on the armature object rather than in the mesh: of the 48
  // signed axis permutations, the one under which every one of our vertices finds a Blender vertex at its position
  // (ours and Blender's welded together, to 1e-6 of the diagonal) matches them.
  let blenderOf: Int32Array | null = null;
  let index: Int32Array | null = null;
  for (const order of [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ]) {
    for (let signs = 0; signs < 8 && !blenderOf; signs++) {
      const both = new Float64Array(3 * (n + m));
      both.set(rig.mesh.positions);
      result.vertices.forEach((vertex, i) => {
        for (let k = 0; k < 3; k++) both[3 * (n + i) + k] = (signs & (1 << k) ? -1 : 1) * vertex.p[order[k]];
      });
      const weld = weldVertices(both, new Uint32Array(0), { tolerance });
      const found = new Int32Array(weld.count).fill(-1);
      for (let i = 0; i < m; i++) found[weld.index[n + i]] = i;
      let matched = 0;
      for (let v = 0; v < n; v++) if (found[weld.index[v]] >= 0) matched++;
      if (matched === n) {
        blenderOf = found;
        index = weld.index;
      }
    }
  }
  if (!blenderOf || !index) return 'no orientation of Blender’s vertices matches ours';
  const bone = new Map(names.map((name, b) => [name, b]));
  const weights = new Float64Array(n * boneCount);
  for (let v = 0; v < n; v++) {
    const i = blenderOf[index[v]];
    for (const [name, w] of Object.entries(result.vertices[i].w)) {
      const b = bone.get(name);
      if (b !== undefined) weights[v * boneCount + b] = w;
    }
  }
  return { weights, ms: result.bindMs };
}

function bindMs(fn: () => Float64Array): { weights: Float64Array; ms: number } {
  fn();
  const start = performance.now();
  const weights = fn();
  return { weights, ms: performance.now() - start };
}

const cell = (m: Measure) =>
  `${m.max.toPrecision(3)} / ${m.mean.toPrecision(3)} | ${m.tears} | ${m.unweighted} | ${m.ms < 10 ? m.ms.toFixed(1) : m.ms.toFixed(0)} ms`;

console.log('\n## Binding the shipped samples from their own skeletons (automatic handles, default options)\n');
console.log(
  `Posed with LBS at ${KEYS} keys of clip 0; distances to the artists' weights' deformation over the rest diagonal, max / mean.\n`,
);
console.log('| asset | vertices (welded) | shells, open edges | binding | max / mean | tears | unweighted | bind |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const notes: string[] = [];
for (const asset of ASSETS) {
  const rig = await readAsset(asset.parts);
  const { positions, triangles } = rig.mesh;
  const n = positions.length / 3;
  const boneCount = rig.skeleton.parents.length;
  const weld = weldVertices(positions, triangles);
  const reference = posedAtKeys(rig, rig.weights.data);
  const surfaceFrom = (handles: Int32Array) => harmonicWeights(positions, triangles, handles, boneCount).weights;
  const surface = () => surfaceFrom(automaticHandles(positions, rig.skeleton, { rule: 'distance' }));
  const volumetric = () => volumetricWeights(positions, triangles, rig.skeleton).weights;
  const shells = meshShells(positions, triangles);
  // The auto row binds as the app's Compute weights and `rigwright weights --auto-handles` both do (one bindMesh call
  // with the app's options), and is labelled by the method that bind ran.
  let autoBound: ReturnType<typeof bindMesh> | null = null;
  const auto = bindMs(() => {
    autoBound = bindMesh(positions, triangles, rig.skeleton, {
      method: 'auto',
      handles: new Int32Array(n).fill(-1),
      rule: { rule: 'distance' },
      boneCount,
      weldTolerance: 0,
      harmonic: {},
      volumetric: { maxInfluences: VOLUMETRIC_WEIGHTS_DEFAULTS.maxInfluences },
    });
    return autoBound.surface?.weights ?? autoBound.volumetric!.weights;
  });
  const bound = autoBound as ReturnType<typeof bindMesh> | null;
  notes.push(`${asset.name}: ${bound?.reason || `auto chose ${bound?.method}`}`);
  const rows: [string, { weights: Float64Array; ms: number } | string][] = [
    [
      'before (index topology)',
      bindMs(() => {
        const handles = jointDistanceHandles(positions, rig.skeleton);
        return harmonicWeights(positions, triangles, handles, boneCount, { weld: false }).weights;
      }),
    ],
    ['surface (welded)', bindMs(surface)],
    ['volumetric', bindMs(volumetric)],
    [`auto → ${bound?.method} (Compute weights, rigwright weights)`, auto],
    ['Blender', blenderWeights(rig, asset.parts, rig.boneNames)],
  ];
  const open = shells.reduce((sum, shell) => sum + shell.boundaryEdges + shell.nonManifoldEdges, 0);
  for (const [label, bound] of rows) {
    if (typeof bound === 'string') notes.push(`${asset.name}: ${bound}`);
    const cells = typeof bound === 'string' ? '— | — | — | —' : cell(measure(rig, weld, reference, bound.weights, bound.ms));
    console.log(`| ${asset.name} | ${n} (${weld.count}) | ${shells.length}, ${open} | ${label} | ${cells} |`);
  }
}
for (const note of notes) console.log(`\n${note}`);
