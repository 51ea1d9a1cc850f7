/**
 * The Transfer view's colours, written down once: the shader's GLSL (transferColourGlsl) and the legend's CSS colours
 * are made from this table. Each vertex is coloured by its outcome in the last weight transfer (meshes/last-transfer.ts):
 * matched a point of the source, inpainted from the matched ones, in a part with no match (closest points' weights),
 * or outside the transfer's target.
 */
import { TRANSFER_INPAINTED, TRANSFER_MATCHED } from '../../workers/weights/weight-transfer.ts';

/** sRGB colour, each channel in [0, 1]. */
export type Rgb = readonly [number, number, number];

/** The colour of each outcome, sRGB; `outside` is the handles view's grey for free vertices (shaders/handle-colors.glsl). */
export const TRANSFER_COLOURS = {
  matched: [0.23, 0.55, 0.85],
  inpainted: [0.98, 0.62, 0.12],
  nearest: [0.86, 0.15, 0.33],
  outside: [0.46, 0.48, 0.52],
} as const satisfies Record<string, Rgb>;

/** The colour of a vertex whose status is `status` (TRANSFER_MATCHED, …, or -1 outside), as the shader picks it. */
export function transferColour(status: number): Rgb {
  if (status < -0.5) return TRANSFER_COLOURS.outside;
  if (status < TRANSFER_MATCHED + 0.5) return TRANSFER_COLOURS.matched;
  if (status < TRANSFER_INPAINTED + 0.5) return TRANSFER_COLOURS.inpainted;
  // TRANSFER_NEAREST: in a part with no match
  return TRANSFER_COLOURS.nearest;
}

const vec3 = ([r, g, b]: Rgb) => `vec3(${[r, g, b].map((x) => x.toFixed(4)).join(', ')})`;

/** GLSL `vec3 rwTransferColor(float status)`: transferColour, for the vertex shader (sRGB out). */
export function transferColourGlsl(): string {
  return `vec3 rwTransferColor(float status) {
  if (status < -0.5) return ${vec3(TRANSFER_COLOURS.outside)};
  if (status < ${(TRANSFER_MATCHED + 0.5).toFixed(1)}) return ${vec3(TRANSFER_COLOURS.matched)};
  if (status < ${(TRANSFER_INPAINTED + 0.5).toFixed(1)}) return ${vec3(TRANSFER_COLOURS.inpainted)};
  return ${vec3(TRANSFER_COLOURS.nearest)};
}
`;
}

/** A CSS colour of an sRGB triple, for the legend. */
export function cssColour([r, g, b]: Rgb): string {
  return `rgb(${[r, g, b].map((x) => Math.round(255 * x)).join(', ')})`;
}
