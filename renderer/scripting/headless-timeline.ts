/**
 * The timeline without the page: the time the key commands key at and the pose commands read the shown pose at,
 * moved by playback.seek, playback.previousFrame and playback.nextFrame as the app's timeline (panels/timeline.ts)
 * moves it, and started over at time 0 by every new sequence (PosePlayback tells it, as it tells the app's). Headless
 * nothing plays: a script goes to a time with playback.seek, and a key set there lands where the app's would, paused
 * at that time.
 */
import type { PoseKind } from '../deform/pose-evaluator.ts';
import type { SequenceTimeline } from '../skeleton/pose-playback.ts';

/** What playback.previousFrame and playback.nextFrame move a final pose's t by (the app's step). */
export const QUATERNION_STEP = 0.05;

export class HeadlessTimeline implements SequenceTimeline {
  /** frames (matrices), the SLERP parameter t (quaternions) or 0 (rest): the app's Timeline.time */
  time = 0;
  /** the sequence's length in its own unit (poseDuration) */
  duration = 0;
  kind: PoseKind = 'rest';
  /** never true headless; kept for the key commands, which pause a playing timeline */
  readonly playing = false;

  /** A new sequence from time 0 (headless it never plays, whatever `autoplay` says). */
  setSequence(kind: PoseKind, duration: number): void {
    this.kind = kind;
    this.duration = duration;
    this.time = 0;
  }

  /** Sets the time, clamped to the sequence (a time that is not a finite number goes to 0), as the app's seek does. */
  seek(time: number): void {
    this.time = Math.min(Math.max(Number.isFinite(time) ? time : 0, 0), this.duration);
  }

  /** Nothing plays headless: nothing to pause. */
  pause(): void {}

  /** One frame (matrices) or QUATERNION_STEP in t (quaternions) back (−1) or forward (+1), as the app's step. */
  step(direction: -1 | 1): void {
    if (this.kind === 'matrices') {
      this.seek(direction > 0 ? Math.floor(this.time + 1e-9) + 1 : Math.ceil(this.time - 1e-9) - 1);
    } else {
      this.seek(this.time + direction * QUATERNION_STEP);
    }
  }
}
