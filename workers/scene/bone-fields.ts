/**
 * Every field of a scene document that is indexed by bone, in one list: what an edit of the skeleton (a bone
 * inserted, deleted, re-parented or reordered) has to update, and what assertConsistent checks against the skeleton.
 * A field the document lacks (no clips, no glTF source, no paint locks) holds nothing.
 *
 * Each entry also rewrites its field for a new bone numbering (a BonePlan). The bone edits (workers/rig/bone-edits.ts)
 * build a plan and run every entry of the list, so a field added here is carried by every edit.
 */
import { forwardKinematics } from '../rig/forward-kinematics.ts';
import type { KeyframeCurves } from '../rig/keyframe-curves.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { quatMultiply } from '../math/quaternion.ts';
import type { DenseMatrix } from '../formats/types.ts';
import type { ExampleShape, SceneDocument } from './scene-document.ts';

/** One instance of a bone-indexed field: where it is in the document and how many bones it holds. */
export interface BoneFieldInstance {
  /** its place, as messages name it: `weights`, `clips[2].poses.curves.inverseBind` */
  readonly where: string;
  readonly bones: number;
}

/** BonePlan.source of a bone the edit inserts. */
export const NEW_BONE = -1;

/**
 * How an edit of the skeleton numbers the bones afterwards, and what each new bone takes from the old ones.
 * Poses follow one rule for every edit: each bone keeps its posed world rotation at every frame (and, where a pose
 * sequence has start-joint translations, its whole posed transform). A bone whose parent and start joint stay keeps
 * its relative rotation and translation as they are (bit for bit); an inserted bone is at rest relative to its parent
 * (identity, no translation); a bone whose parent or rest start position changed gets them re-expressed against its
 * new parent: R' = Q_newParentᵀ · Q_bone, the product of the old relative rotations on the path between them (a
 * deleted parent's R_d · R_child), and t' = Q_newParentᵀ · (A_bone s' − A_newParent s') for its new rest start s'.
 */
export interface BonePlan {
  /** the skeleton after the edit, bones numbered the new way (buildSkeleton's) */
  readonly skeleton: Skeleton;
  /** #B' for each new bone, the old bone it is, or NEW_BONE */
  readonly source: Int32Array;
  /**
   * for some new bones, the old bones the edit removes whose weights (and weight-solver handles) they take: a deleted
   * bone's go to its parent (a root's to a child); the new column is the old one plus these, in this order
   */
  readonly absorbs: ReadonlyMap<number, readonly number[]>;
  /** names of inserted bones, by new index; an inserted bone without one is called `bone <index>` */
  readonly names?: ReadonlyMap<number, string>;
  /**
   * false when the file's own animations no longer say what the clips do (a re-parented bone's node would animate
   * relative to another parent): the clips then lose `source` (export writes them) and keep it as `from`
   */
  readonly keepsClipSources: boolean;
}

/** Rewrites of one document field for a plan; T is the field's value type. */
interface FieldRewrite<K extends keyof SceneDocument> {
  /** the document field the entry rewrites */
  readonly key: K;
  /** the field's new value under `plan` (absent stays absent unless the plan needs it, like names for a named insert) */
  rewrite(doc: SceneDocument, plan: BonePlan): SceneDocument[K];
}

export type BoneField = {
  [K in keyof SceneDocument]-?: FieldRewrite<K> & {
    /** the field, as the list names it: `weights`, `clips[].poses` */
    readonly name: string;
    /** the field's instances in `doc` (one for most; one per clip or example for theirs; none when absent) */
    instances(doc: SceneDocument): BoneFieldInstance[];
  };
}[keyof SceneDocument];

