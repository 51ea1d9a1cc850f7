/**
 * "Front faces only" for the weight brush: which gathered vertices the camera actually sees. The posed triangles
 * under the brush (a sub-frustum through the brush's screen square, found through the three-mesh-bvh BVH) are
 * rasterized into a depth buffer of one cell per CSS pixel, nearest depth kept; a vertex is visible when its own
 * depth is within a tolerance of the buffer's depth at its pixel. The cost follows the brush's footprint, not the
 * number of gathered vertices times a ray each.
 *
 * Within a stroke neither the camera nor the surface moves, so the buffer is kept in 16-pixel tiles: a dab only
 * rasterizes the tiles its square adds (a quarter of the square or less at the default spacing). A tile remembers
 * the far depth it was rasterized to; nothing beyond it was drawn, so a dab that needs a farther one redraws it.
 * Any change of camera, canvas size or surface starts over (invalidate, or detected from the matrices).
 */
import * as THREE from 'three';
import { INTERSECTED, NOT_INTERSECTED, type MeshBVH } from 'three-mesh-bvh';

/** Tile side, CSS pixels. */
const TILE = 16;

const viewProjection = new THREE.Matrix4();
const subRect = new THREE.Matrix4();
const frustum = new THREE.Frustum();
const direction = new THREE.Vector3();
const eye = new THREE.Vector3();
const reverse = new THREE.Vector3();

export interface BrushFootprint {
  /** brush centre on the canvas, CSS pixels */
  x: number;
  y: number;
  /** brush radius, CSS pixels */
  radius: number;
  /** canvas size, CSS pixels */
  width: number;
  height: number;
  /** camera-space depth beyond which nothing can hide a gathered vertex (hit depth + world radius) */
  maxDepth: number;
  /** how much farther than maxDepth to rasterize when tiles are drawn, so the next dabs can reuse them (world units) */
  reach: number;
  /** depth difference still counted as the same surface, world units */
  tolerance: number;
}

export class BrushVisibility {
  private depth = new Float32Array(0);
  /** per tile: the far depth it was rasterized to, -Infinity when not yet */
  private tileFar = new Float64Array(0);
  private tilesX = 0;
  private tilesY = 0;
  private width = 0;
  private height = 0;
  private positions: Float64Array | null = null;
  /** the view-projection the buffer was drawn with (column-major) */
  private readonly m = new Float64Array(16);

  /** Forgets the buffer: the surface under the brush changed. */
  invalidate(): void {
    this.tileFar.fill(-Infinity);
  }

