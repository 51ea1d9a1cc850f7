/**
 * `window.__rigwright`: a small, stable window into the running app for end-to-end tests (test/e2e) and for
 * poking at the app from the devtools console. Always installed, in the desktop app and on the web page alike;
 * it only reads state and drives what the UI can also do (play, pause, scrub, choose the influence count), plus
 * the GPU readback of skinned positions and the CPU reference at the same pose for comparison.
 */
import type { PoseKind } from './pose-evaluator.ts';

export interface RigwrightTestState {
  sceneName: string;
  meshFiles: string[];
  vertexCount: number;
  triangleCount: number;
  boneCount: number;
  jointCount: number;
  /** frame (matrices), t (quaternions) or 0 (rest) */
  time: number;
  duration: number;
  poseKind: PoseKind;
  playing: boolean;
  /** influences kept per vertex; 0 = all */
  influences: number;
  weightsSource: string;
  /** -1 when none */
  selectedBone: number;
  /** the message in the error banner, or null */
  error: string | null;
  framesRendered: number;
}

export interface RigwrightTestHook {
  /** resolves once the first frame has rendered */
  ready(): Promise<void>;
  state(): RigwrightTestState;
  pause(): void;
  play(): void;
  /** frame (matrices) or t (quaternions); renders synchronously after */
  setTime(time: number): void;
  /** 0 = all */
  setInfluences(k: number): void;
  /** #V × 3 from the GPU readback of the CURRENT pose */
  gpuPositions(): Promise<number[]>;
  /** #V × 3 from linearBlendSkinning at the CURRENT pose, same influences */
  cpuPositions(): number[];
  /** CSS pixels in the page, for click tests */
  jointScreenPosition(joint: number): { x: number; y: number };
  /** of the rest mesh */
  boundingDiagonal(): number;
  /**
   * Pauses, then poses and draws `frames` frames across the sequence, each waited for with a one-pixel
   * readback so the GPU's work is inside the measurement; returns the median milliseconds per frame
   * (pose evaluation + joint texture upload + draw). For `npm run bench`.
   */
  measureFrameTime(frames: number): number;
}

declare global {
  interface Window {
    __rigwright?: RigwrightTestHook;
  }
}

export function installTestHook(hook: RigwrightTestHook): void {
  window.__rigwright = hook;
}
