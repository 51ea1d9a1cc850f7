/**
 * The app's script runner (renderer/scripting/script-controller.ts) on a scene store with the app's command registry
 * as it runs headless and the Node sandbox: what a run prints and its last line, the busy state and progress the
 * status line shows, a second run refused, the time limit (a user preference), and a new scene opened by the user
 * stopping the run while one the script opens does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ScriptController,
  SCRIPT_TIME_LIMIT_DEFAULT_SECONDS,
  SCRIPT_TIME_LIMIT_PREFERENCE,
  type ScriptRunFiles,
} from '../../renderer/scripting/script-controller.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { SCRIPT_DENIED_COMMANDS, scriptDeniedReason } from '../../renderer/commands/script-access.ts';
import { PreferenceStore, PREFERENCES_STORAGE_KEY } from '../../renderer/project/preferences.ts';
import { startNodeSandbox } from '../../app/cli/script/node-sandbox.ts';
import type { CommandId } from '../../renderer/commands/command-catalog.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { demoDocument, twistDemoDocument } from '../../workers/scene/scene-document.ts';
import type { ScriptOutput } from '../../workers/script/script-host.ts';

/** Files that answer nothing: these runs touch no file. `opening` is set by a test. */
class NoFiles implements ScriptRunFiles {
  opening = false;
  runs: string[] = [];
  beginRun(file: string): void {
    this.runs.push(`begin ${file}`);
  }
  endRun(): void {
    this.runs.push('end');
  }
  /** the question a save waits for, answered by cancel() alone */
  private question: (() => void) | null = null;
  /** whether a save has asked its question */
  get asked(): boolean {
    return this.question !== null;
  }
  cancel(): void {
    this.runs.push('cancel');
    this.question?.();
  }
  'files.open' = (): Promise<void> => Promise.reject(new Error('files.open: not here'));
  /** asks the user, who never answers: only the run's end (cancel) settles it */
  'files.saveProject' = (): Promise<string> =>
    new Promise((_, reject) => (this.question = () => reject(new Error('files.saveProject: the question went unanswered'))));
  'files.exportGltf' = (): Promise<string> => Promise.reject(new Error('files.exportGltf: not here'));
}

/**
 * A controller on the demo scene. Besides the app's commands the script may run `rig.execute('test.gate')`, which
 * waits until the test opens the gate (the sandbox has no timers: this is how a script waits in these tests).
 */
function controller(
  options: {
    timeLimit?: { get(): number; set(value: number): void };
    cancelCommand?: (id: string) => void;
    keepSettings?: () => () => void;
    deniedReason?: (id: string) => string | undefined;
  } = {},
) {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const registry = headlessRegistry(store);
  const files = new NoFiles();
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  // `test.long` computes until it is cancelled (as Bind → Cancel ends a solve) and then resolves, as a cancelled bind does.
  const long = { running: 0, cancel: (): void => {} };
  const execute = (id: string, argument: unknown): unknown => {
    if (id === 'test.gate') return gate;
    // what playback.clip does: shows other poses, a change of the scene without an undo step
    if (id === 'test.showRest') return store.show({ poses: null, posesFile: null });
    if (id === 'test.long') {
      long.running++;
      return new Promise<void>((resolve) => (long.cancel = resolve));
    }
    return (registry.execute as (id: CommandId, argument: unknown) => unknown)(id as CommandId, argument);
  };
  const scripts = new ScriptController({
    store,
    execute,
    commandIds: ['paint.prune', 'paint.normalize', 'script.run', 'test.gate', 'test.long', 'test.showRest'],
    files,
    startSandbox: startNodeSandbox,
    ...options,
  });
  const output: ScriptOutput[] = [];
  scripts.onOutput((line) => output.push(line));
  return { store, files, scripts, output, long, openGate: () => open() };
}

