/**
 * `rigwright transfer`: skinning weights carried from a weighted mesh to another by robust transfer with weight
 * inpainting (workers/weights/weight-transfer.ts): closest-point matches within a distance and normal-angle threshold
 * keep the source's weights there, the rest are inpainted, then smoothed. Writes the target's weights as an ASCII
 * DMAT, or into the target project (one undo step of its scene, its locked bones kept).
 */
import path from 'node:path';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { importGltf } from '../../../workers/formats/gltf-import.ts';
import { gltfResources } from '../../../workers/formats/gltf-resource-uris.ts';
import { isProjectFile, readProjectFile, writeProjectFile, type ReadProject } from '../../../workers/formats/project-file.ts';
import type { DenseMatrix, TriangleMesh } from '../../../workers/formats/types.ts';
import { weightsFromDmat } from '../../../workers/formats/weights-file.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../../workers/scene/project-document.ts';
import { boneCountOf, errorMessage, type SceneDocument } from '../../../workers/scene/scene-document.ts';
import { SceneStore } from '../../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../../workers/scene/undo-history.ts';
import { WEIGHT_TRANSFER_DEFAULTS, weightTransfer, type WeightTransferResult } from '../../../workers/weights/weight-transfer.ts';
import { resourceFile } from '../../asset-resources.ts';
import {
  outputExtension,
  parseNumber,
  parseOptionSequence,
  readBytes,
  readMatrix,
  readMeshFile,
  readTgfSkeleton,
  UsageError,
  writeFile,
  type CliCommand,
  type CliStreams,
} from '../cli-support.ts';

/** How many values each option takes (0: a flag); --from may be given several times (a mesh, its skeleton, its weights). */
const ARITY: Readonly<Record<string, number>> = {
  from: 1,
  to: 1,
  out: 1,
  project: 1,
  'max-distance': 1,
  'max-angle': 1,
  'flipped-normals': 0,
  'no-smooth': 0,
  'weld-tolerance': 1,
};

/** A mesh with its weights, as read from the files given. */
interface WeightedMesh {
  mesh: TriangleMesh;
  /** #V × #B; null for a bare mesh (a target need have none) */
  weights: DenseMatrix | null;
  /** the project's document, when the file was a project */
  project: { read: ReadProject; doc: SceneDocument } | null;
}

