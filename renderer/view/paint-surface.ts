import * as THREE from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { createVertexGrid, moveGridVertices, type VertexGrid } from '../../workers/paint/vertex-grid.ts';

const changedBox = new THREE.Box3();
const scratch = new THREE.Vector3();

/**
 * The surface under the brush: the posed positions the brush paints on, a BVH over them (three-mesh-bvh) for the
 * ray under the cursor and the visibility test, and the vertex grid that gathers the brush's vertices.
 * Built once per pose. When painting moves some vertices (their weights changed while the mesh is posed),
 * `move` updates only those: the grid keeps their cells (moveGridVertices) and the BVH refits only the nodes
 * whose triangles hold one of them, instead of every node.
 */
export class PaintSurface {
  /** #V × 3 posed positions (this surface's own copy) */
  readonly positions: Float64Array;
  readonly bvh: MeshBVH;
  grid: VertexGrid;
  private readonly geometry: THREE.BufferGeometry;
  private readonly attribute: THREE.BufferAttribute;
  /** #V 1 = moved by the running `move` (cleared before it returns) */
  private readonly moving: Uint8Array;
  /** the running `move`'s moved vertices */
  private moved = new Uint32Array(0);

  /**
   * @param positions #V × 3 posed positions (copied)
   * @param triangles #F × 3 vertex indices (copied: the BVH reorders its index)
   */
  constructor(positions: ArrayLike<number>, triangles: Uint32Array) {
    this.positions = Float64Array.from(positions);
    this.geometry = new THREE.BufferGeometry();
    this.attribute = new THREE.BufferAttribute(new Float32Array(this.positions), 3);
    this.geometry.setAttribute('position', this.attribute);
    this.geometry.setIndex(new THREE.BufferAttribute(triangles.slice(), 1));
    this.bvh = new MeshBVH(this.geometry);
    this.grid = createVertexGrid(this.positions);
    this.moving = new Uint8Array(this.positions.length / 3);
  }

  /** Every position changed (a new pose): copies them, refits the whole BVH, rebuilds the grid. */
  setAll(positions: ArrayLike<number>): void {
    this.positions.set(positions);
    this.attribute.copyArray(this.positions);
    this.bvh.refit();
    this.grid = createVertexGrid(this.positions);
  }

  /**
   * Some vertices may have moved; those whose positions did not change cost nothing more.
   * @param vertices the vertices (first `count`), each once
   * @param count    number of entries of `vertices` to use
   * @param next     count × 3 their new positions, in the order of `vertices`
   */
  move(vertices: ArrayLike<number>, count: number, next: Float64Array): void {
    const { positions, moving } = this;
    const array = this.attribute.array as Float32Array;
    if (this.moved.length < count) this.moved = new Uint32Array(count);
    const moved = this.moved;
    // The nodes that can hold a moved vertex's triangle are those whose (old) bounds meet the moved vertices' old
    // box, taken from the float32 copy the bounds were computed from.
    changedBox.makeEmpty();
    let m = 0;
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      const x = next[3 * i],
        y = next[3 * i + 1],
        z = next[3 * i + 2];
      if (x === positions[3 * v] && y === positions[3 * v + 1] && z === positions[3 * v + 2]) continue;
      changedBox.expandByPoint(scratch.set(array[3 * v], array[3 * v + 1], array[3 * v + 2]));
      moving[v] = 1;
      moved[m++] = v;
      positions[3 * v] = x;
      positions[3 * v + 1] = y;
      positions[3 * v + 2] = z;
      array[3 * v] = x;
      array[3 * v + 1] = y;
      array[3 * v + 2] = z;
    }
    if (m === 0) return;
    if (!moveGridVertices(this.grid, positions, moved, m)) this.grid = createVertexGrid(positions);
    this.bvh.refit(this.nodesHolding(moving));
    for (let i = 0; i < m; i++) moving[moved[i]] = 0;
  }

  /** The first surface point along a ray (either face side), or null. */
  raycastFirst(ray: THREE.Ray): THREE.Intersection | null {
    return this.bvh.raycastFirst(ray, THREE.DoubleSide);
  }

  dispose(): void {
    this.geometry.dispose();
  }

  /**
   * The BVH nodes (as refit expects them: every leaf with a flagged vertex and all its ancestors) whose triangles
   * hold a vertex flagged in `flags`, searched among the nodes that meet changedBox.
   */
  private nodesHolding(flags: Uint8Array): Set<number> {
    const index = this.geometry.index!.array as Uint32Array;
    const nodes = new Set<number>();
    const path: number[] = [];
    this.bvh.shapecast({
      intersectsBounds: (box, _isLeaf, _score, depth, nodeIndex) => {
        path[depth] = nodeIndex;
        return box.intersectsBox(changedBox);
      },
      intersectsRange: (offset, count, _contained, depth) => {
        for (let i = 3 * offset, end = 3 * (offset + count); i < end; i++) {
          if (!flags[index[i]]) continue;
          // path[0] is unset: the refit always starts at the root.
          for (let d = 1; d <= depth; d++) nodes.add(path[d]);
          break;
        }
        return false;
      },
    });
    return nodes;
  }
}
