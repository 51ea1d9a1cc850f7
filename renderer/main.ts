/**
 * Boot and wiring: the document, its views (GPU-skinned mesh, skeleton overlay), the timeline, the UI, the
 * bridge to the desktop shell or the browser, and the render loop. The loop allocates nothing: time advances,
 * the pose is evaluated into preallocated buffers, the joint texture is re-uploaded, and a frame is drawn
 * only when something changed.
 */
import type { MenuCommand, OpenedFile, RigwrightBridge } from '../app/ipc-contract.ts';
import { influencesFromWeights, type Influences } from '../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../workers/skinning/linear-blend-skinning.ts';
import { boundingBox } from '../workers/mesh/bounds.ts';
import { WebBridge, getBridge, readBrowserFiles } from './bridge.ts';
import { getIoClient } from './io-client.ts';
import { PoseEvaluator } from './pose-evaluator.ts';
import {
  LoadError,
  boneCountOf,
  demoDocument,
  errorMessage,
  jointCountOf,
  loadIntoDocument,
  triangleCountOf,
  vertexCountOf,
  type SceneDocument,
} from './scene-document.ts';
import { SkeletonOverlay, boneForJoint } from './skeleton-overlay.ts';
import { SkinnedMeshView, gpuLimitProblem } from './skinned-mesh.ts';
import { installTestHook, type RigwrightTestState } from './test-hook.ts';
import { Timeline } from './timeline.ts';
import { Ui, formatCount } from './ui.ts';
import { Viewport } from './viewport.ts';

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
  private lastFrameTime: number | null = null;
  private loadQueue: Promise<void> = Promise.resolve();
  private readonly firstFrame: Promise<void>;
  private resolveFirstFrame!: () => void;
  private pointerDown: { x: number; y: number } | null = null;

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
    timeline.setSequence(this.evaluator.kind, this.evaluator.duration, true);
    this.frameAll();
    this.installPicking();
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
    this.influenceSetting = count;
    this.influences = influencesFromWeights(this.doc.weights, count);
    this.skinned.setInfluences(this.influences);
    this.ui.setInfluences(count);
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
      const candidate = await loadIntoDocument(this.doc, files, getIoClient());
      const influences = influencesFromWeights(candidate.weights, this.influenceSetting);
      const problem = gpuLimitProblem(candidate, influences.stride, this.viewport.maxTextureSize);
      if (problem) throw new LoadError(problem);
      this.swap(candidate, influences);
      for (const warning of candidate.warnings) console.warn(warning);
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
    this.evaluator = new PoseEvaluator(doc);
    this.viewport.scene.add(skinned.mesh, overlay.group);
    if (doc.skeleton !== previous.skeleton) this.selectedBone = -1;
    overlay.select(this.selectedBone);
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
    this.skinned.setTransforms(this.evaluator.transforms);
    this.overlay.update(this.evaluator.joints);
    this.timeline.refreshTime();
    this.poseDirty = false;
    this.viewport.invalidate();
  }

  private renderNow(): void {
    if (this.poseDirty) this.applyPose();
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
    if (this.poseDirty) this.applyPose();
    if (this.viewport.renderIfNeeded()) this.afterRender();
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
    this.selectedBone = bone;
    this.overlay.select(bone);
    this.refreshChrome();
    this.viewport.invalidate();
  }

  private refreshChrome(): void {
    const doc = this.doc;
    this.ui.setSceneName(doc.name);
    this.ui.setToggles(this.wireframe, this.overlay.visible);
    const files = [...doc.meshFiles, doc.skeletonFile, doc.posesFile].filter((f): f is string => !!f);
    const parts = [
      this.loadingNames.length > 0 ? `loading ${this.loadingNames.join(', ')}…` : files.length > 0 ? files.join(' · ') : 'built-in demo',
      `${formatCount(vertexCountOf(doc))} vertices · ${formatCount(triangleCountOf(doc))} triangles · ${boneCountOf(doc)} bones`,
      `weights: ${doc.weightsSource}`,
      `influences: ${this.influenceSetting === 0 ? `all (${this.influences.stride})` : this.influenceSetting}`,
    ];
    if (doc.handles && doc.handlesFile) {
      const handled = doc.handles.reduce((n, bone) => (bone >= 0 ? n + 1 : n), 0);
      parts.push(`handles: ${formatCount(handled)} vertices (${doc.handlesFile})`);
    }
    if (this.selectedBone >= 0) {
      const [start, end] = doc.skeleton.bones.subarray(2 * this.selectedBone, 2 * this.selectedBone + 2);
      parts.push(`bone ${this.selectedBone} (joint ${start} → ${end})`);
    }
    if (doc.warnings.length > 0) parts.push(`${doc.warnings.length} warning${doc.warnings.length > 1 ? 's' : ''} in the console`);
    this.ui.setStatus(parts);
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
      }),
      pause: () => this.timeline.pause(),
      play: () => this.timeline.play(),
      setTime: (time) => this.timeline.seek(time),
      setInfluences: (k) => this.setInfluences(k),
      gpuPositions: () => {
        if (this.poseDirty) this.renderNow();
        return Promise.resolve(Array.from(this.skinned.readSkinnedPositions(this.viewport.renderer)));
      },
      cpuPositions: () => {
        if (this.poseDirty) this.renderNow();
        const out = new Float64Array(this.doc.mesh.positions.length);
        linearBlendSkinning(this.doc.mesh.positions, this.influences, this.evaluator.transforms, out);
        return Array.from(out);
      },
      jointScreenPosition: (joint) => {
        const j = this.evaluator.joints;
        this.viewport.projectToPage(j[3 * joint], j[3 * joint + 1], j[3 * joint + 2], projected);
        return { x: projected.x, y: projected.y };
      },
      boundingDiagonal: () => this.doc.diagonal,
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
