/**
 * The app's files for scripts (renderer/scripting/app-script-files.ts) on a stand-in app: what is asked of the user
 * and when (the desktop app's write question once per run, the web page's open question, none for a web write),
 * what reaches the app's loading, saving and export, and the errors a script gets, naming the call and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AppScriptFiles,
  exportRequest,
  OPEN_CHOICES,
  OPEN_TITLE_LENGTH,
  OUTSIDE,
  OUTSIDE_CHOICES,
  WRITE_CHOICES,
  type AppScriptFilesHost,
  type ScriptExport,
  type ScriptFilesByPath,
} from '../../renderer/scripting/app-script-files.ts';
import type { OpenedFile, OpenFilesRequest } from '../../app/ipc-contract.ts';
import { demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { identityPose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';

/** A stand-in app that records what the files ask of it and answers as told. */
class FakeApp implements AppScriptFilesHost {
  doc: SceneDocument = demoDocument();
  questions: { title: string; choices: readonly string[] }[] = [];
  answers: number[] = [];
  dialogs: OpenFilesRequest[] = [];
  picked: OpenedFile[] = [];
  loaded: OpenedFile[][] = [];
  loadError: string | null = null;
  /** what loading does to the scene: a new document unless told otherwise */
  loadChanges = true;
  saved: string[] = [];
  savedAs: string | null | undefined = undefined;
  exports: ScriptExport[] = [];

  constructor(readonly platform: 'electron' | 'web') {}

  /** the question waiting for its answer, when `answers` is empty */
  private waiting: ((answer: number) => void) | null = null;

  ask(title: string, _lines: readonly string[], choices: readonly string[]): Promise<number> {
    this.questions.push({ title, choices });
    const answer = this.answers.shift();
    if (answer !== undefined) return Promise.resolve(answer);
    return new Promise((resolve) => (this.waiting = resolve));
  }
  dismissQuestion(): void {
    this.waiting?.(-1);
    this.waiting = null;
  }
  openFiles(request: OpenFilesRequest): Promise<OpenedFile[]> {
    this.dialogs.push(request);
    return Promise.resolve(this.picked);
  }
  loadFiles(files: OpenedFile[]): Promise<string | null> {
    this.loaded.push(files);
    if (this.loadError === null && this.loadChanges) this.doc = { ...this.doc };
    return Promise.resolve(this.loadError);
  }
  saveProject(name: string): Promise<string | null> {
    this.saved.push(name);
    return Promise.resolve(this.savedAs === undefined ? name : this.savedAs);
  }
  exportGltf(request: ScriptExport): Promise<boolean> {
    this.exports.push(request);
    return Promise.resolve(true);
  }
  exportSettings(): { influences: number; weightComponent: ScriptExport['weightComponent'] } {
    return { influences: 4, weightComponent: 'unsigned-short' };
  }
}

const file = (name: string): OpenedFile => ({ name, bytes: new Uint8Array([1, 2, 3]) });

test('desktop: the first write of a run asks once; Allow lets every write of the run through, the next run asks again', async () => {
  const app = new FakeApp('electron');
  const files = new AppScriptFiles(app);
  files.beginRun('batch.ts');
  app.answers.push(0);
  assert.equal(await files['files.saveProject']('out/hand.rig.glb'), 'hand.rig.glb');
  assert.equal(await files['files.exportGltf']('C:\\out\\hand.glb'), 'hand.glb');
  assert.equal(await files['files.exportGltf']('hand.gltf'), 'hand.gltf');
  assert.equal(app.questions.length, 1, 'one question for the three writes of the run');
  assert.equal(app.questions[0].title, 'batch.ts wants to write files');
  assert.deepEqual(app.questions[0].choices, WRITE_CHOICES);
  assert.deepEqual(app.saved, ['hand.rig.glb'], 'the project is offered under the base name of the path');
  assert.deepEqual(
    app.exports.map((e) => [e.fileName, e.format]),
    [
      ['hand.glb', 'glb'],
      ['hand.gltf', 'gltf'],
    ],
  );
  files.endRun();

  files.beginRun('again.ts');
  app.answers.push(0);
  await files['files.saveProject']('hand.rig.glb');
  assert.equal(app.questions.length, 2, 'a new run asks again');
  files.endRun();
});

