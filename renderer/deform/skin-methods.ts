/** The skinning methods the viewport shows, their names, and the order the M key cycles through. */
export type SkinMethod = 'lbs' | 'dqs' | 'perface' | 'blend' | 'context-lbs' | 'context-dqs';

export const METHOD_CYCLE: readonly SkinMethod[] = ['lbs', 'dqs', 'perface'];

export const METHOD_LABELS: Record<SkinMethod, string> = {
  lbs: 'Linear blend',
  dqs: 'Dual quaternion',
  perface: 'Per-face',
  blend: 'Weight blended',
  'context-lbs': 'Context LBS',
  'context-dqs': 'Context DQS',
};

/** The per-vertex method a context method corrects (its examples are unposed through it), or null. */
export function contextBaseOf(method: SkinMethod): 'lbs' | 'dqs' | null {
  return method === 'context-lbs' ? 'lbs' : method === 'context-dqs' ? 'dqs' : null;
}
