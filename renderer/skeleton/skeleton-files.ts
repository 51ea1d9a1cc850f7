/**
 * Saving the skeleton as a TGF with its bone names file beside it (`body.tgf` + `body.names`, formats/bone-names.ts):
 * the `file.saveSkeleton` command. TGF says a bone's parent only by a shared joint, so a skeleton whose bones start
 * away from their parent's end (a glTF skeleton) gets connector bones after its own (tgfWithConnectors), named after
 * the bone they connect; read back, the file gives the same bones, names and hierarchy, connectors added.
 */
import { boneNamesFileFor, formatBoneNames } from '../../workers/formats/bone-names.ts';
import { baseName } from '../../workers/formats/file-name.ts';
import { tgfWithConnectors, writeTgf } from '../../workers/formats/tgf.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';

/** A file to save: its suggested base name and its text. */
export interface SkeletonFile {
  name: string;
  text: string;
}

/**
 * The skeleton's two files: the TGF (named after the skeleton file it came from, else after the scene) and its names.
 * @returns the TGF and the names file, whose name is the TGF's with `.names` (boneNamesFileFor)
 * @throws Error when the scene has no bones
 */
export function skeletonFilesOf(doc: SceneDocument): { tgf: SkeletonFile; names: SkeletonFile } {
  if (boneCountOf(doc) === 0) throw new Error('file.saveSkeleton: the scene has no bones to save');
  const source = baseName(doc.skeletonFile ?? doc.name);
  const stem = source.replace(/\.[^.]*$/, '') || 'skeleton';
  const tgfName = `${stem}.tgf`;
  const { tgf, connectedBones } = tgfWithConnectors(doc.skeleton, tgfName);
  const names = [...boneNamesOf(doc)];
  const taken = new Set(names);
  for (const child of connectedBones) {
    let name = `${names[child]} (connector)`;
    for (let k = 2; taken.has(name); k++) name = `${names[child]} (connector ${k})`;
    taken.add(name);
    names.push(name);
  }
  return {
    tgf: { name: tgfName, text: writeTgf(tgf) },
    names: { name: boneNamesFileFor(tgfName), text: formatBoneNames(names) },
  };
}

/** What the command uses of the app. */
export interface SkeletonFilesHost {
  readonly store: Pick<SceneStore, 'doc'>;
  readonly bridge: Pick<RigwrightBridge, 'saveAsset'>;
}

/**
 * `file.saveSkeleton`: the TGF with its names file as one save (the desktop asks once, where the TGF goes, and writes
 * the names file beside it under the name chosen; the web page downloads both).
 */
export function skeletonFileCommands(app: SkeletonFilesHost): HandlersFor<'file.saveSkeleton'> {
  return {
    'file.saveSkeleton': {
      run: async () => {
        const { tgf, names } = skeletonFilesOf(app.store.doc);
        const utf8 = new TextEncoder();
        await app.bridge.saveAsset({
          suggestedName: tgf.name,
          bytes: utf8.encode(tgf.text),
          resources: [{ uri: encodeURIComponent(names.name), bytes: utf8.encode(names.text) }],
        });
      },
      canRun: () => boneCountOf(app.store.doc) > 0,
      refusal: 'the scene has no bones to save',
    },
  };
}
