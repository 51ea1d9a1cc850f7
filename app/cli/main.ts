/**
 * The `rigwright` command-line tool: the app's own readers, forward kinematics, skinning and weights (workers/),
 * headless. One file per command in commands/; this file lists them, dispatches, answers --help and applies the
 * exit-code policy: 0 success, 1 bad input (the message names the file, the place and the reason), 2 bad command
 * line (a usage message follows), 3 anything else (a fault of the tool, or the system refusing: out of memory, …),
 * as one line naming the command and the reason. No stack trace unless RIGWRIGHT_DEBUG=1; no message longer than
 * MAX_MESSAGE_CHARACTERS (an input's token can be megabytes long) and none with a character a terminal acts on
 * (a file can hold escape sequences): clampMessage.
 */
import { FormatError, printableLine } from '../../workers/formats/format-error.ts';
import {
  clampMessage,
  describeUnexpected,
  EXIT_INTERNAL_ERROR,
  MAX_MESSAGE_CHARACTERS,
  MAX_OUTPUT_LINE_CHARACTERS,
  parseCommandLine,
  UsageError,
  type CliCommand,
  type CliStreams,
} from './cli-support.ts';
import { infoCommand } from './commands/info.ts';
import { fkCommand } from './commands/fk.ts';
import { skinCommand } from './commands/skin.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { weightsCommand } from './commands/weights.ts';
import { unposeCommand } from './commands/unpose.ts';
import { editCommand } from './commands/edit.ts';
import { skeletonCommand } from './commands/skeleton.ts';
import { clipCommand } from './commands/clip.ts';
import { poseCommand } from './commands/pose.ts';
import { transferCommand } from './commands/transfer.ts';
import { runCommand } from './commands/run.ts';

export type { CliStreams } from './cli-support.ts';
export { clampMessage, EXIT_INTERNAL_ERROR, MAX_MESSAGE_CHARACTERS } from './cli-support.ts';

const COMMANDS: readonly CliCommand[] = [
  infoCommand,
  fkCommand,
  skinCommand,
  exportCommand,
  importCommand,
  weightsCommand,
  transferCommand,
  unposeCommand,
  editCommand,
  skeletonCommand,
  poseCommand,
  clipCommand,
  runCommand,
];

const NAME_WIDTH = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;

const USAGE = `Usage: rigwright <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(NAME_WIDTH)}${c.summary}\n`).join('')}
Run \`rigwright <command> --help\` for a command's options.
Files: meshes .obj .off, skeletons .tgf, weights / handles / poses .dmat (libigl), projects .rig.glb.
`;

export interface RunCliOptions {
  /** print the stack of an unexpected error; default: RIGWRIGHT_DEBUG=1 in the environment */
  debug?: boolean;
  /** the commands to choose from; default the tool's own (tests add one that fails in a chosen way) */
  commands?: readonly CliCommand[];
}

/**
 * Runs one command.
 * @param argv     the arguments after the program name
 * @param streams  where output and messages go
 * @returns the exit code: 0 done, 1 bad input, 2 bad command line, 3 any other error
 */
export async function runCli(argv: string[], streams: CliStreams, options: RunCliOptions = {}): Promise<number> {
  const { debug = process.env.RIGWRIGHT_DEBUG === '1', commands = COMMANDS } = options;
  const [name, ...args] = argv;
  if (name === '-h' || name === '--help' || name === 'help') {
    streams.stdout.write(USAGE);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  try {
    if (name === undefined) throw new UsageError('no command given');
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    const line = command.parse ? command.parse(args) : parseCommandLine(command, args);
    if (line.help) {
      streams.stdout.write(command.usage);
      return 0;
    }
    return await command.run(line, printableStreams(streams));
  } catch (error) {
    if (error instanceof UsageError) {
      streams.stderr.write(`rigwright: ${clampMessage(error.message)}\n\n${command?.usage ?? USAGE}`);
      return 2;
    }
    if (error instanceof FormatError) {
      streams.stderr.write(`rigwright: ${clampMessage(error.message)}\n`);
      return 1;
    }
    streams.stderr.write(`rigwright ${name ?? ''}: failed: ${clampMessage(describeUnexpected(error))}\n`);
    if (debug && error instanceof Error && error.stack) streams.stderr.write(`${error.stack}\n`);
    return EXIT_INTERNAL_ERROR;
  }
}

/**
 * Runs one command in this process, on its own stdout and stderr (the `rigwright` program). A stream closed before
 * the command has written everything (`rigwright info FILE | head -1`, `… 2>&1 >/dev/null | head -1`: the reader has
 * what it wanted) discards the rest of what the command writes to it: the command goes on to its end (a script still
 * saves its files, a bad input is still read) and the exit code is its own.
 * @param argv  the arguments after the program name
 * @returns the exit code, as runCli's
 */
export function runCliInProcess(argv: string[]): Promise<number> {
  return runCli(argv, { stdout: discardWhenClosed(process.stdout), stderr: discardWhenClosed(process.stderr) });
}

/**
 * Writes to `stream` until its reader has gone (the write failed with EPIPE), then discards: the failed write has
 * destroyed the stream, and a write to a destroyed stream fails again (ERR_STREAM_DESTROYED). Another error of the
 * stream stays an error (thrown from its 'error' event, as a stream without a listener throws it).
 */
function discardWhenClosed(stream: NodeJS.WriteStream): CliStreams['stdout'] {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && !(closed && error.code === 'ERR_STREAM_DESTROYED')) throw error;
    closed = true;
  });
  return { write: (text: string) => closed || stream.destroyed || stream.write(text) };
}

/**
 * The streams as a command gets them: every line it writes is made printable (printableLine), so that names, tokens
 * and warnings quoted from a file cannot move the cursor, recolour or retitle the terminal; stderr lines (messages)
 * at most MAX_MESSAGE_CHARACTERS long, stdout lines MAX_OUTPUT_LINE_CHARACTERS.
 */
function printableStreams(streams: CliStreams): CliStreams {
  const printable = (text: string, max: number): string =>
    text
      .split('\n')
      .map((line) => printableLine(line, max))
      .join('\n');
  return {
    stdout: { write: (text: string) => streams.stdout.write(printable(text, MAX_OUTPUT_LINE_CHARACTERS)) },
    stderr: { write: (text: string) => streams.stderr.write(printable(text, MAX_MESSAGE_CHARACTERS)) },
  };
}
