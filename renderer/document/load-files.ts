/**
 * Files into the scene: `loadBatchIntoDocument` builds a complete candidate from the current document and the files
 * of a batch that fit, validates all of it, and returns it with the files it left out and why; `loadIntoDocument`
 * takes a batch whole or not at all. The caller swaps documents whole, so the scene is never half changed.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import type { RigFile } from '../../workers/formats/read-file.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
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

/** A file of a batch that was not loaded: its name, and the reader's message naming the file, the place and the reason. */
export interface RefusedFile {
  file: string;
  message: string;
}

/** What a batch made of the scene: the new document, and the files left out of it. */
export interface BatchLoad {
  document: SceneDocument;
  /** the files that did not fit or could not be read, in batch order; empty when every file was loaded */
  refused: RefusedFile[];
}

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
 * Reads the files of a batch that fit into a candidate document based on `current`, leaving out each file that
 * cannot be read, does not fit the mesh and skeleton, or fails its reader's checks, and saying why (RefusedFile).
 * The rest is read as loadIntoDocument reads a whole batch: a broken mesh leaves the scene's mesh, and the batch's
 * other files are judged against it.
 * @param current  the scene now shown (never modified)
 * @param files    the batch, in any order
 * @param io       the file-reading worker
 * @param options  how examples are recognised and which pose an example without a pose file takes
 * @returns the new document, fully validated, and the files left out
 * @throws LoadError naming every file when none of the batch's files can be loaded, or when the batch is
 *   ambiguous (two skeletons, two weight files, …)
 */
export function loadBatchIntoDocument(
  current: SceneDocument,
  files: readonly OpenedFile[],
  io: IoClient,
  options: ExampleLoadOptions = {},
): Promise<BatchLoad> {
  return loadFiles(current, files, io, options, false);
}

/**
 * Reads a batch of files into a candidate document based on `current`.
 * Meshes (.obj/.off) and skeletons (.tgf, with their bone names from a .names file of the batch, else `bone N`)
 * apply first; then each .dmat is read against the candidate's sizes:
 * #V × #B → weights, 3·B·L × 3 or 4B × 1 → poses, #V × 1 → handles, 12·B × L → an animation of absolute bone
 * transforms (libigl's, transform-animation.ts), read as the scene's clip. A new mesh or skeleton without weights
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
  return (await loadFiles(current, files, io, options, true)).document;
}

/**
 * loadBatchIntoDocument (`strict` false) and loadIntoDocument (`strict` true: the first file refused throws, or every
 * unreadable file at once, one per line).
 */
