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
  private activePartIndex = -1;
  private hiddenParts: boolean[] = [];
  private parts: readonly MeshPart[];
  private triangles: Uint32Array;
  /** the document's mesh and parts this state is of: every reader brings it up to date first (sync) */
  private seen: { mesh: object; parts: readonly MeshPart[] | undefined };
  /** cached products of the state, dropped when it changes */
  private mask: Uint8Array | null | undefined;
  private shownTriangles: Uint32Array | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: SceneStore) {
    this.parts = partsOf(store.doc);
    this.triangles = store.doc.mesh.triangles;
    this.hiddenParts = this.parts.map(() => false);
    this.seen = { mesh: store.doc.mesh, parts: store.doc.parts };
    store.subscribe((change) => {
      if (change.kind === 'document') this.sync();
    });
  }

  /**
   * Brings the state up to the document's meshes: another mesh or other parts start with all active and shown; the
   * same meshes with another flag (a part bound, now skinned) keep the choice. Called by the store's change and by
   * every reader, so a view reacting to the same change reads the new meshes whichever subscriber runs first.
   */
  private sync(): void {
    const doc = this.store.doc;
    if (doc.mesh === this.seen.mesh && doc.parts === this.seen.parts) return;
    const sameMesh = doc.mesh === this.seen.mesh;
    this.seen = { mesh: doc.mesh, parts: doc.parts };
    const parts = partsOf(doc);
    if (sameMesh && sameMeshes(parts, this.parts)) {
      this.parts = parts;
      return;
    }
    this.parts = parts;
    this.triangles = doc.mesh.triangles;
    this.activePartIndex = -1;
    this.hiddenParts = this.parts.map(() => false);
    this.changed();
  }

  /** the part the tools act on, or -1 for all */
  get active(): number {
    this.sync();
    return this.activePartIndex;
  }

  /** #parts, true = hidden (read only: setHidden, showAll and isolate change it) */
  get hidden(): readonly boolean[] {
    this.sync();
    return this.hiddenParts;
  }

  /** The scene's meshes (one covering everything when the scene has no parts). */
  get list(): readonly MeshPart[] {
    this.sync();
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
    this.sync();
    const index = typeof part === 'number' ? part : this.parts.findIndex((p) => p.name === part);
    if (!Number.isInteger(index) || index < 0 || index >= this.parts.length) throw new Error(`no mesh ${String(part)} in the scene`);
    return index;
  }

  /** The tools act on part `index`, or on all (-1). A hidden part made active is shown. */
  setActive(index: number): void {
    if (index !== -1) index = this.indexOf(index);
    if (index === this.activePartIndex && (index < 0 || !this.hiddenParts[index])) return;
    this.activePartIndex = index;
    if (index >= 0) this.hiddenParts[index] = false;
    this.changed();
  }

  setHidden(index: number, hidden: boolean): void {
    index = this.indexOf(index);
    if (this.hiddenParts[index] === hidden) return;
    this.hiddenParts[index] = hidden;
    if (hidden && this.activePartIndex === index) this.activePartIndex = -1;
    this.changed();
  }

  /** H: hides the active mesh (nothing when all are active). */
  hideActive(): void {
    if (this.active >= 0) this.setHidden(this.active, true);
  }

  /** Alt+H. */
  showAll(): void {
    if (!this.hidden.some(Boolean)) return;
    this.hiddenParts.fill(false);
    this.changed();
  }

  /** /: only `index` (default: the active mesh) is shown; again on the only one shown: all are shown. */
  isolate(index = this.active): void {
    if (index < 0) return;
    index = this.indexOf(index);
    const isolated = this.hiddenParts.every((h, i) => h === (i !== index));
    if (isolated) this.hiddenParts.fill(false);
    else this.hiddenParts = this.parts.map((_, i) => i !== index);
    this.changed();
  }

  get isolated(): boolean {
    const hidden = this.hidden;
    return this.parts.length > 1 && hidden.filter((h) => !h).length === 1;
  }

  /** #V 1 for each vertex the brush and the lasso may touch, or null for every vertex. */
  vertexMask(): Uint8Array | null {
    this.sync();
    if (this.mask === undefined) this.mask = toolVertexMask(this.store.doc.mesh.positions.length / 3, this.parts, this.active, this.hidden);
    return this.mask;
  }

  /** #F × 3 the triangles drawn: those of hidden parts degenerate (the scene's own array when nothing is hidden). */
  visibleTriangles(): Uint32Array {
    this.sync();
    return (this.shownTriangles ??= visibleTriangles(this.triangles, this.parts, this.hidden));
  }
}
