import type { CscMatrix } from '../sparse/csc-matrix.ts';
import { vertexAdjacencyPattern } from './vertex-adjacency-pattern.ts';

/**
 * Uniform (graph) Laplacian in positive semi-definite form: K_ij = −1 for each mesh edge, K_ii = degree of i.
 * Ignores geometry, so it is well defined on any connectivity (degenerate faces included).
 *
 * @param vertexCount #V
 * @param triangles   #F × 3 vertex indices
 * @returns #V × #V CSC matrix with the pattern of vertexAdjacencyPattern
 */
export function uniformLaplacian(vertexCount: number, triangles: Uint32Array): CscMatrix {
  const k = vertexAdjacencyPattern(vertexCount, triangles);
  const { colPointers, rowIndices, values } = k;
  for (let j = 0; j < vertexCount; j++) {
    let degree = 0;
    let diagonal = -1;
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      if (rowIndices[p] === j) {
        diagonal = p;
      } else {
        values[p] = -1;
        degree++;
      }
    }
    values[diagonal] = degree;
  }
  return k;
}
