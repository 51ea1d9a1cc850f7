/**
 * Files into the scene: `loadIntoDocument` builds a complete candidate from the current document and a batch of
 * files, validates all of it, and only then returns it. The caller swaps documents whole, so a failure anywhere
 * leaves the scene exactly as it was.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import type { RigFile } from '../../workers/formats/read-file.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { parseBoneNames } from '../../workers/formats/bone-names.ts';
import type { MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from '../../workers/formats/types.ts';
import { joinCorners, joinMeshes } from './mesh-parts.ts';
import { isMaterialFile, objLook } from '../../workers/formats/obj-materials.ts';
import { dmatRole, type DmatRole } from '../../workers/formats/dmat-role.ts';
import type { IoClient } from '../io/io-client.ts';
import { gltfIntoDocument, isGltfBatch } from './gltf-document.ts';
import { partitionExamples, readExamples, type ExampleLoadOptions } from './example-files.ts';
import {
  LoadError,
  PROVISIONAL_WEIGHTS,
  assertConsistent,
  examplesOf,
  fileErrorMessage,
  noSkeleton,
  withDerived,
  type SceneDocument,
} from '../../workers/scene/scene-document.ts';

type MatrixFile = Extract<RigFile, { kind: 'matrix' }>;
type MeshFile = Extract<RigFile, { kind: 'mesh' }>;
type NamesFile = Extract<RigFile, { kind: 'names' }>;

/**
 * The scene's mesh from the batch's mesh files: one file as it is, with its own parts (an OBJ's objects or groups) and
 * corners; several joined in batch order into one vertex list (joinMeshes) with a part per file, or per object of
 * a file that has several, so weights and handle DMATs of the same batch index the joined vertices. The OBJ files'
 * materials come from the batch's .mtl files and images (workers/formats/obj-materials.ts): the look, or none when no OBJ names one.
 */
function sceneMesh(
  files: readonly MeshFile[],
  materialFiles: readonly OpenedFile[],
): {
  name: string;
  names: string[];
  mesh: TriangleMesh;
  parts: MeshPart[] | undefined;
  corners: ObjCorners | undefined;
  look: SurfaceLook | undefined;
  warnings: string[];
} {
  const warnings = files.flatMap((f) => f.report.warnings.map((w) => `${f.name}: ${w}`));
  const names = files.map((f) => f.name);
  const materials = objLook(
    files.map((f) => ({
      name: f.name,
      materials: f.materials ?? [],
      materialLibraries: f.materialLibraries ?? [],
      parts: f.parts ?? null,
    })),
    materialFiles,
  );
  warnings.push(...materials.warnings);
  const look = materials.look ?? undefined;
  if (files.length === 1) {
    const [file] = files;
    return {
      name: file.name,
      names,
      mesh: file.mesh,
      parts: materials.parts[0] ?? undefined,
      corners: file.corners ?? undefined,
      look,
      warnings,
    };
  }
  const { mesh, parts } = joinMeshes(files.map((f, i) => ({ name: f.name, mesh: f.mesh, parts: materials.parts[i] ?? undefined })));
  const corners = joinCorners(files.map((f) => ({ corners: f.corners ?? null, triangleCount: f.mesh.triangles.length / 3 })));
  return { name: names.join(' + '), names, mesh, parts, corners, look, warnings };
}

function single<T extends { name: string }>(items: T[], what: string): T | null {
  if (items.length > 1) {
    throw new LoadError(`${items.map((i) => i.name).join(', ')}: ${items.length} ${what} at once; open one at a time`);
  }
  return items[0] ?? null;
}

