/**
 * What the last weight transfer did to each vertex of the scene: matched a point of the source, inpainted, or in a
 * part with no match at all; the vertices outside the transfer's target are none of these. The Transfer view colours
 * the mesh by it and the Bind panel's binding report counts and selects it. It is view state, not part of the scene:
 * kept until the next transfer or a new scene (or mesh), through undo and redo.
 */
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { TRANSFER_INPAINTED, TRANSFER_MATCHED, TRANSFER_NEAREST } from '../../workers/weights/weight-transfer.ts';

/** A vertex outside the last transfer's target. */
export const TRANSFER_OUTSIDE = -1;

/** The categories of a vertex in the last transfer, in the order the view's legend lists them. */
export const TRANSFER_CATEGORIES = [
  { status: TRANSFER_MATCHED, key: 'matched', label: 'matched' },
  { status: TRANSFER_INPAINTED, key: 'inpainted', label: 'inpainted' },
  { status: TRANSFER_NEAREST, key: 'nearest', label: 'no match' },
] as const;

export type TransferCategory = (typeof TRANSFER_CATEGORIES)[number]['key'];

/** The last transfer: where its weights came from and went, and each scene vertex's outcome. */
export interface TransferRecord {
  /** the mesh or file the weights came from */
  source: string;
  /** the mesh that took them */
  target: string;
  /** #V of the scene: TRANSFER_MATCHED, TRANSFER_INPAINTED, TRANSFER_NEAREST, or TRANSFER_OUTSIDE */
  status: Int8Array;
  /** how many vertices of each category */
  counts: Record<TransferCategory, number>;
}

export class LastTransfer {
  private current: TransferRecord | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(store: Pick<SceneStore, 'subscribe' | 'doc'>) {
    store.subscribe((change) => {
      if (change.kind === 'document' && (change.newScene || change.fields.has('mesh')) && this.current) {
        this.current = null;
        this.changed();
      }
    });
  }

  /** The last transfer, or null when none was made on this scene. */
  get record(): TransferRecord | null {
    return this.current;
  }

  /**
   * Records a transfer onto the vertices `vertexStart … vertexStart + status.length − 1` of a scene of `vertexCount`.
   * @param status  the target's vertex outcomes (weightTransfer's `status`)
   */
  remember(source: string, target: string, vertexCount: number, vertexStart: number, status: Uint8Array): void {
    const all = new Int8Array(vertexCount).fill(TRANSFER_OUTSIDE);
    const counts: Record<TransferCategory, number> = { matched: 0, inpainted: 0, nearest: 0 };
    for (let v = 0; v < status.length; v++) {
      all[vertexStart + v] = status[v];
      counts[TRANSFER_CATEGORIES[status[v]].key]++;
    }
    this.current = { source, target, status: all, counts };
    this.changed();
  }

  /** #V 1 where the last transfer's outcome is `category`, for a selection; null without a transfer. */
  verticesOf(category: TransferCategory): Uint8Array | null {
    const record = this.current;
    if (!record) return null;
    const status = TRANSFER_CATEGORIES.find((c) => c.key === category)!.status;
    return Uint8Array.from(record.status, (s) => (s === status ? 1 : 0));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