  /**
   * Compacts `indices` / `distances` (first `count`) to the visible vertices.
   * @param bvh       BVH over the posed surface, geometry positions = `positions`
   * @param positions #V × 3 posed positions, world units
   * @returns the number kept
   */
  filter(
    bvh: MeshBVH,
    positions: Float64Array,
    camera: THREE.PerspectiveCamera,
    brush: BrushFootprint,
    indices: Uint32Array,
    distances: Float64Array,
    count: number,
  ): number {
    this.prepare(positions, camera, brush);
    this.rasterizeMissing(bvh, positions, camera, brush);
    const m = this.m;
    const { width, height, depth, tileFar, tilesX } = this;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const v = indices[i];
      const x = positions[3 * v],
        y = positions[3 * v + 1],
        z = positions[3 * v + 2];
      const w = m[3] * x + m[7] * y + m[11] * z + m[15];
      const px = Math.floor((((m[0] * x + m[4] * y + m[8] * z + m[12]) / w + 1) / 2) * width);
      const py = Math.floor(((1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / w) / 2) * height);
      // Off the canvas or outside the drawn tiles (cannot happen for a vertex inside the brush sphere) counts as
      // visible.
      if (
        px >= 0 &&
        py >= 0 &&
        px < width &&
        py < height &&
        tileFar[Math.floor(px / TILE) + tilesX * Math.floor(py / TILE)] !== -Infinity &&
        w > depth[px + width * py] + brush.tolerance
      )
        continue;
      indices[kept] = v;
      distances[kept++] = distances[i];
    }
    return kept;
  }

  /**
   * Sizes the buffer to the canvas and drops it when the camera, the canvas or the surface array changed; leaves
   * `viewProjection` holding the camera's.
   */
  private prepare(positions: Float64Array, camera: THREE.PerspectiveCamera, brush: BrushFootprint): void {
    const width = Math.max(1, Math.ceil(brush.width));
    const height = Math.max(1, Math.ceil(brush.height));
    camera.updateMatrixWorld();
    viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const e = viewProjection.elements;
    let moved = positions !== this.positions || width !== this.width || height !== this.height;
    for (let k = 0; k < 16 && !moved; k++) moved = e[k] !== this.m[k];
    if (!moved) return;
    this.m.set(e);
    this.positions = positions;
    this.width = width;
    this.height = height;
    this.tilesX = Math.ceil(width / TILE);
    this.tilesY = Math.ceil(height / TILE);
    if (this.depth.length < width * height) this.depth = new Float32Array(width * height);
    if (this.tileFar.length < this.tilesX * this.tilesY) this.tileFar = new Float64Array(this.tilesX * this.tilesY);
    this.invalidate();
  }

  /** Rasterizes the tiles under the brush's square that are missing or not drawn far enough. */
  private rasterizeMissing(bvh: MeshBVH, positions: Float64Array, camera: THREE.PerspectiveCamera, brush: BrushFootprint): void {
    // The square: 1.5 × the radius (the near half of the brush sphere projects a little larger) plus a margin.
    const half = Math.ceil(1.5 * brush.radius + 2);
    const { tilesX, tilesY, tileFar, width, height, depth } = this;
    const tx0 = Math.max(0, Math.floor((brush.x - half) / TILE));
    const tx1 = Math.min(tilesX - 1, Math.floor((brush.x + half) / TILE));
    const ty0 = Math.max(0, Math.floor((brush.y - half) / TILE));
    const ty1 = Math.min(tilesY - 1, Math.floor((brush.y + half) / TILE));
    let mx0 = Infinity,
      mx1 = -1,
      my0 = Infinity,
      my1 = -1;
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) {
        if (tileFar[tx + tilesX * ty] >= brush.maxDepth) continue;
        mx0 = Math.min(mx0, tx);
        mx1 = Math.max(mx1, tx);
        my0 = Math.min(my0, ty);
        my1 = Math.max(my1, ty);
      }
    }
    if (mx1 < 0) return;
    const far = brush.maxDepth + brush.reach;
    // The rectangle of the missing tiles is drawn whole: tiles in it already drawn only see their minimum
    // confirmed (min is idempotent), and every tile in it is then complete up to `far`.
    const left = mx0 * TILE,
      right = Math.min(width, (mx1 + 1) * TILE);
    const top = my0 * TILE,
      bottom = Math.min(height, (my1 + 1) * TILE);
    for (let ty = my0; ty <= my1; ty++) {
      for (let tx = mx0; tx <= mx1; tx++) {
        const t = tx + tilesX * ty;
        if (tileFar[t] === -Infinity) {
          for (let y = ty * TILE; y < Math.min(height, (ty + 1) * TILE); y++)
            depth.fill(Infinity, y * width + tx * TILE, y * width + Math.min(width, (tx + 1) * TILE));
        }
        tileFar[t] = Math.max(tileFar[t], far);
      }
    }

    // The sub-frustum through the rectangle: clip' = S · clip maps it onto NDC [-1, 1]², with a far plane at `far`
    // (the far side of the mesh cannot hide anything and is culled with its BVH nodes).
    const cx = (left + right) / width - 1;
    const cy = 1 - (top + bottom) / height;
    const hx = (right - left) / width;
    const hy = (bottom - top) / height;
    subRect.set(1 / hx, 0, 0, -cx / hx, 0, 1 / hy, 0, -cy / hy, 0, 0, 1, 0, 0, 0, 0, 1);
    frustum.setFromProjectionMatrix(subRect.multiply(viewProjection));
    camera.getWorldDirection(direction);
    frustum.planes[4].set(reverse.copy(direction).negate(), far + direction.dot(camera.getWorldPosition(eye)));

    const m = this.m;
    const near = camera.near;
    const index = bvh.geometry.index!.array as Uint32Array;
    const clip = { left, right, top, bottom };
    bvh.shapecast({
      intersectsBounds: (box) => (frustum.intersectsBox(box) ? INTERSECTED : NOT_INTERSECTED),
      // Whole leaves at a time, straight from the index and the posed positions: no triangle objects.
      intersectsRange: (offset, count) => {
        for (let t = 3 * offset, end = 3 * (offset + count); t < end; t += 3) {
          rasterizeTriangle(positions, 3 * index[t], 3 * index[t + 1], 3 * index[t + 2], m, near, far, width, height, clip, depth);
        }
        return false;
      },
    });
  }
}