async function loadFiles(
  current: SceneDocument,
  files: readonly OpenedFile[],
  io: IoClient,
  options: ExampleLoadOptions,
  strict: boolean,
): Promise<BatchLoad> {
  if (isGltfBatch(files)) return { document: await gltfIntoDocument(files, io), refused: [] };
  const refused: RefusedFile[] = [];
  /** Leaves a file out of the batch (strict: refuses the batch) with the error its reader gave. */
  const refuse = (file: string, error: unknown): void => {
    if (strict) throw error;
    refused.push({ file, message: fileErrorMessage(error, file) });
  };
  /** A reader's result, or null when it refused the file (which is then left out). */
  const readOrRefuse = async <T>(file: string, read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (error) {
      refuse(file, error);
      return null;
    }
  };
  // Material libraries and images go with the OBJ files of the batch; the rest are rig files.
  const materialFiles = files.filter((f) => isMaterialFile(f.name));
  const rigFiles = files.filter((f) => !isMaterialFile(f.name));
  if (rigFiles.length === 0) {
    throw new LoadError(
      `${materialFiles.map((f) => f.name).join(', ')}: material files and images go with the OBJ that uses them; open them together`,
    );
  }
  const settled = await Promise.allSettled(rigFiles.map((f) => io.readRigFile(f.name, f.bytes)));
  const failures = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ file: rigFiles[i].name, reason: s.reason as unknown }] : []));
  if (failures.length === rigFiles.length || (strict && failures.length > 0))
    throw new LoadError(failures.map((f) => fileErrorMessage(f.reason, f.file)).join('\n'));
  for (const failure of failures) refuse(failure.file, failure.reason);
  const { examples: exampleFiles, others: parsed } = partitionExamples(
    settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
    options,
  );

  const meshFiles = parsed.filter((f): f is MeshFile => f.kind === 'mesh');
  const meshFile = meshFiles.length > 0 ? sceneMesh(meshFiles, materialFiles) : null;
  const tgfFile = single(
    parsed.filter((f) => f.kind === 'skeleton'),
    'skeletons',
  );
  let builtSkeleton: Skeleton | null = null;
  try {
    if (tgfFile) builtSkeleton = buildSkeleton(tgfFile.skeleton, tgfFile.name);
  } catch (error) {
    refuse(tgfFile!.name, error);
  }
  const skeletonFile = builtSkeleton ? tgfFile : null;
  let namesFile = single(
    parsed.filter((f): f is NamesFile => f.kind === 'names'),
    'bone names files',
  );
  if (namesFile && !skeletonFile) {
    refuse(
      namesFile.name,
      new LoadError(
        tgfFile
          ? `${namesFile.name}: not loaded, since its skeleton ${tgfFile.name} was not`
          : `${namesFile.name}: a bone names file names the bones of its skeleton; open it together with its .tgf`,
      ),
    );
    namesFile = null;
  }
  const matrices = parsed.filter((f): f is MatrixFile => f.kind === 'matrix');

  const mesh = meshFile ? meshFile.mesh : current.mesh;
  // A mesh opened without a skeleton starts with none, unless it is the scene's own mesh again (same vertices and
  // triangles, moved or not: a re-export after a sculpt), which keeps the skeleton it is rigged with.
  const bare = meshFile !== null && !skeletonFile && !sameTopology(meshFile.mesh, current.mesh);
  const vertexCount = mesh.positions.length / 3;
  const none = bare ? noSkeleton(meshFile.name, vertexCount) : null;
  const skeleton = builtSkeleton ?? none?.skeleton ?? current.skeleton;
  const boneCount = skeleton.parents.length;
  let fileBoneNames: string[] | undefined;
  try {
    if (namesFile) fileBoneNames = parseBoneNames(namesFile.text, namesFile.name, boneCount);
  } catch (error) {
    refuse(namesFile!.name, error);
  }
  const warnings = meshFile ? [...meshFile.warnings] : [];
  if (!meshFile && materialFiles.length > 0)
    warnings.push(
      `${materialFiles.map((f) => f.name).join(', ')}: material files and images are read with the OBJ that uses them; open them together`,
    );

  const byRole = { weights: [] as MatrixFile[], poses: [] as MatrixFile[], handles: [] as MatrixFile[], animation: [] as MatrixFile[] };
  // Files with the shapes of both a pose file and an animation whose values fit neither: both readers are tried.
  const posesOrAnimation = new Set<MatrixFile>();
  for (const m of matrices) {
    const { role, fits, alsoFits } = dmatRole(m.matrix, vertexCount, boneCount);
    // A misfit is refused by the reader of its role, whose message names the role and says which sizes would fit.
    if (fits) {
      byRole[role].push(m);
      if (alsoFits) posesOrAnimation.add(m);
    } else await readOrRefuse(m.name, () => readAs(io, role, m, vertexCount, skeleton));
  }
  const weightsFile = single(byRole.weights, 'weight files');
  // A pose file and an animation are both the scene's clip.
  const posesFile = single([...byRole.poses, ...byRole.animation], 'pose files or animations');
  const handlesFile = single(byRole.handles, 'handle files');

  const rigChanged = meshFile !== null || skeletonFile !== null;
  const skeletonChanged = skeletonFile !== null || bare;
  let weights = current.weights;
  let weightsSource = current.weightsSource;
  const readWeights =
    weightsFile && !none
      ? await readOrRefuse(weightsFile.name, () => io.weightsFromDmat(weightsFile.matrix, vertexCount, boneCount, weightsFile.name))
      : null;
  if (none) {
    ({ weights, weightsSource } = none);
  } else if (readWeights) {
    weights = readWeights.weights;
    weightsSource = weightsFile!.name;
    warnings.push(...readWeights.warnings);
  } else if (rigChanged) {
    weights = await io.boneDistanceWeights(mesh.positions, skeleton);
    weightsSource = PROVISIONAL_WEIGHTS;
  }

  let poses = current.poses;
  let posesName = current.posesFile;
  const readPoses = posesFile
    ? await readOrRefuse(posesFile.name, () =>
        byRole.animation.includes(posesFile)
          ? io.poseSequenceFromTransforms(posesFile.matrix, skeleton, posesFile.name)
          : posesOrAnimation.has(posesFile)
            ? readPosesOrAnimation(io, posesFile, skeleton)
            : io.poseSequenceFromDmat(posesFile.matrix, boneCount, posesFile.name).then((read) => ({ poses: read, warnings: [] })),
      )
    : null;
  if (readPoses) {
    poses = readPoses.poses;
    posesName = posesFile!.name;
    warnings.push(...readPoses.warnings);
  } else if (skeletonChanged) {
    poses = null;
    posesName = null;
  }

  let handles = current.handles;
  let handlesName = current.handlesFile;
  const readHandles = handlesFile
    ? await readOrRefuse(handlesFile.name, () => io.handlesFromDmat(handlesFile.matrix, vertexCount, boneCount, handlesFile.name))
    : null;
  if (readHandles) {
    handles = readHandles;
    handlesName = handlesFile!.name;
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
    clips: skeletonChanged || readPoses ? undefined : current.clips,
    examples: examples.length > 0 ? examples : undefined,
    // Weights made anew (read, or bound by bone distance to a new rig) fit the skeleton; kept ones stay as they were.
    bindingStale: readWeights || rigChanged ? undefined : current.bindingStale,
  });
  assertConsistent(candidate);
  if (refused.length === rigFiles.length) throw new LoadError(refused.map((r) => r.message).join('\n'));
  return { document: candidate, refused };
}