test('desktop: Refuse (or no answer) fails the write with the reason and holds for the run; nothing is written', async () => {
  const app = new FakeApp('electron');
  const files = new AppScriptFiles(app);
  files.beginRun('mirror.ts');
  app.answers.push(1);
  await assert.rejects(
    files['files.exportGltf']('hand.glb'),
    /files\.exportGltf: the user refused to let mirror\.ts write files \(hand\.glb\)/,
  );
  await assert.rejects(files['files.saveProject']('hand.rig.glb'), /files\.saveProject: the user refused/);
  assert.equal(app.questions.length, 1, 'the refusal is not asked again in the same run');
  assert.deepEqual(app.exports, []);
  assert.deepEqual(app.saved, []);
  files.endRun();

  files.beginRun('dismissed.ts');
  const waiting = files['files.saveProject']('hand.rig.glb');
  // The run ends (Stop, its time limit) while the question waits: it goes unanswered, and the write fails.
  files.cancel();
  await assert.rejects(waiting, /refused/);
  assert.deepEqual(app.saved, [], 'a question dismissed writes nothing');
});

test('web: every write is a download named after the path, with no question', async () => {
  const app = new FakeApp('web');
  const files = new AppScriptFiles(app);
  files.beginRun('export.ts');
  assert.equal(await files['files.exportGltf']('clips/walk.glb'), 'walk.glb');
  assert.equal(await files['files.saveProject']('rig.rig.glb'), 'rig.rig.glb');
  assert.equal(app.questions.length, 0);
});

test('a save the user cancels fails naming the file', async () => {
  const app = new FakeApp('web');
  app.savedAs = null;
  const files = new AppScriptFiles(app);
  files.beginRun('save.ts');
  await assert.rejects(files['files.saveProject']('hand.rig.glb'), /files\.saveProject: saving hand\.rig\.glb was cancelled by the user/);
});

test('writes: a path that is no file name or has the wrong extension fails naming the call and the path, before asking', async () => {
  const app = new FakeApp('electron');
  const files = new AppScriptFiles(app);
  files.beginRun('bad.ts');
  await assert.rejects(files['files.saveProject']('notes.txt'), /files\.saveProject: "notes\.txt": a project file ends in \.rig\.glb/);
  await assert.rejects(files['files.exportGltf']('out/'), /files\.exportGltf: "out\/" is not a file name/);
  await assert.rejects(files['files.exportGltf']('hand.fbx'), /files\.exportGltf: "hand\.fbx": a glTF file ends in \.glb or \.gltf/);
  await assert.rejects(
    files['files.exportGltf']('hand.glb', { influences: 9 }),
    /files\.exportGltf: hand\.glb: influences 9 is not one of 1, 2, 3, 4, 5, 6, 7, 8/,
  );
  assert.equal(app.questions.length, 0, 'nothing asked for a write that cannot be made');
});

test('open: the open dialog names the files asked for; what the user picks is loaded as File → Import loads it', async () => {
  const app = new FakeApp('electron');
  const files = new AppScriptFiles(app);
  files.beginRun('open.ts');
  app.picked = [file('hand.off'), file('hand.tgf')];
  let openingDuringLoad = false;
  const load = app.loadFiles.bind(app);
  app.loadFiles = (opened) => {
    openingDuringLoad = files.opening;
    return load(opened);
  };
  await files['files.open'](['/data/hand/hand.off', 'hand.tgf']);
  assert.equal(app.questions.length, 0, 'the desktop dialog is the question');
  assert.equal(app.dialogs[0].title, 'Open hand.off, hand.tgf for open.ts');
  assert.deepEqual(app.loaded, [app.picked]);
  assert.ok(openingDuringLoad, 'the controller is told the scene being opened is the script’s');
  assert.ok(!files.opening, 'and that it is done');

  // Many files, or a name with a line break: the title stays one short line.
  app.answers.length = 0;
  await files['files.open'](Array.from({ length: 40 }, (_, i) => `part${i}.obj`));
  assert.equal(app.dialogs[1].title, 'Open part0.obj and 39 more for open.ts');
  await files['files.open'](['evil\nname.off']);
  assert.equal(app.dialogs[2].title, 'Open evil name.off for open.ts');
  const long = 'x'.repeat(300);
  await files['files.open']([`${long}.off`]);
  assert.ok(app.dialogs[3].title!.length <= OPEN_TITLE_LENGTH, 'a long name is cut to the title length');
});

