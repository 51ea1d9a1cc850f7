/**
 * What a brush can be set to: the bounds of its radius, shared by the paint command's schema and the user's brush
 * defaults. No imports: the command catalog and the preferences read it without reaching a controller.
 */

/** The brush radius's bounds, in CSS pixels. */
export const BRUSH_RADIUS_RANGE = { min: 2, max: 400 } as const;
