/**
 * What a libigl DMAT matrix is for. The file format does not say; Rigwright reads four kinds:
 *   weights  #V × #B, rows summing to 1 (weights-file.ts)
 *   poses    3·B·L × 3 relative rotation matrices, L frames of B bones, or 4B × 1 quaternions x y z w (pose-file.ts)
 *   handles  #V × 1, the bone of each handle vertex or -1 (weights-file.ts)
 *   animation  12·B × L absolute bone transforms, one column per frame, as libigl's tutorial 408 stores them
 *            (transform-animation.ts), read as a clip
 * dmatReadings judges a matrix alone, by shape and values; dmatFits and dmatRole judge it against a mesh with #V
 * vertices and a skeleton with #B bones, by shape. A fourth kind belongs to a pose file and is read with it:
 *   translations  B·L × 3 start-joint translations of a clip's poses (pose-file.ts withTranslationsFromDmat), which
 *                 `rigwright import` writes as NAME-translations-CLIP.dmat; canBeTranslations judges it
 *   key times     L × 1 seconds, ≥ 0 and increasing, the key times of a clip's L frames, which `rigwright import`
 *                 writes as NAME-times-CLIP.dmat and `rigwright export --times` reads; canBeKeyTimes judges it
 */
import { FormatError } from './format-error.ts';
import { poseSequenceFromDmat } from './pose-file.ts';
import { fitsTransformAnimation, readsAsTransformAnimation, TRANSFORM_ENTRIES } from './transform-animation.ts';
import { weightsFromDmat } from './weights-file.ts';
import type { DenseMatrix } from './types.ts';

export type DmatRole = 'weights' | 'poses' | 'handles' | 'animation';

/** One way a matrix can be read, with the counts it implies. */
export type DmatReading =
  | { role: 'poses'; layout: 'rotation-matrices'; rotationCount: number }
  | { role: 'poses'; layout: 'quaternions'; boneCount: number }
  | { role: 'handles'; vertexCount: number; largestBone: number; freeVertexCount: number }
  | { role: 'animation'; boneCount: number; frameCount: number }
  | { role: 'weights'; vertexCount: number; boneCount: number };

/** Largest deviation of a quaternion's length from 1 for a column to read as final-pose quaternions. */
const UNIT_QUATERNION_TOLERANCE = 1e-3;
/** The readers below want a file name for their messages; dmatReadings only asks whether they accept. */
const UNNAMED = 'matrix';

/**
 * Every reading a matrix allows with no mesh or skeleton to compare with:
 *   poses, rotation matrices  3k × 3 and every 3×3 block a rotation (k = B·L)
 *   poses, quaternions        4k × 1 and every quaternion of unit length to within 1e-3 (k = B)
 *   handles                   n × 1 of whole numbers ≥ -1, at least one of them a bone (≥ 0)
 *   animation                 12·B × L and every bone's 3×3 part in every column a rotation (readsAsTransformAnimation)
 *   weights                   n × m of finite values that weightsFromDmat takes without a warning (no negative
 *                             weight, rows summing to 1 or all zero: static vertices), some row weighted, and with
 *                             one column no row zero
 * @param m  the matrix as read (row-major)
 * @returns the readings in that order; empty when the matrix fits none
 */
export function dmatReadings(m: DenseMatrix): DmatReading[] {
  const { rows, cols, data } = m;
  const readings: DmatReading[] = [];
  if (rows === 0) return readings;
  if (cols === 3 && rows % 3 === 0 && acceptsAsPoses(m)) {
    readings.push({ role: 'poses', layout: 'rotation-matrices', rotationCount: rows / 3 });
  }
  if (cols === 1 && rows % 4 === 0) {
    let unit = true;
    for (let q = 0; q < rows && unit; q += 4) {
      unit = Math.abs(Math.hypot(data[q], data[q + 1], data[q + 2], data[q + 3]) - 1) <= UNIT_QUATERNION_TOLERANCE;
    }
    if (unit) readings.push({ role: 'poses', layout: 'quaternions', boneCount: rows / 4 });
  }
  if (cols === 1 && isHandleColumn(data)) {
    let largestBone = -1;
    let freeVertexCount = 0;
    for (const h of data) {
      if (h > largestBone) largestBone = h;
      if (h === -1) freeVertexCount++;
    }
    if (largestBone >= 0) readings.push({ role: 'handles', vertexCount: rows, largestBone, freeVertexCount });
  }
  if (readsAsTransformAnimation(m)) readings.push({ role: 'animation', boneCount: rows / TRANSFORM_ENTRIES, frameCount: cols });
  // weightsFromDmat throws on a value that is not finite; readDmat never returns one, but other callers might.
  if (data.every(Number.isFinite)) {
    const read = weightsFromDmat(m, rows, cols, UNNAMED);
    // One bone's weights bind every vertex: a column of 0s and 1s is labels (handles, quaternions), not weights.
    if (read.warnings.length === 0 && read.staticRows < rows && (cols > 1 || read.staticRows === 0))
      readings.push({ role: 'weights', vertexCount: rows, boneCount: cols });
  }
  return readings;
}

/**
 * Whether a matrix can be start-joint translations for some pose file: three columns of finite values, and not
 * rotation-matrix poses itself (translations whose every 3×3 block is a rotation do not occur; a pose file does).
 * The bone and frame counts it fits come from the skeleton and the pose file it goes with: B·L rows.
 */
