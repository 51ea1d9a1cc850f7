/**
 * The heat maps' colour maps, written down once: the shaders' GLSL functions are generated from these tables
 * (colourMapGlsl) and the legends sample the same tables (colourMapColour), so a legend's bar is the colour the
 * mesh shows for a value. Each map is a value domain, a transfer to t in [0, 1] and colour stops evenly spaced in t,
 * interpolated piecewise linearly. No three.js and no DOM: the shell hands the legend plain colours.
 */

/** An RGB triple, each channel in [0, 1]. */
export type Rgb = readonly [number, number, number];

/** How a value becomes t in [0, 1] along the stops. */
export type ColourMapTransfer =
  /** (v − lo) / (hi − lo) */
  | 'linear'
  /** √((v − lo) / (hi − lo)): small values are visible without tinting everything */
  | 'sqrt'
  /** a symmetric domain [−a, a]: ½ + ½ sign(s) √|s| with s = v / a, so 0 sits at the middle stop */
  | 'signed-sqrt';

export interface ColourMap {
  /** the GLSL function's name: `vec3 name(float value)` */
  readonly glslName: string;
  /** values outside [lo, hi] take the end colours */
  readonly domain: readonly [number, number];
  readonly transfer: ColourMapTransfer;
  /** colours at t = 0, 1/(n−1), …, 1 */
  readonly stops: readonly Rgb[];
  /**
   * 'srgb': the stops are sRGB, mixed in sRGB, and the GLSL function returns sRGB (its includer converts); 'linear':
   * the stops are linear, mixed linearly, and the function's colour goes to the shading as it is.
   */
  readonly space: 'srgb' | 'linear';
}

/**
 * The weight map: viridis (perceptually uniform, readable by colour-blind viewers and in grey), its values at
 * t = 0, 1/8, …, 1 in sRGB. Weight 0 to 1.
 */
export const WEIGHT_COLOUR_MAP: ColourMap = {
  glslName: 'rwViridis',
  domain: [0, 1],
  transfer: 'linear',
  space: 'srgb',
  stops: [
    [0.267, 0.005, 0.329],
    [0.279, 0.176, 0.483],
    [0.231, 0.322, 0.545],
    [0.173, 0.448, 0.557],
    [0.128, 0.567, 0.551],
    [0.157, 0.683, 0.502],
    [0.369, 0.789, 0.383],
    [0.678, 0.864, 0.19],
    [0.993, 0.906, 0.144],
  ],
};

/**
 * The distortion map: log2 of a vertex's one-ring area posed over at rest, a diverging blue–grey–red map
 * (Moreland 2009's "cool to warm" end points): blue shrinks, grey is unchanged, red grows; ±1 (half or double the
 * area) saturates.
 */
export const DISTORTION_COLOUR_MAP: ColourMap = {
  glslName: 'distortionColor',
  domain: [-1, 1],
  transfer: 'signed-sqrt',
  space: 'linear',
  stops: [
    [0.23, 0.299, 0.754],
    [0.865, 0.865, 0.865],
    [0.706, 0.016, 0.15],
  ],
};

/**
 * The examples' maps (the displacement applied now, the distance to an example at its pose): a magnitude over the
 * map's full scale, neutral grey → yellow → red, so an untouched surface reads as the plain shaded mesh and the
 * largest values stand out; 1 (the full scale) saturates.
 */
export const MAGNITUDE_COLOUR_MAP: ColourMap = {
  glslName: 'magnitudeColor',
  domain: [0, 1],
  transfer: 'sqrt',
  space: 'linear',
  stops: [
    [0.865, 0.865, 0.865],
    [0.98, 0.78, 0.25],
    [0.706, 0.016, 0.15],
  ],
};

/** t in [0, 1] of `value` (clamped to the map's domain). */
export function colourMapParameter(map: ColourMap, value: number): number {
  const [lo, hi] = map.domain;
  const v = Math.min(Math.max(value, lo), hi);
  if (map.transfer === 'signed-sqrt') {
    const s = v / hi;
    return 0.5 + 0.5 * Math.sign(s) * Math.sqrt(Math.abs(s));
  }
  const u = (v - lo) / (hi - lo);
  return map.transfer === 'sqrt' ? Math.sqrt(u) : u;
}

/** The map's colour of `value` in its own space (what the GLSL function returns), each channel in [0, 1]. */
export function colourMapValue(map: ColourMap, value: number): Rgb {
  const segments = map.stops.length - 1;
  const x = colourMapParameter(map, value) * segments;
  const i = Math.min(Math.floor(x), segments - 1);
  const f = x - i;
  const a = map.stops[i],
    b = map.stops[i + 1];
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

function linearToSrgb(c: number): number {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
}

/** The colour the screen shows for `value`, as CSS `rgb(r g b)` (sRGB, 0–255), before lighting. */
export function colourMapCss(map: ColourMap, value: number): string {
  const rgb = colourMapValue(map, value);
  const srgb = map.space === 'srgb' ? rgb : rgb.map(linearToSrgb);
  return `rgb(${srgb.map((c) => Math.round(255 * Math.min(Math.max(c, 0), 1))).join(' ')})`;
}

/**
 * `count` colours evenly spaced over the map's domain, lowest first (CSS colours): a legend's bar. Enough samples
 * that the piecewise-linear mix in the map's space and the transfer's curve read the same as on the mesh.
 */
export function colourMapSamples(map: ColourMap, count = 33): string[] {
  const [lo, hi] = map.domain;
  return Array.from({ length: count }, (_, k) => colourMapCss(map, lo + ((hi - lo) * k) / (count - 1)));
}

const glslFloat = (x: number): string => (Number.isInteger(x) ? x.toFixed(1) : String(x));
const glslVec3 = (c: Rgb): string => `vec3(${c.map(glslFloat).join(', ')})`;

/** The GLSL of `vec3 <glslName>(float value)`: the same transfer and stops as colourMapValue. */
export function colourMapGlsl(map: ColourMap): string {
  const [lo, hi] = map.domain;
  const segments = map.stops.length - 1;
  const clamped = `clamp(value, ${glslFloat(lo)}, ${glslFloat(hi)})`;
  const parameter =
    map.transfer === 'signed-sqrt'
      ? `float s = ${clamped} / ${glslFloat(hi)};\n  float t = 0.5 + 0.5 * sign(s) * sqrt(abs(s));`
      : map.transfer === 'sqrt'
        ? `float t = sqrt((${clamped} - ${glslFloat(lo)}) / ${glslFloat(hi - lo)});`
        : `float t = (${clamped} - ${glslFloat(lo)}) / ${glslFloat(hi - lo)};`;
  const stops = map.stops.map((c, k) => `  const vec3 c${k} = ${glslVec3(c)};`).join('\n');
  const branches = Array.from({ length: segments - 1 }, (_, k) => `  if (i < ${k}.5) return mix(c${k}, c${k + 1}, f);`).join('\n');
  return `vec3 ${map.glslName}(float value) {
${stops}
  ${parameter}
  float x = t * ${glslFloat(segments)};
  float i = min(floor(x), ${glslFloat(segments - 1)});
  float f = x - i;
${branches}
  return mix(c${segments - 1}, c${segments}, f);
}
`;
}
