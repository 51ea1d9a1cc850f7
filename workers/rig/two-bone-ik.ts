/**
 * Two-bone inverse kinematics (an arm or a leg): the rotations of an upper and a lower bone that put the lower bone's
 * end joint on a target, with the middle joint in the plane of the upper bone's start, the target and a pole point.
 * Analytic: the law of cosines gives the middle joint, then each bone turns by the minimal rotation from its present
 * direction to the wanted one, so it keeps its twist about its own axis. Rotations follow libigl's convention
 * (forward-kinematics.ts): a bone's relative rotation R_b turns it about its rest start joint, composed with its
 * parent's absolute rotation, Q_b = Q_parent · R_b.
 */
import { quatToMatrix } from '../math/quaternion.ts';
import { add, cross, dot, norm, normalize, scale, sub, transform, type Vec3 } from '../math/vec3.ts';
import { boneRotationIn, multiply3, multiplyTransposed3, parentWorldRotation } from './bone-rotations.ts';
import type { Skeleton } from './skeleton.ts';
import { scaledForwardKinematics } from './scaled-forward-kinematics.ts';

export interface TwoBoneIk {
  skeleton: Skeleton;
  /** #B × 9 row-major relative rotations now (the shown pose) */
  rotations: Float64Array;
  /** the upper bone (upper arm, thigh) */
  upper: number;
  /** the lower bone (forearm, shin); its parent must be `upper` */
  lower: number;
  /** where the lower bone's end joint should go, world units */
  target: Vec3;
  /** a world point: the middle joint lies in the plane of the upper bone's start, the target and the pole */
  pole: Vec3;
  /** #B × 3 bone scales (scaledForwardKinematics), or absent for all 1 */
  boneScales?: Float64Array;
  /** #B × 3 start-joint translations (PoseSequence), or absent for none */
  translations?: Float64Array;
}

/** Below this (world units, relative to the chain's length) a direction counts as undefined. */
const DEGENERATE = 1e-12;

/**
 * The rotations that put the lower bone's end joint on the target. Only `upper` and `lower` change; the upper bone's
 * start joint stays where its parent puts it. The chain's posed lengths (scales and translations included) are kept.
 * @returns rotations: a new #B × 9 array; reached: false when the target is out of reach, beyond rounding (1e-12 of
 *          the chain's length) — farther than the two bones' lengths together (the chain then points straight at it)
 *          or nearer than their difference (the chain then folds back on itself, its end on the line toward the
 *          target)
 * @throws Error when a bone is out of range or `lower`'s parent is not `upper`, or the target or pole is not three
 *         finite numbers
 */
export function solveTwoBoneIk(input: TwoBoneIk): { rotations: Float64Array; reached: boolean } {
  const chain = chainOf(input, 'solveTwoBoneIk');
  checkPoint(input.target, 'target', 'solveTwoBoneIk');
  checkPoint(input.pole, 'pole', 'solveTwoBoneIk');
  const { a, b, c, l1, l2 } = chain;
  const target = input.target;
  const toTarget = sub(target, a);
  const d = norm(toTarget);
  const reach = l1 + l2;
  // The direction toward the target; at the upper start itself, the chain's present direction.
  const u = (d > DEGENERATE * reach ? scale(toTarget, 1 / d) : null) ?? normalize(sub(c, a)) ?? normalize(sub(b, a)) ?? [1, 0, 0];
  // The bend direction: the pole's offset from the line, else the present middle joint's, else any perpendicular.
  const v = perpendicular(sub(input.pole, a), u) ?? perpendicular(sub(b, a), u) ?? anyPerpendicular(u);

  // Reach is judged up to rounding of the posed lengths, so a target exactly at a limit (a chain of equal bones
  // folded onto its start, a zero-length bone) counts as reached.
  const slack = DEGENERATE * reach;
  let reached = true;
  let middle: Vec3;
  let end: Vec3;
  if (d > reach + slack) {
    reached = false;
    middle = add(a, scale(u, l1));
    end = add(a, scale(u, reach));
  } else if (d < Math.abs(l1 - l2) - slack) {
    reached = false;
    // Folded: the longer bone points at the target, the shorter one back along it.
    const s = l1 >= l2 ? 1 : -1;
    middle = add(a, scale(u, s * l1));
    end = add(middle, scale(u, -s * l2));
  } else {
    // Law of cosines: the middle joint's distance along u and off the line.
    const along = d > 0 ? (d * d + l1 * l1 - l2 * l2) / (2 * d) : 0;
    const off = Math.sqrt(Math.max(0, l1 * l1 - along * along));
    middle = add(add(a, scale(u, along)), scale(v, off));
    end = target;
  }

  const rotations = Float64Array.from(input.rotations);
  const { skeleton } = input;
  const parentQ = new Float64Array(9);
  parentWorldRotation(skeleton, input.rotations, input.upper, parentQ);
  // Upper: Q_u' = Δ1 Q_u, so R_u' = Q_pᵀ Δ1 Q_p R_u.
  const delta1 = minimalRotation(sub(b, a), sub(middle, a));
  setRelative(rotations, input.upper, parentQ, delta1);
  // Lower: after the upper turned, its bone points along Δ1 (c − b); Q_l' = Δ2 Q_u' R_l, so R_l' = Q_u'ᵀ Δ2 Q_u' R_l.
  const upperQ = new Float64Array(9);
  boneRotationIn(skeleton, rotations, input.upper, 'global', upperQ);
  const delta2 = minimalRotation(transform(delta1, sub(c, b)), sub(end, middle));
  setRelative(rotations, input.lower, upperQ, delta2);
  return { rotations, reached };
}

