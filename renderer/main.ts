/**
 * Boot and wiring: the document, its views (GPU-skinned mesh, skeleton overlay), the timeline, the UI, the
 * bridge to the desktop shell or the browser, and the render loop. The loop allocates nothing: time advances,
 * the pose is evaluated into preallocated buffers, the joint texture is re-uploaded, and a frame is drawn
 * only when something changed.
 */
import type { MenuCommand, OpenedFile, RigwrightBridge } from '../app/ipc-contract.ts';
import { influencesFromWeights, type Influences } from '../workers/skinning/influences.ts';
import { boundingBox } from '../workers/mesh/bounds.ts';
import { WebBridge, getBridge, readBrowserFiles } from './io/bridge.ts';
import { getIoClient } from './io/io-client.ts';
import { PoseEvaluator } from './deform/pose-evaluator.ts';
import {
  LoadError,
  boneCountOf,
  demoDocument,
  errorMessage,
  jointCountOf,
  triangleCountOf,
  twistDemoDocument,
  vertexCountOf,
  type SceneDocument,
} from './document/scene-document.ts';
import { loadIntoDocument } from './document/load-files.ts';
import { SkeletonOverlay, boneForJoint } from './view/skeleton-overlay.ts';
import { SkinnedMeshView, gpuLimitProblem } from './view/skinned-mesh.ts';
import { installTestHook, type RigwrightTestState } from './shell/test-hook.ts';
import { DeformationController, METHOD_LABELS, type SkinMethod } from './deform/deformation-controller.ts';
import { DeformationPanel } from './panels/deformation-panel.ts';
import { BindingPanel } from './panels/bind-panel.ts';
import { PaintMode } from './paint/paint-mode.ts';
import { padInfluences } from './paint/pad-influences.ts';
import type { DenseMatrix } from '../workers/formats/types.ts';
import { Timeline } from './panels/timeline.ts';
import { Ui, formatCount } from './panels/app-chrome.ts';
import { Viewport } from './view/viewport.ts';
import { ExportDialog, type ExportedWeightSettings } from './panels/export-dialog.ts';
import { GltfControls } from './panels/gltf-controls.ts';
import { Notice } from './panels/notice.ts';
import { clipNameOf, exportSceneAsGltf } from './io/gltf-export-action.ts';
import { exportedInfluences } from '../workers/formats/gltf-exported-influences.ts';
import { bakeFrameCount } from '../workers/formats/gltf-skinning-bake.ts';
import { GLTF_EXPORT_DEFAULTS } from '../workers/formats/gltf-export.ts';

const DEFAULT_INFLUENCES = 4;
/** A click that moves less than this (CSS px) between press and release picks instead of orbiting. */
const CLICK_SLOP = 4;
/** Smallest pick radius around a joint, in CSS px, so tiny joints stay clickable. */
const MIN_PICK_RADIUS = 8;
/** Longest frame step the animation takes, so a stalled tab does not jump ahead. */
const MAX_FRAME_SECONDS = 0.1;

const projected = { x: 0, y: 0, z: 0 };

class App {
  private doc: SceneDocument;
  private influenceSetting = DEFAULT_INFLUENCES;
  private influences: Influences;
  private evaluator: PoseEvaluator;
  private skinned: SkinnedMeshView;
  private overlay: SkeletonOverlay;
  private wireframe = false;
  private selectedBone = -1;
  private error: string | null = null;
  private loadingNames: string[] = [];
  private framesRendered = 0;
  private poseDirty = true;
  /** painting changed the weights: the CPU-side products of the weights (not the pose) refresh before the next draw */
  private weightsDirty = false;
  /** the test hook's holdDraws: the tick skips drawing */
  private drawsHeld = false;
  private lastFrameTime: number | null = null;
  private loadQueue: Promise<void> = Promise.resolve();
  private readonly firstFrame: Promise<void>;
  private resolveFirstFrame!: () => void;
  private pointerDown: { x: number; y: number } | null = null;
  private readonly deformation: DeformationController;
  private readonly deformationPanel: DeformationPanel;
  private readonly binding: BindingPanel;
  private readonly paint: PaintMode;
  /** "As exported" preview: LBS with the export's strongest influences, quantized as the file stores them */
  private asExported = false;
  private readonly exportDialog: ExportDialog;
  private readonly gltfControls: GltfControls;
  private readonly notice: Notice;

