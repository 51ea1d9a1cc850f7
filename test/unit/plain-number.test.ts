/**
 * plainNumber: 3 significant digits in plain decimals, never an exponent; magnitudes under a thousandth are "< 0.001".
 * The expectations are written out by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLAIN_NUMBER_FLOOR, plainNumber } from '../../renderer/project/plain-number.ts';

test('plainNumber: 3 significant digits without trailing zeros', () => {
  assert.deepEqual([0, 1, 0.5, 2, 0.00125, 1234.5, 0.70710678, 0.001, 0.00999, -0.5, 123456789].map(plainNumber), [
    '0',
    '1',
    '0.5',
    '2',
    '0.00125',
    '1230',
    '0.707',
    '0.001',
    '0.00999',
    '-0.5',
    '123000000',
  ]);
});

test('plainNumber: a magnitude under a thousandth is "< 0.001", never an exponent', () => {
  assert.equal(PLAIN_NUMBER_FLOOR, 0.001);
  assert.deepEqual([0.00000288, 2.2e-7, 0.0009995, 1e-300].map(plainNumber), ['< 0.001', '< 0.001', '< 0.001', '< 0.001']);
  assert.equal(plainNumber(-0.000288), '> -0.001');
  for (let k = -12; k <= 12; k++) {
    for (const mantissa of [1, 2.88, 9.999]) {
      const text = plainNumber(mantissa * 10 ** k);
      assert.doesNotMatch(text, /e/i, `${mantissa}e${k} is shown as ${text}`);
    }
  }
});
