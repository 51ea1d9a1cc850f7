/**
 * What every `rigwright` command shares: the command shape, the command-line parser, reading and writing files
 * with errors that name the file, and number formatting. Bad input is a FormatError (exit 1); a mistake on the
 * command line is a UsageError (exit 2 with the command's usage). main.ts turns both into messages.
 */
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AtomicWriteError, describeFileSystemError, writeFilesAtomicSync, type AtomicFile } from '../atomic-write.ts';
import { FormatError, printableLine } from '../../workers/formats/format-error.ts';
import { describeJsonError } from '../../workers/formats/json-text.ts';
import { checkFileSize, readRigFile, type RigFile } from '../../workers/formats/read-file.ts';
import { weightsFromDmat } from '../../workers/formats/weights-file.ts';
import type { DenseMatrix, TgfSkeleton, TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { DUAL_QUATERNION_SKINNING_DEFAULTS, type DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { INFLUENCE_DEFAULTS } from '../../workers/skinning/influences.ts';

/** Where the tool writes; process.stdout and process.stderr fit. */
export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** A command line after parsing: the options given and the operands. */
export interface CommandLine {
  /** the value of every `--name value` given */
  values: Partial<Record<string, string>>;
  /** every boolean `--name` given */
  flags: ReadonlySet<string>;
  positionals: string[];
  /** every option in the order given, with its values (from a command's own `parse`, when the order matters) */
  sequence?: readonly OptionUse[];
}

/** One option as given: `--bone-scale 3 1 2 1` is { name: 'bone-scale', values: ['3', '1', '2', '1'] }. */
export interface OptionUse {
  readonly name: string;
  readonly values: readonly string[];
}

/** One `rigwright` command. main.ts parses its options, answers -h/--help with `usage`, and runs it. */
export interface CliCommand {
  readonly name: string;
  /** one line for the command list */
  readonly summary: string;
  /** the full help text, starting `Usage: rigwright <name>` */
  readonly usage: string;
  /** its options by name (without the leading --) and type; -h/--help comes with every command */
  readonly options: Readonly<Record<string, 'string' | 'boolean'>>;
  /** whether it takes operands (file names) besides options */
  readonly allowPositionals: boolean;
  /**
   * Parses the command line instead of parseCommandLine, for a command whose options take several values or apply
   * in the order given (parseOptionSequence).
   */
  parse?(args: string[]): CommandLine & { help: boolean };
  /**
   * @returns the exit code, 0 when done; bad input throws FormatError, a bad command line UsageError
   */
  run(line: CommandLine, streams: CliStreams): number | Promise<number>;
}

/** A mistake on the command line: exit 2, with the usage text of the command that was running. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * node:util parseArgs, strict, for `command`'s options plus -h/--help; its errors become usage errors.
 * @returns the command line, and whether help was asked for
 */
export function parseCommandLine(command: CliCommand, args: string[]): CommandLine & { help: boolean } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, type] of Object.entries(command.options)) options[name] = { type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: command.allowPositionals, strict: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
    }
    throw error;
  }
  const values: Partial<Record<string, string>> = {};
  const flags = new Set<string>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') values[name] = value;
    else if (value === true && name !== 'help') flags.add(name);
  }
  return { values, flags, positionals: parsed.positionals, help: parsed.values.help === true };
}

/**
 * A command line whose options apply in the order given and may take several values each (`--bone-scale B X Y Z`):
 * `--name` takes the next `arity[name]` arguments as they are (a value may start with `-`), `--name=value` gives an
 * option of one value, `--` ends the options, anything else is an operand. -h/--help asks for the help.
 * @param arity  every option of the command by name (without --): how many values it takes (0 = a flag)
 * @returns the sequence in order; also `values` (the last value of each one-value option) and `flags`
 */
