/**
 * The scene's answers to a script's calls (ScriptCalls of script-api.ts) on a SceneStore: what `rig.scene` reads
 * (counts, bones, weights, handles, rest and skinned positions) and writes (weights, handles: each one store edit,
 * one undo step, which the host's group makes part of the run's), with the commands and the files delegated to the
 * host that owns them (the app's registry and dialogs, or the CLI's). The app and `rigwright run` both answer with
 * this one module, so a script reads and writes the same in either.
 *
 * Every array returned is fresh: the sandbox takes ownership of what is transferred to it, and a script must never
 * hold the document's own arrays (documents are values; undo puts the very same arrays back). Every array received
 * is checked against the scene and copied before it becomes part of the document, unless the host says the arrays
 * were handed over to it (`argumentsHandedOver`: a ScriptHost's calls get what the sandbox transferred, which no one
 * else holds); weights then become the document's as they are when they need no new layout.
 */
import type { DenseMatrix } from '../formats/types.ts';
import { dualQuatsFromRigidMatrices } from '../math/dual-quaternion.ts';
import { scaledForwardKinematics } from '../rig/scaled-forward-kinematics.ts';
import { identityPose, poseDuration, samplePose, samplePoseTranslations, type PoseSequence } from '../rig/pose-sequence.ts';
import { DUAL_QUATERNION_SKINNING_DEFAULTS, dualQuaternionSkinning } from '../skinning/dual-quaternion-skinning.ts';
import { INFLUENCE_DEFAULTS, influencesFromWeights } from '../skinning/influences.ts';
import { linearBlendSkinning } from '../skinning/linear-blend-skinning.ts';
import { splitNonRigidTransforms } from '../skinning/split-non-rigid-transform.ts';
import { boneNamesOf } from '../scene/bone-fields.ts';
import { boneCountOf, examplesOf, triangleCountOf, vertexCountOf, type SceneDocument } from '../scene/scene-document.ts';
import type { SceneStore } from '../scene/scene-store.ts';
import { weightsHoldingRows } from '../scene/weight-storage.ts';
import type {
  PoseOptions,
  ScriptBone,
  ScriptCalls,
  ScriptClip,
  ScriptExample,
  ScriptMesh,
  SceneSummary,
  SkinOptions,
  Vec3,
  WeightRows,
} from './script-api.ts';
import { canonicalWeightRows, weightRowsOf } from './weight-rows.ts';

/** What the scene calls need besides the scene: the host's commands, files and deformation method. */
export interface SceneScriptCallsDeps {
  store: SceneStore;
  /** runs a catalog command (the app's registry.execute, or the CLI's headless registry) and awaits it */
  execute(id: string, argument: unknown): Promise<unknown>;
  files: Pick<ScriptCalls, 'files.open' | 'files.saveProject' | 'files.exportGltf'>;
  /** the method scene.skin uses by default (the viewport's); absent: linear blend */
  skinMethod?(): 'lbs' | 'dqs';
  /**
   * true when the typed arrays the calls receive are no one else's (a ScriptHost's: transferred from the sandbox), so
   * that `scene.setWeights` may keep them rather than copy them
   */
  argumentsHandedOver?: boolean;
}

/** The weights source a document gets from `scene.setWeights`. */
export const SCRIPT_WEIGHTS_SOURCE = 'script';
/** The handles file a document gets from `scene.setHandles`. */
export const SCRIPT_HANDLES_SOURCE = 'script';
/** Undo labels of the two writes (each inside the run's group `Script: <file>`). */
export const SET_WEIGHTS_LABEL = 'Set weights';
export const SET_HANDLES_LABEL = 'Set handles';
/** How many names an unknown bone's message offers. */
const CLOSEST_NAMES = 3;

/**
 * ScriptCalls answered on a scene store: `scene.*` here, `execute` and `files.*` by the host's own functions.
 * Reads see the store's document at the time of the call (a command the script ran before is in it).
 * @param deps  the store, the host's command runner and file calls, and the default skinning method
 */
