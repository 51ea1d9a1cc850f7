/**
 * Where Compute weights takes its handles from: the handles drawn or loaded, or a rule that places them (by distance
 * to the bones, or inside a cylinder around each). No imports: the command catalog and the Bind panel read it without
 * reaching the binding controller.
 */

/** The handle sources, in the order the Bind panel and the compute command list them. */
export const HANDLE_SOURCES = ['current', 'distance', 'cylinder'] as const;
export type HandleSource = (typeof HANDLE_SOURCES)[number];