export const transferCommand: CliCommand = {
  name: 'transfer',
  summary: 'carry skinning weights from one mesh to another (robust transfer with inpainting)',
  usage: `Usage: rigwright transfer --from SOURCE… --to TARGET [--max-distance F] [--max-angle DEG] [--flipped-normals]
                          [--no-smooth] [--weld-tolerance D] (--out W.dmat | --project OUT.rig.glb)

Carries skinning weights from a weighted mesh to another: each target vertex takes the weights at its closest
point on the source where that point is near enough and its surface faces the same way; the other vertices
(a gap between an arm and the torso, a loose part of a garment) get weights inpainted from the matched ones
around them (smooth, a partition of unity), then the region is smoothed. A part of the target with no match at
all keeps its closest points' weights, and is reported.

  --from FILE        the source: a project (.rig.glb) or a rigged glTF (.glb, .gltf), or its mesh (.obj, .off)
                     and weights (.dmat, #vertices × #bones), each with its own --from, with its skeleton (.tgf)
                     to check the bone count against
  --to FILE          the target: a mesh (.obj, .off), a glTF or a project
  --max-distance F   a match is at most F × the target's bounding-box diagonal away; default ${WEIGHT_TRANSFER_DEFAULTS.maxDistance}
  --max-angle DEG    a match's normals differ by at most DEG degrees; default ${WEIGHT_TRANSFER_DEFAULTS.maxAngle}
  --flipped-normals  also match a source surface facing the other way (a target with inward normals)
  --no-smooth        leave the inpainted region unsmoothed
  --weld-tolerance D the target's vertices up to D apart, in mesh units, are one vertex (one row of weights, one
                     normal), as rigwright weights welds them; default ${WEIGHT_TRANSFER_DEFAULTS.weldTolerance} (exactly coincident ones)
  --out FILE         the target's weights, .dmat (#target vertices × #bones)
  --project FILE     the target project with the transferred weights (its locked bones keep theirs), .glb;
                     needs a project as --to
  -h, --help         this help
`,
  options: {},
  allowPositionals: false,
  parse: (args) => parseOptionSequence(args, ARITY),

  async run(line, { stdout, stderr }) {
    const uses = line.sequence ?? [];
    if (line.positionals.length > 0) throw new UsageError(`unexpected operand "${line.positionals[0]}"`);
    const fromFiles = uses.filter((use) => use.name === 'from').map((use) => use.values[0]);
    if (fromFiles.length === 0) throw new UsageError('missing --from');
    const to = line.values.to;
    if (!to) throw new UsageError('missing --to');
    const out = line.values.out;
    const projectOut = line.values.project;
    if ((out === undefined) === (projectOut === undefined)) throw new UsageError('give exactly one of --out FILE and --project FILE');
    if (out !== undefined) outputExtension(out, ['dmat']);
    if (projectOut !== undefined) outputExtension(projectOut, ['glb']);
    const maxDistance = optionNumber(line.values['max-distance'], '--max-distance', (x) => x > 0, 'a positive fraction');
    const maxAngle = optionNumber(line.values['max-angle'], '--max-angle', (x) => x >= 0 && x <= 180, 'an angle in [0, 180]');
    const weldTolerance = optionNumber(line.values['weld-tolerance'], '--weld-tolerance', (x) => x >= 0, 'a distance ≥ 0');

    const source = await readSource(fromFiles, stderr);
    const target = await readWeightedMesh(to, stderr);
    if (projectOut !== undefined && !target.project) throw new UsageError(`--project needs a project as --to; ${to} is not one`);
    const weights = source.weights!;
    const boneCount = weights.cols;
    const locks = target.project?.doc.paintLocks;
    if (target.project && boneCountOf(target.project.doc) !== boneCount)
      throw new FormatError(to, '', `the project has ${boneCountOf(target.project.doc)} bones, the source's weights ${boneCount}`);

    const result = weightTransfer(
      { ...source.mesh, weights: weights.data },
      target.mesh,
      boneCount,
      {
        ...(maxDistance !== undefined ? { maxDistance } : {}),
        ...(maxAngle !== undefined ? { maxAngle } : {}),
        ...(weldTolerance !== undefined ? { weldTolerance } : {}),
        acceptFlippedNormals: line.flags.has('flipped-normals'),
        ...(line.flags.has('no-smooth') ? { smoothIterations: 0 } : {}),
      },
      target.project && locks ? { locked: locks, weights: target.project.doc.weights.data } : undefined,
    );
    const vertexCount = target.mesh.positions.length / 3;
    for (const warning of transferWarnings(result, to)) stderr.write(`rigwright: warning: ${warning}\n`);
    const transferred = { rows: vertexCount, cols: boneCount, data: result.weights };
    const written = out ?? projectOut!;
    if (out !== undefined) {
      writeFile(out, writeDmatAscii(transferred));
    } else {
      const { read, doc } = target.project!;
      const store = new SceneStore(doc, new UndoHistory());
      store.edit(`Transfer weights from ${path.basename(fromFiles[0])}`, {
        weights: transferred,
        weightsSource: `transferred from ${path.basename(fromFiles[0])}`,
      });
      const settings = projectSettingsOf(store.doc, read.settings);
      writeFile(projectOut!, await writeProjectFile({ scene: projectSceneOf(store.doc), settings }, path.basename(projectOut!)));
    }
    stdout.write(`wrote ${written}: ${vertexCount} vertices × ${boneCount} bones; ${transferSummary(result)}\n`);
    return 0;
  },
};

/**
 * What the transfer did, in words: matched, inpainted, smoothed, and the time.
 * @returns e.g. `6514 matched, 456 inpainted, 1585 smoothed, 0.4 s`
 */
export function transferSummary(result: WeightTransferResult): string {
  const parts = [`${result.matchedCount} matched`, `${result.inpaintedCount} inpainted`];
  if (result.nearestCount > 0) parts.push(`${result.nearestCount} from their closest points`);
  if (result.smoothedCount > 0) parts.push(`${result.smoothedCount} smoothed`);
  parts.push(`${(result.timings.totalMs / 1000).toFixed(1)} s`);
  return parts.join(', ');
}

