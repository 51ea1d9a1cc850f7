/**
 * The skeleton drawn over the mesh and visible through it: bones as thin octahedra from start to end joint,
 * joints as spheres, both instanced, depth test off and drawn last. Follows the posed joints every frame
 * without allocating; the selected bone and its joints are highlighted. The skeleton tool's guides are drawn here
 * too: a pending joint (a chain's first, no bone's yet), a rubber-band bone to the pointer, a joint shown moved.
 */
import * as THREE from 'three';
import type { Skeleton } from '../../workers/rig/skeleton.ts';

const BONE_COLOR = new THREE.Color(0x7fa7e6);
const JOINT_COLOR = new THREE.Color(0xe2e8f2);
const SELECTED_COLOR = new THREE.Color(0xffa53d);
const GUIDE_COLOR = 0x6fe3a4;
/** Joint sphere radius and the largest bone half-width, as fractions of the scene's size. */
const JOINT_RADIUS = 0.011;
const BONE_WIDTH = 0.018;
/** Drawn after the mesh, joints after bones. */
const BONE_RENDER_ORDER = 10;
const JOINT_RENDER_ORDER = 11;

/** A unit octahedral bone along +y from (0, 0, 0) to (0, 1, 0), widest (radius 1) at 15 % of its length. */
function boneGeometry(): THREE.BufferGeometry {
  const waist = 0.15;
  const base = [0, 0, 0];
  const tip = [0, 1, 0];
  const ring = [
    [1, waist, 0],
    [0, waist, -1],
    [-1, waist, 0],
    [0, waist, 1],
  ];
  const positions: number[] = [];
  for (let i = 0; i < 4; i++) {
    const a = ring[i];
    const b = ring[(i + 1) % 4];
    positions.push(...base, ...b, ...a, ...a, ...b, ...tip);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  geometry.computeVertexNormals();
  return geometry;
}

function overlayMaterial(): THREE.MeshLambertMaterial {
  return new THREE.MeshLambertMaterial({
    color: 0xffffff,
    flatShading: true,
    depthTest: false,
    depthWrite: false,
    transparent: true,
    opacity: 0.92,
  });
}

const scratchMatrix = new THREE.Matrix4();
const scratchStart = new THREE.Vector3();
const scratchAxis = new THREE.Vector3();
const scratchSide = new THREE.Vector3();
const scratchUp = new THREE.Vector3();

export class SkeletonOverlay {
  readonly group = new THREE.Group();
  /** world-space sphere radius of a joint, for picking */
  readonly jointRadius: number;
  private readonly bones: THREE.InstancedMesh;
  private readonly joints: THREE.InstancedMesh;
  private readonly boneWidth: number;
  private selected = -1;
  private readonly pending: THREE.Mesh;
  private readonly band: THREE.Line;
  /** the posed joints last drawn (the evaluator's buffer), and a joint the skeleton tool shows moved */
  private lastJoints: Float64Array | null = null;
  private shownJoints = new Float64Array(0);
  private moved: { joint: number; position: readonly number[] } | null = null;

  /**
   * @param skeleton  rest skeleton (bone b runs from joint bones[2b] to joint bones[2b+1])
   * @param size      scene size (e.g. bounding diagonal) that sets the joint and bone thickness
   */
  constructor(
    private readonly skeleton: Skeleton,
    size: number,
  ) {
    const boneCount = skeleton.parents.length;
    const jointCount = skeleton.joints.length / 3;
    // Long chains of short bones would drown in spheres sized by the whole scene; a typical bone caps them.
    const typicalBone = medianBoneLength(skeleton);
    this.jointRadius = Math.min(JOINT_RADIUS * size, 0.25 * typicalBone || JOINT_RADIUS * size);
    this.boneWidth = Math.min(BONE_WIDTH * size, 0.4 * typicalBone || BONE_WIDTH * size);

    this.bones = new THREE.InstancedMesh(boneGeometry(), overlayMaterial(), boneCount);
    this.bones.renderOrder = BONE_RENDER_ORDER;
    this.joints = new THREE.InstancedMesh(new THREE.SphereGeometry(1, 14, 10), overlayMaterial(), jointCount);
    this.joints.renderOrder = JOINT_RENDER_ORDER;
    for (const mesh of [this.bones, this.joints]) {
      mesh.frustumCulled = false;
      mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      this.group.add(mesh);
    }
    const guideMaterial = overlayMaterial();
    guideMaterial.color.set(GUIDE_COLOR);
    this.pending = new THREE.Mesh(new THREE.SphereGeometry(1, 14, 10), guideMaterial);
    this.pending.scale.setScalar(1.3 * this.jointRadius);
    const bandGeometry = new THREE.BufferGeometry();
    bandGeometry.setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(6), 3));
    this.band = new THREE.Line(bandGeometry, new THREE.LineBasicMaterial({ color: GUIDE_COLOR, depthTest: false, transparent: true }));
    for (const guide of [this.pending, this.band]) {
      guide.visible = false;
      guide.frustumCulled = false;
      guide.renderOrder = JOINT_RENDER_ORDER;
      this.group.add(guide);
    }
    this.applyColors();
  }

  /**
   * The skeleton tool's guides (null: none of each): the pending joint, the rubber-band bone, and a joint drawn at
   * another position than its own while it is dragged (the scene is unchanged until the drag ends).
   */
  showGuides(guides: {
    pending: readonly number[] | null;
    band: { from: readonly number[]; to: readonly number[] } | null;
    moved: { joint: number; position: readonly number[] } | null;
  }): void {
    const { pending, band, moved } = guides;
    this.pending.visible = pending !== null;
    if (pending) this.pending.position.set(pending[0], pending[1], pending[2]);
    this.band.visible = band !== null;
    if (band) {
      const attribute = this.band.geometry.getAttribute('position') as THREE.BufferAttribute;
      attribute.setXYZ(0, band.from[0], band.from[1], band.from[2]);
      attribute.setXYZ(1, band.to[0], band.to[1], band.to[2]);
      attribute.needsUpdate = true;
    }
    this.moved = moved;
    if (this.lastJoints) this.update(this.lastJoints);
  }

  get visible(): boolean {
    return this.group.visible;
  }

  set visible(on: boolean) {
    this.group.visible = on;
  }

  /** @param posedJoints  #J × 3 posed joint positions */
  update(posedJoints: Float64Array): void {
    this.lastJoints = posedJoints;
    const moved = this.moved;
    if (moved && moved.joint < posedJoints.length / 3) {
      if (this.shownJoints.length !== posedJoints.length) this.shownJoints = new Float64Array(posedJoints.length);
      this.shownJoints.set(posedJoints);
      this.shownJoints.set(moved.position, 3 * moved.joint);
      posedJoints = this.shownJoints;
    }
    const { bones } = this.skeleton;
    const boneCount = bones.length / 2;
    for (let b = 0; b < boneCount; b++) {
      const s = 3 * bones[2 * b];
      const e = 3 * bones[2 * b + 1];
      scratchStart.set(posedJoints[s], posedJoints[s + 1], posedJoints[s + 2]);
      scratchAxis.set(posedJoints[e], posedJoints[e + 1], posedJoints[e + 2]).sub(scratchStart);
      const length = scratchAxis.length();
      const width = Math.min(0.12 * length, this.boneWidth);
      // Any frame with the bone along y: pick the world axis least aligned with the bone for the sides.
      if (Math.abs(scratchAxis.x) < Math.abs(scratchAxis.z)) scratchUp.set(1, 0, 0);
      else scratchUp.set(0, 0, 1);
      scratchSide.crossVectors(scratchAxis, scratchUp).normalize().multiplyScalar(width);
      scratchUp.crossVectors(scratchSide, scratchAxis).normalize().multiplyScalar(width);
      if (length === 0) scratchSide.set(0, 0, 0);
      scratchMatrix.makeBasis(scratchSide, scratchAxis, scratchUp).setPosition(scratchStart);
      this.bones.setMatrixAt(b, scratchMatrix);
    }
    const jointCount = posedJoints.length / 3;
    for (let j = 0; j < jointCount; j++) {
      scratchMatrix.makeScale(this.jointRadius, this.jointRadius, this.jointRadius);
      scratchMatrix.setPosition(posedJoints[3 * j], posedJoints[3 * j + 1], posedJoints[3 * j + 2]);
      this.joints.setMatrixAt(j, scratchMatrix);
    }
    this.bones.instanceMatrix.needsUpdate = true;
    this.joints.instanceMatrix.needsUpdate = true;
  }

  /** Highlights bone `bone` and its two joints (-1: none). */
  select(bone: number): void {
    this.selected = bone;
    this.applyColors();
  }

  private applyColors(): void {
    const { bones } = this.skeleton;
    const boneCount = bones.length / 2;
    for (let b = 0; b < boneCount; b++) this.bones.setColorAt(b, b === this.selected ? SELECTED_COLOR : BONE_COLOR);
    for (let j = 0; j < this.joints.count; j++) this.joints.setColorAt(j, JOINT_COLOR);
    if (this.selected >= 0) {
      this.joints.setColorAt(bones[2 * this.selected], SELECTED_COLOR);
      this.joints.setColorAt(bones[2 * this.selected + 1], SELECTED_COLOR);
    }
    if (this.bones.instanceColor) this.bones.instanceColor.needsUpdate = true;
    if (this.joints.instanceColor) this.joints.instanceColor.needsUpdate = true;
  }

  dispose(): void {
    for (const mesh of [this.bones, this.joints]) {
      mesh.geometry.dispose();
      (mesh.material as THREE.Material).dispose();
      mesh.dispose();
    }
    for (const guide of [this.pending, this.band]) {
      guide.geometry.dispose();
      (guide.material as THREE.Material).dispose();
    }
  }
}

function medianBoneLength(skeleton: Skeleton): number {
  const { joints, bones } = skeleton;
  const lengths = new Float64Array(bones.length / 2);
  for (let b = 0; b < lengths.length; b++) {
    const s = 3 * bones[2 * b];
    const e = 3 * bones[2 * b + 1];
    lengths[b] = Math.hypot(joints[e] - joints[s], joints[e + 1] - joints[s + 1], joints[e + 2] - joints[s + 2]);
  }
  lengths.sort();
  return lengths[lengths.length >> 1] ?? 0;
}

/**
 * The bone a click on joint `joint` selects: the bone ending at it, else the first bone starting at it, else -1.
 * @param bones  #B × 2 start, end joint
 */
export function boneForJoint(bones: Uint32Array, joint: number): number {
  const boneCount = bones.length / 2;
  for (let b = 0; b < boneCount; b++) if (bones[2 * b + 1] === joint) return b;
  for (let b = 0; b < boneCount; b++) if (bones[2 * b] === joint) return b;
  return -1;
}
