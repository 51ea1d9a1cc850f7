/** The skinning methods the viewport shows, their names, and the order the M key cycles through. */
export type SkinMethod =
  'lbs' | 'dqs' | 'perface' | 'blend' | 'context-lbs' | 'context-dqs' | 'context-perface-eq9' | 'context-perface-eq10';

export const METHOD_CYCLE: readonly SkinMethod[] = ['lbs', 'dqs', 'perface'];

export const METHOD_LABELS: Record<SkinMethod, string> = {
  lbs: 'Linear blend',
  dqs: 'Dual quaternion',
  perface: 'Per-face',
  blend: 'Weight blended',
  'context-lbs': 'Linear blend + examples',
  'context-dqs': 'Dual quaternion + examples',
  'context-perface-eq9': 'Per-face + examples (linear mix)',
  'context-perface-eq10': 'Per-face + examples (rotation mix)',
};

/** Each method's name in the papers, for its tooltip: the labels above are the words an artist uses. */
export const METHOD_TERMS: Record<SkinMethod, string> = {
  lbs: 'Linear blend skinning (LBS)',
  dqs: 'Dual quaternion skinning (DQS; Kavan 2008, DLB)',
  perface: 'Per-face skinning: rotations blended in log-quaternion space, Poisson-stitched',
  blend: 'LBS and DQS lerped per vertex by a blend weight',
  'context-lbs': 'Context-aware LBS: the examples’ rest-space displacements Σ a_j δ_j added before LBS (Eq. 7)',
  'context-dqs': 'Context-aware DQS: the examples’ rest-space displacements Σ a_j δ_j added before DQS (Eq. 7)',
  'context-perface-eq9': 'Context-aware per-face skinning, the examples’ face gradients blended linearly (Eq. 9)',
  'context-perface-eq10': 'Context-aware per-face skinning, the examples’ face gradients blended by polar decomposition (Eq. 10)',
};

/** The per-vertex method a context method corrects (its examples are unposed through it), or null. */
export function contextBaseOf(method: SkinMethod): 'lbs' | 'dqs' | null {
  return method === 'context-lbs' ? 'lbs' : method === 'context-dqs' ? 'dqs' : null;
}

/** Per-face context's blend of the examples' face transformations (Eq. 9 linear, Eq. 10 polar), or null. */
export function perFaceBlendOf(method: SkinMethod): 'eq9' | 'eq10' | null {
  return method === 'context-perface-eq9' ? 'eq9' : method === 'context-perface-eq10' ? 'eq10' : null;
}

/** Whether a method is solved per face in the deform worker and streamed to the GPU. */
export function isPerFace(method: SkinMethod): boolean {
  return method === 'perface' || perFaceBlendOf(method) !== null;
}
