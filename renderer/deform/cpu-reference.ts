/**
 * The CPU reference of the viewport's skinning: for a document, its influences and a pose, the #V × 3 posed
 * positions of any method the viewport shows (linear blend, dual quaternion, weight blended, per-face, and their
 * context forms), computed with workers/skinning and workers/posespace. The GPU readback is tested against it, the
 * "posed positions" of the app and the distortion and example maps come from it.
 *
 * It stays in renderer/deform/ rather than workers/skinning/: it speaks the viewport's method names
 * (skin-methods.ts) and reads the pose-space controller's context (context-source.ts), and it keeps per-document
 * caches (the per-face factor, the examples' per-face transformations); the arithmetic it calls is all in workers/.
 * DOM-free and without three.js, so Node tests run it.
 */
import type { Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning, type DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { alignDualQuaternionSigns } from '../../workers/skinning/align-dual-quaternion-signs.ts';
import { splitNonRigidTransforms } from '../../workers/skinning/split-non-rigid-transform.ts';
import { weightBlendedSkinning } from '../../workers/skinning/weight-blended-skinning.ts';
import {
  perFaceFixedVertices,
  perFaceSkinning,
  perFaceSkinningSetup,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import {
  perFaceContextSkinning,
  perFaceExamples,
  perFaceUnposeExamples,
  type PerFaceExamples,
} from '../../workers/posespace/per-face-context.ts';
import type { ExampleShape, SceneDocument } from '../../workers/scene/scene-document.ts';
import type { ContextSource } from './context-source.ts';
import type { PoseEvaluator } from './pose-evaluator.ts';
import { contextBaseOf, isPerFace, perFaceBlendOf, type SkinMethod } from './skin-methods.ts';

/** The pose a reference is computed at (a PoseEvaluator after evaluate). */
export type ReferencePose = Pick<PoseEvaluator, 'transforms' | 'boneScales' | 'scaled'>;

/** The settings a reference depends on besides the method and the pose. */
export interface ReferenceSettings {
  antipodality: DualQuaternionAntipodality;
  /** #V LBS ↔ DQS blend of method 'blend' */
  blendWeights: Float32Array;
  /** the examples' displacements and weights of the context methods, or null: none */
  context: ContextSource | null;
}

/**
 * The per-vertex transformations of a pose for DQS and the weight-blended method: unit dual quaternions and, when a
 * bone is scaled, the first-phase scale of each non-rigid joint (splitNonRigidTransforms); signs aligned along the
 * skeleton in 'per-bone' antipodality.
 * @param dualQuaternions  #B × 8, written
 * @param scales           #B × 12, written when the pose is scaled
 * @returns `scales` when the pose is scaled, else null
 */
export function poseDualQuaternions(
  skeleton: Skeleton,
  pose: ReferencePose,
  antipodality: DualQuaternionAntipodality,
  dualQuaternions: Float64Array,
  scales: Float64Array,
): Float64Array | null {
  const scaled = pose.scaled;
  if (scaled) splitNonRigidTransforms(skeleton, pose.transforms, dualQuaternions, scales);
  // Without bone scales the transforms are rigid (scaledForwardKinematics equals forwardKinematics exactly).
  else dualQuatsFromRigidMatrices(pose.transforms, dualQuaternions);
  if (antipodality === 'per-bone') alignDualQuaternionSigns(skeleton.parents, skeleton.order, dualQuaternions);
  return scaled ? scales : null;
}

/** Per-face stitching's fixed vertices: those of the root bones' handles (perFaceFixedVertices). */
export function perFaceFixedBones(doc: SceneDocument, influences: Influences): Int32Array {
  return perFaceFixedVertices(doc.skeleton.parents, influences, doc.handles);
}

/** Each example's positions and the bone transforms of its own pose: the input of per-face unposing. */
export function perFaceUnposeInputs(
  skeleton: Skeleton,
  examples: readonly ExampleShape[],
): { positions: Float64Array; transforms: Float64Array }[] {
  return examples.map((e) => {
    const transforms = new Float64Array(12 * skeleton.parents.length);
    forwardKinematics(skeleton, e.pose, transforms);
    return { positions: e.positions.slice(), transforms };
  });
}

export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class CpuReference {
  private out: Float64Array;
  private dualQuaternions: Float64Array;
  private scales: Float64Array;
  private perFaceSetup: PerFaceSkinningSetup | null = null;
  /** per-face context's examples' face transformations, for the example list they were made of */
  private perFaceContext: { examples: readonly ExampleShape[]; data: PerFaceExamples } | null = null;

  constructor(
    private doc: SceneDocument,
    private influences: Influences,
  ) {
    this.out = new Float64Array(doc.mesh.positions.length);
    this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
    this.scales = new Float64Array(12 * doc.skeleton.parents.length);
  }

  /** A new document, new handles or new influences: the per-face caches, made of them, start over. */
  setScene(doc: SceneDocument, influences: Influences): void {
    if (doc.mesh.positions.length !== this.out.length) this.out = new Float64Array(doc.mesh.positions.length);
    if (doc.skeleton.parents.length !== this.dualQuaternions.length / 8) {
      this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
      this.scales = new Float64Array(12 * doc.skeleton.parents.length);
    }
    this.doc = doc;
    this.influences = influences;
    this.dropPerFace();
  }

  /** The influences were edited in place: the per-face setup, made of them, is made again when next used. */
  dropPerFace(): void {
    this.perFaceSetup = null;
    this.perFaceContext = null;
  }

  /**
   * The posed positions of a method at a pose.
   * @returns #V × 3 positions (a buffer reused by the next call)
   */
  positions(method: SkinMethod, pose: ReferencePose, settings: ReferenceSettings): Float64Array {
    const out = this.out;
    if (isPerFace(method) && this.doc.skeleton.parents.length === 0) {
      // No bone moves anything (a mesh without a skeleton yet), and the stitching has no fixed vertex: the rest mesh.
      out.set(this.doc.mesh.positions);
    } else if (isPerFace(method)) {
      const { doc } = this;
      this.perFaceSetup ??= perFaceSkinningSetup(
        doc.mesh.positions,
        doc.mesh.triangles,
        this.influences,
        doc.skeleton.parents.length,
        perFaceFixedBones(doc, this.influences),
      );
      const blend = perFaceBlendOf(method);
      const scales = pose.scaled ? pose.boneScales : null;
      const { context } = settings;
      if (blend && context) {
        const examples = this.perFaceContextExamples(this.perFaceSetup, context.active);
        perFaceContextSkinning(this.perFaceSetup, examples, context.weights, blend, pose.transforms, out, undefined, scales);
      } else perFaceSkinning(this.perFaceSetup, pose.transforms, out, undefined, scales);
    } else {
      this.skinPerVertex(method, pose, settings, this.doc.mesh.positions, this.influences, settings.blendWeights, out);
    }
    return out;
  }

  /**
   * `positions` at some vertices only, for a method that skins each vertex on its own (all but per-face, whose
   * Poisson solve couples every vertex).
   * @param vertices the vertices (first `count`)
   * @param out      count × 3 their positions, in the order of `vertices`
   * @returns false, writing nothing, for per-face skinning
   */
  positionsAt(
    method: SkinMethod,
    pose: ReferencePose,
    settings: ReferenceSettings,
    vertices: ArrayLike<number>,
    count: number,
    out: Float64Array,
  ): boolean {
    if (isPerFace(method)) return false;
    const { stride } = this.influences;
    const rest = new Float64Array(3 * count);
    const influences: Influences = {
      vertexCount: count,
      stride,
      bones: new Uint32Array(count * stride),
      weights: new Float32Array(count * stride),
    };
    const blend = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      rest.set(this.doc.mesh.positions.subarray(3 * v, 3 * v + 3), 3 * i);
      influences.bones.set(this.influences.bones.subarray(v * stride, v * stride + stride), i * stride);
      influences.weights.set(this.influences.weights.subarray(v * stride, v * stride + stride), i * stride);
      blend[i] = settings.blendWeights[v];
    }
    this.skinPerVertex(method, pose, settings, rest, influences, blend, out, vertices);
    return true;
  }

  /** @param vertices  which vertices `rest` holds (positionsAt), or undefined for all of them in order */
  private skinPerVertex(
    method: SkinMethod,
    pose: ReferencePose,
    settings: ReferenceSettings,
    rest: Float64Array,
    influences: Influences,
    blend: Float32Array,
    out: Float64Array,
    vertices?: ArrayLike<number>,
  ): void {
    const { antipodality, context } = settings;
    const scaleTransforms = poseDualQuaternions(this.doc.skeleton, pose, antipodality, this.dualQuaternions, this.scales);
    const options = { antipodality, scaleTransforms };
    const base = contextBaseOf(method);
    const displacements = base && context ? context.displacements(base) : null;
    if (context && displacements) {
      // The examples' displacements of these vertices, weighted, move the rest positions first (Eq. 7).
      const n = this.doc.mesh.positions.length;
      const corrected = new Float64Array(rest.length);
      const weights = context.weights;
      const whole = rest.length === n && rest === this.doc.mesh.positions;
      for (let i = 0; i < rest.length / 3; i++) {
        const v = whole ? i : (vertices?.[i] ?? i);
        for (let c = 0; c < 3; c++) {
          let x = rest[3 * i + c];
          for (let j = 0; j < weights.length; j++) if (weights[j] !== 0) x += weights[j] * displacements[j * n + 3 * v + c];
          corrected[3 * i + c] = x;
        }
      }
      rest = corrected;
    }
    switch (method) {
      case 'context-lbs':
      case 'lbs':
        linearBlendSkinning(rest, influences, pose.transforms, out);
        break;
      case 'context-dqs':
      case 'dqs':
        dualQuaternionSkinning(rest, influences, this.dualQuaternions, out, options);
        break;
      case 'blend':
        weightBlendedSkinning(rest, influences, pose.transforms, this.dualQuaternions, blend, out, options);
        break;
      default:
        throw new Error(`${method} is solved per face, not per vertex`);
    }
  }

  /** The examples' per-face transformations (unposed per face on this thread, once per example list). */
  private perFaceContextExamples(setup: PerFaceSkinningSetup, examples: readonly ExampleShape[]): PerFaceExamples {
    const cached = this.perFaceContext;
    if (cached && sameList(cached.examples, examples)) return cached.data;
    const unposed = perFaceUnposeExamples(setup, perFaceUnposeInputs(this.doc.skeleton, examples)).map((r) => r.unposed);
    const data = perFaceExamples(setup, unposed);
    this.perFaceContext = { examples, data };
    return data;
  }
}
