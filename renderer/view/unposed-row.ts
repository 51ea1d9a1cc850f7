/**
 * The unposed examples beside the rest mesh (handout Sec. 8, required output 1): a row of static meshes — the rest
 * shape S_0 first, then up to three unposed examples S̄_j — spaced along x by the rest mesh's width, so their
 * differences (the deformation nuances the examples carry) can be compared side by side. Replaces the skinned
 * mesh on screen while shown. A view: it draws what it is given.
 */
import * as THREE from 'three';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';

export interface RowShape {
  name: string;
  positions: Float64Array;
}

export class UnposedRow {
  readonly group = new THREE.Group();
  private readonly material = new THREE.MeshStandardMaterial({ color: 0xb9c2cf, roughness: 0.62, metalness: 0.05, side: THREE.DoubleSide });
  private readonly restMaterial = new THREE.MeshStandardMaterial({
    color: 0x8fa3b8,
    roughness: 0.62,
    metalness: 0.05,
    side: THREE.DoubleSide,
  });
  /** names of the shapes shown, left to right */
  shown: string[] = [];

  constructor(scene: THREE.Scene) {
    this.group.visible = false;
    scene.add(this.group);
  }

  get visible(): boolean {
    return this.group.visible;
  }

  /**
   * Shows the rest shape and the given shapes in a row.
   * @returns the row's bounding box, for framing
   */
  show(rest: RowShape, shapes: readonly RowShape[], triangles: Uint32Array): { min: number[]; max: number[] } {
    this.clear();
    const box = boundingBox(rest.positions);
    const step = 1.15 * (box.max[0] - box.min[0]);
    [rest, ...shapes].forEach((shape, i) => {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(shape.positions), 3));
      geometry.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(vertexNormals(shape.positions, triangles)), 3));
      geometry.setIndex(new THREE.BufferAttribute(triangles, 1));
      const mesh = new THREE.Mesh(geometry, i === 0 ? this.restMaterial : this.material);
      mesh.position.x = i * step;
      mesh.name = shape.name;
      this.group.add(mesh);
    });
    this.shown = [rest.name, ...shapes.map((s) => s.name)];
    this.group.visible = true;
    return { min: box.min, max: [box.max[0] + shapes.length * step, box.max[1], box.max[2]] };
  }

  hide(): void {
    this.clear();
    this.group.visible = false;
  }

  private clear(): void {
    for (const child of [...this.group.children]) {
      (child as THREE.Mesh).geometry.dispose();
      this.group.remove(child);
    }
    this.shown = [];
  }

  dispose(): void {
    this.clear();
    this.material.dispose();
    this.restMaterial.dispose();
  }
}
