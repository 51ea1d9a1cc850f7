/**
 * Example shapes from a batch of files (context-aware deformation, handout Sec. 8). Which meshes of a batch are
 * examples, and which DMATs are their poses:
 * - a mesh and a DMAT with the same base name (`eg0.obj` + `eg0.dmat`) are an example and its pose;
 * - a batch added as examples (the Examples panel's Add) makes every mesh an example;
 * - a batch with paired examples makes its other meshes examples too, except a single unpaired mesh that comes
 *   with a skeleton: that is the scene's new rest mesh (the body and its examples dropped at once);
 * - otherwise a mesh is the scene's mesh, as before.
 * An example without a pose in the batch takes the default pose the caller gives (the pose shown in the viewport,
 * or a chosen frame of the loaded sequence). An example must have the rest mesh's vertex count and triangles, and
 * its pose one relative rotation per bone; otherwise the example is left out, naming the file and the first difference.
 */
import { baseName as nameWithoutFolders } from '../../workers/formats/file-name.ts';
import type { RigFile } from '../../workers/formats/read-file.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { checkExampleMesh } from '../../workers/posespace/unpose.ts';
import type { IoClient } from '../io/io-client.ts';
import { LoadError, type ExampleShape } from '../../workers/scene/scene-document.ts';

type MeshFile = Extract<RigFile, { kind: 'mesh' }>;
type MatrixFile = Extract<RigFile, { kind: 'matrix' }>;

/** The pose an example without a pose file takes: #B × 9 relative rotations and where they came from. */
export interface DefaultExamplePose {
  rotations: Float64Array;
  source: string;
}

export interface ExampleLoadOptions {
  /** every mesh of the batch is an example */
  asExamples?: boolean;
  /** the pose of an example that has none in the batch, for a skeleton of `boneCount` bones (null: none known) */
  defaultPose?: (boneCount: number) => DefaultExamplePose | null;
}

/** `dir/eg0.obj` → `eg0` */
export function baseName(file: string): string {
  const name = nameWithoutFolders(file);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

export interface ExampleBatch {
  /** the examples, each with its pose file or null (the default pose) */
  examples: { mesh: MeshFile; pose: MatrixFile | null }[];
  /** the files that are not examples or their poses, loaded as before */
  others: RigFile[];
}

/** Splits a parsed batch into examples (with their pose files) and the other files, by the rules above. */
export function partitionExamples(parsed: readonly RigFile[], options: ExampleLoadOptions = {}): ExampleBatch {
  const meshes = parsed.filter((f): f is MeshFile => f.kind === 'mesh');
  const matrices = parsed.filter((f): f is MatrixFile => f.kind === 'matrix');
  const poseByBase = new Map<string, MatrixFile>();
  const meshBases = new Set(meshes.map((m) => baseName(m.name)));
  for (const m of matrices) if (meshBases.has(baseName(m.name))) poseByBase.set(baseName(m.name), m);
  const paired = meshes.filter((m) => poseByBase.has(baseName(m.name)));
  const unpaired = meshes.filter((m) => !poseByBase.has(baseName(m.name)));
  const hasSkeleton = parsed.some((f) => f.kind === 'skeleton');
  let unpairedExamples: MeshFile[] = [];
  if (options.asExamples) unpairedExamples = unpaired;
  else if (paired.length > 0) unpairedExamples = hasSkeleton && unpaired.length === 1 ? [] : unpaired;
  const exampleMeshes = new Set<RigFile>([...paired, ...unpairedExamples]);
  const usedPoses = new Set<RigFile>(paired.map((m) => poseByBase.get(baseName(m.name))!));
  return {
    examples: meshes.filter((m) => exampleMeshes.has(m)).map((mesh) => ({ mesh, pose: poseByBase.get(baseName(mesh.name)) ?? null })),
    others: parsed.filter((f) => !exampleMeshes.has(f) && !usedPoses.has(f)),
  };
}

/** A name not in `taken`: `name`, else `name 2`, `name 3`, … */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  let i = 2;
  while (taken.has(`${name} ${i}`)) i++;
  return `${name} ${i}`;
}

/** An example of a batch that was not read: each of its files (the mesh, and its pose file when it has one) with why. */
export interface RefusedExample {
  /** the message of the file at fault, naming it, the place and the reason */
  reason: string;
  files: { file: string; message: string }[];
}

/**
 * Reads and checks the examples of a batch against the rest mesh and skeleton they will belong to. An example that
 * fails is left out: its mesh and its pose file are listed with the reason, the one at fault with its own message,
 * the other as not loaded since that one was not.
 * @param existing  names already in the scene (the new ones are made unique against them)
 * @returns the examples read, and those left out (one entry per example)
 */
export async function readExamples(
  batch: ExampleBatch['examples'],
  rest: TriangleMesh,
  boneCount: number,
  existing: readonly string[],
  io: IoClient,
  options: ExampleLoadOptions,
): Promise<{ examples: ExampleShape[]; refused: RefusedExample[] }> {
  const refused: RefusedExample[] = [];
  const taken = new Set(existing);
  const out: ExampleShape[] = [];
  for (const { mesh, pose } of batch) {
    /** Leaves this example out: the mesh's own problem, or its pose file's. */
    const leaveOut = (error: unknown, atFault: 'mesh' | 'pose'): void => {
      const message = error instanceof Error ? error.message : String(error);
      const files = [{ file: atFault === 'mesh' ? mesh.name : pose!.name, message }];
      if (pose && atFault === 'mesh')
        files.push({ file: pose.name, message: `${pose.name}: not loaded, since its example ${mesh.name} was not` });
      if (atFault === 'pose') files.unshift({ file: mesh.name, message: `${mesh.name}: not loaded, since its pose ${pose!.name} was not` });
      refused.push({ reason: message, files });
    };
    try {
      checkExampleMesh(rest, mesh.mesh, mesh.name);
    } catch (error) {
      leaveOut(error, 'mesh');
      continue;
    }
    let rotations: Float64Array;
    let poseSource: string;
    if (pose) {
      const { rows, cols } = pose.matrix;
      if (cols !== 3 || rows !== 3 * boneCount) {
        const fits = cols === 3 && rows % 3 === 0 ? ` (a pose for ${rows / 3} bones)` : '';
        leaveOut(
          `${pose.name}: ${rows} × ${cols}${fits}; the pose of example ${mesh.name} must be ${3 * boneCount} × 3, one rotation for each of the skeleton's ${boneCount} bones`,
          'pose',
        );
        continue;
      }
      try {
        const read = await io.poseSequenceFromDmat(pose.matrix, boneCount, pose.name);
        if (read.kind !== 'matrices') throw new LoadError(`${pose.name}: not a matrix pose`);
        rotations = read.rotations.slice(0, 9 * boneCount);
      } catch (error) {
        leaveOut(error, 'pose');
        continue;
      }
      poseSource = pose.name;
    } else {
      const fallback = options.defaultPose?.(boneCount) ?? null;
      if (!fallback || fallback.rotations.length !== 9 * boneCount) {
        leaveOut(`${mesh.name}: no pose for this example; add ${baseName(mesh.name)}.dmat (${3 * boneCount} × 3) with it`, 'mesh');
        continue;
      }
      rotations = fallback.rotations.slice();
      poseSource = fallback.source;
    }
    const name = uniqueName(baseName(mesh.name), taken);
    taken.add(name);
    out.push({ name, file: mesh.name, positions: mesh.mesh.positions, pose: rotations, poseSource, hidden: false });
  }
  return { examples: out, refused };
}
