/**
 * The key and clip commands: key the pose on screen at the current frame (the selected bone or all bones), delete and
 * move keys, make, rename, trim and lengthen clips, and save the shown clip as a pose DMAT. Each edit is one undo
 * step made by the pure edits of workers/scene/clip-edits.ts (the command-line tool makes the same ones); the time
 * stays where it was, and a key set into a new clip shows it paused at the keyed frame.
 */
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { poseSequenceToDmat } from '../../workers/formats/pose-file.ts';
import {
  clipLengthEdit,
  deleteKeysEdit,
  insertKeysEdit,
  isKeyedClip,
  keyFrameAt,
  moveKeysEdit,
  newClipEdit,
  renameClipEdit,
  trimClipEdit,
} from '../../workers/scene/clip-edits.ts';
import type { SceneEdit } from '../../workers/scene/scene-edits.ts';
import { boneCountOf } from '../../workers/scene/scene-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { KeyMarkActions, Timeline } from '../panels/timeline.ts';
import type { BoneSelection } from './bone-selection.ts';

/** What the key commands use of the app. */
export interface KeyCommandsHost {
  readonly store: SceneStore;
  readonly boneSelection: Pick<BoneSelection, 'bone'>;
  readonly timeline: Pick<Timeline, 'time' | 'duration' | 'playing' | 'pause' | 'seek'>;
  readonly bridge: Pick<RigwrightBridge, 'saveFile'>;
  renderNow(): void;
}

export type KeyCommandId =
  'key.insert' | 'key.insertAll' | 'key.delete' | 'key.move' | 'clip.new' | 'clip.rename' | 'clip.trim' | 'clip.length' | 'file.saveClip';

/** Which bones a key command acts on: the selected bone, all bones, or (absent) the selected bone if any, else all. */
export type KeyBones = 'selected' | 'all' | undefined;

const NO_KEYED_CLIP = 'the clip shown cannot be keyed (key a pose or make a new clip first)';
const NO_BONES = 'the scene has no bones to key (build a skeleton first)';

/**
 * What the timeline's key marks do (Timeline.setKeyActions). A mark stands for every bone's keys at its frame (it is
 * drawn wherever any bone has a key), so dragging it moves, and deleting it deletes, all of them, whatever bone is
 * selected.
 * @param commands  runs a key command as the user would (the app's command registry)
 */
export function keyMarkActions(commands: Pick<CommandRegistry, 'invoke'>): KeyMarkActions {
  return {
    move: (from, to) => void commands.invoke('key.move', { from, to, bones: 'all' }),
    remove: (frame) => void commands.invoke('key.delete', { frame, bones: 'all' }),
  };
}

export function keyCommands(app: KeyCommandsHost): HandlersFor<KeyCommandId> {
  const { store, timeline } = app;
  /** The bones a key command names: undefined for all of them (the key operations' convention). */
  const bonesOf = (which: KeyBones, command: string): number[] | undefined => {
    const bone = app.boneSelection.bone;
    if (which === 'selected' && bone < 0) throw new Error(`${command}: no bone is selected`);
    return which === 'all' || bone < 0 ? undefined : [bone];
  };
  const allBones = (): number[] => Array.from({ length: boneCountOf(store.doc) }, (_, b) => b);
  /** The timeline's frame, a whole frame of the shown keyed clip. */
  const currentFrame = (): number => keyFrameAt(store.doc, timeline.time);
  const keyed = { canRun: () => isKeyedClip(store.doc.poses), refusal: NO_KEYED_CLIP };
  const hasBones = { canRun: () => boneCountOf(store.doc) > 0, refusal: NO_BONES };

  /** One store edit; the time stays where it was (clamped to the clip), paused if the clip's length changed. */
  const apply = (edit: SceneEdit): void => {
    const { time, playing, duration } = timeline;
    store.edit(edit.label, edit.fields);
    if (timeline.duration !== duration || (playing && !timeline.playing)) {
      timeline.pause();
      timeline.seek(Math.min(time, timeline.duration));
    }
    app.renderNow();
  };
  /** Shows the clip just made paused at `frame` (a new sequence starts the timeline over). */
  const showAt = (frame: number): void => {
    timeline.pause();
    timeline.seek(frame);
    app.renderNow();
  };

  const insert = (which: KeyBones): number => {
    const bones = bonesOf(which, 'key.insert') ?? allBones();
    const { doc } = store;
    const edit = insertKeysEdit(doc, timeline.time, bones);
    // Keyed into the clip shown, the time stays; a clip made for the key is shown at the keyed frame.
    if (isKeyedClip(doc.poses) && edit.fields.posesFile === doc.posesFile) apply(edit);
    else {
      store.edit(edit.label, edit.fields);
      showAt(edit.frame);
    }
    return edit.frame;
  };

  return {
    'key.insert': {
      run: (which) => insert(which),
      title: () => {
        const bone = app.boneSelection.bone;
        return bone >= 0 ? `Key ${boneNamesOf(store.doc)[bone]}` : 'Key all bones';
      },
      ...hasBones,
    },
    'key.insertAll': { run: () => insert('all'), ...hasBones },
    'key.delete': {
      run: (argument) => apply(deleteKeysEdit(store.doc, argument?.frame ?? currentFrame(), bonesOf(argument?.bones, 'key.delete'))),
      ...keyed,
    },
    'key.move': {
      run: ({ from, to, bones }) => {
        apply(moveKeysEdit(store.doc, from, to, bonesOf(bones, 'key.move')));
        if (Math.round(timeline.time) === from) timeline.seek(to);
      },
      ...keyed,
    },
    'clip.new': {
      run: (argument) => {
        const edit = newClipEdit(store.doc, argument?.name, argument?.frames);
        store.edit(edit.label, edit.fields);
        showAt(0);
        return edit.clip;
      },
    },
    'clip.rename': { run: ({ clip, name }) => apply(renameClipEdit(store.doc, clip, name)) },
    'clip.trim': { run: ({ first, last }) => apply(trimClipEdit(store.doc, first, last)), ...keyed },
    'clip.length': { run: (frames) => apply(clipLengthEdit(store.doc, frames)), ...keyed },
    'file.saveClip': {
      run: async () => {
        const { poses, posesFile } = store.doc;
        if (poses?.kind !== 'matrices') throw new Error('file.saveClip: the scene shows no clip of frames');
        const name = `${(posesFile ?? 'clip').replace(/\.(dmat|glb|gltf)$/i, '')}.dmat`;
        await app.bridge.saveFile({ suggestedName: name, bytes: new TextEncoder().encode(writeDmatAscii(poseSequenceToDmat(poses))) });
      },
      canRun: () => store.doc.poses?.kind === 'matrices',
      refusal: 'the scene shows no clip of frames (the rest pose or one final pose)',
    },
  };
}
