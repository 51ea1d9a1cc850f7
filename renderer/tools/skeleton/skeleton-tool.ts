/**
 * The skeleton tool (J): builds and edits the skeleton on the mesh with the mouse. A click on the mesh places a joint
 * inside the volume (the middle of where the view ray enters and leaves it, so joints land on a limb's axis, not its
 * skin); the first click starts a chain at a pending joint, each further click adds a bone from the chain's last
 * joint (`bone.insert`, one undo step each); a click on a joint makes it the chain's last joint (a branch); Escape
 * ends the chain. A drag on a joint moves it in the view plane (`bone.moveJoint` at release, one undo step; Escape
 * restores), with Shift to the volume's middle along the view ray; Alt-drag from a joint onto another re-parents the
 * first joint's bone under the bone ending at the second (`bone.reparent`).
 *
 * States, one file each: idle (no chain) and chaining (a chain is open) wait for a press; pointing (a press off the
 * joints: a click places a joint, a drag is the camera's), pressing (a press on a joint: a click branches from it, a
 * drag moves it), dragging (a joint follows the pointer) and reparenting (an Alt-drag looks for the new parent).
 * Only a press in progress makes the tool busy: an open chain lets undo, the bone list and the other commands run.
 */
import * as THREE from 'three';
import type { SceneDocument } from '../../../workers/scene/scene-document.ts';
import type { TriangleMesh } from '../../../workers/formats/types.ts';
import { volumeMidpoint } from '../../../workers/rig/volume-ray.ts';
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
  /** the mesh the chain was built on: another scene ends it */
  private chainMesh: TriangleMesh | null = null;
  /** the press: canvas px, modifiers, and the joint pressed on (-1: none) */
  readonly press = { x: 0, y: 0, joint: -1, alt: false };
  /** the joint being dragged: its rest position before the drag and where it is shown now */
  drag: { joint: number; from: Vec3; to: Vec3 } | null = null;
  /** the pointer's last canvas position over the canvas, for the rubber band */
  hover: { x: number; y: number } | null = null;
  /** the canvas size at the latest pointer event, CSS px */
  private readonly canvasSize = { width: 1, height: 1 };

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

  /** the open chain's last joint, or null (no chain, or another scene opened since) */
  get chain(): ChainEnd | null {
    return this.chainEnd && this.host.doc().mesh === this.chainMesh ? this.chainEnd : null;
  }

  set chain(end: ChainEnd | null) {
    this.chainEnd = end;
    this.chainMesh = end ? this.host.doc().mesh : null;
  }

  /** A press in progress; an open chain is not a gesture (undo and the other commands run meanwhile). */
  override get busy(): boolean {
    return this.state !== 'idle' && this.state !== 'chaining';
  }

  /** Leaving the tool ends the chain. */
  override deactivate(): void {
    this.endChain();
  }

  /** What a click does now, for the status line. */
  override hint(): string {
    switch (this.state) {
      case 'idle':
        return boneCount(this.host.doc()) === 0
          ? 'Skeleton: click on the mesh to place the first joint inside it'
          : 'Skeleton: click on the mesh to start a chain, on a joint to branch from it; drag a joint to move it (Shift: to the middle), Alt-drag onto another to re-parent';
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

  /** Keeps the canvas size of a pointer event: view rays are made for it. */
  track(pointer: ToolPointer): void {
    this.canvasSize.width = pointer.width;
    this.canvasSize.height = pointer.height;
  }

  /** The view ray through a canvas point (CSS px), in world units. */
  rayAt(x: number, y: number): ViewRay {
    const { camera } = this.host;
    camera.updateMatrixWorld();
    ndc.set((x / this.canvasSize.width) * 2 - 1, 1 - (y / this.canvasSize.height) * 2);
    raycaster.setFromCamera(ndc, camera);
    return { origin: vec3(raycaster.ray.origin), direction: vec3(raycaster.ray.direction) };
  }

  /** The camera's viewing direction: the normal of the view plane a joint is dragged in. */
  viewDirection(): Vec3 {
    return vec3(this.host.camera.getWorldDirection(scratch));
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

  /** Starts a press on a joint (taken: the camera does not orbit) or elsewhere (left to the camera until released). */
  pressAt(pointer: ToolPointer): boolean {
    this.track(pointer);
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
    const ray = this.rayAt(x, y);
    const from = this.chainPoint();
    if (this.chain && !from) this.chain = null;
    const hit = volumeMidpoint(this.host.doc().mesh, ray.origin, ray.direction);
    const point = hit ? hit.point : from ? onViewPlane(ray, from, this.viewDirection()) : null;
    if (!point) {
      this.host.tell('Skeleton: the click missed the mesh; click on the mesh to place a joint inside it');
      this.afterClick();
      return;
    }
    const chain = this.chain;
    if (!chain) this.chain = { point };
    else {
      try {
        const bone =
          'bone' in chain
            ? this.host.insertBone({ parent: chain.bone, tip: point })
            : this.host.insertBone({ parent: null, head: 'point' in chain ? chain.point : from!, tip: point });
        this.chain = { bone };
        this.host.selectBone(bone);
      } catch (error) {
        this.host.tell(error instanceof Error ? error.message : String(error));
      }
    }
    this.afterClick();
  }

  /**
   * A click on a joint: it becomes the chain's last joint (new bones branch from it), and the bone ending there (or
   * the first starting there) is selected.
   */
  branchFrom(joint: number): void {
    this.transition(this.chain ? 'chaining' : 'idle');
    const { skeleton } = this.host.doc();
    const boneCount = skeleton.bones.length / 2;
    let ending = -1;
    let starting = -1;
    for (let b = boneCount - 1; b >= 0; b--) {
      if (skeleton.bones[2 * b + 1] === joint) ending = b;
      if (skeleton.bones[2 * b] === joint) starting = b;
    }
    this.chain = ending >= 0 ? { bone: ending } : { joint };
    this.host.selectBone(ending >= 0 ? ending : starting);
    this.afterClick();
  }

  /** After a click: chaining while a chain is open, idle otherwise; the guides follow. */
  afterClick(): void {
    this.transition(this.chain ? 'chaining' : 'idle');
    this.showGuides();
  }

  /** Where the dragged joint goes for a pointer: the view plane through its start, or with Shift the volume's middle. */
  dragTarget(pointer: ToolPointer): Vec3 {
    const drag = this.drag!;
    const ray = this.rayAt(pointer.x, pointer.y);
    if (pointer.shiftKey) {
      const hit = volumeMidpoint(this.host.doc().mesh, ray.origin, ray.direction);
      if (hit) return hit.point;
    }
    return onViewPlane(ray, drag.from, this.viewDirection()) ?? drag.from;
  }

  /** Draws the pending joint, the rubber band and the dragged joint as the tool has them now. */
  showGuides(): void {
    const from = this.chainPoint();
    const pending = this.chain && 'point' in this.chain ? this.chain.point : null;
    let band: SkeletonGuides['band'] = null;
    if (from && this.hover && this.state === 'chaining') {
      const to = onViewPlane(this.rayAt(this.hover.x, this.hover.y), from, this.viewDirection());
      if (to) band = { from, to };
    }
    const moved = this.drag ? { joint: this.drag.joint, position: this.drag.to } : null;
    this.host.showGuides({ pending, band, moved });
  }
}

const boneCount = (doc: SceneDocument): number => doc.skeleton.bones.length / 2;

const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();
const scratch = new THREE.Vector3();
const vec3 = (v: THREE.Vector3): Vec3 => [v.x, v.y, v.z];

export type { ChainEnd, SkeletonGuides, SkeletonToolHost, Vec3, ViewRay };