test('open on the web: the app asks first (its button opens the picker); Refuse fails without a dialog', async () => {
  const app = new FakeApp('web');
  const files = new AppScriptFiles(app);
  files.beginRun('open.ts');
  app.picked = [file('hand.off')];
  app.answers.push(0);
  await files['files.open']('hand.off');
  assert.equal(app.questions[0].title, 'open.ts asks to open hand.off');
  assert.deepEqual(app.questions[0].choices, OPEN_CHOICES);
  assert.equal(app.dialogs.length, 1);
  app.answers.push(1);
  await assert.rejects(files['files.open']('hand.tgf'), /files\.open: the user did not open hand\.tgf/);
  assert.equal(app.dialogs.length, 1, 'no picker after Refuse');
});

test('open: no files chosen, a load that fails and a scene kept each fail with the reason', async () => {
  const app = new FakeApp('electron');
  const files = new AppScriptFiles(app);
  files.beginRun('open.ts');
  await assert.rejects(files['files.open']('hand.off'), /files\.open: the user chose no files \(the script asked for hand\.off\)/);
  app.picked = [file('hand.off')];
  app.loadError = 'hand.off: line 2: expected 3 numbers';
  await assert.rejects(
    files['files.open']('hand.off'),
    /files\.open: hand\.off could not be opened: hand\.off: line 2: expected 3 numbers/,
  );
  app.loadError = null;
  app.loadChanges = false;
  await assert.rejects(files['files.open']('hand.off'), /files\.open: hand\.off was not opened \(the user kept the scene\)/);
  await assert.rejects(files['files.open']([]), /files\.open: no path given/);
  await assert.rejects(files['files.open']([3 as unknown as string]), /files\.open: path 1 \(3\) is not a file name/);
});

test('export options: the settings fill what the script leaves out; a clip alone is the scene with that clip only', () => {
  const doc = demoDocument();
  const boneCount = doc.skeleton.parents.length;
  const still = (): PoseSequence => ({ kind: 'matrices', boneCount, frameCount: 1, rotations: identityPose(boneCount) });
  const walk = { name: 'walk', poses: still() };
  const run = { name: 'run', poses: still() };
  const withClips: SceneDocument = { ...doc, clips: [walk, run], poses: walk.poses, posesFile: 'walk' };
  const settings = { influences: 6, weightComponent: 'unsigned-byte' as const };

  const plain = exportRequest('hand.glb', {}, withClips, settings);
  assert.equal(plain.influences, 6, 'the scene’s max influences');
  assert.equal(plain.weightComponent, 'float', 'the API’s default storage');
  assert.equal(plain.doc, withClips, 'every clip: the scene as it is');

  const only = exportRequest('run.glb', { clip: 'run', influences: 2, weightComponent: 'unsigned-short' }, withClips, settings);
  assert.deepEqual(only.doc.clips, [run]);
  assert.equal(only.doc.poses, run.poses);
  assert.equal(only.influences, 2);
  assert.equal(only.weightComponent, 'unsigned-short');
  assert.throws(
    () => exportRequest('x.glb', { clip: 'jump' }, withClips, settings),
    /files\.exportGltf: x\.glb: the scene has no clip "jump" \(its clips: walk, run\)/,
  );
});

test('export options: a pose file shown is a clip by the name rig.scene.summary gives it (its file), or its base name', () => {
  const doc = demoDocument();
  const boneCount = doc.skeleton.parents.length;
  const poses: PoseSequence = { kind: 'matrices', boneCount, frameCount: 1, rotations: identityPose(boneCount) };
  const shown: SceneDocument = { ...doc, clips: [], poses, posesFile: 'hand-pose_matrot.dmat' };
  const settings = { influences: 4, weightComponent: 'float' as const };
  for (const name of ['hand-pose_matrot.dmat', 'hand-pose_matrot']) {
    const only = exportRequest('hand.glb', { clip: name }, shown, settings);
    assert.equal(only.doc.poses, poses, `${name}: the pose file's poses are the clip written`);
    assert.deepEqual(only.doc.clips, [], `${name}: no other clip`);
  }
  assert.throws(
    () => exportRequest('x.glb', { clip: 'walk' }, shown, settings),
    /files\.exportGltf: x\.glb: the scene has no clip "walk" \(its clips: hand-pose_matrot\.dmat\)/,
  );
  // Without a file the shown poses are named `poses`, as the clip menu names them.
  const unnamed = exportRequest('x.glb', { clip: 'poses' }, { ...shown, posesFile: null }, settings);
  assert.equal(unnamed.doc.poses, poses, 'poses: the shown sequence');
});