  constructor(
    private readonly viewport: Viewport,
    private readonly ui: Ui,
    private readonly timeline: Timeline,
    private readonly bridge: RigwrightBridge,
  ) {
    this.firstFrame = new Promise((resolve) => (this.resolveFirstFrame = resolve));
    this.doc = demoDocument();
    this.influences = influencesFromWeights(this.doc.weights, this.influenceSetting);
    this.evaluator = new PoseEvaluator(this.doc);
    this.skinned = new SkinnedMeshView(this.doc, this.influences);
    this.overlay = new SkeletonOverlay(this.doc.skeleton, this.doc.diagonal);
    viewport.scene.add(this.skinned.mesh, this.overlay.group);
    this.deformation = new DeformationController(viewport, this.doc, this.influences, this.skinned, () => {
      this.viewport.invalidate();
      this.refreshDeformationChrome();
    });
    this.deformationPanel = new DeformationPanel(document.getElementById('toolbar')!, document.getElementById('viewport')!, {
      setMethod: (m) => this.deformation.setMethod(m),
      setAntipodality: (a) => this.deformation.setAntipodality(a),
      setSplit: (m) => this.deformation.setSplit(m),
      setHeatMap: (on) => this.deformation.setHeatMap(on),
      loadTwistDemo: () => this.loadTwistDemo(),
      setBoneScale: (bone, scale) => this.setBoneScale(bone, scale),
      setUniformBlend: (value) => this.setBlendWeights(value),
    });
    timeline.setSequence(this.evaluator.kind, this.evaluator.duration, true);
    this.frameAll();
    this.installPicking();
    this.binding = new BindingPanel({
      bridge,
      container: viewport.renderer.domElement.parentElement!,
      canvas: viewport.renderer.domElement,
      camera: viewport.camera,
      document: () => this.doc,
      posedPositions: () => {
        if (this.poseDirty) this.applyPose();
        return this.deformation.cpuReference(this.deformation.method, this.evaluator);
      },
      selectedBone: () => this.selectedBone,
      selectBone: (bone) => this.selectBone(bone),
      replaceWeights: (weights, source) => this.replaceWeights(weights, source),
      load: (files) => this.load(files),
      invalidate: () => this.viewport.invalidate(),
      handlesChanged: () => this.refreshChrome(),
      showError: (message) => this.setError(message),
    });
    this.binding.attach(this.doc, this.skinned.mesh);
    this.paint = new PaintMode({
      container: viewport.renderer.domElement.parentElement!,
      canvas: viewport.renderer.domElement,
      camera: viewport.camera,
      scene: viewport.scene,
      document: () => this.doc,
      skinned: () => this.skinned,
      influences: () => this.influences,
      padInfluences: (stride) => {
        if (this.asExported) this.setAsExported(false);
        this.influences = padInfluences(this.influences, stride);
        this.skinned.setInfluences(this.influences);
        this.deformation.setInfluences(this.influences);
        this.poseDirty = true;
      },
      posedPositions: () => {
        if (this.poseDirty) this.applyPose();
        return this.deformation.cpuReference(this.deformation.method, this.evaluator);
      },
      posedPositionsAt: (vertices, count, out) => {
        if (this.poseDirty) this.applyPose();
        return this.deformation.cpuReferenceAt(this.deformation.method, this.evaluator, vertices, count, out);
      },
      weightView: () => this.binding.weightView,
      selectedBone: () => this.selectedBone,
      selectBone: (bone) => this.selectBone(bone),
      redraw: () => this.viewport.invalidate(),
      weightsChanged: () => {
        this.weightsDirty = true;
        this.viewport.invalidate();
      },
      weightsSettled: () => {
        this.deformation.influencesEdited();
        this.weightsDirty = true;
        this.viewport.invalidate();
      },
      historyChanged: () => this.refreshChrome(),
      jointBoneAt: (x, y) => {
        const joint = this.jointAt(x, y);
        return joint < 0 ? -1 : boneForJoint(this.doc.skeleton.bones, joint);
      },
      showWeightMap: () => {
        this.binding.setOpen(false);
        this.binding.setView('heatmap');
      },
    });
    this.notice = new Notice(document.getElementById('viewport')!);
    this.exportDialog = new ExportDialog((choice) => this.exportGltf(choice), (settings) => this.onExportSettings(settings));
    this.gltfControls = new GltfControls(document.getElementById('toolbar')!, document.getElementById('timeline')!, {
      openExport: () => this.openExport(),
      toggleAsExported: () => this.setAsExported(!this.asExported),
      selectClip: (index) => this.selectClip(index),
    });
    this.refreshClips();
    bridge.onMenuCommand((command) => this.perform(command));
    if (bridge instanceof WebBridge) bridge.onUnrequestedFiles((files) => void this.load(files));
    ui.setInfluences(this.influenceSetting);
    this.refreshChrome();
    requestAnimationFrame(this.tick);
  }

