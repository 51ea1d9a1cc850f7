/**
 * The `rigwright` command-line tool: the app's own readers, forward kinematics and skinning (workers/), headless.
 *
 *   rigwright info FILE…
 *   rigwright fk   --skeleton S.tgf --poses P.dmat [--translations T.dmat] [--frame N | --t T] --out J.dmat|J.json
 *   rigwright skin --mesh M.obj --skeleton S.tgf --weights W.dmat --poses P.dmat [--translations T.dmat] [--frame N | --t T]
 *                  --method lbs|dqs|perface [--influences K] [--handles H.dmat] [--antipodality per-vertex|per-bone]
 *                  --out posed.obj
 *   rigwright export --mesh M --skeleton S.tgf --weights W.dmat [--poses P.dmat [--translations T.dmat]] [--influences 4|8]
 *                  [--weight-type float|unsigned-byte|unsigned-short] --out A.glb|A.gltf
 *   rigwright import A.glb|A.gltf --out-dir D
 *   rigwright weights --mesh M --skeleton S.tgf (--handles H.dmat | --auto-handles …) --out W.dmat
 *
 * Exit codes: 0 success, 1 bad input (the message names the file, the place and the reason), 2 bad command line
 * (a usage message follows). User errors never print a stack trace.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import { writeObj } from '../../workers/formats/obj.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { tgfWithConnectors, writeTgf } from '../../workers/formats/tgf.ts';
import { poseSequenceToDmat, translationsToDmat, withTranslationsFromDmat } from '../../workers/formats/pose-file.ts';
import { exportGltf, type GltfClip } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { gltfResourceUris } from '../../workers/formats/gltf-resource-uris.ts';
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import type { DenseMatrix, MeshFileReport, TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { withRestBones, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { poseForwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { alignDualQuaternionSigns } from '../../workers/skinning/align-dual-quaternion-signs.ts';
import { perFaceFixedVertices, perFaceSkinning, perFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { NotPositiveDefiniteError } from '../../workers/sparse/not-positive-definite-error.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { runWeights } from './weights-command.ts';

/** Where the tool writes; process.stdout and process.stderr fit. */
export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const USAGE = `Usage: rigwright <command> [options]

Commands:
  info FILE…   what each file holds (counts, hierarchy, bounds) and what is wrong with it
  fk           joint positions of a skeleton in a pose (forward kinematics)
  skin         the posed mesh (linear blend, dual quaternion or per-face skinning)
  export       a skinned, animated glTF (.glb, or .gltf + .bin)
  import       mesh, skeleton, weights and poses from a rigged glTF
  weights      harmonic skinning weights from handles (given or automatic)

Run \`rigwright <command> --help\` for a command's options.
Files: meshes .obj .off, skeletons .tgf, weights / handles / poses .dmat (libigl).
`;

