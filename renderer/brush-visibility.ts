/**
 * "Front faces only" for the weight brush: which gathered vertices the camera actually sees. Per dab, the posed
 * triangles inside the brush's screen square (a sub-frustum, found through the three-mesh-bvh BVH) are rasterized
 * into a small depth grid of one cell per CSS pixel, nearest depth kept; a vertex is visible when its own depth is
 * within a tolerance of the grid's depth at its pixel. The cost follows the brush's footprint (a few thousand tiny
 * triangles), not the number of gathered vertices times a ray each.
 */
import * as THREE from 'three';
import { INTERSECTED, NOT_INTERSECTED, type MeshBVH } from 'three-mesh-bvh';

/** Largest grid side, cells: beyond it a cell covers several pixels. */
const MAX_SIDE = 256;

const viewProjection = new THREE.Matrix4();
const subRect = new THREE.Matrix4();
const frustum = new THREE.Frustum();
const direction = new THREE.Vector3();
const eye = new THREE.Vector3();

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
  /** depth difference still counted as the same surface, world units */
  tolerance: number;
}

export class BrushVisibility {
  private depth = new Float32Array(0);
  private side = 0;
  private scale = 1;
  private left = 0;
  private top = 0;
  private readonly m = new Float64Array(16);

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
    this.rasterize(bvh, camera, brush);
    const m = this.m;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const v = indices[i];
      const x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
      const w = m[3] * x + m[7] * y + m[11] * z + m[15];
      const cell = this.cellOf((m[0] * x + m[4] * y + m[8] * z + m[12]) / w, (m[1] * x + m[5] * y + m[9] * z + m[13]) / w, brush);
      // Outside the square (cannot happen for a vertex inside the brush sphere) counts as visible.
      if (cell >= 0 && w > this.depth[cell] + brush.tolerance) continue;
      indices[kept] = v;
      distances[kept++] = distances[i];
    }
    return kept;
  }

  /** Grid cell of an NDC point, or -1 outside the grid. */
  private cellOf(ndcX: number, ndcY: number, brush: BrushFootprint): number {
    const gx = Math.floor((((ndcX + 1) / 2) * brush.width - this.left) / this.scale);
    const gy = Math.floor((((1 - ndcY) / 2) * brush.height - this.top) / this.scale);
    return gx >= 0 && gy >= 0 && gx < this.side && gy < this.side ? gx + this.side * gy : -1;
  }

  private rasterize(bvh: MeshBVH, camera: THREE.PerspectiveCamera, brush: BrushFootprint): void {
    // The square: 1.5 × the radius (the near half of the brush sphere projects a little larger) plus a margin.
    const half = Math.ceil(1.5 * brush.radius + 2);
    this.scale = Math.max(1, (2 * half) / MAX_SIDE);
    this.side = Math.ceil((2 * half) / this.scale);
    this.left = brush.x - half;
    this.top = brush.y - half;
    const cells = this.side * this.side;
    if (this.depth.length < cells) this.depth = new Float32Array(cells);
    const depth = this.depth;
    depth.fill(Infinity, 0, cells);

    camera.updateMatrixWorld();
    viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this.m.set(viewProjection.elements);
    // The sub-frustum through the square: clip' = S · clip maps the square onto NDC [-1, 1]².
    const cx = (brush.x / brush.width) * 2 - 1;
    const cy = 1 - (brush.y / brush.height) * 2;
    const hx = (2 * half) / brush.width;
    const hy = (2 * half) / brush.height;
    subRect.set(1 / hx, 0, 0, -cx / hx, 0, 1 / hy, 0, -cy / hy, 0, 0, 1, 0, 0, 0, 0, 1);
    frustum.setFromProjectionMatrix(subRect.multiply(viewProjection));
    // Far plane at maxDepth: the far side of the mesh cannot hide anything and is culled with its BVH nodes.
    camera.getWorldDirection(direction);
    frustum.planes[4].set(direction.clone().negate(), brush.maxDepth + direction.dot(camera.getWorldPosition(eye)));

    const m = this.m;
    const side = this.side;
    const scale = this.scale;
    const left = this.left;
    const top = this.top;
    const px = new Float64Array(3), py = new Float64Array(3), inv = new Float64Array(3);
    bvh.shapecast({
      intersectsBounds: (box) => (frustum.intersectsBox(box) ? INTERSECTED : NOT_INTERSECTED),
      intersectsTriangle: (triangle) => {
        let nearest = Infinity;
        for (let k = 0; k < 3; k++) {
          const { x, y, z } = k === 0 ? triangle.a : k === 1 ? triangle.b : triangle.c;
          const w = m[3] * x + m[7] * y + m[11] * z + m[15];
          // Behind or at the camera: such a triangle is not drawn (the near plane clips it in the viewport too).
          if (!(w > camera.near)) return false;
          px[k] = (((((m[0] * x + m[4] * y + m[8] * z + m[12]) / w) + 1) / 2) * brush.width - left) / scale;
          py[k] = ((((1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / w) / 2) * brush.height) - top) / scale;
          inv[k] = 1 / w;
          if (w < nearest) nearest = w;
        }
        if (nearest > brush.maxDepth) return false;
        const area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
        if (area === 0) return false;
        const x0 = Math.max(0, Math.ceil(Math.min(px[0], px[1], px[2]) - 0.5));
        const x1 = Math.min(side - 1, Math.floor(Math.max(px[0], px[1], px[2]) - 0.5));
        const y0 = Math.max(0, Math.ceil(Math.min(py[0], py[1], py[2]) - 0.5));
        const y1 = Math.min(side - 1, Math.floor(Math.max(py[0], py[1], py[2]) - 0.5));
        // Cell centres inside the triangle (edge functions), depth from 1/w interpolated linearly on screen.
        for (let gy = y0; gy <= y1; gy++) {
          const sy = gy + 0.5;
          for (let gx = x0; gx <= x1; gx++) {
            const sx = gx + 0.5;
            const b0 = ((px[1] - sx) * (py[2] - sy) - (px[2] - sx) * (py[1] - sy)) / area;
            const b1 = ((px[2] - sx) * (py[0] - sy) - (px[0] - sx) * (py[2] - sy)) / area;
            const b2 = 1 - b0 - b1;
            if (b0 < 0 || b1 < 0 || b2 < 0) continue;
            const w = 1 / (b0 * inv[0] + b1 * inv[1] + b2 * inv[2]);
            const cell = gx + side * gy;
            if (w < depth[cell]) depth[cell] = w;
          }
        }
        return false;
      },
    });
  }
}
