/**
 * Edits of the skeleton as pure functions on a scene document: each returns the label and fields of one
 * SceneStore.edit (one undo step), or throws a BoneEditError saying why the edit is refused. The input document and
 * its arrays are never changed. Every bone-indexed field is rewritten through the one list of them
 * (workers/scene/bone-fields.ts, BonePlan), and the new skeleton is made by buildSkeleton, so joints and bones are
 * checked and parents and order derived again (a glTF skeleton keeps its own hierarchy: see `planned`).
 *
 * Poses: every edit keeps each bone's posed world rotation at every frame, and where a sequence has start-joint
 * translations its whole posed transform (BonePlan). Without translations, a bone whose start joint moved (a child
 * re-attached to a deleted bone's start, a bone re-parented) turns about its new start joint.
 *
 * Binding: an edit of the skeleton's topology or rest joints (insert, delete, split, re-parent, move joints; the
 * mirror of mirror-bones.ts) marks the weights and handles stale (`bindingStale`): they are kept, carried to the new
 * bone numbering, and still deform the mesh until the user binds again. A rename or a reorder leaves the binding as it is.
 */
import type { SceneFields } from '../scene/scene-store.ts';
import { PROVISIONAL_WEIGHTS, boneCountOf, jointCountOf, noSkeleton, vertexCountOf, type SceneDocument } from '../scene/scene-document.ts';
import { NEW_BONE, boneNamesOf, rewriteBoneFields, type BonePlan } from '../scene/bone-fields.ts';
import { uniqueName } from '../scene/unique-name.ts';
import { boneNameProblem } from '../formats/bone-names.ts';
import { excerpt } from '../formats/text-scanner.ts';
import type { Vec3 } from '../math/vec3.ts';
import { buildSkeleton } from './skeleton.ts';

/** An edit the document cannot take; the message says why. */
export class BoneEditError extends Error {
  override readonly name = 'BoneEditError';
}

/** The fields and label of one store edit. */
export interface BoneEdit {
  label: string;
  fields: SceneFields;
  /**
   * #B old bones' new indices (-1 for a bone the edit removed), when the edit numbers the bones anew: what follows a
   * bone (the selection) follows it here; absent when every bone keeps its number
   */
  newIndexOf?: Int32Array;
}

export type { Vec3 };

export interface InsertBoneOptions {
  /** the bone the new one hangs from (it starts at its end joint), or null for a new root */
  parent: number | null;
  /** the new bone's end joint (a new joint) */
  tip: Vec3;
  /** a new root's start joint (a new joint); required for a root, refused otherwise */
  head?: Vec3;
  /** children of `parent` that now start at the new tip, so they become the new bone's children */
  takeChildren?: readonly number[];
  /** the new bone's name; default `bone <index>` (a name is only kept where the document has names or one is given) */
  name?: string;
}

/**
 * A new bone, appended as bone #B, from `parent`'s end joint (or a new joint at `head`) to a new joint at `tip`. Its
 * weight column is 0 (rows keep their sums), or 1 everywhere when it is the first bone of a skeleton-less scene (the
 * rows summed to 0), its pose is the rest relative to its parent (identity, no
 * translation), scale 1, unlocked; the taken children keep their posed world rotation. In the kept glTF it has no
 * node (jointNodes -1): in-place export makes one under its parent bone's node. The binding is then stale, except
 * after the first bone (nothing was bound before it).
 */