  /** Toolbar and keyboard commands: on the web they travel through the bridge like the desktop menu's. */
  issue(command: MenuCommand): void {
    if (this.bridge instanceof WebBridge) this.bridge.dispatchMenuCommand(command);
    else this.perform(command);
  }

  perform(command: MenuCommand): void {
    switch (command) {
      case 'open-files':
        this.bridge.openFiles().then(
          (files) => (files.length > 0 ? this.load(files) : undefined),
          (error: unknown) => this.setError(`Could not open files: ${errorMessage(error)}`),
        );
        break;
      case 'export-gltf':
        this.openExport();
        break;
      case 'frame-all':
        this.frameAll();
        break;
      case 'toggle-wireframe':
        this.wireframe = !this.wireframe;
        this.skinned.setWireframe(this.wireframe);
        this.refreshChrome();
        break;
      case 'toggle-skeleton':
        this.overlay.visible = !this.overlay.visible;
        this.refreshChrome();
        break;
      case 'play-pause':
        this.timeline.toggle();
        break;
    }
    this.viewport.invalidate();
  }

  /** Loads a batch of files; batches run one after another, each swapping the scene whole or not at all. */
  load(files: OpenedFile[]): Promise<void> {
    this.loadQueue = this.loadQueue.then(() => this.loadNow(files));
    return this.loadQueue;
  }

  dropFiles(files: File[]): void {
    readBrowserFiles(files).then(
      (opened) => this.load(opened),
      (error: unknown) => this.setError(`Could not read the dropped files: ${errorMessage(error)}`),
    );
  }

  setInfluences(count: number): void {
    this.paint?.commitWeights();
    this.influenceSetting = count;
    this.influences = this.influencesFor(this.doc.weights);
    this.skinned.setInfluences(this.influences);
    this.deformation.setInfluences(this.influences);
    this.poseDirty = true;
    this.ui.setInfluences(count);
    this.refreshChrome();
    this.renderNow();
  }

  /** M: linear blend → dual quaternion → per-face. */
  cycleMethod(): void {
    this.deformation.cycleMethod();
  }

  toggleHeatMap(): void {
    this.deformation.setHeatMap(!this.deformation.heatMap);
  }

  /** Replaces the scene with the twist test (a tube, two bones, the second twisting past 180°). */
  loadTwistDemo(): void {
    const doc = twistDemoDocument();
    this.setError(null);
    this.swap(doc, this.influencesFor(doc.weights));
    this.refreshChrome();
    this.renderNow();
  }

  /** Local scale of a bone about its start joint (children follow its end, unscaled; see scaledForwardKinematics). */
  setBoneScale(bone: number, scale: readonly number[]): void {
    if (bone < 0 || bone >= boneCountOf(this.doc)) return;
    this.evaluator.boneScales.set(scale.slice(0, 3), 3 * bone);
    this.poseDirty = true;
    this.refreshChrome();
    this.renderNow();
  }

  /** The weight-blended method's per-vertex LBS ↔ DQS blend: one value for every vertex, or #V values. */
  setBlendWeights(blend: number | ArrayLike<number>): void {
    const n = vertexCountOf(this.doc);
    this.deformation.setBlendWeights(typeof blend === 'number' ? new Float32Array(n).fill(blend) : Float32Array.from(blend));
    this.poseDirty = true;
    this.refreshDeformationChrome();
    this.renderNow();
  }

  /** Swaps in new weights (a completed bind, or its revert) as one document change; the rest of the scene stays. */
  private replaceWeights(weights: DenseMatrix, weightsSource: string): void {
    const doc: SceneDocument = { ...this.doc, weights, weightsSource };
    this.swap(doc, this.influencesFor(weights));
    this.refreshChrome();
    this.renderNow();
  }

  step(direction: -1 | 1): void {
    this.timeline.step(direction);
  }

