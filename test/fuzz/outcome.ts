/**
 * Runs one input through the reader of its format and classifies how it ended: a result whose data is finite and
 * in range and whose rotations are rotations, a clear error (a FormatError whose message is one printable line of
 * at most MAX_MESSAGE_LENGTH characters naming the file and a place, with no engine-internal wording), or anything
 * else, which is a failure. A text input rewritten to `\r` or `\r\n` line ends must read as it does with `\n`
 * ends, and a glTF asset that names a resource outside its folder must be refused naming the URI.
 */
import { FormatError } from '../../workers/formats/format-error.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfJson, gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import { readRigFile, type RigFile } from '../../workers/formats/read-file.ts';
import { readMtl, type MtlFile } from '../../workers/formats/mtl.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import type { DmatRole, FuzzFormat } from './corpus.ts';
import type { LineEnds } from './fuzz-worker.ts';
import { withLineEnds } from './mutators.ts';

/** Longest message a clear error may have. */
export const MAX_MESSAGE_LENGTH = 400;

/** Wording of engine errors that must never reach a user, even inside a FormatError (JSON.parse's texts included). */
export const INTERNAL_WORDING =
  /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not defined|Offset is outside|Invalid typed array length|Invalid array length|Maximum call stack|allocation failed|out of memory|out of bounds|undefined|\[object |Unexpected token|Unexpected end of JSON|Unexpected non-whitespace|is not valid JSON|in JSON at position/i;

/**
 * How an input ended. Failures: 'other exception' (not a FormatError), 'internal message' (engine wording),
 * 'bad message' (a FormatError message on more than one line, with non-printable characters, longer than
 * MAX_MESSAGE_LENGTH, or without the file's name and a place after it), 'accepted-insane' (a result with data out
 * of range, non-finite, or rotations that are not rotations), 'line endings' (a text read otherwise with `\r` or
 * `\r\n` line ends than with `\n`), 'resource outside' (a glTF resource outside the asset's folder listed to be
 * read, or the asset not refused naming that URI), 'bad output' (an export of a scene read from the input returned
 * a file the reader refuses, reads back unsound or otherwise than expected, or the no-op export was refused; see
 * write-outcome.ts), 'hang', 'crash'.
 */
export type OutcomeKind =
  | 'result'
  | 'clear error'
  | 'other exception'
  | 'internal message'
  | 'bad message'
  | 'accepted-insane'
  | 'line endings'
  | 'resource outside'
  | 'bad output'
  | 'hang'
  | 'crash';

/** Outcomes that are not failures. */
export const GOOD_OUTCOMES: readonly OutcomeKind[] = ['result', 'clear error'];

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
 * Tolerance of the pose-file reader and the project file (the pose-file reader's checks): R·Rᵀ within 1e-3 of the
 * identity per entry. glTF clips are polar factors computed in double precision: GLTF_ROTATION_TOLERANCE.
 */
const POSE_FILE_TOLERANCE = 1e-3;
const GLTF_ROTATION_TOLERANCE = 1e-6;

/**
 * Why the 3×3 row-major block at data[o..o+9) is not a rotation within `tolerance`, or ''. Checked by columns:
 * RᵀR within `tolerance` of I per entry and det within 3·tolerance of +1 (RᵀR = I + E gives det² = det(I + E) ≈
 * 1 + tr E, so |det − 1| ≲ 1.5·tolerance for a rotation, and det ≈ −1 for a reflection).
 */
export function rotationBlockProblem(data: ArrayLike<number>, o: number, tolerance: number): string {
  for (let i = 0; i < 3; i++) {
    for (let j = i; j < 3; j++) {
      const dot = data[o + i] * data[o + j] + data[o + 3 + i] * data[o + 3 + j] + data[o + 6 + i] * data[o + 6 + j];
      if (!(Math.abs(dot - (i === j ? 1 : 0)) <= tolerance)) return `columns ${i} and ${j}: (RᵀR)[${i}][${j}] = ${dot}`;
    }
  }
  const det =
    data[o] * (data[o + 4] * data[o + 8] - data[o + 5] * data[o + 7]) -
    data[o + 1] * (data[o + 3] * data[o + 8] - data[o + 5] * data[o + 6]) +
    data[o + 2] * (data[o + 3] * data[o + 7] - data[o + 4] * data[o + 6]);
  return Math.abs(det - 1) <= 3 * tolerance ? '' : `det ${det}`;
}

/** Why the quaternion at data[o..o+4) is not of unit length within `tolerance`, or ''. */
export function quaternionProblem(data: ArrayLike<number>, o: number, tolerance: number): string {
  const length = Math.hypot(data[o], data[o + 1], data[o + 2], data[o + 3]);
  return Math.abs(length - 1) <= tolerance ? '' : `length ${length}`;
}

/** Every 3×3 block of `rotations` (#blocks × 9) a rotation, or what is wrong with the first that is not. */
function checkRotationBlocks(what: string, rotations: ArrayLike<number>, tolerance: number): string {
  if (rotations.length % 9 !== 0) return `${what}: ${rotations.length} numbers, not a multiple of 9`;
  for (let block = 0; 9 * block < rotations.length; block++) {
    const problem = rotationBlockProblem(rotations, 9 * block, tolerance);
    if (problem) return `${what} block ${block} is not a rotation: ${problem}`;
  }
  return '';
}

function checkPoses(poses: PoseSequence, boneCount: number, tolerance: number): string {
  if (poses.boneCount !== boneCount) return `poses for ${poses.boneCount} bones, not ${boneCount}`;
  if (poses.kind === 'quaternions') {
    if (poses.final.length !== 4 * boneCount) return `${poses.final.length} quaternion numbers for ${boneCount} bones`;
    for (let b = 0; b < boneCount; b++) {
      const problem = checkArray('quaternion', poses.final.subarray(4 * b, 4 * b + 4)) || quaternionProblem(poses.final, 4 * b, tolerance);
      if (problem) return `quaternion of bone ${b} is not a unit quaternion: ${problem}`;
    }
    return '';
  }
  if (poses.rotations.length !== 9 * poses.boneCount * poses.frameCount) return 'rotation count does not match frames × bones';
  return (
    checkArray('rotation', poses.rotations) ||
    checkRotationBlocks('rotation', poses.rotations, tolerance) ||
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
  if (file.kind === 'names') return typeof file.text === 'string' ? '' : 'names text is not a string';
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
    const surface = checkArray(
      `material ${m.name} metallic, roughness, ambient or emission`,
      [m.metallic ?? 0, m.roughness ?? 0, ...(m.ambient ?? []), ...(m.emissive ?? [])],
      0,
      1,
    );
    if (surface) return surface;
    if (m.normalMap && !Number.isFinite(m.normalMap.scale)) return `material ${m.name}: normal map scale ${m.normalMap.scale}`;
    for (const image of [m.emissiveMap, m.normalMap?.file, m.alphaMap, m.roughnessMap, m.metallicMap])
      if (image !== undefined && !image.trim()) return `material ${m.name}: empty image name`;
  }
  return '';
}

/** What is wrong with an imported glTF (finite data in range, weights rows summing to 1 or 0, clips of rotations), or ''. */
export function checkGltf(rig: GltfImportResult): string {
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
    const problem = checkPoses(clip.poses, boneCount, GLTF_ROTATION_TOLERANCE);
    if (problem) return `clip "${clip.name}": ${problem}`;
  }
  return '';
}

/**
 * A project read back: every number finite, each example sized for the scene (positions 3·#V, pose 9·#B), with a
 * name of its own and a hidden flag, and every rotation a rotation (clips, the scene's poses, the examples' poses).
 */
function checkProject(project: ProjectContents): string {
  const problem = checkFinite('project', project);
  if (problem) return problem;
  const { mesh, skeleton, examples } = project.scene;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  for (const [i, clip] of project.scene.clips.entries()) {
    const problem = checkPoses(clip.poses, boneCount, POSE_FILE_TOLERANCE);
    if (problem) return `clip ${i} "${clip.name}": ${problem}`;
  }
  const poses = project.scene.poses;
  const posesProblem = poses ? checkPoses(poses, boneCount, POSE_FILE_TOLERANCE) : '';
  if (posesProblem) return `the scene's poses: ${posesProblem}`;
  const names = new Set<string>();
  for (const [i, example] of examples.entries()) {
    const at = `example ${i}`;
    if (!(example.positions instanceof Float64Array) || example.positions.length !== 3 * vertexCount)
      return `${at}: ${example.positions.length} position numbers for ${vertexCount} vertices`;
    if (!(example.pose instanceof Float64Array) || example.pose.length !== 9 * boneCount)
      return `${at}: ${example.pose.length} pose numbers for ${boneCount} bones`;
    const problem =
      checkArray(`${at} position`, example.positions) ||
      checkArray(`${at} pose`, example.pose) ||
      checkRotationBlocks(`${at} pose`, example.pose, POSE_FILE_TOLERANCE);
    if (problem) return problem;
    if (typeof example.name !== 'string' || names.has(example.name)) return `${at}: name ${JSON.stringify(example.name)} is not its own`;
    names.add(example.name);
    if (typeof example.hidden !== 'boolean') return `${at}: hidden is ${JSON.stringify(example.hidden)}`;
  }
  return '';
}

/** How one read ended, with what the reader returned (for the comparison of line ends, and the writes of a glTF). */
export interface Read {
  outcome: Outcome;
  value?: unknown;
}

/**
 * Reads one input as its format does in the app and the CLI, and checks what came back. A text input rewritten to
 * `lineEnds` is also read with `\n` line ends (the same lines), and both reads must end alike (compareLineEnds).
 */
export async function runOne(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  resources: Record<string, Uint8Array> | undefined,
  role: DmatRole | undefined,
  lineEnds?: LineEnds,
): Promise<Outcome> {
  // The bytes may be transferred away while reading; the `\n` text is made first.
  const plain = lineEnds ? withLineEnds(bytes, '\n') : null;
  const read = await readOne(format, name, bytes, resources, role);
  if (!plain || !lineEnds) return read.outcome;
  return compareLineEnds(read, await readOne(format, name, plain, resources, role), lineEnds);
}

/**
 * The outcome of a text read with `ends` line ends, given the same text read with `\n` ones: both a result, and
 * the same one; or both refused, at the same lines (the line numbers the messages name, in order — what else they
 * say may count characters, which the line ends change).
 */
export function compareLineEnds(other: Read, plain: Read, ends: LineEnds): Outcome {
  const shown = JSON.stringify(ends);
  if (!GOOD_OUTCOMES.includes(other.outcome.kind)) return other.outcome;
  if (!GOOD_OUTCOMES.includes(plain.outcome.kind)) return { ...plain.outcome, detail: `with "\\n" line ends: ${plain.outcome.detail}` };
  const describe = (read: Read): string => (read.outcome.kind === 'result' ? 'a result' : `"${shorten(read.outcome.detail)}"`);
  const lines = (read: Read): string => (read.outcome.detail.match(/\blines? \d+/g) ?? []).join(', ');
  if (other.outcome.kind !== plain.outcome.kind || lines(other) !== lines(plain))
    return { kind: 'line endings', detail: `with ${shown} line ends ${describe(other)}, with "\\n" ${describe(plain)}` };
  const difference = other.outcome.kind === 'result' ? firstDifference(other.value, plain.value, 'result') : '';
  return difference
    ? { kind: 'line endings', detail: `with ${shown} line ends the result differs from "\\n": ${difference}` }
    : other.outcome;
}

/** Where two results first differ (typed arrays element by element, with Object.is), or ''. */
export function firstDifference(a: unknown, b: unknown, path: string, depth = 0): string {
  if (Object.is(a, b)) return '';
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && !(a instanceof DataView) && !(b instanceof DataView)) {
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    if (a.constructor !== b.constructor || x.length !== y.length) return `${path}: ${x.length} numbers against ${y.length}`;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return `${path}[${i}]: ${x[i]} against ${y[i]}`;
    return '';
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > 20)
    return `${path}: ${describeValue(a)} against ${describeValue(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: a list against a record`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const difference = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`,
      depth + 1,
    );
    if (difference) return difference;
  }
  return '';
}

/** A value of a result in a few words: absent, a list, a record, or the value itself. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'string') return quoted(shorten(value));
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return value === null ? 'null' : `a ${typeof value}`;
}

/** Text as a JSON string with every non-printable character escaped, so that a report shows it and plays none. */
const quoted = (text: string): string => JSON.stringify(text).replace(NON_PRINTABLE_ALL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/** Reads one input as its format does (without the comparison of line ends); a glTF's value is its GltfImportResult. */
export async function readOne(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  resources: Record<string, Uint8Array> | undefined,
  role: DmatRole | undefined,
): Promise<Read> {
  // A glTF asset's URIs that leave its folder, as the file writes them (before any reader sees the file).
  const outside = format === 'glb' || format === 'gltf' ? urisLeavingFolder(bytes, name) : [];
  const read = await readChecked(format, name, bytes, resources, role);
  if (outside.length === 0) return read;
  if (read.outcome.kind === 'result')
    return { outcome: { kind: 'resource outside', detail: `read although it names ${JSON.stringify(outside[0])}, outside its folder` } };
  if (read.outcome.kind === 'clear error' && !outside.some((uri) => namesUri(read.outcome.detail, uri)))
    return {
      outcome: {
        kind: 'resource outside',
        detail: `names ${JSON.stringify(outside[0])}, outside its folder, and was refused without naming it: ${shorten(read.outcome.detail)}`,
      },
    };
  return read;
}

async function readChecked(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  resources: Record<string, Uint8Array> | undefined,
  role: DmatRole | undefined,
): Promise<Read> {
  let value: unknown;
  try {
    let problem: string;
    if (format === 'project') {
      problem = checkProject(readProjectFile(bytes, name));
    } else if (format === 'mtl') {
      const file = readMtl(new TextDecoder().decode(bytes), name);
      value = file;
      problem = checkMtl(file);
    } else if (format === 'glb' || format === 'gltf') {
      // As a loader does: the files gltfResources lists, here from the input's own resources (its folder).
      const available: Record<string, Uint8Array> = {};
      for (const { uri } of gltfResources(bytes, name)) {
        if (leavesFolder(uri))
          return {
            outcome: { kind: 'resource outside', detail: `${JSON.stringify(uri)}, outside the asset's folder, is listed to be read` },
          };
        if (resources && Object.hasOwn(resources, uri)) available[uri] = resources[uri];
      }
      const rig = await importGltf(bytes, name, available);
      value = rig;
      problem = checkGltf(rig);
    } else {
      const file = readRigFile(name, bytes);
      value = file;
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
            if (outcome.kind !== 'clear error') return { outcome };
          }
        }
      }
    }
    return problem ? { outcome: { kind: 'accepted-insane', detail: problem } } : { outcome: { kind: 'result', detail: '' }, value };
  } catch (error) {
    return { outcome: classifyError(error, name) };
  }
}