export function insertBone(doc: SceneDocument, options: InsertBoneOptions): BoneEdit {
  const { parent, tip, head, takeChildren = [], name } = options;
  const { skeleton } = doc;
  const B = boneCountOf(doc);
  const J = jointCountOf(doc);
  if (parent !== null) checkBone(doc, parent, 'parent');
  checkPoint(tip, 'tip');
  if (parent === null && head === undefined) throw new BoneEditError('a new root bone needs a head (its start joint)');
  if (parent !== null && head !== undefined)
    throw new BoneEditError(`a bone under ${boneName(doc, parent)} starts at its end joint; it takes no head`);
  if (head !== undefined) checkPoint(head, 'head');
  if (parent === null && takeChildren.length > 0) throw new BoneEditError('a new root bone has no parent to take children from');
  for (const c of takeChildren) {
    checkBone(doc, c, 'child');
    if (skeleton.parents[c] !== parent)
      throw new BoneEditError(`${boneName(doc, c)} is not a child of ${parent === null ? 'a root' : boneName(doc, parent)}`);
  }
  if (new Set(takeChildren).size !== takeChildren.length) throw new BoneEditError('a child is listed twice');
  if (name !== undefined) checkName(doc, name, -1);

  const joints = new Float64Array(3 * J + (head ? 6 : 3));
  joints.set(skeleton.joints);
  let start: number;
  let end = J;
  if (head) {
    joints.set(head, 3 * J);
    start = J;
    end = J + 1;
  } else {
    start = skeleton.bones[2 * parent! + 1];
  }
  joints.set(tip, 3 * end);
  const bones = new Uint32Array(2 * (B + 1));
  bones.set(skeleton.bones);
  bones[2 * B] = start;
  bones[2 * B + 1] = end;
  for (const c of takeChildren) bones[2 * c] = end;
  const source = Int32Array.from({ length: B + 1 }, (_, b) => (b < B ? b : NEW_BONE));
  const names = name === undefined ? undefined : new Map([[B, name]]);
  const parentOf = new Map([[B, parent ?? -1], ...takeChildren.map((c): [number, number] => [c, B])]);
  const plan = { source, absorbs: new Map<number, number[]>(), names, keepsClipSources: true };
  const edit = planned(doc, `Insert ${name ?? `bone ${B}`}`, joints, bones, plan, parentOf);
  if (B > 0) return staleBinding(edit);
  // The first bone of a bare mesh moves every vertex: its weight is 1 everywhere (bone distance to one bone). Nothing
  // was bound before it, so no binding goes stale.
  const V = doc.weights.rows;
  const weights = { rows: V, cols: 1, data: new Float64Array(V).fill(1) };
  return { ...edit, fields: { ...edit.fields, weights, weightsSource: PROVISIONAL_WEIGHTS } };
}

/**
 * Removes a bone. Its children re-attach to its parent: they start at its start joint, and its end joint (then
 * unused) goes, with the joints after it renumbered. Its weight column is added to its parent's (a root's to its
 * first child's, by index), so every row keeps its sum up to rounding; weight-solver handles on it move the same
 * way. Its children's relative rotations become R_deleted · R_child (their posed world rotation is kept); the glTF
 * keyframe curves' parentBone of the children becomes the deleted bone's parent, which makes the curves evaluate
 * the same. Refused for a root without children beside other bones (its weight would have nowhere to go); the only
 * bone deleted leaves the mesh bare (lastBoneDeleted).
 */
export function deleteBone(doc: SceneDocument, bone: number): BoneEdit {
  checkBone(doc, bone, 'bone');
  const { skeleton } = doc;
  const B = boneCountOf(doc);
  if (B === 1) return lastBoneDeleted(doc);
  const parent = skeleton.parents[bone];
  const children = childrenOf(doc, bone);
  if (parent < 0 && children.length === 0)
    throw new BoneEditError(`${boneName(doc, bone)} is a root without children: its weights would have no bone to go to`);
  const heir = parent >= 0 ? parent : children[0];
  const start = skeleton.bones[2 * bone];
  const kept = Array.from({ length: B }, (_, b) => b).filter((b) => b !== bone);
  const bones = new Uint32Array(2 * (B - 1));
  kept.forEach((o, b) => {
    bones[2 * b] = children.includes(o) ? start : skeleton.bones[2 * o];
    bones[2 * b + 1] = skeleton.bones[2 * o + 1];
  });
  const source = Int32Array.from(kept);
  const absorbs = new Map([[kept.indexOf(heir), [bone]]]);
  const { joints, bones: renumbered } = dropUnusedJoints(skeleton.joints, skeleton.bones, bones);
  return staleBinding(planned(doc, `Delete ${boneName(doc, bone)}`, joints, renumbered, { source, absorbs, keepsClipSources: true }));
}

/**
 * The only bone deleted: the mesh is bare again (noSkeleton, the rest pose), and what belonged to the bones goes with
 * them — weights, handles, poses and clips, examples, names, locks, scales, hand poses; a kept glTF source stays for
 * its materials and images (in-place export then has no joints of the file's to keep).
 */
function lastBoneDeleted(doc: SceneDocument): BoneEdit {
  return {
    label: `Delete ${boneName(doc, 0)}`,
    fields: { ...noSkeleton(doc.name, vertexCountOf(doc)), ...bonesReplacedFields(doc, 0), boneNames: undefined },
    newIndexOf: Int32Array.of(-1),
  };
}

/**
 * The fields of an edit that replaces every bone of `doc` by `boneCount` new ones, none kept (the only bone deleted, a
 * new skeleton: skeleton-build.ts): what belonged to the old bones goes — poses and clips, hand poses, weight-solver
 * handles, examples, paint locks, bone scales, the stale mark; a kept glTF source stays for its materials and images,
 * with no joint node for any new bone. The skeleton, its weights and names are the caller's.
 */
