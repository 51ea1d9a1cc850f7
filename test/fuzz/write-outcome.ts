/**
 * The write pipeline under the fuzzer: a mutated GLB or glTF that the reader returns a sound result for is written
 * three times, as the app and the CLI write such a scene — an in-place export with nothing changed, an in-place export
 * with one edit (weights changed and renormalized, one bone's subtree turned about its head, a clip added from the
 * rest pose, the clips dropped, or all of these) under drawn options (format, influences, weight type,
 * compression), and a fresh export of the read scene. Each export must either return a file that the reader reads
 * back soundly, whose resources are all written and inside its folder, and whose notices are one line each without
 * engine wording, or throw a clear error (classifyError's rule); anything else is a failure. Every export must read
 * back with the read scene's triangle and bone counts, the uncompressed edit also with its vertex count; the no-op
 * must not be refused (the reader accepted the file) and must give back the scene as read: its vertices, bone names,
 * clip names, positions to float32 round-off and weights to 1e-6.
 */
import {
  exportGltf,
  type GltfClip,
  type GltfExportOptions,
  type GltfExportResult,
  type GltfRig,
} from '../../workers/formats/gltf-export.ts';
import { exportGltfInPlace, type GltfEdit } from '../../workers/formats/gltf-edit.ts';
import type { GltfCompression } from '../../workers/formats/gltf-extensions.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { axisAngleMatrix } from '../unit/rotation-matrix.ts';
import { seededRandom } from '../unit/seeded-random.ts';
import type { Random } from './mutators.ts';
import { seedFormat, type FuzzFormat } from './corpus.ts';
import { checkGltf, classifyError, INTERNAL_WORDING, leavesFolder, readOne, type Outcome } from './outcome.ts';

/** The edit of the second in-place export. */
export type WriteEdit = 'weights' | 'bone' | 'clip' | 'no clips' | 'all';
const EDITS: readonly WriteEdit[] = ['weights', 'bone', 'clip', 'no clips', 'all'];

/** How one input's scene is written: drawn from the input's random stream (drawWritePlan), so it is rebuilt alone. */
export interface WritePlan {
  edit: WriteEdit;
  /** seeds the edit's own choices (which bone, which rows, which angle) */
  seed: number;
  /** options of the edited and the fresh export; the no-op export takes the defaults but for its format */
  format: 'glb' | 'gltf';
  influences: number;
  weightComponent: GltfWeightComponent;
  compression: GltfCompression;
}

/** Which of an input's exports: the no-op in-place export, the edited in-place export, the fresh export. */
export type WriteExport = 'no-op' | 'edit' | 'fresh';

/**
 * What the exports of one input did: written and read back, or refused with a clear error, by export. A no-op
 * refusal is also the input's failure ('bad output'): a file the reader accepted must save again unchanged.
 */
export interface WriteTally {
  written: number;
  refused: Record<WriteExport, number>;
}

/** A tally of nothing written and nothing refused. */
export const emptyTally = (): WriteTally => ({ written: 0, refused: { 'no-op': 0, edit: 0, fresh: 0 } });

/** Adds `more` to `into`. */
export function addTally(into: WriteTally, more: WriteTally | undefined): void {
  if (!more) return;
  into.written += more.written;
  for (const key of Object.keys(into.refused) as WriteExport[]) into.refused[key] += more.refused[key];
}

const int = (random: Random, n: number): number => Math.floor(random() * n);

/** Draws how an input is written: mostly default options, sometimes other influences, weight types and compression. */
export function drawWritePlan(random: Random): WritePlan {
  const edit = EDITS[int(random, EDITS.length)];
  const seed = int(random, 2 ** 31);
  const format = random() < 0.5 ? 'glb' : 'gltf';
  const influences = random() < 0.6 ? 4 : 1 + int(random, 8);
  const weightComponent = (['float', 'float', 'unsigned-byte', 'unsigned-short'] as const)[int(random, 4)];
  const draw = random();
  const compression: GltfCompression = draw < 0.8 ? 'none' : draw < 0.9 ? 'draco' : 'meshopt';
  return { edit, seed, format, influences, weightComponent, compression };
}

/** The plan in a few words, for a failure's report. */
export function describePlan(plan: WritePlan): string {
  return `edit ${plan.edit}, ${plan.format}, ${plan.influences} influences, ${plan.weightComponent} weights, compression ${plan.compression}`;
}

/** The in-place export's input for the scene as read, nothing changed. */
export function editOfRead(rig: GltfImportResult): GltfEdit {
  return { source: rig.gltfSource, mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, clips: rig.clips, parts: rig.parts };
}

