/**
 * The paint session's changed-vertex sets (ChangedVertices): the views' set comes back ascending and each vertex
 * once, whatever number of radix passes the mesh's vertex numbers take (one up to 2,048 vertices, two up to 4M, three
 * beyond), round after round on the buffers the sort swaps; the surface's set in the order first added.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangedVertices } from '../../renderer/paint/paint-session.ts';
import { seededRandom } from './seeded-random.ts';

for (const vertexCount of [2_048, 2_049, 300_000, 4_194_305]) {
  // 11 bits a pass over the bits of the largest vertex number.
  const passes = Math.ceil((32 - Math.clz32(vertexCount - 1)) / 11);
  test(`changed vertices of a ${vertexCount.toLocaleString('en-US')}-vertex mesh (${passes} radix pass${passes > 1 ? 'es' : ''}): ascending and once each for the views, first-added order for the surface`, () => {
    const random = seededRandom(vertexCount);
    const changes = new ChangedVertices(vertexCount);
    for (let round = 0; round < 4; round++) {
      const added = new Set<number>();
      const firstAdded: number[] = [];
      for (let dab = 0; dab < 5; dab++) {
        // Vertices spread over the whole range, the last one and 0 among them, with repeats within and across dabs.
        const dabVertices = Array.from({ length: 700 }, () => Math.floor(random() * vertexCount));
        dabVertices.push(vertexCount - 1, 0, dabVertices[3]);
        changes.add(dabVertices, dabVertices.length);
        for (const v of dabVertices) {
          if (!added.has(v)) firstAdded.push(v);
          added.add(v);
        }
      }
      const views = changes.take(0);
      assert.deepEqual(
        [...views.vertices.subarray(0, views.count)],
        [...added].sort((a, b) => a - b),
        `round ${round}: the views' set, ascending`,
      );
      assert.ok(changes.empty(0), `round ${round}: the views' set is empty once taken`);
      const surface = changes.take(1);
      assert.deepEqual(
        [...surface.vertices.subarray(0, surface.count)],
        firstAdded,
        `round ${round}: the surface's set, first added first`,
      );
    }
  });
}