/** A pose sequence's own bone count and, when it keeps its file's keyframe curves, the curves' per-bone arrays. */
function poseInstances(poses: PoseSequence | null | undefined, where: string): BoneFieldInstance[] {
  if (!poses) return [];
  const found: BoneFieldInstance[] = [{ where, bones: poses.boneCount }];
  if (poses.kind === 'matrices' && poses.keys)
    found.push({ where: `${where}.keys`, bones: poses.keys.length / Math.max(1, poses.frameCount) });
  if (poses.kind === 'matrices' && poses.curves) {
    const { jointNode, inverseBind, parentBone, heads } = poses.curves;
    found.push(
      { where: `${where}.curves.jointNode`, bones: jointNode.length },
      { where: `${where}.curves.inverseBind`, bones: inverseBind.length / 16 },
      { where: `${where}.curves.parentBone`, bones: parentBone.length },
      { where: `${where}.curves.heads`, bones: heads.length / 3 },
    );
  }
  return found;
}

/** How messages, labels and new names call each bone: its name from the file, or `bone <index>`. */
export function boneNamesOf(doc: SceneDocument): readonly string[] {
  return doc.boneNames ?? Array.from(doc.skeleton.parents, (_, b) => `bone ${b}`);
}

export const BONE_FIELDS: readonly BoneField[] = [
  {
    name: 'weights',
    key: 'weights',
    instances: (doc) => [{ where: 'weights', bones: doc.weights.cols }],
    rewrite: (doc, plan) => rewriteWeights(doc.weights, plan),
  },
  {
    // Not counted per bone (one entry per vertex), but its values are bone indices.
    name: 'handles',
    key: 'handles',
    instances: () => [],
    rewrite: (doc, plan) => {
      if (!doc.handles) return doc.handles;
      const heir = heirs(plan, doc.skeleton.parents.length);
      return doc.handles.map((h) => (h >= 0 && h < heir.length ? heir[h] : h));
    },
  },
  {
    name: 'boneScales',
    key: 'boneScales',
    instances: (doc) => (doc.boneScales ? [{ where: 'boneScales', bones: doc.boneScales.length / 3 }] : []),
    rewrite: (doc, plan) => doc.boneScales && perBone(doc.boneScales, 3, plan, [1, 1, 1]),
  },
  {
    name: 'boneNames',
    key: 'boneNames',
    instances: (doc) => (doc.boneNames ? [{ where: 'boneNames', bones: doc.boneNames.length }] : []),
    rewrite: (doc, plan) => {
      if (!doc.boneNames && !plan.names?.size) return doc.boneNames;
      const old = boneNamesOf(doc);
      const names = Array.from(plan.source, (o) => (o === NEW_BONE ? '' : old[o]));
      const used = new Set(names);
      plan.source.forEach((o, b) => {
        if (o !== NEW_BONE) return;
        let name = plan.names?.get(b) ?? `bone ${b}`;
        for (let k = 2; !plan.names?.has(b) && used.has(name); k++) name = `bone ${b} (${k})`;
        names[b] = name;
        used.add(name);
      });
      return names;
    },
  },
  {
    name: 'paintLocks',
    key: 'paintLocks',
    instances: (doc) => (doc.paintLocks ? [{ where: 'paintLocks', bones: doc.paintLocks.length }] : []),
    rewrite: (doc, plan) => doc.paintLocks && perBone(doc.paintLocks, 1, plan, [0]),
  },
  {
    name: 'poses',
    key: 'poses',
    instances: (doc) => poseInstances(doc.poses, 'poses'),
    rewrite: (doc, plan) => doc.poses && rewritePoses(doc, doc.poses, plan),
  },
  {
    name: 'clips[].poses',
    key: 'clips',
    instances: (doc) => (doc.clips ?? []).flatMap((clip, c) => poseInstances(clip.poses, `clips[${c}].poses`)),
    rewrite: (doc, plan) =>
      doc.clips?.map((clip) => {
        const poses = rewritePoses(doc, clip.poses, plan);
        if (plan.keepsClipSources || clip.source === undefined) return { ...clip, poses };
        const { source, ...rest } = clip;
        return { ...rest, poses, from: source };
      }),
  },
  {
    name: 'examples[].pose',
    key: 'examples',
    instances: (doc) => (doc.examples ?? []).map((example, e) => ({ where: `examples[${e}].pose`, bones: example.pose.length / 9 })),
    rewrite: (doc, plan) =>
      doc.examples?.map((example): ExampleShape => {
        const B = doc.skeleton.parents.length;
        const seq: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: 1, rotations: example.pose };
        const posed = rewritePoses(doc, seq, plan);
        return { ...example, pose: (posed as { rotations: Float64Array }).rotations };
      }),
  },
  {
    name: 'posedBones',
    key: 'posedBones',
    instances: (doc) =>
      doc.posedBones
        ? [
            { where: 'posedBones.rotations', bones: doc.posedBones.rotations.length / 9 },
            { where: 'posedBones.bones', bones: doc.posedBones.bones.length },
          ]
        : [],
    rewrite: (doc, plan) =>
      doc.posedBones && {
        rotations: perBone(doc.posedBones.rotations, 9, plan, [1, 0, 0, 0, 1, 0, 0, 0, 1]),
        bones: perBone(doc.posedBones.bones, 1, plan, [0]),
      },
  },
  {
    // A new bone has no node in the file (-1): in-place export makes one under its parent bone's (gltf-edit.ts).
    name: 'gltfSource.jointNodes',
    key: 'gltfSource',
    instances: (doc) => (doc.gltfSource ? [{ where: 'gltfSource.jointNodes', bones: doc.gltfSource.jointNodes.length }] : []),
    rewrite: (doc, plan) => doc.gltfSource && { ...doc.gltfSource, jointNodes: perBone(doc.gltfSource.jointNodes, 1, plan, [-1]) },
  },
];