const COMMAND_USAGE: Record<'info' | 'fk' | 'skin' | 'export' | 'import', string> = {
  info: `Usage: rigwright info FILE…

Reports for each file what it holds: a mesh (vertices, triangles, bounds), a skeleton (joints, bones, parents,
roots, bounds) or a DMAT matrix (rows × cols and what it can be: weights, poses or handles), and what is wrong
with it. Given together, files are also checked against each other: weights and handles against the mesh and
skeleton, poses against the skeleton (when exactly one of each is given).
Exits with 1 when any file is bad, after reporting all of them.

  -h, --help       this help
`,
  fk: `Usage: rigwright fk --skeleton S.tgf --poses P.dmat [--translations T.dmat] [--frame N | --t T] --out J.dmat|J.json

Writes the posed joint positions, #joints × 3 in TGF node order: an ASCII DMAT, or with --out *.json
{ "joints": [[x, y, z], …] } with the frame or t it was taken at.

  --skeleton FILE  TGF skeleton
  --poses FILE     DMAT pose file for this skeleton
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3 (as rigwright import writes)
  --frame N        frame of a rotation-matrix pose file (3·B·L × 3), 0-based; default: the last frame
  --t T            SLERP parameter in [0, 1] from the rest pose to a quaternion pose (4B × 1); default: 1
  --out FILE       output, .dmat or .json
  -h, --help       this help
`,
  skin: `Usage: rigwright skin --mesh M.obj --skeleton S.tgf --weights W.dmat --poses P.dmat [--translations T.dmat]
                      [--frame N | --t T] --method lbs|dqs|perface [--influences K] [--handles H.dmat]
                      [--antipodality per-vertex|per-bone] --out posed.obj

Writes the mesh deformed by the skeleton's pose, same vertices in the same order and the same triangles.

  --mesh FILE        mesh, .obj or .off
  --skeleton FILE    TGF skeleton
  --weights FILE     DMAT skinning weights, #vertices × #bones
  --poses FILE       DMAT pose file for this skeleton
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3 (as rigwright import writes)
  --frame N          frame of a rotation-matrix pose file (3·B·L × 3), 0-based; default: the last frame
  --t T              SLERP parameter in [0, 1] from the rest pose to a quaternion pose (4B × 1); default: 1
  --method M         lbs: linear blend skinning (the default)
                     dqs: dual quaternion skinning (Kavan et al. 2008, Alg. 1)
                     perface: per-face rotations blended in log-quaternion space, Poisson-stitched; the root
                     bones' handle vertices (--handles) stay fixed to their bone
  --handles FILE     DMAT handles, #vertices × 1 (bone index or -1); required by perface
  --antipodality A   dqs signs: per-vertex (Alg. 2, the default) or per-bone (aligned along the skeleton)
  --influences K     keep the K largest weights per vertex, renormalized; 0 or "all" keeps all; default 4
  --out FILE         output, .obj
  -h, --help         this help
`,
  export: `Usage: rigwright export --mesh M --skeleton S.tgf --weights W.dmat [--poses P.dmat [--translations T.dmat]]
                        [--influences 4|8]
                        [--weight-type float|unsigned-byte|unsigned-short] --out A.glb|A.gltf

Writes a skinned glTF 2.0 asset: one joint node per bone at its start joint, inverse bind matrices, the four
(or eight) strongest weights per vertex summing exactly to 1, and the poses as an animation clip named after the
pose file (rotation matrices: one keyframe per frame at 30 fps; quaternions: t = 0 rest, t = 1 s final pose).
A .gltf output also writes its buffer next to it as a .bin file with the same name.

  --mesh FILE          mesh, .obj or .off
  --skeleton FILE      TGF skeleton
  --weights FILE       DMAT skinning weights, #vertices × #bones
  --poses FILE         DMAT pose file for this skeleton (optional)
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3: translation channels
  --influences K       4 (JOINTS_0/WEIGHTS_0, the default) or 8 (adds a second set many viewers ignore)
  --weight-type T      float (default), unsigned-byte or unsigned-short (normalized integers)
  --out FILE           output, .glb or .gltf
  -h, --help           this help
`,
  import: `Usage: rigwright import A.glb|A.gltf --out-dir D

Reads a rigged glTF (one skin; a .gltf finds its .bin files next to it) and writes into D:
  NAME.obj                 the skinned meshes merged, in the bind pose
  NAME.tgf                 one bone per joint, from its joint to its child joint
  NAME-weights.dmat        #vertices × #bones weights (rows sum to 1)
  NAME-pose-CLIP.dmat      per animation: relative rotations, 3·B·L × 3, resampled at 30 fps
  NAME-translations-CLIP.dmat  per animation whose joints move (root motion): start-joint translations, B·L × 3
What the rig cannot hold (scale animation, extra meshes, …) is reported as a warning.

  --out-dir DIR    output folder (created when missing)
  -h, --help       this help
`,
};

/** A mistake on the command line: exit 2 with the usage text of `command` (or the general one). */
class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly command?: keyof typeof COMMAND_USAGE,
  ) {
    super(message);
  }
}

/**
 * Runs one command.
 * @param argv     the arguments after the program name
 * @param streams  where output and messages go
 * @returns the exit code: 0 done, 1 bad input, 2 bad command line
 */
export async function runCli(argv: string[], streams: CliStreams): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'export':
        return await runExport(rest, streams);
      case 'import':
        return await runImport(rest, streams);
      case 'weights':
        return runWeights(rest, streams);
      case 'info':
        return runInfo(rest, streams);
      case 'fk':
        return runFk(rest, streams);
      case 'skin':
        return runSkin(rest, streams);
      case '-h':
      case '--help':
      case 'help':
        streams.stdout.write(USAGE);
        return 0;
      case undefined:
        throw new UsageError('no command given');
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      streams.stderr.write(`rigwright: ${error.message}\n\n${error.command ? COMMAND_USAGE[error.command] : USAGE}`);
      return 2;
    }
    if (error instanceof FormatError) {
      streams.stderr.write(`rigwright: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

interface CommandLine {
  /** the value of every `--name value` given */
  values: Partial<Record<string, string>>;
  help: boolean;
  positionals: string[];
}

/** node:util parseArgs, strict, for string options `names` plus -h/--help; its errors become usage errors. */
function parseOptions(command: keyof typeof COMMAND_USAGE, args: string[], names: readonly string[], allowPositionals: boolean): CommandLine {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const name of names) options[name] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''), command);
    }
    throw error;
  }
  const values: Partial<Record<string, string>> = {};
  for (const [name, value] of Object.entries(parsed.values)) if (typeof value === 'string') values[name] = value;
  return { values, help: parsed.values.help === true, positionals: parsed.positionals };
}

function required(command: keyof typeof COMMAND_USAGE, values: Partial<Record<string, string>>, name: string): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`, command);
  return value;
}

