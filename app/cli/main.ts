/**
 * The `rigwright` command-line tool: the app's own readers, forward kinematics, skinning and weights (workers/),
 * headless. One file per command in commands/; this file lists them, dispatches, answers --help and applies the
 * exit-code policy: 0 success, 1 bad input (the message names the file, the place and the reason), 2 bad command
 * line (a usage message follows). User errors never print a stack trace.
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

const COMMANDS: readonly CliCommand[] = [infoCommand, fkCommand, skinCommand, exportCommand, importCommand, weightsCommand, unposeCommand];

const NAME_WIDTH = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;

const USAGE = `Usage: rigwright <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(NAME_WIDTH)}${c.summary}\n`).join('')}
Run \`rigwright <command> --help\` for a command's options.
Files: meshes .obj .off, skeletons .tgf, weights / handles / poses .dmat (libigl).
`;

/**
 * Runs one command.
 * @param argv     the arguments after the program name
 * @param streams  where output and messages go
 * @returns the exit code: 0 done, 1 bad input, 2 bad command line
 */
export async function runCli(argv: string[], streams: CliStreams): Promise<number> {
  const [name, ...args] = argv;
  if (name === '-h' || name === '--help' || name === 'help') {
    streams.stdout.write(USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
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
      streams.stderr.write(`rigwright: ${error.message}\n\n${command?.usage ?? USAGE}`);
      return 2;
    }
    if (error instanceof FormatError) {
      streams.stderr.write(`rigwright: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
