/**
 * Which of the scene's meshes the tools act on and which are shown, without DOM: the active mesh (the brush, the
 * lasso and "Bind this mesh" act on it; -1 = all), and the hidden meshes (not drawn, not paintable, not lassoable).
 * This is view state, not part of the scene: hiding is no undo step. A scene with other meshes starts with all
 * active and all shown; an edit of the same meshes keeps the choice.
 */
import type { MeshPart } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { partsOf, sameMeshes, toolVertexMask, visibleTriangles } from '../document/mesh-parts.ts';

export class MeshesController {
  /** the part the tools act on, or -1 for all */
  active = -1;
  /** #parts, true = hidden */
  hidden: boolean[] = [];
  private parts: readonly MeshPart[];
  private triangles: Uint32Array;
  /** cached products of the state, dropped when it changes */
  private mask: Uint8Array | null | undefined;
  private shownTriangles: Uint32Array | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: SceneStore) {
    this.parts = partsOf(store.doc);
    this.triangles = store.doc.mesh.triangles;
    this.hidden = this.parts.map(() => false);
    store.subscribe((change) => {
      if (change.kind !== 'document') return;
      const doc = store.doc;
      if (doc.mesh === change.previous.mesh && doc.parts === change.previous.parts) return;
      const parts = partsOf(doc);
      // The same meshes with another flag (a part bound, now skinned) keep the choice.
      if (doc.mesh === change.previous.mesh && sameMeshes(parts, this.parts)) {
        this.parts = parts;
        return;
      }
      this.parts = parts;
      this.triangles = doc.mesh.triangles;
      this.active = -1;
      this.hidden = this.parts.map(() => false);
      this.changed();
    });
  }

  /** The scene's meshes (one covering everything when the scene has no parts). */
  get list(): readonly MeshPart[] {
    return this.parts;
  }

  /** The active part, or null for all. */
  get activePart(): MeshPart | null {
    return this.active >= 0 ? this.parts[this.active] : null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.mask = undefined;
    this.shownTriangles = null;
    for (const listener of this.listeners) listener();
  }

  /** The index of a part by index or name. @throws Error naming what is not a mesh of the scene */
  indexOf(part: number | string): number {
    const index = typeof part === 'number' ? part : this.parts.findIndex((p) => p.name === part);
    if (!Number.isInteger(index) || index < 0 || index >= this.parts.length) throw new Error(`no mesh ${String(part)} in the scene`);
    return index;
  }

  /** The tools act on part `index`, or on all (-1). A hidden part made active is shown. */
  setActive(index: number): void {
    if (index !== -1) index = this.indexOf(index);
    if (index === this.active && (index < 0 || !this.hidden[index])) return;
    this.active = index;
    if (index >= 0) this.hidden[index] = false;
    this.changed();
  }

  setHidden(index: number, hidden: boolean): void {
    index = this.indexOf(index);
    if (this.hidden[index] === hidden) return;
    this.hidden[index] = hidden;
    if (hidden && this.active === index) this.active = -1;
    this.changed();
  }

  /** H: hides the active mesh (nothing when all are active). */
  hideActive(): void {
    if (this.active >= 0) this.setHidden(this.active, true);
  }

  /** Alt+H. */
  showAll(): void {
    if (!this.hidden.some(Boolean)) return;
    this.hidden.fill(false);
    this.changed();
  }

  /** /: only `index` (default: the active mesh) is shown; again on the only one shown: all are shown. */
  isolate(index = this.active): void {
    if (index < 0) return;
    index = this.indexOf(index);
    const isolated = this.hidden.every((h, i) => h === (i !== index));
    if (isolated) this.hidden.fill(false);
    else this.hidden = this.parts.map((_, i) => i !== index);
    this.changed();
  }

  get isolated(): boolean {
    return this.parts.length > 1 && this.hidden.filter((h) => !h).length === 1;
  }

  /** #V 1 for each vertex the brush and the lasso may touch, or null for every vertex. */
  vertexMask(): Uint8Array | null {
    if (this.mask === undefined) this.mask = toolVertexMask(this.store.doc.mesh.positions.length / 3, this.parts, this.active, this.hidden);
    return this.mask;
  }

  /** #F × 3 the triangles drawn: those of hidden parts degenerate (the scene's own array when nothing is hidden). */
  visibleTriangles(): Uint32Array {
    return (this.shownTriangles ??= visibleTriangles(this.triangles, this.parts, this.hidden));
  }
}
