/**
 * What a brush can be set to: its modes, falloffs and the bounds of its radius, shared by the paint commands' schemas
 * and the user's brush defaults. No imports: the command catalog and the preferences read it without reaching a
 * controller.
 */

/** The brush's modes and falloffs (workers/paint/apply-dab.ts, brush-falloff.ts). */
export const BRUSH_MODES = ['add', 'subtract', 'set', 'smooth', 'blur', 'relax', 'gradient', 'sample'] as const;
export const BRUSH_FALLOFFS = ['smooth', 'linear', 'constant'] as const;

/** The brush radius's bounds, in CSS pixels. */
export const BRUSH_RADIUS_RANGE = { min: 2, max: 400 } as const;