/**
 * Rasterizes one posed triangle into the depth buffer, inside `clip`: pixel centres inside it (edge functions) keep
 * the nearest depth, interpolated as 1/w linearly on screen. Triangles reaching behind the near plane are skipped
 * (the viewport clips them too), as are those wholly beyond `far`.
 */
function rasterizeTriangle(
  p: Float64Array,
  a: number,
  b: number,
  c: number,
  m: Float64Array,
  near: number,
  far: number,
  width: number,
  height: number,
  clip: { left: number; right: number; top: number; bottom: number },
  depth: Float32Array,
): void {
  const wa = m[3] * p[a] + m[7] * p[a + 1] + m[11] * p[a + 2] + m[15];
  const wb = m[3] * p[b] + m[7] * p[b + 1] + m[11] * p[b + 2] + m[15];
  const wc = m[3] * p[c] + m[7] * p[c + 1] + m[11] * p[c + 2] + m[15];
  if (!(wa > near && wb > near && wc > near) || Math.min(wa, wb, wc) > far) return;
  const xa = (((m[0] * p[a] + m[4] * p[a + 1] + m[8] * p[a + 2] + m[12]) / wa + 1) / 2) * width;
  const ya = ((1 - (m[1] * p[a] + m[5] * p[a + 1] + m[9] * p[a + 2] + m[13]) / wa) / 2) * height;
  const xb = (((m[0] * p[b] + m[4] * p[b + 1] + m[8] * p[b + 2] + m[12]) / wb + 1) / 2) * width;
  const yb = ((1 - (m[1] * p[b] + m[5] * p[b + 1] + m[9] * p[b + 2] + m[13]) / wb) / 2) * height;
  const xc = (((m[0] * p[c] + m[4] * p[c + 1] + m[8] * p[c + 2] + m[12]) / wc + 1) / 2) * width;
  const yc = ((1 - (m[1] * p[c] + m[5] * p[c + 1] + m[9] * p[c + 2] + m[13]) / wc) / 2) * height;
  const gx0 = Math.max(clip.left, Math.ceil(Math.min(xa, xb, xc) - 0.5));
  const gx1 = Math.min(clip.right - 1, Math.floor(Math.max(xa, xb, xc) - 0.5));
  if (gx0 > gx1) return;
  const gy0 = Math.max(clip.top, Math.ceil(Math.min(ya, yb, yc) - 0.5));
  const gy1 = Math.min(clip.bottom - 1, Math.floor(Math.max(ya, yb, yc) - 0.5));
  if (gy0 > gy1) return;
  const area = (xb - xa) * (yc - ya) - (xc - xa) * (yb - ya);
  if (area === 0) return;
  const ia = 1 / wa,
    ib = 1 / wb,
    ic = 1 / wc;
  for (let gy = gy0; gy <= gy1; gy++) {
    const sy = gy + 0.5;
    for (let gx = gx0; gx <= gx1; gx++) {
      const sx = gx + 0.5;
      const ba = ((xb - sx) * (yc - sy) - (xc - sx) * (yb - sy)) / area;
      const bb = ((xc - sx) * (ya - sy) - (xa - sx) * (yc - sy)) / area;
      const bc = 1 - ba - bb;
      if (ba < 0 || bb < 0 || bc < 0) continue;
      const w = 1 / (ba * ia + bb * ib + bc * ic);
      const cell = gx + width * gy;
      if (w < depth[cell]) depth[cell] = w;
    }
  }
}