export function bonesReplacedFields(doc: SceneDocument, boneCount: number): SceneFields {
  return {
    poses: null,
    posesFile: null,
    posedBones: undefined,
    handles: null,
    handlesFile: null,
    clips: undefined,
    examples: undefined,
    paintLocks: undefined,
    boneScales: null,
    bindingStale: undefined,
    ...(doc.gltfSource ? { gltfSource: { ...doc.gltfSource, jointNodes: new Int32Array(boneCount).fill(-1) } } : {}),
  };
}

/**
 * Moves a bone (with its subtree) under another parent, or makes it a root. Rest joints do not move: the bone now
 * reaches from the new parent's end joint to its own end joint (a new root keeps its start position as a joint of
 * its own); an old start joint nothing uses any more goes. Poses: the bone keeps its posed world rotation at every
 * frame (R' = Q_newParentᵀ · Q_bone; at the final pose of a quaternion pose), and its subtree, whose relative
 * rotations stay, follows it; with start-joint translations its whole posed transform is kept. The clips are then no
 * longer what the file's animations say (its node would animate under another parent), so they lose `source`.
 * Refused when the new parent is the bone or below it (a cycle) or is already its parent.
 */
export function reparentBone(doc: SceneDocument, bone: number, newParent: number | null): BoneEdit {
  checkBone(doc, bone, 'bone');
  const { skeleton } = doc;
  const B = boneCountOf(doc);
  const J = jointCountOf(doc);
  const parent = skeleton.parents[bone];
  if (newParent === null) {
    if (parent < 0) throw new BoneEditError(`${boneName(doc, bone)} is already a root`);
  } else {
    checkBone(doc, newParent, 'new parent');
    if (newParent === parent) throw new BoneEditError(`${boneName(doc, newParent)} is already the parent of ${boneName(doc, bone)}`);
    for (let x = newParent; x >= 0; x = skeleton.parents[x])
      if (x === bone)
        throw new BoneEditError(`${boneName(doc, newParent)} is ${boneName(doc, bone)} or below it: re-parenting would create a cycle`);
  }
  const bones = Uint32Array.from(skeleton.bones);
  let joints = skeleton.joints;
  if (newParent === null) {
    const s = 3 * skeleton.bones[2 * bone];
    joints = new Float64Array(3 * J + 3);
    joints.set(skeleton.joints);
    joints.set(skeleton.joints.subarray(s, s + 3), 3 * J);
    bones[2 * bone] = J;
  } else {
    bones[2 * bone] = skeleton.bones[2 * newParent + 1];
  }
  const source = Int32Array.from({ length: B }, (_, b) => b);
  const compact = dropUnusedJoints(skeleton.joints, skeleton.bones, bones, joints);
  const label = `Re-parent ${boneName(doc, bone)} ${newParent === null ? 'to the root' : `under ${boneName(doc, newParent)}`}`;
  const plan = { source, absorbs: new Map<number, number[]>(), keepsClipSources: false };
  return staleBinding(planned(doc, label, compact.joints, compact.bones, plan, new Map([[bone, newParent ?? -1]])));
}

/**
 * New rest positions of some joints. Bones keep their numbers, and nothing else changes but the binding, now stale:
 * poses stay as they are (relative rotations turn about the moved joints), and the glTF keyframe curves keep the
 * file's bone heads, so they still evaluate to the stored frames.
 */
export function moveJoints(doc: SceneDocument, moves: readonly { joint: number; position: Vec3 }[]): BoneEdit {
  const J = jointCountOf(doc);
  if (moves.length === 0) throw new BoneEditError('no joint to move');
  const seen = new Set<number>();
  const joints = Float64Array.from(doc.skeleton.joints);
  for (const { joint, position } of moves) {
    if (!Number.isInteger(joint) || joint < 0 || joint >= J)
      throw new BoneEditError(`joint ${joint} is out of range: the skeleton has ${J} joints`);
    if (seen.has(joint)) throw new BoneEditError(`joint ${joint} is moved twice`);
    seen.add(joint);
    checkPoint(position, `joint ${joint}'s position`);
    joints.set(position, 3 * joint);
  }
  // The bones and their hierarchy stay; a new skeleton object, so views see that it changed.
  const skeleton = { ...doc.skeleton, joints };
  const label = moves.length === 1 ? `Move joint ${moves[0].joint}` : `Move ${moves.length} joints`;
  return { label, fields: { skeleton, bindingStale: true } };
}

