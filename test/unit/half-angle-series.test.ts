/**
 * The exp's series (workers/math/half-angle-series.ts) against Math.sin and Math.cos: sin h / h and cos h on the
 * half angles [0, π/2] where they are used, the exp's sin|l| / |l| and cos|l| on [0, π] from them, and the
 * Math.sin / Math.cos fallback beyond.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HALF_ANGLE_SERIES_LIMIT, halfCos, halfSinc, logExpCos, logExpSinc } from '../../workers/math/half-angle-series.ts';

/** The spacing of doubles in [1, 2): one ulp of 1. */
const ULP_ONE = 2 ** -52;

/** One ulp of x: the spacing of doubles at |x|. */
function ulp(x: number): number {
  return 2 ** (Math.floor(Math.log2(Math.abs(x))) - 52);
}

/** 20,001 angles evenly from 0 to `end`, `end` included. */
function angles(end: number): number[] {
  return Array.from({ length: 20_001 }, (_, i) => (i === 20_000 ? end : (end * i) / 20_000));
}

test('halfSinc(h²) is sin h / h to 4 ulp of the value on [0, π/2], and 1 at 0', () => {
  assert.equal(halfSinc(0), 1);
  assert.equal(HALF_ANGLE_SERIES_LIMIT, (Math.PI / 2) ** 2);
  let worst = 0;
  for (const h of angles(Math.PI / 2)) {
    if (h === 0) continue;
    const expected = Math.sin(h) / h;
    worst = Math.max(worst, Math.abs(halfSinc(h * h) - expected) / ulp(expected));
  }
  assert.ok(worst <= 4, `largest difference ${worst} ulp`);
});

test('halfCos(h²) is cos h to 4 ulp of 1 on [0, π/2] (the series sums terms up to 1; cos h tends to 0 at π/2)', () => {
  assert.equal(halfCos(0), 1);
  let worst = 0;
  for (const h of angles(Math.PI / 2)) worst = Math.max(worst, Math.abs(halfCos(h * h) - Math.cos(h)) / ULP_ONE);
  assert.ok(worst <= 4, `largest difference ${worst} ulp of 1`);
});

test('the exp of a log of length a in [0, π]: logExpSinc is sin a / a to 4 ulp of 1 (it tends to 0 at π), logExpCos cos a to 8 ulp of 1 (4 of 2, the size of the 2h²(sin h / h)² it subtracts from 1 near π)', () => {
  assert.equal(logExpSinc(0), 1);
  assert.equal(logExpCos(0), 1);
  let worstSinc = 0;
  let worstCos = 0;
  for (const a of angles(Math.PI)) {
    worstCos = Math.max(worstCos, Math.abs(logExpCos(a * a) - Math.cos(a)) / ULP_ONE);
    if (a > 0) worstSinc = Math.max(worstSinc, Math.abs(logExpSinc(a * a) - Math.sin(a) / a) / ULP_ONE);
  }
  assert.ok(worstSinc <= 4, `sin a / a: largest difference ${worstSinc} ulp of 1`);
  assert.ok(worstCos <= 8, `cos a: largest difference ${worstCos} ulp of 1`);
});

test('beyond a log of length π the exp takes Math.sin and Math.cos: the same bits', () => {
  for (const a of [Math.PI * (1 + 1e-12), 3.5, 5, 2 * Math.PI, 10, 100]) {
    assert.equal(logExpSinc(a * a), Math.sin(Math.sqrt(a * a)) / Math.sqrt(a * a), `sin a / a at a = ${a}`);
    assert.equal(logExpCos(a * a), Math.cos(Math.sqrt(a * a)), `cos a at a = ${a}`);
  }
});
