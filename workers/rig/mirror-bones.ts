/**
 * Mirroring across a symmetry plane `x_axis = plane`: copies of a limb's bones on the other side of the character (a
 * bone edit, like those of bone-edits.ts), and a pose mirrored (for pasting a pose mirrored). Bones pair with their
 * mirror images by name, then by position (mirrorBonePairs); names follow side-names.ts (+x is the character's left).
 */
import { boundingBox } from '../mesh/bounds.ts';
import { mirrorBonePairs } from '../paint/mirror-bone-pairs.ts';
import { NEW_BONE, boneNamesOf } from '../scene/bone-fields.ts';
import { boneCountOf, type SceneDocument } from '../scene/scene-document.ts';
import { BoneEditError, planned, type BoneEdit } from './bone-edits.ts';
import { mirroredName, sideOfName, sideStyleOf, withSide, type Side } from './side-names.ts';

export interface MirrorOptions {
  /** the axis across which to mirror: 0 = x (default), 1 = y, 2 = z */
  axis?: 0 | 1 | 2;
  /** where the plane crosses the axis; default symmetryPlane (the middle of the mesh's bounding box) */
  plane?: number;
}

/**
 * The default symmetry plane along an axis: the middle of the mesh's bounding box (of the skeleton's joints when the
 * mesh has no vertices).
 * @returns the plane's coordinate on `axis`, in mesh units
 */
export function symmetryPlane(doc: SceneDocument, axis: 0 | 1 | 2 = 0): number {
  const points = doc.mesh.positions.length > 0 ? doc.mesh.positions : doc.skeleton.joints;
  const { min, max } = boundingBox(points);
  return (min[axis] + max[axis]) / 2;
}

/**
 * The first bone of the limb `bone` belongs to: up its parents while the parent ends on the bone's side of the
 * symmetry plane and starts on that side or on the plane (a limb's first bone starts at the spine), so a click on any
 * bone of an arm mirrors the whole arm and not the spine it hangs from. A joint within mirrorBones' tolerance of the
 * plane is on it.
 * @param axis  the mirror axis (0 = x)
 * @returns a bone index
 */
export function limbRoot(doc: SceneDocument, bone: number, axis: 0 | 1 | 2): number {
  const { joints, bones, parents } = doc.skeleton;
  const plane = symmetryPlane(doc, axis);
  const tolerance = 1e-9 * Math.max(doc.diagonal, boundingBox(joints).diagonal);
  const side = (joint: number): number => {
    const d = joints[3 * joint + axis] - plane;
    return Math.abs(d) <= tolerance ? 0 : Math.sign(d);
  };
  const own = side(bones[2 * bone + 1]);
  let root = bone;
  for (let p = parents[root]; p >= 0; p = parents[p]) {
    const start = side(bones[2 * p]);
    if (side(bones[2 * p + 1]) !== own || (start !== own && start !== 0)) break;
    root = p;
  }
  return root;
}

/**
 * One edit: copies of `bones` and all their descendants (pass a chain's or subtree's root), mirrored across the
 * plane, appended after the last bone in parents-first order. A copy hangs from the copy of its parent; the copy of a
 * root of the subtree hangs from its parent's mirror partner, or from the same parent when that lies on the plane
 * (the spine) or has no partner; a copy starts where its parent ends when the original did, else at the reflected
 * start joint. Names: the originals that say no side get one by where they are (`.L` on the +axis side, in the style
 * the skeleton's names already use, `.L` by default), those that say one keep it (even on the other side of the
 * plane), and the copies get the mirrored names. The copies' weight columns
 * are 0 and their poses rest relative to their parents (as inserted bones); the binding is then stale.
 * @throws BoneEditError when a bone is out of range, a copied bone lies on the plane, or a name the edit gives is
 *         another bone's already (the limb was mirrored before)
 */