/** A new name for a bone. The document gets names (`bone 0`, `bone 1`, …) when it had none. */
export function renameBone(doc: SceneDocument, bone: number, name: string): BoneEdit {
  checkBone(doc, bone, 'bone');
  checkName(doc, name, bone);
  const old = boneName(doc, bone);
  const boneNames = [...boneNamesOf(doc)];
  boneNames[bone] = name;
  return { label: `Rename ${old} to ${name}`, fields: { boneNames } };
}

/**
 * Numbers the bones anew: new bone i is old bone order[i]. Every bone-indexed field is permuted the same way; joints
 * keep their numbers, poses their values.
 */
export function reorderBones(doc: SceneDocument, order: readonly number[]): BoneEdit {
  const B = boneCountOf(doc);
  if (order.length !== B) throw new BoneEditError(`the order lists ${order.length} bones, the skeleton has ${B}`);
  const seen = new Uint8Array(B);
  for (const o of order) {
    if (!Number.isInteger(o) || o < 0 || o >= B) throw new BoneEditError(`bone ${o} is out of range: the skeleton has ${B} bones`);
    if (seen[o]) throw new BoneEditError(`bone ${o} is listed twice: the order must name every bone once`);
    seen[o] = 1;
  }
  const bones = new Uint32Array(2 * B);
  order.forEach((o, b) => bones.set(doc.skeleton.bones.subarray(2 * o, 2 * o + 2), 2 * b));
  const source = Int32Array.from(order);
  return planned(doc, 'Reorder bones', doc.skeleton.joints, bones, {
    source,
    absorbs: new Map<number, number[]>(),
    keepsClipSources: true,
  });
}

/**
 * Splits a bone in two at a new joint `at` of the way from its start to its end. The first half keeps the bone's
 * number, name, weight column, handles, scale and pose; the second half is appended as bone #B, from the new joint to
 * the old end, with the old bone's children under it (they keep their start joint and pose). Weights: the second
 * half's column is 0 (rows keep their sums; a rebind shares the weight out); poses: it is at rest relative to the
 * first half, so every bone keeps its posed transform. Names, where the document has them: the second half is the
 * first's name with the first free `.001`, `.002`, … suffix. The binding is then stale (the rest joints changed).
 * @param at  where along the bone the new joint goes, strictly between 0 (start) and 1 (end)
 */
export function splitBone(doc: SceneDocument, bone: number, at = 0.5): BoneEdit {
  checkBone(doc, bone, 'bone');
  if (!(at > 0 && at < 1)) throw new BoneEditError(`a bone splits strictly between its start (0) and its end (1), not at ${at}`);
  const { skeleton } = doc;
  const B = boneCountOf(doc);
  const J = jointCountOf(doc);
  const s = skeleton.bones[2 * bone];
  const e = skeleton.bones[2 * bone + 1];
  const joints = new Float64Array(3 * J + 3);
  joints.set(skeleton.joints);
  for (let k = 0; k < 3; k++)
    joints[3 * J + k] = skeleton.joints[3 * s + k] + at * (skeleton.joints[3 * e + k] - skeleton.joints[3 * s + k]);
  const bones = new Uint32Array(2 * (B + 1));
  bones.set(skeleton.bones);
  bones[2 * bone + 1] = J;
  bones[2 * B] = J;
  bones[2 * B + 1] = e;
  const source = Int32Array.from({ length: B + 1 }, (_, b) => (b < B ? b : NEW_BONE));
  // The bone's own name is taken, so the second half gets the first free suffix.
  const names = doc.boneNames && new Map([[B, uniqueName(new Set(doc.boneNames), doc.boneNames[bone])]]);
  const parentOf = new Map([[B, bone], ...childrenOf(doc, bone).map((c): [number, number] => [c, B])]);
  const plan = { source, absorbs: new Map<number, number[]>(), names, keepsClipSources: true };
  return staleBinding(planned(doc, `Split ${boneName(doc, bone)}`, joints, bones, plan, parentOf));
}

/**
 * The edit's fields: the new skeleton and every bone-indexed field rewritten for the plan. The skeleton is made by
 * buildSkeleton, which checks joints and bones and derives the parents from them. A document whose hierarchy is not
 * the one its joints imply (a glTF skeleton: a bone's later children start at their own heads, not at its end) keeps
 * its own: each new bone's parent is its source's parent renumbered (a deleted parent's parent in its place), or
 * the one the edit gives it in `parentOf`. Edits kept in modules of their own (mirror-bones.ts) make their fields here
 * too.
 */
