/**
 * Vertex animation ("baked" deformation) for glTF: glTF skins blend linearly only (glTF 2.0 §3.7.3), so any other
 * deformation — dual quaternion skinning, per-face skinning, pose-space corrections — reaches other programs as
 * morph targets, one per keyframe, played by a `weights` animation. Keyframe f has weight 1 on target f and 0 on
 * all others; LINEAR interpolation between two such keys blends the two neighbouring frames, exactly what a
 * frame-to-frame lerp of the positions gives. Targets carry normal deltas too, so shading follows the bake.
 */

/** A deformation to bake: `positionsAt` fills the posed positions of frame f (0 … frameCount − 1). */
export interface GltfVertexAnimation {
  /** animation clip name */
  name: string;
  frameCount: number;
  /** seconds of each frame (a clip with key times); absent: frame f plays at f / framesPerSecond */
  times?: Float64Array;
  /**
   * Posed positions of one frame.
   * @param frame  0-based frame number; frame f plays at times[f], or f / framesPerSecond without times
   * @param out    #V × 3 posed positions, same vertices as the exported mesh
   */
  positionsAt(frame: number, out: Float64Array): void;
}

/** Bytes a bake adds to a glTF file, before the file is written (JSON and padding not counted). */
export interface VertexAnimationCost {
  /** one VEC3 float32 position delta and one normal delta per vertex and target */
  targetBytes: number;
  /** keyframe times (float32) plus keyframe weights: every keyframe stores one float32 per target of the mesh */
  animationBytes: number;
  totalBytes: number;
}

/**
 * Size of baked vertex animation in a glTF binary buffer. The weights output holds keyframes × all targets of the
 * mesh, so it grows with the square of the total frame count.
 * @param vertexCount  #V of the exported mesh
 * @param frameCounts  frames of each baked clip (all clips share the mesh's targets)
 * @returns byte counts, see VertexAnimationCost
 */
export function vertexAnimationCost(vertexCount: number, frameCounts: readonly number[]): VertexAnimationCost {
  const targets = frameCounts.reduce((sum, n) => sum + n, 0);
  const targetBytes = targets * vertexCount * 24;
  let animationBytes = 0;
  for (const frames of frameCounts) animationBytes += frames * 4 + frames * targets * 4;
  return { targetBytes, animationBytes, totalBytes: targetBytes + animationBytes };
}
