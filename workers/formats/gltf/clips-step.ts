/**
 * The clips step: a clip with `source` keeps that animation of the document as it is; an animation no clip names any
 * more is removed; every clip without `source` is written as a new animation with its own name. Where the joint
 * nodes are exactly the bones (directJoints: a fresh export's, or a file's whose joints have no rest rotation or
 * scale) the clip keeps its curves (clip-curves.ts); elsewhere it is written from the rig's poses at its keys
 * (clip-frames.ts). A clip made from an animation that is not kept (a bake) inherits that animation's samplers the
 * scene does not pose with (gltf-carry.ts puts their channels back).
 */
import type { Accessor, Animation, AnimationSampler, Node as GltfNode } from '@gltf-transform/core';
import { pointerSamplers } from '../gltf-carry.ts';
import type { GltfClip } from '../gltf-export.ts';
import { curveClip } from './clip-curves.ts';
import { frameClip } from './clip-frames.ts';
import type { ClipsOptions } from './clips-options.ts';
import type { ExportScene, ExportState } from './export-state.ts';
import { MOVED, worldMatrix } from './node-matrices.ts';

/** Relative: a stored head or bind frame this near the bone's is the bone's (float32 keeps 6e-8). */
const STORED = 1e-6;

/** What the clips step tells the carry-over: where kept animations went, and samplers copied for a second heir. */
export interface KeptAnimations {
  /** the document's animation index → its index among the kept ones */
  animationIndex: Map<number, number>;
  samplerCopies: Map<AnimationSampler, AnimationSampler[]>;
  /** the samplers each new clip inherits */
  inherited: Map<GltfClip, AnimationSampler[]>;
}

/**
 * Removes the document's animations no clip keeps (see the module comment).
 * @throws through state.fail when a clip names an animation the document does not have
 */
export function removeUnkeptAnimations(state: ExportState, scene: ExportScene): KeptAnimations {
  const { animationsBefore, samplersRead, fail } = state;
  const kept = new Set<number>();
  for (const clip of scene.clips) {
    if (clip.source === undefined) continue;
    if (!(clip.source >= 0 && clip.source < animationsBefore.length))
      fail(`clip "${clip.name}"`, `${state.sourceName} has no animation ${clip.source}`);
    kept.add(clip.source);
  }
  const animationIndex = new Map<number, number>();
  const inherited = new Map<GltfClip, AnimationSampler[]>();
  const samplerCopies = new Map<AnimationSampler, AnimationSampler[]>();
  animationsBefore.forEach((animation, a) => {
    if (kept.has(a)) {
      animationIndex.set(a, animationIndex.size);
      return;
    }
    const heirs = scene.clips.filter((clip) => clip.source === undefined && clip.from === a);
    const carried = heirs.length > 0 && state.carry ? pointerSamplers(state.carry.json, a).map((s) => samplersRead[a][s]) : [];
    if (carried.length > 0)
      heirs.forEach((heir, h) => {
        // The first clip made from it takes the samplers themselves, any other a copy on the same keys.
        const own = h === 0 ? carried : carried.map((sampler) => sampler.clone());
        if (h > 0) own.forEach((copy, k) => samplerCopies.set(carried[k], [...(samplerCopies.get(carried[k]) ?? []), copy]));
        inherited.set(heir, own);
      });
    for (const channel of animation.listChannels()) channel.dispose();
    for (const sampler of animation.listSamplers()) if (carried.includes(sampler)) animation.removeSampler(sampler);
    for (const sampler of animation.listSamplers()) sampler.dispose();
    animation.dispose();
  });
  return { animationIndex, samplerCopies, inherited };
}

/**
 * Writes every clip without `source` as a new animation (see the module comment); `key` adds the example weights of
 * a clip at its key times `input`.
 * @param opts the keyframe rate of clips without key times
 */
export function writeNewClips(
  state: ExportState,
  scene: ExportScene,
  bindFrames: readonly Float64Array[],
  inherited: ReadonlyMap<GltfClip, readonly AnimationSampler[]>,
  key: ((animation: Animation, input: Accessor, clip: GltfClip) => void) | null,
  opts: Required<ClipsOptions>,
): void {
  const { doc, warnings } = state;
  const jointNodes = state.jointNodes as GltfNode[];
  const direct = directJoints(state, scene, bindFrames);
  const restWorld = new Map<GltfNode, Float64Array>();
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  for (const clip of scene.clips) {
    if (clip.source !== undefined) continue;
    const { animation, input } = direct
      ? curveClip(
          doc,
          (type, array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer),
          jointNodes,
          clip,
          opts.framesPerSecond,
          warnings,
        )
      : frameClip(
          doc,
          clip,
          scene.skeleton,
          jointNodes,
          bindFrames as Float64Array[],
          restWorld,
          opts.framesPerSecond,
          state.diagonal,
          warnings,
        );
    key?.(animation, input, clip);
    for (const sampler of inherited.get(clip) ?? []) animation.addSampler(sampler);
  }
}

/**
 * Whether the joint nodes are exactly the bones: each without rest rotation or scale, below its parent bone's node
 * (a root below nothing or below nodes at the identity), at its bone's head, its bind frame its rest frame.
 */
function directJoints(state: ExportState, scene: ExportScene, bindFrames: readonly Float64Array[]): boolean {
  const { skeleton } = scene;
  const tolerance = MOVED * state.diagonal;
  return state.jointNodes.every((node, b) => {
    if (!node) return false;
    const r = node.getRotation();
    const s = node.getScale();
    if (r[0] !== 0 || r[1] !== 0 || r[2] !== 0 || r[3] !== 1 || s[0] !== 1 || s[1] !== 1 || s[2] !== 1) return false;
    const p = skeleton.parents[b];
    const parent = node.getParentNode();
    if (p >= 0 ? parent !== state.jointNodes[p] : parent && !isIdentity(worldMatrix(parent), tolerance)) return false;
    // The head and bind frame as stored (float32; a fresh export's grid): within a few float32 steps of the bone's.
    const world = worldMatrix(node);
    const frame = bindFrames[b];
    const h = 3 * skeleton.bones[2 * b];
    const head = skeleton.joints.subarray(h, h + 3);
    const near = STORED * Math.max(state.diagonal, Math.hypot(head[0], head[1], head[2]));
    for (let i = 0; i < 16; i++) if (Math.abs(world[i] - frame[i]) > (i >= 12 && i < 15 ? near : STORED)) return false;
    return [0, 1, 2].every((c) => Math.abs(world[12 + c] - head[c]) <= near);
  });
}

function isIdentity(m: Float64Array, tolerance: number): boolean {
  for (let i = 0; i < 16; i++) {
    const expected = i % 5 === 0 ? 1 : 0;
    if (Math.abs(m[i] - expected) > (i >= 12 && i < 15 ? tolerance : 1e-9)) return false;
  }
  return true;
}
