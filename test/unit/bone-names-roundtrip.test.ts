/**
 * Bone names from file to file: a TGF's names file names its bones when opened with it (and is refused alone or with
 * the wrong count); the names, a renamed bone's included, survive a glTF export (fresh and in place, through the
 * app's export action) and re-import, a project save and reopen, and Save skeleton (TGF + names) and reopen. On the
 * course hand and body and CesiumMan.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { OpenedFile, RigwrightBridge } from '../../app/ipc-contract.ts';
import { gltfIntoDocument } from '../../renderer/document/gltf-document.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { exportSceneAsGltf } from '../../renderer/io/gltf-export-action.ts';
import type { IoClient } from '../../renderer/io/io-client.ts';
import { formatBoneNames, parseBoneNames } from '../../workers/formats/bone-names.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { exportGltfInPlace, type GltfEdit } from '../../workers/formats/gltf-edit.ts';
import { exportGltf, type GltfExportOptions, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { renameBone, reparentBone } from '../../workers/rig/bone-edits.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { skeletonFilesOf } from '../../renderer/skeleton/skeleton-files.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { bodyDocument } from './full-documents.ts';
import { inProcessIo } from './in-process-io.ts';
import { bindingReport } from '../../workers/weights/binding-report.ts';
import { dataFile } from './shared-data.ts';

const dataBytes = (...parts: string[]): OpenedFile => ({ name: parts.at(-1)!, bytes: new Uint8Array(readFileSync(dataFile(...parts))) });
const text = (name: string, body: string): OpenedFile => ({ name, bytes: new TextEncoder().encode(body) });

/** Names for the hand's 20 bones, by bone index, unlike the defaults and with characters beyond ASCII. */
const HAND_NAMES = Array.from({ length: 20 }, (_, b) =>
  b === 10 ? 'wrist' : `finger ${String.fromCharCode(97 + (b % 5))}.${b < 10 ? 'L' : 'R'} — ${b}`,
);

/** The course hand opened as the app opens it, with its names file. */
function openHand(names: string | null = formatBoneNames(HAND_NAMES)): Promise<SceneDocument> {
  const files = [dataBytes('hand', 'hand.off'), dataBytes('hand', 'hand.tgf')];
  if (names !== null) files.push(text('hand.names', names));
  return loadIntoDocument(demoDocument(), files, inProcessIo);
}

/** The scene through the app's glTF export action and back through its import: the re-imported document. */
async function exportAndReimport(doc: SceneDocument): Promise<SceneDocument> {
  const io = {
    exportGltf: (rig: GltfRig, file: string, options: GltfExportOptions) => exportGltf(rig, file, options),
    exportGltfInPlace: (edit: GltfEdit, file: string, options: GltfExportOptions) => exportGltfInPlace(edit, file, options),
  } as unknown as IoClient;
  const saved: Uint8Array[] = [];
  const bridge = {
    saveFile: ({ bytes }: { bytes: Uint8Array }) => (saved.push(bytes), Promise.resolve(true)),
  } as unknown as RigwrightBridge;
  const choice = {
    fileName: 'named.glb',
    format: 'glb',
    influences: 4,
    weightComponent: 'float',
    compression: 'none',
    includeClip: false,
    bake: false,
  } as const;
  await exportSceneAsGltf(doc, choice, { method: 'lbs', influences: 4, antipodality: 'per-vertex', kernel: 'gaussian' }, io, bridge);
  assert.equal(saved.length, 1, 'the export saved one file');
  return gltfIntoDocument([{ name: 'named.glb', bytes: saved[0] }], inProcessIo);
}

/** The document a project saved from `doc` opens as. */
async function saveAndReopen(doc: SceneDocument): Promise<SceneDocument> {
  const settings = projectSettingsOf(doc, defaultProjectSettings(doc.weights.rows, doc.weights.cols));
  const bytes = await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'named.rig.glb');
  const read = readProjectFile(bytes, 'named.rig.glb');
  return documentFromProject(read.scene, read.settings);
}

/** The document after one rename, as the store would hold it. */
function renamed(doc: SceneDocument, bone: number, name: string): SceneDocument {
  return { ...doc, ...renameBone(doc, bone, name).fields };
}

test('a names file opened with its TGF names the bones; without one they are bone N', async () => {
  const named = await openHand();
  assert.deepEqual(named.boneNames, HAND_NAMES);
  assert.deepEqual(boneNamesOf(named), HAND_NAMES);
  const unnamed = await openHand(null);
  assert.equal(unnamed.boneNames, undefined);
  assert.deepEqual(
    boneNamesOf(unnamed),
    HAND_NAMES.map((_, b) => `bone ${b}`),
  );
});

test('a names file alone, a second one, or one with the wrong count is refused, naming the file', async () => {
  const hand = await openHand();
  await assert.rejects(loadIntoDocument(hand, [text('hand.names', formatBoneNames(HAND_NAMES))], inProcessIo), (error: unknown) => {
    assert.ok(error instanceof Error && error.name === 'LoadError', `a LoadError, not ${String(error)}`);
    assert.match(error.message, /^hand\.names: a bone names file names the bones of its skeleton; open it together with its \.tgf$/);
    return true;
  });
  await assert.rejects(openHand(formatBoneNames(HAND_NAMES.slice(0, 19))), (error: unknown) => {
    assert.ok(error instanceof FormatError, `a FormatError, not ${String(error)}`);
    assert.equal(error.message, 'hand.names: line 20: the file names 19 bones, but the skeleton has 20 (one name per line, in bone order)');
    return true;
  });
  const files = [dataBytes('hand', 'hand.tgf'), text('a.names', formatBoneNames(HAND_NAMES)), text('b.names', formatBoneNames(HAND_NAMES))];
  await assert.rejects(loadIntoDocument(hand, files, inProcessIo), /a\.names, b\.names: 2 bone names files at once/);
});

