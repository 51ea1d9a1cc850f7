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
 * @returns component count and per-vertex labels
 */
export function connectedComponents(vertexCount: number, triangles: Uint32Array): ConnectedComponents {
  const root = new Int32Array(vertexCount);
  for (let i = 0; i < vertexCount; i++) root[i] = i;
  const find = (v: number): number => {
    let r = v;
    while (root[r] !== r) r = root[r];
    while (root[v] !== r) {
      const up = root[v];
      root[v] = r;
      v = up;
    }
    return r;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    // The smaller index becomes the root so labels can follow lowest vertex index in one pass.
    if (ra < rb) root[rb] = ra;
    else if (rb < ra) root[ra] = rb;
  };
  const faceCount = Math.floor(triangles.length / 3);
  for (let f = 0; f < faceCount; f++) {
    const a = triangles[3 * f];
    const b = triangles[3 * f + 1];
    const c = triangles[3 * f + 2];
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) {
      throw new RangeError(`connectedComponents: face ${f} names a vertex outside [0, ${vertexCount})`);
    }
    union(a, b);
    union(a, c);
  }
  const labels = new Int32Array(vertexCount);
  let count = 0;
  for (let i = 0; i < vertexCount; i++) {
    const r = find(i);
    labels[i] = r === i ? count++ : labels[r];
  }
  return { count, labels };
}
