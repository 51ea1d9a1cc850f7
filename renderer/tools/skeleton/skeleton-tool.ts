/**
 * The skeleton tool (J): builds and edits the skeleton on the mesh with the mouse. A click on the mesh places a joint
 * inside the volume (the middle of where the view ray enters and leaves it, so joints land on a limb's axis, not its
 * skin); the first click starts a chain at a pending joint, each further click adds a bone from the chain's last
 * joint (`bone.insert`, one undo step each); a click on a joint makes it the chain's last joint (a branch); Escape
 * ends the chain. A drag on a joint moves it in the view plane (`bone.moveJoint` at release, one undo step; Escape
 * restores), with Shift to the volume's middle along the view ray; Alt-drag from a joint onto another re-parents the
 * first joint's bone under the bone ending at the second (`bone.reparent`). The tool edits the rest skeleton, so
 * it shows the rest pose while it is active (the pose view's rest toggle, put back as it was when the tool is left).
 *
 * States, one file each: idle (no chain) and chaining (a chain is open) wait for a press; pointing (a press off the
 * joints: a click places a joint, a drag is the camera's), pressing (a press on a joint: a click branches from it, a
 * drag moves it), dragging (a joint follows the pointer) and reparenting (an Alt-drag looks for the new parent).
 * Only a press in progress makes the tool busy: an open chain lets undo, the bone list and the other commands run;
 * the chain ends when the skeleton is no longer the one the tool's own last edit left (an undo, a split, a delete or
 * re-order from the bone list, a fitted template, another skeleton or scene opened).
 */
import { errorMessage, type SceneDocument } from '../../../workers/scene/scene-document.ts';
import type { TriangleMesh } from '../../../workers/formats/types.ts';
import type { Skeleton } from '../../../workers/rig/skeleton.ts';
import { volumeMidpoint } from '../../../workers/rig/volume-ray.ts';
import { boneForJoint } from '../../view/skeleton-overlay.ts';
import { Tool, type ToolPointer } from '../tool.ts';
import {
  jointPosition,
  onViewPlane,
  type ChainEnd,
  type SkeletonGesture,
  type SkeletonGuides,
  type SkeletonStateName,
  type SkeletonToolHost,
  type Vec3,
  type ViewRay,
} from './skeleton-gesture.ts';
import { SkeletonIdle } from './skeleton-idle.ts';
import { SkeletonChaining } from './skeleton-chaining.ts';
import { SkeletonPointing } from './skeleton-pointing.ts';
import { SkeletonPressing } from './skeleton-pressing.ts';
import { SkeletonDragging } from './skeleton-dragging.ts';
import { SkeletonReparenting } from './skeleton-reparenting.ts';

export class SkeletonTool extends Tool<SkeletonStateName> implements SkeletonGesture {
  private chainEnd: ChainEnd | null = null;
  /**
   * the skeleton and mesh the chain's bone numbers and points belong to (what the tool's own last edit left): any
   * other skeleton (an undo, a split, a delete or re-order, a template, a file opened) or mesh ends the chain
   */
  private chainSkeleton: Skeleton | null = null;
  private chainMesh: TriangleMesh | null = null;
  /** whether the rest pose was shown before the tool became active (put back when it is left) */
  private restBefore = false;
  /** the press: canvas px, modifiers, and the joint pressed on (-1: none) */
  readonly press = { x: 0, y: 0, joint: -1, alt: false };
  /** the joint being dragged: its rest position before the drag and where it is shown now */
  drag: { joint: number; from: Vec3; to: Vec3 } | null = null;
  /** the pointer's last canvas position over the canvas, for the rubber band (a chain's, or an Alt-drag's) */
  hover: { x: number; y: number } | null = null;

  constructor(readonly host: SkeletonToolHost) {
    super('skeleton', {
      idle: new SkeletonIdle(() => this),
      chaining: new SkeletonChaining(() => this),
      pointing: new SkeletonPointing(() => this),
      pressing: new SkeletonPressing(() => this),
      dragging: new SkeletonDragging(() => this),
      reparenting: new SkeletonReparenting(() => this),
    });
  }

