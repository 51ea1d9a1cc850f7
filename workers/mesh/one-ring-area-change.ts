/**
 * Local area change of a deformed mesh: for each vertex, log2 of the area of its one-ring (the triangles around
 * it) in the posed mesh over the same area at rest. 0 = unchanged, −1 = halved (LBS's collapse at a twisted
 * joint), +1 = doubled (DQS's bulge at a bent one). Vertices without area at rest get 0.
 * @param restAreas       #V one-ring areas at rest, from oneRingAreas
 * @param positions       #V × 3 posed positions
 * @param triangles       #F × 3 vertex indices
 * @param outLogRatios    #V log2(posed area / rest area)
 * @param scratchAreas    #V scratch for the posed areas
 */
export function oneRingAreaChange(
  restAreas: Float64Array,
  positions: ArrayLike<number>,
  triangles: Uint32Array,
  outLogRatios: Float32Array,
  scratchAreas: Float64Array,
): void {
  oneRingAreas(positions, triangles, scratchAreas);
  for (let v = 0; v < restAreas.length; v++) {
    const rest = restAreas[v];
    const posed = scratchAreas[v];
    outLogRatios[v] = rest > 0 && posed > 0 ? Math.log2(posed / rest) : rest > 0 ? -1 : 0;
  }
}

/**
 * @param positions  #V × 3
 * @param triangles  #F × 3
 * @param out        #V sum of the areas of the triangles around each vertex
 */
export function oneRingAreas(positions: ArrayLike<number>, triangles: Uint32Array, out: Float64Array): Float64Array {
  out.fill(0);
  const P = positions;
  for (let f = 0; f < triangles.length; f += 3) {
    const a = 3 * triangles[f],
      b = 3 * triangles[f + 1],
      c = 3 * triangles[f + 2];
    const ux = P[b] - P[a],
      uy = P[b + 1] - P[a + 1],
      uz = P[b + 2] - P[a + 2];
    const vx = P[c] - P[a],
      vy = P[c + 1] - P[a + 1],
      vz = P[c + 2] - P[a + 2];
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    const area = 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
    out[a / 3] += area;
    out[b / 3] += area;
    out[c / 3] += area;
  }
  return out;
}
