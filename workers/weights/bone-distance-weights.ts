import type { DenseMatrix } from '../formats/types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { boundingBox } from '../mesh/bounds.ts';

/** ε of the falloff, in units of the bounding diagonal to the fourth power: (1% of the diagonal)⁴. */
const EPSILON = 1e-8;

/**
 * Provisional automatic bind until harmonic weights are computed: w_b ∝ 1 / (d_b⁴ + ε), where d_b is the
 * distance from the vertex to bone segment b, measured in units of the bounding diagonal of mesh and joints
 * (so the result does not depend on the model's scale), and ε = 1e-8 (a distance of 1% of the diagonal). Rows
 * are normalized to sum 1, so the weights are a partition of unity, strictly positive, and a vertex lying on a
 * bone gets its largest weight from that bone.
 * @param positions   #V × 3 rest positions
 * @param skeleton    rest skeleton with #B bones
 * @param outWeights  optional #V × #B matrix to fill (reused when its shape matches)
 * @returns #V × #B row-major weights
 */
export function boneDistanceWeights(positions: Float64Array, skeleton: Skeleton, outWeights?: DenseMatrix): DenseMatrix {
  const vertexCount = Math.floor(positions.length / 3);
  const boneCount = skeleton.bones.length / 2;
  const weights =
    outWeights && outWeights.rows === vertexCount && outWeights.cols === boneCount
      ? outWeights
      : { rows: vertexCount, cols: boneCount, data: new Float64Array(vertexCount * boneCount) };
  const W = weights.data;

  const meshBox = boundingBox(positions);
  const jointBox = boundingBox(skeleton.joints);
  const span = Math.hypot(
    Math.max(meshBox.max[0], jointBox.max[0]) - Math.min(meshBox.min[0], jointBox.min[0]),
    Math.max(meshBox.max[1], jointBox.max[1]) - Math.min(meshBox.min[1], jointBox.min[1]),
    Math.max(meshBox.max[2], jointBox.max[2]) - Math.min(meshBox.min[2], jointBox.min[2]),
  );
  const scale = span > 0 && Number.isFinite(span) ? 1 / span : 1;

  // Segments in diagonal units: start a, direction e = b − a, and 1/|e|² (0 for a zero-length bone).
  const segment = new Float64Array(boneCount * 7);
  const { joints, bones } = skeleton;
  for (let b = 0; b < boneCount; b++) {
    const s = 3 * bones[2 * b],
      e = 3 * bones[2 * b + 1];
    const ax = joints[s] * scale,
      ay = joints[s + 1] * scale,
      az = joints[s + 2] * scale;
    const ex = joints[e] * scale - ax,
      ey = joints[e + 1] * scale - ay,
      ez = joints[e + 2] * scale - az;
    const length2 = ex * ex + ey * ey + ez * ez;
    segment.set([ax, ay, az, ex, ey, ez, length2 > 0 ? 1 / length2 : 0], 7 * b);
  }

  for (let v = 0; v < vertexCount; v++) {
    const px = positions[3 * v] * scale,
      py = positions[3 * v + 1] * scale,
      pz = positions[3 * v + 2] * scale;
    const row = v * boneCount;
    let sum = 0;
    for (let b = 0, o = 0; b < boneCount; b++, o += 7) {
      const qx = px - segment[o],
        qy = py - segment[o + 1],
        qz = pz - segment[o + 2];
      const ex = segment[o + 3],
        ey = segment[o + 4],
        ez = segment[o + 5];
      let t = (qx * ex + qy * ey + qz * ez) * segment[o + 6];
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const dx = qx - t * ex,
        dy = qy - t * ey,
        dz = qz - t * ez;
      const d2 = dx * dx + dy * dy + dz * dz;
      const w = 1 / (d2 * d2 + EPSILON);
      W[row + b] = w;
      sum += w;
    }
    const inv = 1 / sum;
    for (let b = 0; b < boneCount; b++) W[row + b] *= inv;
  }
  return weights;
}
