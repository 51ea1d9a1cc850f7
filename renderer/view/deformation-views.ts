/**
 * The deformation controller's views (renderer/deform/deformation-controller.ts DeformationViews): the main
 * skinned mesh the app made, the split view's second half (made here, added to the viewport's scene, disposed when
 * the view is no longer split or the document changes), and the split drawing: left half the main method, right
 * half the second, scissor halves of one canvas with one camera and one pose. Each skinning method of the viewport
 * maps to its shader path here (per-face methods are streamed positions).
 */
import * as THREE from 'three';
import type { DeformationController, DeformationViews, SkinnedFeed } from '../deform/deformation-controller.ts';
import type { SkinMethod } from '../deform/skin-methods.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { SkinnedMeshView, type GpuSkinMethod } from './skinned-mesh.ts';
import type { Viewport } from './viewport.ts';

const GPU_METHOD: Record<SkinMethod, GpuSkinMethod> = {
  lbs: 'lbs',
  dqs: 'dqs',
  perface: 'streamed',
  blend: 'blend',
  'context-lbs': 'lbs',
  'context-dqs': 'dqs',
  'context-perface-eq9': 'streamed',
  'context-perface-eq10': 'streamed',
};

const drawingSize = new THREE.Vector2();

/** A skinned mesh view as the controller feeds it: the viewport's methods turned into shader paths. */
class FedView implements SkinnedFeed {
  constructor(readonly view: SkinnedMeshView) {}

  setMethod(method: SkinMethod, perVertexSigns: boolean, scaled: boolean): void {
    this.view.setMethod(GPU_METHOD[method], perVertexSigns, scaled);
  }

  setContext(displacements: Float64Array | null, normalDeltas: Float64Array | null, weights: ArrayLike<number>): void {
    this.view.setContext(displacements, normalDeltas, weights);
  }

  setTransforms(transforms: Float64Array): void {
    this.view.setTransforms(transforms);
  }

  setDualQuaternions(dualQuaternions: Float64Array, scales: Float64Array | null): void {
    this.view.setDualQuaternions(dualQuaternions, scales);
  }

  setStreamedPositions(positions: Float64Array, normals: Float64Array): void {
    this.view.setStreamedPositions(positions, normals);
  }

  setDistortion(values: Float32Array | null, kind?: 'distortion' | 'magnitude'): void {
    this.view.setDistortion(values, kind);
  }
}

export class SkinnedDeformationViews implements DeformationViews<SkinnedMeshView, THREE.WebGLRenderer> {
  private main: FedView;
  private second: FedView | null = null;
  private doc: SceneDocument;
  private influences: Influences;
  /** the triangles the views draw (hidden meshes' degenerate), or null: all */
  private triangles: Uint32Array | null = null;
  private lookShown = false;
  private hidden = false;

  /** @param primary  the app's skinned view of `doc` */
  constructor(
    private readonly viewport: Viewport,
    doc: SceneDocument,
    influences: Influences,
    primary: SkinnedMeshView,
  ) {
    this.doc = doc;
    this.influences = influences;
    this.main = new FedView(primary);
    viewport.renderHook = (renderer, scene, camera) => this.renderSplit(renderer, scene, camera);
  }

  get primary(): SkinnedFeed {
    return this.main;
  }

  get secondary(): SkinnedFeed | null {
    return this.second;
  }

  get splitView(): SkinnedMeshView | null {
    return this.second?.view ?? null;
  }

  openSplit(blend: Float32Array): void {
    if (this.second) return;
    const view = new SkinnedMeshView(this.doc, this.influences, () => this.viewport.invalidate());
    view.mesh.visible = false;
    view.setLook(this.lookShown);
    view.setBlendWeights(blend);
    if (this.triangles?.length === this.doc.mesh.triangles.length) view.setTriangles(this.triangles);
    this.viewport.scene.add(view.mesh);
    this.second = new FedView(view);
  }

  closeSplit(): void {
    if (!this.second) return;
    this.viewport.scene.remove(this.second.view.mesh);
    this.second.view.dispose();
    this.second = null;
  }

  setDocument(doc: SceneDocument, influences: Influences, primary: SkinnedMeshView): void {
    this.doc = doc;
    this.influences = influences;
    this.main = new FedView(primary);
    this.closeSplit();
  }

  setInfluences(influences: Influences): void {
    this.influences = influences;
    this.second?.view.setInfluences(influences);
  }

  setTriangles(triangles: Uint32Array): void {
    this.triangles = triangles;
    this.second?.view.setTriangles(triangles);
  }

  setLook(on: boolean): void {
    this.lookShown = on;
    this.second?.view.setLook(on);
  }

  setBlendWeights(blend: Float32Array): void {
    this.main.view.setBlendWeights(blend);
    this.second?.view.setBlendWeights(blend);
  }

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
  }

  lookReady(): Promise<void> {
    return this.second?.view.lookReady ?? Promise.resolve();
  }

  readSplitPositions(renderer: THREE.WebGLRenderer): Float32Array | null {
    return this.second ? this.second.view.readSkinnedPositions(renderer) : null;
  }

  /** Split view: left half the main method, right half the second, same camera; false when not split. */
  private renderSplit(renderer: THREE.WebGLRenderer, scene: THREE.Scene, camera: THREE.PerspectiveCamera): boolean {
    if (!this.second || this.hidden) return false;
    const primary = this.main.view;
    const secondary = this.second.view;
    const size = renderer.getSize(drawingSize);
    const half = Math.floor(size.x / 2);
    const aspect = camera.aspect;
    const zoom = camera.zoom;
    // Halving the width would crop a framed subject; zooming out by the full ratio would shrink a tall one.
    // The square root of the ratio is the compromise that keeps both a character and a long tube in view.
    camera.aspect = half / size.y;
    camera.zoom = zoom * Math.sqrt(half / size.x);
    camera.updateProjectionMatrix();
    renderer.setScissorTest(true);
    const halves: [SkinnedMeshView, SkinnedMeshView, number, number][] = [
      [primary, secondary, 0, half],
      [secondary, primary, half, size.x - half],
    ];
    for (const [shown, hidden, x, width] of halves) {
      shown.mesh.visible = true;
      hidden.mesh.visible = false;
      renderer.setViewport(x, 0, width, size.y);
      renderer.setScissor(x, 0, width, size.y);
      renderer.render(scene, camera);
    }
    primary.mesh.visible = true;
    secondary.mesh.visible = false;
    renderer.setScissorTest(false);
    renderer.setViewport(0, 0, size.x, size.y);
    camera.aspect = aspect;
    camera.zoom = zoom;
    camera.updateProjectionMatrix();
    return true;
  }
}

/** The app's deformation controller, with these views: its split view is a SkinnedMeshView, read back with the WebGL renderer. */
export type ViewportDeformation = DeformationController<SkinnedMeshView, THREE.WebGLRenderer>;
