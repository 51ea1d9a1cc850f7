/**
 * The per-vertex values the skinned views colour the mesh with: the distortion heat map (each vertex's one-ring
 * area change from the rest shape) and the examples' maps (the displacement applied now, or the distance to an
 * example at its own pose). Values in [0, 1] for the views' colour ramp; buffers kept per mesh, so a frame
 * allocates nothing. DOM-free and without three.js.
 */
import { oneRingAreaChange, oneRingAreas } from '../../workers/mesh/one-ring-area-change.ts';
import { poseDistance } from '../../workers/posespace/pose-space-weights.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { ContextSource } from './context-source.ts';
import type { ExampleMapMode } from './deformation-settings.ts';
import { contextBaseOf, type SkinMethod } from './skin-methods.ts';
import { plainNumber } from '../project/plain-number.ts';

/** The skinning the examples' correction goes through, as the map's note names it. */
const BASE_NAMES = { lbs: 'linear blend', dqs: 'dual quaternion' } as const;

/** The lowest and highest of some values (0 and 0 for none). */
export function valueRange(values: ArrayLike<number>): { min: number; max: number } {
  if (values.length === 0) return { min: 0, max: 0 };
  let min = Infinity,
    max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { min, max };
}

export class VertexMaps {
  private mesh: SceneDocument['mesh'] | null = null;
  private restAreas: Float64Array = new Float64Array(0);
  private scratchAreas = new Float64Array(0);
  private distortionValues = new Float32Array(0);
  private magnitudes = new Float32Array(0);

  constructor(private doc: SceneDocument) {
    this.setDocument(doc);
  }

  /** A new document: the rest areas are measured again when its mesh is another one. */
  setDocument(doc: SceneDocument): void {
    this.doc = doc;
    if (doc.mesh === this.mesh) return;
    this.mesh = doc.mesh;
    const n = doc.mesh.positions.length / 3;
    this.restAreas = oneRingAreas(doc.mesh.positions, doc.mesh.triangles, new Float64Array(n));
    this.scratchAreas = new Float64Array(n);
    this.distortionValues = new Float32Array(n);
  }

  /**
   * The distortion heat map of posed positions: each vertex's one-ring area change (oneRingAreaChange).
   * @returns #V values (a buffer reused by the next call)
   */
  distortion(positions: ArrayLike<number>): Float32Array {
    oneRingAreaChange(this.restAreas, positions, this.doc.mesh.triangles, this.distortionValues, this.scratchAreas);
    return this.distortionValues;
  }

  /**
   * The examples' map of a method at a pose. 'displacement': |Σ_j a_j δ_j| through the method's base (full scale:
   * the largest |δ| of any example); 'error': at an example's own pose, each vertex's distance to that example
   * (full scale: 0.1% of the bounding-box diagonal). The note is in plain words and plain numbers (no symbols, no
   * exponents): the panel shows it, and the paper's formula goes in its tooltip.
   * @param posed  the method's CPU reference at the pose (asked for only in 'error' mode, at an example's pose)
   * @returns #V values in [0, 1] (a buffer reused by the next call), the full scale they are over (mesh units; 0
   *          while blank) and what they show, in words (their scale, or why they are blank)
   */
  exampleMap(
    mode: Exclude<ExampleMapMode, 'off'>,
    method: SkinMethod,
    rotations: Float64Array,
    context: ContextSource | null,
    posed: () => ArrayLike<number>,
  ): { values: Float32Array; fullScale: number; note: string } {
    const n = this.doc.mesh.positions.length / 3;
    if (this.magnitudes.length !== n) this.magnitudes = new Float32Array(n);
    const values = this.magnitudes.fill(0);
    if (!context || context.active.length === 0) return { values, fullScale: 0, note: 'no examples shown' };
    if (mode === 'displacement') {
      const base = contextBaseOf(method) ?? (method === 'dqs' ? 'dqs' : 'lbs');
      const displacements = context.displacements(base);
      if (!displacements) return { values, fullScale: 0, note: 'waiting for unposing' };
      let scale = 0;
      for (let i = 0; i < displacements.length; i += 3)
        scale = Math.max(scale, Math.hypot(displacements[i], displacements[i + 1], displacements[i + 2]));
      const { weights } = context;
      let largest = 0;
      for (let v = 0; v < n; v++) {
        let x = 0,
          y = 0,
          z = 0;
        for (let j = 0; j < weights.length; j++) {
          const o = 3 * (j * n + v);
          x += weights[j] * displacements[o];
          y += weights[j] * displacements[o + 1];
          z += weights[j] * displacements[o + 2];
        }
        const length = Math.hypot(x, y, z);
        largest = Math.max(largest, length);
        values[v] = scale > 0 ? length / scale : 0;
      }
      return {
        values,
        fullScale: scale,
        note:
          `the correction now, through ${BASE_NAMES[base]}: up to ${plainNumber(largest)} ` +
          `(${this.percentOfSize(largest)}); full colour at ${plainNumber(scale)}, the largest of any example`,
      };
    }
    const B = this.doc.skeleton.parents.length;
    const example = context.active.find((e) => poseDistance(e.pose, 0, rotations, 0, B) < 1e-9);
    if (!example) return { values, fullScale: 0, note: 'not at an example’s pose: go to one (its frame) to see the error against it' };
    const positions = posed();
    const scale = 1e-3 * this.doc.diagonal;
    let worst = 0;
    for (let v = 0; v < n; v++) {
      const d = Math.hypot(
        positions[3 * v] - example.positions[3 * v],
        positions[3 * v + 1] - example.positions[3 * v + 1],
        positions[3 * v + 2] - example.positions[3 * v + 2],
      );
      worst = Math.max(worst, d);
      values[v] = d / scale;
    }
    return {
      values,
      fullScale: scale,
      note: `distance to ${example.name}: up to ${this.percentOfSize(worst)}; full colour at 0.1%`,
    };
  }

  /** A length as a percentage of the mesh size (its bounding box's diagonal), in words. */
  private percentOfSize(length: number): string {
    return `${plainNumber((100 * length) / this.doc.diagonal)}% of the mesh size`;
  }
}
