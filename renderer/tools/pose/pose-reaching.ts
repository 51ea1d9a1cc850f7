/**
 * IK mode, the selected bone's end joint is being dragged: it follows the pointer in the view plane through where it
 * was, and the bone and its parent turn to reach it (two-bone IK, the bend plane kept or through the pole), live; the
 * release makes it one undo step (pose.ik); Escape puts the pose back.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import type { ShownPose } from '../../skeleton/pose-commands.ts';
import type { PoseGesture } from './pose-gesture.ts';
import { onViewPlane } from '../skeleton/skeleton-gesture.ts';

export class PoseReaching implements ToolState {
  readonly name = 'reaching';
  private bone = -1;
  /** the view plane: a point on it (the end joint when the drag began) and its unit normal (the view direction) */
  private readonly planePoint: [number, number, number] = [0, 0, 0];
  private readonly planeNormal: [number, number, number] = [0, 0, 1];
  /** where the end joint is asked to go, or null before the first move */
  private target: number[] | null = null;
  /** the pose when the drag began, which every move solves from */
  private from: ShownPose | null = null;

  constructor(private readonly tool: () => PoseGesture) {}

  onEnter(): void {
    const { host } = this.tool();
    this.bone = host.selectedBone();
    this.target = null;
    const end = 3 * host.skeleton().bones[2 * this.bone + 1];
    const shown = host.shown();
    const { joints } = shown;
    this.from = {
      rotations: Float64Array.from(shown.rotations),
      translations: Float64Array.from(shown.translations),
      boneScales: Float64Array.from(shown.boneScales),
    };
    for (let k = 0; k < 3; k++) this.planePoint[k] = joints[end + k];
    const view = host.viewDirection();
    for (let k = 0; k < 3; k++) this.planeNormal[k] = view[k];
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    // A ray along the plane, or meeting it behind the eye, leaves the target where it was.
    const target = onViewPlane(tool.host.rayThrough(pointer.clientX, pointer.clientY), this.planePoint, this.planeNormal);
    if (!target) return;
    this.target = [...target];
    const posed = tool.host.reached(this.bone, this.target, tool.pole, this.from!);
    if (posed) tool.host.live(posed);
  }

  onPointerUp(): void {
    const tool = this.tool();
    tool.host.live(null);
    const target = this.target;
    tool.transition('idle');
    if (target) tool.host.reach(this.bone, target, tool.pole);
  }

  onCancel(): void {
    const tool = this.tool();
    tool.host.live(null);
    tool.transition('idle');
  }
}