/**
 * Whether a resource URI leaves the asset's folder once percent-decoded (once): an absolute path (`/…`, `\…`), a
 * drive (`C:`) or another scheme (`file:`), or more `..` steps than folders before them (`/` and `\` both
 * separate). `data:` URIs hold their bytes and lead nowhere.
 */
export function leavesFolder(uri: string): boolean {
  if (uri.startsWith('data:')) return false;
  let path = uri;
  try {
    path = decodeURIComponent(uri);
  } catch {
    // A malformed escape: the URI is a file name as written.
  }
  if (/^[\\/]/.test(path) || /^[a-z][a-z\d+.-]*:/i.test(path)) return true;
  let depth = 0;
  for (const part of path.split(/[\\/]/)) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) return true;
  }
  return false;
}

/** The buffer and image URIs of a glTF asset that leave its folder; none when its JSON cannot be read. */
function urisLeavingFolder(bytes: Uint8Array, name: string): string[] {
  let json: unknown;
  try {
    json = gltfJson(bytes, name);
  } catch {
    return [];
  }
  const uris: string[] = [];
  for (const key of ['buffers', 'images']) {
    const entries = typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[key] : undefined;
    for (const entry of Array.isArray(entries) ? (entries as unknown[]) : []) {
      const uri = typeof entry === 'object' && entry !== null ? (entry as { uri?: unknown }).uri : undefined;
      if (typeof uri === 'string' && leavesFolder(uri)) uris.push(uri);
    }
  }
  return uris;
}