export function parseOptionSequence(args: readonly string[], arity: Readonly<Record<string, number>>): CommandLine & { help: boolean } {
  const sequence: OptionUse[] = [];
  const positionals: string[] = [];
  const values: Partial<Record<string, string>> = {};
  const flags = new Set<string>();
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    const count = Object.hasOwn(arity, name) && arg.startsWith('--') ? arity[name] : undefined;
    if (count === undefined) throw new UsageError(`unknown option '${equals < 0 ? arg : arg.slice(0, equals)}'`);
    let given: string[];
    if (equals >= 0) {
      if (count !== 1) throw new UsageError(`--${name} ${count === 0 ? 'takes no value' : `takes ${count} values`}`);
      given = [arg.slice(equals + 1)];
    } else {
      given = args.slice(i + 1, i + 1 + count);
      // A value may start with - (a negative number), but the next option is no value: `--prune --out x`.
      const isOption = (value: string): boolean =>
        value === '--' ||
        value === '-h' ||
        value === '--help' ||
        (value.startsWith('--') && Object.hasOwn(arity, value.slice(2).split('=')[0]));
      const short = given.length < count || given.some(isOption);
      if (short) throw new UsageError(`--${name} needs ${count === 1 ? 'a value' : `${count} values`}`);
      i += count;
    }
    sequence.push({ name, values: given });
    if (count === 0) flags.add(name);
    else if (count === 1) values[name] = given[0];
  }
  return { values, flags, positionals, sequence, help };
}

/** The value of `--name`, or a usage error when it is missing or empty. */
export function required(line: CommandLine, name: string): string {
  const value = line.values[name];
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

/**
 * The extension of an output file, lower case, or a usage error when it is none of `allowed`.
 * @param allowed  extensions without the dot
 */
export function outputExtension(out: string, allowed: readonly string[]): string {
  const extension = /\.([^./\\]+)$/.exec(out)?.[1]?.toLowerCase() ?? '';
  if (!allowed.includes(extension)) {
    throw new UsageError(`--out must end in ${allowed.map((e) => `.${e}`).join(' or ')}: "${out}"`);
  }
  return extension;
}

/** The skinning methods `skin` and `unpose` take with --method. */
export type SkinningMethodOption = 'lbs' | 'dqs' | 'perface';

/**
 * The skinning options `skin` and `unpose` share, checked against each other: --method (default lbs),
 * --antipodality (dqs only, default per DUAL_QUATERNION_SKINNING_DEFAULTS), --handles (required by perface) and
 * --influences K (a whole number ≥ 0, or "all" for 0 = keep all; default per INFLUENCE_DEFAULTS).
 */
export function skinningOptions(values: CommandLine['values']): {
  method: SkinningMethodOption;
  antipodality: DualQuaternionAntipodality;
  maxInfluences: number;
} {
  const method = values.method ?? 'lbs';
  if (method !== 'lbs' && method !== 'dqs' && method !== 'perface') {
    throw new UsageError(`unknown --method "${method}"; use lbs, dqs or perface`);
  }
  const antipodality = values.antipodality ?? DUAL_QUATERNION_SKINNING_DEFAULTS.antipodality;
  if (antipodality !== 'per-vertex' && antipodality !== 'per-bone') {
    throw new UsageError(`--antipodality must be per-vertex or per-bone, not "${antipodality}"`);
  }
  if (values.antipodality !== undefined && method !== 'dqs') throw new UsageError('--antipodality applies to --method dqs only');
  if (method === 'perface' && values.handles === undefined) {
    throw new UsageError("--method perface needs --handles H.dmat: the root bones' handle vertices are its fixed vertices");
  }
  return { method, antipodality, maxInfluences: influencesOption(values.influences) };
}

/** --influences K: a whole number ≥ 0 or "all" (0, keep all); absent: INFLUENCE_DEFAULTS.maxInfluences. */
function influencesOption(text: string | undefined): number {
  if (text === undefined) return INFLUENCE_DEFAULTS.maxInfluences;
  if (text === 'all') return 0;
  if (/^\d+$/.test(text)) return Number(text);
  throw new UsageError(`--influences must be a whole number ≥ 0 or "all", not "${text}"`);
}

/** An option's text as a number; NaN for blank text, which Number() would read as 0. */
export function parseNumber(text: string): number {
  return /^\s*$/.test(text) ? NaN : Number(text);
}

/**
 * The whole file, or a FormatError naming it when it cannot be read; a file larger than Rigwright reads
 * (checkFileSize) is refused from its size, before it is read.
 */
export function readBytes(file: string): Uint8Array {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new FormatError(file, '', `cannot read the file: ${describeFileSystemError(error)}`);
  }
  checkFileSize(file, size);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new FormatError(file, '', `cannot read the file: ${describeFileSystemError(error)}`);
  }
}

/**
 * A JSON file's value (UTF-8; TextDecoder drops a byte-order mark), or a FormatError naming the file, and the line and
 * column where the text stops being JSON (describeJsonError), or that it cannot be read.
 */
export function readJsonFile(file: string): unknown {
  const text = new TextDecoder().decode(readBytes(file));
  try {
    return JSON.parse(text);
  } catch {
    throw new FormatError(file, '', describeJsonError(text));
  }
}

