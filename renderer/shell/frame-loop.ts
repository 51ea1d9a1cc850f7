/**
 * The render loop: time advances, the pose is evaluated into preallocated buffers, the deformation and the
 * skeleton overlay follow, and a frame is drawn only when something changed. It allocates nothing per frame.
 */
import type { DeformationController } from '../deform/deformation-controller.ts';
import type { PoseEvaluator } from '../deform/pose-evaluator.ts';
import type { Timeline } from '../panels/timeline.ts';
import type { SkeletonOverlay } from '../view/skeleton-overlay.ts';
import type { Viewport } from '../view/viewport.ts';

/** Longest frame step the animation takes, so a stalled tab does not jump ahead. */
const MAX_FRAME_SECONDS = 0.1;

export interface FrameHost {
  readonly viewport: Viewport;
  readonly timeline: Timeline;
  readonly deformation: DeformationController;
  evaluator(): PoseEvaluator;
  overlay(): SkeletonOverlay;
  /** a new pose was applied (whatever keeps posed positions goes stale) */
  posed(): void;
}

export class FrameLoop {
  framesRendered = 0;
  /** the test hook's holdDraws: the tick skips drawing */
  drawsHeld = false;
  readonly firstFrame: Promise<void>;
  private resolveFirstFrame!: () => void;
  private poseDirty = true;
  /** the weights changed: the CPU-side products of the weights (not the pose) refresh before the next draw */
  private weightsDirty = false;
  private lastFrameTime: number | null = null;

  constructor(private readonly host: FrameHost) {
    this.firstFrame = new Promise((resolve) => (this.resolveFirstFrame = resolve));
  }

  start(): void {
    requestAnimationFrame(this.tick);
  }

  /** The pose (or what it is applied to) changed: it is evaluated again before the next draw. */
  markPose(): void {
    this.poseDirty = true;
    this.host.viewport.invalidate();
  }

  /** The weights changed: what the deformation derives from them refreshes before the next draw. */
  markWeights(): void {
    this.weightsDirty = true;
    this.host.viewport.invalidate();
  }

  get dirty(): boolean {
    return this.poseDirty || this.weightsDirty;
  }

  /** Brings the pose up to date now if it is stale (before reading posed positions). */
  ensurePose(): void {
    if (this.poseDirty) this.applyPose();
  }

  applyPose(): void {
    const { host } = this;
    const evaluator = host.evaluator();
    evaluator.evaluate(host.timeline.time);
    host.deformation.applyPose(evaluator);
    host.overlay().update(evaluator.joints);
    host.posed();
    host.timeline.refreshTime();
    this.poseDirty = false;
    this.weightsDirty = false;
    host.viewport.invalidate();
  }

  /** Before a draw: a new pose re-poses everything; new weights alone refresh only what the deformation derives. */
  private refreshPose(): void {
    if (this.poseDirty) this.applyPose();
    else if (this.weightsDirty) {
      this.host.deformation.applyPose(this.host.evaluator());
      this.weightsDirty = false;
    }
  }

  renderNow(): void {
    this.refreshPose();
    this.host.viewport.render();
    this.afterRender();
  }

  private afterRender(): void {
    this.framesRendered++;
    if (this.framesRendered === 1) this.resolveFirstFrame();
  }

  private readonly tick = (now: number): void => {
    const seconds = this.lastFrameTime === null ? 0 : Math.min((now - this.lastFrameTime) / 1000, MAX_FRAME_SECONDS);
    this.lastFrameTime = now;
    if (this.host.timeline.advance(seconds)) this.poseDirty = true;
    this.refreshPose();
    if (!this.drawsHeld && this.host.viewport.renderIfNeeded()) this.afterRender();
    requestAnimationFrame(this.tick);
  };
}
