/**
 * The bottom bar: play/pause, scrub slider (with, over it, the examples' pose-space weights a_j as curves along
 * the sequence, when the scene has examples), frame (or t) readout, speed and loop. A two-state machine —
 * paused ⇄ playing — over a time in the pose sequence's own unit: frames 0 … L−1 for matrix sequences, the SLERP
 * parameter t ∈ [0, 1] played over 2 s for a quaternion pose, nothing for the rest pose. Frames without key times
 * (pose files) play at 30 fps; a clip with key times (glTF, baked) plays in its own seconds: the slider and the
 * readout are in seconds, ticks mark the keys, and the time between two keys is a fractional frame (linear in
 * seconds between the keys' times), which the pose evaluator turns back into seconds.
 *
 * A keyed clip shows its keys as diamonds over the slider (the selected bone's filled): click one to go to its frame,
 * drag it to move its keys (one move when released; Escape during the drag puts it back and moves nothing), right-click
 * it or press Delete on it to delete them.
 */
import type { PoseKind } from '../deform/pose-evaluator.ts';
import './timeline-keys.css';
import { valueField, type ValueField } from './controls.ts';

const FRAMES_PER_SECOND = 30;
const QUATERNION_SECONDS = 2;
const QUATERNION_STEP = 0.05;
/** the step of t on the slider and in its field */
const QUATERNION_FIELD_STEP = 0.001;
export const SPEEDS = [0.25, 0.5, 1, 1.5, 2, 4] as const;
const SVG = 'http://www.w3.org/2000/svg';
/** viewBox width of the weight curves (they stretch to the slider) */
const CURVE_WIDTH = 1000;

const PLAY_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11l9-5.5z" fill="currentColor"/></svg>';
const PAUSE_ICON = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3.5 2.5h3v11h-3zM9.5 2.5h3v11h-3z" fill="currentColor"/></svg>';
const LOOP_ICON =
  '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 5h7l-2-2M12 11H5l2 2M3 9V7a2 2 0 0 1 2-2M13 7v2a2 2 0 0 1-2 2" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, parent: HTMLElement): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  parent.append(node);
  return node;
}

/** What the key marks do: the shell runs the key commands. */
export interface KeyMarkActions {
  /** the keys at frame `from` go to frame `to` */
  move(from: number, to: number): void;
  /** the keys at `frame` are deleted */
  remove(frame: number): void;
}

/** A keyed clip's keys as the timeline marks them. */
export interface KeyMarks {
  /** frames with a key of any bone, ascending */
  readonly frames: readonly number[];
  /** frames with a key of the selected bone */
  readonly selected: readonly number[];
}

export class Timeline {
  time = 0;
  duration = 0;
  kind: PoseKind = 'rest';
  playing = false;
  speed = 1;
  loop = true;
  /** seconds of every frame (a clip with key times), or null */
  times: Float64Array | null = null;

  private readonly playButton: HTMLButtonElement;
  private readonly slider: HTMLInputElement;
  private readonly curves: SVGSVGElement;
  private readonly ticks: SVGSVGElement;
  /** the curve values drawn now, to redraw only new ones */
  private curveValues: Float64Array | null = null;
  private readonly readout: HTMLSpanElement;
  /** the frame shown, editable: typing one goes there (clips of frames; hidden for t and the rest pose) */
  private readonly frameField: ValueField;
  /** t of a quaternion pose, editable the same way (hidden for the rest) */
  private readonly parameterField: ValueField;
  private readonly speedSelect: HTMLSelectElement;
  private readonly loopButton: HTMLButtonElement;
  /** what the readout and slider show now, to touch the DOM only when it changes */
  private shownKey = Number.NaN;
  private readonly keyMarks: HTMLDivElement;
  /** the marks drawn now, to redraw only new ones */
  private shownMarks = '';
  private keyActions: KeyMarkActions | null = null;

