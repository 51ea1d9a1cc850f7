/**
 * How a measured number is shown to people: in plain decimals, never in exponent notation (2.88e-6 reads as jargon
 * to an artist), to 3 significant digits. A magnitude under a thousandth is shown as "< 0.001", which is what an
 * artist needs to know of it (too small to see); a caller that must tell tiny values apart shows them in a scaled
 * unit (a percentage of the mesh size) instead. Counts are written with their thousands grouped and their noun in the
 * singular for one. No DOM, no imports: any layer may use it.
 */

/** The smallest magnitude shown in digits; anything between 0 and it is "< 0.001". */
export const PLAIN_NUMBER_FLOOR = 0.001;

/**
 * `x` to 3 significant digits, without trailing zeros or an exponent: 0 → '0', 0.00125 → '0.00125', 1234.5 → '1230',
 * 0.000288 → '< 0.001', −0.000288 → '> -0.001'.
 */
export function plainNumber(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  if (Math.abs(x) < PLAIN_NUMBER_FLOOR) return x > 0 ? `< ${PLAIN_NUMBER_FLOOR}` : `> -${PLAIN_NUMBER_FLOOR}`;
  // From 0.001 up to 1e21, a JavaScript number prints in plain decimals.
  return String(Number(x.toPrecision(3)));
}

/** Groups thousands with thin spaces: 12 345. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

/** A count with its noun, singular for one: '1 undo step', '12 345 vertices' (`plural` where 's' is not it). */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : plural}`;
}