/** Whether two meshes are the same mesh, its vertices maybe moved: as many vertices, the same triangles. */
function sameTopology(a: TriangleMesh, b: TriangleMesh): boolean {
  if (a.positions.length !== b.positions.length || a.triangles.length !== b.triangles.length) return false;
  for (let i = 0; i < a.triangles.length; i++) if (a.triangles[i] !== b.triangles[i]) return false;
  return true;
}

/**
 * A matrix with the shapes of both a pose file and an animation (12·B × 3) whose values pass neither check of
 * dmatRole: read as an animation (whose reader plays transforms that are not rigid as the nearest rotations), else
 * as a pose file.
 * @throws LoadError naming the file, both readings and each reader's reason when neither reader takes it
 */
async function readPosesOrAnimation(
  io: IoClient,
  file: MatrixFile,
  skeleton: Skeleton,
): Promise<{ poses: PoseSequence; warnings: string[] }> {
  const boneCount = skeleton.parents.length;
  try {
    return await io.poseSequenceFromTransforms(file.matrix, skeleton, file.name);
  } catch (asAnimation) {
    try {
      return { poses: await io.poseSequenceFromDmat(file.matrix, boneCount, file.name), warnings: [] };
    } catch (asPoses) {
      const { rows, cols } = file.matrix;
      const reason = (error: unknown): string => fileErrorMessage(error, file.name).slice(file.name.length + 2);
      throw new LoadError(
        `${file.name}: ${rows} × ${cols} has the shape of a pose file (${rows / (3 * boneCount)} frames of rotation matrices for ${boneCount} bones) and of an animation of absolute bone transforms (${cols} frames of 3×4 transforms for ${boneCount} bones), but reads as neither: as a pose file, ${reason(asPoses)}; as an animation, ${reason(asAnimation)}`,
      );
    }
  }
}

function readAs(io: IoClient, role: DmatRole, file: MatrixFile, vertexCount: number, skeleton: Skeleton): Promise<unknown> {
  const boneCount = skeleton.parents.length;
  switch (role) {
    case 'weights':
      return io.weightsFromDmat(file.matrix, vertexCount, boneCount, file.name);
    case 'poses':
      return io.poseSequenceFromDmat(file.matrix, boneCount, file.name);
    case 'handles':
      return io.handlesFromDmat(file.matrix, vertexCount, boneCount, file.name);
    case 'animation':
      return io.poseSequenceFromTransforms(file.matrix, skeleton, file.name);
  }
}