/**
 * The desktop shell's files by path as a stand-in: paths under `project/` are inside the working folder, others
 * outside; it records each call with whether outside files were allowed.
 */
class FakeShellFiles implements ScriptFilesByPath {
  calls: string[] = [];
  private place(path: string, outside: boolean): boolean {
    const inside = path.startsWith('project/');
    this.calls.push(`${path} ${outside ? 'allowed' : 'asked'}`);
    return inside || outside;
  }
  /** a .gltf comes with its buffer, named as a .gltf written by the app names it */
  read(path: string, outside: boolean): Promise<OpenedFile[] | typeof OUTSIDE> {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const files = name.endsWith('.gltf') ? [file(name), file(name.replace(/\.gltf$/, '.bin'))] : [file(name)];
    return Promise.resolve(this.place(path, outside) ? files : OUTSIDE);
  }
  saveProject(path: string, outside: boolean): Promise<string | typeof OUTSIDE> {
    return Promise.resolve(this.place(path, outside) ? path.slice(path.lastIndexOf('/') + 1) : OUTSIDE);
  }
  exportGltf(path: string, request: ScriptExport, outside: boolean): Promise<string | typeof OUTSIDE> {
    return Promise.resolve(this.place(path, outside) ? request.fileName : OUTSIDE);
  }
}

test('desktop by path: inside the folder nothing is asked and no dialog opens; the first path outside asks once per run', async () => {
  const app = Object.assign(new FakeApp('electron'), { byPath: new FakeShellFiles() });
  const files = new AppScriptFiles(app);
  files.beginRun('batch.ts');
  await files['files.open'](['project/hand.off', 'project/hand.tgf']);
  await files['files.open'](['project/fox.gltf', 'project/fox.bin']);
  assert.deepEqual(
    app.loaded.map((opened) => opened.map((f) => f.name)),
    [
      ['hand.off', 'hand.tgf'],
      ['fox.gltf', 'fox.bin'],
    ],
    'read by path and loaded together, a buffer the .gltf brings and the script names loaded once',
  );
  assert.equal(await files['files.saveProject']('project/hand.rig.glb'), 'hand.rig.glb');
  assert.equal(await files['files.exportGltf']('project/hand.glb'), 'hand.glb');
  assert.deepEqual(app.questions, [], 'nothing asked inside the folder');
  assert.deepEqual(app.dialogs, [], 'no open dialog');

  app.answers.push(0);
  assert.equal(await files['files.exportGltf']('/exports/hand.glb'), 'hand.glb');
  assert.equal(await files['files.saveProject']('/exports/hand.rig.glb'), 'hand.rig.glb');
  await files['files.open']('/library/arm.tgf');
  assert.deepEqual(app.questions, [{ title: "batch.ts wants to use files outside the project's folder", choices: OUTSIDE_CHOICES }]);
  assert.deepEqual(app.byPath.calls.slice(6), [
    '/exports/hand.glb asked',
    '/exports/hand.glb allowed',
    '/exports/hand.rig.glb allowed',
    '/library/arm.tgf allowed',
  ]);
  files.endRun();

  files.beginRun('batch.ts');
  app.answers.push(1);
  await assert.rejects(
    files['files.saveProject']('/exports/hand.rig.glb'),
    /^Error: files\.saveProject: the user refused to let batch\.ts use files outside the project's folder \(\/exports\/hand\.rig\.glb\)$/,
  );
  await assert.rejects(files['files.open']('/library/arm.tgf'), /files\.open: the user refused/);
  assert.equal(app.questions.length, 2, 'the next run asked again, once');
  assert.equal(await files['files.saveProject']('project/hand.rig.glb'), 'hand.rig.glb', 'inside the folder still works');
  assert.equal(app.saved.length, 0, 'the Save dialog path was never taken');
});

test('desktop by path: Stop takes the question away; the call fails and nothing outside is touched', async () => {
  const app = Object.assign(new FakeApp('electron'), { byPath: new FakeShellFiles() });
  const files = new AppScriptFiles(app);
  files.beginRun('batch.ts');
  const write = files['files.exportGltf']('/exports/hand.glb');
  await new Promise((resolve) => setTimeout(resolve, 10));
  files.cancel();
  await assert.rejects(write, /files\.exportGltf: the user refused/);
  assert.deepEqual(app.byPath.calls, ['/exports/hand.glb asked']);
});
