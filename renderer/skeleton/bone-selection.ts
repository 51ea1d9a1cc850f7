/**
 * The selected bone: what the heat map shows, what the brush paints and smooth acts on, what the Bind panel assigns
 * handles to. A new scene starts with no bone selected; an edit of the skeleton keeps the selection (a bone deleted
 * or renumbered is followed by the command that did it, through `follow`), and an index the skeleton no longer has
 * reads as none, whichever subscriber asks first.
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
   * After a bone edit: the selection follows its bone to the new numbering.
   * @param newIndexOf  the new index of each old bone, -1 for one that is gone (its selection goes to `fallback`)
   */
  follow(newIndexOf: ArrayLike<number>, fallback = -1): void {
    if (this.value < 0) return;
    const next = this.value < newIndexOf.length ? newIndexOf[this.value] : -1;
    this.set(next >= 0 ? next : fallback);
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
