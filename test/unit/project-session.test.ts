/**
 * The project session (unsaved changes follow the undo position, the title shows the file and the marker) and the
 * desktop shell's project files (tokens for paths, the recent list in the data folder, Save to the same file without
 * a dialog, requests checked).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoDocument, twistDemoDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { ProjectSession } from '../../renderer/project/project-session.ts';
import { documentFromProject, projectSceneOf } from '../../workers/scene/project-document.ts';
import { ProjectFilesMain } from '../../app/project-files-main.ts';
import { IpcArgumentError, validateOpenProjectRequest, validateSaveProjectRequest } from '../../app/ipc-validate.ts';
import { readProjectFile, writeProjectFile, defaultProjectSettings } from '../../workers/formats/project-file.ts';

function setup() {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const session = new ProjectSession(store, history);
  let changes = 0;
  session.onChange(() => changes++);
  return { history, store, session, changes: () => changes };
}

test('unsaved changes follow the undo position: an edit marks them, undoing back to the saved step clears them', () => {
  const { history, store, session, changes } = setup();
  assert.equal(session.dirty, false);
  assert.equal(session.fileName, null);
  assert.equal(session.title('demo'), 'demo — Rigwright');
  store.edit('Assign handles', { handles: new Int32Array(store.doc.mesh.positions.length / 3).fill(-1) });
  assert.equal(session.dirty, true);
  assert.equal(session.title('demo'), '• demo — Rigwright');
  session.markSaved('demo.rig.glb', { kind: 'token', token: 'abc' });
  assert.equal(session.dirty, false);
  assert.equal(session.title('demo'), 'demo.rig.glb — Rigwright');
  assert.deepEqual(session.target, { kind: 'token', token: 'abc' });
  store.edit('Scale bone 0', { boneScales: new Float64Array(3 * store.doc.skeleton.parents.length).fill(2) });
  assert.equal(session.dirty, true);
  history.undo();
  assert.equal(session.dirty, false, 'back at the saved step');
  history.undo();
  assert.equal(session.dirty, true, 'before the saved step');
  history.redo();
  assert.equal(session.dirty, false, 'redone to the saved step');
  history.redo();
  assert.equal(session.dirty, true);
  assert.ok(changes() >= 7, `${changes()} change events`);
});

test('an edit merged into the saved step leaves the scene unsaved until the next save, even after undo and redo', () => {
  const { history, store, session } = setup();
  const B = store.doc.skeleton.parents.length;
  store.edit('Scale bone 0', { boneScales: new Float64Array(3 * B).fill(1.5) }, 'scale bone 0');
  session.markSaved('a.rig.glb', null);
  store.edit('Scale bone 0', { boneScales: new Float64Array(3 * B).fill(1.7) }, 'scale bone 0');
  assert.equal(history.undoCount, 1, 'merged: still one step');
  assert.equal(session.dirty, true);
  history.undo();
  history.redo();
  assert.equal(session.dirty, true, 'the saved values are not the ones redone');
  session.markSaved('a.rig.glb', null);
  assert.equal(session.dirty, false);
});

test('a new scene forgets the file and starts clean; opened and recovered projects are named', () => {
  const { store, session } = setup();
  store.edit('Assign handles', { handles: new Int32Array(store.doc.mesh.positions.length / 3).fill(-1) });
  session.markSaved('a.rig.glb', { kind: 'token', token: 't' });
  store.open(twistDemoDocument(), 'opened the twist test');
  assert.equal(session.fileName, null);
  assert.equal(session.target, null);
  assert.equal(session.dirty, false);
  store.open(demoDocument(), 'Opened');
  session.markOpened('b.rig.glb', null);
  assert.equal(session.title('x'), 'b.rig.glb — Rigwright');
  store.open(demoDocument(), 'Recovered');
  session.markRecovered('c.rig.glb');
  assert.equal(session.dirty, true);
  assert.equal(session.target, null);
  assert.equal(session.title('x'), '• c.rig.glb — Rigwright');
});

test('a document survives the project file: the same fields back, normals and bounds recomputed', async () => {
  const doc = demoDocument();
  const bytes = await writeProjectFile({
    scene: projectSceneOf(doc),
    settings: defaultProjectSettings(doc.mesh.positions.length / 3, doc.skeleton.parents.length),
  });
  const back = documentFromProject(readProjectFile(bytes, 'demo.rig.glb').scene);
  assert.equal(back.name, doc.name);
  assert.deepEqual(back.mesh.positions, doc.mesh.positions);
  assert.deepEqual(back.weights.data, doc.weights.data);
  assert.deepEqual(back.restNormals, doc.restNormals);
  assert.equal(back.diagonal, doc.diagonal);
  assert.equal(back.poses?.kind, doc.poses?.kind);
  assert.equal(back.boneNames, undefined, 'the demo has no bone names, and gets none');
});

test('a document with examples survives the project file: names, files, pose sources, hidden flags, arrays bit for bit', async () => {
  const demo = demoDocument();
  const V = demo.mesh.positions.length / 3;
  const B = demo.skeleton.parents.length;
  const example = (name: string, shift: number, hidden: boolean) => ({
    name,
    file: `${name}.obj`,
    positions: demo.mesh.positions.map((x, i) => x + shift * Math.sin(i)),
    pose: Float64Array.from(
      { length: 9 * B },
      (_, i) => [Math.cos(shift), -Math.sin(shift), 0, Math.sin(shift), Math.cos(shift), 0, 0, 0, 1][i % 9],
    ),
    poseSource: `frame ${V % 7} of the demo`,
    hidden,
  });
  const doc = { ...demo, examples: [example('bend', 0.1, false), example('twist', 1 / 3, true)] };
  const bytes = await writeProjectFile({ scene: projectSceneOf(doc), settings: defaultProjectSettings(V, B) });
  const back = documentFromProject(readProjectFile(bytes, 'demo.rig.glb').scene);
  assert.equal(back.examples?.length, 2);
  back.examples.forEach((e, j) => {
    const { positions, pose, ...rest } = e;
    const { positions: p0, pose: q0, ...rest0 } = doc.examples[j];
    assert.deepEqual(rest, rest0);
    assert.ok(
      Buffer.from(positions.buffer, positions.byteOffset, positions.byteLength).equals(Buffer.from(p0.buffer)),
      `${e.name} positions`,
    );
    assert.ok(Buffer.from(pose.buffer, pose.byteOffset, pose.byteLength).equals(Buffer.from(q0.buffer)), `${e.name} pose`);
  });
  const none = documentFromProject(
    readProjectFile(await writeProjectFile({ scene: projectSceneOf(demo), settings: defaultProjectSettings(V, B) }), 'd').scene,
  );
  assert.equal(none.examples, undefined, 'a scene without examples gets none');
});

test('desktop project files: Save asks once, then writes the same file by token; the recent list outlives the process', async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'rigwright-projects-'));
  try {
    const recentFile = path.join(folder, 'recent-projects.json');
    const main = new ProjectFilesMain(recentFile);
    const target = path.join(folder, 'arm.rig.glb');
    const asked: string[] = [];
    const first = await main.save('save', { suggestedName: 'arm.rig.glb', bytes: new Uint8Array([1, 2, 3]) }, (name) => {
      asked.push(name);
      return Promise.resolve(target);
    });
    assert.deepEqual(asked, ['arm.rig.glb']);
    assert.equal(first?.name, 'arm.rig.glb');
    assert.deepEqual([...readFileSync(target)], [1, 2, 3]);
    const second = await main.save('save', { token: first.token, suggestedName: 'arm.rig.glb', bytes: new Uint8Array([4, 5]) }, () => {
      throw new Error('no dialog for a known file');
    });
    assert.equal(second?.token, first.token);
    assert.deepEqual([...readFileSync(target)], [4, 5]);
    assert.equal(await main.save('save', { suggestedName: 'x.rig.glb', bytes: new Uint8Array(1) }, () => Promise.resolve(null)), null);

    const other = path.join(folder, 'leg.rig.glb');
    writeFileSync(other, new Uint8Array([9]));
    const opened = await main.open('open', undefined, () => Promise.resolve(other));
    assert.equal(opened?.name, 'leg.rig.glb');
    assert.deepEqual([...opened.bytes], [9]);

    // A new process: the list is read from the data folder, and its tokens open the files.
    const later = new ProjectFilesMain(recentFile);
    const recent = await later.recent();
    assert.deepEqual(
      recent.map((r) => r.name),
      ['leg.rig.glb', 'arm.rig.glb'],
    );
    const reopened = await later.open('open', recent[1].token, () => {
      throw new Error('no dialog for a recent file');
    });
    assert.deepEqual([...reopened!.bytes], [4, 5]);
    assert.deepEqual(JSON.parse(readFileSync(recentFile, 'utf8')) as unknown, [target, other], 'the file reopened is the newest');
    await assert.rejects(
      later.open('open', 'not-a-known-token', () => Promise.resolve(null)),
      /^IpcArgumentError: open: token names no project file this app opened or saved$/,
    );
    rmSync(other);
    assert.deepEqual(
      (await later.recent()).map((r) => r.name),
      ['arm.rig.glb'],
      'a file that is gone is not offered',
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('project requests from the page are checked: token shape, a .glb base name, bytes, no other fields', () => {
  const refuses = (run: () => unknown, reason: RegExp) =>
    assert.throws(run, (error: unknown) => error instanceof IpcArgumentError && reason.test(error.message));
  assert.equal(validateOpenProjectRequest('c', undefined), undefined);
  assert.equal(validateOpenProjectRequest('c', 'a-1'), 'a-1');
  refuses(() => validateOpenProjectRequest('c', '../x'), /^c: token must be letters, digits and dashes/);
  refuses(() => validateOpenProjectRequest('c', 7), /^c: token must be/);
  const bytes = new Uint8Array(2);
  assert.deepEqual(validateSaveProjectRequest('c', { suggestedName: 'a.rig.glb', bytes }), { suggestedName: 'a.rig.glb', bytes });
  assert.deepEqual(validateSaveProjectRequest('c', { token: 'T1', suggestedName: 'a.glb', bytes }), {
    token: 'T1',
    suggestedName: 'a.glb',
    bytes,
  });
  refuses(() => validateSaveProjectRequest('c', { suggestedName: 'a.obj', bytes }), /^c: a project file name must end in \.glb$/);
  refuses(() => validateSaveProjectRequest('c', { suggestedName: '../a.glb', bytes }), /^c: file name must be a base name/);
  refuses(() => validateSaveProjectRequest('c', { suggestedName: 'a.glb', bytes: [1] }), /^c: bytes must be a Uint8Array$/);
  refuses(() => validateSaveProjectRequest('c', { suggestedName: 'a.glb', bytes, path: '/etc' }), /^c: unexpected field "path"$/);
  refuses(() => validateSaveProjectRequest('c', { token: '', suggestedName: 'a.glb', bytes }), /^c: token must be/);
});