/**
 * The first bone-indexed field of `doc` that does not hold one entry per bone of its skeleton, or null.
 * @returns its place and bone count
 */
export function boneFieldMismatch(doc: SceneDocument): BoneFieldInstance | null {
  const bones = doc.skeleton.parents.length;
  for (const field of BONE_FIELDS) for (const instance of field.instances(doc)) if (instance.bones !== bones) return instance;
  return null;
}

/**
 * Every bone-indexed field of `doc` rewritten for `plan`, as fields of one edit; fields the document lacks and the
 * plan does not create are left out.
 */
export function rewriteBoneFields(doc: SceneDocument, plan: BonePlan): Partial<SceneDocument> {
  const fields: Record<string, unknown> = {};
  for (const field of BONE_FIELDS) {
    const value = (field.rewrite as (doc: SceneDocument, plan: BonePlan) => unknown)(doc, plan);
    if (value !== undefined || doc[field.key] !== undefined) fields[field.key] = value;
  }
  return fields;
}

/** For each old bone, the new bone that carries it: itself renumbered, or the one that absorbs it; -1 for none. */
function heirs(plan: BonePlan, oldBones: number): Int32Array {
  const heir = new Int32Array(oldBones).fill(-1);
  plan.source.forEach((o, b) => {
    if (o !== NEW_BONE) heir[o] = b;
  });
  for (const [b, absorbed] of plan.absorbs) for (const o of absorbed) heir[o] = b;
  return heir;
}

/** A per-bone array of `width` entries per bone, taken from each new bone's source, `fresh` for inserted ones. */
function perBone<T extends Float64Array | Int32Array | Uint8Array>(values: T, width: number, plan: BonePlan, fresh: number[]): T {
  const out = new (values.constructor as new (n: number) => T)(width * plan.source.length);
  plan.source.forEach((o, b) => {
    if (o === NEW_BONE) out.set(fresh, width * b);
    else out.set(values.subarray(width * o, width * (o + 1)), width * b);
  });
  return out;
}

/** Each new bone's column: its source's plus the columns it absorbs, in that order; an inserted bone's is 0. */
function rewriteWeights(weights: DenseMatrix, plan: BonePlan): DenseMatrix {
  const { rows, cols, data } = weights;
  const B = plan.source.length;
  const out = new Float64Array(rows * B);
  const from = Array.from(plan.source, (o, b) => (o === NEW_BONE ? [] : [o, ...(plan.absorbs.get(b) ?? [])]));
  for (let v = 0; v < rows; v++) {
    const row = v * cols;
    for (let b = 0; b < B; b++) {
      const columns = from[b];
      if (columns.length === 0) continue;
      let w = data[row + columns[0]];
      for (let k = 1; k < columns.length; k++) w += data[row + columns[k]];
      out[v * B + b] = w;
    }
  }
  return { rows, cols: B, data: out };
}

