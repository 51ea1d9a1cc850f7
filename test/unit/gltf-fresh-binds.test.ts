/**
 * What a fresh export writes for its skeleton, pinned on the course's hand and body: the skins step (inverse-binds.ts)
 * and the bone-ends step (bone-tails.ts) write a fresh document's inverse bind matrices and bone ends, and these must
 * stay what the fresh export has always written. Each joint node stands at its bone's rest start r_b rounded to the
 * grid g = 2^(e − 22), 2^e the least power of two ≥ the largest start coordinate (fresh-document.ts); its inverse
 * bind matrix is the translation by −r_b (identity rotation, a player's rest world matrix times it the identity,
 * exactly in float32); a bone whose end its children do not give has that end in its joint's extras, in the joint's
 * bind frame: end − r_b. The expectations are derived here from the skeleton file alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WebIO, type Node as GltfNode } from '@gltf-transform/core';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { dataFile } from './shared-data.ts';

const TAIL_EXTRA = 'rigwrightBoneTail';

function hand(): { mesh: TriangleMesh; skeleton: Skeleton } {
  const mesh = readOff(readFileSync(dataFile('hand', 'hand.off'), 'utf8'), 'hand.off').mesh;
  return { mesh, skeleton: buildSkeleton(readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf'), 'hand.tgf') };
}

function body(): { mesh: TriangleMesh; skeleton: Skeleton } {
  const mesh = readObj(readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'), 'reference.obj').mesh;
  const tgf = readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf');
  return { mesh, skeleton: buildSkeleton(tgf, 'skeleton.tgf') };
}

/** Bone b's start and end joints, [x, y, z] each, as the TGF gives them. */
function boneEnds(skeleton: Skeleton, b: number): { start: number[]; end: number[] } {
  const at = (j: number): number[] => [0, 1, 2].map((c) => skeleton.joints[3 * j + c]);
  return { start: at(skeleton.bones[2 * b]), end: at(skeleton.bones[2 * b + 1]) };
}

/** Every start joint rounded to the export's grid (see the module comment). */
function gridStarts(skeleton: Skeleton): number[][] {
  const B = skeleton.parents.length;
  const starts = Array.from({ length: B }, (_, b) => boneEnds(skeleton, b).start);
  const largest = Math.max(...starts.flat().map(Math.abs));
  let e = 0;
  while (2 ** e < largest) e++;
  while (2 ** (e - 1) >= largest) e--;
  const g = 2 ** (e - 22);
  return starts.map((start) =>
    start.map((x) => {
      const r = Math.round(x / g) * g;
      assert.ok(Math.abs(r - x) <= g / 2 && Math.abs(r - x) <= 2.4e-7 * largest, `${x} moves by at most half a grid step`);
      return r;
    }),
  );
}

/** Whether a reader finds bone b's end from its children: its first child (by index) that starts away from b's start starts at b's end. */
function endFromChildren(skeleton: Skeleton, b: number): boolean {
  const { start, end } = boneEnds(skeleton, b);
  const same = (p: number[], q: number[]): boolean => p.every((x, c) => x === q[c]);
  for (let child = 0; child < skeleton.parents.length; child++) {
    if (skeleton.parents[child] !== b) continue;
    const head = boneEnds(skeleton, child).start;
    if (same(head, start)) continue;
    return same(head, end);
  }
  return false;
}

for (const [name, load] of [
  ['hand', hand],
  ['body', body],
] as const)
  test(`fresh export of the ${name}: each inverse bind matrix is the translation by −r_b, each bone end without children to give it is end − r_b`, async () => {
    const { mesh, skeleton } = load();
    const B = skeleton.parents.length;
    const weights = boneDistanceWeights(mesh.positions, skeleton);
    const boneNames = Array.from({ length: B }, (_, b) => `bone${b}`);
    const { bytes } = await exportGltf({ mesh, skeleton, weights, boneNames, name }, `${name}.glb`);
    const doc = await new WebIO().readBinary(bytes);
    const skins = doc.getRoot().listSkins();
    assert.equal(skins.length, 1, 'one mesh weighting every bone: one skin');
    const joints = skins[0].listJoints();
    assert.deepEqual(
      joints.map((node) => node.getName()),
      boneNames,
      'the skin has every bone, in bone order',
    );
    const ibm = skins[0].getInverseBindMatrices()!;
    assert.equal(ibm.getCount(), B, 'a matrix per joint');
    const r = gridStarts(skeleton);
    const equal = (a: number, b: number): boolean => a === b; // +0 and −0 alike
    const tails: number[] = [];
    joints.forEach((node, b) => {
      const m = ibm.getElement(b, new Array<number>(16));
      const expected = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -r[b][0], -r[b][1], -r[b][2], 1];
      assert.ok(
        m.every((x, i) => equal(x, expected[i])),
        `bone ${b}: inverse bind matrix ${m.join(' ')}, expected ${expected.join(' ')}`,
      );
      // A player's rest world matrix: the float32 node translations summed down the hierarchy, cancelled exactly.
      const world = [0, 0, 0];
      for (let up: GltfNode | null = node; up; up = up.getParentNode()) up.getTranslation().forEach((t, c) => (world[c] += t));
      assert.ok(
        world.every((w, c) => equal(w + m[12 + c], 0)),
        `bone ${b}: rest world ${world.join(' ')} times its inverse bind matrix is the identity`,
      );
      const extra = node.getExtras()[TAIL_EXTRA];
      if (endFromChildren(skeleton, b)) {
        assert.equal(extra, undefined, `bone ${b}: its first child gives its end`);
        return;
      }
      tails.push(b);
      const { end } = boneEnds(skeleton, b);
      const expectedTail = end.map((x, c) => x - r[b][c]);
      assert.ok(
        Array.isArray(extra) && extra.length === 3 && extra.every((x, c) => equal(x as number, expectedTail[c])),
        `bone ${b}: end in its bind frame ${JSON.stringify(extra)}, expected ${expectedTail.join(' ')}`,
      );
    });
    assert.ok(tails.length > 0 && tails.length < B, `some bones (${tails.length} of ${B}) need their end said, not all`);
  });