/** Resolves once `check` holds, polling every 10 ms (fails after 10 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a run: its lines, its progress in the status text while it runs, and a last line naming its one undo step', async () => {
  const { store, files, scripts, output, openGate } = controller();
  const changes: boolean[] = [];
  scripts.onRunningChange((running) => changes.push(running));
  const weightsBefore = store.doc.weights;
  const source = [
    "print('start', 1 + 1);",
    "rig.progress(0.25, 'pruning');",
    'await rig.paint.prune(0.2);',
    // The script waits here until the test has read the status.
    "await rig.execute('test.gate', null);",
  ].join('\n');
  const run = scripts.run(source, 'folder/prune.ts');
  assert.equal(scripts.running, true, 'running as soon as run() is called');
  assert.equal(scripts.runningFile, 'folder/prune.ts');
  await until(() => scripts.progress !== null, 'the progress');
  assert.deepEqual(scripts.progress, { fraction: 0.25, message: 'pruning' });
  assert.equal(scripts.statusText, 'Running script… folder/prune.ts 25% · pruning');
  openGate();
  const result = await run;
  assert.equal(result.status, 'done');
  assert.equal(result.changed, true);
  assert.equal(scripts.running, false);
  assert.equal(scripts.statusText, null);
  assert.deepEqual(changes, [true, false]);
  assert.deepEqual(files.runs, ['begin folder/prune.ts', 'end']);
  assert.notEqual(store.doc.weights, weightsBefore, 'the prune reached the scene');
  assert.deepEqual(store.history.undoLabels(), ['Script: prune.ts']);
  assert.deepEqual(
    output.map((o) => [o.kind, o.text]),
    [
      ['log', 'start 2'],
      ['progress', 'pruning'],
      ['log', output.at(-1)!.text],
    ],
  );
  assert.match(output.at(-1)!.text, /^folder\/prune\.ts done in \d+\.\d\d s: its changes are one undo step, “Script: prune\.ts”$/);
});

test('a run that changes nothing says so; one that throws prints file:line:column and a last line; the scene is as before', async () => {
  const { store, scripts, output } = controller();
  const nothing = await scripts.run("print('hello');", 'hello.ts');
  assert.equal(nothing.status, 'done');
  assert.match(output.at(-1)!.text, /^hello\.ts done in \d+\.\d\d s; it changed nothing$/);
  output.length = 0;

  const before = store.doc;
  const result = await scripts.run("await rig.paint.prune(0.2);\nconst n: number = 3;\nthrow new Error('no good: ' + n);\n", 'throws.ts');
  assert.equal(result.status, 'failed');
  assert.equal(result.error?.line, 3);
  const failure = output.find((o) => o.kind === 'error');
  assert.ok(failure, 'the failure is printed');
  assert.equal(failure.line, 3);
  assert.match(failure.text, /^throws\.ts:3(:\d+)?: .*no good: 3/);
  assert.match(output.at(-1)!.text, /^throws\.ts failed after \d+\.\d\d s; the scene is as it was before the run$/);
  assert.equal(output.at(-1)!.kind, 'error');
  assert.equal(store.doc.weights, before.weights, 'the prune was taken back: the very same weights');
  assert.deepEqual(store.history.undoLabels(), []);
});

test('a script cannot run the script commands (a script running scripts)', async () => {
  const { scripts } = controller();
  const result = await scripts.run("await rig.execute('script.run', null);", 'nested.ts');
  assert.equal(result.status, 'failed');
  assert.match(result.error?.message ?? '', /script\.run is not a command scripts can run/);
});

test('a command scripts may not run is refused naming the command and its reason from SCRIPT_DENIED_COMMANDS, as the app wires it', async () => {
  const { scripts, store } = controller({ deniedReason: scriptDeniedReason });
  const before = store.doc;
  const cases: [string, string][] = [
    ['file.save', SCRIPT_DENIED_COMMANDS['file.save']],
    ['edit.undo', SCRIPT_DENIED_COMMANDS['edit.undo']],
    // by its prefix's entry
    ['help.keys', SCRIPT_DENIED_COMMANDS['help.*']],
    ['script.run', SCRIPT_DENIED_COMMANDS['script.*']],
  ];
  for (const [id, why] of cases) {
    const result = await scripts.run(`await rig.execute('${id}', null);`, 'denied.ts');
    assert.equal(result.status, 'failed', id);
    assert.equal(result.error?.message, `rig.execute: ${id} is not a command scripts can run: ${why}`);
  }
  const unknown = await scripts.run("await rig.execute('paint.noSuchCommand', null);", 'unknown.ts');
  assert.equal(unknown.error?.message, 'rig.execute: paint.noSuchCommand is not a command scripts can run', 'no reason for no command');
  // No command: no reason, even where a denied prefix (help.*) would cover its id.
  const noSuch = await scripts.run("await rig.execute('help.noSuch', null);", 'no-such.ts');
  assert.equal(noSuch.error?.message, 'rig.execute: help.noSuch is not a command scripts can run', 'no reason for help.noSuch');
  assert.equal(scriptDeniedReason('help.noSuch'), undefined, 'help.noSuch is no command: scriptDeniedReason has no reason for it');
  assert.equal(scriptDeniedReason('script.'), undefined, "'script.' is no command");
  assert.equal(scriptDeniedReason('help'), undefined, "'help' is no command");
  assert.equal(store.doc, before, 'nothing ran');
});

test('a second run while one runs is refused with the reason; the first runs on', async () => {
  const { scripts, output, openGate } = controller();
  const first = scripts.run("await rig.execute('test.gate', null);", 'first.ts');
  const second = await scripts.run("print('second');", 'second.ts');
  assert.equal(second.status, 'failed');
  assert.equal(second.error?.message, 'second.ts was not run: the script first.ts is running (stop it first)');
  assert.equal(scripts.runningFile, 'first.ts');
  openGate();
  assert.equal((await first).status, 'done');
  assert.ok(!output.some((o) => o.text === 'second'), 'the second script never ran');
});

test('Stop and the time limit end `while (true) {}`; the scene is as before and the last line says how it ended', async () => {
  const { store, scripts, output } = controller();
  const before = store.doc;
  const stopped = scripts.run('await rig.paint.prune(0.2);\nwhile (true) {}', 'spin.ts');
  await until(() => store.doc !== before, 'the prune');
  scripts.stop();
  assert.equal((await stopped).status, 'stopped');
  assert.equal(store.doc.weights, before.weights);
  assert.match(output.at(-1)!.text, /^spin\.ts stopped after \d+\.\d\d s; the scene is as it was before the run$/);

  assert.equal(scripts.timeLimitSeconds, SCRIPT_TIME_LIMIT_DEFAULT_SECONDS);
  scripts.timeLimitSeconds = 1;
  const started = Date.now();
  const timedOut = await scripts.run('await rig.paint.prune(0.2);\nwhile (true) {}', 'spin.ts');
  assert.equal(timedOut.status, 'timed-out');
  assert.ok(Date.now() - started >= 950, `the limit was 1 s, the run took ${Date.now() - started} ms`);
  assert.equal(store.doc.weights, before.weights);
  assert.equal(output.at(-1)!.text, 'spin.ts reached the time limit (1 s) and was stopped; the scene is as it was before the run');
  assert.deepEqual(store.history.undoLabels(), []);
  assert.throws(() => (scripts.timeLimitSeconds = -1), /script time limit: -1 is not a number of seconds in 0 … 3600/);
  assert.throws(() => (scripts.timeLimitSeconds = Number.NaN), /script time limit: NaN/);
});

test('the last line of a timed-out run names the limit it ran under, though the preference changed meanwhile', async () => {
  const { scripts, output } = controller();
  scripts.timeLimitSeconds = 1;
  const run = scripts.run('while (true) {}', 'spin.ts');
  scripts.timeLimitSeconds = 7;
  const result = await run;
  assert.equal(result.status, 'timed-out');
  assert.ok(result.durationMs < 5000, `the run ended at its own 1 s limit, after ${result.durationMs} ms`);
  assert.equal(output.at(-1)!.text, 'spin.ts reached the time limit (1 s) and was stopped; the scene is as it was before the run');
});

test('Stop and the time limit end a run that waits for the user to answer a question (the question goes unanswered)', async () => {
  const { files, scripts, output } = controller();
  const stopped = scripts.run("await rig.files.saveProject('hand.rig.glb');", 'save.ts');
  // Stopped once the save waits for its answer (a fixed wait raced the sandbox's start on a loaded machine).
  await until(() => files.runs.length === 1 && scripts.running && files.asked, 'the save waiting for its answer');
  scripts.stop();
  assert.equal((await stopped).status, 'stopped');

  scripts.timeLimitSeconds = 1;
  const timedOut = await scripts.run("await rig.files.saveProject('hand.rig.glb');", 'save.ts');
  assert.equal(timedOut.status, 'timed-out');
  assert.equal(output.at(-1)!.text, 'save.ts reached the time limit (1 s) and was stopped; the scene is as it was before the run');
  assert.deepEqual(files.runs, ['begin save.ts', 'cancel', 'end', 'begin save.ts', 'cancel', 'end']);
});

test('a new scene opened while a script runs stops it; one the script itself opens does not', async () => {
  const { store, files, scripts, openGate } = controller();
  const run = scripts.run('await rig.paint.prune(0.2);\nwhile (true) {}', 'spin.ts');
  const before = store.doc;
  await until(() => store.doc !== before, 'the prune');
  const twist = twistDemoDocument();
  store.open(twist, 'opened the twist test');
  assert.equal((await run).status, 'stopped');
  assert.equal(store.doc, twist, 'the new scene stays, untouched by the rollback');
  assert.deepEqual(store.history.undoLabels(), []);

  const kept = scripts.run("await rig.execute('test.gate', null);\nprint('still here');", 'opens.ts');
  files.opening = true;
  store.open(demoDocument(), 'opened by the script');
  files.opening = false;
  openGate();
  assert.equal((await kept).status, 'done', 'the script’s own new scene does not stop it');
});

test('a run that opens a scene says so: failing afterwards it keeps that scene (its later edits undone), and its last line says which', async () => {
  const { store, files, scripts, output } = controller();
  const twist = twistDemoDocument();
  files['files.open'] = async () => {
    files.opening = true;
    store.open(twist, 'opened by the script');
    files.opening = false;
  };
  const failed = await scripts.run(
    "await rig.paint.prune(0.2);\nawait rig.files.open('twist.obj');\nawait rig.paint.prune(0.2);\nthrow new Error('late');",
    'opens.ts',
  );
  assert.equal(failed.status, 'failed', JSON.stringify(failed));
  assert.equal(failed.openedScene, true, 'the result says the run opened a scene');
  assert.equal(store.doc.weights, twist.weights, 'the opened scene is kept, the prune after the open undone');
  assert.deepEqual(store.history.undoLabels(), [], 'nothing to undo: the open cleared the history');
  assert.match(
    output.at(-1)!.text,
    /^opens\.ts failed after \d+\.\d\d s; the scene it opened is kept \(opening it cleared the undo history\), its edits after the open undone$/,
  );

  const done = await scripts.run("await rig.files.open('twist.obj');\nawait rig.paint.prune(0.2);", 'opens.ts');
  assert.equal(done.status, 'done');
  assert.equal(done.openedScene, true);
  assert.deepEqual(store.history.undoLabels(), ['Script: opens.ts'], 'the edits after the open are one step');
  assert.match(
    output.at(-1)!.text,
    /^opens\.ts done in \d+\.\d\d s: it opened a scene, which cleared the undo history; its changes after that are one undo step, “Script: opens\.ts”$/,
  );

  const plain = await scripts.run('await rig.paint.prune(0.2);', 'prune.ts');
  assert.equal(plain.openedScene, undefined, 'a run that opens nothing does not say it did');
});

test('the time limit is a user preference: kept in the storage, read back, a bad stored value giving the default', () => {
  const storage = new Map<string, string>();
  const page = {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => void storage.set(key, value),
  };
  const preferences = new PreferenceStore(page);
  const { scripts } = controller({ timeLimit: preferences.register(SCRIPT_TIME_LIMIT_PREFERENCE) });
  scripts.timeLimitSeconds = 12;
  assert.deepEqual((JSON.parse(storage.get(PREFERENCES_STORAGE_KEY)!) as { values: object }).values, { 'script.timeLimit': 12 });
  const again = new PreferenceStore(page).register(SCRIPT_TIME_LIMIT_PREFERENCE);
  assert.equal(again.get(), 12);

  storage.set(PREFERENCES_STORAGE_KEY, JSON.stringify({ version: 1, values: { 'script.timeLimit': 'long' } }));
  const warnings: string[] = [];
  const bad = new PreferenceStore(page, (message) => warnings.push(message)).register(SCRIPT_TIME_LIMIT_PREFERENCE);
  assert.equal(bad.get(), SCRIPT_TIME_LIMIT_DEFAULT_SECONDS);
  assert.match(warnings[0], /Script time limit \(seconds\)” could not be read \("long" is not a number\)/);
});

test('Stop and the time limit cancel the long command a run waits for, and the run ends as soon as it is cancelled', async () => {
  const cancelled: string[] = [];
  const { store, scripts, output, long } = controller({
    cancelCommand: (id) => {
      cancelled.push(id);
      if (id === 'test.long') long.cancel();
    },
  });
  const before = store.doc;
  const source = "await rig.paint.prune(0.2);\nprint('computing');\nawait rig.execute('test.long', null);\nprint('after');";
  const stopped = scripts.run(source, 'compute.ts');
  await until(() => long.running === 1 && store.doc !== before, 'the long command');
  const stopAt = Date.now();
  scripts.stop();
  assert.equal((await stopped).status, 'stopped');
  assert.ok(Date.now() - stopAt < 1000, `the run ended ${Date.now() - stopAt} ms after Stop`);
  assert.deepEqual(cancelled, ['test.long'], 'Stop cancelled the command the run waited for, and only it');
  assert.equal(store.doc.weights, before.weights, 'the prune before it is rolled back');
  assert.ok(!output.some((o) => o.text === 'after'), 'the script did not go on');

  scripts.timeLimitSeconds = 1;
  const started = Date.now();
  const timedOut = await scripts.run(source, 'compute.ts');
  assert.equal(timedOut.status, 'timed-out');
  assert.ok(Date.now() - started < 2000, `the limit was 1 s, the run took ${Date.now() - started} ms`);
  assert.deepEqual(cancelled, ['test.long', 'test.long'], 'the time limit cancelled the command');
  assert.equal(store.doc.weights, before.weights);
  assert.deepEqual(store.history.undoLabels(), []);
});

test('a run that waits for a command with nothing to cancel ends when the command does', async () => {
  const { scripts, openGate } = controller({ cancelCommand: () => undefined });
  let ended = false;
  const run = scripts.run("await rig.execute('test.gate', null);", 'wait.ts').then((result) => ((ended = true), result));
  await new Promise((resolve) => setTimeout(resolve, 300));
  scripts.stop();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(!ended, 'the run waits for its command, which the cancel did not end');
  openGate();
  assert.equal((await run).status, 'stopped');
});

test('a rolled-back run puts back what its commands changed without an undo step: the clip shown and the settings', async () => {
  const settings = { laplacian: 'cotan' };
  const kept: string[] = [];
  const { store, scripts } = controller({
    keepSettings: () => {
      const before = { ...settings };
      return () => {
        kept.push(settings.laplacian);
        Object.assign(settings, before);
      };
    },
  });
  const before = store.doc;
  assert.ok(before.poses, 'the demo shows its animation');
  const showRest = "await rig.paint.prune(0.2);\nawait rig.execute('test.showRest');\n";
  const failed = await scripts.run(`${showRest}throw new Error('after showing the rest pose');\n`, 'shows.ts');
  assert.equal(failed.status, 'failed');
  assert.equal(store.doc.poses, before.poses, 'the very poses shown before the run are shown again');
  assert.equal(store.doc.posesFile, before.posesFile);
  assert.equal(store.doc.weights, before.weights, 'the prune is taken back too');
  assert.deepEqual(kept, ['cotan'], 'the settings were put back once, after the rollback');

  settings.laplacian = 'uniform';
  const done = await scripts.run(showRest, 'shows.ts');
  assert.equal(done.status, 'done');
  assert.equal(store.doc.poses, null, 'a run that succeeds keeps what it showed');
  assert.equal(settings.laplacian, 'uniform', 'and its settings');
  assert.deepEqual(kept, ['cotan'], 'nothing is put back after a run that succeeds');
});
