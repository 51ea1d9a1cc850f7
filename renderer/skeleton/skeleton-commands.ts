/**
 * The skeleton's commands: rename, insert, delete, re-parent and split a bone, mirror a limb, number the bones anew,
 * move a rest joint, and the skeleton tool's switch and chain end.
 * Each bone command is one edit of the scene store (one undo step) made by the pure bone edits of
 * workers/rig/bone-edits.ts and mirror-bones.ts, which carry every bone-indexed field along; the selected bone
 * follows its bone when the bones are numbered anew (a deleted bone's selection goes to its parent). Nothing else
 * resets: the camera, playback, the lasso selection and the locks stay. The tool's switch (tool.skeleton) and its
 * chain end (skeleton.endChain) edit nothing and make no undo step.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import {
  deleteBone,
  insertBone,
  moveJoints,
  renameBone,
  reorderBones,
  reparentBone,
  splitBone,
  type BoneEdit,
} from '../../workers/rig/bone-edits.ts';
import { limbRoot, mirrorBones } from '../../workers/rig/mirror-bones.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { BoneSelection } from './bone-selection.ts';

/** The skeleton tool as its commands use it (the shell gives the tool manager's). */
export interface SkeletonToolControl {
  readonly active: boolean;
  /** makes it the active tool, or goes back to the default one */
  toggle(): void;
  /** ends the open chain */
  endChain(): void;
}

/** What the skeleton commands use of the app. */
export interface SkeletonCommandsHost {
  readonly store: SceneStore;
  readonly boneSelection: Pick<BoneSelection, 'bone' | 'restore'>;
  readonly skeletonTool: SkeletonToolControl;
}

export type SkeletonCommandId =
  | 'bone.rename'
  | 'bone.insert'
  | 'bone.delete'
  | 'bone.reparent'
  | 'bone.reorder'
  | 'bone.moveJoint'
  | 'bone.split'
  | 'bone.mirror'
  | 'tool.skeleton'
  | 'skeleton.endChain';

export function skeletonCommands({ store, boneSelection, skeletonTool }: SkeletonCommandsHost): HandlersFor<SkeletonCommandId> {
  /**
   * One store edit, one undo step. When the edit numbers the bones anew, the selection moves to its bone's new number
   * (a removed bone's to `fallback`'s, an old index) in the same step: it moves before the skeleton does, so the
   * store's change finds it on a bone of the new skeleton, and undo and redo move it back and forth with the bones.
   */
  const apply = (make: (doc: SceneDocument) => BoneEdit, fallback = -1): void => {
    const edit = make(store.doc);
    const map = edit.newIndexOf;
    const before = boneSelection.bone;
    if (!map || before < 0) {
      store.edit(edit.label, edit.fields);
      return;
    }
    const after = map[before] >= 0 ? map[before] : fallback >= 0 ? map[fallback] : -1;
    store.history.group(edit.label, () => {
      boneSelection.restore(after);
      store.history.push({
        label: edit.label,
        bytes: 0,
        undo: () => boneSelection.restore(before),
        redo: () => boneSelection.restore(after),
      });
      store.edit(edit.label, edit.fields);
    });
  };
  return {
    'bone.rename': { run: ({ bone, name }) => apply((doc) => renameBone(doc, bone, name)) },
    'bone.insert': {
      run: ({ parent, tip, head }) => {
        apply((doc) => insertBone(doc, { parent, tip, ...(head ? { head } : {}) }));
        return boneCountOf(store.doc) - 1;
      },
    },
    'bone.delete': {
      run: (argument) => {
        const bone = argument ?? boneSelection.bone;
        if (bone < 0) throw new Error('bone.delete: no bone selected; click a joint to select its bone, or name the bone');
        apply((doc) => deleteBone(doc, bone), store.doc.skeleton.parents[bone]);
      },
    },
    'bone.reparent': { run: ({ bone, parent }) => apply((doc) => reparentBone(doc, bone, parent)) },
    'bone.reorder': { run: (order) => apply((doc) => reorderBones(doc, order)) },
    'bone.moveJoint': { run: ({ joint, position }) => apply((doc) => moveJoints(doc, [{ joint, position }])) },
    'bone.split': {
      run: (argument) => {
        const bone = argument?.bone ?? boneSelection.bone;
        if (bone < 0) throw new Error('bone.split: no bone selected; click a joint to select its bone, or name the bone');
        apply((doc) => splitBone(doc, bone, argument?.at ?? 0.5));
      },
    },
    'bone.mirror': {
      run: (argument) => {
        const bone = argument?.bone ?? boneSelection.bone;
        if (bone < 0) throw new Error('bone.mirror: no bone selected; click a joint of the limb to mirror, or name a bone');
        const axis = argument?.axis ?? 0;
        apply((doc) => mirrorBones(doc, [limbRoot(doc, bone, axis)], { axis }));
      },
    },
    'tool.skeleton': { run: () => skeletonTool.toggle(), checked: () => skeletonTool.active },
    'skeleton.endChain': { run: () => skeletonTool.endChain() },
  };
}
