/**
 * What the brush draws in the scene: the ring under the cursor (lying on the surface, its fill showing the
 * falloff) and, with symmetry on, the vertices that found no mirror match, as magenta points on the posed surface.
 */
import * as THREE from 'three';
import type { BrushFalloff } from '../../workers/paint/brush-falloff.ts';

const RING_VERTEX = `varying vec2 vUv; void main() { vUv = uv * 2.0 - 1.0; gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0); }`;
const RING_FRAGMENT = `uniform int falloff; varying vec2 vUv;
void main() {
  float t = length(vUv);
  if (t > 1.0) discard;
  float f = falloff == 0 ? 1.0 - t * t * (3.0 - 2.0 * t) : falloff == 1 ? 1.0 - t : 1.0;
  float rim = smoothstep(0.93, 0.97, t);
  gl_FragColor = vec4(mix(vec3(1.0, 0.62, 0.2), vec3(1.0), rim), 0.28 * f + 0.9 * rim);
}`;
const FALLOFFS: BrushFalloff[] = ['smooth', 'linear', 'constant'];
const zAxis = new THREE.Vector3(0, 0, 1);

export class BrushRing {
  private readonly ring: THREE.Mesh<THREE.CircleGeometry, THREE.ShaderMaterial>;
  private readonly unmatched: THREE.Points<THREE.BufferGeometry, THREE.PointsMaterial>;

  constructor(scene: THREE.Scene) {
    this.ring = new THREE.Mesh(
      new THREE.CircleGeometry(1, 64),
      new THREE.ShaderMaterial({
        uniforms: { falloff: { value: 0 } },
        vertexShader: RING_VERTEX,
        fragmentShader: RING_FRAGMENT,
        transparent: true,
        depthTest: false,
        depthWrite: false,
        side: THREE.DoubleSide,
      }),
    );
    this.ring.renderOrder = 10;
    this.ring.visible = false;
    this.ring.frustumCulled = false;
    this.unmatched = new THREE.Points(
      new THREE.BufferGeometry(),
      new THREE.PointsMaterial({ color: 0xff2bd6, size: 5, sizeAttenuation: false, depthTest: false, transparent: true, opacity: 0.9 }),
    );
    this.unmatched.renderOrder = 9;
    this.unmatched.frustumCulled = false;
    this.unmatched.visible = false;
    scene.add(this.ring, this.unmatched);
  }

  /**
   * Lays the ring on the surface at `point`, facing the viewer.
   * @param normal  the surface normal there (flipped towards the viewer here; modified)
   * @param lift    distance off the surface, so the ring does not fight it for depth
   */
  place(
    point: THREE.Vector3,
    normal: THREE.Vector3,
    viewDirection: THREE.Vector3,
    radius: number,
    falloff: BrushFalloff,
    lift: number,
  ): void {
    if (normal.dot(viewDirection) > 0) normal.negate();
    this.ring.position.copy(point).addScaledVector(normal, lift);
    this.ring.quaternion.setFromUnitVectors(zAxis, normal);
    this.ring.scale.setScalar(radius);
    this.ring.material.uniforms.falloff.value = FALLOFFS.indexOf(falloff);
    this.ring.visible = true;
  }

  hide(): void {
    this.ring.visible = false;
  }

  /** Shows `vertices` at their posed positions (#V × 3), or nothing when the list is empty or null. */
  showUnmatched(vertices: ArrayLike<number> | null, posed: () => Float64Array): void {
    this.unmatched.visible = !!vertices && vertices.length > 0;
    if (!vertices || vertices.length === 0) return;
    const positions = posed();
    const geometry = this.unmatched.geometry;
    let attribute = geometry.getAttribute('position') as THREE.BufferAttribute | undefined;
    if (attribute?.count !== vertices.length) {
      attribute = new THREE.BufferAttribute(new Float32Array(3 * vertices.length), 3);
      geometry.setAttribute('position', attribute);
    }
    const out = attribute.array as Float32Array;
    for (let i = 0; i < vertices.length; i++) {
      const v = vertices[i];
      out[3 * i] = positions[3 * v];
      out[3 * i + 1] = positions[3 * v + 1];
      out[3 * i + 2] = positions[3 * v + 2];
    }
    attribute.needsUpdate = true;
  }

  get showingUnmatched(): boolean {
    return this.unmatched.visible;
  }
}
