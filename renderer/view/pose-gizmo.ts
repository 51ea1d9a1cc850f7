/**
 * The rotation gizmo of the pose tool: three.js's TransformControls in rotate mode, on a pivot placed at the selected
 * bone's posed start joint and turned to the bone's posed axes. It listens to nothing itself: the pose tool hands it
 * the pointer (the tool manager routes every press), so the gizmo takes a press before the camera controls do.
 * Pointers are in normalized device coordinates of the canvas (x, y ∈ [−1, 1], y up).
 */
import * as THREE from 'three';
import { TransformControls } from 'three/addons/controls/TransformControls.js';
import type { PoseSpace } from '../../workers/rig/bone-rotations.ts';

const scratchMatrix = new THREE.Matrix4();
const scratchVector = new THREE.Vector3();
const pointer = { x: 0, y: 0, button: 0 };

export class PoseGizmo {
  private readonly controls: TransformControls;
  private readonly pivot = new THREE.Object3D();
  private readonly helper: THREE.Object3D;
  /** the pivot's orientation when the drag began, for a cancel */
  private readonly startQuaternion = new THREE.Quaternion();

  constructor(
    private readonly scene: THREE.Scene,
    private readonly camera: THREE.Camera,
  ) {
    this.controls = new TransformControls(camera);
    this.controls.setMode('rotate');
    this.controls.setSpace('local');
    scene.add(this.pivot);
    this.controls.attach(this.pivot);
    this.helper = this.controls.getHelper();
    this.helper.visible = false;
    this.controls.enabled = false;
    scene.add(this.helper);
  }

  get visible(): boolean {
    return this.helper.visible;
  }

  get space(): PoseSpace {
    return this.controls.space === 'world' ? 'global' : 'local';
  }

  /** the axis handle under the pointer ('X', 'Y', 'Z', 'E' the view ring, 'XYZE' the trackball), or null */
  get axis(): string | null {
    return this.controls.axis;
  }

  get dragging(): boolean {
    return this.controls.dragging;
  }

  setSpace(space: PoseSpace): void {
    this.controls.setSpace(space === 'global' ? 'world' : 'local');
  }

  /**
   * Shows the gizmo at a joint, turned to a frame.
   * @param points    world points, x y z each (the posed joints)
   * @param at        the pivot's point (the bone's posed start joint): its x at 3·at
   * @param frame     3×3 row-major rotation whose columns are the bone's posed axes
   */
  show(points: ArrayLike<number>, at: number, frame: ArrayLike<number>): void {
    this.pivot.position.set(points[3 * at], points[3 * at + 1], points[3 * at + 2]);
    if (!this.controls.dragging) this.pivot.quaternion.setFromRotationMatrix(matrixOf(frame));
    this.pivot.updateMatrixWorld();
    this.helper.visible = true;
    this.controls.enabled = true;
  }

  hide(): void {
    this.helper.visible = false;
    this.controls.enabled = false;
  }

  /** Highlights the handle under the pointer. @returns whether a handle is under it */
  hover(x: number, y: number): boolean {
    if (!this.visible) return false;
    this.helper.updateMatrixWorld(true);
    this.controls.pointerHover(ndc(x, y));
    return this.controls.axis !== null;
  }

  /** Starts a drag on the handle under the pointer. @returns whether one was under it */
  press(x: number, y: number): boolean {
    if (!this.hover(x, y)) return false;
    this.startQuaternion.copy(this.pivot.quaternion);
    this.controls.pointerDown(ndc(x, y));
    return this.controls.dragging;
  }

  /**
   * Turns the pivot as the drag says.
   * @param out  3×3 row-major: the pivot's new frame (columns: its axes)
   */
  drag(x: number, y: number, out: Float64Array): void {
    this.helper.updateMatrixWorld(true);
    this.controls.pointerMove(ndc(x, y, -1));
    frameOf(this.pivot.quaternion, out);
  }

  /** Ends the drag where it is. */
  release(x: number, y: number): void {
    this.controls.pointerUp(ndc(x, y));
  }

  /** Ends the drag and turns the pivot back to where it started. */
  cancel(): void {
    this.controls.pointerUp(null);
    this.pivot.quaternion.copy(this.startQuaternion);
    this.pivot.updateMatrixWorld();
  }

  /**
   * The world direction of an axis handle in the space shown (for a test that checks the drag turned about it).
   * @param axis  0, 1 or 2
   */
  axisDirection(axis: number): [number, number, number] {
    const v = new THREE.Vector3(axis === 0 ? 1 : 0, axis === 1 ? 1 : 0, axis === 2 ? 1 : 0);
    if (this.space === 'local') v.applyQuaternion(this.pivot.quaternion);
    return [v.x, v.y, v.z];
  }

  /**
   * A world point on the ring of an axis handle, as TransformControls draws and picks it: a circle about the pivot,
   * perpendicular to the axis, of radius 0.5 handle units, a handle unit being the camera's distance × 1.9·tan(fov/2)
   * / 4 (its size 1), so the gizmo keeps its size on screen. For a test that drags the ring with the mouse.
   * @param axis   0, 1 or 2
   * @param angle  radians around the ring, from the next axis (y for x, z for y, x for z)
   */
  ringPoint(axis: number, angle: number): [number, number, number] {
    const camera = this.camera as THREE.PerspectiveCamera;
    camera.updateMatrixWorld();
    const center = this.pivot.position;
    const distance = center.distanceTo(scratchVector.setFromMatrixPosition(camera.matrixWorld));
    const unit = (distance * Math.min((1.9 * Math.tan((Math.PI * camera.fov) / 360)) / camera.zoom, 7) * this.controls.size) / 4;
    const u = this.axisDirection((axis + 1) % 3);
    const v = this.axisDirection((axis + 2) % 3);
    const r = 0.5 * unit;
    const c = Math.cos(angle),
      s = Math.sin(angle);
    return [center.x + r * (c * u[0] + s * v[0]), center.y + r * (c * u[1] + s * v[1]), center.z + r * (c * u[2] + s * v[2])];
  }

  dispose(): void {
    this.controls.detach();
    this.scene.remove(this.helper, this.pivot);
    this.controls.dispose();
  }
}

/**
 * A pointer in normalized device coordinates, as TransformControls' pointer methods read it (x, y, button; its typings
 * say PointerEvent, its code reads those three fields). A move during a drag has no button pressed anew: −1, as a
 * pointermove event says.
 */
function ndc(x: number, y: number, button = 0): PointerEvent {
  pointer.x = x;
  pointer.y = y;
  pointer.button = button;
  return pointer as unknown as PointerEvent;
}

function matrixOf(m: ArrayLike<number>): THREE.Matrix4 {
  return scratchMatrix.set(m[0], m[1], m[2], 0, m[3], m[4], m[5], 0, m[6], m[7], m[8], 0, 0, 0, 0, 1);
}

function frameOf(q: THREE.Quaternion, out: Float64Array): void {
  const e = scratchMatrix.makeRotationFromQuaternion(q).elements;
  // Matrix4 elements are column-major.
  out[0] = e[0];
  out[1] = e[4];
  out[2] = e[8];
  out[3] = e[1];
  out[4] = e[5];
  out[5] = e[9];
  out[6] = e[2];
  out[7] = e[6];
  out[8] = e[10];
}
