import { vertexAdjacencyPattern } from '../mesh/vertex-adjacency-pattern.ts';
import { weldVertices } from '../mesh/weld-vertices.ts';

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
 * @param positions   #V × 3: when given, the one-rings are the welded mesh's (weldVertices, exactly coincident
 *                    vertices), as binding sees the mesh: a vertex's neighbours are the first members of the welded
 *                    vertices next to its own, across seams, and every member of a welded vertex has the same ones,
 *                    so smoothing keeps coincident vertices' weights equal
 * @returns the one-ring of each vertex (vertices sharing an edge with it)
 */
export function vertexOneRing(vertexCount: number, triangles: Uint32Array, positions?: Float64Array): VertexOneRing {
  if (!positions) return indexOneRing(vertexCount, triangles);
  const weld = weldVertices(positions.subarray(0, 3 * vertexCount), triangles);
  if (weld.count === vertexCount) return indexOneRing(vertexCount, triangles);
  const welded = indexOneRing(weld.count, weld.triangles);
  const { index, representative } = weld;
  const offsets = new Int32Array(vertexCount + 1);
  for (let v = 0; v < vertexCount; v++) offsets[v + 1] = offsets[v] + welded.offsets[index[v] + 1] - welded.offsets[index[v]];
  const neighbors = new Int32Array(offsets[vertexCount]);
  for (let v = 0; v < vertexCount; v++) {
    let write = offsets[v];
    // Representatives increase with the welded index, so the neighbours stay ascending.
    for (let p = welded.offsets[index[v]]; p < welded.offsets[index[v] + 1]; p++) neighbors[write++] = representative[welded.neighbors[p]];
  }
  return { offsets, neighbors };
}

/** One-rings of the index topology. */
function indexOneRing(vertexCount: number, triangles: Uint32Array): VertexOneRing {
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
