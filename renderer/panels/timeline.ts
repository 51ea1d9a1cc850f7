/**
 * The bottom bar: play/pause, scrub slider (with, over it, the examples' pose-space weights a_j as curves along
 * the sequence, when the scene has examples), frame (or t) readout, speed and loop. A two-state machine —
 * paused ⇄ playing — over a time in the pose sequence's own unit: frames 0 … L−1 played at 30 fps for matrix
 * sequences, the SLERP parameter t ∈ [0, 1] played over 2 s for a quaternion pose, nothing for the rest pose.
 */
import type { PoseKind } from '../deform/pose-evaluator.ts';

const FRAMES_PER_SECOND = 30;
const QUATERNION_SECONDS = 2;
const QUATERNION_STEP = 0.05;
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

export class Timeline {
  time = 0;
  duration = 0;
  kind: PoseKind = 'rest';
  playing = false;
  speed = 1;
  loop = true;

  private readonly playButton: HTMLButtonElement;
  private readonly slider: HTMLInputElement;
  private readonly curves: SVGSVGElement;
  /** the curve values drawn now, to redraw only new ones */
  private curveValues: Float64Array | null = null;
  private readonly readout: HTMLSpanElement;
  private readonly speedSelect: HTMLSelectElement;
  private readonly loopButton: HTMLButtonElement;
  /** what the readout and slider show now, to touch the DOM only when it changes */
  private shownKey = Number.NaN;

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
    track.append(this.curves);
    this.slider = element('input', 'scrubber', track);
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.setAttribute('aria-label', 'Time');
    this.slider.addEventListener('input', () => {
      const time = Number(this.slider.value);
      this.pause();
      this.seek(time);
    });
    // Hand the keyboard back to the shortcuts (Space, arrows) once a drag or key press on the slider is done.
    this.slider.addEventListener('change', () => this.slider.blur());

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
          const x = frames > 1 ? (f / (frames - 1)) * CURVE_WIDTH : 0;
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

  /** Shows a new pose sequence from time 0, playing if `autoplay` and it has something to play. */
  setSequence(kind: PoseKind, duration: number, autoplay: boolean): void {
    this.kind = kind;
    this.duration = duration;
    this.time = 0;
    this.playing = autoplay && duration > 0;
    this.slider.max = String(duration);
    this.slider.step = kind === 'matrices' ? '1' : '0.001';
    this.slider.disabled = duration === 0;
    this.shownKey = Number.NaN;
    this.refreshControls();
  }

  /**
   * Moves time forward while playing.
   * @param seconds  wall-clock time since the last frame
   * @returns whether the time changed
   */
  advance(seconds: number): boolean {
    if (!this.playing || this.duration === 0) return false;
    const rate = this.kind === 'matrices' ? FRAMES_PER_SECOND : 1 / QUATERNION_SECONDS;
    let next = this.time + seconds * rate * this.speed;
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
    const key = this.kind === 'matrices' ? Math.floor(this.time) : Math.round(this.time * 1000);
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.slider.value = String(this.kind === 'matrices' ? key : this.time);
    if (this.kind === 'matrices') this.readout.textContent = `frame ${key} / ${this.duration}`;
    else if (this.kind === 'quaternions') this.readout.textContent = `t ${this.time.toFixed(3)}`;
    else this.readout.textContent = 'rest pose';
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
