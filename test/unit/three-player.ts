/**
 * three.js as a glTF player that knows nothing of our code: GLTFLoader reads the file, AnimationMixer plays a clip
 * (morph targets, then skinning), and the skinned mesh's vertices are read in world space.
 */
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';

/**
 * The file's skinned mesh, and its world vertex positions (#V × 3) at time `t` of clip `clip` as three.js plays it.
 */
export async function threePlayer(
  bytes: Uint8Array,
  clip: string,
): Promise<{ mesh: THREE.SkinnedMesh; posedAt: (t: number) => Float64Array }> {
  const gltf = await new Promise<GLTF>((resolve, reject) => {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    new GLTFLoader().parse(buffer, '', resolve, reject);
  });
  let skinned: THREE.SkinnedMesh | null = null;
  gltf.scene.traverse((o) => {
    if (o instanceof THREE.SkinnedMesh) skinned = o;
  });
  assert.ok(skinned, 'a skinned mesh');
  const mesh = skinned as THREE.SkinnedMesh;
  const animation = gltf.animations.find((c) => c.name === clip);
  assert.ok(animation, `a clip named "${clip}"`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(animation).play();
  const vertex = new THREE.Vector3();
  const count = mesh.geometry.getAttribute('position').count;
  const posedAt = (t: number): Float64Array => {
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    mesh.skeleton.update();
    const posed = new Float64Array(3 * count);
    for (let v = 0; v < count; v++) {
      mesh.getVertexPosition(v, vertex);
      vertex.applyMatrix4(mesh.matrixWorld);
      posed.set([vertex.x, vertex.y, vertex.z], 3 * v);
    }
    return posed;
  };
  return { mesh, posedAt };
}