/**
 * The default pole: the present middle joint pushed away from the line from the upper bone's start to the lower
 * bone's end, by the chain's length, so solving keeps the present bend plane. A straight chain has no bend plane:
 * the pole is then off the line along the upper bone's rest bend (the rest middle joint's offset from the rest
 * line, turned by the upper bone's absolute rotation), or, for a chain straight at rest too, along the world axis
 * most perpendicular to it.
 * @param input  the chain (target and pole are not read)
 * @returns a world point
 */
export function defaultPole(input: Omit<TwoBoneIk, 'target' | 'pole'>): Vec3 {
  const { a, b, c, l1, l2 } = chainOf(input, 'defaultPole');
  const line = normalize(sub(c, a)) ?? normalize(sub(b, a)) ?? [1, 0, 0];
  let v = perpendicular(sub(b, a), line);
  if (v === null) {
    const { joints, bones } = input.skeleton;
    const rest = (j: number): Vec3 => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
    const ra = rest(bones[2 * input.upper]);
    const restBend = perpendicular(sub(rest(bones[2 * input.lower]), ra), normalize(sub(rest(bones[2 * input.lower + 1]), ra)) ?? line);
    const upperQ = new Float64Array(9);
    boneRotationIn(input.skeleton, input.rotations, input.upper, 'global', upperQ);
    v = (restBend && perpendicular(transform(upperQ, restBend), line)) ?? anyPerpendicular(line);
  }
  return add(b, scale(v, l1 + l2));
}

/** The chain's posed joints: upper start a, middle b (the lower bone's start), lower end c; lengths |b − a|, |c − b|. */
function chainOf(input: Omit<TwoBoneIk, 'target' | 'pole'>, what: string): { a: Vec3; b: Vec3; c: Vec3; l1: number; l2: number } {
  const { skeleton, rotations, upper, lower } = input;
  const B = skeleton.parents.length;
  for (const [bone, name] of [
    [upper, 'upper'],
    [lower, 'lower'],
  ] as const)
    if (!Number.isInteger(bone) || bone < 0 || bone >= B)
      throw new Error(`${what}: the ${name} bone ${bone} is out of range: the skeleton has ${B} bones`);
  if (skeleton.parents[lower] !== upper)
    throw new Error(
      `${what}: bone ${lower} is not a child of bone ${upper} (its parent is ${skeleton.parents[lower] < 0 ? 'none' : `bone ${skeleton.parents[lower]}`})`,
    );
  if (rotations.length !== 9 * B) throw new Error(`${what}: ${rotations.length / 9} rotations for ${B} bones`);
  const transforms = new Float64Array(12 * B);
  scaledForwardKinematics(skeleton, rotations, input.boneScales ?? null, transforms, input.translations ?? null);
  const { joints, bones } = skeleton;
  const posed = (bone: number, joint: number): Vec3 => {
    const x = joints[3 * joint],
      y = joints[3 * joint + 1],
      z = joints[3 * joint + 2];
    const o = 12 * bone;
    const row = (r: number): number =>
      transforms[o + 4 * r] * x + transforms[o + 4 * r + 1] * y + transforms[o + 4 * r + 2] * z + transforms[o + 4 * r + 3];
    return [row(0), row(1), row(2)];
  };
  const a = posed(upper, bones[2 * upper]);
  const b = posed(lower, bones[2 * lower]);
  const c = posed(lower, bones[2 * lower + 1]);
  return { a, b, c, l1: norm(sub(b, a)), l2: norm(sub(c, b)) };
}

/** R_b ← Q_pᵀ · Δ · Q_p · R_b: bone b's absolute rotation turned by Δ in world axes, with Q_p its parent's. */
function setRelative(rotations: Float64Array, bone: number, parentQ: Float64Array, delta: Float64Array): void {
  const turned = new Float64Array(9);
  const other = new Float64Array(9);
  multiply3(parentQ, 0, rotations, 9 * bone, turned, 0); // Q_p R_b
  multiply3(delta, 0, turned, 0, other, 0); // Δ Q_p R_b
  multiplyTransposed3(parentQ, 0, other, 0, rotations, 9 * bone); // Q_pᵀ Δ Q_p R_b
}

/**
 * The smallest rotation taking direction `from` to direction `to` (about their cross product), row-major 3×3, from
 * the half-way quaternion [from × to, 1 + from · to] (quatToMatrix normalizes it); opposite directions turn half a
 * turn about a perpendicular; a zero vector gives the identity.
 */
function minimalRotation(from: Vec3, to: Vec3): Float64Array {
  const out = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  const f = normalize(from);
  const t = normalize(to);
  if (f === null || t === null) return out;
  const w = 1 + dot(f, t);
  quatToMatrix(w < 1e-15 ? [...anyPerpendicular(f), 0] : [...cross(f, t), w], 0, out, 0);
  return out;
}

function checkPoint(point: Vec3, what: string, where: string): void {
  if (point.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(point[i])))
    throw new Error(`${where}: the ${what} must be three finite numbers, not ${JSON.stringify(point)}`);
}

/** The unit part of `p` perpendicular to unit `u`, or null when `p` lies on u's line (within rounding). */
function perpendicular(p: Vec3, u: Vec3): Vec3 | null {
  const off = sub(p, scale(u, dot(p, u)));
  const n = norm(off);
  return n > 1e-9 * norm(p) && n > 0 ? scale(off, 1 / n) : null;
}

/** A unit vector perpendicular to unit `u`: its cross product with the world axis least along it. */
function anyPerpendicular(u: Vec3): Vec3 {
  const k = [0, 1, 2].reduce((best, i) => (Math.abs(u[i]) < Math.abs(u[best]) ? i : best), 0);
  const axis: [number, number, number] = [0, 0, 0];
  axis[k] = 1;
  return normalize(cross(u, axis))!;
}