/**
 * The read scene's weights with every non-zero weight scaled by 1 ± 0.2 and about one row in ten given 0.1 of a
 * drawn bone (which may be new to the row's skin), each row renormalized; all-zero rows stay all zero.
 */
export function editedWeights(rig: GltfImportResult, random: Random): GltfImportResult['weights'] {
  const { rows, cols } = rig.weights;
  const data = Float64Array.from(rig.weights.data);
  for (let v = 0; v < rows; v++) {
    const row = data.subarray(v * cols, (v + 1) * cols);
    let sum = 0;
    for (let b = 0; b < cols; b++) sum += row[b] > 0 ? (row[b] *= 1 + 0.4 * (random() - 0.5)) : 0;
    if (sum === 0) continue;
    if (random() < 0.1) {
      const b = int(random, cols);
      row[b] += 0.1 * sum;
      sum *= 1.1;
    }
    for (let b = 0; b < cols; b++) row[b] /= sum;
  }
  return { rows, cols, data };
}

/** A unit axis drawn from `random` (x, y or z when the draw is degenerate). */
function drawAxis(random: Random): number[] {
  const axis = [random() - 0.5, random() - 0.5, random() - 0.5];
  const length = Math.hypot(...axis);
  return length > 1e-3 ? axis.map((c) => c / length) : [0, 0, 1];
}

/** The skeleton with bone `bone`'s end and every joint of its descendants turned by `angle` about its start joint. */
export function turnedSubtree(skeleton: Skeleton, bone: number, axis: readonly number[], angle: number): Skeleton {
  const { bones, parents } = skeleton;
  const B = parents.length;
  const inside = new Uint8Array(B);
  // Parents come before children in `order`, so one pass marks the whole subtree.
  for (const b of skeleton.order) inside[b] = b === bone || (parents[b] >= 0 && inside[parents[b]] === 1) ? 1 : 0;
  const moved = new Set<number>();
  for (let b = 0; b < B; b++) if (inside[b]) moved.add(bones[2 * b + 1]);
  for (let b = 0; b < B; b++) if (inside[b] && b !== bone) moved.add(bones[2 * b]);
  moved.delete(bones[2 * bone]);
  const joints = Float64Array.from(skeleton.joints);
  const pivot = Array.from(joints.subarray(3 * bones[2 * bone], 3 * bones[2 * bone] + 3));
  const r = axisAngleMatrix(axis, angle);
  for (const j of moved) {
    const d = [0, 1, 2].map((c) => joints[3 * j + c] - pivot[c]);
    for (let row = 0; row < 3; row++) joints[3 * j + row] = pivot[row] + r[3 * row] * d[0] + r[3 * row + 1] * d[1] + r[3 * row + 2] * d[2];
  }
  return { ...skeleton, joints };
}

