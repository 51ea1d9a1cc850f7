/**
 * The `rigwright` command-line tool: the app's own readers, forward kinematics, skinning and weights (workers/),
 * headless. One file per command in commands/; this file lists them, dispatches, answers --help and applies the
 * exit-code policy: 0 success, 1 bad input (the message names the file, the place and the reason), 2 bad command
 * line (a usage message follows), 3 anything else (a fault of the tool, or the system refusing: out of memory, …),
 * as one line naming the command and the reason. No stack trace unless RIGWRIGHT_DEBUG=1; no message longer than
 * MAX_MESSAGE_CHARACTERS (an input's token can be megabytes long).
 */
import { FormatError } from '../../workers/formats/format-error.ts';
import { parseCommandLine, UsageError, type CliCommand, type CliStreams } from './cli-support.ts';
import { infoCommand } from './commands/info.ts';
import { fkCommand } from './commands/fk.ts';
import { skinCommand } from './commands/skin.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { weightsCommand } from './commands/weights.ts';
import { unposeCommand } from './commands/unpose.ts';

export type { CliStreams } from './cli-support.ts';

/** The longest error message printed; the rest is cut, saying how much. */
export const MAX_MESSAGE_CHARACTERS = 400;

/** The exit code of an error that is neither bad input nor a bad command line. */
export const EXIT_INTERNAL_ERROR = 3;

const COMMANDS: readonly CliCommand[] = [infoCommand, fkCommand, skinCommand, exportCommand, importCommand, weightsCommand, unposeCommand];

const NAME_WIDTH = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;

const USAGE = `Usage: rigwright <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(NAME_WIDTH)}${c.summary}\n`).join('')}
Run \`rigwright <command> --help\` for a command's options.
Files: meshes .obj .off, skeletons .tgf, weights / handles / poses .dmat (libigl).
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
    const line = parseCommandLine(command, args);
    if (line.help) {
      streams.stdout.write(command.usage);
      return 0;
    }
    return await command.run(line, streams);
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

/** An unexpected error in words: the system's limits named plainly, the rest as its type and message. */
function describeUnexpected(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'the input nests too deeply (stack overflow)';
  if (error instanceof RangeError && /array length|allocation failed|buffer/i.test(error.message)) {
    return `out of memory: ${error.message}`;
  }
  if (error instanceof Error) return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return String(error);
}

/** The message on one line and at most MAX_MESSAGE_CHARACTERS long. */
export function clampMessage(message: string): string {
  const line = message.replace(/\s*\n\s*/g, ' ');
  if (line.length <= MAX_MESSAGE_CHARACTERS) return line;
  return `${line.slice(0, MAX_MESSAGE_CHARACTERS)}… (${line.length - MAX_MESSAGE_CHARACTERS} more characters)`;
}
