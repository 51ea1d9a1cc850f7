/**
 * The selected bone: what the heat map shows, what the brush paints and smooth acts on, what the Bind panel assigns
 * handles to. A new scene starts with no bone selected; an edit of the skeleton keeps the selection (a command that
 * numbers the bones anew moves it to its bone's new number, and back on undo: skeleton-commands.ts), and an index the
 * skeleton no longer has reads as none, whichever subscriber asks first.
 */
import type { SceneStore } from '../../workers/scene/scene-store.ts';

export class BoneSelection {
  private value = -1;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: SceneStore) {
    store.subscribe((change) => {
      if (change.kind !== 'document') return;
      if (change.newScene) this.set(-1);
      else if (change.fields.has('skeleton') && this.value >= this.boneCount()) this.set(-1);
    });
  }

  /** the selected bone, or -1 for none */
  get bone(): number {
    return this.value < this.boneCount() ? this.value : -1;
  }

  /** Selects `bone` (-1: none). @throws RangeError for a bone the skeleton does not have */
  select(bone: number): void {
    if (!Number.isInteger(bone) || bone < -1 || bone >= this.boneCount())
      throw new RangeError(`bone ${bone} is not a bone of the skeleton (0 to ${this.boneCount() - 1}, or -1 for none)`);
    this.set(bone);
  }

  /**
   * Puts a selection back as an undo step recorded it, unchecked: an index of the skeleton the step gives back (a bone
   * the current skeleton lacks reads as none until then).
   */
  restore(bone: number): void {
    this.set(bone);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private boneCount(): number {
    return this.store.doc.skeleton.parents.length;
  }

  private set(bone: number): void {
    if (bone === this.value) return;
    this.value = bone;
    for (const listener of this.listeners) listener();
  }
}