export function planned(
  doc: SceneDocument,
  label: string,
  joints: Float64Array,
  bones: Uint32Array,
  plan: Omit<BonePlan, 'skeleton'>,
  parentOf: ReadonlyMap<number, number> = new Map(),
): BoneEdit {
  const built = buildSkeleton({ joints, bones }, skeletonFileOf(doc));
  const newIndex = new Int32Array(boneCountOf(doc)).fill(-1);
  plan.source.forEach((o, b) => {
    if (o !== NEW_BONE) newIndex[o] = b;
  });
  const oldParents = doc.skeleton.parents;
  const parents = Int32Array.from(plan.source, (o, b) => {
    const given = parentOf.get(b);
    if (given !== undefined) return given;
    let p = o === NEW_BONE ? -1 : oldParents[o];
    while (p >= 0 && newIndex[p] < 0) p = oldParents[p];
    return p >= 0 ? newIndex[p] : -1;
  });
  const skeleton = parents.every((p, b) => p === built.parents[b]) ? built : { ...built, parents, order: parentsFirst(parents) };
  const renumbered = newIndex.some((n, o) => n !== o);
  return { label, fields: { skeleton, ...rewriteBoneFields(doc, { ...plan, skeleton }) }, ...(renumbered ? { newIndexOf: newIndex } : {}) };
}

/**
 * The edit, marking the binding stale: it changes the skeleton's topology or rest joints, which the weights and
 * handles were made for. They are kept (and carried by the edit) until the user binds again.
 */
function staleBinding(edit: BoneEdit): BoneEdit {
  return { ...edit, fields: { ...edit.fields, bindingStale: true } };
}

/** Bones parents first, as buildSkeleton orders them: the roots by index, then breadth-first, children by index. */
function parentsFirst(parents: Int32Array): Uint32Array {
  const B = parents.length;
  const order = new Uint32Array(B);
  let count = 0;
  for (let b = 0; b < B; b++) if (parents[b] < 0) order[count++] = b;
  for (let head = 0; head < count; head++) for (let c = 0; c < B; c++) if (parents[c] === order[head]) order[count++] = c;
  if (count < B) throw new BoneEditError('the edit would make the bones a cycle');
  return order;
}

/**
 * Joints the edit left unused (used by `before`, by no bone of `after`) removed, the others renumbered in order.
 * Joints no bone used before stay, as the file had them.
 * @param joints  the joints `after` indexes (the old ones, or the old ones with new ones appended)
 */
function dropUnusedJoints(
  oldJoints: Float64Array,
  before: Uint32Array,
  after: Uint32Array,
  joints: Float64Array = oldJoints,
): { joints: Float64Array; bones: Uint32Array } {
  const J = joints.length / 3;
  const used = new Uint8Array(J);
  for (const j of after) used[j] = 1;
  const drop = new Uint8Array(J);
  for (const j of before) if (!used[j]) drop[j] = 1;
  if (!drop.includes(1)) return { joints, bones: after };
  const index = new Int32Array(J);
  const kept: number[] = [];
  for (let j = 0; j < J; j++) {
    index[j] = kept.length;
    if (!drop[j]) kept.push(j);
  }
  const out = new Float64Array(3 * kept.length);
  kept.forEach((j, k) => out.set(joints.subarray(3 * j, 3 * j + 3), 3 * k));
  return { joints: out, bones: after.map((j) => index[j]) };
}

function childrenOf(doc: SceneDocument, bone: number): number[] {
  const children: number[] = [];
  doc.skeleton.parents.forEach((p, b) => {
    if (p === bone) children.push(b);
  });
  return children;
}

const skeletonFileOf = (doc: SceneDocument): string => doc.skeletonFile ?? doc.name;

/** How messages and labels call a bone: its name, or `bone <index>`. */
function boneName(doc: SceneDocument, bone: number): string {
  return doc.boneNames?.[bone] ?? `bone ${bone}`;
}

function checkBone(doc: SceneDocument, bone: number, what: string): void {
  const B = boneCountOf(doc);
  if (!Number.isInteger(bone) || bone < 0 || bone >= B)
    throw new BoneEditError(`${what} ${bone} is out of range: the skeleton has ${B} bones`);
}

function checkPoint(point: Vec3, what: string): void {
  // An index loop: every() skips the holes of a sparse array.
  if (point.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(point[i])))
    throw new BoneEditError(`the ${what} must be three finite numbers, not ${JSON.stringify(point)}`);
}

/** A usable name for `bone` (-1: a new bone): a bone name (boneNameProblem), not another bone's. */
function checkName(doc: SceneDocument, name: string, bone: number): void {
  const problem = boneNameProblem(name);
  if (problem !== null) throw new BoneEditError(`${problem}: “${excerpt(name)}”`);
  const other = boneNamesOf(doc).indexOf(name);
  if (other >= 0 && other !== bone) throw new BoneEditError(`the name “${name}” is already used by bone ${other}`);
}
