/**
 * The GPU benchmark's reference: three.js's built-in SkinnedMesh (bone matrices in a float texture, four
 * influences in skinIndex/skinWeight attributes, MeshStandardMaterial) drawing the same mesh and pose count in
 * the same browser. Bundled by gpu.bench.ts with esbuild and served into an empty page.
 */
import * as THREE from 'three';

interface ReferenceInput {
  positions: number[];
  triangles: number[];
  skinIndex: number[];
  skinWeight: number[];
  /** per frame, per bone: 3×4 row-major rest → posed transforms */
  frames: number[][];
  boneCount: number;
  width: number;
  height: number;
}

function measure(input: ReferenceInput, drawCount: number): number {
  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setSize(input.width, input.height);
  document.body.appendChild(renderer.domElement);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(input.positions, 3));
  geometry.setIndex(input.triangles);
  geometry.computeVertexNormals();
  geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(input.skinIndex, 4));
  geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(input.skinWeight, 4));
  const bones = Array.from({ length: input.boneCount }, () => new THREE.Bone());
  const skeleton = new THREE.Skeleton(
    bones,
    bones.map(() => new THREE.Matrix4()),
  );
  const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshStandardMaterial({ color: 0xb8c0cc }));
  mesh.frustumCulled = false;
  mesh.bind(skeleton, new THREE.Matrix4());
  const scene = new THREE.Scene();
  scene.add(mesh, new THREE.HemisphereLight(0xffffff, 0x404040, 1.5));
  for (const bone of bones) {
    bone.matrixAutoUpdate = false;
    bone.matrixWorldAutoUpdate = false;
    scene.add(bone);
  }
  const box = new THREE.Box3().setFromBufferAttribute(geometry.getAttribute('position') as THREE.BufferAttribute);
  const center = box.getCenter(new THREE.Vector3());
  const radius = box.getSize(new THREE.Vector3()).length() / 2;
  const camera = new THREE.PerspectiveCamera(45, input.width / input.height, radius / 100, radius * 10);
  camera.position.copy(center).add(new THREE.Vector3(radius, radius * 0.5, radius * 1.5));
  camera.lookAt(center);
  const gl = renderer.getContext();
  const pixel = new Uint8Array(4);
  const times: number[] = [];
  for (let i = 0; i < drawCount; i++) {
    const start = performance.now();
    const t = input.frames[i % input.frames.length];
    for (let b = 0; b < input.boneCount; b++) {
      const m = t.slice(12 * b, 12 * b + 12);
      bones[b].matrixWorld.set(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], 0, 0, 0, 1);
    }
    renderer.render(scene, camera);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

(window as unknown as { measureReference: typeof measure }).measureReference = measure;
