import type { DenseMatrix, TgfSkeleton, TriangleMesh } from '../formats/types.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import type { DemoScene } from './demo-scene.ts';

/** Tube length along x and radius, in scene units. */
export const TWIST_LENGTH = 2;
export const TWIST_RADIUS = 0.22;
/** Height of the ridge along the top of the tube, as a fraction of the radius: it makes the twist visible. */
const RIDGE = 0.18;
const RINGS = 97;
const SEGMENTS = 48;
/** Frames 0 … 60 twist by 3° steps to 180°; frames 61 … 69 pass 179° → 181° by 0.25°. */
const SWEEP_FRAMES = 61;
const PASS_FRAMES = 9;

/** The twist angle of the second bone at a frame of the demo's sequence, in degrees. */
export function twistDegreesAt(frame: number): number {
  return frame < SWEEP_FRAMES ? 3 * frame : 179 + 0.25 * (frame - SWEEP_FRAMES);
}

/**
 * The classic skinning test (Kavan 2008 Fig. 2 and 20): a closed tube along x with two bones, the second
 * twisting about the tube's axis 0° → 180° over the timeline, then passing 179° → 181°. Linear blend skinning
 * collapses the middle to a "candy wrapper" near 180°; dual quaternion skinning keeps the radius, and with
 * per-bone antipodality flips to the other way round once the twist passes 180°.
 * A low ridge along the top (+y) shows which way the tube turned. Weights blend the two bones smoothly over
 * the middle fifth of the tube. Ring (RINGS − 1) / 2 lies at the joint.
 */
export function buildTwistDemo(): DemoScene {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let r = 0; r < RINGS; r++) {
    const x = (TWIST_LENGTH * r) / (RINGS - 1);
    for (let s = 0; s < SEGMENTS; s++) {
      const a = (2 * Math.PI * s) / SEGMENTS;
      const r = TWIST_RADIUS * (1 + RIDGE * Math.max(0, Math.cos(a)) ** 6);
      positions.push(x, r * Math.cos(a), r * Math.sin(a));
    }
  }
  for (let r = 0; r + 1 < RINGS; r++) {
    for (let s = 0; s < SEGMENTS; s++) {
      const a = r * SEGMENTS + s,
        b = r * SEGMENTS + ((s + 1) % SEGMENTS);
      const c = a + SEGMENTS,
        d = b + SEGMENTS;
      triangles.push(a, b, d, a, d, c);
    }
  }
  // Caps: one centre vertex per end, fans facing outward (−x at the start, +x at the end).
  const startCentre = positions.length / 3;
  positions.push(0, 0, 0);
  const endCentre = startCentre + 1;
  positions.push(TWIST_LENGTH, 0, 0);
  const last = (RINGS - 1) * SEGMENTS;
  for (let s = 0; s < SEGMENTS; s++) {
    const next = (s + 1) % SEGMENTS;
    triangles.push(startCentre, next, s);
    triangles.push(endCentre, last + s, last + next);
  }
  const mesh: TriangleMesh = { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };

  const skeleton: TgfSkeleton = {
    joints: Float64Array.from([0, 0, 0, TWIST_LENGTH / 2, 0, 0, TWIST_LENGTH, 0, 0]),
    bones: Uint32Array.from([0, 1, 1, 2]),
  };

  const n = positions.length / 3;
  const weights: DenseMatrix = { rows: n, cols: 2, data: new Float64Array(2 * n) };
  for (let v = 0; v < n; v++) {
    const t = Math.min(1, Math.max(0, (positions[3 * v] / TWIST_LENGTH - 0.4) / 0.2));
    const second = t * t * (3 - 2 * t);
    weights.data[2 * v] = 1 - second;
    weights.data[2 * v + 1] = second;
  }

  const frameCount = SWEEP_FRAMES + PASS_FRAMES;
  const rotations = new Float64Array(frameCount * 2 * 9);
  for (let f = 0; f < frameCount; f++) {
    const angle = (twistDegreesAt(f) * Math.PI) / 180;
    const c = Math.cos(angle),
      s = Math.sin(angle);
    rotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 2 * f * 9);
    rotations.set([1, 0, 0, 0, c, -s, 0, s, c], (2 * f + 1) * 9);
  }
  const poses: PoseSequence = { kind: 'matrices', boneCount: 2, frameCount, rotations };
  return { name: 'Twist test', mesh, skeleton, weights, poses };
}