  dismissError(): void {
    this.setError(null);
  }

  /** Called by the timeline after a seek: show the new time at once. */
  onSeek(): void {
    this.applyPose();
    this.renderNow();
  }

  private async loadNow(files: OpenedFile[]): Promise<void> {
    this.setError(null);
    this.loadingNames = files.map((f) => f.name);
    this.refreshChrome();
    try {
      let base = this.doc;
      let candidate = await loadIntoDocument(base, files, getIoClient());
      // The scene changed while the files were read (a finished bind, a clip, the twist demo): read them again onto
      // the new scene, so the load does not silently undo that change.
      while (this.doc !== base) {
        base = this.doc;
        candidate = await loadIntoDocument(base, files, getIoClient());
      }
      const influences = this.influencesFor(candidate.weights);
      const problem = gpuLimitProblem(candidate, influences.stride, this.viewport.maxTextureSize);
      if (problem) throw new LoadError(problem);
      this.swap(candidate, influences);
      for (const warning of candidate.warnings) console.warn(warning);
      if (candidate.warnings.length > 0) this.notice.show(`Opened ${candidate.name} with ${candidate.warnings.length} warning${candidate.warnings.length > 1 ? 's' : ''}`, candidate.warnings);
      else this.notice.hide();
    } catch (error) {
      this.setError(errorMessage(error));
    } finally {
      this.loadingNames = [];
      this.refreshChrome();
      this.viewport.invalidate();
    }
  }

  private swap(doc: SceneDocument, influences: Influences): void {
    const previous = this.doc;
    const skinned = new SkinnedMeshView(doc, influences);
    const overlay = new SkeletonOverlay(doc.skeleton, doc.diagonal);
    overlay.visible = this.overlay.visible;
    skinned.setWireframe(this.wireframe);
    this.viewport.scene.remove(this.skinned.mesh, this.overlay.group);
    this.skinned.dispose();
    this.overlay.dispose();
    this.doc = doc;
    this.influences = influences;
    this.skinned = skinned;
    this.overlay = overlay;
    const scales = this.evaluator.boneScales;
    this.evaluator = new PoseEvaluator(doc);
    if (doc.skeleton === previous.skeleton) this.evaluator.boneScales.set(scales);
    // Before setDocument: its change callback redraws the bone panel from the selection.
    if (doc.skeleton !== previous.skeleton) this.selectedBone = -1;
    this.deformation.setDocument(doc, influences, skinned);
    this.viewport.scene.add(skinned.mesh, overlay.group);
    overlay.select(this.selectedBone);
    this.binding.attach(doc, skinned.mesh);
    this.paint.attach();
    this.refreshClips();
    if (doc.poses !== previous.poses) this.timeline.setSequence(this.evaluator.kind, this.evaluator.duration, true);
    this.poseDirty = true;
    if (doc.mesh !== previous.mesh || doc.skeleton !== previous.skeleton) this.frameAll();
  }

  private setError(message: string | null): void {
    this.error = message;
    if (message === null) {
      this.ui.hideError();
    } else {
      this.ui.showError(message);
      console.error(message);
    }
  }

  private frameAll(): void {
    const box = boundingBox(this.doc.mesh.positions);
    const joints = this.doc.skeleton.joints;
    for (let i = 0; i < joints.length; i++) {
      box.min[i % 3] = Math.min(box.min[i % 3], joints[i]);
      box.max[i % 3] = Math.max(box.max[i % 3], joints[i]);
    }
    this.viewport.frame(box.min, box.max);
  }

  private applyPose(): void {
    this.evaluator.evaluate(this.timeline.time);
    this.deformation.applyPose(this.evaluator);
    this.overlay.update(this.evaluator.joints);
    this.paint?.poseChanged();
    this.timeline.refreshTime();
    this.poseDirty = false;
    this.weightsDirty = false;
    this.viewport.invalidate();
  }

  /** Before a draw: a new pose re-poses everything; new weights alone refresh only what the deformation derives. */
  private refreshPose(): void {
    if (this.poseDirty) this.applyPose();
    else if (this.weightsDirty) {
      this.deformation.applyPose(this.evaluator);
      this.weightsDirty = false;
    }
  }

  private renderNow(): void {
    this.refreshPose();
    this.viewport.render();
    this.afterRender();
  }

  private afterRender(): void {
    this.framesRendered++;
    if (this.framesRendered === 1) this.resolveFirstFrame();
  }

