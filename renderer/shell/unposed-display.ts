/**
 * Showing the unposed examples: the rest mesh with three unposed examples beside it at a time (the next three on
 * request), through the skinning the viewport uses (LBS, or DQS for the DQS methods). The skinned mesh and the
 * skeleton step aside while the row is shown; unposing is asked for if it has not run yet, and the row fills in
 * when it has.
 */
import type * as THREE from 'three';
import { contextBaseOf, type SkinMethod } from '../deform/skin-methods.ts';
import type { ContextBase, PoseSpaceController } from '../posespace/pose-space-controller.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { UnposedRow } from '../view/unposed-row.ts';

/** What showing the unposed examples needs of the app. */
export interface UnposedHost {
  readonly store: SceneStore;
  readonly viewport: { readonly scene: THREE.Scene; frame(min: readonly number[], max: readonly number[]): void; invalidate(): void };
  /** the skinned mesh steps aside while the row is shown */
  readonly deformation: { readonly method: SkinMethod; hidden: boolean };
  readonly posespace: Pick<PoseSpaceController, 'active' | 'require' | 'unposed'>;
  readonly meshes: { visibleTriangles(): Uint32Array };
  readonly views: { readonly skinned: { readonly mesh: THREE.Object3D }; readonly overlay: { visible: boolean } };
  frameAll(): void;
}

const PER_PAGE = 3;

export class UnposedDisplay {
  readonly row: UnposedRow;
  /** index of the first example shown */
  page = 0;
  /** what the row was built from: it is rebuilt only when that changes */
  private built: unknown[] = [];
  /** the skeleton's visibility before the row hid it */
  private overlayWasVisible = true;

  constructor(private readonly app: UnposedHost) {
    this.row = new UnposedRow(app.viewport.scene);
  }

  get shown(): boolean {
    return this.row.visible;
  }

  toggle(): void {
    if (this.shown) this.hide();
    else {
      this.page = 0;
      this.refresh(true);
    }
  }

  next(): void {
    const count = this.app.posespace.active.length;
    this.page = count > 0 ? (this.page + PER_PAGE) % (Math.ceil(count / PER_PAGE) * PER_PAGE) : 0;
    this.refresh(true);
  }

  /** Rebuilds the row (when shown, or when `show`): new unposed shapes, other examples, another method. */
  refresh(show = false): void {
    if (!show && !this.shown) return;
    const { app } = this;
    const doc = app.store.doc;
    const base: ContextBase = contextBaseOf(app.deformation.method) ?? (app.deformation.method === 'dqs' ? 'dqs' : 'lbs');
    const examples = app.posespace.active.slice(this.page, this.page + PER_PAGE);
    app.posespace.require([base]);
    const shapes = examples.flatMap((e) => {
      const result = app.posespace.unposed(e, base);
      return result ? [{ name: e.name, positions: result.unposed }] : [];
    });
    // The meshes shown: hidden meshes' triangles are degenerate here as in the viewport.
    const triangles = app.meshes.visibleTriangles();
    const key = [doc.mesh, triangles, base, this.page, ...examples.map((e) => e.name), ...shapes.map((s) => s.positions)];
    if (!show && key.length === this.built.length && key.every((k, i) => k === this.built[i])) return;
    this.built = key;
    const box = this.row.show({ name: 'rest', positions: doc.mesh.positions }, shapes, triangles);
    if (!app.deformation.hidden) this.overlayWasVisible = app.views.overlay.visible;
    app.deformation.hidden = true;
    app.views.skinned.mesh.visible = false;
    app.views.overlay.visible = false;
    app.viewport.frame(box.min, box.max);
    app.viewport.invalidate();
  }

  hide(): void {
    const { app } = this;
    this.row.hide();
    this.built = [];
    app.deformation.hidden = false;
    app.views.skinned.mesh.visible = true;
    app.views.overlay.visible = this.overlayWasVisible;
    app.frameAll();
    app.viewport.invalidate();
  }
}
