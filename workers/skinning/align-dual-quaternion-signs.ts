/**
 * Precomputed antipodality (Kavan 2008 Sec. 4.1): q̂ and −q̂ are the same bone transform but blend differently, so
 * each bone's sign is chosen once per pose, against its parent: ⟨(−1)^s_π(i) q_π(i), (−1)^s_i q_i⟩ ≥ 0 on the real
 * parts. Roots are compared with the identity (real part w ≥ 0). This assumes every joint turns by less than 180°
 * relative to its parent; dualQuaternionSkinning with antipodality 'per-bone' then blends the signs as they are.
 * Unlike the per-vertex Algorithm 2 it does not guarantee a valid sign sequence for a vertex whose bones are far
 * apart in the hierarchy, and a joint passing 180° flips (Fig. 20).
 */

/**
 * Negates, in place, each bone's dual quaternion whose real part points away from its (already aligned) parent's.
 * @param parents  #B parent bone of each bone, -1 for roots
 * @param order    #B bone indices, parents before children
 * @param dq       #B × 8 dual quaternions (layout of workers/math/dual-quaternion.ts), modified in place
 */
export function alignDualQuaternionSigns(parents: Int32Array, order: Uint32Array, dq: Float64Array): void {
  for (let i = 0; i < order.length; i++) {
    const b = order[i];
    const p = parents[b];
    const o = 8 * b;
    let dot: number;
    if (p < 0) {
      dot = dq[o + 3];
    } else {
      const po = 8 * p;
      dot = dq[o] * dq[po] + dq[o + 1] * dq[po + 1] + dq[o + 2] * dq[po + 2] + dq[o + 3] * dq[po + 3];
    }
    if (dot < 0) for (let k = 0; k < 8; k++) dq[o + k] = -dq[o + k];
  }
}