/** The whole file, or a FormatError naming it when it cannot be read. */
function readBytes(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new FormatError(file, '', `cannot read the file: ${describeSystemError(error)}`);
  }
}

function writeText(file: string, text: string | Uint8Array): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new FormatError(file, '', `cannot write the file: ${describeSystemError(error)}`);
  }
}

function describeSystemError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function readMesh(file: string): TriangleMesh {
  const read = readRigFile(file, readBytes(file));
  if (read.kind !== 'mesh') throw new FormatError(file, '', `holds a ${read.kind}, not a mesh (.obj or .off)`);
  return read.mesh;
}

function readSkeleton(file: string): Skeleton {
  const read = readRigFile(file, readBytes(file));
  if (read.kind !== 'skeleton') throw new FormatError(file, '', `holds a ${read.kind}, not a skeleton (.tgf)`);
  return buildSkeleton(read.skeleton, file);
}

function readMatrix(file: string, purpose: string): DenseMatrix {
  const read = readRigFile(file, readBytes(file));
  if (read.kind !== 'matrix') throw new FormatError(file, '', `holds a ${read.kind}, not ${purpose} (.dmat)`);
  return read.matrix;
}

/** Where in a pose sequence to evaluate, and how to say so. */
interface PoseTime {
  time: number;
  frame?: number;
  frameCount?: number;
  t?: number;
}

/**
 * Chooses the pose time from --frame / --t (at most one of them) for this pose sequence.
 * Matrices: --frame N (0-based, default the last frame); quaternions: --t T (default 1). The wrong option for the
 * file's kind, or a frame past the end, is bad input for that file (exit 1).
 */
function poseTime(command: 'fk' | 'skin', seq: PoseSequence, posesFile: string, frameText?: string, tText?: string): PoseTime {
  if (seq.kind === 'matrices') {
    const range = `frames 0–${seq.frameCount - 1}`;
    if (tText !== undefined) {
      throw new FormatError(posesFile, '', `holds rotation matrices (${seq.frameCount} frames), so --t does not apply; choose a frame with --frame N (${range})`);
    }
    let frame = seq.frameCount - 1;
    if (frameText !== undefined) {
      if (!/^\d+$/.test(frameText)) throw new UsageError(`--frame must be a whole number ≥ 0, not "${frameText}"`, command);
      frame = Number(frameText);
      if (frame >= seq.frameCount) {
        throw new FormatError(posesFile, `frame ${frameText}`, `out of range: the file has ${seq.frameCount} frame${seq.frameCount === 1 ? '' : 's'} (${range})`);
      }
    }
    return { time: frame, frame, frameCount: seq.frameCount };
  }
  if (frameText !== undefined) {
    throw new FormatError(posesFile, '', `holds one final pose as quaternions (4B × 1), so --frame does not apply; interpolate from the rest pose with --t T in [0, 1]`);
  }
  let t = 1;
  if (typeof tText === 'string') {
    t = /^\s*$/.test(tText) ? NaN : Number(tText);
    if (!(t >= 0 && t <= 1)) throw new UsageError(`--t must be a number from 0 to 1, not "${tText}"`, command);
  }
  return { time: t, t };
}

/** The matrix with zero columns appended up to `cols`. */
function padColumns(m: DenseMatrix, cols: number): DenseMatrix {
  const data = new Float64Array(m.rows * cols);
  for (let r = 0; r < m.rows; r++) data.set(m.data.subarray(r * m.cols, (r + 1) * m.cols), r * cols);
  return { rows: m.rows, cols, data };
}

/** The --poses file, with the --translations file (start-joint translations, B·L × 3) when given. */
function readPoses(command: 'fk' | 'skin' | 'export', posesFile: string, translationsFile: string | undefined, boneCount: number): PoseSequence {
  const seq = poseSequenceFromDmat(readMatrix(posesFile, 'a pose file'), boneCount, posesFile);
  if (translationsFile === undefined) return seq;
  if (seq.kind !== 'matrices') throw new UsageError(`--translations needs rotation-matrix poses; ${posesFile} holds final-pose quaternions`, command);
  return withTranslationsFromDmat(readMatrix(translationsFile, 'a translations file'), seq, translationsFile);
}

