/**
 * While a script runs, the user's edits wait: the app's command registry, its context keys made as the app makes them
 * (ScriptController.contextKeys), refuses the user's commands that edit or read the scene — greyed (isEnabled), a key
 * or menu click doing nothing (invoke), the reason saying a script is running — while the script's own calls, made
 * through the same registry, run. After the run (done or stopped) the user's commands run again, and a stopped run
 * leaves the scene and the history as they were before it. The Node sandbox and the headless commands' handlers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptController, type ScriptRunFiles } from '../../renderer/scripting/script-controller.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { CommandRefused, CommandRegistry, type CommandHandler } from '../../renderer/commands/command-registry.ts';
import { SCRIPT_RUNNING } from '../../renderer/commands/when-clause.ts';
import { startNodeSandbox } from '../../app/cli/script/node-sandbox.ts';
import type { CommandId } from '../../renderer/commands/command-catalog.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';

const noFiles: ScriptRunFiles = {
  opening: false,
  beginRun: () => undefined,
  endRun: () => undefined,
  cancel: () => undefined,
  'files.open': () => Promise.reject(new Error('files.open: not here')),
  'files.saveProject': () => Promise.reject(new Error('files.saveProject: not here')),
  'files.exportGltf': () => Promise.reject(new Error('files.exportGltf: not here')),
};

/**
 * The app's arrangement on the demo scene: one registry for the user and the script, its context keys from the
 * controller (no tool gesture), its weight and undo commands the headless handlers. A script may also run
 * `rig.execute('test.gate')`, which waits until the test opens the gate.
 */
function app() {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const handlers = headlessRegistry(store);
  const reported: string[] = [];
  // The app's context: the scene's keys and the run's (App.context adds the tool manager's gesture).
  const registry: CommandRegistry = new CommandRegistry(
    () => ({ hasSkeleton: true, ...scripts.contextKeys(false) }),
    (id, error) => reported.push(`${id}: ${String(error)}`),
  );
  for (const id of ['paint.prune', 'paint.normalize', 'edit.undo', 'skin.method', 'bind.maxInfluences'] as const) {
    (registry.register as (id: CommandId, handler: CommandHandler<unknown>) => void)(id, handlers.get(id));
  }
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const scripts: ScriptController = new ScriptController({
    store,
    execute: (id, argument): unknown => {
      if (id === 'test.gate') return gate;
      return (registry.execute as (id: CommandId, argument: unknown) => unknown)(id as CommandId, argument);
    },
    commandIds: ['paint.prune', 'paint.normalize', 'paint.limit', 'edit.undo', 'test.gate'],
    files: noFiles,
    startSandbox: startNodeSandbox,
    // Stop ends the wait at the gate, as Bind → Cancel ends a solve the script waits for.
    cancelCommand: (id) => id === 'test.gate' && open(),
  });
  return { store, registry, scripts, reported, openGate: () => open() };
}

/** Resolves once `check` holds, polling every 10 ms (fails after 10 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The script's own prune has run: the weights the scene started with are gone. */
const PRUNE_THEN_WAIT = [
  'await rig.paint.prune(0.2);',
  "print('pruned');",
  "await rig.execute('test.gate');",
  'await rig.paint.normalize();',
].join('\n');

