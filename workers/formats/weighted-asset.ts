/**
 * A weighted mesh read from files, to carry its weights onto a mesh of the scene (weight transfer from a file): a
 * project (.rig.glb), a rigged glTF (.glb, or .gltf with its buffers), or a mesh (.obj, .off) with its weights (.dmat)
 * and, optionally, its skeleton (.tgf) and bone names (.names), as `rigwright transfer --from` takes them. Then the
 * file's bones are fitted to the scene's: by name where both have names, else by count.
 */
import type { DenseMatrix, TriangleMesh } from './types.ts';
import { FormatError } from './format-error.ts';
import { baseName, fileExtension } from './file-name.ts';
import { gltfResources } from './gltf-resource-uris.ts';
import { importGltf } from './gltf-import.ts';
import { isProjectFile, readProjectFile } from './project-file.ts';
import { readRigFile, type RigFile } from './read-file.ts';
import { weightsFromDmat } from './weights-file.ts';
import { parseBoneNames } from './bone-names.ts';

/** A file as the app's file opening gives it: its base name and bytes. */
export interface AssetFile {
  name: string;
  bytes: Uint8Array;
}

/** A mesh with its weights, read from a file (or a mesh file and its weight file). */
export interface WeightedAsset {
  /** the file the messages name: the project, the glTF, or the mesh file with its weight file (`a.obj + a.dmat`) */
  file: string;
  mesh: TriangleMesh;
  /** #V × #B row-major, one column per bone of the file, in its order */
  weights: DenseMatrix;
  /** #B bone names, or null when the file names none (a DMAT alone, a TGF without a .names file) */
  boneNames: string[] | null;
  /** what the readers warned of, each naming its file */
  warnings: string[];
}

/** The extensions the file dialog offers for a weighted asset. */
export const WEIGHTED_ASSET_EXTENSIONS = ['glb', 'gltf', 'bin', 'obj', 'off', 'dmat', 'tgf', 'names'] as const;

/**
 * Reads a weighted mesh from the files of one batch.
 * @param files  one project or glTF (with the .bin and images a .gltf names, matched by base name), or one mesh file
 *               with one weight file, and optionally one skeleton and its bone names file
 * @returns the mesh, its weights and its bone names
 * @throws FormatError naming the file and the reason: no weights in it, files that do not go together, a reader's error
 */
export async function readWeightedAsset(files: readonly AssetFile[]): Promise<WeightedAsset> {
  if (files.length === 0) throw new FormatError('(no file)', '', 'no file was given to take weights from');
  const gltf = files.filter((f) => ['glb', 'gltf'].includes(fileExtension(f.name)));
  if (gltf.length > 1) throw new FormatError(gltf.map((f) => f.name).join(', '), '', 'take weights from one glTF or project at a time');
  if (gltf.length === 1) return readGltfAsset(gltf[0], files);
  return readMeshAndWeights(files);
}

async function readGltfAsset(asset: AssetFile, files: readonly AssetFile[]): Promise<WeightedAsset> {
  if (isProjectFile(asset.bytes)) {
    const { scene, notices } = readProjectFile(asset.bytes, asset.name);
    return {
      file: asset.name,
      mesh: scene.mesh,
      weights: scene.weights,
      boneNames: scene.boneNames,
      warnings: notices,
    };
  }
  const byName = new Map(files.filter((f) => f !== asset).map((f) => [f.name, f.bytes]));
  const resources: Record<string, Uint8Array> = {};
  const warnings: string[] = [];
  for (const { uri } of gltfResources(asset.bytes, asset.name)) {
    let decoded = uri;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      // A malformed escape is matched as written.
    }
    const bytes = byName.get(baseName(decoded));
    if (bytes) resources[decoded] = bytes;
    // A missing buffer fails in the importer, which names it; images are not needed for weights.
  }
  const rig = await importGltf(asset.bytes, asset.name, resources);
  warnings.push(...rig.warnings.map((w) => `${asset.name}: ${w}`));
  if (rig.weights.cols === 0) throw new FormatError(asset.name, '', 'the file has no skin: there are no weights to take');
  return { file: asset.name, mesh: rig.mesh, weights: rig.weights, boneNames: rig.boneNames, warnings };
}

type Read<K extends RigFile['kind']> = Extract<RigFile, { kind: K }>;

