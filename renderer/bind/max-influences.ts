/**
 * The scene's "Max influences" (Maya's skinCluster max influences with "maintain max influences" on): the most bones
 * a vertex's weights may use. It is one setting, saved with the project (the paint settings' maxInfluences, which
 * strokes and paint commands keep), and everything that makes or shows weights follows it: Compute weights limits
 * what it solves, painting keeps it, the viewport skins with it, and the glTF export stores it (one set of joints up
 * to four, two sets above). Lowering it limits the scene's weights at once; the change and the limiting are one undo
 * step. Raising it limits nothing: weights with more than the new K (loaded from a file, say) stay as they are, the
 * Bind panel counts them (verticesOver) and its "Limit now" (`bind.limitInfluences`, limitNow) limits them as one
 * undo step. No DOM: the Bind panel shows it, the `bind.maxInfluences` command changes it.
 */
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { PaintSettings } from '../../workers/paint/paint-weights.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import {
  MAX_INFLUENCE_CHOICES,
  limitInfluences,
  mostInfluences,
  verticesOverInfluences,
  type LimitedInfluences,
} from '../../workers/weights/limit-influences.ts';

export { MAX_INFLUENCE_CHOICES } from '../../workers/weights/limit-influences.ts';

export interface MaxInfluencesHost {
  readonly store: SceneStore;
  /** the paint settings every paint session of the scene shares: the limit lives in its maxInfluences, the locks in locked */
  paintSettings(): PaintSettings;
  /** the limit changed (set, undone, redone): the view, the export and the panels follow */
  changed(count: number): void;
}

export class MaxInfluences {
  /** verticesOver's answer for the weights and limit it was counted for, and the most any vertex has, until the weights change */
  private counted: { weights: DenseMatrix; limit: number; over: number; most: number } | null = null;

  constructor(private readonly host: MaxInfluencesHost) {
    host.store.subscribe(() => (this.counted = null));
  }

  /** K, the most non-zero weights a vertex keeps (1 … 8) */
  get value(): number {
    return this.host.paintSettings().maxInfluences;
  }

  /**
   * Makes K the scene's limit as one undo step ("Max influences 4 → 3"). Lowering it limits the scene's weights in the
   * same step: where a vertex has more than K non-zero weights, its smallest unlocked ones are dropped and the rest
   * renormalised ("…, 1 234 vertices limited"). Raising it drops nothing and brings nothing back: weights over the
   * new K stay, for the artist to limit with limitNow.
   */
  set(count: number): void {
    const before = this.value;
    if (count === before) return;
    const { store } = this.host;
    const { weights, limited, keptOverLimit } =
      count < before ? this.limited(count) : { weights: store.doc.weights, limited: 0, keptOverLimit: 0 };
    const label = `Max influences ${before} → ${count}${limitedText(limited, keptOverLimit, count)}`;
    store.history.group(label, () => {
      this.apply(count);
      store.history.push({ label, bytes: 0, undo: () => this.apply(before), redo: () => this.apply(count) });
      if (limited > 0) store.edit(label, { weights });
    });
  }

  /**
   * Limits the scene's weights to K now, as one undo step ("Limit to 3 influences, 1 234 vertices limited"): the
   * Bind panel's "Limit now" for weights over K that raising it or a file left. Locked bones are kept (as set does).
   * @returns false, changing nothing, when no vertex has more than K
   */
  limitNow(): boolean {
    const count = this.value;
    const { weights, limited, keptOverLimit } = this.limited(count);
    if (limited === 0) return false;
    this.host.store.edit(`Limit to ${count} influence${count === 1 ? '' : 's'}${limitedText(limited, keptOverLimit, count)}`, { weights });
    return true;
  }

  /** The scene's weights limited to `count` around the paint locks. */
  private limited(count: number): LimitedInfluences {
    const doc = this.host.store.doc;
    return limitInfluences(doc.weights, count, locksFor(doc.paintLocks, doc.weights.cols));
  }