  /** the open chain's last joint, or null (no chain, or the skeleton or the scene changed since the tool set it) */
  get chain(): ChainEnd | null {
    const doc = this.host.doc();
    return this.chainEnd && doc.skeleton === this.chainSkeleton && doc.mesh === this.chainMesh ? this.chainEnd : null;
  }

  /** Sets the chain's last joint, on the skeleton and mesh the scene has now. */
  set chain(end: ChainEnd | null) {
    const doc = this.host.doc();
    this.chainEnd = end;
    this.chainSkeleton = end ? doc.skeleton : null;
    this.chainMesh = end ? doc.mesh : null;
  }

  /** A press in progress; an open chain is not a gesture (undo and the other commands run meanwhile). */
  override get busy(): boolean {
    return this.state !== 'idle' && this.state !== 'chaining';
  }

  /** The tool edits rest joints: it shows the rest pose while active. */
  override activate(): void {
    this.restBefore = this.host.showRest(true);
  }

  /** Leaving the tool ends the chain and puts the rest toggle back as it was. */
  override deactivate(): void {
    this.endChain();
    this.host.showRest(this.restBefore);
  }

  /** What a click does now, for the status line. */
  override hint(): string {
    switch (this.state) {
      case 'idle':
        return boneCount(this.host.doc()) === 0
          ? 'Skeleton: click on the mesh to place the first joint inside it'
          : 'Skeleton (rest pose shown): click on the mesh to start a chain, on a joint to branch from it; drag a joint to move it (Shift: to the middle), Alt-drag onto another to re-parent';
      case 'chaining':
        return 'Skeleton: click on the mesh to add a bone, on a joint to branch from it; Esc ends the chain';
      case 'pointing':
        return 'Skeleton: release here to place a joint; a drag turns the view';
      case 'pressing':
        return this.press.alt
          ? 'Skeleton: drag onto the joint the bone should hang from'
          : 'Skeleton: release to branch from this joint, drag to move it';
      case 'dragging':
        return 'Skeleton: moving the joint in the view plane; hold Shift to put it in the middle of the volume under the pointer; Esc puts it back';
      case 'reparenting':
        return 'Skeleton: release on the joint the bone should hang from; Esc cancels';
    }
  }

  /** Ends the open chain, if any (Escape, a tool switch). */
  endChain(): void {
    this.chain = null;
    this.hover = null;
    this.showGuides();
    if (this.state === 'chaining') this.transition('idle');
  }

  /** Where the open chain's last joint is (rest position), or null when no chain is open or its bone is gone. */
  chainPoint(): Vec3 | null {
    const chain = this.chain;
    if (!chain) return null;
    const { skeleton } = this.host.doc();
    if ('point' in chain) return chain.point;
    const joint = 'joint' in chain ? chain.joint : chain.bone < skeleton.bones.length / 2 ? skeleton.bones[2 * chain.bone + 1] : -1;
    return joint >= 0 && joint < skeleton.joints.length / 3 ? jointPosition(skeleton.joints, joint) : null;
  }

  /** Where joint `joint` is (rest position), or null when the skeleton has no such joint. */
  private jointPoint(joint: number): Vec3 | null {
    const { joints } = this.host.doc().skeleton;
    return joint >= 0 && joint < joints.length / 3 ? jointPosition(joints, joint) : null;
  }

  /** Starts a press on a joint (taken: the camera does not orbit) or elsewhere (left to the camera until released). */
  pressAt(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const joint = this.host.jointAt(pointer.x, pointer.y);
    Object.assign(this.press, { x: pointer.x, y: pointer.y, joint, alt: pointer.altKey });
    this.transition(joint >= 0 ? 'pressing' : 'pointing');
    return joint >= 0;
  }