async function readMeshAndWeights(files: readonly AssetFile[]): Promise<WeightedAsset> {
  const read = files.map((f) => readRigFile(f.name, f.bytes));
  const of = <K extends RigFile['kind']>(kind: K) => read.filter((f): f is Read<K> => f.kind === kind);
  const [meshes, matrices, skeletons, names] = [of('mesh'), of('matrix'), of('skeleton'), of('names')];
  const all = files.map((f) => f.name).join(', ');
  if (meshes.length !== 1 || matrices.length !== 1 || skeletons.length > 1 || names.length > (skeletons.length === 1 ? 1 : 0))
    throw new FormatError(
      all,
      '',
      'give a project or a rigged glTF, or one mesh (.obj, .off) with its weights (.dmat), and at most its skeleton (.tgf) with its bone names (.names)',
    );
  const [mesh] = meshes;
  const [matrix] = matrices;
  const vertexCount = mesh.mesh.positions.length / 3;
  const boneCount = skeletons.length === 1 ? skeletons[0].skeleton.bones.length / 2 : matrix.matrix.cols;
  const { weights, warnings } = weightsFromDmat(matrix.matrix, vertexCount, boneCount, matrix.name);
  const boneNames = names.length === 1 ? parseBoneNames(names[0].text, names[0].name, boneCount) : null;
  return {
    file: `${mesh.name} + ${matrix.name}`,
    mesh: mesh.mesh,
    weights,
    boneNames,
    warnings: [...mesh.report.warnings.map((w) => `${mesh.name}: ${w}`), ...warnings.map((w) => `${matrix.name}: ${w}`)],
  };
}

/** How a file's bones were matched to the scene's. */
export type BoneFit = 'name' | 'count';

/**
 * The file's weights with the scene's columns: by name when both the file and the scene name their bones (each file
 * bone that carries weight goes to the scene bone of its name; scene bones the file lacks get 0), else by count (the
 * columns as they are, when the counts agree).
 * @param asset       the weighted file
 * @param sceneNames  the scene's #B bone names, or null when it names none (bones called `bone N`)
 * @param boneCount   the scene's #B
 * @returns #V × #B weights in the scene's bone order, and how the bones were matched
 * @throws FormatError naming the file: the counts differ (by count), a bone with weight has no namesake in the
 *         scene or two bones share a name (by name)
 */
export function fitAssetBones(
  asset: Pick<WeightedAsset, 'file' | 'weights' | 'boneNames'>,
  sceneNames: readonly string[] | null,
  boneCount: number,
): { weights: Float64Array; fit: BoneFit } {
  const { rows, cols, data } = asset.weights;
  if (!asset.boneNames || !sceneNames) {
    const unnamed = !asset.boneNames ? 'the file names no bones' : 'the scene’s bones have no names';
    if (cols !== boneCount)
      throw new FormatError(
        asset.file,
        '',
        `its weights are for ${cols} bones and the scene has ${boneCount}; bones are matched by count, since ${unnamed}`,
      );
    return { weights: data.slice(), fit: 'count' };
  }
  const sceneIndex = new Map<string, number>();
  sceneNames.forEach((name, b) => sceneIndex.set(name, b));
  const seen = new Set<string>();
  const column = new Int32Array(cols).fill(-1);
  const missing: string[] = [];
  for (let b = 0; b < cols; b++) {
    const name = asset.boneNames[b];
    if (seen.has(name)) throw new FormatError(asset.file, `bone ${b}`, `two bones are named "${name}": bones are matched by name`);
    seen.add(name);
    column[b] = sceneIndex.get(name) ?? -1;
    if (column[b] >= 0) continue;
    let weighs = false;
    for (let v = 0; v < rows && !weighs; v++) weighs = data[v * cols + b] > 0;
    if (weighs) missing.push(name);
  }
  if (missing.length > 0) {
    const shown = missing.slice(0, 5).map((n) => `"${n}"`);
    const more = missing.length > 5 ? ` and ${missing.length - 5} more` : '';
    throw new FormatError(
      asset.file,
      '',
      `the scene has no bone named ${shown.join(', ')}${more}, which carry weight in the file; bones are matched by name (rename them, or transfer from a file whose bones are the scene’s)`,
    );
  }
  const weights = new Float64Array(rows * boneCount);
  for (let v = 0; v < rows; v++)
    for (let b = 0; b < cols; b++) if (column[b] >= 0) weights[v * boneCount + column[b]] += data[v * cols + b];
  return { weights, fit: 'name' };
}
