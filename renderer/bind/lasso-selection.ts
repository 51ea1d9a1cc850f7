/**
 * Which vertices a screen-space lasso selects. By default only vertices the artist can see: the posed triangles
 * are rasterized on the CPU into a depth buffer covering the lasso's bounding box (one sample per CSS pixel), and
 * a vertex counts as visible when it is no farther than the nearest surface at its pixel plus a small tolerance.
 * That is exact to the pixel, independent of the GPU, and costs one pass over the triangles that reach the lasso's
 * box. With x-ray every vertex inside the lasso is selected, hidden or not.
 */

/** Depth slack, as a fraction of the mesh's bounding diagonal: a vertex sits on its own triangles only up to the
 * pixel grid, and more so where the surface turns away from the camera. */
const DEPTH_TOLERANCE = 0.004;

export interface LassoSelectInput {
  /** #V × 3 posed positions, world units */
  positions: Float64Array;
  /** #F × 3 vertex indices */
  triangles: Uint32Array;
  /** projection × view, column-major 4 × 4 (three.js Matrix4.elements) */
  viewProjection: ArrayLike<number>;
  /** canvas size in CSS pixels */
  width: number;
  height: number;
  /** lasso polygon in canvas CSS pixels, x0 y0 x1 y1 … (closed implicitly) */
  polygon: readonly number[];
  /** select hidden vertices too */
  xray: boolean;
  /** rest mesh bounding diagonal, for the depth tolerance */
  diagonal: number;
}

/**
 * @returns #V, 1 for each selected vertex
 */
export function lassoSelect(input: LassoSelectInput): Uint8Array {
  const { positions, triangles, viewProjection: m, width, height, polygon, xray, diagonal } = input;
  const n = positions.length / 3;
  const selected = new Uint8Array(n);
  if (polygon.length < 6) return selected;
  const sx = new Float64Array(n);
  const sy = new Float64Array(n);
  // Eye-space distance along the view axis (clip w); <= 0 behind the camera.
  const depth = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    const x = positions[3 * v],
      y = positions[3 * v + 1],
      z = positions[3 * v + 2];
    const cx = m[0] * x + m[4] * y + m[8] * z + m[12];
    const cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    const cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    depth[v] = cw;
    if (cw <= 0) continue;
    sx[v] = ((cx / cw + 1) / 2) * width;
    sy[v] = ((1 - cy / cw) / 2) * height;
  }
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (let i = 0; i < polygon.length; i += 2) {
    minX = Math.min(minX, polygon[i]);
    maxX = Math.max(maxX, polygon[i]);
    minY = Math.min(minY, polygon[i + 1]);
    maxY = Math.max(maxY, polygon[i + 1]);
  }
  const x0 = Math.max(0, Math.floor(minX));
  const y0 = Math.max(0, Math.floor(minY));
  const x1 = Math.min(Math.ceil(width), Math.ceil(maxX));
  const y1 = Math.min(Math.ceil(height), Math.ceil(maxY));
  if (x1 <= x0 || y1 <= y0) return selected;
  for (let v = 0; v < n; v++) {
    if (depth[v] > 0 && sx[v] >= x0 && sx[v] < x1 && sy[v] >= y0 && sy[v] < y1 && insidePolygon(polygon, sx[v], sy[v])) selected[v] = 1;
  }
  if (xray) return selected;

  const w = x1 - x0;
  const h = y1 - y0;
  // Nearest surface per pixel as 1 / depth, which is affine in screen space (perspective-correct).
  const nearest = new Float64Array(w * h);
  for (let f = 0; f < triangles.length; f += 3) {
    const a = triangles[f],
      b = triangles[f + 1],
      c = triangles[f + 2];
    if (depth[a] <= 0 || depth[b] <= 0 || depth[c] <= 0) continue;
    rasterize(
      sx[a] - x0,
      sy[a] - y0,
      1 / depth[a],
      sx[b] - x0,
      sy[b] - y0,
      1 / depth[b],
      sx[c] - x0,
      sy[c] - y0,
      1 / depth[c],
      nearest,
      w,
      h,
    );
  }
  const tolerance = DEPTH_TOLERANCE * diagonal;
  for (let v = 0; v < n; v++) {
    if (!selected[v]) continue;
    const px = Math.min(w - 1, Math.floor(sx[v] - x0));
    const py = Math.min(h - 1, Math.floor(sy[v] - y0));
    const surface = nearest[py * w + px];
    if (surface > 0 && depth[v] > 1 / surface + tolerance) selected[v] = 0;
  }
  return selected;
}

/** Even-odd rule. */
function insidePolygon(polygon: readonly number[], x: number, y: number): boolean {
  let inside = false;
  const count = polygon.length / 2;
  for (let i = 0, j = count - 1; i < count; j = i++) {
    const xi = polygon[2 * i],
      yi = polygon[2 * i + 1];
    const xj = polygon[2 * j],
      yj = polygon[2 * j + 1];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Keeps the largest 1/depth per pixel centre covered by the triangle (either winding). */
function rasterize(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
  buffer: Float64Array,
  w: number,
  h: number,
): void {
  const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (area === 0 || !Number.isFinite(area)) return;
  const xs = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const xe = Math.min(w - 1, Math.ceil(Math.max(ax, bx, cx)));
  const ys = Math.max(0, Math.floor(Math.min(ay, by, cy)));
  const ye = Math.min(h - 1, Math.ceil(Math.max(ay, by, cy)));
  const inverseArea = 1 / area;
  for (let y = ys; y <= ye; y++) {
    const py = y + 0.5;
    for (let x = xs; x <= xe; x++) {
      const px = x + 0.5;
      const wa = ((bx - px) * (cy - py) - (by - py) * (cx - px)) * inverseArea;
      const wb = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) * inverseArea;
      const wc = 1 - wa - wb;
      if (wa < 0 || wb < 0 || wc < 0) continue;
      const z = wa * az + wb * bz + wc * cz;
      const i = y * w + x;
      if (z > buffer[i]) buffer[i] = z;
    }
  }
}
