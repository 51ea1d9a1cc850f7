/**
 * Two-bone inverse kinematics (an arm or a leg): the rotations of an upper and a lower bone that put the lower bone's
 * end joint on a target, with the middle joint in the plane of the upper bone's start, the target and a pole point.
 * Analytic: the law of cosines gives the middle joint, then each bone turns by the minimal rotation from its present
 * direction to the wanted one, so it keeps its twist about its own axis. Rotations follow libigl's convention
 * (forward-kinematics.ts): a bone's relative rotation R_b turns it about its rest start joint, composed with its
 * parent's absolute rotation, Q_b = Q_parent · R_b.
 */
import type { Skeleton } from './skeleton.ts';
import { scaledForwardKinematics } from './scaled-forward-kinematics.ts';
import type { Vec3 } from './bone-edits.ts';

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
 * @returns rotations: a new #B × 9 array; reached: false when the target is out of reach — farther than the two
 *          bones' lengths together (the chain then points straight at it) or nearer than their difference (the chain
 *          then folds back on itself, its end on the line toward the target)
 * @throws Error when a bone is out of range or `lower`'s parent is not `upper`, or the target or pole is not three
 *         finite numbers
 */
export function solveTwoBoneIk(input: TwoBoneIk): { rotations: Float64Array; reached: boolean } {
  const chain = chainOf(input, 'solveTwoBoneIk');
  checkPoint(input.target, 'target', 'solveTwoBoneIk');
  checkPoint(input.pole, 'pole', 'solveTwoBoneIk');
  const { a, b, c, l1, l2 } = chain;
  const target = [...input.target];
  const toTarget = sub(target, a);
  const d = norm(toTarget);
  const scale = l1 + l2;
  // The direction toward the target; at the upper start itself, the chain's present direction.
  let u = d > DEGENERATE * scale ? mul(toTarget, 1 / d) : normalized(sub(c, a));
  if (u === null) u = normalized(sub(b, a)) ?? [1, 0, 0];
  // The bend direction: the pole's offset from the line, else the present middle joint's, else any perpendicular.
  const v = perpendicular(sub([...input.pole], a), u) ?? perpendicular(sub(b, a), u) ?? anyPerpendicular(u);

  let reached = true;
  let middle: number[];
  let end: number[];
  if (d > scale) {
    reached = false;
    middle = add(a, mul(u, l1));
    end = add(a, mul(u, scale));
  } else if (d < Math.abs(l1 - l2)) {
    reached = false;
    // Folded: the longer bone points at the target, the shorter one back along it.
    const s = l1 >= l2 ? 1 : -1;
    middle = add(a, mul(u, s * l1));
    end = add(middle, mul(u, -s * l2));
  } else {
    // Law of cosines: the middle joint's distance along u and off the line.
    const along = d > 0 ? (d * d + l1 * l1 - l2 * l2) / (2 * d) : 0;
    const off = Math.sqrt(Math.max(0, l1 * l1 - along * along));
    middle = add(add(a, mul(u, along)), mul(v, off));
    end = target;
  }

  const rotations = Float64Array.from(input.rotations);
  const { skeleton } = input;
  const parentQ = absoluteRotation(skeleton, input.rotations, skeleton.parents[input.upper]);
  // Upper: Q_u' = Δ1 Q_u, so R_u' = Q_pᵀ Δ1 Q_p R_u.
  const delta1 = minimalRotation(sub(b, a), sub(middle, a));
  setRelative(rotations, input.upper, parentQ, delta1);
  // Lower: after the upper turned, its bone points along Δ1 (c − b); Q_l' = Δ2 Q_u' R_l, so R_l' = Q_u'ᵀ Δ2 Q_u' R_l.
  const upperQ = multiply(parentQ, rotations.subarray(9 * input.upper, 9 * input.upper + 9));
  const delta2 = minimalRotation(apply(delta1, sub(c, b)), sub(end, middle));
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
  const line = normalized(sub(c, a)) ?? normalized(sub(b, a)) ?? [1, 0, 0];
  let v = perpendicular(sub(b, a), line);
  if (v === null) {
    const { joints, bones } = input.skeleton;
    const rest = (j: number): number[] => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
    const ra = rest(bones[2 * input.upper]);
    const restBend = perpendicular(sub(rest(bones[2 * input.lower]), ra), normalized(sub(rest(bones[2 * input.lower + 1]), ra)) ?? line);
    const upperQ = absoluteRotation(input.skeleton, input.rotations, input.upper);
    v = (restBend && perpendicular(apply(upperQ, restBend), line)) ?? anyPerpendicular(line);
  }
  const pole = add(b, mul(v, l1 + l2));
  return [pole[0], pole[1], pole[2]];
}