/**
 * Writes the file atomically (app/atomic-write.ts): a kill or a full disk leaves the old file whole, never a part of
 * the new one. Throws a FormatError naming it when it cannot be written.
 */
export function writeFile(file: string, contents: string | Uint8Array): void {
  writeFiles([{ path: file, contents }]);
}

/**
 * Writes a set of files as one: all are written and flushed before any replaces its old file, so a failure (a full
 * disk, a missing permission) leaves every old file as it was. List a file that refers to others last.
 * @param createFolders  make the files' missing folders first (resources in subfolders); default: they must exist
 */
export function writeFiles(files: readonly AtomicFile[], createFolders = false): void {
  try {
    writeFilesAtomicSync(files, { createFolders });
  } catch (error) {
    if (error instanceof AtomicWriteError) throw new FormatError(error.file, '', `cannot write the file: ${error.reason}`);
    throw error;
  }
}

/** The file read by the app's readers, or a FormatError naming it when it holds something other than `kind`. */
function readKind<K extends RigFile['kind']>(file: string, kind: K, what: string): Extract<RigFile, { kind: K }> {
  const read = readRigFile(file, readBytes(file));
  if (read.kind !== kind) throw new FormatError(file, '', `holds a ${read.kind}, not ${what}`);
  return read as Extract<RigFile, { kind: K }>;
}

/** A mesh file as the app reads it: the mesh, and for OBJ its objects, texture coordinates and materials. */
export function readMeshFile(file: string): Extract<RigFile, { kind: 'mesh' }> {
  return readKind(file, 'mesh', 'a mesh (.obj or .off)');
}

export function readMesh(file: string): TriangleMesh {
  return readMeshFile(file).mesh;
}

/** The joints and bones as the TGF file has them, without the hierarchy. */
export function readTgfSkeleton(file: string): TgfSkeleton {
  return readKind(file, 'skeleton', 'a skeleton (.tgf)').skeleton;
}

/** The skeleton with its hierarchy, ready for forward kinematics. */
export function readSkeleton(file: string): Skeleton {
  return buildSkeleton(readTgfSkeleton(file), file);
}

/** @param purpose  what the matrix is read as, e.g. `handles`, for the message when the file is no DMAT */
export function readMatrix(file: string, purpose: string): DenseMatrix {
  return readKind(file, 'matrix', `${purpose} (.dmat)`).matrix;
}

/** A mesh, its skeleton and their weights, checked against each other; weight warnings go to stderr. */
export function readBoundRig(meshFile: string, skeletonFile: string, weightsFile: string, stderr: CliStreams['stderr']) {
  const meshRead = readMeshFile(meshFile);
  const mesh = meshRead.mesh;
  const skeleton = readSkeleton(skeletonFile);
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  const { weights, warnings } = weightsFromDmat(readMatrix(weightsFile, 'skinning weights'), vertexCount, boneCount, weightsFile);
  for (const warning of warnings) stderr.write(`rigwright: warning: ${weightsFile}: ${warning}\n`);
  return { mesh, meshRead, skeleton, vertexCount, boneCount, weights };
}

/** The longest error message printed; the rest is cut, saying how much. */
export const MAX_MESSAGE_CHARACTERS = 400;

/** The exit code of an error that is neither bad input nor a bad command line. */
export const EXIT_INTERNAL_ERROR = 3;

/** The longest line a command prints to stdout: a line of hundreds of bone names fits, a name of megabytes does not. */
export const MAX_OUTPUT_LINE_CHARACTERS = 10000;

/**
 * A message as the tool prints it: one line of printable characters (a file's escape sequences and line breaks
 * never reach the terminal), at most MAX_MESSAGE_CHARACTERS long.
 */
export function clampMessage(message: string): string {
  return printableLine(message, MAX_MESSAGE_CHARACTERS);
}

/** An unexpected error in words: the system's limits named plainly, the rest as its type and message. */
export function describeUnexpected(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'the input nests too deeply (stack overflow)';
  if (error instanceof RangeError && /array length|allocation failed|buffer/i.test(error.message)) {
    return `out of memory: ${error.message}`;
  }
  if (error instanceof Error) return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return String(error);
}

/** A number in at most `significantDigits` digits, without trailing zeros. */
export function formatNumber(x: number, significantDigits: number): string {
  return Number(x.toPrecision(significantDigits)).toString();
}
