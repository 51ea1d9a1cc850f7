/**
 * The pose shown: the evaluator of the scene's pose sequence, and the timeline it plays on. A new scene, or another
 * sequence (a clip chosen or poses loaded: another `posesFile`), starts the timeline over and plays; the same clip
 * with other frames (baked, trimmed, made longer, or such an edit undone) starts it over paused; an edit that keeps
 * the sequence's timing (a key set; a bone inserted, deleted or moved, which rewrites every pose's arrays but not
 * its file or its frames) keeps the time and whether it plays. The evaluator is made anew whenever the skeleton, the
 * poses or the bones posed by hand change (its buffers are sized by bone; it reads the document it was made with),
 * and takes the bone scales.
 */
import { PoseEvaluator, type PoseKind, type PoseView } from '../deform/pose-evaluator.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** The timeline as this needs it: a new sequence to play from its start. */
export interface SequenceTimeline {
  setSequence(kind: PoseKind, duration: number, autoplay: boolean, times: Float64Array | null): void;
}

export class PosePlayback {
  private current: PoseEvaluator;
  /** the rest toggle and a gesture's live pose, kept across the evaluators made for new skeletons and sequences */
  readonly view: PoseView = { rest: false, live: null };

  /**
   * @param timeline  told of every new sequence (it then plays from time 0)
   * @param posed     the pose to show changed: it is evaluated again before the next draw
   */
  constructor(
    private readonly store: SceneStore,
    private readonly timeline: SequenceTimeline,
    private readonly posed: () => void,
  ) {
    this.current = this.evaluatorOfScene();
    this.showSequence();
    store.subscribe((change) => {
      if (change.kind !== 'document') return;
      const { fields } = change;
      if (change.newScene || fields.has('poses') || fields.has('skeleton') || fields.has('posedBones')) {
        const previous = this.current;
        this.current = this.evaluatorOfScene();
        // Another clip plays from its start; the same clip made longer or shorter (trimmed, baked, undone) starts paused.
        const another = change.newScene || fields.has('posesFile');
        if (another || !sameTiming(previous, this.current)) this.showSequence(another);
      } else if (fields.has('boneScales')) this.takeScales();
      this.posed();
    });
  }

  get evaluator(): PoseEvaluator {
    return this.current;
  }

  /** A new evaluator of the scene's poses, with its bone scales. */
  private evaluatorOfScene(): PoseEvaluator {
    const evaluator = new PoseEvaluator(this.store.doc, this.view);
    this.takeScales(evaluator);
    return evaluator;
  }

  private takeScales(evaluator: PoseEvaluator = this.current): void {
    const { boneScales } = this.store.doc;
    evaluator.boneScales.fill(1);
    if (boneScales) evaluator.boneScales.set(boneScales);
  }

  private showSequence(autoplay = true): void {
    const e = this.current;
    this.timeline.setSequence(e.kind, e.duration, autoplay, e.times);
  }
}

/** Whether two evaluators play on the same timeline: kind, length and key times (values, not identity). */
function sameTiming(a: PoseEvaluator, b: PoseEvaluator): boolean {
  if (a.kind !== b.kind || a.duration !== b.duration) return false;
  if (a.times === b.times) return true;
  if (!a.times || !b.times || a.times.length !== b.times.length) return false;
  return a.times.every((t, i) => t === b.times![i]);
}