export function mirrorBones(doc: SceneDocument, bones: readonly number[], options: MirrorOptions = {}): BoneEdit {
  const axis = options.axis ?? 0;
  if (axis !== 0 && axis !== 1 && axis !== 2) throw new BoneEditError(`the mirror axis must be 0 (x), 1 (y) or 2 (z), not ${String(axis)}`);
  const plane = options.plane ?? symmetryPlane(doc, axis);
  if (!Number.isFinite(plane)) throw new BoneEditError(`the mirror plane must be a finite number, not ${plane}`);
  const { skeleton } = doc;
  const { joints, parents } = skeleton;
  const B = boneCountOf(doc);
  if (bones.length === 0) throw new BoneEditError('no bone to mirror');
  const inSet = new Uint8Array(B);
  for (let i = 0; i < bones.length; i++) {
    const b = bones[i];
    if (!Number.isInteger(b) || b < 0 || b >= B) throw new BoneEditError(`bone ${b} is out of range: the skeleton has ${B} bones`);
    inSet[b] = 1;
  }
  for (const b of skeleton.order) if (parents[b] >= 0 && inSet[parents[b]]) inSet[b] = 1;
  const copies = Array.from(skeleton.order).filter((b) => inSet[b]);
  const copyOf = new Int32Array(B).fill(-1);
  copies.forEach((o, k) => (copyOf[o] = B + k));

  const names = boneNamesOf(doc);
  const extent = Math.max(doc.diagonal, boundingBox(joints).diagonal);
  const onPlane = (j: number): boolean => Math.abs(joints[3 * j + axis] - plane) <= 1e-9 * extent;
  for (const o of copies)
    if (onPlane(skeleton.bones[2 * o]) && onPlane(skeleton.bones[2 * o + 1]))
      throw new BoneEditError(`${names[o]} lies on the mirror plane: it has no other side to copy to`);

  const pairs = mirrorBonePairs(doc.boneNames ? [...doc.boneNames] : null, skeleton, axis, undefined, plane);
  const newJoints: number[] = Array.from(joints);
  const reflected = new Map<number, number>();
  /** the joint at `j`'s mirror image: a new one, made once; `j` itself on the plane when `shareOnPlane` */
  const mirrorJoint = (j: number, shareOnPlane: boolean): number => {
    if (shareOnPlane && onPlane(j)) return j;
    let m = reflected.get(j);
    if (m === undefined) {
      m = newJoints.length / 3;
      newJoints.push(joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]);
      newJoints[3 * m + axis] = 2 * plane - joints[3 * j + axis];
      reflected.set(j, m);
    }
    return m;
  };
  const newBones: number[] = Array.from(skeleton.bones);
  const parentOf = new Map<number, number>();
  for (const o of copies) {
    const p = parents[o];
    const copyParent = p < 0 ? -1 : inSet[p] ? copyOf[p] : pairs[p] >= 0 ? pairs[p] : p;
    const start = skeleton.bones[2 * o];
    const fromParentEnd = p >= 0 && start === skeleton.bones[2 * p + 1];
    newBones.push(fromParentEnd ? newBones[2 * copyParent + 1] : mirrorJoint(start, true), mirrorJoint(skeleton.bones[2 * o + 1], false));
    parentOf.set(copyOf[o], copyParent);
  }

  // Names: the originals get a side where they say none; the copies the other side.
  const style = names.map(sideStyleOf).find((s) => s !== null) ?? '.L';
  const boneNames = [...names];
  const newNames = new Map<number, string>();
  for (const o of copies) {
    const s = skeleton.bones[2 * o];
    const e = skeleton.bones[2 * o + 1];
    // A name that says a side keeps it, whichever side the bone lies on: renaming the original is not the mirror's to do.
    const side: Side = (joints[3 * s + axis] + joints[3 * e + axis]) / 2 >= plane ? 'L' : 'R';
    if (sideOfName(names[o]) === null) boneNames[o] = withSide(names[o], side, style);
    newNames.set(copyOf[o], mirroredName(boneNames[o])!);
  }
  for (const [b, name] of newNames) boneNames[b] = name;
  const owner = new Map<string, number>();
  boneNames.forEach((name, b) => {
    const other = owner.get(name);
    if (other !== undefined) {
      const [first, second] = [other, b].map((x) => (x < B ? `bone ${x} (${names[x]})` : `the mirror of ${names[copies[x - B]]}`));
      throw new BoneEditError(`mirroring would name both ${first} and ${second} “${name}”: is the limb mirrored already?`);
    }
    owner.set(name, b);
  });

  const source = Int32Array.from({ length: B + copies.length }, (_, b) => (b < B ? b : NEW_BONE));
  const plan = { source, absorbs: new Map<number, number[]>(), names: newNames, keepsClipSources: true };
  const label = bones.length === 1 ? `Mirror ${names[bones[0]]}` : `Mirror ${copies.length} bones`;
  const edit = planned(doc, label, Float64Array.from(newJoints), Uint32Array.from(newBones), plan, parentOf);
  return { ...edit, fields: { ...edit.fields, boneNames, bindingStale: true } };
}

/**
 * A pose mirrored across the plane (paste mirrored): each bone takes its mirror partner's rotation reflected,
 * R'_b = M R_partner(b) M with M the reflection diag(±1) of the axis, so that on a symmetric skeleton the posed
 * skeleton is the mirror image of the original's; a bone without a partner, or on the plane, is reflected in place.
 * Partners by name, then by position across symmetryPlane (mirrorBonePairs).
 * @param rotations  #B × 9 row-major relative rotations
 * @returns #B × 9, a new array
 */
export function mirroredPose(doc: SceneDocument, rotations: Float64Array, axis: 0 | 1 | 2 = 0): Float64Array {
  const B = boneCountOf(doc);
  if (rotations.length !== 9 * B) throw new Error(`mirroredPose: ${rotations.length / 9} rotations for ${B} bones`);
  const pairs = mirrorBonePairs(doc.boneNames ? [...doc.boneNames] : null, doc.skeleton, axis, undefined, symmetryPlane(doc, axis));
  const out = new Float64Array(9 * B);
  for (let b = 0; b < B; b++) {
    const from = pairs[b] >= 0 ? pairs[b] : b;
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) {
        const flip = (r === axis) !== (c === axis) ? -1 : 1;
        out[9 * b + 3 * r + c] = flip * rotations[9 * from + 3 * r + c];
      }
  }
  return out;
}
