/**
 * Runs one input through the reader of its format and classifies how it ended: a result whose data is finite and
 * in range, a clear error (a FormatError naming the file, short, with no engine-internal wording), or anything
 * else, which is a failure.
 */
import { FormatError } from '../../workers/formats/format-error.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfResourceUris } from '../../workers/formats/gltf-resource-uris.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import { readRigFile, type RigFile } from '../../workers/formats/read-file.ts';
import { readMtl, type MtlFile } from '../../workers/formats/mtl.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import type { DmatRole, FuzzFormat } from './corpus.ts';

/** Longest message a clear error may have. */
export const MAX_MESSAGE_LENGTH = 500;

/** Wording of engine errors that must never reach a user, even inside a FormatError. */
const INTERNAL_WORDING =
  /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not defined|Offset is outside|Invalid typed array length|Invalid array length|Maximum call stack|allocation failed|out of memory|out of bounds|undefined|\[object /i;

export type OutcomeKind =
  'result' | 'clear error' | 'other exception' | 'internal message' | 'bad result' | 'long message' | 'hang' | 'crash';

export interface Outcome {
  kind: OutcomeKind;
  /** the error message or what is wrong with the result (shortened) */
  detail: string;
}

const shorten = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text);

/** What is wrong with a result, or '' when it is sound. */
function checkArray(what: string, data: ArrayLike<number>, min = -Infinity, max = Infinity): string {
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) return `${what}[${i}] is ${v}`;
    if (v < min || v > max) return `${what}[${i}] = ${v} outside [${min}, ${max}]`;
  }
  return '';
}

/** Every number in a nested result (objects, arrays, typed arrays) is finite. */
function checkFinite(path: string, value: unknown, depth = 0): string {
  if (typeof value === 'number') return Number.isFinite(value) ? '' : `${path} is ${value}`;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return checkArray(path, value as unknown as ArrayLike<number>);
  if (typeof value !== 'object' || value === null || depth > 20) return '';
  for (const [key, entry] of Object.entries(value)) {
    const problem = checkFinite(`${path}.${key}`, entry, depth + 1);
    if (problem) return problem;
  }
  return '';
}

/**
 * Rotation-matrix poses: entries within [−1, 1] widened by `tolerance`. The pose-file reader accepts matrices whose
 * R·Rᵀ is off the identity by up to 1e-3 per entry (POSE_FILE_TOLERANCE), so an entry may reach √1.001 ≈ 1.0005;
 * glTF clips are exact polar factors.
 */
const POSE_FILE_TOLERANCE = 1e-3;

function checkPoses(poses: PoseSequence, boneCount: number, tolerance = 1e-6): string {
  if (poses.boneCount !== boneCount) return `poses for ${poses.boneCount} bones, not ${boneCount}`;
  if (poses.kind === 'quaternions') return checkArray('quaternion', poses.final, -1 - 1e-9, 1 + 1e-9);
  if (poses.rotations.length !== 9 * poses.boneCount * poses.frameCount) return 'rotation count does not match frames × bones';
  return (
    checkArray('rotation', poses.rotations, -1 - tolerance, 1 + tolerance) ||
    (poses.translations ? checkArray('translation', poses.translations) : '') ||
    (poses.translations && poses.translations.length !== 3 * poses.boneCount * poses.frameCount ? 'translation count' : '')
  );
}

function checkRigFile(file: RigFile): string {
  if (file.kind === 'mesh') {
    const { positions, triangles } = file.mesh;
    const vertexCount = positions.length / 3;
    if (!Number.isInteger(vertexCount) || triangles.length % 3 !== 0) return 'array lengths are not multiples of 3';
    return checkArray('position', positions) || checkArray('triangle', triangles, 0, vertexCount - 1);
  }
  if (file.kind === 'skeleton') {
    const { joints, bones } = file.skeleton;
    if (joints.length % 3 !== 0 || bones.length % 2 !== 0) return 'array lengths';
    for (let b = 0; b < bones.length; b += 2) if (bones[b] === bones[b + 1]) return `bone ${b / 2} joins a joint to itself`;
    return checkArray('joint', joints) || checkArray('bone', bones, 0, joints.length / 3 - 1);
  }
  const { rows, cols, data } = file.matrix;
  if (data.length !== rows * cols) return `matrix data ${data.length} for ${rows} × ${cols}`;
  return checkArray('value', data);
}

function checkMtl(file: MtlFile): string {
  const names = new Set<string>();
  for (const m of file.materials) {
    if (!m.name || names.has(m.name)) return `material name ${JSON.stringify(m.name)} is empty or repeated`;
    names.add(m.name);
    const problem = checkArray(`material ${m.name} colour`, [...(m.diffuse ?? []), m.alpha], 0, 1);
    if (problem) return problem;
    if (m.diffuseMap !== null && !m.diffuseMap.trim()) return `material ${m.name}: empty image name`;
  }
  return '';
}