  /** @param onSeek  called after the user (or a shortcut) moved the time or paused, so the caller redraws */
  constructor(
    container: HTMLElement,
    private readonly onSeek: () => void,
  ) {
    this.playButton = element('button', 'icon-button play-button', container);
    this.playButton.type = 'button';
    this.playButton.addEventListener('click', () => {
      this.toggle();
      this.playButton.blur();
    });

    const track = element('div', 'scrub-track', container);
    this.curves = document.createElementNS(SVG, 'svg');
    this.curves.classList.add('weight-curves');
    this.curves.setAttribute('viewBox', `0 0 ${CURVE_WIDTH} 100`);
    this.curves.setAttribute('preserveAspectRatio', 'none');
    this.curves.setAttribute('aria-hidden', 'true');
    this.ticks = document.createElementNS(SVG, 'svg');
    this.ticks.classList.add('key-ticks');
    this.ticks.setAttribute('viewBox', `0 0 ${CURVE_WIDTH} 10`);
    this.ticks.setAttribute('preserveAspectRatio', 'none');
    this.ticks.setAttribute('aria-hidden', 'true');
    this.keyMarks = document.createElement('div');
    this.keyMarks.className = 'key-marks';
    track.append(this.curves, this.ticks, this.keyMarks);
    this.slider = element('input', 'scrubber', track);
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.setAttribute('aria-label', 'Time');
    this.slider.addEventListener('input', () => {
      const value = Number(this.slider.value);
      this.pause();
      this.seek(this.times ? this.frameAt(value) : value);
    });
    // Hand the keyboard back to the shortcuts (Space, arrows) once a drag or key press on the slider is done.
    this.slider.addEventListener('change', () => this.slider.blur());

    this.frameField = valueField(0, 0, 1, (frame) => {
      this.pause();
      this.seek(frame);
    });
    this.frameField.root.classList.add('frame-field');
    this.frameField.root.hidden = true;
    this.frameField.input.setAttribute('aria-label', 'Frame');
    this.frameField.input.title = 'The frame shown: type one and press Enter to go there';
    this.parameterField = valueField(0, 1, QUATERNION_FIELD_STEP, (t) => {
      this.pause();
      this.seek(t);
    });
    this.parameterField.root.classList.add('t-field');
    this.parameterField.root.hidden = true;
    this.parameterField.input.setAttribute('aria-label', 't');
    this.parameterField.input.title = 'How far along the pose, from 0 (rest) to 1: type a value and press Enter to go there';
    container.append(this.frameField.root, this.parameterField.root);
    this.readout = element('span', 'time-readout', container);

    const speedLabel = element('label', 'speed', container);
    speedLabel.append('Speed ');
    this.speedSelect = element('select', 'speed-select', speedLabel);
    for (const speed of SPEEDS) this.speedSelect.add(new Option(`${speed}×`, String(speed), speed === 1, speed === 1));
    this.speedSelect.addEventListener('change', () => {
      this.speed = Number(this.speedSelect.value);
      this.speedSelect.blur();
    });

    this.loopButton = element('button', 'icon-button loop-button', container);
    this.loopButton.type = 'button';
    this.loopButton.title = 'Loop';
    this.loopButton.innerHTML = LOOP_ICON;
    this.loopButton.addEventListener('click', () => {
      this.loop = !this.loop;
      this.loopButton.blur();
      this.refreshControls();
    });
    this.refreshControls();
  }