  private readonly tick = (now: number): void => {
    const seconds = this.lastFrameTime === null ? 0 : Math.min((now - this.lastFrameTime) / 1000, MAX_FRAME_SECONDS);
    this.lastFrameTime = now;
    if (this.timeline.advance(seconds)) this.poseDirty = true;
    this.refreshPose();
    if (!this.drawsHeld && this.viewport.renderIfNeeded()) this.afterRender();
    requestAnimationFrame(this.tick);
  };

  private installPicking(): void {
    const canvas = this.viewport.renderer.domElement;
    canvas.addEventListener('pointerdown', (event) => {
      this.pointerDown = event.button === 0 ? { x: event.clientX, y: event.clientY } : null;
    });
    canvas.addEventListener('pointerup', (event) => {
      const down = this.pointerDown;
      this.pointerDown = null;
      if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > CLICK_SLOP) return;
      const joint = this.jointAt(event.clientX, event.clientY);
      this.selectBone(joint < 0 ? -1 : boneForJoint(this.doc.skeleton.bones, joint));
    });
  }

  /** The joint drawn under a page point (nearest on screen, then nearest to the camera), or -1. */
  private jointAt(pageX: number, pageY: number): number {
    if (!this.overlay.visible) return -1;
    const joints = this.evaluator.joints;
    const camera = this.viewport.camera;
    const rect = this.viewport.renderer.domElement.getBoundingClientRect();
    const pixelsPerUnitAtOne = rect.height / 2 / Math.tan((camera.fov * Math.PI) / 360);
    let best = -1;
    let bestDistance = Infinity;
    let bestDepth = Infinity;
    for (let j = 0; j < joints.length / 3; j++) {
      const x = joints[3 * j], y = joints[3 * j + 1], z = joints[3 * j + 2];
      this.viewport.projectToPage(x, y, z, projected);
      if (projected.z < -1 || projected.z > 1) continue;
      const depth = Math.hypot(x - camera.position.x, y - camera.position.y, z - camera.position.z);
      const radius = Math.max(MIN_PICK_RADIUS, (this.overlay.jointRadius * pixelsPerUnitAtOne) / depth);
      const distance = Math.hypot(projected.x - pageX, projected.y - pageY);
      if (distance > radius) continue;
      if (distance < bestDistance - 0.5 || (Math.abs(distance - bestDistance) <= 0.5 && depth < bestDepth)) {
        best = j;
        bestDistance = distance;
        bestDepth = depth;
      }
    }
    return best;
  }

  private selectBone(bone: number): void {
    // The heat map of the new bone reads the document weights, which a stroke in progress has not written yet.
    this.paint?.commitWeights();
    this.selectedBone = bone;
    this.overlay.select(bone);
    this.binding.onBoneSelected(bone);
    this.paint.refresh();
    this.refreshChrome();
    this.viewport.invalidate();
  }

  /** The influences the viewport skins with: the influence setting, or the export's stored ones when previewing it. */
  private influencesFor(weights: DenseMatrix): Influences {
    const { influences, weightComponent } = this.exportDialog.settings;
    return this.asExported ? exportedInfluences(weights, influences, weightComponent) : influencesFromWeights(weights, this.influenceSetting);
  }

  /** On: linear blend with the export's stored influences; leaving linear blend (M, the Skin menu) turns it off. */
  setAsExported(on: boolean): void {
    this.asExported = on;
    if (on) this.deformation.setMethod('lbs');
    this.showExportSettings(this.exportDialog.settings);
    this.setInfluences(this.influenceSetting);
  }

  private onExportSettings(settings: ExportedWeightSettings): void {
    this.showExportSettings(settings);
    if (this.asExported) this.setInfluences(this.influenceSetting);
  }

  private showExportSettings(settings: ExportedWeightSettings): void {
    this.gltfControls.setAsExported(this.asExported, `${settings.influences} × ${settings.weightComponent.replace('-', ' ')}, LBS`);
  }

  /** Shows clip `index` of the scene's clips (glTF files can hold several). */
  selectClip(index: number): void {
    const clip = this.doc.clips?.[index];
    if (!clip || clip.poses === this.doc.poses) return;
    this.swap({ ...this.doc, poses: clip.poses, posesFile: clip.name }, this.influences);
    this.refreshChrome();
    this.renderNow();
  }

  private refreshClips(): void {
    const clips = this.doc.clips ?? [];
    this.gltfControls.setClips(clips.map((c) => c.name), clips.findIndex((c) => c.poses === this.doc.poses));
  }

  openExport(): void {
    if (this.exportDialog.isOpen) return;
    const method = this.deformation.method;
    const bakeable = method === 'lbs' || method === 'dqs';
    const doc = this.doc;
    this.exportDialog.open({
      baseName: doc.name.replace(/\.[^.]+$/, '') || 'rig',
      vertexCount: vertexCountOf(doc),
      clipName: clipNameOf(doc),
      bakeFrames: doc.poses ? bakeFrameCount(doc.poses, GLTF_EXPORT_DEFAULTS.framesPerSecond) : 0,
      methodLabel: METHOD_LABELS[method],
      bakeProblem: bakeable ? null : `${METHOD_LABELS[method]} skinning does not bake yet; switch to linear blend or dual quaternion (M) to bake.`,
    });
  }

  private async exportGltf(choice: Parameters<typeof exportSceneAsGltf>[1]): Promise<void> {
    this.paint.commitWeights();
    const method = this.deformation.method;
    const warnings = await exportSceneAsGltf(
      this.doc,
      choice,
      { method: method === 'dqs' ? 'dqs' : 'lbs', influences: this.influenceSetting, antipodality: this.deformation.antipodality },
      getIoClient(),
      this.bridge,
    );
    for (const warning of warnings) console.warn(`${choice.fileName}: ${warning}`);
    if (warnings.length > 0) this.notice.show(`Exported ${choice.fileName} with ${warnings.length} note${warnings.length > 1 ? 's' : ''}`, warnings);
    else this.notice.hide();
  }

  private refreshChrome(): void {
    const doc = this.doc;
    this.ui.setSceneName(doc.name);
    this.ui.setToggles(this.wireframe, this.overlay.visible);
    const files = [...new Set([...doc.meshFiles, doc.skeletonFile, doc.posesFile].filter((f): f is string => !!f))];
    const parts = [
      this.loadingNames.length > 0 ? `loading ${this.loadingNames.join(', ')}…` : files.length > 0 ? files.join(' · ') : 'built-in demo',
      `${formatCount(vertexCountOf(doc))} vertices · ${formatCount(triangleCountOf(doc))} triangles · ${boneCountOf(doc)} bones`,
      `weights: ${doc.weightsSource}${this.paint.painted ? ', painted' : ''}`,
      `influences: ${this.influenceSetting === 0 ? `all (${this.influences.stride})` : this.influenceSetting}`,
    ];
    const handles = this.binding.handleCount();
    if (handles.count > 0) parts.push(`handles: ${formatCount(handles.count)} vertices${handles.name ? ` (${handles.name})` : ''}`);
    if (this.selectedBone >= 0) {
      const [start, end] = doc.skeleton.bones.subarray(2 * this.selectedBone, 2 * this.selectedBone + 2);
      parts.push(`bone ${this.selectedBone} (joint ${start} → ${end})`);
    }
    if (this.evaluator.scaled) parts.push('scaled bones: DQS with non-rigid joints (two-phase)');
    if (this.asExported) {
      const { influences, weightComponent } = this.exportDialog.settings;
      parts.push(`as exported: ${influences} × ${weightComponent.replace('-', ' ')}, LBS`);
    }
    if (doc.warnings.length > 0) parts.push(`${doc.warnings.length} warning${doc.warnings.length > 1 ? 's' : ''} in the console`);
    this.ui.setStatus(parts);
    this.refreshDeformationChrome();
  }

  private refreshDeformationChrome(): void {
    const d = this.deformation;
    if (this.asExported && d.method !== 'lbs') this.setAsExported(false);
    this.deformationPanel.show(d);
    const scale = this.selectedBone >= 0 ? this.evaluator.boneScales.subarray(3 * this.selectedBone, 3 * this.selectedBone + 3) : null;
    this.deformationPanel.showBone(this.selectedBone, scale);
    const error = d.perFaceError;
    if (error && this.error !== error) this.setError(error);
  }

  installTestHook(): void {
    installTestHook({
      ready: () => this.firstFrame,
      state: (): RigwrightTestState => ({
        sceneName: this.doc.name,
        meshFiles: [...this.doc.meshFiles],
        vertexCount: vertexCountOf(this.doc),
        triangleCount: triangleCountOf(this.doc),
        boneCount: boneCountOf(this.doc),
        jointCount: jointCountOf(this.doc),
        time: this.timeline.time,
        duration: this.timeline.duration,
        poseKind: this.evaluator.kind,
        playing: this.timeline.playing,
        influences: this.influenceSetting,
        weightsSource: this.doc.weightsSource,
        selectedBone: this.selectedBone,
        error: this.error,
        framesRendered: this.framesRendered,
        method: this.deformation.method,
        antipodality: this.deformation.antipodality,
        splitMethod: this.deformation.splitMethod,
        heatMap: this.deformation.heatMap,
        asExported: this.asExported,
        clips: (this.doc.clips ?? []).map((c) => c.name),
        clipName: this.doc.posesFile,
      }),
      pause: () => this.timeline.pause(),
      play: () => this.timeline.play(),
      setTime: (time) => this.timeline.seek(time),
      setInfluences: (k) => this.setInfluences(k),
      gpuPositions: async () => {
        if (this.poseDirty || this.weightsDirty) this.renderNow();
        await this.deformation.settled();
        return Array.from(this.skinned.readSkinnedPositions(this.viewport.renderer));
      },
      cpuPositions: () => {
        if (this.poseDirty) this.renderNow();
        return Array.from(this.deformation.cpuReference(this.deformation.method, this.evaluator));
      },
      setMethod: (method) => {
        if (!(method in METHOD_LABELS)) throw new Error(`unknown skinning method ${method}`);
        this.deformation.setMethod(method as SkinMethod);
        this.renderNow();
      },
      setAntipodality: (mode) => {
        this.deformation.setAntipodality(mode);
        this.renderNow();
      },
      setSplit: (method) => {
        this.deformation.setSplit(method as SkinMethod | null);
        this.renderNow();
      },
      setHeatMap: (on) => {
        this.deformation.setHeatMap(on);
        this.renderNow();
      },
      setBoneScale: (bone, scale) => this.setBoneScale(bone, scale),
      setBlendWeights: (blend) => this.setBlendWeights(blend),
      loadTwistDemo: () => this.loadTwistDemo(),
      setAsExported: (on, settings) => {
        if (settings) Object.assign(this.exportDialog.settings, settings);
        this.setAsExported(on);
        this.renderNow();
      },
      selectClip: (index) => this.selectClip(index),
      binding: this.binding.testHook(),
      paint: this.paint.testHook(),
      settled: () => this.deformation.settled(),
      jointScreenPosition: (joint) => {
        const j = this.evaluator.joints;
        this.viewport.projectToPage(j[3 * joint], j[3 * joint + 1], j[3 * joint + 2], projected);
        return { x: projected.x, y: projected.y };
      },
      boundingDiagonal: () => this.doc.diagonal,
      holdDraws: (on) => {
        this.drawsHeld = on;
        this.viewport.invalidate();
      },
      measureFrameTime: (frames) => {
        this.timeline.pause();
        const gl = this.viewport.renderer.getContext();
        const pixel = new Uint8Array(4);
        const times: number[] = [];
        for (let i = 0; i < frames; i++) {
          const start = performance.now();
          this.timeline.seek((this.timeline.duration * (i % 16)) / 15);
          gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        return times[Math.floor(times.length / 2)];
      },
    });
  }
}

function boot(): void {
  let app: App | null = null;
  const ui = new Ui({
    command: (command) => app?.issue(command),
    setInfluences: (count) => app?.setInfluences(count),
    step: (direction) => app?.step(direction),
    cycleMethod: () => app?.cycleMethod(),
    toggleHeatMap: () => app?.toggleHeatMap(),
    dropFiles: (files) => app?.dropFiles(files),
    dismissError: () => app?.dismissError(),
  });
  try {
    const container = document.getElementById('viewport');
    const timelineBar = document.getElementById('timeline');
    if (!container || !timelineBar) throw new Error('the page is missing #viewport or #timeline');
    const viewport = new Viewport(container);
    const timeline = new Timeline(timelineBar, () => app?.onSeek());
    const bridge = getBridge();
    ui.handlesOpenShortcut = bridge.platform === 'web';
    app = new App(viewport, ui, timeline, bridge);
    app.installTestHook();
  } catch (error) {
    const message = `Rigwright could not start: ${errorMessage(error)}`;
    ui.showError(message);
    console.error(message);
  }
}

boot();
