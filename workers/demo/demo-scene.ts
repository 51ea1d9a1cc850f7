import type { DenseMatrix, TgfSkeleton, TriangleMesh } from '../formats/types.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import { buildSkeleton } from '../rig/skeleton.ts';
import { boneDistanceWeights } from '../weights/bone-distance-weights.ts';

/** Everything the app shows before the user loads a file. */
export interface DemoScene {
  name: string;
  mesh: TriangleMesh;
  skeleton: TgfSkeleton;
  weights: DenseMatrix;
  poses: PoseSequence;
}

const SEGMENTS = 48;
const BODY_RINGS = 100;
const CAP_RINGS = 8;
const BODY_START = -0.9;
const BODY_END = 0.9;
const ANNULI = 16;
const BONES = 7;
/** Frames per wave period; the sequence stores one extra frame equal to the first so that it loops. */
const PERIOD_FRAMES = 96;

/** Body radius at parameter s ∈ [0, 1] from tail to head: a taper with flat ends, and shallow ring-shaped ridges. */
function bodyRadius(s: number): number {
  const taper = s * s * (3 - 2 * s);
  const ridge = Math.sin(Math.PI * ANNULI * s);
  return (0.07 + 0.08 * taper) * (1 + 0.06 * ridge * ridge);
}

/**
 * A little segmented worm along the x axis (y up), about 2 units long: a surface of revolution with a tapered,
 * ridged body and elongated round caps, closed, CCW triangles facing outward. 5570 vertices.
 */
function wormMesh(): TriangleMesh {
  // Profile: (x, radius) per ring from tail to head; the poles are separate vertices.
  const profileX: number[] = [];
  const profileR: number[] = [];
  const tailRadius = bodyRadius(0);
  const headRadius = bodyRadius(1);
  for (let k = CAP_RINGS; k >= 1; k--) {
    const phi = (k / (CAP_RINGS + 1)) * (Math.PI / 2);
    profileX.push(BODY_START - 1.5 * tailRadius * Math.sin(phi));
    profileR.push(tailRadius * Math.cos(phi));
  }
  for (let i = 0; i < BODY_RINGS; i++) {
    const s = i / (BODY_RINGS - 1);
    profileX.push(BODY_START + s * (BODY_END - BODY_START));
    profileR.push(bodyRadius(s));
  }
  for (let k = 1; k <= CAP_RINGS; k++) {
    const phi = (k / (CAP_RINGS + 1)) * (Math.PI / 2);
    profileX.push(BODY_END + 1.5 * headRadius * Math.sin(phi));
    profileR.push(headRadius * Math.cos(phi));
  }
  const rings = profileX.length;
  const vertexCount = rings * SEGMENTS + 2;
  const positions = new Float64Array(vertexCount * 3);
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < SEGMENTS; j++) {
      const angle = (2 * Math.PI * j) / SEGMENTS;
      const o = 3 * (i * SEGMENTS + j);
      positions[o] = profileX[i];
      positions[o + 1] = profileR[i] * Math.cos(angle);
      positions[o + 2] = profileR[i] * Math.sin(angle);
    }
  }
  const tailPole = rings * SEGMENTS;
  const headPole = tailPole + 1;
  positions[3 * tailPole] = BODY_START - 1.5 * tailRadius;
  positions[3 * headPole] = BODY_END + 1.5 * headRadius;

  const triangles = new Uint32Array(((rings - 1) * 2 + 2) * SEGMENTS * 3);
  let t = 0;
  for (let i = 0; i + 1 < rings; i++) {
    for (let j = 0; j < SEGMENTS; j++) {
      const a = i * SEGMENTS + j;
      const b = i * SEGMENTS + ((j + 1) % SEGMENTS);
      const c = b + SEGMENTS;
      const d = a + SEGMENTS;
      triangles.set([a, b, c, a, c, d], t);
      t += 6;
    }
  }
  const lastRing = (rings - 1) * SEGMENTS;
  for (let j = 0; j < SEGMENTS; j++) {
    const next = (j + 1) % SEGMENTS;
    triangles.set([tailPole, next, j], t);
    triangles.set([headPole, lastRing + j, lastRing + next], t + 3);
    t += 6;
  }
  return { positions, triangles };
}

/** A chain of bones on the worm's axis, from the tail (root) to the head. */
function wormSkeleton(): TgfSkeleton {
  const joints = new Float64Array((BONES + 1) * 3);
  const from = BODY_START - 0.02;
  const to = BODY_END + 0.08;
  for (let j = 0; j <= BONES; j++) joints[3 * j] = from + ((to - from) * j) / BONES;
  const bones = new Uint32Array(BONES * 2);
  for (let b = 0; b < BONES; b++) {
    bones[2 * b] = b;
    bones[2 * b + 1] = b + 1;
  }
  return { joints, bones };
}

/**
 * A travelling wave from tail to head: each bone bends about z (up and down) and, a quarter period later, about y
 * (side to side), lagging its parent in phase. The root bends least so that the worm stays in place. Frame
 * PERIOD_FRAMES repeats frame 0 exactly.
 */
function wormAnimation(): PoseSequence {
  const frameCount = PERIOD_FRAMES + 1;
  const rotations = new Float64Array(frameCount * BONES * 9);
  for (let f = 0; f < frameCount; f++) {
    const phase = (2 * Math.PI * (f % PERIOD_FRAMES)) / PERIOD_FRAMES;
    for (let b = 0; b < BONES; b++) {
      const amplitude = b === 0 ? 0.05 : 0.26;
      const wave = phase - 0.9 * b;
      const bend = amplitude * Math.sin(wave);
      const sway = 0.5 * amplitude * Math.cos(wave);
      const cz = Math.cos(bend),
        sz = Math.sin(bend);
      const cy = Math.cos(sway),
        sy = Math.sin(sway);
      // Rz(bend) · Ry(sway), row-major.
      rotations.set([cz * cy, -sz, cz * sy, sz * cy, cz, sz * sy, -sy, 0, cy], (f * BONES + b) * 9);
    }
  }
  return { kind: 'matrices', boneCount: BONES, frameCount, rotations };
}

/**
 * The procedural demo: a worm mesh (5570 vertices), a 7-bone chain along it, bone-distance weights and a
 * 97-frame looping wave (frame 96 equals frame 0).
 * @returns mesh (#V × 3 positions, #F × 3 triangles), TGF-style skeleton, #V × 7 weights, matrices pose sequence
 */
export function buildDemoScene(): DemoScene {
  const mesh = wormMesh();
  const skeleton = wormSkeleton();
  const weights = boneDistanceWeights(mesh.positions, buildSkeleton(skeleton, 'demo worm'));
  return { name: 'Demo worm', mesh, skeleton, weights, poses: wormAnimation() };
}