/** How one new bone's pose is made from the old pose. */
interface BonePoseRule {
  kind: 'copy' | 'rest' | 'reexpress';
  /** the old bone */
  source: number;
  /** the old bone whose posed transform the new parent has (through inserted bones at rest), -1 for the world */
  anchor: number;
  /** reexpress: old bones whose relative rotations, multiplied, give Q_anchorᵀ (transposed, anchor side, bottom-up) */
  up: number[];
  /** reexpress: old bones whose relative rotations, multiplied top-down, give the rest of Q_anchorᵀ · Q_source */
  down: number[];
  /** reexpress: the new rest start joint */
  start: [number, number, number];
}

/** The rules of every new bone, for a document's skeleton and a plan (see BonePlan). */
function poseRules(before: Skeleton, plan: BonePlan): BonePoseRule[] {
  const after = plan.skeleton;
  const oldParents = before.parents;
  const pathToRoot = (b: number): number[] => {
    const path: number[] = [];
    for (let x = b; x >= 0; x = oldParents[x]) path.push(x);
    return path;
  };
  return Array.from(plan.source, (o, b): BonePoseRule => {
    const s = 3 * after.bones[2 * b];
    const start: [number, number, number] = [after.joints[s], after.joints[s + 1], after.joints[s + 2]];
    let np = after.parents[b];
    while (np >= 0 && plan.source[np] === NEW_BONE) np = after.parents[np];
    const anchor = np >= 0 ? plan.source[np] : -1;
    if (o === NEW_BONE) return { kind: 'rest', source: o, anchor, up: [], down: [], start };
    const os = 3 * before.bones[2 * o];
    const startMoved = start[0] !== before.joints[os] || start[1] !== before.joints[os + 1] || start[2] !== before.joints[os + 2];
    if (anchor === oldParents[o] && !startMoved) return { kind: 'copy', source: o, anchor, up: [], down: [], start };
    // Q_anchorᵀ · Q_o through their lowest common ancestor L: (R along L→anchor)ᵀ · (R along L→o).
    const fromO = pathToRoot(o);
    const fromAnchor = anchor >= 0 ? pathToRoot(anchor) : [];
    const onO = new Set(fromO);
    const common = fromAnchor.find((x) => onO.has(x));
    const up = common === undefined ? fromAnchor : fromAnchor.slice(0, fromAnchor.indexOf(common));
    const down = (common === undefined ? fromO : fromO.slice(0, fromO.indexOf(common))).reverse();
    return { kind: 'reexpress', source: o, anchor, up, down, start };
  });
}

const isIdentity = (m: Float64Array, o: number): boolean =>
  m[o] === 1 &&
  m[o + 4] === 1 &&
  m[o + 8] === 1 &&
  m[o + 1] === 0 &&
  m[o + 2] === 0 &&
  m[o + 3] === 0 &&
  m[o + 5] === 0 &&
  m[o + 6] === 0 &&
  m[o + 7] === 0;

/** out = a · b (or aᵀ · b), 3×3 row-major; `out` may not alias. */
function multiply3(a: Float64Array, ao: number, transposeA: boolean, b: Float64Array, bo: number, out: Float64Array, oo: number): void {
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) {
      let sum = 0;
      for (let k = 0; k < 3; k++) sum += (transposeA ? a[ao + 3 * k + r] : a[ao + 3 * r + k]) * b[bo + 3 * k + c];
      out[oo + 3 * r + c] = sum;
    }
}

const IDENTITY9 = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

/**
 * Q_anchorᵀ · Q_source from one frame's relative rotations, as a product along the rule's path. Exact identity
 * factors are skipped, so a bone re-attached past a bone at rest keeps its rotation bit for bit.
 */
