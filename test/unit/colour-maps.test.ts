/**
 * The heat maps' colour maps (renderer/view/colour-maps.ts): the tables reproduce the maps the shaders drew before
 * they were written down once (hand-derived points of viridis, the distortion map's √ start from grey, the magnitude
 * map's √ start), and the generated GLSL, run as written (a line-by-line reading of its statements in JavaScript),
 * gives the same colours as the tables the legends sample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import {
  DISTORTION_COLOUR_MAP,
  MAGNITUDE_COLOUR_MAP,
  WEIGHT_COLOUR_MAP,
  colourMapCss,
  colourMapGlsl,
  colourMapSamples,
  colourMapValue,
  type ColourMap,
  type Rgb,
} from '../../renderer/view/colour-maps.ts';

const close = (actual: Rgb, expected: Rgb, what: string) =>
  actual.forEach((c, k) => assert.ok(Math.abs(c - expected[k]) < 1e-12, `${what}: channel ${k} ${c} ≠ ${expected[k]}`));

const mix = (a: Rgb, b: Rgb, f: number): Rgb => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];

test('viridis: its stops at multiples of 1/8, halfway between them the mean, clamped outside 0–1', () => {
  const stops = WEIGHT_COLOUR_MAP.stops;
  close(colourMapValue(WEIGHT_COLOUR_MAP, 0), [0.267, 0.005, 0.329], 'weight 0');
  close(colourMapValue(WEIGHT_COLOUR_MAP, 0.5), [0.128, 0.567, 0.551], 'weight 0.5');
  close(colourMapValue(WEIGHT_COLOUR_MAP, 1), [0.993, 0.906, 0.144], 'weight 1');
  close(colourMapValue(WEIGHT_COLOUR_MAP, 1.5 / 8), mix(stops[1], stops[2], 0.5), 'weight 3/16');
  close(colourMapValue(WEIGHT_COLOUR_MAP, -2), stops[0], 'below 0');
  close(colourMapValue(WEIGHT_COLOUR_MAP, 7), stops[8], 'above 1');
});

test('distortion: grey at 0, blue toward −1 and red toward +1 by the square root of the change', () => {
  const [shrink, neutral, grow] = DISTORTION_COLOUR_MAP.stops;
  close(colourMapValue(DISTORTION_COLOUR_MAP, 0), neutral, 'unchanged area');
  // log2 ratio −0.25: √0.25 = 0.5 of the way from grey to blue; +0.0625: √ = 0.25 of the way to red.
  close(colourMapValue(DISTORTION_COLOUR_MAP, -0.25), mix(neutral, shrink, 0.5), 'log2 ratio −0.25');
  close(colourMapValue(DISTORTION_COLOUR_MAP, 0.0625), mix(neutral, grow, 0.25), 'log2 ratio 0.0625');
  close(colourMapValue(DISTORTION_COLOUR_MAP, -3), shrink, 'an eighth of the area');
  close(colourMapValue(DISTORTION_COLOUR_MAP, 1), grow, 'double the area');
});

test('magnitude: grey at 0, the middle stop at a quarter of full scale (√ = ½), red at full scale and above', () => {
  const [neutral, middle, high] = MAGNITUDE_COLOUR_MAP.stops;
  close(colourMapValue(MAGNITUDE_COLOUR_MAP, 0), neutral, 'none');
  close(colourMapValue(MAGNITUDE_COLOUR_MAP, 0.25), middle, 'a quarter');
  close(colourMapValue(MAGNITUDE_COLOUR_MAP, 0.5625), mix(middle, high, 0.5), '9/16: √ = ¾');
  close(colourMapValue(MAGNITUDE_COLOUR_MAP, 4), high, 'four times full scale');
});

/** Runs the generated GLSL function in JavaScript: its statements are vec3/float declarations, ifs and returns. */
function runGlsl(map: ColourMap): (value: number) => Rgb {
  const js = colourMapGlsl(map)
    .replace(/^vec3 (\w+)\(float value\) \{/, '(function $1(value) {')
    .replace(/const vec3 /g, 'const ')
    .replace(/float /g, 'let ');
  const glsl = {
    vec3: (x: number, y: number, z: number): Rgb => [x, y, z],
    clamp: (x: number, lo: number, hi: number) => Math.min(Math.max(x, lo), hi),
    mix: (a: Rgb, b: Rgb, f: number) => mix(a, b, f),
    sqrt: Math.sqrt,
    abs: Math.abs,
    sign: Math.sign,
    floor: Math.floor,
    min: Math.min,
  };
  return runInNewContext(`${js})`, glsl) as (value: number) => Rgb;
}

test('the generated GLSL gives the tables’ colours over the whole domain and beyond it', () => {
  for (const map of [WEIGHT_COLOUR_MAP, DISTORTION_COLOUR_MAP, MAGNITUDE_COLOUR_MAP]) {
    const shader = runGlsl(map);
    const [lo, hi] = map.domain;
    for (let k = -4; k <= 104; k++) {
      const value = lo + ((hi - lo) * k) / 100;
      close(shader(value), colourMapValue(map, value), `${map.glslName}(${value})`);
    }
  }
});

test('legend colours: sRGB stops as they are, linear stops encoded to sRGB; samples span the domain lowest first', () => {
  assert.equal(colourMapCss(WEIGHT_COLOUR_MAP, 1), 'rgb(253 231 37)', 'viridis 1 = #fde725');
  // Linear 0.865 encodes to sRGB 0.9385 (1.055 · 0.865^(1/2.4) − 0.055): 239.
  assert.equal(colourMapCss(DISTORTION_COLOUR_MAP, 0), 'rgb(239 239 239)', 'the distortion map’s grey, as shown');
  const samples = colourMapSamples(MAGNITUDE_COLOUR_MAP, 5);
  assert.equal(samples.length, 5, 'five samples');
  assert.equal(samples[0], colourMapCss(MAGNITUDE_COLOUR_MAP, 0), 'first sample at the low end');
  assert.equal(samples[4], colourMapCss(MAGNITUDE_COLOUR_MAP, 1), 'last sample at the high end');
});
