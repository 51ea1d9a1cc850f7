import { vertexAdjacencyPattern } from '../mesh/vertex-adjacency-pattern.ts';

/** One-ring neighbours of every vertex, compressed: vertex v's neighbours are neighbors[offsets[v] .. offsets[v+1]). */
export interface VertexOneRing {
  /** #V + 1 offsets */
  offsets: Int32Array;
  /** neighbour indices, ascending per vertex, the vertex itself excluded */
  neighbors: Int32Array;
}

/**
 * @param vertexCount #V
 * @param triangles   #F × 3 vertex indices
 * @returns the one-ring of each vertex (vertices sharing an edge with it)
 */
export function vertexOneRing(vertexCount: number, triangles: Uint32Array): VertexOneRing {
  const { colPointers, rowIndices } = vertexAdjacencyPattern(vertexCount, triangles);
  const offsets = new Int32Array(vertexCount + 1);
  const neighbors = new Int32Array(rowIndices.length - vertexCount);
  let write = 0;
  for (let v = 0; v < vertexCount; v++) {
    for (let p = colPointers[v]; p < colPointers[v + 1]; p++) if (rowIndices[p] !== v) neighbors[write++] = rowIndices[p];
    offsets[v + 1] = write;
  }
  return { offsets, neighbors };
}