/** The transfer's warnings: parts with no match, rows the locks left short of 1. */
function transferWarnings(result: WeightTransferResult, target: string): string[] {
  const warnings: string[] = [];
  if (result.nearestCount > 0)
    warnings.push(
      `${target}: ${result.nearestCount} vertices lie in parts with no match within the thresholds (nothing to inpaint from): they keep their closest points' weights`,
    );
  if (result.unnormalizedCount > 0)
    warnings.push(
      `${target}: ${result.unnormalizedCount} vertices could not sum to 1 (no weight to transfer, or locked bones leave no room)`,
    );
  return warnings;
}

function optionNumber(text: string | undefined, option: string, ok: (x: number) => boolean, what: string): number | undefined {
  if (text === undefined) return undefined;
  const x = parseNumber(text);
  if (!(Number.isFinite(x) && ok(x))) throw new UsageError(`${option} must be ${what}, not "${text}"`);
  return x;
}

/** The source: one project or glTF, or a mesh and its weights (and optionally its skeleton) as separate files. */
async function readSource(files: readonly string[], stderr: CliStreams['stderr']): Promise<WeightedMesh> {
  if (files.length === 1) {
    const read = await readWeightedMesh(files[0], stderr);
    if (!read.weights) throw new UsageError(`${files[0]} is a mesh alone: give its weights (.dmat) with another --from`);
    return read;
  }
  const byKind = (pattern: RegExp) => files.filter((f) => pattern.test(f));
  const meshes = byKind(/\.(obj|off)$/i);
  const matrices = byKind(/\.dmat$/i);
  const skeletons = byKind(/\.tgf$/i);
  const other = files.filter((f) => !/\.(obj|off|dmat|tgf)$/i.test(f));
  if (other.length > 0)
    throw new UsageError(`${other[0]}: with several --from, give a mesh (.obj, .off), its weights (.dmat) and its skeleton (.tgf)`);
  if (meshes.length !== 1 || matrices.length !== 1 || skeletons.length > 1)
    throw new UsageError('with several --from, give one mesh (.obj, .off), one weights file (.dmat) and at most one skeleton (.tgf)');
  const mesh = readMeshFile(meshes[0]).mesh;
  const vertexCount = mesh.positions.length / 3;
  const matrix = readMatrix(matrices[0], 'skinning weights');
  const boneCount = skeletons.length === 1 ? readTgfSkeleton(skeletons[0]).bones.length / 2 : matrix.cols;
  const { weights, warnings } = weightsFromDmat(matrix, vertexCount, boneCount, matrices[0]);
  for (const warning of warnings) stderr.write(`rigwright: warning: ${matrices[0]}: ${warning}\n`);
  return { mesh, weights, project: null };
}

/** A project, a glTF or a mesh file, by its contents (a project is a .glb) and extension. */
async function readWeightedMesh(file: string, stderr: CliStreams['stderr']): Promise<WeightedMesh> {
  if (/\.(obj|off)$/i.test(file)) return { mesh: readMeshFile(file).mesh, weights: null, project: null };
  if (!/\.(glb|gltf)$/i.test(file)) throw new UsageError(`${file}: give a mesh (.obj, .off), a glTF (.glb, .gltf) or a project (.rig.glb)`);
  const bytes = readBytes(file);
  if (isProjectFile(bytes)) {
    const read = readProjectFile(bytes, file);
    for (const notice of read.notices) stderr.write(`rigwright: warning: ${notice}\n`);
    let doc: SceneDocument;
    try {
      doc = documentFromProject(read.scene, read.settings);
    } catch (error) {
      throw new FormatError(file, '', errorMessage(error));
    }
    return { mesh: doc.mesh, weights: doc.weights, project: { read, doc } };
  }
  const resources: Record<string, Uint8Array> = {};
  for (const resource of gltfResources(bytes, file)) {
    try {
      resources[resource.uri] = readBytes(resourceFile(path.dirname(file), resource, file));
    } catch (error) {
      // Missing images are fine (the weights need none); a missing buffer fails in the importer, which names it.
      stderr.write(`rigwright: warning: ${file}: ${errorMessage(error)}\n`);
    }
  }
  const rig = await importGltf(bytes, path.basename(file), resources);
  for (const warning of rig.warnings) stderr.write(`rigwright: warning: ${file}: ${warning}\n`);
  return { mesh: rig.mesh, weights: rig.weights, project: null };
}