/** A new clip of three keys (0, 0.5, 1 s) from the rest pose: bone `bone` turns by up to `angle`, the others stay at rest. */
export function restClip(boneCount: number, bone: number, axis: readonly number[], angle: number): GltfClip {
  const frames = 3;
  const rotations = new Float64Array(9 * boneCount * frames);
  for (let f = 0; f < frames; f++)
    for (let b = 0; b < boneCount; b++)
      rotations.set(b === bone ? axisAngleMatrix(axis, (angle * f) / 2) : [1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * (f * boneCount + b));
  return {
    name: 'fuzz-rest',
    poses: { kind: 'matrices', boneCount, frameCount: frames, rotations, times: Float64Array.of(0, 0.5, 1) },
  };
}

/** The in-place export's input with the plan's edit applied to the read scene. */
export function editedScene(rig: GltfImportResult, plan: WritePlan): GltfEdit {
  const random = seededRandom(plan.seed);
  const edit = editOfRead(rig);
  const B = rig.skeleton.parents.length;
  const every = plan.edit === 'all';
  if (plan.edit === 'weights' || every) edit.weights = editedWeights(rig, random);
  if ((plan.edit === 'bone' || every) && B > 0)
    edit.skeleton = turnedSubtree(rig.skeleton, int(random, B), drawAxis(random), 0.1 + 0.5 * random());
  if (plan.edit === 'no clips') edit.clips = [];
  if ((plan.edit === 'clip' || every) && B > 0) edit.clips = [...edit.clips, restClip(B, int(random, B), drawAxis(random), 0.2 + random())];
  return edit;
}

/** The read scene as a fresh export takes it (the CLI's and the app's fields for a scene read from a glTF). */
export function freshRigOfRead(rig: GltfImportResult): GltfRig {
  return {
    mesh: rig.mesh,
    normals: rig.normals,
    skeleton: rig.skeleton,
    weights: rig.weights,
    boneNames: rig.boneNames,
    clips: rig.clips,
    parts: rig.parts,
    look: rig.look,
    name: rig.name,
    source: { file: rig.gltfSource.file, bytes: rig.gltfSource.bytes, resources: rig.gltfSource.resources },
  };
}

/** The output's name: the input's stem, `.out`, the format's extension. */
export function outputName(input: string, format: 'glb' | 'gltf'): string {
  return `${input.replace(/\.(glb|gltf)$/i, '')}.out.${format}`;
}

/** What an export's file must read back with, each given field checked. */
export interface ReadBack {
  vertices?: number;
  triangles?: number;
  bones?: number;
  /** the scene as read, which a no-op export must give back: bone and clip names, positions, weights (sameScene) */
  same?: GltfImportResult;
}

/** Largest difference of positions read back from a no-op export, in units of float32's spacing at the mesh's extent. */
const POSITION_ULPS = 4;
/** Largest difference of weights read back from a no-op export. */
const WEIGHT_TOLERANCE = 1e-6;

/** The export's notice that vertices read without weight are bound to their skin's first joint, and how many. */
const BOUND_UNWEIGHTED = /^(\d+) vertices of skinned meshes have no weight; .* bound fully to their skin's first joint$/;

/**
 * How a no-op export's read-back differs from the scene as read, or '': the same bone names and clip names in order,
 * every position within float32 round-off of the mesh's extent, every weight within 1e-6. A vertex read without any
 * weight (the file's weights were not valid glTF: negative, or summing to 0) may read back fully on one bone when the
 * export's notices say that that many such vertices were bound to their skin's first joint, as glTF needs.
 * @param notices  the export's notices
 */
export function sameScene(back: GltfImportResult, read: GltfImportResult, notices: readonly string[] = []): string {
  const names = (list: readonly string[]): string => JSON.stringify(list).slice(0, 200);
  if (back.boneNames.length !== read.boneNames.length || back.boneNames.some((n, b) => n !== read.boneNames[b]))
    return `bones ${names(back.boneNames)}, not ${names(read.boneNames)}`;
  const clips = (rig: GltfImportResult): string[] => rig.clips.map((clip) => clip.name);
  if (names(clips(back)) !== names(clips(read))) return `clips ${names(clips(back))}, not ${names(clips(read))}`;
  const a = back.mesh.positions;
  const b = read.mesh.positions;
  let extent = 0;
  for (const x of b) extent = Math.max(extent, Math.abs(x));
  const positionTolerance = POSITION_ULPS * 2 ** -23 * Math.max(extent, 2 ** -126);
  for (let i = 0; i < b.length; i++)
    if (!(Math.abs(a[i] - b[i]) <= positionTolerance))
      return `position ${i} (vertex ${Math.floor(i / 3)}) read back as ${a[i]}, not ${b[i]} (tolerance ${positionTolerance})`;
  if (back.weights.rows !== read.weights.rows || back.weights.cols !== read.weights.cols)
    return `weights ${back.weights.rows} × ${back.weights.cols}, not ${read.weights.rows} × ${read.weights.cols}`;
  const { rows, cols } = read.weights;
  const noticed = notices.map((notice) => BOUND_UNWEIGHTED.exec(notice)).find((match) => match);
  const bindable = noticed ? Number(noticed[1]) : 0;
  let bound = 0;
  for (let v = 0; v < rows; v++) {
    const was = read.weights.data.subarray(v * cols, (v + 1) * cols);
    const now = back.weights.data.subarray(v * cols, (v + 1) * cols);
    if (bindable > 0 && was.every((w) => w === 0) && now.some((w) => w === 1) && now.every((w) => w === 0 || w === 1)) {
      bound++;
      continue;
    }
    for (let b = 0; b < cols; b++)
      if (!(Math.abs(now[b] - was[b]) <= WEIGHT_TOLERANCE)) return `weight of vertex ${v}, bone ${b} read back as ${now[b]}, not ${was[b]}`;
  }
  if (bound !== bindable)
    return `${bound} vertices read without weight read back on one bone, where the notice says ${bindable} were bound`;
  return '';
}

/**
 * What is wrong with an export's file, or '': a .gltf must name only resources it was written with, none outside
 * its folder; every notice is one line without engine wording; the reader reads it back soundly (checkGltf); and
 * with what `expected` gives (ReadBack).
 */
export async function writtenProblem(result: GltfExportResult, file: string, expected: ReadBack | null): Promise<string> {
  for (const warning of result.warnings) {
    if (typeof warning !== 'string' || /[\n\r]/.test(warning)) return `a notice is not one line: ${JSON.stringify(warning)}`;
    if (INTERNAL_WORDING.test(warning)) return `a notice has engine wording: ${JSON.stringify(warning.slice(0, 300))}`;
  }
  if (!(result.bytes instanceof Uint8Array) || result.bytes.length === 0) return 'no bytes';
  let back: GltfImportResult;
  try {
    for (const { uri } of isGlbName(file) ? [] : gltfResources(result.bytes, file)) {
      if (leavesFolder(uri)) return `names the resource ${JSON.stringify(uri)}, outside its folder`;
      if (!Object.hasOwn(result.resources, uri)) return `names the resource ${JSON.stringify(uri)}, which was not written`;
    }
    back = await importGltf(result.bytes, file, result.resources);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return `the reader refuses it: ${text.slice(0, 300)}`;
  }
  const problem = checkGltf(back);
  if (problem) return `read back unsound: ${problem}`;
  if (!expected) return '';
  const vertices = back.mesh.positions.length / 3;
  const triangles = back.mesh.triangles.length / 3;
  const bones = back.skeleton.parents.length;
  if (expected.vertices !== undefined && vertices !== expected.vertices)
    return `read back with ${vertices} vertices, not ${expected.vertices}`;
  if (expected.triangles !== undefined && triangles !== expected.triangles)
    return `read back with ${triangles} triangles, not ${expected.triangles}`;
  if (expected.bones !== undefined && bones !== expected.bones) return `read back with ${bones} bones, not ${expected.bones}`;
  const differs = expected.same ? sameScene(back, expected.same, result.warnings) : '';
  return differs ? `read back changed: ${differs}` : '';
}

const isGlbName = (file: string): boolean => /\.glb$/i.test(file);

/**
 * Writes a scene the reader returned three ways (see the module comment) and classifies how that ended: 'result'
 * when every export was written and read back or refused clearly, else the first failure, its export named.
 */
export async function runWrites(name: string, rig: GltfImportResult, plan: WritePlan): Promise<Outcome & { exports: WriteTally }> {
  const triangles = rig.mesh.triangles.length / 3;
  const bones = rig.skeleton.parents.length;
  const counts: ReadBack = { triangles, bones };
  const options: GltfExportOptions = {
    format: plan.format,
    influences: plan.influences,
    weightComponent: plan.weightComponent,
    compression: plan.compression,
  };
  const exports: { kind: WriteExport; label: string; run: (file: string) => Promise<GltfExportResult>; expected: ReadBack }[] = [
    {
      kind: 'no-op',
      label: 'no-op in-place export',
      run: (file) => exportGltfInPlace(editOfRead(rig), file, { format: plan.format }),
      expected: { ...counts, vertices: rig.mesh.positions.length / 3, same: rig },
    },
    {
      kind: 'edit',
      label: `in-place export (${describePlan(plan)})`,
      run: (file) => exportGltfInPlace(editedScene(rig, plan), file, options),
      expected: plan.compression === 'none' ? { ...counts, vertices: rig.mesh.positions.length / 3 } : counts,
    },
    {
      kind: 'fresh',
      label: `fresh export (${describePlan(plan)})`,
      run: (file) => exportGltf(freshRigOfRead(rig), file, options),
      expected: counts,
    },
  ];
  const tally = emptyTally();
  const file = outputName(name, plan.format);
  for (const { kind, label, run, expected } of exports) {
    let result: GltfExportResult;
    try {
      result = await run(file);
    } catch (error) {
      const outcome = classifyError(error, file);
      if (outcome.kind !== 'clear error') return { ...outcome, detail: `${label}: ${outcome.detail}`, exports: tally };
      tally.refused[kind]++;
      // The reader accepted the file, so saving it again with nothing changed must not be refused.
      if (kind === 'no-op') return { kind: 'bad output', detail: `${label}: refused: ${outcome.detail}`, exports: tally };
      continue;
    }
    const problem = await writtenProblem(result, file, expected);
    if (problem) return { kind: 'bad output', detail: `${label}: ${problem}`, exports: tally };
    tally.written++;
  }
  return { kind: 'result', detail: '', exports: tally };
}

/**
 * One input of a write format: read as its read format is (readOne), and when that gives a sound scene, written
 * (runWrites); otherwise it ends as the read did.
 */
export async function runWriteOne(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  resources: Record<string, Uint8Array> | undefined,
  plan: WritePlan,
): Promise<Outcome & { exports?: WriteTally }> {
  const read = await readOne(seedFormat(format), name, bytes, resources, undefined);
  if (read.outcome.kind !== 'result') return read.outcome;
  try {
    return await runWrites(name, read.value as GltfImportResult, plan);
  } catch (error) {
    const outcome = classifyError(error, name);
    return { kind: 'other exception', detail: `writing the scene read: ${outcome.detail}` };
  }
}