export function canBeTranslations(m: DenseMatrix): boolean {
  return m.cols === 3 && m.rows > 0 && m.data.every(Number.isFinite) && !(m.rows % 3 === 0 && acceptsAsPoses(m));
}

/**
 * Whether a matrix can be the key times of a clip (`rigwright export --times`): one column of finite seconds ≥ 0,
 * strictly increasing. It goes with a pose file of as many frames as it has rows. A column of whole numbers
 * (0, 1, 2: a clip keyed each second) is also a handles file in shape; the files given with it decide.
 */
export function canBeKeyTimes(m: DenseMatrix): boolean {
  const { rows, cols, data } = m;
  if (cols !== 1 || rows === 0) return false;
  for (let f = 0; f < rows; f++) if (!(Number.isFinite(data[f]) && data[f] >= 0 && (f === 0 || data[f] > data[f - 1]))) return false;
  return true;
}

/** With one bone per frame every 3×3 block is a frame, so the pose reader checks that all blocks are rotations. */
function acceptsAsPoses(m: DenseMatrix): boolean {
  try {
    poseSequenceFromDmat(m, 1, UNNAMED);
    return true;
  } catch (error) {
    if (error instanceof FormatError) return false;
    throw error;
  }
}

/**
 * Whether a matrix has the shape of `role` for this mesh and skeleton (values are the readers' to check):
 * weights #V × #B; poses 3·B·L × 3 for some L ≥ 1, or 4B × 1; handles #V × 1; animation 12·B × L for some L ≥ 1.
 * @param m            the matrix as read
 * @param role         the reading to test
 * @param vertexCount  #V of the mesh
 * @param boneCount    #B of the skeleton
 */
export function dmatFits(m: DenseMatrix, role: DmatRole, vertexCount: number, boneCount: number): boolean {
  const { rows, cols } = m;
  switch (role) {
    case 'weights':
      return rows === vertexCount && cols === boneCount;
    case 'poses':
      return (cols === 3 && rows > 0 && rows % (3 * boneCount) === 0) || (cols === 1 && rows === 4 * boneCount);
    case 'handles':
      return cols === 1 && rows === vertexCount;
    case 'animation':
      return fitsTransformAnimation(m, boneCount);
  }
}

const ROLES_BY_PRECEDENCE: readonly DmatRole[] = ['weights', 'poses', 'handles', 'animation'];

/** What dmatRole makes of a matrix. */
export interface DmatRoleChoice {
  role: DmatRole;
  /** whether the matrix has the shape of `role` for this mesh and skeleton */
  fits: boolean;
  /**
   * Set when the matrix has the shapes of both a pose file and an animation (3·B·L × 3 with 4·L' = L: 12·B × 3)
   * and its values read as neither: `role` is 'poses' and this is 'animation'. Both readers are to be tried (the
   * animation's also takes transforms that are not rigid), and a refusal names both.
   */
  alsoFits?: DmatRole;
}

/**
 * What a DMAT loaded with a mesh and skeleton is: the first exact fit among weights, poses, handles and animation (so
 * a 12 × 1 matrix with 12 vertices and 3 bones is a quaternion pose), else the closest reading with `fits` false,
 * whose reader then refuses it with a message naming both sizes. A matrix of 12·B rows and 3 columns has the shape
 * of both poses (4 frames of B rotation matrices) and an animation (3 frames of B transforms): the values decide,
 * poses when every 3×3 block is a rotation, an animation when every bone's 3×3 part in every column is one
 * (readsAsTransformAnimation), else poses with `alsoFits` 'animation'. Closest: #V rows → weights; a matrix that
 * reads as an animation of absolute transforms on its own → animation; one column → handles when every entry is a
 * whole number ≥ -1, else poses; three columns → poses; anything else → weights.
 * @param m            the matrix as read
 * @param vertexCount  #V of the mesh
 * @param boneCount    #B of the skeleton
 * @returns the role, whether the matrix fits it exactly, and the second role whose shape fits when the values fit neither
 */
export function dmatRole(m: DenseMatrix, vertexCount: number, boneCount: number): DmatRoleChoice {
  const fitting = ROLES_BY_PRECEDENCE.filter((role) => dmatFits(m, role, vertexCount, boneCount));
  if (fitting[0] === 'poses' && fitting.includes('animation')) {
    if (acceptsAsPoses(m)) return { role: 'poses', fits: true };
    if (readsAsTransformAnimation(m)) return { role: 'animation', fits: true };
    return { role: 'poses', fits: true, alsoFits: 'animation' };
  }
  if (fitting.length > 0) return { role: fitting[0], fits: true };
  if (m.rows === vertexCount) return { role: 'weights', fits: false };
  if (readsAsTransformAnimation(m)) return { role: 'animation', fits: false };
  if (m.cols === 1) return { role: isHandleColumn(m.data) ? 'handles' : 'poses', fits: false };
  return { role: m.cols === 3 ? 'poses' : 'weights', fits: false };
}

/** Handle files hold bone indices or -1; quaternion columns hold fractions. */
function isHandleColumn(values: Float64Array): boolean {
  return values.every((x) => Number.isInteger(x) && x >= -1);
}
