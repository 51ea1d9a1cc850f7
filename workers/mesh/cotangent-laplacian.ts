import type { CscMatrix } from '../sparse/csc-matrix.ts';
import { edgeWeightMatrix } from './edge-weight-matrix.ts';

/**
 * Largest cotangent magnitude a face may contribute. Slivers beyond it (an angle under ~0.006°) have all three
 * cotangents scaled down together: clamping them one at a time could make the face's stiffness indefinite,
 * while a common positive factor keeps it positive semi-definite.
 */
export const COTANGENT_BOUND = 1e4;

/**
 * Faces whose doubled area is below this fraction of their summed squared edge lengths count as zero-area: their
 * angles (0, 0, π or undefined) carry no usable cotangent, so they contribute nothing and their vertices stay
 * connected through the other faces.
 */
export const ZERO_AREA = 1e-14;

/**
 * Cotangent Laplacian (Pinkall & Polthier 1993; the operator L of the course handout Sec. 4, Eq. 2) in its
 * positive semi-definite form: K_ij = −½(cot α_ij + cot β_ij) for each edge, K_ii = −Σ_j K_ij, i.e. the negative
 * of libigl's cotmatrix. Symmetric, rows sum to zero, finite on every input (see COTANGENT_BOUND, ZERO_AREA).
 *
 * @param positions #V × 3 vertex positions
 * @param triangles #F × 3 vertex indices
 * @param columns   optional #V mask: assemble only these vertices' columns (see edgeWeightMatrix); the faces
 *                  that touch none of them are skipped
 * @returns #V × #V CSC matrix: column i holds i and its edge neighbours, rows sorted
 */
export function cotangentLaplacian(positions: Float64Array, triangles: Uint32Array, columns?: Uint8Array): CscMatrix {
  const n = Math.floor(positions.length / 3);
  return edgeWeightMatrix(n, triangles, cotangentWeights(positions, triangles, columns), columns);
}

/**
 * #F × 3 weights ½ cot of each corner's angle, for edgeWeightMatrix (see COTANGENT_BOUND and ZERO_AREA). With a
 * column mask, faces that touch no assembled column are left at zero: edgeWeightMatrix does not read them.
 */
function cotangentWeights(positions: Float64Array, triangles: Uint32Array, columns?: Uint8Array): Float64Array {
  const faceCount = Math.floor(triangles.length / 3);
  const cornerWeights = new Float64Array(faceCount * 3);
  for (let f = 0; f < faceCount; f++) {
    const ia = triangles[3 * f];
    const ib = triangles[3 * f + 1];
    const ic = triangles[3 * f + 2];
    if (columns && columns[ia] === 0 && columns[ib] === 0 && columns[ic] === 0) continue;
    const a = 3 * ia;
    const b = 3 * ib;
    const c = 3 * ic;
    const abx = positions[b] - positions[a];
    const aby = positions[b + 1] - positions[a + 1];
    const abz = positions[b + 2] - positions[a + 2];
    const acx = positions[c] - positions[a];
    const acy = positions[c + 1] - positions[a + 1];
    const acz = positions[c + 2] - positions[a + 2];
    const bcx = acx - abx;
    const bcy = acy - aby;
    const bcz = acz - abz;
    const crossX = aby * acz - abz * acy;
    const crossY = abz * acx - abx * acz;
    const crossZ = abx * acy - aby * acx;
    const doubleArea = Math.sqrt(crossX * crossX + crossY * crossY + crossZ * crossZ);
    const edgeSquares = abx * abx + aby * aby + abz * abz + acx * acx + acy * acy + acz * acz + bcx * bcx + bcy * bcy + bcz * bcz;
    if (!(doubleArea > ZERO_AREA * edgeSquares)) continue;
    // cot of the angle at a corner = (dot of its two edges) / (twice the area).
    const dotA = abx * acx + aby * acy + abz * acz;
    const dotB = -(abx * bcx + aby * bcy + abz * bcz);
    const dotC = acx * bcx + acy * bcy + acz * bcz;
    const largest = Math.max(Math.abs(dotA), Math.abs(dotB), Math.abs(dotC));
    const scale = 0.5 / Math.max(doubleArea, largest / COTANGENT_BOUND);
    cornerWeights[3 * f] = dotA * scale;
    cornerWeights[3 * f + 1] = dotB * scale;
    cornerWeights[3 * f + 2] = dotC * scale;
  }
  return cornerWeights;
}
