/**
 * The bone list's tree (renderer/skeleton/bone-tree.ts) on the course hand and the context-aware body (three roots):
 * tree order against a recursive depth-first walk, and the search against each bone's ancestor chain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { searchMatches, treeOrder } from '../../renderer/skeleton/bone-tree.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { dataFile } from './shared-data.ts';

const parentsOf = (...parts: string[]): Int32Array =>
  buildSkeleton(readTgf(readFileSync(dataFile(...parts), 'utf8'), parts.at(-1)!), parts.at(-1)!).parents;

/** A recursive depth-first walk: roots by index, children by index, each bone followed by its subtree. */
function walk(parents: Int32Array): { bone: number; depth: number }[] {
  const out: { bone: number; depth: number }[] = [];
  const visit = (bone: number, depth: number): void => {
    out.push({ bone, depth });
    for (let c = 0; c < parents.length; c++) if (parents[c] === bone) visit(c, depth + 1);
  };
  for (let b = 0; b < parents.length; b++) if (parents[b] < 0) visit(b, 0);
  return out;
}

test('tree order is the depth-first walk: every bone once, each after its parent one level deeper', () => {
  for (const parts of [
    ['hand', 'hand.tgf'],
    ['context-aware', 'skeleton.tgf'],
  ]) {
    const parents = parentsOf(...parts);
    const order = treeOrder(parents);
    assert.deepEqual(order, walk(parents), parts.join('/'));
    const at = new Map(order.map(({ bone }, i) => [bone, i]));
    assert.equal(at.size, parents.length, `${parts.join('/')}: every bone once`);
    for (const { bone, depth } of order) {
      const p = parents[bone];
      if (p < 0) assert.equal(depth, 0, `root ${bone} at depth 0`);
      else {
        assert.ok(at.get(p)! < at.get(bone)!, `bone ${bone} after its parent ${p}`);
        assert.equal(depth, order[at.get(p)!].depth + 1, `bone ${bone} one level under ${p}`);
      }
    }
  }
});

test('a search shows the matches (any case) and every ancestor of one, nothing else; an empty query shows all', () => {
  const parents = parentsOf('context-aware', 'skeleton.tgf');
  const names = Array.from(parents, (_, b) => `${['Spine', 'arm.L', 'arm.R', 'leg'][b % 4]}_${b}`);
  assert.equal(searchMatches(names, parents, '  '), null);
  for (const query of ['ARM.l', 'leg_2', 'spine', 'nothing']) {
    const shown = searchMatches(names, parents, query)!;
    const q = query.toLowerCase();
    for (let b = 0; b < parents.length; b++) {
      const match = names[b].toLowerCase().includes(q);
      let below = false;
      for (let c = 0; c < parents.length && !below; c++) {
        if (!names[c].toLowerCase().includes(q)) continue;
        for (let up = parents[c]; up >= 0; up = parents[up]) if (up === b) below = true;
      }
      assert.equal(shown[b], match ? 2 : below ? 1 : 0, `“${query}”: bone ${b} (${names[b]})`);
    }
  }
});
