/**
 * The scene's three.js objects and how they are shown: the GPU-skinned mesh, the skeleton overlay and the weight
 * view on the mesh, with the display settings that outlive them (view mode, iso-lines, wireframe, skeleton shown).
 * A new mesh, skeleton or set of weights makes them afresh; everything else updates them in place. The Look view
 * draws the mesh with the asset's materials; the weight views with the default material.
 */
import type * as THREE from 'three';
import type { Influences } from '../../workers/skinning/influences.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { SkeletonOverlay } from './skeleton-overlay.ts';
import { SkinnedMeshView } from './skinned-mesh.ts';
import type { ViewMode } from './view-modes.ts';
import { WeightView } from './weight-view.ts';

export class SceneView {
  skinned: SkinnedMeshView;
  overlay: SkeletonOverlay;
  weightView: WeightView;
  viewMode: ViewMode = 'shaded';
  /** the view other than Look shown last (where the Look toggle goes back to) */
  lastWeightView: ViewMode = 'shaded';
  isoLines = true;
  wireframe = false;
  /** #V each vertex's outcome in the last weight transfer, or null: none (the Transfer view's input) */
  private transferStatus: Int8Array | null = null;

  /**
   * @param selection     #V the selected vertices (1 = selected)
   * @param onLookChange  a texture of the look arrived (the viewport needs drawing again)
   */
  constructor(
    private readonly scene: THREE.Scene,
    doc: SceneDocument,
    influences: Influences,
    selectedBone: number,
    selection: Uint8Array,
    private readonly onLookChange: () => void = () => {},
  ) {
    this.skinned = new SkinnedMeshView(doc, influences, onLookChange);
    this.overlay = new SkeletonOverlay(doc.skeleton, doc.diagonal);
    this.weightView = this.weightViewOf(doc, selectedBone, selection);
    scene.add(this.skinned.mesh, this.overlay.group);
  }

  /** New mesh, skeleton or weights: the objects are made afresh with the same display settings. */
  rebuild(doc: SceneDocument, influences: Influences, selectedBone: number, selection: Uint8Array): void {
    const skinned = new SkinnedMeshView(doc, influences, this.onLookChange);
    const overlay = new SkeletonOverlay(doc.skeleton, doc.diagonal);
    overlay.visible = this.overlay.visible;
    skinned.setWireframe(this.wireframe);
    this.scene.remove(this.skinned.mesh, this.overlay.group);
    this.skinned.dispose();
    this.overlay.dispose();
    this.skinned = skinned;
    this.overlay = overlay;
    this.scene.add(skinned.mesh, overlay.group);
    overlay.select(selectedBone);
    this.weightView = this.weightViewOf(doc, selectedBone, selection);
  }

  private weightViewOf(doc: SceneDocument, selectedBone: number, selection: Uint8Array): WeightView {
    const view = new WeightView(this.skinned.mesh.geometry, this.skinned.materials);
    this.skinned.setLook(this.viewMode === 'look');
    view.setMode(this.viewMode);
    view.setIsoLines(this.isoLines);
    view.setHandles(doc.handles);
    view.setSelection(selection);
    view.setDominant(doc.weights);
    view.setBoneWeights(doc.weights, selectedBone);
    view.setTransferStatus(this.transferStatus?.length === doc.mesh.positions.length / 3 ? this.transferStatus : null);
    return view;
  }

  /** The last weight transfer's outcome per vertex (meshes/last-transfer.ts), or null when the scene has had none. */
  setTransferStatus(status: Int8Array | null): void {
    this.transferStatus = status;
    this.weightView.setTransferStatus(status);
  }

  selectBone(doc: SceneDocument, bone: number): void {
    this.overlay.select(bone);
    this.weightView.setBoneWeights(doc.weights, bone);
  }

  setMode(mode: ViewMode): void {
    if (this.viewMode !== 'look') this.lastWeightView = this.viewMode;
    this.viewMode = mode;
    this.weightView.setMode(mode);
    this.skinned.setLook(mode === 'look');
  }

  setIsoLines(on: boolean): void {
    this.isoLines = on;
    this.weightView.setIsoLines(on);
  }

  setWireframe(on: boolean): void {
    this.wireframe = on;
    this.skinned.setWireframe(on);
  }

  /** The triangles drawn, hidden meshes' ones degenerate (MeshesController.visibleTriangles). */
  setTriangles(triangles: Uint32Array): void {
    this.skinned.setTriangles(triangles);
  }
}