/** Bone transforms (#B × 12, rest → posed) of `skeleton` at `time` of `seq`. */
function poseTransforms(skeleton: Skeleton, seq: PoseSequence, time: number): Float64Array {
  const boneCount = skeleton.parents.length;
  const transforms = new Float64Array(12 * boneCount);
  poseForwardKinematics(skeleton, seq, time, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
  return transforms;
}

function describeTime(at: PoseTime): string {
  return at.frame !== undefined ? `frame ${at.frame} of 0–${(at.frameCount ?? 1) - 1}` : `t = ${at.t}`;
}

function outputExtension(command: 'fk' | 'skin' | 'export', out: string, allowed: string[]): string {
  const extension = /\.([^./\\]+)$/.exec(out)?.[1]?.toLowerCase() ?? '';
  if (!allowed.includes(extension)) {
    throw new UsageError(`--out must end in ${allowed.map((e) => `.${e}`).join(' or ')}: "${out}"`, command);
  }
  return extension;
}

function runFk(args: string[], { stdout }: CliStreams): number {
  const { values, help } = parseOptions('fk', args, ['skeleton', 'poses', 'translations', 'frame', 't', 'out'], false);
  if (help) {
    stdout.write(COMMAND_USAGE.fk);
    return 0;
  }
  const skeletonFile = required('fk', values, 'skeleton');
  const posesFile = required('fk', values, 'poses');
  const out = required('fk', values, 'out');
  const format = outputExtension('fk', out, ['dmat', 'json']);
  if (values.frame !== undefined && values.t !== undefined) throw new UsageError('give either --frame or --t, not both', 'fk');

  const skeleton = readSkeleton(skeletonFile);
  const seq = readPoses('fk', posesFile, values.translations, skeleton.parents.length);
  const at = poseTime('fk', seq, posesFile, values.frame, values.t);
  const transforms = poseTransforms(skeleton, seq, at.time);
  const jointCount = skeleton.joints.length / 3;
  const joints = new Float64Array(3 * jointCount);
  posedJointPositions(skeleton, transforms, joints);

  if (format === 'json') {
    const timing = at.frame !== undefined ? { frame: at.frame, frameCount: at.frameCount } : { t: at.t };
    const header = JSON.stringify({ skeleton: skeletonFile, poses: posesFile, kind: seq.kind, ...timing }, null, 2);
    // One joint per line keeps the file readable and diffable; JSON.stringify prints every double exactly.
    const rows: string[] = [];
    for (let j = 0; j < jointCount; j++) rows.push(`    ${JSON.stringify([joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]])}`);
    writeText(out, `${header.slice(0, -2)},\n  "joints": [\n${rows.join(',\n')}\n  ]\n}\n`);
  } else {
    writeText(out, writeDmatAscii({ rows: jointCount, cols: 3, data: joints }));
  }
  stdout.write(`wrote ${out}: ${jointCount} joints × 3 at ${describeTime(at)}\n`);
  return 0;
}

/** A mesh, its skeleton and their weights, checked against each other; weight warnings go to stderr. */
function readBoundRig(meshFile: string, skeletonFile: string, weightsFile: string, stderr: CliStreams['stderr']) {
  const mesh = readMesh(meshFile);
  const skeleton = readSkeleton(skeletonFile);
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  const { weights, warnings } = weightsFromDmat(readMatrix(weightsFile, 'skinning weights'), vertexCount, boneCount, weightsFile);
  for (const warning of warnings) stderr.write(`rigwright: warning: ${weightsFile}: ${warning}\n`);
  return { mesh, skeleton, vertexCount, boneCount, weights };
}

function runSkin(args: string[], { stdout, stderr }: CliStreams): number {
  const { values, help } = parseOptions(
    'skin',
    args,
    ['mesh', 'skeleton', 'weights', 'poses', 'translations', 'frame', 't', 'method', 'influences', 'handles', 'antipodality', 'out'],
    false,
  );
  if (help) {
    stdout.write(COMMAND_USAGE.skin);
    return 0;
  }
  const meshFile = required('skin', values, 'mesh');
  const skeletonFile = required('skin', values, 'skeleton');
  const weightsFile = required('skin', values, 'weights');
  const posesFile = required('skin', values, 'poses');
  const out = required('skin', values, 'out');
  outputExtension('skin', out, ['obj']);
  const method = values.method ?? 'lbs';
  if (method !== 'lbs' && method !== 'dqs' && method !== 'perface') {
    throw new UsageError(`unknown --method "${method}"; use lbs, dqs or perface`, 'skin');
  }
  const antipodality = values.antipodality ?? 'per-vertex';
  if (antipodality !== 'per-vertex' && antipodality !== 'per-bone') {
    throw new UsageError(`--antipodality must be per-vertex or per-bone, not "${antipodality}"`, 'skin');
  }
  if (values.antipodality !== undefined && method !== 'dqs') throw new UsageError('--antipodality applies to --method dqs only', 'skin');
  if (method === 'perface' && values.handles === undefined) {
    throw new UsageError('--method perface needs --handles H.dmat: the root bones\' handle vertices are its fixed vertices', 'skin');
  }
  let maxInfluences = 4;
  if (values.influences !== undefined) {
    if (values.influences === 'all') maxInfluences = 0;
    else if (/^\d+$/.test(values.influences)) maxInfluences = Number(values.influences);
    else throw new UsageError(`--influences must be a whole number ≥ 0 or "all", not "${values.influences}"`, 'skin');
  }
  if (values.frame !== undefined && values.t !== undefined) throw new UsageError('give either --frame or --t, not both', 'skin');

  const { mesh, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
  const seq = readPoses('skin', posesFile, values.translations, boneCount);
  const at = poseTime('skin', seq, posesFile, values.frame, values.t);

  const transforms = poseTransforms(skeleton, seq, at.time);
  const influences = influencesFromWeights(weights, maxInfluences);
  const posed = new Float64Array(mesh.positions.length);
  let detail = '';
  if (method === 'lbs') {
    linearBlendSkinning(mesh.positions, influences, transforms, posed);
  } else if (method === 'dqs') {
    const dq = new Float64Array(8 * boneCount);
    dualQuatsFromRigidMatrices(transforms, dq);
    if (antipodality === 'per-bone') alignDualQuaternionSigns(skeleton.parents, skeleton.order, dq);
    dualQuaternionSkinning(mesh.positions, influences, dq, posed, { antipodality });
    detail = ` (${antipodality} signs)`;
  } else {
    const handlesFile = values.handles!;
    const handles = handlesFromDmat(readMatrix(handlesFile, 'handles'), vertexCount, boneCount, handlesFile);
    const fixed = perFaceFixedVertices(skeleton.parents, influences, handles);
    if (!fixed.some((b) => b >= 0)) {
      throw new FormatError(handlesFile, 'handles', 'no vertex is a handle of a root bone, so per-face stitching has nothing to hold the mesh in place');
    }
    let setup;
    try {
      setup = perFaceSkinningSetup(mesh.positions, mesh.triangles, influences, boneCount, fixed);
    } catch (error) {
      if (!(error instanceof NotPositiveDefiniteError)) throw error;
      throw new FormatError(handlesFile, 'handles', 'a connected part of the mesh has no fixed vertex (a root bone handle), so its position is undetermined');
    }
    perFaceSkinning(setup, transforms, posed);
    detail = ` (${setup.fixedVertices.length} fixed vertices)`;
  }
  writeText(out, writeObj({ positions: posed, triangles: mesh.triangles }));
  stdout.write(
    `wrote ${out}: ${vertexCount} vertices, ${mesh.triangles.length / 3} triangles, ${method}${detail} with up to ${influences.stride} influences per vertex at ${describeTime(at)}\n`,
  );
  return 0;
}

const QUATERNION_NORM_TOLERANCE = 1e-3;

function formatNumber(x: number): string {
  return Number(x.toPrecision(6)).toString();
}

function formatPoint(p: ArrayLike<number>): string {
  return `(${formatNumber(p[0])}, ${formatNumber(p[1])}, ${formatNumber(p[2])})`;
}

function boundsLine(positions: Float64Array): string {
  const box = boundingBox(positions);
  return `bounds ${formatPoint(box.min)} to ${formatPoint(box.max)}, diagonal ${formatNumber(box.diagonal)}`;
}

/** A file read for `info`, with what it is for the cross-checks. */
type InfoEntry =
  | { file: string; kind: 'unreadable'; error: FormatError }
  | { file: string; kind: 'mesh'; mesh: TriangleMesh; report: MeshFileReport }
  | { file: string; kind: 'skeleton'; skeleton: Skeleton }
  | { file: string; kind: 'matrix'; matrix: DenseMatrix };

function readInfoEntry(file: string): InfoEntry {
  try {
    const read = readRigFile(file, readBytes(file));
    switch (read.kind) {
      case 'mesh':
        return { file, kind: 'mesh', mesh: read.mesh, report: read.report };
      case 'skeleton':
        return { file, kind: 'skeleton', skeleton: buildSkeleton(read.skeleton, file) };
      case 'matrix':
        return { file, kind: 'matrix', matrix: read.matrix };
    }
  } catch (error) {
    if (error instanceof FormatError) return { file, kind: 'unreadable', error };
    throw error;
  }
}

/** What a matrix can be used as, judged from its shape and values alone. */
type MatrixRole = 'poses' | 'weights' | 'handles';

interface MatrixCandidate {
  role: MatrixRole;
  description: string;
}

function matrixCandidates(m: DenseMatrix, file: string): MatrixCandidate[] {
  const { rows, cols, data } = m;
  const candidates: MatrixCandidate[] = [];
  if (cols === 3 && rows > 0 && rows % 3 === 0) {
    // One bone per frame makes every 3×3 block a frame, so this checks that all blocks are rotations.
    try {
      poseSequenceFromDmat(m, 1, file);
      candidates.push({ role: 'poses', description: `rotation-matrix poses: ${rows / 3} rotations = bones × frames` });
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
    }
  }
  if (cols === 1 && rows > 0 && rows % 4 === 0) {
    let unit = true;
    for (let q = 0; q < rows && unit; q += 4) {
      unit = Math.abs(Math.hypot(data[q], data[q + 1], data[q + 2], data[q + 3]) - 1) <= QUATERNION_NORM_TOLERANCE;
    }
    if (unit) candidates.push({ role: 'poses', description: `final-pose quaternions (x y z w) for ${rows / 4} bones` });
  }
  if (cols === 1 && rows > 0) {
    let max = -1;
    let free = 0;
    let integral = true;
    for (let i = 0; i < rows && integral; i++) {
      integral = Number.isInteger(data[i]) && data[i] >= -1;
      if (data[i] > max) max = data[i];
      if (data[i] === -1) free++;
    }
    if (integral && max >= 0) {
      candidates.push({ role: 'handles', description: `handles for ${rows} vertices: bones 0–${max}, ${free} vertices without a handle` });
    }
  }
  let nonNegative = true;
  for (let i = 0; i < data.length && nonNegative; i++) nonNegative = data[i] >= -1e-6;
  if (nonNegative && rows > 0 && weightsFromDmat(m, rows, cols, file).warnings.length === 0) {
    candidates.push({ role: 'weights', description: `skinning weights for ${rows} vertices × ${cols} bones (rows sum to 1)` });
  }
  return candidates;
}

/** The only mesh and the only skeleton given to `info`, used to check matrices against them. */
interface InfoContext {
  mesh?: { file: string; vertexCount: number };
  skeleton?: { file: string; boneCount: number };
}

function fitsContext(candidate: MatrixCandidate, m: DenseMatrix, context: InfoContext): boolean {
  const boneCount = context.skeleton?.boneCount ?? 0;
  const vertexCount = context.mesh?.vertexCount ?? 0;
  switch (candidate.role) {
    case 'poses':
      return (m.cols === 3 && (m.rows / 3) % boneCount === 0) || (m.cols === 1 && m.rows === 4 * boneCount);
    case 'weights':
      return m.rows === vertexCount && m.cols === boneCount;
    case 'handles':
      return m.rows === vertexCount;
  }
}

function canCheck(role: MatrixRole, context: InfoContext): boolean {
  if (role === 'poses') return context.skeleton !== undefined;
  if (role === 'weights') return context.skeleton !== undefined && context.mesh !== undefined;
  return context.mesh !== undefined;
}

/**
 * Checks a matrix against the mesh and skeleton given alongside it, using the same readers the app uses.
 * @returns lines to report; throws FormatError when the matrix is meant for them (by its shape and values) but fits
 *          neither
 */
function checkAgainstContext(m: DenseMatrix, file: string, candidates: MatrixCandidate[], context: InfoContext): string[] {
  const checkable = candidates.filter((c) => canCheck(c.role, context));
  if (checkable.length === 0) return [];
  const chosen = checkable.find((c) => fitsContext(c, m, context)) ?? checkable[0];
  const skeleton = context.skeleton;
  const mesh = context.mesh;
  switch (chosen.role) {
    case 'poses': {
      const seq = poseSequenceFromDmat(m, skeleton!.boneCount, file);
      return [
        seq.kind === 'matrices'
          ? `fits ${skeleton!.file}: ${seq.frameCount} frames of ${seq.boneCount} bones`
          : `fits ${skeleton!.file}: final pose of ${seq.boneCount} bones`,
      ];
    }
    case 'weights': {
      const { warnings } = weightsFromDmat(m, mesh!.vertexCount, skeleton!.boneCount, file);
      return [`fits ${mesh!.file} and ${skeleton!.file} as skinning weights`, ...warnings.map((w) => `warning: ${w}`)];
    }
    case 'handles': {
      // Without a skeleton, any bone index is accepted; the shape check against the mesh still applies.
      handlesFromDmat(m, mesh!.vertexCount, skeleton?.boneCount ?? Number.MAX_SAFE_INTEGER, file);
      return [`fits ${mesh!.file}${skeleton ? ` and ${skeleton.file}` : ''} as handles`];
    }
  }
}

function describeMesh(mesh: TriangleMesh, report: MeshFileReport): string[] {
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = mesh.triangles.length / 3;
  const lines = [`${vertexCount} vertices, ${triangleCount} triangles`, boundsLine(mesh.positions)];
  if (report.polygonsTriangulated > 0) lines.push(`${report.polygonsTriangulated} polygons triangulated`);
  if (report.texcoords > 0 || report.normals > 0) lines.push(`${report.texcoords} texture coordinates, ${report.normals} normals (ignored)`);
  const used = new Uint8Array(vertexCount);
  let degenerate = 0;
  for (let f = 0; f < triangleCount; f++) {
    const a = mesh.triangles[3 * f], b = mesh.triangles[3 * f + 1], c = mesh.triangles[3 * f + 2];
    used[a] = used[b] = used[c] = 1;
    if (a === b || b === c || a === c) degenerate++;
  }
  const unused = vertexCount - used.reduce((sum, u) => sum + u, 0);
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  if (unused > 0) lines.push(`warning: ${unused} vertices are used by no triangle`);
  if (degenerate > 0) lines.push(`warning: ${degenerate} triangles repeat a vertex`);
  return lines;
}

function describeSkeleton(skeleton: Skeleton): string[] {
  const boneCount = skeleton.parents.length;
  const roots: number[] = [];
  for (let b = 0; b < boneCount; b++) if (skeleton.parents[b] < 0) roots.push(b);
  return [
    `${skeleton.joints.length / 3} joints, ${boneCount} bones, ${roots.length} root${roots.length === 1 ? '' : 's'} (bone${roots.length === 1 ? '' : 's'} ${roots.join(', ')})`,
    `parents (bone → parent bone, -1 = root): ${Array.from(skeleton.parents).join(' ')}`,
    boundsLine(skeleton.joints),
  ];
}

function runInfo(args: string[], { stdout, stderr }: CliStreams): number {
  const { help, positionals } = parseOptions('info', args, [], true);
  if (help) {
    stdout.write(COMMAND_USAGE.info);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('no files given', 'info');

  const entries = positionals.map(readInfoEntry);
  const context: InfoContext = {};
  const meshes = entries.filter((e) => e.kind === 'mesh');
  const skeletons = entries.filter((e) => e.kind === 'skeleton');
  if (meshes.length === 1) context.mesh = { file: meshes[0].file, vertexCount: meshes[0].mesh.positions.length / 3 };
  if (skeletons.length === 1) context.skeleton = { file: skeletons[0].file, boneCount: skeletons[0].skeleton.parents.length };

  let bad = 0;
  for (const entry of entries) {
    let heading: string = entry.kind;
    let lines: string[] = [];
    let error = entry.kind === 'unreadable' ? entry.error : undefined;
    if (entry.kind === 'mesh') lines = describeMesh(entry.mesh, entry.report);
    if (entry.kind === 'skeleton') lines = describeSkeleton(entry.skeleton);
    if (entry.kind === 'matrix') {
      const m = entry.matrix;
      heading = `matrix ${m.rows} × ${m.cols}`;
      const candidates = matrixCandidates(m, entry.file);
      lines = candidates.length > 0
        ? candidates.map((c) => `could be ${c.description}`)
        : ['fits nothing Rigwright reads (weights #V × #B, poses 3·B·L × 3 or 4B × 1, handles #V × 1)'];
      try {
        lines.push(...checkAgainstContext(m, entry.file, candidates, context));
      } catch (failure) {
        if (!(failure instanceof FormatError)) throw failure;
        error = failure;
      }
    }
    if (error) {
      bad++;
      stderr.write(`rigwright: ${error.message}\n`);
      lines.push(`error: ${error.message}`);
    }
    stdout.write(`${entry.file}: ${heading}\n${lines.map((line) => `  ${line}\n`).join('')}`);
  }
  if (bad > 0) stdout.write(`bad files: ${bad} of ${entries.length}\n`);
  return bad > 0 ? 1 : 0;
}

const WEIGHT_TYPES: readonly GltfWeightComponent[] = ['float', 'unsigned-byte', 'unsigned-short'];

async function runExport(args: string[], { stdout, stderr }: CliStreams): Promise<number> {
  const { values, help } = parseOptions('export', args, ['mesh', 'skeleton', 'weights', 'poses', 'translations', 'influences', 'weight-type', 'out'], false);
  if (help) {
    stdout.write(COMMAND_USAGE.export);
    return 0;
  }
  const meshFile = required('export', values, 'mesh');
  const skeletonFile = required('export', values, 'skeleton');
  const weightsFile = required('export', values, 'weights');
  const out = required('export', values, 'out');
  const format = outputExtension('export', out, ['glb', 'gltf']);
  const influences = values.influences ?? '4';
  if (influences !== '4' && influences !== '8') throw new UsageError(`--influences must be 4 or 8, not "${influences}"`, 'export');
  const weightComponent = (values['weight-type'] ?? 'float') as GltfWeightComponent;
  if (!WEIGHT_TYPES.includes(weightComponent)) {
    throw new UsageError(`--weight-type must be ${WEIGHT_TYPES.join(', ')}; not "${values['weight-type']}"`, 'export');
  }

  const { mesh, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
  const clips: GltfClip[] = [];
  if (values.poses !== undefined) {
    const poses = readPoses('export', values.poses, values.translations, boneCount);
    clips.push({ name: path.basename(values.poses).replace(/\.dmat$/i, ''), poses });
  }
  const basename = path.basename(out).replace(/\.gltf$/i, '');
  const result = await exportGltf(
    { mesh, normals: vertexNormals(mesh.positions, mesh.triangles), skeleton, weights, clips, name: path.basename(meshFile).replace(/\.[^.]*$/, '') },
    out,
    { format: format === 'glb' ? 'glb' : 'gltf', influences: influences === '8' ? 8 : 4, weightComponent, basename },
  );
  for (const warning of result.warnings) stderr.write(`rigwright: warning: ${out}: ${warning}\n`);
  writeText(out, result.bytes);
  const written = [out];
  for (const [uri, bytes] of Object.entries(result.resources)) {
    const file = path.join(path.dirname(out), uri);
    writeText(file, bytes);
    written.push(file);
  }
  stdout.write(
    `wrote ${written.join(' and ')}: ${vertexCount} vertices, ${boneCount} joints, ${clips.length} animation${clips.length === 1 ? '' : 's'}, up to ${influences} influences per vertex (${weightComponent} weights)\n`,
  );
  return 0;
}

/** A file name part from a clip or mesh name: letters, digits, - and _ only. */
function fileNamePart(name: string, fallback: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned || fallback;
}

async function runImport(args: string[], { stdout, stderr }: CliStreams): Promise<number> {
  const { values, help, positionals } = parseOptions('import', args, ['out-dir'], true);
  if (help) {
    stdout.write(COMMAND_USAGE.import);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no glTF file given' : 'give one glTF file', 'import');
  const file = positionals[0];
  const outDir = required('import', values, 'out-dir');
  const bytes = readBytes(file);
  const resources: Record<string, Uint8Array> = {};
  for (const uri of gltfResourceUris(bytes, file)) {
    const resource = path.resolve(path.dirname(file), uri);
    try {
      resources[uri] = readFileSync(resource);
    } catch (error) {
      // Missing images are fine (the rig needs none); a missing buffer fails in the importer, which names it.
      stderr.write(`rigwright: warning: ${file}: cannot read ${uri}: ${describeSystemError(error)}\n`);
    }
  }
  const rig = await importGltf(bytes, path.basename(file), resources);
  for (const warning of rig.warnings) stderr.write(`rigwright: warning: ${file}: ${warning}\n`);
  try {
    mkdirSync(outDir, { recursive: true });
  } catch (error) {
    throw new FormatError(outDir, '', `cannot create the folder: ${describeSystemError(error)}`);
  }

  const base = fileNamePart(rig.name, 'model');
  const { tgf, connectedBones } = tgfWithConnectors(rig.skeleton, `${base}.tgf`);
  const boneCount = rig.skeleton.parents.length;
  const extra = connectedBones.length;
  if (extra > 0) {
    const listed = connectedBones.slice(0, 4).map((b) => `${b} (${rig.boneNames[b]})`).join(', ');
    stderr.write(
      `rigwright: warning: ${base}.tgf: ${extra} bones start away from their parent's end (bones ${listed}${extra > 4 ? ', …' : ''}); TGF says parents only by shared joints, so each has a connector bone from its parent's end (bones ${boneCount}–${boneCount + extra - 1}: no weight, at rest in the pose files)\n`,
    );
  }
  const weights = extra === 0 ? rig.weights : padColumns(rig.weights, boneCount + extra);
  const written: string[] = [];
  const write = (name: string, text: string): void => {
    const target = path.join(outDir, name);
    writeText(target, text);
    written.push(target);
  };
  write(`${base}.obj`, writeObj(rig.mesh));
  write(`${base}.tgf`, writeTgf(tgf));
  write(`${base}-weights.dmat`, writeDmatAscii(weights));
  const used = new Set<string>();
  rig.clips.forEach((clip, i) => {
    let part = fileNamePart(clip.name, `clip${i}`);
    if (used.has(part)) part = `${part}-${i}`;
    used.add(part);
    const poses = withRestBones(clip.poses, extra);
    write(`${base}-pose-${part}.dmat`, writeDmatAscii(poseSequenceToDmat(poses)));
    const translations = translationsToDmat(poses);
    if (translations) write(`${base}-translations-${part}.dmat`, writeDmatAscii(translations));
  });
  stdout.write(
    `read ${file}: ${rig.mesh.positions.length / 3} vertices, ${rig.mesh.triangles.length / 3} triangles, ${rig.skeleton.parents.length} bones, ${rig.clips.length} animations\n${written.map((w) => `wrote ${w}\n`).join('')}`,
  );
  return 0;
}
