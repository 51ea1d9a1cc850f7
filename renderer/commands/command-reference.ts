/**
 * The command reference made from the command catalog's schemas (for the help and the documentation), so it says
 * exactly what the registry checks. The script API's declaration file and reference page are script-declarations.ts's and script-reference.ts's.
 */
import { COMMANDS, type CommandId } from './command-catalog.ts';
import { describe } from './command-schema.ts';

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
