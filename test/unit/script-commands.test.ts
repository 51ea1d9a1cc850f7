/**
 * The script commands as the catalog, the key table and the shell make them: the example names the catalog offers
 * are the example files there are; Ctrl/⌘ Enter runs the script only while the editor has the focus and Ctrl/⌘ Shift E
 * toggles the panel; Run is refused while a script runs (and Stop while none does) with the reason; an example name
 * not in the list is refused naming the command; the handlers reach the panel and the runner; the desktop bridge lets
 * the open and save dialogs take scripts (.ts, .js) and still nothing else new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS, SCRIPT_EXAMPLES } from '../../renderer/commands/command-catalog.ts';
import { CommandRefused, CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { resolveKey } from '../../renderer/commands/keybindings.ts';
import { scriptCommands } from '../../renderer/shell/script-commands.ts';
import { validateOpenFilesRequest, validateSaveFileRequest } from '../../app/ipc-validate.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A stand-in panel and runner that write down what the commands asked of them. */
function standIns() {
  const calls: string[] = [];
  let open = false;
  const host = {
    scriptPanel: {
      get open() {
        return open;
      },
      setOpen: (on: boolean) => {
        open = on;
        calls.push(`open ${on}`);
      },
      run: async () => void calls.push('run'),
      openFile: async () => void calls.push('openFile'),
      save: async () => (calls.push('save'), true),
      saveAs: async () => (calls.push('saveAs'), false),
      openExample: async (name: string) => void calls.push(`example ${name}`),
    },
    scripts: { stop: () => void calls.push('stop') },
  };
  return { host, calls };
}

function registry(context: Record<string, boolean>, host = standIns().host): CommandRegistry {
  const commands = new CommandRegistry(() => context);
  commands.registerAll(scriptCommands(host));
  return commands;
}

test('script.example offers exactly the example scripts in renderer/scripting/examples', () => {
  const files = readdirSync(path.join(repoRoot, 'renderer/scripting/examples'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -3))
    .sort();
  assert.deepEqual([...SCRIPT_EXAMPLES].sort(), files, 'each example file is offered, and only those');
  const argument = COMMANDS['script.example'].argument;
  assert.deepEqual(argument, { kind: 'oneOf', values: SCRIPT_EXAMPLES });
  for (const name of SCRIPT_EXAMPLES) assert.ok(COMMANDS['script.example'].description?.includes(name), `the description names ${name}`);
});

test('Ctrl/⌘ Enter runs the script only while its editor has the focus; Ctrl/⌘ Shift E toggles the panel anywhere', () => {
  assert.equal(resolveKey('Mod+Enter', { scriptEditorFocus: true })?.command, 'script.run');
  assert.equal(resolveKey('Mod+Enter', { scriptEditorFocus: false }), null);
  assert.equal(resolveKey('Mod+Shift+E', {})?.command, 'script.panel');
  assert.equal(resolveKey('Mod+Shift+E', { scriptEditorFocus: true })?.command, 'script.panel');
  // Ctrl/⌘ E stays the export.
  assert.equal(resolveKey('Mod+E', { scriptEditorFocus: true })?.command, 'file.export');
});

test('Run is refused while a script runs and Stop while none does, each saying why', () => {
  const running = registry({ scriptRunning: true });
  assert.throws(
    () => running.execute('script.run'),
    (error: unknown) =>
      error instanceof CommandRefused && error.message === 'script.run cannot run now: a script is running — Stop it first',
  );
  assert.equal(running.refusal('script.stop'), null);
  const idle = registry({ scriptRunning: false });
  assert.equal(idle.refusal('script.run'), null);
  assert.equal(idle.refusal('script.stop'), 'no script is running');
  // A gesture in progress holds a run back too (a script edits the scene).
  assert.equal(registry({ scriptRunning: false, toolBusy: true }).refusal('script.run'), 'a gesture is in progress');
});

test('the handlers reach the panel and the runner; the panel toggle gives back whether it is open', async () => {
  const { host, calls } = standIns();
  const commands = registry({ scriptRunning: true }, host);
  assert.equal(commands.execute('script.panel'), true);
  assert.equal(commands.isChecked('script.panel'), true);
  assert.equal(commands.execute('script.panel'), false);
  void commands.execute('script.stop');
  await commands.execute('script.example', 'prune-and-limit');
  await commands.execute('script.open');
  await commands.execute('script.save');
  await commands.execute('script.saveAs');
  assert.deepEqual(calls, ['open true', 'open false', 'stop', 'example prune-and-limit', 'openFile', 'save', 'saveAs']);
});

test('an example name not in the list is refused, naming the command and the names it takes', () => {
  const commands = registry({});
  assert.throws(
    () => (commands.execute as (id: string, argument: unknown) => unknown)('script.example', 'delete-everything'),
    (error: unknown) => error instanceof Error && /script\.example/.test(error.message) && /prune-and-limit/.test(error.message),
  );
});

test('the desktop dialogs take scripts: .ts and .js open and save; other extensions stay refused', () => {
  assert.deepEqual(validateOpenFilesRequest('open', { title: 'Open a script', extensions: ['ts', 'js'] }).extensions, ['ts', 'js']);
  const bytes = new TextEncoder().encode("print('hi')");
  assert.equal(validateSaveFileRequest('save', { suggestedName: 'mirror.ts', bytes }).suggestedName, 'mirror.ts');
  assert.equal(validateSaveFileRequest('save', { suggestedName: 'mirror.js', bytes }).suggestedName, 'mirror.js');
  assert.throws(() => validateOpenFilesRequest('open', { extensions: ['exe'] }), /extension "exe" is not one of/);
  assert.throws(() => validateSaveFileRequest('save', { suggestedName: 'run.sh', bytes }), /file name must end in one of/);
});