export function sceneScriptCalls(deps: SceneScriptCallsDeps): ScriptCalls {
  const { store, files } = deps;
  const doc = (): SceneDocument => store.doc;
  return {
    execute: (id, argument) => deps.execute(id, argument),
    'scene.summary': () => sceneSummary(doc()),
    'scene.bones': () => sceneBones(doc()),
    'scene.bone': (name) => sceneBone(doc(), name),
    'scene.weights': () => weightRowsOf(doc().weights),
    'scene.denseWeights': () => doc().weights.data.slice(),
    'scene.setWeights': (weights) => {
      const current = doc();
      store.edit(SET_WEIGHTS_LABEL, {
        weights: weightsMatrix(weights, vertexCountOf(current), boneCountOf(current), deps.argumentsHandedOver ?? false),
        weightsSource: SCRIPT_WEIGHTS_SOURCE,
      });
    },
    'scene.handles': () => {
      const current = doc();
      return current.handles ? current.handles.slice() : new Int32Array(vertexCountOf(current)).fill(-1);
    },
    'scene.setHandles': (handles) => {
      const current = doc();
      store.edit(SET_HANDLES_LABEL, {
        handles: handlesData(handles, vertexCountOf(current), boneCountOf(current)),
        handlesFile: SCRIPT_HANDLES_SOURCE,
      });
    },
    'scene.restPositions': () => doc().mesh.positions.slice(),
    'scene.skin': (options) => skinScene(doc(), options, deps.skinMethod?.() ?? 'lbs'),
    'scene.triangles': () => doc().mesh.triangles.slice(),
    'scene.joints': () => doc().skeleton.joints.slice(),
    'scene.pose': (options) => scenePose(doc(), options),
    'scene.examples': () => sceneExamples(doc()),
    'scene.examplePositions': (name) => exampleOf(doc(), name).positions.slice(),
    'files.open': (paths) => files['files.open'](paths),
    'files.saveProject': (path) => files['files.saveProject'](path),
    'files.exportGltf': (path, options) => files['files.exportGltf'](path, options),
  };
}

/** The scene's counts and names (SceneSummary). */
export function sceneSummary(doc: SceneDocument): SceneSummary {
  let handleCount = 0;
  if (doc.handles) for (let v = 0; v < doc.handles.length; v++) if (doc.handles[v] >= 0) handleCount++;
  return {
    name: doc.name,
    vertexCount: vertexCountOf(doc),
    triangleCount: triangleCountOf(doc),
    boneCount: boneCountOf(doc),
    meshes: sceneMeshes(doc),
    clips: sceneClips(doc).map(({ name, frameCount, shown }): ScriptClip => ({ name, frameCount, shown })),
    weightsSource: doc.weightsSource,
    handleCount,
  };
}

function sceneMeshes(doc: SceneDocument): ScriptMesh[] {
  if (!doc.parts) {
    return [
      { index: 0, name: doc.name, firstVertex: 0, vertexCount: vertexCountOf(doc), firstTriangle: 0, triangleCount: triangleCountOf(doc) },
    ];
  }
  return doc.parts.map((part, index) => ({
    index,
    name: part.name,
    firstVertex: part.vertexStart,
    vertexCount: part.vertexCount,
    firstTriangle: part.triangleStart,
    triangleCount: part.triangleCount,
  }));
}

/** A clip as scripts see it, with its sequence. */
interface SceneClip extends ScriptClip {
  readonly poses: PoseSequence;
}

/**
 * The scene's clips: the document's clip list, and the shown pose sequence when it is not one of them (a pose file,
 * named as the clip menu names it: its file, or `poses`). Frames: a clip's own; a final pose (quaternions) has two,
 * the rest pose (frame 0) and the final pose (frame 1), so frame f is the sequence's time f either way.
 */
function sceneClips(doc: SceneDocument): SceneClip[] {
  const clips: SceneClip[] = (doc.clips ?? []).map((clip) => ({
    name: clip.name,
    poses: clip.poses,
    frameCount: framesOf(clip.poses),
    shown: clip.poses === doc.poses,
  }));
  if (doc.poses && !clips.some((clip) => clip.shown)) {
    clips.push({ name: doc.posesFile ?? 'poses', poses: doc.poses, frameCount: framesOf(doc.poses), shown: true });
  }
  return clips;
}

