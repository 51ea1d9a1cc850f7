/** What the mesh shows: its shading, the selected bone's weight map, each vertex's dominant bone, or the handles. */
export const VIEW_MODES = ['shaded', 'heatmap', 'dominant', 'handles'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

export const VIEW_LABELS: Record<ViewMode, string> = {
  shaded: 'Shaded',
  heatmap: 'Weight map',
  dominant: 'Dominant bone',
  handles: 'Handles',
};