  /**
   * Draws each example's weight a_j along the sequence over the slider, or removes the curves (null).
   * @param curves  values: frames × J, time-major, sampled evenly from time 0 to the sequence's duration; one
   *                colour and name per example
   */
  setCurves(curves: { frames: number; values: Float64Array; names: readonly string[]; colors: readonly string[] } | null): void {
    if ((curves?.values ?? null) === this.curveValues && this.curves.childElementCount === (curves?.names.length ?? 0)) return;
    this.curveValues = curves?.values ?? null;
    this.curves.classList.toggle('shown', curves !== null);
    if (!curves) {
      this.curves.replaceChildren();
      return;
    }
    const { frames, values, names, colors } = curves;
    const J = names.length;
    this.curves.replaceChildren(
      ...names.map((name, j) => {
        const line = document.createElementNS(SVG, 'polyline');
        const points: string[] = [];
        for (let f = 0; f < frames; f++) {
          const x = this.times?.length === frames ? this.tickX(f) : frames > 1 ? (f / (frames - 1)) * CURVE_WIDTH : 0;
          const a = Math.min(1, Math.max(0, values[f * J + j]));
          points.push(`${x.toFixed(1)},${(100 - 96 * a - 2).toFixed(1)}`);
        }
        line.setAttribute('points', points.join(' '));
        line.setAttribute('stroke', colors[j]);
        line.dataset.example = name;
        const title = document.createElementNS(SVG, 'title');
        title.textContent = `${name}: pose-space weight along the sequence`;
        line.append(title);
        return line;
      }),
    );
  }

  /** What dragging, right-clicking or pressing Delete on a key mark does. */
  setKeyActions(actions: KeyMarkActions): void {
    this.keyActions = actions;
  }

  /** Draws a keyed clip's key marks (frames 0 … duration along the slider), or removes them (null). */
  setKeyMarks(marks: KeyMarks | null): void {
    const shown =
      marks && this.kind === 'matrices' && !this.times ? `${this.duration}:${marks.frames.join()}:${marks.selected.join()}` : '';
    if (shown === this.shownMarks) return;
    this.shownMarks = shown;
    this.keyMarks.classList.toggle('shown', shown !== '');
    if (!marks || shown === '') {
      this.keyMarks.replaceChildren();
      return;
    }
    const selected = new Set(marks.selected);
    this.keyMarks.replaceChildren(...marks.frames.map((frame) => this.keyMark(frame, selected.has(frame))));
  }

