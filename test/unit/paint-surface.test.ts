/**
 * The surface under the brush (renderer/paint-surface.ts) on the course body (18k vertices): moving the vertices of
 * a painted patch refits only the BVH nodes that hold them, and leaves the BVH's bounds bit for bit what a refit of
 * every node gives (the second algorithm); rays then hit what a BVH built afresh on the new positions hits, and the
 * grid gathers exactly the vertices in a sphere (brute force).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { readObj } from '../../workers/formats/obj.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { queryVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { PaintSurface } from '../../renderer/view/paint-surface.ts';
import { dataFile } from './shared-data.ts';
import { seededRandom } from './seeded-random.ts';

const { mesh } = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj');
const n = mesh.positions.length / 3;

/** Counts the position reads of a surface's BVH geometry (a refit reads three per triangle corner it visits). */
function countReads(surface: PaintSurface): { reads: number } {
  const counter = { reads: 0 };
  const attribute = surface.bvh.geometry.getAttribute('position') as THREE.BufferAttribute;
  const getX = attribute.getX.bind(attribute);
  attribute.getX = (i: number) => {
    counter.reads++;
    return getX(i);
  };
  return counter;
}

test('moving a painted patch refits only its BVH nodes, to the bounds a full refit gives', () => {
  const rand = seededRandom(3);
  const partial = new PaintSurface(mesh.positions, mesh.triangles);
  const full = new PaintSurface(mesh.positions, mesh.triangles);
  // Both start from a refit of every node, so their bounds are computed the same way.
  partial.setAll(mesh.positions);
  full.setAll(mesh.positions);
  const fullReads = countReads(full);
  const partialReads = countReads(partial);

  // The patch: the vertices within 3% of the diagonal of a vertex, pushed by up to 1% of the diagonal.
  const { diagonal } = boundingBox(mesh.positions);
  const centre = 4321;
  const moved: number[] = [];
  for (let v = 0; v < n; v++) {
    const d = Math.hypot(...[0, 1, 2].map((a) => mesh.positions[3 * v + a] - mesh.positions[3 * centre + a]));
    if (d < 0.03 * diagonal) moved.push(v);
  }
  assert.ok(moved.length > 50 && moved.length < n / 20, `${moved.length} moved`);
  const next = new Float64Array(3 * moved.length);
  const after = mesh.positions.slice();
  moved.forEach((v, i) => {
    for (let a = 0; a < 3; a++) {
      next[3 * i + a] = mesh.positions[3 * v + a] + (rand() - 0.5) * 0.02 * diagonal;
      after[3 * v + a] = next[3 * i + a];
    }
  });
  partial.move(Uint32Array.from(moved), moved.length, next);
  full.setAll(after);

  assert.deepEqual(partial.positions, after);
  const roots = (surface: PaintSurface) => (surface.bvh as unknown as { _roots: ArrayBuffer[] })._roots.map((r) => new Uint8Array(r));
  assert.deepEqual(roots(partial), roots(full));
  assert.ok(partialReads.reads < 0.1 * fullReads.reads, `partial refit read ${partialReads.reads} positions, full ${fullReads.reads}`);

  // Rays through the patch hit what a BVH built afresh on the new positions hits.
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(after), 3));
  geometry.setIndex(new THREE.BufferAttribute(mesh.triangles.slice(), 1));
  const fresh = new MeshBVH(geometry);
  const target = new THREE.Vector3(...after.subarray(3 * centre, 3 * centre + 3));
  for (let k = 0; k < 40; k++) {
    const origin = new THREE.Vector3(rand() - 0.5, rand() - 0.5, rand() - 0.5).normalize().multiplyScalar(3).add(target);
    const aim = target.clone().add(new THREE.Vector3(rand() - 0.5, rand() - 0.5, rand() - 0.5).multiplyScalar(0.05 * diagonal));
    const ray = new THREE.Ray(origin, aim.sub(origin).normalize());
    const a = partial.raycastFirst(ray);
    const b = fresh.raycastFirst(ray, THREE.DoubleSide);
    assert.equal(a?.distance, b?.distance);
  }

  // The grid gathers exactly the vertices within a sphere around the moved patch (brute force).
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  const radius = 0.04 * diagonal;
  const count = queryVertexGrid(partial.grid, target.x, target.y, target.z, radius, indices, distances);
  const expected: number[] = [];
  for (let v = 0; v < n; v++)
    if (Math.hypot(after[3 * v] - target.x, after[3 * v + 1] - target.y, after[3 * v + 2] - target.z) <= radius) expected.push(v);
  assert.deepEqual(
    [...indices.subarray(0, count)].sort((x, y) => x - y),
    expected,
  );
});
