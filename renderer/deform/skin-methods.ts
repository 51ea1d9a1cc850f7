/** The skinning methods the viewport shows, their names, and the order the M key cycles through. */
export type SkinMethod = 'lbs' | 'dqs' | 'perface' | 'blend';

export const METHOD_CYCLE: readonly SkinMethod[] = ['lbs', 'dqs', 'perface'];

export const METHOD_LABELS: Record<SkinMethod, string> = {
  lbs: 'Linear blend',
  dqs: 'Dual quaternion',
  perface: 'Per-face',
  blend: 'Weight blended',
};
