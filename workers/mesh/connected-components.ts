import { kernelConnectedComponents } from './mesh-kernel.ts';

/** Connected components of a mesh's vertices. */
export interface ConnectedComponents {
  /** number of components */
  count: number;
  /** #V component of each vertex, numbered in order of each component's lowest vertex index */
  labels: Int32Array;
}

/**
 * Connected components of a triangle mesh's vertices (two vertices are connected when they share a face). A
 * vertex in no face is a component of its own.
 *
 * @param vertexCount #V
 * @param triangles   #F × 3 vertex indices
 * @param kernel      false: the JavaScript loop even where the WebAssembly one (mesh-kernel.ts, the same labels) could
 *                    run
 * @returns component count and per-vertex labels
 */
export function connectedComponents(vertexCount: number, triangles: Uint32Array, kernel = true): ConnectedComponents {
  const found = kernel ? kernelConnectedComponents(vertexCount, triangles) : null;
  if (found !== null) return found;
  const root = new Int32Array(vertexCount);
  for (let i = 0; i < vertexCount; i++) root[i] = i;
  const faceCount = Math.floor(triangles.length / 3);
  // Union-find with path halving, written out inline: this runs over every face of meshes with a million faces.
  for (let f = 0; f < faceCount; f++) {
    const a = triangles[3 * f];
    const b = triangles[3 * f + 1];
    const c = triangles[3 * f + 2];
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) {
      throw new RangeError(`connectedComponents: face ${f} names a vertex outside [0, ${vertexCount})`);
    }
    let ra = a;
    while (root[ra] !== ra) ra = root[ra] = root[root[ra]];
    for (let k = 0; k < 2; k++) {
      let rb = k === 0 ? b : c;
      while (root[rb] !== rb) rb = root[rb] = root[root[rb]];
      // The smaller index becomes the root so labels can follow lowest vertex index in one pass.
      if (ra < rb) root[rb] = ra;
      else if (rb < ra) {
        root[ra] = rb;
        ra = rb;
      }
    }
  }
  const labels = new Int32Array(vertexCount);
  let count = 0;
  for (let i = 0; i < vertexCount; i++) {
    // Parents have lower indices than their children, so root[root[i]] is already final when i is reached.
    const r = (root[i] = root[root[i]]);
    labels[i] = r === i ? count++ : labels[r];
  }
  return { count, labels };
}