const framesOf = (seq: PoseSequence): number => poseDuration(seq) + 1;

/** Every bone of the skeleton (ScriptBone), in bone order. */
export function sceneBones(doc: SceneDocument): ScriptBone[] {
  const names = boneNamesOf(doc);
  return names.map((_, b) => boneOf(doc, names, b));
}

function boneOf(doc: SceneDocument, names: readonly string[], b: number): ScriptBone {
  const { joints, bones, parents } = doc.skeleton;
  const joint = (j: number): Vec3 => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
  return {
    index: b,
    name: names[b],
    parent: parents[b],
    head: joint(bones[2 * b]),
    tail: joint(bones[2 * b + 1]),
    locked: doc.paintLocks?.[b] === 1,
  };
}

/**
 * The bone of this name.
 * @throws Error naming the bone and the CLOSEST_NAMES closest names the skeleton has (edit distance, letter case
 *         ignored), when it has none of that name
 */
export function sceneBone(doc: SceneDocument, name: string): ScriptBone {
  const names = boneNamesOf(doc);
  if (typeof name !== 'string') throw new Error(`scene.bone: a bone's name is a string, not ${describe(name)}`);
  const b = names.indexOf(name);
  if (b >= 0) return boneOf(doc, names, b);
  if (names.length === 0) throw new Error(`scene.bone: no bone "${name}": the scene has no skeleton yet`);
  const wanted = name.toLowerCase();
  const closest = names
    .map((candidate, index) => ({ candidate, index, distance: editDistance(wanted, candidate.toLowerCase()) }))
    .sort((x, y) => x.distance - y.distance || x.index - y.index)
    .slice(0, CLOSEST_NAMES)
    .map(({ candidate }) => `"${candidate}"`);
  throw new Error(`scene.bone: no bone "${name}" in the skeleton; the closest names are ${closest.join(', ')}`);
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions that turn a into b. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}

/**
 * The #V × #B weights a `scene.setWeights` argument stands for: rows, held as the scene's weights in their canonical
 * layout (canonicalWeightRows; the dense matrix made when first read), or a dense Float64Array. Values are kept as
 * given (a weight of ±0 in a row is no weight).
 * @param handedOver  the arrays are no one else's: kept as they are when they need no new layout, else copied
 * @throws Error naming the call, the counts, and for a value that is not finite, the vertex (and bone or slot)
 */
function weightsMatrix(weights: WeightRows | Float64Array, vertexCount: number, boneCount: number, handedOver: boolean): DenseMatrix {
  const caller = 'scene.setWeights';
  if (!(weights instanceof Float64Array)) {
    if (ArrayBuffer.isView(weights))
      throw new Error(`${caller}: a dense matrix is a Float64Array, not a ${weights.constructor.name} (or give rows as weights() does)`);
    return weightsHoldingRows(vertexCount, boneCount, canonicalWeightRows(weights, vertexCount, boneCount, caller, handedOver));
  }
  if (weights.length !== vertexCount * boneCount) {
    throw new Error(
      `${caller}: a dense matrix of ${weights.length} weights does not fit the scene's ${vertexCount} vertices × ${boneCount} bones (${vertexCount * boneCount})`,
    );
  }
  const data = handedOver ? weights : weights.slice();
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      const v = Math.floor(i / boneCount);
      throw new Error(`${caller}: vertex ${v}, bone ${i - v * boneCount}: the weight ${data[i]} is not a finite number`);
    }
  }
  return { rows: vertexCount, cols: boneCount, data };
}

/**
 * The handles a `scene.setHandles` argument stands for, copied: #V bone indices, -1 for none.
 * @throws Error naming the call and the count, or the first vertex whose entry is not -1 … #B − 1
 */