function reexpressedRotation(rule: BonePoseRule, R: Float64Array, base: number, out: Float64Array, oo: number): void {
  const acc = new Float64Array(9);
  const tmp = new Float64Array(9);
  acc.set(IDENTITY9);
  let started = false;
  // Anchor side: Q_anchorᵀ relative to L = (R_a1 … R_anchor)ᵀ = R_anchorᵀ · … · R_a1ᵀ, anchor first.
  for (const x of rule.up) {
    if (isIdentity(R, base + 9 * x)) continue;
    if (!started) {
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) acc[3 * r + c] = R[base + 9 * x + 3 * c + r];
      started = true;
      continue;
    }
    // acc · R_xᵀ = (R_x · accᵀ)ᵀ: compute directly.
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let k = 0; k < 3; k++) sum += acc[3 * r + k] * R[base + 9 * x + 3 * c + k];
        tmp[3 * r + c] = sum;
      }
    acc.set(tmp);
  }
  for (const x of rule.down) {
    if (isIdentity(R, base + 9 * x)) continue;
    if (!started) {
      acc.set(R.subarray(base + 9 * x, base + 9 * x + 9));
      started = true;
      continue;
    }
    multiply3(acc, 0, false, R, base + 9 * x, tmp, 0);
    acc.set(tmp);
  }
  out.set(acc, oo);
}

/** The same as reexpressedRotation for quaternions (x y z w). */
function reexpressedQuaternion(rule: BonePoseRule, q: Float64Array, out: Float64Array, oo: number): void {
  const acc = new Float64Array([0, 0, 0, 1]);
  let started = false;
  const conj = new Float64Array(4);
  const take = (x: number, conjugate: boolean): void => {
    if (q[4 * x] === 0 && q[4 * x + 1] === 0 && q[4 * x + 2] === 0 && q[4 * x + 3] === 1) return;
    const s = conjugate ? -1 : 1;
    conj.set([s * q[4 * x], s * q[4 * x + 1], s * q[4 * x + 2], q[4 * x + 3]]);
    if (!started) acc.set(conj);
    else quatMultiply(acc, 0, conj, 0, acc, 0);
    started = true;
  };
  for (const x of rule.up) take(x, true);
  for (const x of rule.down) take(x, false);
  out.set(acc, oo);
}

/** Rewritten sequences of one plan, so that `poses` and the clip it is stay one object. */
const rewritten = new WeakMap<BonePlan, Map<PoseSequence, PoseSequence>>();

/** A pose sequence for the plan's bones (the rule in BonePlan's comment); curves follow, see rewriteCurves. */
function rewritePoses(doc: SceneDocument, seq: PoseSequence, plan: BonePlan): PoseSequence {
  let memo = rewritten.get(plan);
  if (!memo) rewritten.set(plan, (memo = new Map<PoseSequence, PoseSequence>()));
  const known = memo.get(seq);
  if (known) return known;
  const before = doc.skeleton;
  const rules = poseRules(before, plan);
  const B = before.parents.length;
  const B2 = plan.source.length;
  let result: PoseSequence;
  if (seq.kind === 'quaternions') {
    const final = new Float64Array(4 * B2);
    rules.forEach((rule, b) => {
      if (rule.kind === 'rest') final[4 * b + 3] = 1;
      else if (rule.kind === 'copy') final.set(seq.final.subarray(4 * rule.source, 4 * rule.source + 4), 4 * b);
      else reexpressedQuaternion(rule, seq.final, final, 4 * b);
    });
    result = { kind: 'quaternions', boneCount: B2, final };
  } else {
    const { frameCount, rotations, translations } = seq;
    const R2 = new Float64Array(9 * B2 * frameCount);
    const T2 = translations ? new Float64Array(3 * B2 * frameCount) : undefined;
    const transforms = new Float64Array(12 * B);
    const needsTransforms = T2 !== undefined && rules.some((rule) => rule.kind === 'reexpress');
    for (let f = 0; f < frameCount; f++) {
      const base = 9 * B * f;
      if (needsTransforms)
        forwardKinematics(before, rotations.subarray(base, base + 9 * B), transforms, translations!.subarray(3 * B * f, 3 * B * (f + 1)));
      rules.forEach((rule, b) => {
        const o = 9 * (B2 * f + b);
        if (rule.kind === 'rest') R2.set(IDENTITY9, o);
        else if (rule.kind === 'copy') {
          R2.set(rotations.subarray(base + 9 * rule.source, base + 9 * rule.source + 9), o);
          T2?.set(translations!.subarray(3 * (B * f + rule.source), 3 * (B * f + rule.source) + 3), 3 * (B2 * f + b));
        } else {
          reexpressedRotation(rule, rotations, base, R2, o);
          if (T2) startTranslation(rule, transforms, T2, 3 * (B2 * f + b));
        }
      });
    }
    const curves = seq.curves && rewriteCurves(seq.curves, rules, plan);
    // A key stays a key of its bone; an inserted bone has none.
    let keys: Uint8Array | undefined;
    if (seq.keys) {
      keys = new Uint8Array(B2 * frameCount);
      for (let f = 0; f < frameCount; f++)
        rules.forEach((rule, b) => {
          if (rule.kind !== 'rest') keys![B2 * f + b] = seq.keys![B * f + rule.source];
        });
    }
    result = {
      kind: 'matrices',
      boneCount: B2,
      frameCount,
      rotations: R2,
      ...(T2 ? { translations: T2 } : {}),
      ...(seq.times ? { times: seq.times } : {}),
      ...(curves ? { curves } : {}),
      ...(keys ? { keys } : {}),
    };
  }
  memo.set(seq, result);
  return result;
}