/** The chain's posed joints: upper start a, middle b (the lower bone's start), lower end c; lengths |b − a|, |c − b|. */
function chainOf(
  input: Omit<TwoBoneIk, 'target' | 'pole'>,
  what: string,
): { a: number[]; b: number[]; c: number[]; l1: number; l2: number } {
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
  const posed = (bone: number, joint: number): number[] => {
    const x = joints[3 * joint],
      y = joints[3 * joint + 1],
      z = joints[3 * joint + 2];
    const o = 12 * bone;
    return [0, 1, 2].map(
      (r) => transforms[o + 4 * r] * x + transforms[o + 4 * r + 1] * y + transforms[o + 4 * r + 2] * z + transforms[o + 4 * r + 3],
    );
  };
  const a = posed(upper, bones[2 * upper]);
  const b = posed(lower, bones[2 * lower]);
  const c = posed(lower, bones[2 * lower + 1]);
  return { a, b, c, l1: norm(sub(b, a)), l2: norm(sub(c, b)) };
}

/** Q_b = Q_parent · R_b up the chain, row-major 3×3; the identity for -1 (the world). */
function absoluteRotation(skeleton: Skeleton, rotations: Float64Array, bone: number): Float64Array {
  const path: number[] = [];
  for (let x = bone; x >= 0; x = skeleton.parents[x]) path.push(x);
  let q: Float64Array = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  for (let i = path.length - 1; i >= 0; i--) q = multiply(q, rotations.subarray(9 * path[i], 9 * path[i] + 9));
  return q;
}

/** R_b ← Q_pᵀ · Δ · Q_p · R_b: bone b's absolute rotation turned by Δ in world axes, with Q_p its parent's. */
function setRelative(rotations: Float64Array, bone: number, parentQ: Float64Array, delta: Float64Array): void {
  const relative = rotations.slice(9 * bone, 9 * bone + 9);
  const turned = multiply(transpose(parentQ), multiply(delta, multiply(parentQ, relative)));
  rotations.set(turned, 9 * bone);
}

/**
 * The smallest rotation taking direction `from` to direction `to` (about their cross product), row-major 3×3, via
 * the half-way quaternion [from × to, 1 + from · to] normalized; opposite directions turn half a turn about a
 * perpendicular; a zero vector gives the identity.
 */
function minimalRotation(from: number[], to: number[]): Float64Array {
  const f = normalized(from);
  const t = normalized(to);
  if (f === null || t === null) return Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  const w = 1 + dot(f, t);
  let x: number, y: number, z: number, s: number;
  if (w < 1e-15) {
    [x, y, z] = anyPerpendicular(f);
    s = 0;
  } else {
    [x, y, z] = cross(f, t);
    s = w;
  }
  const n = Math.hypot(x, y, z, s);
  x /= n;
  y /= n;
  z /= n;
  s /= n;
  return Float64Array.of(
    1 - 2 * (y * y + z * z),
    2 * (x * y - s * z),
    2 * (x * z + s * y),
    2 * (x * y + s * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - s * x),
    2 * (x * z - s * y),
    2 * (y * z + s * x),
    1 - 2 * (x * x + y * y),
  );
}

function checkPoint(point: Vec3, what: string, where: string): void {
  if (point.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(point[i])))
    throw new Error(`${where}: the ${what} must be three finite numbers, not ${JSON.stringify(point)}`);
}

const sub = (p: readonly number[], q: readonly number[]): number[] => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
const add = (p: readonly number[], q: readonly number[]): number[] => [p[0] + q[0], p[1] + q[1], p[2] + q[2]];
const mul = (p: readonly number[], s: number): number[] => [p[0] * s, p[1] * s, p[2] * s];
const dot = (p: readonly number[], q: readonly number[]): number => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
const cross = (p: readonly number[], q: readonly number[]): number[] => [
  p[1] * q[2] - p[2] * q[1],
  p[2] * q[0] - p[0] * q[2],
  p[0] * q[1] - p[1] * q[0],
];
const norm = (p: readonly number[]): number => Math.hypot(p[0], p[1], p[2]);

function normalized(p: readonly number[]): number[] | null {
  const n = norm(p);
  return n > 0 && Number.isFinite(n) ? mul(p, 1 / n) : null;
}

/** The unit part of `p` perpendicular to unit `u`, or null when `p` lies on u's line (within rounding). */
function perpendicular(p: readonly number[], u: readonly number[]): number[] | null {
  const off = sub(p, mul(u, dot(p, u)));
  const n = norm(off);
  return n > 1e-9 * norm(p) && n > 0 ? mul(off, 1 / n) : null;
}

/** A unit vector perpendicular to unit `u`: its cross product with the world axis least along it. */
function anyPerpendicular(u: readonly number[]): number[] {
  const k = [0, 1, 2].reduce((best, i) => (Math.abs(u[i]) < Math.abs(u[best]) ? i : best), 0);
  const axis = [0, 0, 0];
  axis[k] = 1;
  return normalized(cross(u, axis))!;
}

function multiply(p: ArrayLike<number>, q: ArrayLike<number>): Float64Array {
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out[3 * r + c] = p[3 * r] * q[c] + p[3 * r + 1] * q[3 + c] + p[3 * r + 2] * q[6 + c];
  return out;
}

function transpose(p: ArrayLike<number>): Float64Array {
  return Float64Array.of(p[0], p[3], p[6], p[1], p[4], p[7], p[2], p[5], p[8]);
}

function apply(m: ArrayLike<number>, p: readonly number[]): number[] {
  return [0, 1, 2].map((r) => m[3 * r] * p[0] + m[3 * r + 1] * p[1] + m[3 * r + 2] * p[2]);
}
