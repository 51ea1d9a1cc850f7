/**
 * What the viewport draws, kept up with the scene by itself: it subscribes to the scene store, the meshes shown, the
 * lasso's selection and the selected bone, and feeds the scene's three.js views and the deformation. A new mesh,
 * skeleton or weights rebuilds the views (the camera stays unless the scene is new or the mesh another); handles,
 * triangles, selection and bone update them in place. It also keeps the influences the GPU skins with (the influence
 * setting, or the export's stored ones in the as-exported preview). Every reader of another controller's state reads
 * it through that controller's own up-to-date getters, so no subscriber has to come before another.
 */
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { exportedInfluences } from '../../workers/formats/gltf-exported-influences.ts';
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { INFLUENCE_DEFAULTS, influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { padInfluences } from '../paint/pad-influences.ts';
import type { SceneView } from './scene-view.ts';
import type { SkinnedMeshView } from './skinned-mesh.ts';

type Subscribe = (listener: () => void) => () => void;

/** Where the feed's inputs come from. */
export interface FeedSources {
  readonly store: SceneStore;
  readonly meshes: { visibleTriangles(): Uint32Array; onChange: Subscribe };
  /** the lasso's selection (#V, edited in place: its version counts the edits) */
  readonly binding: { readonly selection: Uint8Array; readonly selectionVersion: number; onChange: Subscribe };
  readonly bones: { readonly bone: number; onChange: Subscribe };
  /** the export's stored influences, for the as-exported preview */
  exportSettings(): { influences: number; weightComponent: GltfWeightComponent };
}

/** What the feed keeps up to date. */
export interface FeedTargets {
  readonly views: SceneView;
  readonly deformation: {
    setDocument(doc: SceneDocument, influences: Influences, primary: SkinnedMeshView): void;
    setHandles(doc: SceneDocument): void;
    setTriangles(triangles: Uint32Array): void;
    setInfluences(influences: Influences): void;
  };
  readonly viewport: { frame(min: readonly number[], max: readonly number[]): void; invalidate(): void };
  /** the pose is drawn again before the next frame */
  markPose(): void;
}

export class SceneFeed {
  /** largest weights kept per vertex on screen (0 = all) */
  influenceSetting = INFLUENCE_DEFAULTS.maxInfluences;
  /** "As exported" preview: the export's strongest influences, quantized as the file stores them */
  asExported = false;
  influences: Influences;
  private selectionShown: { selection: Uint8Array; version: number } | null = null;
  private readonly rebuiltListeners = new Set<(doc: SceneDocument, newMesh: boolean) => void>();

  constructor(
    private readonly sources: FeedSources,
    private readonly targets: FeedTargets,
  ) {
    this.influences = this.influencesFor(sources.store.doc.weights);
    sources.store.subscribe((change) => {
      if (change.kind !== 'document') return;
      const { fields, newScene } = change;
      const doc = sources.store.doc;
      if (fields.has('mesh') || fields.has('skeleton') || fields.has('weights')) this.rebuild(doc, fields.has('mesh'));
      else if (fields.has('handles')) {
        targets.views.weightView.setHandles(doc.handles);
        targets.deformation.setHandles(doc);
      }
      if (newScene || fields.has('mesh')) this.frameAll();
      targets.viewport.invalidate();
    });
    sources.meshes.onChange(() => this.showTriangles());
    sources.binding.onChange(() => this.showSelection());
    sources.bones.onChange(() => {
      targets.views.selectBone(sources.store.doc, sources.bones.bone);
      targets.viewport.invalidate();
    });
  }

  /** The influences the viewport skins `weights` with now. */
  influencesFor(weights: DenseMatrix): Influences {
    if (!this.asExported) return influencesFromWeights(weights, this.influenceSetting);
    const { influences, weightComponent } = this.sources.exportSettings();
    return exportedInfluences(weights, influences, weightComponent);
  }

  /** Largest weights kept per vertex (0 = all). */
  setInfluenceSetting(count: number): void {
    this.influenceSetting = count;
    this.showInfluences(this.influencesFor(this.sources.store.doc.weights));
  }

  /** The as-exported preview on or off (the export's stored influences, or the setting's). */
  setAsExported(on: boolean): void {
    this.asExported = on;
    this.showInfluences(this.influencesFor(this.sources.store.doc.weights));
  }

  /** Painting needs more influence slots than the setting keeps: the influences are widened (a full upload). */
  padInfluences(stride: number): void {
    this.showInfluences(padInfluences(this.influences, stride));
  }

  /** The camera frames the mesh and the skeleton. */
  frameAll(): void {
    const doc = this.sources.store.doc;
    const box = boundingBox(doc.mesh.positions);
    const joints = doc.skeleton.joints;
    for (let i = 0; i < joints.length; i++) {
      box.min[i % 3] = Math.min(box.min[i % 3], joints[i]);
      box.max[i % 3] = Math.max(box.max[i % 3], joints[i]);
    }
    this.targets.viewport.frame(box.min, box.max);
  }

  /** Called after the views were made afresh (a new mesh: `newMesh`), with the document they show. */
  onRebuilt(listener: (doc: SceneDocument, newMesh: boolean) => void): () => void {
    this.rebuiltListeners.add(listener);
    return () => this.rebuiltListeners.delete(listener);
  }

  private rebuild(doc: SceneDocument, newMesh: boolean): void {
    const { views, deformation } = this.targets;
    this.influences = this.influencesFor(doc.weights);
    // The lasso's selection of a mesh the binding has not caught up with yet is none here; its reset shows it.
    const selection = this.currentSelection();
    views.rebuild(doc, this.influences, this.sources.bones.bone, selection ?? new Uint8Array(vertexCountOf(doc)));
    this.selectionShown = selection && { selection, version: this.sources.binding.selectionVersion };
    deformation.setDocument(doc, this.influences, views.skinned);
    this.showTriangles();
    for (const listener of this.rebuiltListeners) listener(doc, newMesh);
  }

  private showInfluences(influences: Influences): void {
    this.influences = influences;
    this.targets.views.skinned.setInfluences(influences);
    this.targets.deformation.setInfluences(influences);
    this.targets.markPose();
  }

  /**
   * The triangles of the meshes shown, to every view of the mesh (the split view's second half too). Views of a mesh
   * the store has replaced take them when they are rebuilt.
   */
  private showTriangles(): void {
    if (this.targets.views.weightView.vertexCount !== vertexCountOf(this.sources.store.doc)) return;
    const triangles = this.sources.meshes.visibleTriangles();
    this.targets.views.setTriangles(triangles);
    this.targets.deformation.setTriangles(triangles);
    this.targets.viewport.invalidate();
  }

  private showSelection(): void {
    const selection = this.currentSelection();
    const version = this.sources.binding.selectionVersion;
    // Views of a mesh the store has replaced take the selection when they are rebuilt.
    if (this.targets.views.weightView.vertexCount !== vertexCountOf(this.sources.store.doc)) return;
    if (!selection || (selection === this.selectionShown?.selection && version === this.selectionShown.version)) return;
    this.selectionShown = { selection, version };
    this.targets.views.weightView.setSelection(selection);
    this.targets.viewport.invalidate();
  }

  /** The lasso's selection when it is of the mesh shown, else null. */
  private currentSelection(): Uint8Array | null {
    const { selection } = this.sources.binding;
    return selection.length === vertexCountOf(this.sources.store.doc) ? selection : null;
  }
}
