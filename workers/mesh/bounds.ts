/**
 * Axis-aligned bounding box.
 * @param positions  #V × 3 positions
 * @returns min and max corners and the diagonal length; an empty point set gives zeros
 */
export function boundingBox(positions: ArrayLike<number>): {
  min: [number, number, number];
  max: [number, number, number];
  diagonal: number;
} {
  const n = Math.floor(positions.length / 3);
  if (n === 0) return { min: [0, 0, 0], max: [0, 0, 0], diagonal: 0 };
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity;
  let maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let i = 0; i < 3 * n; i += 3) {
    const x = positions[i],
      y = positions[i + 1],
      z = positions[i + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  return { min: [minX, minY, minZ], max: [maxX, maxY, maxZ], diagonal: Math.hypot(maxX - minX, maxY - minY, maxZ - minZ) };
}
