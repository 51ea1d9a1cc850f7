/**
 * A whole new skeleton for a document: made from joint positions and a parent per joint (a JSON file, a script),
 * or given (a fitted template), and put into the document as one bone edit that replaces the old skeleton with
 * everything indexed by its bones.
 */
import { boneNameProblem } from '../formats/bone-names.ts';
import { FormatError } from '../formats/format-error.ts';
import { PROVISIONAL_WEIGHTS, boneCountOf, type SceneDocument } from '../scene/scene-document.ts';
import { boneDistanceWeights } from '../weights/bone-distance-weights.ts';
import { bonesReplacedFields, type BoneEdit } from './bone-edits.ts';
import { buildSkeleton } from './skeleton.ts';

/** A skeleton as joints, bones and one name per bone. */
export interface NamedSkeleton {
  /** #J × 3 rest joint positions */
  joints: Float64Array;
  /** #B × 2 start joint, end joint (0-based) */
  bones: Uint32Array;
  /** #B bone names */
  names: string[];
}

/**
 * A skeleton from joint positions and, per joint, its parent joint (-1 for the root or roots): one bone per non-root
 * joint, from its parent joint to it, in joint order.
 * @param input  joints: #J points [x, y, z]; parents: #J parent joint indices or -1; names (optional): #J names, the
 *               one of a non-root joint naming the bone that ends there (a root's is not used); default `bone <index>`
 * @param file   the input's name, for messages
 * @returns joints #J × 3, bones #B × 2 (B = the non-root joints), names #B
 * @throws FormatError naming the file and the entry (`joints[3]`, `parents[5]`, `names[2]`) when an entry is not three
 *         finite numbers, a parent is not an integer joint index or -1, a joint is its own ancestor (a cycle), a name
 *         is not a string, no bone name (boneNameProblem) or repeated, the arrays' lengths differ, or no joint has a
 *         parent (no bone)
 */
export function skeletonFromJointTree(input: { joints: number[][]; parents: number[]; names?: string[] }, file: string): NamedSkeleton {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FormatError(file, '', 'expected an object with "joints" and "parents" (and optionally "names")');
  const { joints, parents, names } = input as { joints: unknown; parents: unknown; names?: unknown };
  if (!Array.isArray(joints)) throw new FormatError(file, 'joints', 'must be a list of [x, y, z] points');
  if (!Array.isArray(parents)) throw new FormatError(file, 'parents', 'must be a list with one parent joint index (or -1) per joint');
  const J = joints.length;
  if (parents.length !== J) throw new FormatError(file, 'parents', `has ${parents.length} entries, but there are ${J} joints`);
  const positions = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    const p: unknown = joints[j];
    if (!Array.isArray(p) || p.length !== 3 || !p.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new FormatError(file, `joints[${j}]`, 'must be three finite numbers [x, y, z]');
    positions.set(p as number[], 3 * j);
  }
  const parentOf = new Int32Array(J);
  for (let j = 0; j < J; j++) {
    const p: unknown = parents[j];
    if (typeof p !== 'number' || !Number.isInteger(p) || p < -1 || p >= J)
      throw new FormatError(file, `parents[${j}]`, `must be a joint index from 0 to ${J - 1}, or -1 for a root`);
    if (p === j) throw new FormatError(file, `parents[${j}]`, 'a joint cannot be its own parent');
    parentOf[j] = p;
  }
  // A chain up from a joint that runs longer than J steps goes round a cycle.
  for (let j = 0; j < J; j++) {
    let x = j;
    for (let steps = 0; x >= 0; steps++) {
      if (steps > J) throw new FormatError(file, `parents[${j}]`, `joint ${j} is its own ancestor: the parents form a cycle`);
      x = parentOf[x];
    }
  }
  if (names !== undefined) {
    if (!Array.isArray(names)) throw new FormatError(file, 'names', 'must be a list with one name per joint');
    if (names.length !== J) throw new FormatError(file, 'names', `has ${names.length} entries, but there are ${J} joints`);
  }
  const bones: number[] = [];
  const boneNames: string[] = [];
  const usedBy = new Map<string, number>();
  for (let j = 0; j < J; j++) {
    if (parentOf[j] < 0) continue;
    const name: unknown = names ? names[j] : `bone ${bones.length / 2}`;
    if (typeof name !== 'string') throw new FormatError(file, `names[${j}]`, 'must be a string');
    const problem = boneNameProblem(name);
    if (problem !== null) throw new FormatError(file, `names[${j}]`, problem);
    const other = usedBy.get(name);
    if (other !== undefined)
      throw new FormatError(file, `names[${j}]`, `the name '${name}' is already joint ${other}'s: bone names must differ`);
    usedBy.set(name, j);
    bones.push(parentOf[j], j);
    boneNames.push(name);
  }
  if (bones.length === 0)
    throw new FormatError(file, 'parents', 'every joint is a root: a skeleton needs at least one joint with a parent');
  return { joints: positions, bones: Uint32Array.from(bones), names: boneNames };
}

/**
 * One edit that gives `doc` this skeleton in place of its own (which may have no bones, a bare mesh). Weights are
 * provisional, by bone distance (boneDistanceWeights, weightsSource PROVISIONAL_WEIGHTS) until the user binds; the
 * pose, the hand-posed bones, handles, clips and examples are dropped (they belong to the old bones); names are set;
 * paint locks and bone scales are reset; the binding is up to date (the weights are made for these bones). A kept
 * glTF source keeps its file for in-place export, with no joint node for any bone (export makes them, as for an
 * inserted bone).
 * @param doc       the document (not changed)
 * @param skeleton  joints #J × 3, bones #B × 2 (each bone's parent ends where it starts), names #B
 * @param file      the skeleton's file name (skeletonFile), e.g. `body.tgf` or `template humanoid`
 * @param label     the undo step's label, e.g. `Fit humanoid template`
 * @returns the edit; newIndexOf maps every old bone to -1 (none of them is kept)
 * @throws FormatError naming `file` when the skeleton's bones name missing joints, a joint ends two bones or the
 *         bones form a cycle (buildSkeleton), when there are no bones, or when the names are not one per bone,
 *         bone names (boneNameProblem) and distinct
 */
export function replaceSkeleton(
  doc: SceneDocument,
  skeleton: { joints: Float64Array; bones: Uint32Array; names: readonly string[] },
  file: string,
  label: string,
): BoneEdit {
  const built = buildSkeleton({ joints: skeleton.joints, bones: skeleton.bones }, file);
  const B = built.parents.length;
  if (B === 0) throw new FormatError(file, '', 'the skeleton has no bones');
  if (skeleton.names.length !== B) throw new FormatError(file, 'names', `${skeleton.names.length} names for ${B} bones`);
  const seen = new Map<string, number>();
  skeleton.names.forEach((name, b) => {
    if (typeof name !== 'string') throw new FormatError(file, `bone ${b}`, 'its name must be a string');
    const problem = boneNameProblem(name);
    if (problem !== null) throw new FormatError(file, `bone ${b}`, problem);
    const other = seen.get(name);
    if (other !== undefined)
      throw new FormatError(file, `bone ${b}`, `the name '${name}' is already bone ${other}'s: bone names must differ`);
    seen.set(name, b);
  });
  const weights = boneDistanceWeights(doc.mesh.positions, built);
  return {
    label,
    fields: {
      skeleton: built,
      skeletonFile: file,
      boneNames: [...skeleton.names],
      weights,
      weightsSource: PROVISIONAL_WEIGHTS,
      ...bonesReplacedFields(doc, B),
    },
    newIndexOf: new Int32Array(boneCountOf(doc)).fill(-1),
  };
}