  /** One diamond: click goes to its frame, drag moves its keys (Escape cancels the drag), right-click or Delete deletes them. */
  private keyMark(frame: number, selected: boolean): HTMLButtonElement {
    const mark = document.createElement('button');
    mark.type = 'button';
    mark.className = selected ? 'key-mark selected' : 'key-mark';
    mark.dataset.frame = String(frame);
    // Delete on a mark, and Escape while it is dragged, are the mark's, not the window's shortcuts (tool-manager.ts).
    const ownKeys = 'Delete Backspace';
    mark.dataset.ownKeys = ownKeys;
    mark.title = `Every bone’s keys at frame ${frame}: drag to move them (Escape cancels), right-click or Delete to delete them`;
    mark.setAttribute('aria-label', `Keys at frame ${frame}`);
    this.placeMark(mark, frame);
    let target = frame;
    let dragging = false;
    let pointer = -1;
    mark.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      // Focused (its Delete deletes it, and Escape cancels its drag); the prevented press would not focus it.
      mark.focus();
      mark.setPointerCapture(event.pointerId);
      dragging = true;
      pointer = event.pointerId;
      mark.dataset.ownKeys = `${ownKeys} Escape`;
      target = frame;
    });
    mark.addEventListener('pointermove', (event) => {
      if (!dragging) return;
      target = this.frameAtX(event.clientX);
      this.placeMark(mark, target);
    });
    const release = (commit: boolean) => {
      if (!dragging) return;
      dragging = false;
      mark.dataset.ownKeys = ownKeys;
      if (mark.hasPointerCapture(pointer)) mark.releasePointerCapture(pointer);
      if (commit && target !== frame) this.keyActions?.move(frame, target);
      else {
        this.placeMark(mark, frame);
        if (commit) {
          this.pause();
          this.seek(frame);
        }
      }
    };
    mark.addEventListener('pointerup', () => release(true));
    mark.addEventListener('pointercancel', () => release(false));
    mark.addEventListener('contextmenu', (event) => {
      event.preventDefault();
      this.keyActions?.remove(frame);
    });
    mark.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        if (!dragging) return;
        event.preventDefault();
        release(false);
        return;
      }
      if (event.key !== 'Delete' && event.key !== 'Backspace') return;
      event.preventDefault();
      this.keyActions?.remove(frame);
    });
    return mark;
  }

  /** Puts a mark over the slider at a frame (inset like the slider thumb's travel). */
  private placeMark(mark: HTMLElement, frame: number): void {
    const fraction = this.duration > 0 ? frame / this.duration : 0;
    mark.style.left = `calc(8px + (100% - 16px) * ${fraction})`;
  }

  /** The whole frame under a page x on the slider's track. */
  private frameAtX(clientX: number): number {
    const box = this.keyMarks.getBoundingClientRect();
    const width = box.width - 16;
    const fraction = width > 0 ? (clientX - box.left - 8) / width : 0;
    return Math.min(Math.max(Math.round(fraction * this.duration), 0), this.duration);
  }

  /**
   * Shows a new pose sequence from time 0, playing if `autoplay` and it has something to play.
   * @param times  seconds of each of the duration + 1 frames, strictly increasing (a clip with key times), or null
   */
  setSequence(kind: PoseKind, duration: number, autoplay: boolean, times: Float64Array | null = null): void {
    this.kind = kind;
    this.duration = duration;
    this.times = kind === 'matrices' && times && times.length === duration + 1 ? times : null;
    this.time = 0;
    this.playing = autoplay && duration > 0;
    this.slider.min = String(this.times ? this.times[0] : 0);
    this.slider.max = String(this.times ? this.times[duration] : duration);
    this.slider.step = this.times ? 'any' : kind === 'matrices' ? '1' : String(QUATERNION_FIELD_STEP);
    this.slider.disabled = duration === 0;
    this.frameField.input.max = String(duration);
    this.frameField.root.hidden = kind !== 'matrices' || duration === 0;
    this.parameterField.input.max = String(duration);
    this.parameterField.root.hidden = kind !== 'quaternions' || duration === 0;
    this.ticks.replaceChildren(
      ...Array.from(this.times ?? [], (_, k) => {
        const line = document.createElementNS(SVG, 'line');
        const x = this.tickX(k).toFixed(1);
        line.setAttribute('x1', x);
        line.setAttribute('x2', x);
        line.setAttribute('y1', '0');
        line.setAttribute('y2', '10');
        return line;
      }),
    );
    this.ticks.classList.toggle('shown', this.times !== null);
    this.shownMarks = '';
    this.keyMarks.replaceChildren();
    this.keyMarks.classList.remove('shown');
    this.shownKey = Number.NaN;
    this.refreshControls();
  }

  /**
   * Moves time forward while playing.
   * @param elapsed  wall-clock time since the last frame
   * @returns whether the time changed
   */
  advance(elapsed: number): boolean {
    if (!this.playing || this.duration === 0) return false;
    if (this.times) {
      const start = this.times[0];
      const end = this.times[this.duration];
      let seconds = this.secondsAt(this.time) + elapsed * this.speed;
      if (seconds >= end) {
        if (this.loop && end > start) {
          seconds = start + ((seconds - start) % (end - start));
        } else {
          seconds = end;
          this.playing = false;
          this.refreshControls();
        }
      }
      this.time = this.frameAt(seconds);
      return true;
    }
    const rate = this.kind === 'matrices' ? FRAMES_PER_SECOND : 1 / QUATERNION_SECONDS;
    let next = this.time + elapsed * rate * this.speed;
    if (next >= this.duration) {
      if (this.loop) {
        next %= this.duration;
      } else {
        next = this.duration;
        this.playing = false;
        this.refreshControls();
      }
    }
    this.time = next;
    return true;
  }

  play(): void {
    if (this.duration === 0 || this.playing) return;
    // Playing from the end without looping would stop at once; start over instead.
    if (!this.loop && this.time >= this.duration) this.time = 0;
    this.playing = true;
    this.refreshControls();
  }

  pause(): void {
    if (!this.playing) return;
    this.playing = false;
    this.refreshControls();
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  /** Sets the time (clamped to the sequence) and tells the owner to redraw. */
  seek(time: number): void {
    this.time = Math.min(Math.max(Number.isFinite(time) ? time : 0, 0), this.duration);
    this.onSeek();
  }

  /** One frame (matrices) or 0.05 in t (quaternions) back (−1) or forward (+1), pausing playback. */
  step(direction: -1 | 1): void {
    this.pause();
    if (this.kind === 'matrices') {
      const frame = direction > 0 ? Math.floor(this.time + 1e-9) + 1 : Math.ceil(this.time - 1e-9) - 1;
      this.seek(frame);
    } else {
      this.seek(this.time + direction * QUATERNION_STEP);
    }
  }

  /** Updates the slider and readout; cheap when nothing visible changed. */
  refreshTime(): void {
    if (this.times) {
      const seconds = this.secondsAt(this.time);
      const shown = Math.round(seconds * 1000);
      if (shown === this.shownKey) return;
      this.shownKey = shown;
      this.slider.value = String(seconds);
      const frame = Math.floor(this.time + 1e-9);
      const onKey = Math.abs(this.time - Math.round(this.time)) < 1e-9;
      this.frameField.show(frame);
      this.readout.textContent = `${seconds.toFixed(3)} s · ${onKey ? `key ${Math.round(this.time)}` : `keys ${frame}–${frame + 1}`} / ${this.duration}`;
      return;
    }
    const key = this.kind === 'matrices' ? Math.floor(this.time) : Math.round(this.time * 1000);
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.slider.value = String(this.kind === 'matrices' ? key : this.time);
    if (this.kind === 'matrices') this.frameField.show(key);
    if (this.kind === 'quaternions') this.parameterField.show(this.time);
    if (this.kind === 'matrices') this.readout.textContent = `frame ${key} / ${this.duration}`;
    else if (this.kind === 'quaternions') this.readout.textContent = `t ${this.time.toFixed(3)}`;
    else this.readout.textContent = 'rest pose';
  }

  /** Seconds at a frame number (linear between the keys' times); needs `times`. */
  secondsAt(frame: number): number {
    const times = this.times!;
    const f = Math.min(Math.max(frame, 0), this.duration);
    const k = Math.floor(f);
    return k >= this.duration ? times[this.duration] : times[k] + (f - k) * (times[k + 1] - times[k]);
  }

  /** The frame number at a time in seconds (the inverse of secondsAt), clamped; needs `times`. */
  frameAt(seconds: number): number {
    const times = this.times!;
    if (!(seconds > times[0])) return 0;
    if (seconds >= times[this.duration]) return this.duration;
    let lo = 0;
    let hi = this.duration;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= seconds) lo = mid;
      else hi = mid;
    }
    return lo + (seconds - times[lo]) / (times[hi] - times[lo]);
  }

  /** x of key k on the slider's track (0 … CURVE_WIDTH), by its time. */
  private tickX(k: number): number {
    const times = this.times!;
    const span = times[this.duration] - times[0];
    return span > 0 ? ((times[k] - times[0]) / span) * CURVE_WIDTH : 0;
  }

  private refreshControls(): void {
    this.playButton.innerHTML = this.playing ? PAUSE_ICON : PLAY_ICON;
    this.playButton.title = this.playing ? 'Pause (Space)' : 'Play (Space)';
    this.playButton.disabled = this.duration === 0;
    this.loopButton.setAttribute('aria-pressed', String(this.loop));
    this.shownKey = Number.NaN;
    this.refreshTime();
  }
}
