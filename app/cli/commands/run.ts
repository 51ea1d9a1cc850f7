/**
 * `rigwright run`: runs a script headless, with the API and the sandbox rules it has in the app — the app's commands
 * through the headless registry (renderer/scripting/headless-commands.ts: the same argument checks and handlers), the
 * scene calls every host answers with (sceneScriptCalls), files through the CLI (cli-files.ts), and the same sandbox
 * host (ScriptHost: the run is one undo step, a failure leaves the scene as it was) around a Node sandbox with no
 * network, no file system and no Node. What the script prints goes to stdout; its warnings and errors, its progress,
 * and Compute weights' progress and bind report go to stderr;
 * `--save` writes the project once the run has succeeded.
 */
import path from 'node:path';
import { COMMANDS } from '../../../renderer/commands/command-catalog.ts';
import { SCRIPT_COMMAND_IDS, scriptDeniedReason } from '../../../renderer/commands/script-access.ts';
import { isCommandId } from '../../../renderer/commands/command-registry.ts';
import { headlessRegistry } from '../../../renderer/scripting/headless-commands.ts';
import { demoDocument } from '../../../workers/scene/scene-document.ts';
import { SceneStore } from '../../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../../workers/scene/undo-history.ts';
import { sceneScriptCalls } from '../../../workers/script/script-scene-calls.ts';
import { SCRIPT_TIME_LIMIT_DEFAULT_MS, ScriptHost, type ScriptOutput, type ScriptRunResult } from '../../../workers/script/script-host.ts';
import { startNodeSandbox } from '../script/node-sandbox.ts';
import { CliScriptFiles, headlessOptionsOf, openSceneFiles, type OpenedScene } from '../script/cli-files.ts';
import {
  outputExtension,
  parseNumber,
  readBytes,
  UsageError,
  writeFile,
  type CliCommand,
  type CliStreams,
  type CommandLine,
} from '../cli-support.ts';

/** Options that take one value, that take every argument up to the next option, and flags. */
const ONE_VALUE = new Set(['project', 'save', 'time-limit']);
const MANY_VALUES = new Set(['scene']);
const FLAGS = new Set(['allow-write']);

const DEFAULT_SECONDS = SCRIPT_TIME_LIMIT_DEFAULT_MS / 1000;

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run a script (TypeScript, the scripting panel’s API) on a scene',
  usage: `Usage: rigwright run SCRIPT.ts [--scene FILE…| --project P.rig.glb] [--save OUT.rig.glb] [--allow-write]
                     [--time-limit SECONDS] [-- ARGS…]

Runs a script as the app's scripting panel does: the same API (\`rig\`, \`print\`, \`console\`, \`args\`), the same
commands with the same argument checks (those that need the app's window are refused, saying why), and the same
sandbox: no network, no file system but \`rig.files\`, no Node. The whole run is one undo step; a script that throws
leaves the scene as it was. What it prints goes to standard output, its errors to standard error as
FILE:LINE:COLUMN: MESSAGE; so does its progress (rig.progress), and Compute weights' stages and report (the
vertices welded, bones and parts of the mesh without handles).

  --scene FILE…        the scene: files the app's File → Import takes (a mesh .obj/.off with its skeleton .tgf,
                       weights, handles and poses .dmat; or a glTF .glb/.gltf)
  --project FILE       the scene: a Rigwright project (.rig.glb), with its settings (max influences, binding
                       options, selected bone); without --scene or --project, the app's demo
  --save FILE          write the project there once the script has succeeded (.rig.glb; may be --project's file)
  --allow-write        let the script write files outside the working folder and the project's folder
  --time-limit S       stop the script after S seconds (0: no limit); default ${DEFAULT_SECONDS}
  -- ARGS…             the script's \`args\`
  -h, --help           this help

Exit status: 0 the script ran to its end (an empty script too); 1 it threw, was stopped by the time limit, or a file
could not be read or written; 2 a bad command line.
`,
  options: {},
  allowPositionals: true,
  parse: parseRunLine,

  async run(line, streams) {
    const { stdout, stderr } = streams;
    const [script, ...scriptArgs] = line.positionals;
    if (script === undefined) throw new UsageError('no script given');
    const sequence = line.sequence ?? [];
    const sceneFiles = sequence.filter((use) => use.name === 'scene').flatMap((use) => use.values);
    const project = line.values.project;
    if (sequence.some((use) => use.name === 'scene') && sceneFiles.length === 0) throw new UsageError('--scene needs at least one file');
    if (sceneFiles.length > 0 && project !== undefined) throw new UsageError('give --scene FILE… or --project FILE, not both');
    const save = line.values.save;
    if (save !== undefined) outputExtension(save, ['glb']);
    const timeLimitMs = timeLimitOption(line.values['time-limit']);

    const source = new TextDecoder().decode(readBytes(script));
    const opened: OpenedScene =
      project !== undefined
        ? await openSceneFiles([project])
        : sceneFiles.length > 0
          ? await openSceneFiles(sceneFiles)
          : { doc: demoDocument(), settings: null, weightsPainted: false, notices: [] };
    if (project !== undefined && opened.settings === null)
      throw new UsageError(`--project ${project}: not a Rigwright project; open other files with --scene`);
    for (const notice of opened.notices) stderr.write(`rigwright: warning: ${notice}\n`);

    const store = new SceneStore(opened.doc, new UndoHistory());
    const registry = headlessRegistry(store, {
      ...headlessOptionsOf(opened.settings),
      // A long command's progress and what Compute weights reports, on stderr as the script's own progress.
      onProgress: ({ command, text, fraction }) => stderr.write(`rigwright: ${COMMANDS[command].label}: ${percent(fraction)} ${text}\n`),
      onReport: ({ command, lines, warnings }) => {
        for (const report of lines) stderr.write(`rigwright: ${COMMANDS[command].label}: ${report}\n`);
        for (const warning of warnings) stderr.write(`rigwright: warning: ${COMMANDS[command].label}: ${warning}\n`);
      },
    });
    const cwd = process.cwd();
    const files = new CliScriptFiles({
      store,
      state: registry.state,
      opened,
      cwd,
      projectFolder: project !== undefined ? path.dirname(path.resolve(cwd, project)) : null,
      allowWrite: line.flags.has('allow-write'),
      warn: (message) => stderr.write(`rigwright: warning: ${message}\n`),
    });
    const calls = sceneScriptCalls({
      store,
      execute: async (id, argument) => {
        if (!isCommandId(id)) throw new Error(`execute: "${id}" is not a command (rigwright run --help lists none; see the API reference)`);
        return (registry.execute as (id: string, argument?: unknown) => unknown)(id, argument);
      },
      files,
      skinMethod: () => registry.state.skinMethod,
      // What the ScriptHost passes on came transferred from the sandbox: the scene may keep it.
      argumentsHandedOver: true,
    });
    const host = new ScriptHost({
      calls,
      history: store.history,
      startSandbox: startNodeSandbox,
      // As in the app, a script does not run scripts.
      commandIds: SCRIPT_COMMAND_IDS,
      deniedReason: scriptDeniedReason,
      onOutput: (output) => printOutput(output, script, streams),
    });
    const result = await host.run({ file: script, source, args: scriptArgs, timeLimitMs });
    if (result.status !== 'done') {
      stderr.write(`${failure(result, script, timeLimitMs)}\n`);
      return 1;
    }
    if (save !== undefined) {
      writeFile(save, await files.projectBytes(path.basename(save)));
      stdout.write(`wrote ${save}\n`);
    }
    return 0;
  },
};

