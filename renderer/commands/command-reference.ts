/**
 * Texts made from the command catalog's schemas: the command reference (for the help and the documentation) and
 * the TypeScript declarations of the script API, so both say exactly what the registry checks.
 */
import { COMMANDS, type CommandId } from './command-catalog.ts';
import { describe, typeText, type Schema } from './command-schema.ts';

const NONE: Schema = { kind: 'none' };

/** The command reference as markdown: one row per command with its id, label, argument, result and when it runs. */
export function commandReference(): string {
  const rows = (Object.keys(COMMANDS) as CommandId[]).map((id) => {
    const info = COMMANDS[id];
    const cells = [
      `\`${id}\``,
      info.description && info.description !== info.label ? `${info.label}: ${info.description}` : info.label,
      info.argument ? describe(info.argument) : '—',
      info.result ? describe(info.result) : '—',
      info.enabledWhen ? `\`${info.enabledWhen}\`` : 'always',
    ];
    return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  });
  return ['| command | what it does | argument | result | runs when |', '| --- | --- | --- | --- | --- |', ...rows].join('\n') + '\n';
}

/**
 * The script API's declarations: `RigwrightCommands` maps each command id to its argument and result types, and
 * `RigwrightScript.execute` takes an id and its argument (left out where the command takes none).
 */
export function scriptDeclarations(): string {
  const entries = (Object.keys(COMMANDS) as CommandId[]).map((id) => {
    const info = COMMANDS[id];
    const result = info.result ? typeText(info.result) : 'void';
    return `  /** ${info.label.replaceAll('*/', '*\\/')} */\n  ${JSON.stringify(id)}: { argument: ${typeText(info.argument ?? NONE)}; result: ${result} };`;
  });
  return [
    '/** Every command a script can run: its argument and its result. */',
    'export interface RigwrightCommands {',
    ...entries,
    '}',
    '',
    'export type CommandId = keyof RigwrightCommands;',
    '',
    '/** The arguments after the id: none, an optional one, or a required one. */',
    "export type CommandArguments<K extends CommandId> = undefined extends RigwrightCommands[K]['argument']",
    "  ? [argument?: RigwrightCommands[K]['argument']]",
    "  : [argument: RigwrightCommands[K]['argument']];",
    '',
    'export interface RigwrightScript {',
    '  /** Runs a command; rejects with the reason when it cannot run now or its argument does not fit. */',
    "  execute<K extends CommandId>(id: K, ...argument: CommandArguments<K>): Promise<RigwrightCommands[K]['result']>;",
    '}',
    '',
  ].join('\n');
}
