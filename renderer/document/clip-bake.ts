/**
 * Baking a clip: its poses sampled at a rate the user chooses (bakePoseSequence), as one edit of the scene. The
 * baked clip replaces the clip it came from under the same name, without `source` (it is no longer the file's
 * animation, so an in-place export writes it anew) and with `from`, so that the file's channels the scene does not
 * pose with (material or light keys) go into the animation written for it.
 */
import type { GltfClip } from '../../workers/formats/gltf-export.ts';
import { bakePoseSequence, bakedFrameCount, frameSeconds, poseDuration } from '../../workers/rig/pose-sequence.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';

/** The current clip's name, first and last key time and key count, or null when there is no clip to bake. */
export function bakeableClip(
  doc: SceneDocument,
): { name: string; start: number; end: number; keyCount: number; framesAt: (framesPerSecond: number) => number } | null {
  const poses = doc.poses;
  if (poses?.kind !== 'matrices') return null;
  const start = frameSeconds(poses, 0);
  const end = frameSeconds(poses, poseDuration(poses));
  return {
    name: doc.posesFile ?? 'poses',
    start,
    end,
    keyCount: poses.frameCount,
    framesAt: (framesPerSecond) => bakedFrameCount(end - start, framesPerSecond),
  };
}

/**
 * The edit that bakes the current clip at `framesPerSecond`: the label for the undo history and the fields (the
 * baked poses; the clip list with the baked clip in the current clip's place).
 * @throws Error when there is no clip (rest pose, a quaternion pose) or the rate is unusable (bakePoseSequence)
 */
export function bakeClipEdit(
  doc: SceneDocument,
  framesPerSecond: number,
): { label: string; fields: Pick<SceneDocument, 'poses' | 'clips'> } {
  const clip = bakeableClip(doc);
  if (!clip || !doc.poses) throw new Error('Bake clip: there is no clip to bake (the scene is at rest or holds one final pose)');
  const poses = bakePoseSequence(doc.poses, framesPerSecond);
  const current = doc.clips?.find((c) => c.poses === doc.poses);
  const from = current?.source ?? current?.from;
  const baked: GltfClip = { name: clip.name, poses, ...(from !== undefined ? { from } : {}) };
  const clips = doc.clips?.map((c) => (c === current ? baked : c));
  return { label: `Bake ${clip.name} at ${framesPerSecond} fps`, fields: { poses, clips } };
}