/**
 * The command line: the script and its arguments (after `--`), `--scene` with every file up to the next option,
 * the one-value options and the flags.
 */
function parseRunLine(args: string[]): CommandLine & { help: boolean } {
  const line: CommandLine & { help: boolean } = { values: {}, flags: new Set(), positionals: [], sequence: [], help: false };
  const sequence = line.sequence as { name: string; values: string[] }[];
  const flags = line.flags as Set<string>;
  const scriptArgs: string[] = [];
  let script: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      scriptArgs.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      line.help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (script !== undefined) throw new UsageError(`give one script; "${arg}" is a second (the script's own arguments go after --)`);
      script = arg;
      continue;
    }
    const name = arg.slice(2);
    if (FLAGS.has(name)) {
      flags.add(name);
      sequence.push({ name, values: [] });
    } else if (ONE_VALUE.has(name)) {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      line.values[name] = value;
      sequence.push({ name, values: [value] });
      i++;
    } else if (MANY_VALUES.has(name)) {
      const values: string[] = [];
      while (i + 1 < args.length && !args[i + 1].startsWith('--')) values.push(args[++i]);
      sequence.push({ name, values });
    } else {
      throw new UsageError(`unknown option '${arg}'`);
    }
  }
  line.positionals = script === undefined ? [] : [script, ...scriptArgs];
  return line;
}

/** --time-limit S in ms: a number of seconds ≥ 0 (0: none); absent: the app's default. */
function timeLimitOption(text: string | undefined): number {
  if (text === undefined) return SCRIPT_TIME_LIMIT_DEFAULT_MS;
  const seconds = parseNumber(text);
  if (!(seconds >= 0 && Number.isFinite(seconds))) throw new UsageError(`--time-limit must be a number of seconds ≥ 0, not "${text}"`);
  return Math.round(seconds * 1000);
}

/** A line the script printed: log to stdout, errors and warnings to stderr, progress to stderr as a percentage. */
function printOutput(output: ScriptOutput, script: string, { stdout, stderr }: CliStreams): void {
  if (output.kind === 'log') stdout.write(`${output.text}\n`);
  else if (output.kind === 'progress') stderr.write(`${script}: ${percent(output.fraction ?? 0)}${output.text ? ` ${output.text}` : ''}\n`);
  else stderr.write(`${output.text}\n`);
}

/** A fraction 0 … 1 as a whole percentage: `42%`. */
function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/** Why the run did not end: FILE:LINE:COLUMN: MESSAGE for a throw, or the time limit, or a stop. */
function failure(result: ScriptRunResult, script: string, timeLimitMs: number): string {
  if (result.status === 'timed-out') return `${script}: stopped after the time limit of ${timeLimitMs / 1000} s (--time-limit S sets it)`;
  const error = result.error;
  if (!error) return `${script}: ${result.status}`;
  const place = error.line !== undefined ? `:${error.line}${error.column !== undefined ? `:${error.column}` : ''}` : '';
  return `${error.file || script}${place}: ${error.message}`;
}