  /**
   * A click on the mesh (no joint under it): the first click of a chain places its pending joint, a later one adds
   * a bone from the chain's last joint to the middle of the volume under the click. A click that misses the mesh
   * uses the depth of the chain's last joint; without a chain it says why it did nothing.
   */
  clickAt(x: number, y: number): void {
    // Not busy any more before the edit: the bone commands wait for no gesture.
    this.transition(this.chain ? 'chaining' : 'idle');
    const ray = this.host.rayThrough(x, y);
    const from = this.chainPoint();
    if (this.chain && !from) this.chain = null;
    const hit = volumeMidpoint(this.host.doc().mesh, ray.origin, ray.direction);
    const point = hit ? hit.point : from ? onViewPlane(ray, from, this.host.viewDirection()) : null;
    if (!point) {
      this.host.tell('Skeleton: the click missed the mesh; click on the mesh to place a joint inside it');
      this.afterClick();
      return;
    }
    const chain = this.chain;
    if (!chain) this.chain = { point };
    else {
      this.tryEdit(() => {
        const bone =
          'bone' in chain
            ? this.host.insertBone({ parent: chain.bone, tip: point })
            : this.host.insertBone({ parent: null, head: 'point' in chain ? chain.point : from!, tip: point });
        this.chain = { bone };
        this.host.selectBone(bone);
      });
    }
    this.afterClick();
  }

  /**
   * A click on a joint: it becomes the chain's last joint (new bones branch from it), and the bone ending there (or
   * the first starting there) is selected.
   */
  branchFrom(joint: number): void {
    this.transition(this.chain ? 'chaining' : 'idle');
    const { bones } = this.host.doc().skeleton;
    const bone = boneForJoint(bones, joint);
    this.chain = bone >= 0 && bones[2 * bone + 1] === joint ? { bone } : { joint };
    this.host.selectBone(bone);
    this.afterClick();
  }

  /** After a click: chaining while a chain is open, idle otherwise; the guides follow. */
  afterClick(): void {
    this.transition(this.chain ? 'chaining' : 'idle');
    this.showGuides();
  }

  tryEdit(edit: () => void): void {
    try {
      edit();
    } catch (error) {
      this.host.tell(errorMessage(error));
    }
  }

  /** Where the dragged joint goes for a pointer: the view plane through its start, or with Shift the volume's middle. */
  dragTarget(pointer: ToolPointer): Vec3 {
    const drag = this.drag!;
    const ray = this.host.rayThrough(pointer.x, pointer.y);
    if (pointer.shiftKey) {
      const hit = volumeMidpoint(this.host.doc().mesh, ray.origin, ray.direction);
      if (hit) return hit.point;
    }
    return onViewPlane(ray, drag.from, this.host.viewDirection()) ?? drag.from;
  }

  /**
   * Draws the pending joint, the rubber band and the dragged joint as the tool has them now. The band runs from the
   * chain's last joint to the pointer while a chain is open, and from the Alt-dragged joint to the joint under the
   * pointer (or the pointer) while re-parenting.
   */
  showGuides(): void {
    const pending = this.chain && 'point' in this.chain ? this.chain.point : null;
    let band: SkeletonGuides['band'] = null;
    const from = this.state === 'chaining' ? this.chainPoint() : this.state === 'reparenting' ? this.jointPoint(this.press.joint) : null;
    if (from && this.hover) {
      const { x, y } = this.hover;
      const over = this.state === 'reparenting' ? this.host.jointAt(x, y) : -1;
      const to = over >= 0 ? this.jointPoint(over) : onViewPlane(this.host.rayThrough(x, y), from, this.host.viewDirection());
      if (to) band = { from, to };
    }
    const moved = this.drag ? { joint: this.drag.joint, position: this.drag.to } : null;
    this.host.showGuides({ pending, band, moved });
  }
}

const boneCount = (doc: SceneDocument): number => doc.skeleton.bones.length / 2;

export type { ChainEnd, SkeletonGuides, SkeletonToolHost, Vec3, ViewRay };