/** Whether a message names a URI: as written or percent-decoded, plain or with JSON's escapes. */
function namesUri(message: string, uri: string): boolean {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // kept as written
  }
  return [uri, decoded].some((form) => message.includes(form) || message.includes(JSON.stringify(form).slice(1, -1)));
}

/** Line breaks of any kind: a message is one line. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;
/** Characters a terminal or a page does not show as themselves: controls, format characters, surrogates, private use, unassigned. */
const NON_PRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;
const NON_PRINTABLE_ALL = /[\p{C}\p{Zl}\p{Zp}]/gu;

/**
 * What is wrong with the layout of a clear error's message, or '': it is one line of printable characters, at most
 * MAX_MESSAGE_LENGTH long, names the file (contains the input's file name) and a place after it — FormatError's
 * `file: place: reason` (or `file: reason` when the whole file is at fault), so some text after `file: `.
 */
export function messageLayoutProblem(message: string, name: string): string {
  if (LINE_BREAK.test(message)) return 'more than one line';
  const odd = NON_PRINTABLE.exec(message);
  if (odd) return `non-printable character U+${odd[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at ${odd.index}`;
  if (message.length > MAX_MESSAGE_LENGTH) return `${message.length} characters, more than ${MAX_MESSAGE_LENGTH}`;
  const at = message.indexOf(name);
  if (at < 0) return 'does not name the file';
  if (!/^: \S/.test(message.slice(at + name.length))) return 'names no place after the file name';
  return '';
}

/** A FormatError for this file, one printable line in the user's words, is clear; anything else is a failure. */
export function classifyError(error: unknown, name: string): Outcome {
  if (!(error instanceof FormatError)) {
    const text =
      error instanceof Error ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n') ?? ''}` : String(error);
    return { kind: 'other exception', detail: shorten(text) };
  }
  const { message } = error;
  const layout = messageLayoutProblem(message, name);
  // Quoted, so that what the message holds (escape sequences from a file) is shown, not played, in the report.
  if (layout) return { kind: 'bad message', detail: `${layout}: ${quoted(shorten(message))}` };
  if (INTERNAL_WORDING.test(message)) return { kind: 'internal message', detail: shorten(message) };
  return { kind: 'clear error', detail: message };
}