test('during a run the user’s paint.prune and Undo are refused with the reason; the script’s own calls run', async () => {
  const { store, registry, scripts, reported, openGate } = app();
  // The user's own edit before the run: an undo step the run must leave alone.
  assert.equal(registry.invoke('paint.prune', 0.05).ran, true, 'the user prunes before the run');
  assert.deepEqual(store.history.undoLabels().length, 1, 'one step of the user’s');
  const lines: string[] = [];
  scripts.onOutput((output) => lines.push(output.text));
  const run = scripts.run(PRUNE_THEN_WAIT, 'hold.ts');
  await until(() => lines.includes('pruned'), "the script's prune");
  const duringRun = store.doc;
  const labelsDuringRun = store.history.undoLabels();

  // What menus, buttons and keys ask.
  assert.equal(registry.isEnabled('paint.prune'), false, 'paint.prune is greyed while the script runs');
  assert.equal(registry.refusal('paint.prune'), SCRIPT_RUNNING);
  assert.equal(SCRIPT_RUNNING, 'a script is running — Stop it first');
  assert.equal(registry.refusal('edit.undo'), SCRIPT_RUNNING);
  assert.deepEqual(registry.invoke('paint.prune', 0.3), { ran: false }, 'a key or menu click does nothing');
  assert.deepEqual(registry.invoke('edit.undo'), { ran: false }, 'Ctrl+Z does nothing');
  // The Bind panel's Max influences list is an undo step too.
  assert.deepEqual(registry.invoke('bind.maxInfluences', 2), { ran: false }, 'the Max influences list does nothing');
  assert.throws(
    () => registry.execute('paint.prune', 0.3),
    (error: unknown) => error instanceof CommandRefused && error.message === `paint.prune cannot run now: ${SCRIPT_RUNNING}`,
  );
  // Viewing stays free: a command that neither edits nor reads the scene runs.
  assert.equal(registry.refusal('skin.method'), null);
  assert.equal(store.doc, duringRun, 'the refused commands changed nothing');
  assert.deepEqual(store.history.undoLabels(), labelsDuringRun);
  assert.deepEqual(reported, [], 'a refusal is no error');

  openGate();
  const result = await run;
  assert.equal(result.status, 'done', JSON.stringify(result.error));
  assert.deepEqual(store.history.undoLabels().slice(1), ['Script: hold.ts'], 'the run is one step after the user’s');
  assert.equal(store.history.undoLabels().length, 2, 'nothing of the user’s folded into the run');
  assert.equal(registry.isEnabled('paint.prune'), true, 'the user’s commands run again');
  assert.equal(registry.refusal('edit.undo'), null);
  assert.equal(registry.invoke('edit.undo').ran, true, 'Undo after the run undoes the run');
  assert.deepEqual(store.history.undoLabels().length, 1);
});

test('a stopped run leaves the scene and the history as before it, the user’s attempts during it included', async () => {
  const { store, registry, scripts } = app();
  assert.equal(registry.invoke('paint.prune', 0.05).ran, true, 'the user prunes before the run');
  const before = store.doc;
  const weightsBefore = Float64Array.from(store.doc.weights.data);
  const labelsBefore = store.history.undoLabels();
  const lines: string[] = [];
  scripts.onOutput((output) => lines.push(output.text));
  const run = scripts.run(PRUNE_THEN_WAIT, 'stopped.ts');
  await until(() => lines.includes('pruned'), "the script's prune");
  assert.notDeepEqual(Float64Array.from(store.doc.weights.data), weightsBefore, 'the script pruned');
  assert.equal(registry.invoke('paint.normalize').ran, false);
  assert.equal(registry.invoke('edit.undo').ran, false);
  scripts.stop();
  const result = await run;
  assert.equal(result.status, 'stopped');
  assert.equal(store.doc.weights, before.weights, 'the weights object the scene had');
  assert.deepEqual(Float64Array.from(store.doc.weights.data), weightsBefore, 'bit for bit');
  assert.deepEqual(store.history.undoLabels(), labelsBefore);
  assert.equal(registry.invoke('edit.undo').ran, true, 'Undo runs again, on the user’s own step');
  assert.deepEqual(store.history.undoLabels(), []);
});

test('the context keys: scriptRunning through the run, toolBusy only outside the script’s own calls, a gesture kept', async () => {
  const { registry, scripts, openGate } = app();
  assert.deepEqual(scripts.contextKeys(false), { scriptRunning: false, toolBusy: false });
  assert.deepEqual(scripts.contextKeys(true), { scriptRunning: false, toolBusy: true }, 'a gesture is busy by itself');
  let seenInCall: boolean | undefined;
  registry.register('paint.limit', {
    run: () => {
      // Inside the script's own call the scene is the script's.
      seenInCall = scripts.contextKeys(false).toolBusy;
    },
  });
  const run = scripts.run("await rig.execute('paint.limit');\nawait rig.execute('test.gate');", 'keys.ts');
  assert.deepEqual(scripts.contextKeys(false), { scriptRunning: true, toolBusy: true });
  assert.equal(scripts.holdsScene, true);
  await until(() => seenInCall !== undefined, 'the call');
  assert.equal(seenInCall, false, 'toolBusy is off inside the script’s own call');
  assert.deepEqual(scripts.contextKeys(false), { scriptRunning: true, toolBusy: true }, 'and on again after it');
  openGate();
  assert.equal((await run).status, 'done');
  assert.deepEqual(scripts.contextKeys(false), { scriptRunning: false, toolBusy: false });
});