/**
 * Reads a batch of files into a candidate document based on `current`.
 * Meshes (.obj/.off) and skeletons (.tgf, with their bone names from a .names file of the batch, else `bone N`)
 * apply first; then each .dmat is read against the candidate's sizes:
 * #V × #B → weights, 3·B·L × 3 or 4B × 1 → poses, #V × 1 → handles. A new mesh or skeleton without weights
 * in the batch is bound provisionally by bone distance; a new skeleton without poses starts in the rest pose. A mesh
 * without a skeleton in the batch, other than the scene's own mesh again, starts with no skeleton (0 bones, #V × 0
 * weights), to be built on it with the skeleton tool.
 * Example shapes and their poses are picked out first (example-files.ts) and added to the scene's examples; a new
 * mesh or skeleton drops the scene's examples (they belong to the old one).
 * @param current  the scene now shown (never modified)
 * @param files    the batch, in any order
 * @param io       the file-reading worker
 * @param options  how examples are recognised and which pose an example without a pose file takes
 * @returns the new document, fully validated
 * @throws FormatError or LoadError with a message naming file, place and reason (several, one per line,
 *   when several files fail to parse)
 */
export async function loadIntoDocument(
  current: SceneDocument,
  files: readonly OpenedFile[],
  io: IoClient,
  options: ExampleLoadOptions = {},
): Promise<SceneDocument> {
  if (isGltfBatch(files)) return gltfIntoDocument(files, io);
  // Material libraries and images go with the OBJ files of the batch; the rest are rig files.
  const materialFiles = files.filter((f) => isMaterialFile(f.name));
  const rigFiles = files.filter((f) => !isMaterialFile(f.name));
  if (rigFiles.length === 0) {
    throw new LoadError(
      `${materialFiles.map((f) => f.name).join(', ')}: material files and images go with the OBJ that uses them; open them together`,
    );
  }
  const settled = await Promise.allSettled(rigFiles.map((f) => io.readRigFile(f.name, f.bytes)));
  const failures = settled.flatMap((s, i) => (s.status === 'rejected' ? [fileErrorMessage(s.reason, rigFiles[i].name)] : []));
  if (failures.length > 0) throw new LoadError(failures.join('\n'));
  const { examples: exampleFiles, others: parsed } = partitionExamples(
    settled.map((s) => (s as PromiseFulfilledResult<RigFile>).value),
    options,
  );

  const meshFiles = parsed.filter((f): f is MeshFile => f.kind === 'mesh');
  const meshFile = meshFiles.length > 0 ? sceneMesh(meshFiles, materialFiles) : null;
  const skeletonFile = single(
    parsed.filter((f) => f.kind === 'skeleton'),
    'skeletons',
  );
  const namesFile = single(
    parsed.filter((f): f is NamesFile => f.kind === 'names'),
    'bone names files',
  );
  if (namesFile && !skeletonFile) {
    throw new LoadError(`${namesFile.name}: a bone names file names the bones of its skeleton; open it together with its .tgf`);
  }
  const matrices = parsed.filter((f): f is MatrixFile => f.kind === 'matrix');

  const mesh = meshFile ? meshFile.mesh : current.mesh;
  // A mesh opened without a skeleton starts with none, unless it is the scene's own mesh again (same vertices and
  // triangles, moved or not: a re-export after a sculpt), which keeps the skeleton it is rigged with.
  const bare = meshFile !== null && !skeletonFile && !sameTopology(meshFile.mesh, current.mesh);
  const vertexCount = mesh.positions.length / 3;
  const none = bare ? noSkeleton(meshFile.name, vertexCount) : null;
  const skeleton = skeletonFile ? buildSkeleton(skeletonFile.skeleton, skeletonFile.name) : (none?.skeleton ?? current.skeleton);
  const boneCount = skeleton.parents.length;
  const fileBoneNames = namesFile ? parseBoneNames(namesFile.text, namesFile.name, boneCount) : undefined;
  const warnings = meshFile ? [...meshFile.warnings] : [];
  if (!meshFile && materialFiles.length > 0)
    warnings.push(
      `${materialFiles.map((f) => f.name).join(', ')}: material files and images are read with the OBJ that uses them; open them together`,
    );

  const byRole = { weights: [] as MatrixFile[], poses: [] as MatrixFile[], handles: [] as MatrixFile[] };
  for (const m of matrices) {
    const { role, fits } = dmatRole(m.matrix, vertexCount, boneCount);
    // A misfit is refused by its reader, whose message says which sizes would fit.
    if (!fits) await readAs(io, role, m, vertexCount, boneCount);
    byRole[role].push(m);
  }
  const weightsFile = single(byRole.weights, 'weight files');
  const posesFile = single(byRole.poses, 'pose files');
  const handlesFile = single(byRole.handles, 'handle files');

  const rigChanged = meshFile !== null || skeletonFile !== null;
  const skeletonChanged = skeletonFile !== null || bare;
  let weights = current.weights;
  let weightsSource = current.weightsSource;
  if (none) {
    ({ weights, weightsSource } = none);
  } else if (weightsFile) {
    const read = await io.weightsFromDmat(weightsFile.matrix, vertexCount, boneCount, weightsFile.name);
    weights = read.weights;
    weightsSource = weightsFile.name;
    warnings.push(...read.warnings);
  } else if (rigChanged) {
    weights = await io.boneDistanceWeights(mesh.positions, skeleton);
    weightsSource = PROVISIONAL_WEIGHTS;
  }

  let poses = current.poses;
  let posesName = current.posesFile;
  if (posesFile) {
    poses = await io.poseSequenceFromDmat(posesFile.matrix, boneCount, posesFile.name);
    posesName = posesFile.name;
  } else if (skeletonChanged) {
    poses = null;
    posesName = null;
  }

  let handles = current.handles;
  let handlesName = current.handlesFile;
  if (handlesFile) {
    handles = await io.handlesFromDmat(handlesFile.matrix, vertexCount, boneCount, handlesFile.name);
    handlesName = handlesFile.name;
  } else if (rigChanged) {
    handles = null;
    handlesName = null;
  }

  const kept = rigChanged ? [] : examplesOf(current);
  const added = await readExamples(
    exampleFiles,
    mesh,
    boneCount,
    kept.map((e) => e.name),
    io,
    options,
  );
  for (const example of exampleFiles) warnings.push(...example.mesh.report.warnings.map((w) => `${example.mesh.name}: ${w}`));
  const examples = [...kept, ...added];

  const candidate = withDerived({
    name: meshFile ? meshFile.name : current.name,
    meshFiles: meshFile ? meshFile.names : current.meshFiles,
    mesh,
    parts: meshFile ? meshFile.parts : current.parts,
    look: meshFile ? meshFile.look : current.look,
    objCorners: meshFile ? meshFile.corners : current.objCorners,
    skeletonFile: skeletonFile ? skeletonFile.name : bare ? null : current.skeletonFile,
    skeleton,
    weights,
    weightsSource,
    poses,
    posesFile: posesName,
    handles,
    handlesFile: handlesName,
    warnings,
    boneNames: skeletonChanged ? fileBoneNames : current.boneNames,
    // The locks are the skeleton's bones': a new skeleton has none locked.
    paintLocks: skeletonChanged ? undefined : current.paintLocks,
    clips: skeletonChanged || posesFile ? undefined : current.clips,
    examples: examples.length > 0 ? examples : undefined,
    // Weights made anew (read, or bound by bone distance to a new rig) fit the skeleton; kept ones stay as they were.
    bindingStale: weightsFile || rigChanged ? undefined : current.bindingStale,
  });
  assertConsistent(candidate);
  return candidate;
}

/** Whether two meshes are the same mesh, its vertices maybe moved: as many vertices, the same triangles. */
function sameTopology(a: TriangleMesh, b: TriangleMesh): boolean {
  if (a.positions.length !== b.positions.length || a.triangles.length !== b.triangles.length) return false;
  for (let i = 0; i < a.triangles.length; i++) if (a.triangles[i] !== b.triangles[i]) return false;
  return true;
}

function readAs(io: IoClient, role: DmatRole, file: MatrixFile, vertexCount: number, boneCount: number): Promise<unknown> {
  switch (role) {
    case 'weights':
      return io.weightsFromDmat(file.matrix, vertexCount, boneCount, file.name);
    case 'poses':
      return io.poseSequenceFromDmat(file.matrix, boneCount, file.name);
    case 'handles':
      return io.handlesFromDmat(file.matrix, vertexCount, boneCount, file.name);
  }
}
