/**
 * What the mesh shows: the asset's own look (its materials and textures), the plain shading, the selected bone's
 * weight map, each vertex's dominant bone, or the handles.
 */
export const VIEW_MODES = ['look', 'shaded', 'heatmap', 'dominant', 'handles'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

export const VIEW_LABELS: Record<ViewMode, string> = {
  look: 'Look',
  shaded: 'Shaded',
  heatmap: 'Weight map',
  dominant: 'Dominant bone',
  handles: 'Handles',
};

/** The view after `mode` in the cycle (V); Look only for a scene that has a look (without one it is the shading). */
export function nextViewMode(mode: ViewMode, hasLook: boolean): ViewMode {
  const modes = VIEW_MODES.filter((m) => hasLook || m !== 'look');
  return modes[(modes.indexOf(mode) + 1) % modes.length];
}