  /**
   * K for a scene just opened, from the user's "Default max influences" preference: no undo step (a new scene's history
   * starts empty) and its weights stay as they came (the Bind panel counts any over K). A project opened afterwards
   * restores its own value over it.
   * @throws RangeError naming the setting when `count` is not one of MAX_INFLUENCE_CHOICES
   */
  startWith(count: number): void {
    if (!(MAX_INFLUENCE_CHOICES as readonly number[]).includes(count))
      throw new RangeError(`Default max influences: ${count} is not one of ${MAX_INFLUENCE_CHOICES.join(', ')}`);
    if (count !== this.value) this.apply(count);
  }

  /**
   * Weights limited to K, for weights about to become the scene's (a computation's): a new matrix, rows within the
   * limit copied as they are. No locks: a computation writes every bone, locked ones included, so every row keeps
   * at most K.
   * @param weights  #V × #B, row-major
   */
  limit(weights: DenseMatrix): DenseMatrix {
    return limitInfluences(weights, this.value, null).weights;
  }

  /** Vertices of the scene's weights with more than K non-zero weights (weights loaded from a file, say). */
  verticesOver(): number {
    return this.count().over;
  }

  /** What the glTF export does with the scene's weights, as its dialog says it (exportInfluenceNote). */
  exportNote(): string {
    const { over, most } = this.count();
    return exportInfluenceNote(this.value, over, most);
  }

  /**
   * The joint sets the glTF export writes (gltf-export.ts: four slots while min(K, most influences) ≤ 4, else eight):
   * one set of four while no vertex keeps more than four.
   */
  exportJointSets(): 1 | 2 {
    return Math.min(this.value, this.count().most) > 4 ? 2 : 1;
  }

  private count(): { over: number; most: number } {
    const { weights } = this.host.store.doc;
    const limit = this.value;
    if (this.counted?.weights !== weights || this.counted.limit !== limit)
      this.counted = { weights, limit, over: verticesOverInfluences(weights, limit), most: mostInfluences(weights) };
    return this.counted;
  }

  private apply(count: number): void {
    this.host.paintSettings().maxInfluences = count;
    this.host.changed(count);
  }
}

/**
 * What the glTF export does with the influences, as its dialog says it before exporting: the limit, how many
 * vertices have more (`over`, from verticesOverInfluences) and what happens to them, and the joint sets written:
 * one set of four while no vertex keeps more than four (min(K, `most`), `most` from mostInfluences), else two.
 */
export function exportInfluenceNote(maxInfluences: number, over: number, most: number): string {
  const each = `Weights are limited to ${maxInfluences} influence${maxInfluences === 1 ? '' : 's'} per vertex`;
  const what =
    over === 0
      ? `: every vertex has ${maxInfluences} or fewer`
      : `: ${formatThousands(over)} ${over === 1 ? 'vertex has' : 'vertices have'} more; their smallest weights are dropped and the rest renormalised`;
  const sets =
    maxInfluences <= 4
      ? 'one joint set (JOINTS_0 / WEIGHTS_0)'
      : most <= 4
        ? 'one joint set (JOINTS_0 / WEIGHTS_0): no vertex has more than 4'
        : 'two joint sets (JOINTS_0 / WEIGHTS_0 and JOINTS_1 / WEIGHTS_1)';
  return `${each}${what}. Written as ${sets}.`;
}

/** The paint locks when they fit the weights' #B, else none. */
function locksFor(locks: Uint8Array | null | undefined, boneCount: number): Uint8Array | null {
  return locks && locks.length === boneCount ? locks : null;
}

/**
 * What limiting did, for the undo label: ", 1 234 vertices limited", and the rows whose locked bones already use the
 * limit (limitInfluences' keptOverLimit): "; 12 vertices keep more than 3: their locked bones already use the limit".
 */
export function limitedText(limited: number, keptOverLimit: number, maxInfluences: number): string {
  if (limited === 0) return '';
  const over =
    keptOverLimit > 0
      ? `; ${formatThousands(keptOverLimit)} ${keptOverLimit === 1 ? 'vertex keeps' : 'vertices keep'} more than ${maxInfluences}: their locked bones already use the limit`
      : '';
  return `, ${formatThousands(limited)} ${limited === 1 ? 'vertex' : 'vertices'} limited${over}`;
}

/** 2 070, grouped by thin spaces as the app writes counts (formatCount). */
function formatThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}
