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
import { baseName, partitionExamples, readExamples, type ExampleLoadOptions } from './example-files.ts';
import { fileExtension } from '../../workers/formats/file-name.ts';
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

/** A kind of file a batch holds one of, as messages name it. */
interface FileKind {
  one: string;
  many: string;
}
const SKELETONS: FileKind = { one: 'skeleton', many: 'skeletons' };
const NAMES_FILES: FileKind = { one: 'bone names file', many: 'bone names files' };
const WEIGHT_FILES: FileKind = { one: 'weight file', many: 'weight files' };
const CLIP_FILES: FileKind = { one: 'pose file or animation', many: 'pose files or animations' };
const HANDLE_FILES: FileKind = { one: 'handle file', many: 'handle files' };
/** Extensions of the mesh files a batch's rig files go with. */
const MESH_EXTENSIONS: ReadonlySet<string> = new Set(['obj', 'off']);

/**
 * Reads the files of a batch that fit into a candidate document based on `current`, leaving out each file that
 * cannot be read, does not fit the mesh and skeleton, or fails its reader's checks, and saying why (RefusedFile).
 * The rest is read as loadIntoDocument reads a whole batch. Files that depend on one left out go with it: when the
 * batch's own mesh cannot be read and the batch brings a skeleton, every other file of the batch (the skeleton,
 * bone names, weights, clip, handles, examples) is left out as "not loaded, since its mesh X could not be read"
 * rather than bound to the scene's mesh as a new scene; without a skeleton, the meshes joined with it and the DMATs
 * that do not fit the scene as it is are (those that fit are an edit of the scene, as on their own). An example's
 * pose goes with its mesh, a bone names file with its skeleton. Of two files of a kind (skeletons,
 * weights, clips, handles, bone names) the first that reads is loaded, the others left out as a second one.
 * @param current  the scene now shown (never modified)
 * @param files    the batch, in any order
 * @param io       the file-reading worker
 * @param options  how examples are recognised and which pose an example without a pose file takes
 * @returns the new document, fully validated, and the files left out
 * @throws LoadError naming every file, one per line, when none of the batch's files can be loaded
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
  /**
   * Of the batch's files of one kind, the first its reader takes: each one before it that the reader refuses is
   * left out with the reader's reason, each one after it as a second of its kind. Taken whole (strict), a batch
   * with two of a kind is refused.
   */
  const firstRead = async <F extends { name: string }, T>(
    items: readonly F[],
    kind: FileKind,
    read: (file: F) => Promise<T>,
  ): Promise<{ file: F; value: T } | null> => {
    if (strict && items.length > 1)
      throw new LoadError(`${items.map((i) => i.name).join(', ')}: ${items.length} ${kind.many} at once; open one at a time`);
    let first: { file: F; value: T } | null = null;
    for (const file of items) {
      if (first) {
        const chosen = first.file.name;
        refuse(
          file.name,
          new LoadError(
            `${file.name}: a second ${kind.one}: this batch's ${kind.one} is ${chosen}; open ${file.name} on its own to use it instead`,
          ),
        );
      } else {
        const value = await readOrRefuse(file.name, () => read(file));
        if (value !== null) first = { file, value };
      }
    }
    return first;
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
  let readable = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  // A mesh that could not be read takes the files that go with it along, rather than leaving them to be bound to
  // the scene's mesh: an example's pose file; for the batch's own mesh, every other file of the batch when it
  // brings a skeleton (a new rig for that mesh), else the meshes joined with it and the DMATs that do not fit the
  // scene as it is (those that do are an edit of it, as on their own).
  const poseBases = new Set(readable.filter((f) => f.kind === 'matrix').map((f) => baseName(f.name)));
  const brokenMeshes = failures.map((f) => f.file).filter((name) => MESH_EXTENSIONS.has(fileExtension(name)));
  const pairedExamples = readable.some((f) => f.kind === 'mesh' && poseBases.has(baseName(f.name)));
  const withSkeleton = readable.some((f) => f.kind === 'skeleton');
  const brokenSceneMesh = options.asExamples
    ? undefined
    : brokenMeshes.find((name) => !poseBases.has(baseName(name)) && (!pairedExamples || withSkeleton));
  if (brokenSceneMesh && withSkeleton) {
    for (const f of readable) refuse(f.name, new LoadError(`${f.name}: not loaded, since its mesh ${brokenSceneMesh} could not be read`));
    throw new LoadError(refused.map((r) => r.message).join('\n'));
  }
  const brokenExampleBases = new Set(brokenMeshes.map((name) => baseName(name)));
  readable = readable.filter((f) => {
    if (f.kind !== 'matrix' || !brokenExampleBases.has(baseName(f.name))) return true;
    const mesh = brokenMeshes.find((name) => baseName(name) === baseName(f.name));
    refuse(f.name, new LoadError(`${f.name}: not loaded, since its example ${mesh} could not be read`));
    return false;
  });
  const partition = partitionExamples(readable, options);
  const exampleFiles = partition.examples;
  const parsed = partition.others.filter((f) => {
    if (!brokenSceneMesh || f.kind !== 'mesh') return true;
    refuse(f.name, new LoadError(`${f.name}: not loaded, since ${brokenSceneMesh}, opened with it as one mesh, could not be read`));
    return false;
  });

  const meshFiles = parsed.filter((f): f is MeshFile => f.kind === 'mesh');
  const meshFile = meshFiles.length > 0 ? sceneMesh(meshFiles, materialFiles) : null;
  const tgfFiles = parsed.filter((f) => f.kind === 'skeleton');
  const readSkeleton = await firstRead(tgfFiles, SKELETONS, async (f) => buildSkeleton(f.skeleton, f.name));
  const builtSkeleton = readSkeleton?.value ?? null;
  const skeletonFile = readSkeleton?.file ?? null;
  let namesFiles = parsed.filter((f): f is NamesFile => f.kind === 'names');
  if (namesFiles.length > 0 && !skeletonFile) {
    for (const namesFile of namesFiles)
      refuse(
        namesFile.name,
        new LoadError(
          tgfFiles.length > 0
            ? `${namesFile.name}: not loaded, since its skeleton ${tgfFiles.map((f) => f.name).join(', ')} was not`
            : `${namesFile.name}: a bone names file names the bones of its skeleton; open it together with its .tgf`,
        ),
      );
    namesFiles = [];
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
  const fileBoneNames = (await firstRead(namesFiles, NAMES_FILES, async (f) => parseBoneNames(f.text, f.name, boneCount)))?.value;
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
    } else if (
      (await readOrRefuse(m.name, () =>
        readAs(io, role, m, vertexCount, skeleton).catch((error: unknown) => {
          if (!brokenSceneMesh) throw error;
          const reason = fileErrorMessage(error, m.name).slice(m.name.length + 2);
          throw new LoadError(
            `${m.name}: not loaded, since its mesh ${brokenSceneMesh} could not be read (nor does it fit this scene: ${reason})`,
          );
        }),
      )) !== null
    ) {
      // The reader took a shape that fits no role here: left out all the same, saying what would fit.
      refuse(m.name, new LoadError(misfitMessage(m, vertexCount, boneCount)));
    }
  }

  const rigChanged = meshFile !== null || skeletonFile !== null;
  const skeletonChanged = skeletonFile !== null || bare;
  let weights = current.weights;
  let weightsSource = current.weightsSource;
  const readWeights = none
    ? null
    : await firstRead(byRole.weights, WEIGHT_FILES, (f) => io.weightsFromDmat(f.matrix, vertexCount, boneCount, f.name));
  if (none) {
    ({ weights, weightsSource } = none);
  } else if (readWeights) {
    weights = readWeights.value.weights;
    weightsSource = readWeights.file.name;
    warnings.push(...readWeights.value.warnings);
  } else if (rigChanged) {
    weights = await io.boneDistanceWeights(mesh.positions, skeleton);
    weightsSource = PROVISIONAL_WEIGHTS;
  }

  let poses = current.poses;
  let posesName = current.posesFile;
  // A pose file and an animation are both the scene's clip.
  const readPoses = await firstRead([...byRole.poses, ...byRole.animation], CLIP_FILES, (f) =>
    byRole.animation.includes(f)
      ? io.poseSequenceFromTransforms(f.matrix, skeleton, f.name)
      : posesOrAnimation.has(f)
        ? readPosesOrAnimation(io, f, skeleton)
        : io.poseSequenceFromDmat(f.matrix, boneCount, f.name).then((read) => ({ poses: read, warnings: [] })),
  );
  if (readPoses) {
    poses = readPoses.value.poses;
    posesName = readPoses.file.name;
    warnings.push(...readPoses.value.warnings);
  } else if (skeletonChanged) {
    poses = null;
    posesName = null;
  }

  let handles = current.handles;
  let handlesName = current.handlesFile;
  const readHandles = await firstRead(byRole.handles, HANDLE_FILES, (f) => io.handlesFromDmat(f.matrix, vertexCount, boneCount, f.name));
  if (readHandles) {
    handles = readHandles.value;
    handlesName = readHandles.file.name;
  } else if (rigChanged) {
    handles = null;
    handlesName = null;
  }

  const kept = rigChanged ? [] : examplesOf(current);
  const { examples: added, refused: refusedExamples } = await readExamples(
    exampleFiles,
    mesh,
    boneCount,
    kept.map((e) => e.name),
    io,
    options,
  );
  // Taken whole, one broken example refuses the batch, naming every example at fault.
  if (strict && refusedExamples.length > 0) throw new LoadError(refusedExamples.map((e) => e.reason).join('\n'));
  for (const example of refusedExamples) for (const { file, message } of example.files) refuse(file, new LoadError(message));
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

/** Why a DMAT that fits no role for this mesh and skeleton is left out, with the shapes that would fit. */
function misfitMessage(file: MatrixFile, vertexCount: number, boneCount: number): string {
  const { rows, cols } = file.matrix;
  return `${file.name}: ${rows} × ${cols} fits nothing this mesh of ${vertexCount} vertices and skeleton of ${boneCount} bones read: weights are ${vertexCount} × ${boneCount}, poses ${3 * boneCount}·L × 3 or ${4 * boneCount} × 1, handles ${vertexCount} × 1, an animation ${12 * boneCount} × L`;
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
