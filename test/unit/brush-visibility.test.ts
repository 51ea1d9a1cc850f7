/**
 * The brush's "front faces only" test (renderer/brush-visibility.ts) on two parallel square sheets, one in front of
 * the other: from the front the front sheet is seen and the back one hidden, from behind the opposite (expected
 * by construction); the tile cache kept along a stroke gives exactly what drawing every dab afresh gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { BrushVisibility, type BrushFootprint } from '../../renderer/tools/brush/brush-visibility.ts';

const SIDE = 41;
const WIDTH = 640;
const HEIGHT = 480;

/** Two sheets [-1, 1]² of SIDE × SIDE vertices at z = 0 (vertices 0 … SIDE² − 1) and z = −0.5 (the rest). */
function sheets(): { positions: Float64Array; bvh: MeshBVH } {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (const z of [0, -0.5]) {
    const base = positions.length / 3;
    for (let j = 0; j < SIDE; j++) for (let i = 0; i < SIDE; i++) positions.push(-1 + (2 * i) / (SIDE - 1), -1 + (2 * j) / (SIDE - 1), z);
    for (let j = 0; j + 1 < SIDE; j++) {
      for (let i = 0; i + 1 < SIDE; i++) {
        const v = base + i + SIDE * j;
        triangles.push(v, v + 1, v + SIDE + 1, v, v + SIDE + 1, v + SIDE);
      }
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(positions), 3));
  geometry.setIndex(new THREE.BufferAttribute(Uint32Array.from(triangles), 1));
  return { positions: Float64Array.from(positions), bvh: new MeshBVH(geometry) };
}

function cameraAt(z: number): THREE.PerspectiveCamera {
  const camera = new THREE.PerspectiveCamera(40, WIDTH / HEIGHT, 0.05, 50);
  camera.position.set(0, 0, z);
  camera.lookAt(0, 0, -0.25);
  camera.updateMatrixWorld();
  return camera;
}

/** Screen position of a world point, CSS pixels. */
function screen(camera: THREE.PerspectiveCamera, x: number, y: number, z: number): { x: number; y: number } {
  const p = new THREE.Vector3(x, y, z).project(camera);
  return { x: ((p.x + 1) / 2) * WIDTH, y: ((1 - p.y) / 2) * HEIGHT };
}

/** Every vertex of both sheets within `reach` of (cx, cy) in x and y: the brush sphere's gather, for the test. */
function gather(
  positions: Float64Array,
  cx: number,
  cy: number,
  reach: number,
): { indices: Uint32Array; distances: Float64Array; count: number } {
  const n = positions.length / 3;
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  let count = 0;
  for (let v = 0; v < n; v++) {
    const d = Math.hypot(positions[3 * v] - cx, positions[3 * v + 1] - cy);
    if (d <= reach) {
      indices[count] = v;
      distances[count++] = d;
    }
  }
  return { indices, distances, count };
}

function footprint(camera: THREE.PerspectiveCamera, cx: number, cy: number, surfaceZ: number): BrushFootprint {
  const centre = screen(camera, cx, cy, surfaceZ);
  const depth = Math.abs(camera.position.z - surfaceZ);
  // The brush's screen radius is the gather's 0.3 at the near sheet's depth (as the viewport derives its world
  // radius from it). The far sheet is 0.5 behind: maxDepth reaches it, so only the depth test can hide it.
  const radius = (0.3 * HEIGHT) / (2 * depth * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2)));
  return { x: centre.x, y: centre.y, radius, width: WIDTH, height: HEIGHT, maxDepth: depth + 0.6, reach: 0.3, tolerance: 0.05 };
}

test('brush visibility: the front sheet is seen and the back one hidden, from either side', () => {
  const { positions, bvh } = sheets();
  const perSheet = SIDE * SIDE;
  for (const [cameraZ, nearZ, seenFirst] of [
    [3, 0, true],
    [-3.5, -0.5, false],
  ] as const) {
    const camera = cameraAt(cameraZ);
    const visibility = new BrushVisibility();
    const { indices, distances, count } = gather(positions, 0.1, -0.2, 0.3);
    const kept = visibility.filter(bvh, positions, camera, footprint(camera, 0.1, -0.2, nearZ), indices, distances, count);
    const front = Array.from(indices.subarray(0, kept)).filter((v) => v < perSheet === seenFirst);
    assert.ok(count > 2 * kept - 10 && kept > 20, `about half the gathered vertices are on the near sheet (${kept} of ${count})`);
    assert.equal(front.length, kept, `camera at z = ${cameraZ}: every kept vertex is on the near sheet`);
    const nearGathered = Array.from(gather(positions, 0.1, -0.2, 0.3).indices.subarray(0, count)).filter(
      (v) => v < perSheet === seenFirst,
    ).length;
    assert.equal(kept, nearGathered, 'and every near-sheet vertex is kept');
  }
});

test('brush visibility: the tiles kept along a stroke give what drawing each dab afresh gives; a camera move starts over', () => {
  const { positions, bvh } = sheets();
  const camera = cameraAt(3);
  const kept = new BrushVisibility();
  const fresh = new BrushVisibility();
  for (let k = 0; k < 12; k++) {
    const cx = -0.6 + 0.1 * k,
      cy = 0.3 - 0.05 * k;
    const brush = footprint(camera, cx, cy, 0);
    const a = gather(positions, cx, cy, 0.3);
    const b = gather(positions, cx, cy, 0.3);
    fresh.invalidate();
    const keptCount = kept.filter(bvh, positions, camera, brush, a.indices, a.distances, a.count);
    const freshCount = fresh.filter(bvh, positions, camera, brush, b.indices, b.distances, b.count);
    assert.deepEqual(Array.from(a.indices.subarray(0, keptCount)), Array.from(b.indices.subarray(0, freshCount)), `dab ${k}`);
  }
  // Behind the sheets now: the kept buffer must not answer from the old view.
  const behind = cameraAt(-3.5);
  const { indices, distances, count } = gather(positions, 0, 0, 0.3);
  const visible = kept.filter(bvh, positions, behind, footprint(behind, 0, 0, -0.5), indices, distances, count);
  assert.ok(
    visible > 0 && Array.from(indices.subarray(0, visible)).every((v) => v >= SIDE * SIDE),
    'from behind, the back sheet is the one seen',
  );
});