export function handlesData(handles: Int32Array, vertexCount: number, boneCount: number): Int32Array {
  const caller = 'scene.setHandles';
  if (!ArrayBuffer.isView(handles) && !Array.isArray(handles))
    throw new Error(`${caller}: handles are an Int32Array of ${vertexCount} bone indices, not ${describe(handles)}`);
  const given = handles as ArrayLike<unknown>;
  if (given.length !== vertexCount)
    throw new Error(`${caller}: ${given.length} handle entries, the scene has ${vertexCount} vertices (one bone index or -1 each)`);
  const out = new Int32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const b = given[v];
    if (typeof b !== 'number' || !Number.isInteger(b) || b < -1 || b >= boneCount)
      throw new Error(`${caller}: vertex ${v}: ${describe(b)} is not a bone of the scene (0 … ${boneCount - 1}, or -1 for none)`);
    out[v] = b;
  }
  return out;
}

const SKIN_OPTION_KEYS: ReadonlySet<string> = new Set(['method', 'clip', 'frame']);

/**
 * The mesh skinned at a frame of a clip, on the CPU, with the functions the CLI's `skin` command uses: the clip's
 * rotations (and start-joint translations) at the frame, forward kinematics with the scene's bone scales
 * (scaledForwardKinematics, which equals forwardKinematics when there are none), the INFLUENCE_DEFAULTS largest
 * weights per vertex renormalized (influencesFromWeights), then linear blend or dual quaternion skinning (per-vertex
 * signs; a scaled bone's non-rigid part blended first, Kavan 2008 Sec. 4.2). On the shown clip, bones posed by hand
 * keep their hand pose, as the viewport shows them.
 * @param options        method (default `defaultMethod`), clip (by name; default the shown one, or the rest pose
 *                       when the scene has none), frame (a whole number from 0 to the clip's frames − 1; default 0)
 * @param defaultMethod  the method when options give none
 * @returns #V × 3 posed positions, a fresh array
 * @throws Error naming the option and the reason: an unknown option, method, clip or a frame out of range
 */
export function skinScene(doc: SceneDocument, options: SkinOptions | undefined, defaultMethod: 'lbs' | 'dqs'): Float64Array {
  const caller = 'scene.skin';
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
    throw new Error(`${caller}: options are an object { method, clip, frame }, not ${describe(options)}`);
  for (const key of Object.keys(options ?? {}))
    if (!SKIN_OPTION_KEYS.has(key)) throw new Error(`${caller}: unknown option "${key}" (the options are method, clip and frame)`);
  const method = options?.method ?? defaultMethod;
  if (method !== 'lbs' && method !== 'dqs') throw new Error(`${caller}: method must be "lbs" or "dqs", not ${describe(method)}`);
  const { clip, frame } = clipFrameOf(caller, doc, options);

  const rest = doc.mesh.positions;
  const boneCount = boneCountOf(doc);
  const posed = new Float64Array(rest.length);
  if (boneCount === 0) {
    posed.set(rest);
    return posed;
  }
  const rotations = framePose(doc, clip, frame);
  const translations = new Float64Array(3 * boneCount);
  const moved = clip ? samplePoseTranslations(clip.poses, frame, translations) : false;
  const transforms = new Float64Array(12 * boneCount);
  const scales = doc.boneScales ?? null;
  scaledForwardKinematics(doc.skeleton, rotations, scales, transforms, moved ? translations : null);

  const influences = influencesFromWeights(doc.weights, INFLUENCE_DEFAULTS.maxInfluences);
  if (method === 'lbs') {
    linearBlendSkinning(rest, influences, transforms, posed);
    return posed;
  }
  const dualQuaternions = new Float64Array(8 * boneCount);
  let scaleTransforms: Float64Array | null = null;
  if (scales?.some((s) => s !== 1)) {
    scaleTransforms = new Float64Array(12 * boneCount);
    splitNonRigidTransforms(doc.skeleton, transforms, dualQuaternions, scaleTransforms);
  } else {
    dualQuatsFromRigidMatrices(transforms, dualQuaternions);
  }
  dualQuaternionSkinning(rest, influences, dualQuaternions, posed, {
    antipodality: DUAL_QUATERNION_SKINNING_DEFAULTS.antipodality,
    scaleTransforms,
  });
  return posed;
}

const POSE_OPTION_KEYS: ReadonlySet<string> = new Set(['clip', 'frame']);

