/**
 * What the skeleton tool's states see of it (skeleton-tool.ts implements it), the host it works through, and the
 * view-plane geometry they share: the states depend on this, not on the tool's module, so there is no import cycle.
 */
import type { SceneDocument } from '../../../workers/scene/scene-document.ts';
import type { Vec3 } from '../../../workers/rig/bone-edits.ts';
import type { ToolPointer, ToolState } from '../tool.ts';

export type { Vec3 };

/** A view ray in world units: from the eye (`origin`) along `direction`. */
export interface ViewRay {
  origin: Vec3;
  direction: Vec3;
}

/** What the skeleton tool uses of the app. Points are canvas CSS px; positions are world (rest mesh) units. */
export interface SkeletonToolHost {
  /** the scene now: its rest mesh takes the joints, its rest skeleton is edited */
  doc(): SceneDocument;
  /** the view ray through a canvas point (CSS px): from the eye through the point, its direction of unit length */
  rayThrough(x: number, y: number): ViewRay;
  /** the camera's viewing direction, a unit vector: the normal of the view plane a joint is dragged in */
  viewDirection(): Vec3;
  /**
   * shows the rest pose (true) or puts back the rest toggle as it was (the value `showRest(true)` returned): the
   * tool edits rest joints, so it shows them while it is active
   * @returns whether the rest pose was shown before
   */
  showRest(on: boolean): boolean;
  /** the joint drawn under a canvas point, or -1 */
  jointAt(x: number, y: number): number;
  /** runs a bone command as a key or button would, and gives back its result; throws saying why it was refused */
  insertBone(argument: { parent: number | null; tip: Vec3; head?: Vec3 }): number;
  moveJoint(joint: number, position: Vec3): void;
  reparentBone(bone: number, parent: number | null): void;
  selectBone(bone: number): void;
  /**
   * draws the tool's guides: the pending joint (a chain's first joint, not yet a bone's), the rubber-band bone from
   * the chain's last joint to the pointer, and a joint shown moved while it is dragged (null: none of each)
   */
  showGuides(guides: SkeletonGuides): void;
  /** says why a click did nothing (a miss with no depth to use, a refused edit) */
  tell(message: string): void;
}

export interface SkeletonGuides {
  pending: Vec3 | null;
  band: { from: Vec3; to: Vec3 } | null;
  moved: { joint: number; position: Vec3 } | null;
}

/** Where the next bone of an open chain starts: the end of a bone, or a pending joint no bone has yet. */
export type ChainEnd = { bone: number } | { joint: number } | { point: Vec3 };

export type SkeletonStateName = 'chaining' | 'pointing' | 'pressing' | 'dragging' | 'reparenting';

/** The tool as its states use it: its gesture data and the steps they share. */
export interface SkeletonGesture {
  readonly host: SkeletonToolHost;
  readonly state: SkeletonStateName | 'idle';
  readonly current: ToolState;
  transition(to: SkeletonStateName | 'idle'): void;
  /** the open chain's last joint, or null (no chain) */
  chain: ChainEnd | null;
  /** the press: canvas px, modifiers, and the joint pressed on (-1: none) */
  readonly press: { x: number; y: number; joint: number; alt: boolean };
  /** the joint being dragged: its rest position before the drag and where it is shown now */
  drag: { joint: number; from: Vec3; to: Vec3 } | null;
  /** the pointer's last canvas position over the canvas, for the rubber band (a chain's, or an Alt-drag's) */
  hover: { x: number; y: number } | null;
  pressAt(pointer: ToolPointer): boolean;
  clickAt(x: number, y: number): void;
  branchFrom(joint: number): void;
  afterClick(): void;
  /** runs a bone command through the host; a refusal is told (host.tell, its message) instead of thrown */
  tryEdit(edit: () => void): void;
  endChain(): void;
  dragTarget(pointer: ToolPointer): Vec3;
  showGuides(): void;
}

/** Joint j of a #J × 3 array. */
export function jointPosition(joints: Float64Array, joint: number): Vec3 {
  return [joints[3 * joint], joints[3 * joint + 1], joints[3 * joint + 2]];
}

/**
 * Where a view ray meets the plane through `point` facing the camera (normal `view`), or null when the ray runs
 * parallel to it or meets it behind the eye.
 */
export function onViewPlane(ray: ViewRay, point: Vec3, view: Vec3): Vec3 | null {
  const { origin: o, direction: d } = ray;
  const denominator = d[0] * view[0] + d[1] * view[1] + d[2] * view[2];
  if (Math.abs(denominator) < 1e-12) return null;
  const t = ((point[0] - o[0]) * view[0] + (point[1] - o[1]) * view[1] + (point[2] - o[2]) * view[2]) / denominator;
  if (!(t > 0)) return null;
  return [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];
}
