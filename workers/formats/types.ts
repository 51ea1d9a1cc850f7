/** A dense matrix, row-major: entry (r, c) is `data[r * cols + c]`. */
export interface DenseMatrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** A triangle mesh. positions: #V × 3 Float64Array (x, y, z per vertex); triangles: #F × 3 Uint32Array, 0-based, CCW. */
export interface TriangleMesh {
  positions: Float64Array;
  triangles: Uint32Array;
}

/** What a mesh reader found besides the triangles, for `rigwright info` and the UI status line. */
export interface MeshFileReport {
  /** polygons with more than three corners that were fan-triangulated */
  polygonsTriangulated: number;
  /** number of `vt` / `vn` records seen (OBJ only; 0 otherwise) */
  texcoords: number;
  normals: number;
  /** non-fatal observations, each naming the place (`line 40: ...`) */
  warnings: string[];
}

/** A TGF skeleton as read: joints #J × 3, bones #B × 2 (start joint, end joint), both 0-based, in file order. */
export interface TgfSkeleton {
  joints: Float64Array;
  bones: Uint32Array;
}
