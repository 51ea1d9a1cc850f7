/**
 * The pose tool: click a joint to pick its bone; the selected bone carries a rotation gizmo at its posed start joint,
 * in the bone's own axes or the world's; dragging a ring turns the bone live and makes one undo step at release. In IK
 * mode, dragging the selected bone's end joint moves it in the view plane and turns the bone and its parent to reach
 * it (two-bone IK), again one undo step at release. Escape during a drag puts the pose back. While the rest pose is
 * shown (a view), neither the gizmo nor IK is offered: what they turned would not be on screen. A press off the gizmo and
 * the end joint goes to the camera controls (they orbit), and a click there picks a joint's bone, as the select tool
 * does.
 *
 * States: idle → pointing (a press the camera also gets) → idle; idle → rotating (a gizmo ring) → idle; idle →
 * reaching (the end joint, IK mode) → idle.
 */
import { Tool } from '../tool.ts';
import { boneRestFrame, multiply3, parentWorldRotation, type PoseSpace } from '../../../workers/rig/bone-rotations.ts';
import { PoseIdle } from './pose-idle.ts';
import { SelectPointing } from '../select/select-tool.ts';
import { PoseRotating } from './pose-rotating.ts';
import { PoseReaching } from './pose-reaching.ts';
import type { PoseGesture, PoseStateName, PoseToolHost } from './pose-gesture.ts';

const scratchParent = new Float64Array(9);
const scratchWorld = new Float64Array(9);
const scratchRest = new Float64Array(9);
const scratchFrame = new Float64Array(9);

export class PoseTool extends Tool<PoseStateName> implements PoseGesture {
  /** where the button went down, page px */
  readonly downAt = { x: 0, y: 0 };
  /** the axes the gizmo turns about */
  private spaceShown: PoseSpace = 'local';
  /** dragging the end joint solves two-bone IK instead of showing the gizmo */
  private ikMode = false;
  /** the pole point set, world; null: none (the skeleton changed since it was set) */
  private poleSet: number[] | null = null;

  constructor(readonly host: PoseToolHost) {
    super('pose', {
      idle: new PoseIdle(() => this),
      pointing: new SelectPointing(() => this),
      rotating: new PoseRotating(() => this),
      reaching: new PoseReaching(() => this),
    });
    // Let go at the change itself: an undo may later bring back the skeleton the pole was set for, not its pole.
    host.onSkeletonChange(() => (this.poleSet = null));
  }

  get space(): PoseSpace {
    return this.spaceShown;
  }

  setSpace(space: PoseSpace): void {
    if (space === this.spaceShown) return;
    this.spaceShown = space;
    this.host.gizmo.setSpace(space);
  }

  /**
   * A pole point the bend plane goes through (world), or null: the bend plane the limb has now. A pole belongs to the
   * skeleton it was set for: any change of the skeleton (another scene, a bone edit, its undo or redo) lets it go.
   */
  get pole(): number[] | null {
    return this.poleSet;
  }

  set pole(point: readonly number[] | null) {
    this.poleSet = point ? [point[0], point[1], point[2]] : null;
  }

  get ik(): boolean {
    return this.ikMode;
  }

  setIk(on: boolean): void {
    if (on === this.ikMode) return;
    this.cancel();
    this.ikMode = on;
    this.refresh();
  }

  /** What a click or a drag does now, for the status line. */
  override hint(): string {
    switch (this.state) {
      case 'pointing':
        return 'Pose: release here to pick the bone of the joint under the pointer; a drag turns the view';
      case 'rotating':
        return 'Pose: turning the bone about the ring’s axis; release to keep the turn (one undo step), Esc puts it back';
      case 'reaching':
        return 'Pose: the end joint follows the pointer in the view plane, the bone and its parent reach for it (IK); release to keep it, Esc puts it back';
      case 'idle': {
        const { host } = this;
        const bone = host.selectedBone();
        if (host.restShown()) return 'Pose: the rest pose is shown; turn Rest off to pose; click a joint to pick its bone';
        if (bone < 0) return 'Pose: click a joint to pick its bone; a drag turns the view';
        if (!this.ikMode)
          return `Pose: drag a ring of the gizmo to turn the bone in ${this.spaceShown === 'local' ? 'its own' : 'the world’s'} axes; click another joint to pick its bone; a drag elsewhere turns the view`;
        return host.skeleton().parents[bone] < 0
          ? 'Pose (IK): the bone has no parent, so IK cannot turn it; pick a bone that has one, or leave IK mode'
          : 'Pose (IK): drag the bone’s end joint to reach with it and its parent; click another joint to pick its bone; a drag elsewhere turns the view';
      }
    }
  }

  override activate(): void {
    this.host.gizmo.setSpace(this.spaceShown);
    this.refresh();
  }

  override deactivate(): void {
    this.host.gizmo.hide();
    this.host.redraw();
  }

  /**
   * Puts the gizmo on the selected bone as posed now (hidden without one, in IK mode, or when another tool is
   * active); during a drag the gizmo keeps the frame it turns.
   */
  refresh(active = true): void {
    const { host } = this;
    const bone = host.selectedBone();
    if (!active || bone < 0 || this.ikMode || host.restShown()) {
      if (host.gizmo.visible) {
        host.gizmo.hide();
        host.redraw();
      }
      return;
    }
    const { rotations, joints } = host.evaluated();
    const skeleton = host.skeleton();
    host.gizmo.show(joints, skeleton.bones[2 * bone], this.posedFrame(bone, rotations, scratchFrame));
    host.redraw();
  }

  /** The bone's posed axes, Q_b · F (world rotation times rest frame), as a 3×3 whose columns are the axes. */
  posedFrame(bone: number, rotations: Float64Array, out: Float64Array): Float64Array {
    const skeleton = this.host.skeleton();
    parentWorldRotation(skeleton, rotations, bone, scratchParent);
    multiply3(scratchParent, 0, rotations, 9 * bone, scratchWorld, 0);
    boneRestFrame(skeleton, bone, scratchRest);
    multiply3(scratchWorld, 0, scratchRest, 0, out, 0);
    return out;
  }
}
