/**
 * Trivial Graph Format skeletons as libigl reads them (`igl::readTGF`): node lines `i x y z [more columns]`
 * with 1-based i, a line starting with `#`, then edge lines `a b [flags]` with 1-based node indices.
 * Each edge is a bone from joint a to joint b; bones keep file order because rotations, handles and weights
 * are indexed by it.
 */
import { FormatError } from './format-error.ts';
import { TextScanner, describeNonFinite, exactNumberText } from './text-scanner.ts';
import type { TgfSkeleton } from './types.ts';
import { buildSkeleton, type Skeleton } from '../rig/skeleton.ts';

const HASH = 35;
const AXES = ['x', 'y', 'z'];

/**
 * Reads a TGF skeleton. Extra node columns (legacy weights, sometimes uninitialised garbage such as
 * `2.8e+199`) and edge flag columns are ignored without being parsed.
 * @param text the file's text
 * @param file file name for error messages
 * @returns joints #J × 3 (rest positions), bones #B × 2 (start, end joint), 0-based, in file order
 * @throws FormatError when nodes are not numbered 1..J in order, a coordinate is missing, non-numeric, NaN or
 *         infinite, an edge names a missing node or joins a node to itself, or there are no edges
 */
export function readTgf(text: string, file: string): TgfSkeleton {
  const scanner: TextScanner = new TextScanner(text, file);
  const joints: number[] = [];
  let separatorFound = false;
  while (!scanner.atEnd()) {
    if (!scanner.hasToken()) {
      scanner.nextLine();
      continue;
    }
    if (scanner.peek() === HASH) {
      separatorFound = true;
      scanner.nextLine();
      break;
    }
    const expected = joints.length / 3 + 1;
    const index = scanner.integer('node index');
    if (index !== expected) {
      scanner.fail(`node lines must be numbered 1, 2, 3, … in order: found node ${index} where node ${expected} was expected`);
    }
    for (let axis = 0; axis < 3; axis++) {
      if (!scanner.hasToken()) scanner.failShort(`node ${index} has no ${AXES[axis]} coordinate (a node line is 'index x y z')`);
      const value = scanner.number(`node ${index} ${AXES[axis]} coordinate`);
      if (!Number.isFinite(value)) scanner.fail(`node ${index} ${AXES[axis]} coordinate ${describeNonFinite(value)}`);
      joints.push(value);
    }
    scanner.nextLine();
  }
  const jointCount = joints.length / 3;
  const bones: number[] = [];
  while (!scanner.atEnd()) {
    if (!scanner.hasToken() || scanner.peek() === HASH) {
      scanner.nextLine();
      continue;
    }
    const bone = bones.length / 2;
    const start = scanner.integer(`bone ${bone} start node`);
    if (!scanner.hasToken()) scanner.failShort(`bone ${bone} has a start node but no end node (an edge line is 'start end')`);
    const end = scanner.integer(`bone ${bone} end node`);
    for (const node of [start, end]) {
      if (node < 1 || node > jointCount) {
        scanner.fail(`bone ${bone} names node ${node}, but the file defines nodes 1 to ${jointCount}`);
      }
    }
    if (start === end) scanner.fail(`bone ${bone} joins node ${start} to itself`);
    bones.push(start - 1, end - 1);
    scanner.nextLine();
  }
  if (bones.length === 0) {
    const reason = separatorFound
      ? `no bones: there are ${jointCount} nodes but no edge lines after the '#' line`
      : `no bones: there is no '#' line separating ${jointCount} nodes from the edge lines`;
    throw new FormatError(file, '', reason);
  }
  return { joints: Float64Array.from(joints), bones: Uint32Array.from(bones) };
}

/**
 * Writes a TGF, as readTgf reads it back: node lines `i x y z` (1-based; finite coordinates in full precision, so they
 * read back bit for bit), `#`, edge lines `a b` (1-based), `#`.
 * @param s joints #J × 3 rest joint positions, row-major; bones #B × 2 (start joint, end joint), 0-based, in bone order
 * @returns the file text
 */
export function writeTgf(s: TgfSkeleton): string {
  const lines: string[] = [];
  const { joints, bones } = s;
  for (let j = 0; j < joints.length / 3; j++) {
    lines.push(`${j + 1} ${exactNumberText(joints[3 * j])} ${exactNumberText(joints[3 * j + 1])} ${exactNumberText(joints[3 * j + 2])}`);
  }
  lines.push('#');
  for (let b = 0; b < bones.length / 2; b++) lines.push(`${bones[2 * b] + 1} ${bones[2 * b + 1] + 1}`);
  lines.push('#', '');
  return lines.join('\n');
}

/**
 * A skeleton as TGF, which says a bone's parent only by a shared joint (the parent ends where the child starts):
 * every bone whose start is away from its parent's end gets a connector bone from the parent's end joint to its
 * start joint, appended after the skeleton's own bones. Posed with the identity rotation and no weight, a
 * connector turns exactly with its parent (Q_connector = Q_parent), so its child moves as before.
 * @param skeleton a skeleton whose parents need not follow shared joints (e.g. imported from glTF)
 * @param file     the TGF's name, for messages
 * @returns the TGF (bones 0 … B − 1 as in the skeleton, then the connectors) and each connector's child bone
 */
export function tgfWithConnectors(skeleton: Skeleton, file: string): { tgf: TgfSkeleton; connectedBones: number[] } {
  const { joints, bones, parents } = skeleton;
  const shared = buildSkeleton({ joints, bones }, file).parents;
  const extra: number[] = [];
  const connectedBones: number[] = [];
  for (let b = 0; b < parents.length; b++) {
    const p = parents[b];
    if (p < 0 || shared[b] === p) continue;
    extra.push(bones[2 * p + 1], bones[2 * b]);
    connectedBones.push(b);
  }
  return { tgf: { joints: joints.slice(), bones: Uint32Array.from([...bones, ...extra]) }, connectedBones };
}