test('the hand’s names, one renamed, survive a fresh glTF export and re-import; unnamed bones come back as bone N', async () => {
  const hand = renamed(await openHand(), 3, 'thumb tip');
  assert.equal(hand.gltfSource, undefined, 'a TGF scene exports fresh');
  const back = await exportAndReimport(hand);
  assert.equal(back.skeleton.parents.length, 20);
  assert.deepEqual(back.boneNames, boneNamesOf(hand));
  assert.equal(back.boneNames?.[3], 'thumb tip');
  const unnamed = await exportAndReimport(await openHand(null));
  assert.deepEqual(
    unnamed.boneNames,
    HAND_NAMES.map((_, b) => `bone ${b}`),
  );
});

test('a bone renamed in a glTF scene renames its joint node in the in-place export; the others keep the file’s names', async () => {
  const cesium = await gltfIntoDocument([dataBytes('gltf', 'CesiumMan', 'CesiumMan.glb')], inProcessIo);
  assert.ok(cesium.gltfSource, 'CesiumMan exports in place');
  const original = boneNamesOf(cesium);
  const doc = renamed(cesium, 2, 'Spine renamed');
  const back = await exportAndReimport(doc);
  assert.deepEqual(
    back.boneNames,
    original.map((name, b) => (b === 2 ? 'Spine renamed' : name)),
  );
});

test('names, a renamed bone’s included, survive a project save and reopen (hand and body)', async () => {
  const hand = renamed(await openHand(), 10, 'carpus');
  assert.deepEqual((await saveAndReopen(hand)).boneNames, boneNamesOf(hand));
  const body = bodyDocument();
  const named = renamed(body, 5, 'forearm.L');
  const reopened = await saveAndReopen(named);
  assert.deepEqual(reopened.boneNames, boneNamesOf(named));
  assert.equal(reopened.boneNames?.[5], 'forearm.L');
  assert.equal(reopened.boneNames?.[0], 'bone 0', 'a rename gives an unnamed scene the default names of the others');
});

test('Save skeleton writes a TGF and its names file that open as the same bones and names (connectors named for glTF)', async () => {
  const hand = renamed(await openHand(), 7, 'index tip');
  const files = skeletonFilesOf(hand);
  assert.deepEqual([files.tgf.name, files.names.name], ['hand.tgf', 'hand.names']);
  const reopened = await loadIntoDocument(
    demoDocument(),
    [dataBytes('hand', 'hand.off'), text(files.tgf.name, files.tgf.text), text(files.names.name, files.names.text)],
    inProcessIo,
  );
  assert.deepEqual(reopened.boneNames, boneNamesOf(hand));
  assert.deepEqual(Array.from(reopened.skeleton.joints), Array.from(hand.skeleton.joints));
  assert.deepEqual(Array.from(reopened.skeleton.parents), Array.from(hand.skeleton.parents));

  const cesium = await gltfIntoDocument([dataBytes('gltf', 'CesiumMan', 'CesiumMan.glb')], inProcessIo);
  const B = cesium.skeleton.parents.length;
  const saved = skeletonFilesOf(cesium);
  const tgf = readTgf(saved.tgf.text, saved.tgf.name);
  const names = parseBoneNames(saved.names.text, saved.names.name, tgf.bones.length / 2);
  assert.deepEqual(names.slice(0, B), boneNamesOf(cesium), 'the bones keep their names and numbers');
  const connectors = names.slice(B);
  assert.ok(connectors.length > 0, 'CesiumMan has bones that start away from their parent’s end');
  assert.ok(
    connectors.every((name) => / \(connector( \d+)?\)$/.test(name)),
    `connector bones are named after the bone they connect: ${connectors.join(', ')}`,
  );
  const rebuilt = buildSkeleton(tgf, saved.tgf.name);
  for (let b = 0; b < B; b++) {
    const p = cesium.skeleton.parents[b];
    // A bone's parent is its parent again, or a connector whose parent it is.
    const q = rebuilt.parents[b];
    assert.equal(q >= B ? rebuilt.parents[q] : q, p, `bone ${b} hangs from bone ${p} (through a connector or not)`);
  }
});

test('a refused bone edit names the bones by their names', async () => {
  const hand = await openHand();
  const root = hand.skeleton.parents.indexOf(-1);
  const child = hand.skeleton.parents.indexOf(root);
  assert.throws(() => reparentBone(hand, child, root), { message: `wrist is already the parent of ${HAND_NAMES[child]}` });
  assert.throws(() => reparentBone(hand, root, null), { message: 'wrist is already a root' });
  assert.throws(() => reparentBone(hand, root, child), {
    message: `${HAND_NAMES[child]} is wrist or below it: re-parenting would create a cycle`,
  });
});

test('the binding report calls bones by name when given names, and bone <index> without', () => {
  const parts = [{ vertexCount: 12, nearestBone: 10, firstVertex: 40 }];
  assert.deepEqual(bindingReport([3, 5], parts, true, HAND_NAMES), [
    `${HAND_NAMES[3]}, ${HAND_NAMES[5]} have no handle vertices: weight 0 everywhere`,
    'a part of the mesh without handles: 12 vertices from vertex 40, nearest wrist; bound rigidly to wrist',
  ]);
  assert.deepEqual(bindingReport([3], parts, false), [
    'bone 3 has no handle vertices: weight 0 everywhere',
    'a part of the mesh without handles: 12 vertices from vertex 40, nearest bone 10; weights left at 0',
  ]);
});