/** t' = Q_anchorᵀ · (A_source s' − A_anchor s'), or A_source s' − s' for a root: the posed start kept. */
function startTranslation(rule: BonePoseRule, transforms: Float64Array, out: Float64Array, oo: number): void {
  const [x, y, z] = rule.start;
  const at = (b: number, r: number): number =>
    transforms[12 * b + 4 * r] * x +
    transforms[12 * b + 4 * r + 1] * y +
    transforms[12 * b + 4 * r + 2] * z +
    transforms[12 * b + 4 * r + 3];
  const d = [0, 1, 2].map((r) => at(rule.source, r) - (rule.anchor >= 0 ? at(rule.anchor, r) : rule.start[r]));
  for (let r = 0; r < 3; r++) {
    if (rule.anchor < 0) {
      out[oo + r] = d[r];
      continue;
    }
    const a = 12 * rule.anchor;
    out[oo + r] = transforms[a + r] * d[0] + transforms[a + 4 + r] * d[1] + transforms[a + 8 + r] * d[2];
  }
}

/**
 * The curves' per-bone arrays for the new bones: a kept bone keeps its joint node and inverse bind matrix; an
 * inserted bone takes its anchor's (it moves rigidly with its parent, so it evaluates to rest relative to it);
 * parentBone is the new parent, and a bone whose start moved gets its new rest start as head, so the curves'
 * evaluation re-expresses it the way the frames are (R' = Q_parentᵀ · Q_bone, t' from where its joint matrix carries
 * the new start). Undefined (the clip then plays its frames with SLERP) for an inserted root, which has no node.
 */
function rewriteCurves(curves: KeyframeCurves, rules: BonePoseRule[], plan: BonePlan): KeyframeCurves | undefined {
  if (rules.some((rule) => rule.kind === 'rest' && rule.anchor < 0)) return undefined;
  const B2 = rules.length;
  const jointNode = new Int32Array(B2);
  const inverseBind = new Float64Array(16 * B2);
  const heads = new Float64Array(3 * B2);
  rules.forEach((rule, b) => {
    const from = rule.kind === 'rest' ? rule.anchor : rule.source;
    jointNode[b] = curves.jointNode[from];
    inverseBind.set(curves.inverseBind.subarray(16 * from, 16 * from + 16), 16 * b);
    if (rule.kind === 'copy') heads.set(curves.heads.subarray(3 * from, 3 * from + 3), 3 * b);
    else heads.set(rule.start, 3 * b);
  });
  return { ...curves, jointNode, inverseBind, parentBone: Int32Array.from(plan.skeleton.parents), heads };
}
