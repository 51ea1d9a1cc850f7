/**
 * Rotation matrices written out by the textbook formulas, for tests to build poses and expected values from
 * independently of the app's own math. Test support, not a test file.
 */

/**
 * The rotation by `angle` radians about a unit `axis` (Rodrigues' formula).
 * @param axis - [x, y, z], of length 1 (not normalized here).
 * @param angle - Radians, counter-clockwise looking down the axis.
 * @returns The 3×3 matrix, row-major (9 numbers).
 */
export function axisAngleMatrix(axis: readonly number[], angle: number): number[] {
  const [x, y, z] = axis;
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const t = 1 - c;
  return [
    t * x * x + c,
    t * x * y - s * z,
    t * x * z + s * y,
    t * x * y + s * z,
    t * y * y + c,
    t * y * z - s * x,
    t * x * z - s * y,
    t * y * z + s * x,
    t * z * z + c,
  ];
}

/**
 * The rotation of a unit quaternion.
 * @param q - [x, y, z, w], of length 1 (not normalized here).
 * @returns The 3×3 matrix, row-major (9 numbers).
 */
export function quaternionMatrix([x, y, z, w]: readonly number[]): number[] {
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    2 * (x * y + w * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - w * x),
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    1 - 2 * (x * x + y * y),
  ];
}