function checkGltf(rig: GltfImportResult): string {
  const { mesh, normals, skeleton, weights, clips, boneNames } = rig;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  const problem =
    checkArray('position', mesh.positions) ||
    checkArray('triangle', mesh.triangles, 0, vertexCount - 1) ||
    checkArray('normal', normals, -1 - 1e-6, 1 + 1e-6) ||
    checkArray('skeleton joint', skeleton.joints) ||
    checkArray('bone', skeleton.bones, 0, skeleton.joints.length / 3 - 1) ||
    checkArray('parent', skeleton.parents, -1, boneCount - 1) ||
    checkArray('weight', weights.data, 0, 1);
  if (problem) return problem;
  if (normals.length !== mesh.positions.length) return 'normals count';
  if (boneNames.length !== boneCount || weights.cols !== boneCount || weights.rows !== vertexCount)
    return 'weights or names do not match the bones';
  for (let v = 0; v < vertexCount; v++) {
    let sum = 0;
    for (let b = 0; b < boneCount; b++) sum += weights.data[v * boneCount + b];
    if (sum !== 0 && Math.abs(sum - 1) > 1e-6) return `weights of vertex ${v} sum to ${sum}`;
  }
  for (const clip of clips) {
    const problem = checkPoses(clip.poses, boneCount);
    if (problem) return `clip "${clip.name}": ${problem}`;
  }
  return '';
}

/**
 * A project read back: every number finite, and each example sized for the scene (positions 3·#V, pose 9·#B), with
 * a name of its own and a hidden flag.
 */
function checkProject(project: ProjectContents): string {
  const problem = checkFinite('project', project);
  if (problem) return problem;
  const { mesh, skeleton, examples } = project.scene;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  const names = new Set<string>();
  for (const [i, example] of examples.entries()) {
    const at = `example ${i}`;
    if (!(example.positions instanceof Float64Array) || example.positions.length !== 3 * vertexCount)
      return `${at}: ${example.positions.length} position numbers for ${vertexCount} vertices`;
    if (!(example.pose instanceof Float64Array) || example.pose.length !== 9 * boneCount)
      return `${at}: ${example.pose.length} pose numbers for ${boneCount} bones`;
    const problem = checkArray(`${at} position`, example.positions) || checkArray(`${at} pose`, example.pose);
    if (problem) return problem;
    if (typeof example.name !== 'string' || names.has(example.name)) return `${at}: name ${JSON.stringify(example.name)} is not its own`;
    names.add(example.name);
    if (typeof example.hidden !== 'boolean') return `${at}: hidden is ${JSON.stringify(example.hidden)}`;
  }
  return '';
}

/** Reads one input as its format does in the app and the CLI, and checks what came back. */
export async function runOne(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  resources: Record<string, Uint8Array> | undefined,
  role: DmatRole | undefined,
): Promise<Outcome> {
  try {
    let problem: string;
    if (format === 'project') {
      problem = checkProject(readProjectFile(bytes, name));
    } else if (format === 'mtl') {
      problem = checkMtl(readMtl(new TextDecoder().decode(bytes), name));
    } else if (format === 'glb' || format === 'gltf') {
      const available: Record<string, Uint8Array> = {};
      for (const uri of gltfResourceUris(bytes, name)) if (resources?.[uri]) available[uri] = resources[uri];
      problem = checkGltf(await importGltf(bytes, name, available));
    } else {
      const file = readRigFile(name, bytes);
      problem = checkRigFile(file);
      if (!problem && file.kind === 'matrix' && role) {
        // Each role on its own: a clear error from one still lets the others run.
        const roles: (() => string)[] = [];
        if (role.poseBones)
          roles.push(() => checkPoses(poseSequenceFromDmat(file.matrix, role.poseBones!, name), role.poseBones!, POSE_FILE_TOLERANCE));
        if (role.weights)
          roles.push(() =>
            checkArray('weight', weightsFromDmat(file.matrix, role.weights!.vertices, role.weights!.bones, name).weights.data),
          );
        if (role.handles)
          roles.push(() =>
            checkArray(
              'handle',
              handlesFromDmat(file.matrix, role.handles!.vertices, role.handles!.bones, name),
              -1,
              role.handles!.bones - 1,
            ),
          );
        for (const check of roles) {
          try {
            problem ||= check();
          } catch (error) {
            const outcome = classifyError(error, name);
            if (outcome.kind !== 'clear error') return outcome;
          }
        }
      }
    }
    return problem ? { kind: 'bad result', detail: problem } : { kind: 'result', detail: '' };
  } catch (error) {
    return classifyError(error, name);
  }
}

/** A FormatError for this file, short and in the user's words, is clear; anything else is a failure. */
export function classifyError(error: unknown, name: string): Outcome {
  if (!(error instanceof FormatError)) {
    const text =
      error instanceof Error ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n') ?? ''}` : String(error);
    return { kind: 'other exception', detail: shorten(text) };
  }
  const { message } = error;
  if (message.length > MAX_MESSAGE_LENGTH) return { kind: 'long message', detail: shorten(message) };
  if (!message.startsWith(`${name}: `) || error.file !== name)
    return { kind: 'internal message', detail: `does not name the file: ${shorten(message)}` };
  if (INTERNAL_WORDING.test(message)) return { kind: 'internal message', detail: shorten(message) };
  return { kind: 'clear error', detail: message };
}