/**
 * The relative rotations at a frame of a clip (`rig.scene.pose`): the clip's rotations at the frame (samplePose; the
 * rest pose when the scene has no clip), with the hand-posed bones' rotations over them on the shown clip, at every
 * frame, as the viewport and `scene.skin` show them. Start-joint translations are not part of it.
 * @param options  clip (by name; default the shown one), frame (a whole number from 0 to the clip's frames − 1;
 *                 default 0)
 * @returns #B × 9 row-major relative rotations, a fresh array
 * @throws Error naming the option and the reason: an unknown option or clip, or a frame out of range
 */
export function scenePose(doc: SceneDocument, options: PoseOptions | undefined): Float64Array {
  const caller = 'scene.pose';
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
    throw new Error(`${caller}: options are an object { clip, frame }, not ${describe(options)}`);
  for (const key of Object.keys(options ?? {}))
    if (!POSE_OPTION_KEYS.has(key)) throw new Error(`${caller}: unknown option "${key}" (the options are clip and frame)`);
  const { clip, frame } = clipFrameOf(caller, doc, options);
  return framePose(doc, clip, frame);
}

/**
 * The clip and frame options name (default: the shown clip, frame 0).
 * @throws Error naming the caller and the option: an unknown clip, or a frame that is not one of the clip's
 */
function clipFrameOf(caller: string, doc: SceneDocument, options: PoseOptions | undefined): { clip: SceneClip | undefined; frame: number } {
  const clips = sceneClips(doc);
  let clip: SceneClip | undefined;
  if (options?.clip !== undefined) {
    clip = clips.find((c) => c.name === options.clip);
    if (!clip) {
      const names = clips.length ? `its clips are ${clips.map((c) => `"${c.name}"`).join(', ')}` : 'it has no clips';
      throw new Error(`${caller}: the scene has no clip ${describe(options.clip)}; ${names}`);
    }
  } else {
    clip = clips.find((c) => c.shown);
  }
  const frameCount = clip ? clip.frameCount : 1;
  const frame = options?.frame ?? 0;
  if (typeof frame !== 'number' || !Number.isInteger(frame) || frame < 0 || frame >= frameCount) {
    const of = clip ? `clip "${clip.name}" has frames 0 … ${frameCount - 1}` : 'the scene has no clip, only the rest pose (frame 0)';
    throw new Error(`${caller}: frame ${describe(frame)} is out of range: ${of}`);
  }
  return { clip, frame };
}

/** #B × 9 relative rotations at `frame` of `clip` (rest without one), the hand-posed bones over the shown clip's. */
function framePose(doc: SceneDocument, clip: SceneClip | undefined, frame: number): Float64Array {
  const boneCount = boneCountOf(doc);
  const rotations = identityPose(boneCount);
  if (clip) samplePose(clip.poses, frame, rotations);
  const byHand = !clip || clip.shown ? doc.posedBones : undefined;
  if (byHand) for (let b = 0; b < boneCount; b++) if (byHand.bones[b]) rotations.set(byHand.rotations.subarray(9 * b, 9 * b + 9), 9 * b);
  return rotations;
}

/** The example shapes as scripts see them (ScriptExample), their poses copied. */
export function sceneExamples(doc: SceneDocument): ScriptExample[] {
  return examplesOf(doc).map(({ name, pose, poseSource, hidden }) => ({ name, pose: pose.slice(), poseSource, hidden }));
}

/**
 * The example of this name.
 * @throws Error naming the call, the example and the names the scene has
 */
function exampleOf(doc: SceneDocument, name: string) {
  const caller = 'scene.examplePositions';
  if (typeof name !== 'string') throw new Error(`${caller}: an example's name is a string, not ${describe(name)}`);
  const examples = examplesOf(doc);
  const example = examples.find((e) => e.name === name);
  if (example) return example;
  const names = examples.length ? `its examples are ${examples.map((e) => `"${e.name}"`).join(', ')}` : 'it has no examples';
  throw new Error(`${caller}: the scene has no example "${name}"; ${names}`);
}

/** A value as a message quotes it: strings in quotes, other values by type or as written. */
function describe(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value}`;
}
