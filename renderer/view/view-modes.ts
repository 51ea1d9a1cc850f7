/**
 * What the mesh shows: the asset's own look (its materials and textures), the plain shading, the selected bone's
 * weight map, each vertex's dominant bone, the handles, or each vertex's outcome in the last weight transfer
 * (matched, inpainted, no match).
 */
export const VIEW_MODES = ['look', 'shaded', 'heatmap', 'dominant', 'handles', 'transfer'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

export const VIEW_LABELS: Record<ViewMode, string> = {
  look: 'Look',
  shaded: 'Shaded',
  heatmap: 'Weight map',
  dominant: 'Dominant bone',
  handles: 'Handles',
  transfer: 'Transfer match',
};

/**
 * The view after `mode` in the cycle (V); Look only for a scene that has a look (without one it is the shading),
 * Transfer match only after a weight transfer on the scene.
 */
export function nextViewMode(mode: ViewMode, hasLook: boolean, hasTransfer = false): ViewMode {
  const modes = VIEW_MODES.filter((m) => (hasLook || m !== 'look') && (hasTransfer || m !== 'transfer'));
  return modes[(modes.indexOf(mode) + 1) % modes.length];
}
