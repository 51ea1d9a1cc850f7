/**
 * Robust weight transfer (Abdrashitov et al. 2023) from the shared body to meshes made here from it, whose true
 * weights are known independently: a shirt made of the body's torso triangles, subdivided and pushed out along the
 * normals, carries at each vertex the body's weights at the point it was made from (the linear interpolation of the
 * body's weights on that triangle edge). A belly bulge pushed beyond the match distance is inpainted; a loose side
 * panel pushed toward an arm lowered by linear blend skinning is where nearest-point transfer bleeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextAwareBody } from './context-aware-data.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { cotangentLaplacian } from '../../workers/mesh/cotangent-laplacian.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { closestSurfacePoints } from '../../workers/mesh/closest-surface-points.ts';
import { closestPointOnTriangle } from '../../workers/paint/closest-point-on-triangle.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import {
  TRANSFER_INPAINTED,
  TRANSFER_MATCHED,
  TRANSFER_NEAREST,
  WEIGHT_TRANSFER_DEFAULTS,
  weightTransfer,
  type WeightTransferOptions,
} from '../../workers/weights/weight-transfer.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';
import { runCli } from '../../app/cli/main.ts';
import { joinMeshes } from '../../renderer/document/mesh-parts.ts';
import { MeshesController } from '../../renderer/meshes/meshes-controller.ts';
import { inpaintedVertices, inProcessTransfer, transferCommands } from '../../renderer/meshes/transfer-commands.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { LastTransfer } from '../../renderer/meshes/last-transfer.ts';
import { fitAssetBones, readWeightedAsset } from '../../workers/formats/weighted-asset.ts';
import { formatBoneNames } from '../../workers/formats/bone-names.ts';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { limitInfluences } from '../../workers/weights/limit-influences.ts';
import { demoDocument, withDerived } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { projectSceneOf } from '../../workers/scene/project-document.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Nearest-point transfer, as Blender's Data Transfer and Maya's Copy Skin Weights do it: every closest point kept. */
const NEAREST_POINT: WeightTransferOptions = { maxDistance: Infinity, maxAngle: 180, smoothIterations: 0 };

interface Body {
  positions: Float64Array;
  triangles: Uint32Array;
  normals: Float64Array;
  weights: Float64Array;
  boneCount: number;
}

/**
 * A mesh made from the body: each vertex made from a point of the body (`base`), whose weights it should carry.
 */
interface MadeMesh {
  positions: Float64Array;
  triangles: Uint32Array;
  /** #V × #B the body's weights at `base` */
  expected: Float64Array;
  /** #V × 3 the point of the body each vertex was made from */
  base: Float64Array;
}

/**
 * The body's triangles accepted by `keep`, each split in four at its edge midpoints (shared between neighbouring
 * triangles, so the result is one surface with new vertices and new indices), moved out along the normals by
 * offset(base); a vertex made from the midpoint of body vertices a and b (a = b for a body vertex) has the mean of
 * their weights.
 */
function madeFromBody(body: Body, keep: (f: number) => boolean, offset: (x: number, y: number, z: number) => number): MadeMesh {
  const { positions, triangles, normals, weights, boneCount: nb } = body;
  const pairs: [number, number][] = [];
  const index = new Map<string, number>();
  const vertex = (a: number, b: number): number => {
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    let i = index.get(key);
    if (i === undefined) {
      i = pairs.length;
      index.set(key, i);
      pairs.push([a, b]);
    }
    return i;
  };
  const out: number[] = [];
  for (let f = 0; f < triangles.length / 3; f++) {
    if (!keep(f)) continue;
    const [a, b, c] = [triangles[3 * f], triangles[3 * f + 1], triangles[3 * f + 2]];
    const [va, vb, vc] = [vertex(a, a), vertex(b, b), vertex(c, c)];
    const [ab, bc, ca] = [vertex(a, b), vertex(b, c), vertex(c, a)];
    out.push(va, ab, ca, ab, vb, bc, ca, bc, vc, ab, bc, ca);
  }
  const n = pairs.length;
  const made = new Float64Array(3 * n);
  const base = new Float64Array(3 * n);
  const expected = new Float64Array(n * nb);
  pairs.forEach(([a, b], v) => {
    const normal = [0, 1, 2].map((k) => normals[3 * a + k] + normals[3 * b + k]);
    const length = Math.hypot(...normal);
    for (let k = 0; k < 3; k++) base[3 * v + k] = (positions[3 * a + k] + positions[3 * b + k]) / 2;
    const lift = offset(base[3 * v], base[3 * v + 1], base[3 * v + 2]);
    for (let k = 0; k < 3; k++) made[3 * v + k] = base[3 * v + k] + (lift * normal[k]) / length;
    for (let k = 0; k < nb; k++) expected[v * nb + k] = (weights[a * nb + k] + weights[b * nb + k]) / 2;
  });
  return { positions: made, triangles: Uint32Array.from(out), expected, base };
}

let restBody: Body | null = null;
function body(): Body {
  if (restBody) return restBody;
  const data = contextAwareBody();
  restBody = {
    positions: data.mesh.positions,
    triangles: data.mesh.triangles,
    normals: vertexNormals(data.mesh.positions, data.mesh.triangles),
    weights: data.weights.data,
    boneCount: data.boneCount,
  };
  return restBody;
}

/**
 * The torso band below the armpits, chosen in the rest pose: triangles whose three corners lie in y ∈ [−0.25, 0.08]
 * (the arms start at 0.15, the legs part below −0.3).
 */
function torsoBand(): (f: number) => boolean {
  const { positions, triangles } = body();
  return (f) =>
    [0, 1, 2].every((k) => {
      const y = positions[3 * triangles[3 * f + k] + 1];
      return y >= -0.25 && y <= 0.08;
    });
}

/**
 * Shrink-wrapped onto the body: each vertex goes to its closest body point c (its foot) and then `lift(c)` out along
 * the line from c through where it was. Where the lift is at most the vertex's distance from c, c stays its closest
 * point (the ball about the new position is inside the ball about the old one, touching the body at c alone), so the
 * body's weights at c — interpolated here in c's triangle — are what a transfer must give it.
 */
function shrinkWrapped(source: Body, mesh: MadeMesh, lift: (x: number, y: number, z: number, distance: number) => number): MadeMesh {
  const { positions, triangles, weights, boneCount: nb } = source;
  const n = mesh.positions.length / 3;
  const feet = closestSurfacePoints(positions, triangles, mesh.positions);
  const wrapped = new Float64Array(3 * n);
  const base = new Float64Array(3 * n);
  const expected = new Float64Array(n * nb);
  for (let v = 0; v < n; v++) {
    const corners = [0, 1, 2].map((k) => triangles[3 * feet.triangle[v] + k]);
    const u = [0, 1, 2].map((k) => feet.barycentric[3 * v + k]);
    for (let k = 0; k < 3; k++) base[3 * v + k] = corners.reduce((sum, c, i) => sum + u[i] * positions[3 * c + k], 0);
    for (let b = 0; b < nb; b++) expected[v * nb + b] = corners.reduce((sum, c, i) => sum + u[i] * weights[c * nb + b], 0);
    const away = [0, 1, 2].map((k) => mesh.positions[3 * v + k] - base[3 * v + k]);
    const distance = Math.hypot(...away);
    const length = lift(base[3 * v], base[3 * v + 1], base[3 * v + 2], distance);
    for (let k = 0; k < 3; k++) wrapped[3 * v + k] = base[3 * v + k] + (length * away[k]) / distance;
  }
  return { positions: wrapped, triangles: mesh.triangles, expected, base };
}

/**
 * A shirt shrink-wrapped 4 mm off the body's torso (or less where a fold brings it closer), with a belly bulge of
 * `bulge` at its peak (smooth, zero beyond 6 cm of (0, −0.08) on the front).
 */
function shirt(source: Body, bulge: number): MadeMesh {
  const loose = madeFromBody(source, torsoBand(), () => 0.01);
  return shrinkWrapped(source, loose, (x, y, z, distance) => {
    const r = Math.hypot(x, y + 0.08) / 0.06;
    return Math.min(0.004, 0.9 * distance) + (z > 0 && r < 1 ? bulge * Math.cos((Math.PI / 2) * r) ** 2 : 0);
  });
}

function rowSums(weights: Float64Array, nb: number): { worstSum: number; smallest: number } {
  let worstSum = 0;
  let smallest = Infinity;
  for (let o = 0; o < weights.length; o += nb) {
    let sum = 0;
    for (let b = 0; b < nb; b++) {
      sum += weights[o + b];
      smallest = Math.min(smallest, weights[o + b]);
    }
    worstSum = Math.max(worstSum, Math.abs(sum - 1));
  }
  return { worstSum, smallest };
}

function rowError(a: Float64Array, b: Float64Array, v: number, nb: number): number {
  let worst = 0;
  for (let k = 0; k < nb; k++) worst = Math.max(worst, Math.abs(a[v * nb + k] - b[v * nb + k]));
  return worst;
}

/**
 * Σ over bones of the Dirichlet energy ½ Σ_edges (cot α + cot β)/2 · (w_i − w_j)² over the edges with an end in
 * `region` (the cotangent Laplacian's quadratic form, restricted), on the given mesh.
 */
function regionEnergy(mesh: MadeMesh, weights: Float64Array, nb: number, region: (v: number) => boolean): number {
  const k = cotangentLaplacian(mesh.positions, mesh.triangles);
  let energy = 0;
  for (let j = 0; j < k.cols; j++) {
    for (let p = k.colPointers[j]; p < k.colPointers[j + 1]; p++) {
      const i = k.rowIndices[p];
      if (i <= j || !(region(i) || region(j))) continue;
      for (let b = 0; b < nb; b++) energy += -k.values[p] * (weights[i * nb + b] - weights[j * nb + b]) ** 2;
    }
  }
  return energy;
}

test('closest surface points agree with a brute-force search over every triangle', () => {
  const { positions, triangles } = body();
  const random = seededRandom(7);
  const queries = new Float64Array(3 * 200);
  for (let i = 0; i < queries.length; i++) queries[i] = (random() - 0.5) * 2.4;
  const found = closestSurfacePoints(positions, triangles, queries);
  const coords = new Float64Array(3);
  for (let q = 0; q < 200; q++) {
    let best = Infinity;
    for (let f = 0; f < triangles.length / 3; f++)
      best = Math.min(
        best,
        closestPointOnTriangle(queries, 3 * q, positions, triangles[3 * f], triangles[3 * f + 1], triangles[3 * f + 2], coords, 0),
      );
    assert.ok(Math.abs(found.squaredDistance[q] - best) <= 1e-15, `query ${q}: ${found.squaredDistance[q]} against ${best}`);
    const f = found.triangle[q];
    const d2 = closestPointOnTriangle(queries, 3 * q, positions, triangles[3 * f], triangles[3 * f + 1], triangles[3 * f + 2], coords, 0);
    assert.equal(d2, found.squaredDistance[q], `query ${q}: the triangle reported holds the closest point`);
  }
});

test('the body’s weights on a shirt made from it: within 1e-3 of the body’s own where matched; the bulge inpainted smoothly', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const n = made.positions.length / 3;
  const stages: string[] = [];
  const result = weightTransfer({ ...source }, made, nb, {}, undefined, (stage) => stages.push(stage));
  assert.deepEqual([...new Set(stages)], ['matching', 'inpainting', 'smoothing', 'done'], 'progress stages in order');
  assert.equal(result.matchedCount + result.inpaintedCount + result.nearestCount, n, 'every vertex accounted for');
  assert.equal(result.nearestCount, 0, 'the shirt is one piece with matches');
  assert.ok(result.inpaintedCount >= 50, `the bulge is inpainted (${result.inpaintedCount} vertices)`);
  assert.ok(result.matchedCount >= 0.9 * n, `most of the shirt matches (${result.matchedCount} of ${n})`);
  const diagonal = boundingBox(made.positions).diagonal;
  assert.ok(Math.abs(result.distanceUsed - WEIGHT_TRANSFER_DEFAULTS.maxDistance * diagonal) < 1e-12, 'match distance: 0.05 × diagonal');

  // Matched vertices the smoothing did not move carry the body's weights where they were made from.
  let worstMatched = 0;
  let compared = 0;
  for (let v = 0; v < n; v++) {
    if (result.status[v] !== TRANSFER_MATCHED || result.smoothed[v]) continue;
    worstMatched = Math.max(worstMatched, rowError(result.weights, made.expected, v, nb));
    compared++;
  }
  assert.ok(compared >= 0.7 * n, `most matched vertices are away from the bulge and its smoothing (${compared} of ${n})`);
  assert.ok(worstMatched <= 1e-3, `matched vertices within 1e-3 of the body's weights (worst ${worstMatched})`);

  // The bulge is inpainted where it stands well beyond the match distance; elsewhere only a few vertices at folds
  // (where the subdivided shirt's normal turns more than 30° from the body's) are.
  let outside = 0;
  for (let v = 0; v < n; v++) {
    const [x, y, z] = [made.base[3 * v], made.base[3 * v + 1], made.base[3 * v + 2]];
    const lift = Math.hypot(made.positions[3 * v] - x, made.positions[3 * v + 1] - y, made.positions[3 * v + 2] - z);
    if (lift > 1.5 * result.distanceUsed)
      assert.equal(result.status[v], TRANSFER_INPAINTED, `vertex ${v}, ${lift} off the body, is inpainted`);
    if (result.status[v] === TRANSFER_INPAINTED && !(z > 0 && Math.hypot(x, y + 0.08) < 0.06)) outside++;
  }
  assert.ok(outside <= 0.02 * n, `${outside} vertices inpainted outside the bulge`);

  // Smooth: the inpainted region's Dirichlet energy is at most twice what the body's own weights have there.
  const inpainted = (v: number) => result.status[v] === TRANSFER_INPAINTED;
  const ours = regionEnergy(made, result.weights, nb, inpainted);
  const bodys = regionEnergy(made, made.expected, nb, inpainted);
  assert.ok(ours > 0 && ours <= 2 * bodys, `inpainted energy ${ours} ≤ 2 × the body's ${bodys}`);
  const { worstSum, smallest } = rowSums(result.weights, nb);
  assert.ok(worstSum < 1e-12, `partition of unity (worst |Σ − 1| ${worstSum})`);
  assert.ok(smallest >= 0, `no negative weight (${smallest})`);
  assert.equal(result.unnormalizedCount, 0, 'every row sums to 1');
});

test('without smoothing, inpainting leaves the matched rows as matched and only fills the others', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const plain = weightTransfer(source, made, nb, { smoothIterations: 0 });
  const nearest = weightTransfer(source, made, nb, NEAREST_POINT);
  assert.equal(plain.smoothedCount, 0, 'nothing smoothed');
  for (let v = 0; v < made.positions.length / 3; v++) {
    if (plain.status[v] !== TRANSFER_MATCHED) continue;
    assert.ok(rowError(plain.weights, nearest.weights, v, nb) < 1e-12, `matched vertex ${v} keeps its closest point's weights`);
  }
});

test('locked bones keep the target’s own weights; the others fill what is left, in the transferred proportions', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const n = made.positions.length / 3;
  const free = weightTransfer(source, made, nb);
  const locked = new Uint8Array(nb);
  locked[2] = 1;
  locked[5] = 1;
  const current = new Float64Array(n * nb);
  const random = seededRandom(11);
  for (let v = 0; v < n; v++) {
    current[v * nb + 2] = 0.3 * random();
    current[v * nb + 5] = 0.2;
    current[v * nb + 0] = 1 - current[v * nb + 2] - 0.2;
  }
  const result = weightTransfer(source, made, nb, {}, { locked, weights: current });
  let worst = 0;
  for (let v = 0; v < n; v++) {
    assert.equal(result.weights[v * nb + 2], current[v * nb + 2], `vertex ${v}: locked bone 2 unchanged`);
    assert.equal(result.weights[v * nb + 5], current[v * nb + 5], `vertex ${v}: locked bone 5 unchanged`);
    let unlocked = 0;
    for (let b = 0; b < nb; b++) if (!locked[b]) unlocked += free.weights[v * nb + b];
    if (unlocked === 0) continue;
    const room = 1 - current[v * nb + 2] - current[v * nb + 5];
    for (let b = 0; b < nb; b++) {
      if (locked[b]) continue;
      worst = Math.max(worst, Math.abs(result.weights[v * nb + b] - (free.weights[v * nb + b] * room) / unlocked));
    }
  }
  assert.ok(worst < 1e-12, `unlocked weights are the transfer's, rescaled into the room left (worst ${worst})`);
  const { worstSum, smallest } = rowSums(result.weights, nb);
  assert.ok(worstSum < 1e-12 && smallest >= 0, `partition of unity around the locks (${worstSum}, ${smallest})`);
});

/**
 * The body with its right arm lowered 80° by linear blend skinning, so the upper arm hangs beside the ribs with a
 * gap between them (the rest pose is a T-pose).
 */
function bodyWithArmDown(): Body {
  const source = body();
  const data = contextAwareBody();
  const nb = source.boneCount;
  const rotations = new Float64Array(9 * nb);
  for (let b = 0; b < nb; b++) rotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * b);
  // Bone 17 is the right upper arm (joints 17 → 19, along +x); −80° about z turns +x toward −y.
  const angle = (-80 * Math.PI) / 180;
  rotations.set([Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1], 9 * 17);
  const transforms = new Float64Array(12 * nb);
  forwardKinematics(data.skeleton, rotations, transforms);
  const posed = new Float64Array(source.positions.length);
  linearBlendSkinning(source.positions, influencesFromWeights(data.weights, nb), transforms, posed);
  return { ...source, positions: posed, normals: vertexNormals(posed, source.triangles) };
}

test('an arm-to-torso gap: a loose shirt side facing the arm takes the torso’s weights, where nearest-point transfer takes the arm’s', () => {
  const source = bodyWithArmDown();
  const nb = source.boneCount;
  const arm = [17, 19, 21];
  // The side panel of the shirt under the lowered arm is pushed out toward it: 4 mm, up to 2.5 cm in the middle.
  const made = madeFromBody(source, torsoBand(), (x, y) => {
    const r = Math.hypot((y + 0.05) / 0.08, 0);
    return 0.004 + (x > 0.09 && r < 1 ? 0.021 * Math.cos((Math.PI / 2) * r) ** 2 : 0);
  });
  const n = made.positions.length / 3;
  const armWeight = (weights: Float64Array, v: number) => arm.reduce((sum, b) => sum + weights[v * nb + b], 0);
  const nearest = weightTransfer(source, made, nb, NEAREST_POINT);
  const robust = weightTransfer(source, made, nb);
  let bled = 0;
  let worstRobust = 0;
  let truthAtBled = 0;
  for (let v = 0; v < n; v++) {
    if (armWeight(nearest.weights, v) < 0.5) continue;
    bled++;
    truthAtBled = Math.max(truthAtBled, armWeight(made.expected, v));
    worstRobust = Math.max(worstRobust, armWeight(robust.weights, v));
    assert.notEqual(robust.status[v], TRANSFER_MATCHED, `vertex ${v}: its closest point on the arm faces away, so it is not matched`);
  }
  assert.ok(bled >= 10, `nearest-point transfer gives the arm over half the weight of ${bled} shirt vertices`);
  assert.ok(truthAtBled < 0.05, `where the shirt was made from, the arm weighs at most ${truthAtBled}`);
  assert.ok(worstRobust < 0.1, `robust transfer: the arm weighs at most ${worstRobust} there`);
  assert.equal(robust.nearestCount, 0, 'the panel is inpainted from the shirt around it');
});

test('a part with no match keeps its closest points’ weights and is reported', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0);
  const n = made.positions.length / 3;
  // A button: the shirt's first 20 triangles copied 10 cm in front of it, a part of its own beyond the match distance.
  const button = made.triangles.subarray(0, 60);
  const used = [...new Set(button)];
  const positions = new Float64Array(3 * (n + used.length));
  positions.set(made.positions);
  used.forEach((v, i) => positions.set([made.positions[3 * v], made.positions[3 * v + 1], made.positions[3 * v + 2] + 0.1], 3 * (n + i)));
  const triangles = Uint32Array.from([...made.triangles, ...Array.from(button, (v) => n + used.indexOf(v))]);
  const target = { positions, triangles };
  const result = weightTransfer(source, target, nb);
  const nearest = weightTransfer(source, target, nb, NEAREST_POINT);
  assert.equal(result.nearestCount, used.length, 'the button alone falls back to its closest points');
  for (let v = n; v < n + used.length; v++) {
    assert.equal(result.status[v], TRANSFER_NEAREST, `button vertex ${v} is marked nearest`);
    assert.ok(rowError(result.weights, nearest.weights, v, nb) < 1e-12, `button vertex ${v} has its closest point's weights`);
  }
  assert.ok(
    result.status.subarray(0, n).every((s) => s !== TRANSFER_NEAREST),
    'the shirt itself has matches: matched or inpainted',
  );
  // The notice's "Select the inpainted vertices" selects the inpainted ones only: not the button, nor the matched.
  const selected = inpaintedVertices(result.status, 5, n + used.length + 5);
  assert.equal(
    selected.reduce((a, b) => a + b, 0),
    result.inpaintedCount,
    'as many selected as inpainted',
  );
  for (let v = 0; v < n + used.length; v++)
    assert.equal(selected[5 + v], result.status[v] === TRANSFER_INPAINTED ? 1 : 0, `target vertex ${v} (scene vertex ${5 + v})`);
});

test('flipped normals match only when asked', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0);
  const n = made.positions.length / 3;
  // The shirt turned inside out: every normal faces the body.
  const flipped = { ...made, triangles: made.triangles.map((_, i, t) => t[i - (i % 3) + [0, 2, 1][i % 3]]) };
  const upright = weightTransfer(source, made, nb);
  const strict = weightTransfer(source, flipped, nb);
  const lenient = weightTransfer(source, flipped, nb, { acceptFlippedNormals: true });
  assert.ok(upright.matchedCount >= 0.98 * n, `the shirt matches (${upright.matchedCount} of ${n})`);
  assert.ok(strict.matchedCount <= 0.01 * n, `inside out, next to nothing matches (${strict.matchedCount}, at folds)`);
  assert.equal(
    lenient.matchedCount,
    upright.matchedCount + strict.matchedCount,
    'accepting flipped normals matches inside out what matches either way round',
  );
});

test('bad input is refused with the reason; cancel stops the transfer', () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0);
  assert.throws(() => weightTransfer({ ...source, weights: source.weights.subarray(1) }, made, nb), /source weights have/);
  assert.throws(() => weightTransfer({ ...source, triangles: new Uint32Array(0) }, made, nb), /no triangles/);
  assert.throws(() => weightTransfer(source, made, nb, { maxAngle: 200 }), /maxAngle 200/);
  assert.throws(() => weightTransfer(source, { ...made, triangles: Uint32Array.of(0, 1, 1e7) }, nb), /names vertex 10000000/);
  assert.throws(
    () => weightTransfer(source, made, nb, {}, undefined, undefined, () => true),
    (error: unknown) => error instanceof DOMException && error.name === 'AbortError',
  );
});

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(['transfer', ...args], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  });
  return { status, stdout, stderr };
}

test('rigwright transfer: the arm onto itself gives its own weights back (exit 0); bad files exit 1, bad command lines 2', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-transfer-'));
  const out = path.join(work, 'arm.dmat');
  const arm = [
    '--from',
    dataFile('libigl', 'arm.obj'),
    '--from',
    dataFile('libigl', 'arm-weights.dmat'),
    '--from',
    dataFile('libigl', 'arm.tgf'),
  ];
  const run = await rigwright(...arm, '--to', dataFile('libigl', 'arm.obj'), '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /wrote .*arm\.dmat: 8311 vertices × 4 bones; 8311 matched, 0 inpainted/);
  const tokens = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  const written = tokens(out);
  const given = tokens(dataFile('libigl', 'arm-weights.dmat'));
  assert.deepEqual(written.slice(0, 2), given.slice(0, 2), 'same shape');
  // The file's rows, normalised as the reader does, against what came back.
  const rows = given[1];
  let worst = 0;
  for (let r = 0; r < rows; r++) {
    const sum = [0, 1, 2, 3].reduce((s, c) => s + given[2 + c * rows + r], 0);
    for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(written[2 + c * rows + r] - given[2 + c * rows + r] / sum));
  }
  assert.ok(worst < 1e-9, `each vertex's closest point is itself: its own weights (worst ${worst})`);

  const wrongWeights = await rigwright(
    '--from',
    dataFile('libigl', 'arm.obj'),
    '--from',
    dataFile('libigl', 'elephant-weights.dmat'),
    '--to',
    dataFile('libigl', 'arm.obj'),
    '--out',
    out,
  );
  assert.equal(wrongWeights.status, 1, 'weights of another mesh are bad input');
  assert.match(wrongWeights.stderr, /elephant-weights\.dmat/, 'the message names the file');
  const missing = await rigwright(...arm, '--out', out);
  assert.equal(missing.status, 2, 'no --to');
  assert.match(missing.stderr, /missing --to/);
  const notProject = await rigwright(...arm, '--to', dataFile('libigl', 'arm.obj'), '--project', path.join(work, 'p.rig.glb'));
  assert.equal(notProject.status, 2, '--project with a mesh target');
  assert.match(notProject.stderr, /--project needs a project as --to/);
  const badAngle = await rigwright(...arm, '--to', dataFile('libigl', 'arm.obj'), '--max-angle', '270', '--out', out);
  assert.equal(badAngle.status, 2, 'an angle out of range');
  assert.match(badAngle.stderr, /--max-angle must be an angle in \[0, 180\], not "270"/);
});

/**
 * The body and a shirt made from it (bulge 0.06) joined in one scene: the body with its own weights, the shirt on bone
 * 0 and bone 3 (locked) half and half.
 */
function bodyAndShirtScene() {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const { mesh, parts } = joinMeshes([
    { name: 'body.obj', mesh: { positions: source.positions, triangles: source.triangles } },
    { name: 'shirt.obj', mesh: { positions: made.positions, triangles: made.triangles } },
  ]);
  const n = mesh.positions.length / 3;
  const bodyCount = source.positions.length / 3;
  // The shirt starts on bone 0 and bone 3 (locked) half and half.
  const LOCKED = 3;
  const weights = new Float64Array(n * nb);
  weights.set(source.weights);
  for (let v = bodyCount; v < n; v++) {
    weights[v * nb] = 0.5;
    weights[v * nb + LOCKED] = 0.5;
  }
  const paintLocks = new Uint8Array(nb);
  paintLocks[LOCKED] = 1;
  const data = contextAwareBody();
  const history = new UndoHistory();
  const store = new SceneStore(
    withDerived({
      name: 'body.obj + shirt.obj',
      meshFiles: ['body.obj', 'shirt.obj'],
      mesh,
      parts,
      skeletonFile: 'skeleton.tgf',
      skeleton: data.skeleton,
      weights: { rows: n, cols: nb, data: weights },
      weightsSource: 'weights.dmat',
      poses: null,
      posesFile: null,
      handles: null,
      handlesFile: null,
      warnings: [],
      paintLocks,
    }),
    history,
  );
  return { source, nb, made, n, bodyCount, LOCKED, weights, paintLocks, history, store };
}

test('weights.transferFromMesh: the body’s weights onto the shirt of one scene, one undo step; the body’s rows and a locked bone stay', async () => {
  const { source, nb, made, n, bodyCount, LOCKED, weights, paintLocks, history, store } = bodyAndShirtScene();
  const before = store.doc;
  const notices: { title: string; items: readonly string[]; actions: readonly { label: string; run(): void }[] }[] = [];
  const selections: Uint8Array[] = [];
  let bindPanel = false;
  const host = {
    store,
    transferClient: inProcessTransfer,
    meshes: new MeshesController(store),
    maxInfluences: { value: nb },
    notice: {
      show: (title: string, items: readonly string[], actions: readonly { label: string; run(): void }[] = []) =>
        notices.push({ title, items, actions }),
    },
    binding: { selectVertices: (inside: Uint8Array) => selections.push(inside) },
    setBindPanel: (open: boolean) => (bindPanel = open),
  };
  const handler = transferCommands(host)['weights.transferFromMesh'];
  await assert.rejects(async () => handler.run({ from: 'shirt.obj', to: 'shirt.obj' }), /shirt\.obj cannot take weights from itself/);
  assert.equal(store.doc, before, 'a refused transfer changes nothing');

  const result = await handler.run({ from: 'body.obj', to: 1 });
  const expected = weightTransfer(source, made, nb, {}, { locked: paintLocks, weights: weights.subarray(bodyCount * nb) });
  assert.deepEqual(result, { matched: expected.matchedCount, inpainted: expected.inpaintedCount, nearest: 0 }, 'the counts come back');
  const after = store.doc.weights.data;
  assert.deepEqual(after.subarray(0, bodyCount * nb), source.weights, 'the body’s rows stay bit for bit');
  assert.deepEqual(after.subarray(bodyCount * nb), expected.weights, 'the shirt’s rows are the transfer’s');
  for (let v = bodyCount; v < n; v++) assert.equal(after[v * nb + LOCKED], 0.5, `shirt vertex ${v}: the locked bone keeps its weight`);
  assert.equal(history.newest?.label, 'Transfer weights from body.obj to shirt.obj', 'one labelled step');
  assert.match(store.doc.weightsSource, /shirt\.obj: transferred from body\.obj/);
  assert.equal(notices.length, 1, 'one notice');
  assert.equal(notices[0].title, 'Weights transferred from body.obj to shirt.obj');
  assert.match(
    notices[0].items[0],
    new RegExp(`^${expected.matchedCount} vertices matched .* ${expected.inpaintedCount} vertices inpainted`),
  );
  // The notice's action selects the inpainted vertices, on the shirt alone, and opens the Bind panel that shows them.
  assert.deepEqual(
    notices[0].actions.map((a) => a.label),
    ['Select the inpainted vertices'],
  );
  notices[0].actions[0].run();
  assert.ok(bindPanel, 'the Bind panel opens');
  const selected = selections[0];
  assert.equal(selected.length, n);
  for (let v = 0; v < n; v++) {
    const inpainted = v >= bodyCount && expected.status[v - bodyCount] === TRANSFER_INPAINTED;
    assert.equal(selected[v], inpainted ? 1 : 0, `vertex ${v}: selected where inpainted`);
  }
  history.undo();
  assert.equal(store.doc.weights, before.weights, 'undo brings the weights before back');

  // Weights painted while the transfer was computed: its result is stale, and nothing is written.
  const painting = {
    ...inProcessTransfer,
    transfer: async (...args: Parameters<typeof inProcessTransfer.transfer>) => {
      store.edit('Paint stroke', { weights: { ...store.doc.weights, data: store.doc.weights.data.slice() } });
      return inProcessTransfer.transfer(...args);
    },
  };
  const stale = transferCommands({ ...host, transferClient: painting })['weights.transferFromMesh'];
  const painted = (): unknown => store.doc.weights;
  await assert.rejects(
    async () => stale.run({ from: 0, to: 1 }),
    /the scene changed while the weights of body\.obj were carried to shirt\.obj/,
  );
  assert.equal(history.newest?.label, 'Paint stroke', 'no transfer step after the stroke');
  assert.equal(store.doc.weights, painted(), 'the painted weights stay');
});

test('weights.transferFromMesh welds the target by the binding’s weld tolerance', async () => {
  const { source, nb, made, bodyCount, paintLocks, weights, store } = bodyAndShirtScene();
  const tolerances: (number | undefined)[] = [];
  const host = {
    store,
    transferClient: {
      ...inProcessTransfer,
      transfer: (...args: Parameters<typeof inProcessTransfer.transfer>) => {
        tolerances.push(args[0].options.weldTolerance);
        return inProcessTransfer.transfer(...args);
      },
    },
    meshes: new MeshesController(store),
    maxInfluences: { value: nb },
    notice: { show: () => undefined },
    binding: { selectVertices: () => undefined, options: { weldTolerance: 0.004 } },
    setBindPanel: () => undefined,
  };
  await transferCommands(host)['weights.transferFromMesh'].run({ from: 'body.obj', to: 1 });
  assert.deepEqual(tolerances, [0.004], 'the transfer ran with the binding’s weld tolerance');
  const locks = { locked: paintLocks, weights: weights.subarray(bodyCount * nb) };
  const expected = weightTransfer(source, made, nb, { weldTolerance: 0.004 }, locks);
  const exact = weightTransfer(source, made, nb, {}, locks);
  assert.notDeepEqual(expected.weights, exact.weights, 'the tolerance welds more of the shirt than exact welding');
  const rows = store.doc.weights.data.subarray(bodyCount * nb);
  const limited = limitInfluences({ rows: made.positions.length / 3, cols: nb, data: expected.weights }, nb, paintLocks).weights.data;
  assert.deepEqual(rows, limited, 'the shirt’s rows are the transfer welded by the tolerance');
});

test('rigwright run’s registry runs weights.transferFromMesh as the app does: the shirt takes the transfer’s rows, one undo step', async () => {
  const { source, nb, made, bodyCount, weights, paintLocks, history, store } = bodyAndShirtScene();
  const registry = headlessRegistry(store, { maxInfluences: 4 });
  const before = store.doc.weights;
  const result = await registry.execute('weights.transferFromMesh', { from: 'body.obj', to: 'shirt.obj', smooth: false });
  const expected = weightTransfer(
    source,
    made,
    nb,
    { smoothIterations: 0 },
    { locked: paintLocks, weights: weights.subarray(bodyCount * nb) },
  );
  assert.deepEqual(result, { matched: expected.matchedCount, inpainted: expected.inpaintedCount, nearest: 0 }, 'the counts come back');
  // The scene's max influences (4 here) hold for the transferred rows, as in the app.
  const limited = limitInfluences({ rows: made.positions.length / 3, cols: nb, data: expected.weights }, 4, paintLocks).weights.data;
  assert.deepEqual(store.doc.weights.data.subarray(bodyCount * nb), limited, 'the shirt’s rows are the transfer’s, limited to 4 bones');
  assert.deepEqual(store.doc.weights.data.subarray(0, bodyCount * nb), source.weights, 'the body’s rows stay');
  assert.equal(history.newest?.label, 'Transfer weights from body.obj to shirt.obj', 'one labelled step');
  await registry.execute('edit.undo');
  assert.equal(store.doc.weights, before, 'edit.undo takes the transfer back');
  await assert.rejects(
    async () => registry.execute('weights.transferFromMesh', { from: 0, to: 7 }),
    /7/,
    'a mesh the scene does not have is refused, naming it',
  );

  const one = new SceneStore(demoDocument(), new UndoHistory());
  assert.match(
    headlessRegistry(one).refusal('weights.transferFromMesh') ?? '',
    /one mesh/,
    'a scene of one mesh has nothing to transfer from',
  );
});

test('rigwright transfer --project: the body’s weights into a project of it, its locked bone kept, the rest rescaled around it', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-transfer-project-'));
  const data = contextAwareBody();
  const nb = data.boneCount;
  const n = data.mesh.positions.length / 3;
  const LOCKED = 3;
  // The project's own weights: 0.6 on bone 0, 0.4 on the locked bone.
  const own = new Float64Array(n * nb);
  for (let v = 0; v < n; v++) {
    own[v * nb] = 0.6;
    own[v * nb + LOCKED] = 0.4;
  }
  const doc = withDerived({
    name: 'reference.obj',
    meshFiles: ['reference.obj'],
    mesh: data.mesh,
    skeletonFile: 'skeleton.tgf',
    skeleton: data.skeleton,
    weights: { rows: n, cols: nb, data: own },
    weightsSource: 'by hand',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
  const settings = defaultProjectSettings(n, nb);
  settings.paint.locked[LOCKED] = 1;
  const project = path.join(work, 'body.rig.glb');
  writeFileSync(project, await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'body.rig.glb'));
  const weightsFile = path.join(work, 'body-weights.dmat');
  writeFileSync(weightsFile, writeDmatAscii(data.weights));
  const out = path.join(work, 'out.rig.glb');
  const run = await rigwright(
    '--from',
    dataFile('context-aware', 'reference.obj'),
    '--from',
    weightsFile,
    '--from',
    dataFile('context-aware', 'skeleton.tgf'),
    '--to',
    project,
    '--project',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`wrote .*out\\.rig\\.glb: ${n} vertices × ${nb} bones; ${n} matched, 0 inpainted`));
  const read = readProjectFile(new Uint8Array(readFileSync(out)), 'out.rig.glb');
  assert.equal(read.settings.paint.locked[LOCKED], 1, 'the lock is saved');
  const written = read.scene.weights.data;
  const body = data.weights.data;
  let worst = 0;
  for (let v = 0; v < n; v++) {
    assert.equal(written[v * nb + LOCKED], 0.4, `vertex ${v}: the locked bone keeps the project's weight`);
    const unlocked = 1 - body[v * nb + LOCKED];
    for (let b = 0; b < nb; b++) {
      if (b === LOCKED || unlocked === 0) continue;
      worst = Math.max(worst, Math.abs(written[v * nb + b] - (0.6 * body[v * nb + b]) / unlocked));
    }
  }
  assert.ok(worst < 1e-9, `the other bones: the body's own weights, rescaled into 0.6 (worst ${worst})`);
});

test('rigwright transfer --weld-tolerance: the shirt welded by the tolerance, as weightTransfer gives it; a negative one is refused', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-transfer-weld-'));
  const source = body();
  const nb = source.boneCount;
  const shirtFile = path.join(work, 'shirt.obj');
  const { positions, triangles } = shirt(source, 0);
  writeFileSync(shirtFile, writeObj({ positions, triangles }));
  // The shirt as the command reads it back from its OBJ text.
  const made = readObj(readFileSync(shirtFile, 'utf8'), 'shirt.obj').mesh;
  const weightsFile = path.join(work, 'body-weights.dmat');
  writeFileSync(weightsFile, writeDmatAscii({ rows: source.positions.length / 3, cols: nb, data: source.weights }));
  const out = path.join(work, 'shirt.dmat');
  const from = [
    '--from',
    dataFile('context-aware', 'reference.obj'),
    '--from',
    weightsFile,
    '--from',
    dataFile('context-aware', 'skeleton.tgf'),
  ];
  const run = await rigwright(...from, '--to', shirtFile, '--weld-tolerance', '0.004', '--out', out);
  assert.equal(run.status, 0, run.stderr);
  const written = readFileSync(out, 'utf8').trim().split(/\s+/).map(Number);
  const n = made.positions.length / 3;
  const welded = weightTransfer(source, made, nb, { weldTolerance: 0.004 }).weights;
  const exact = weightTransfer(source, made, nb).weights;
  let worstWelded = 0;
  let worstExact = 0;
  for (let v = 0; v < n; v++)
    for (let b = 0; b < nb; b++) {
      // ASCII DMAT: column-major after the header.
      const value = written[2 + b * n + v];
      worstWelded = Math.max(worstWelded, Math.abs(value - welded[v * nb + b]));
      worstExact = Math.max(worstExact, Math.abs(value - exact[v * nb + b]));
    }
  assert.ok(worstWelded < 1e-9, `the rows are the transfer welded within 0.004 (worst ${worstWelded})`);
  assert.ok(worstExact > 1e-6, `and not exact welding's, which keeps more of the shirt apart (differs by ${worstExact})`);
  const negative = await rigwright(...from, '--to', shirtFile, '--weld-tolerance', '-1', '--out', out);
  assert.equal(negative.status, 2, 'a negative tolerance is a bad command line');
  assert.match(negative.stderr, /--weld-tolerance must be a distance ≥ 0, not "-1"/);
});

/** A k × k grid of unit squares in z = 0, two triangles each; weights of two bones varying linearly in x. */
function flatGrid(k: number): { positions: number[]; triangles: number[]; weights: number[] } {
  const positions: number[] = [];
  const weights: number[] = [];
  for (let j = 0; j <= k; j++) {
    for (let i = 0; i <= k; i++) {
      positions.push(i / k, j / k, 0);
      weights.push(1 - i / k, i / k);
    }
  }
  const triangles: number[] = [];
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < k; i++) {
      const a = j * (k + 1) + i;
      triangles.push(a, a + 1, a + k + 2, a, a + k + 2, a + k + 1);
    }
  }
  return { positions, triangles, weights };
}

test('a target whose unmatched vertex has only a zero-area triangle is inpainted with the uniform Laplacian', () => {
  const grid = flatGrid(8);
  const source = {
    positions: Float64Array.from(grid.positions),
    triangles: Uint32Array.from(grid.triangles),
    weights: Float64Array.from(grid.weights),
  };
  const plain = weightTransfer(source, { positions: source.positions, triangles: source.triangles }, 2);
  assert.equal(plain.laplacianUsed, 'cotan', 'the grid itself: cotangents');
  assert.equal(plain.matchedCount, 81, 'the grid onto itself matches everywhere');
  // A vertex on the line of the grid's last bottom edge, 4 units beyond it (far from the source), in one triangle
  // with that edge's ends: zero area, so it has no cotangent weight at all.
  const a = 7;
  const b = 8;
  const v = 81;
  const positions = Float64Array.from([...grid.positions, 5, 0, 0]);
  const triangles = Uint32Array.from([...grid.triangles, a, b, v]);
  const result = weightTransfer(source, { positions, triangles }, 2);
  assert.equal(result.status[v], TRANSFER_INPAINTED, 'the far vertex is inpainted from the grid it hangs on');
  assert.equal(result.inpaintedCount, 1, 'only it');
  assert.equal(result.laplacianUsed, 'uniform', 'the cotangent system is singular there: the uniform one is used');
  const row = [result.weights[2 * v], result.weights[2 * v + 1]];
  assert.ok(
    row.every((w) => Number.isFinite(w) && w >= 0),
    `finite, non-negative weights ${row.join(', ')}`,
  );
  assert.ok(Math.abs(row[0] + row[1] - 1) < 1e-12, `they sum to 1 (${row.join(', ')})`);
  assert.ok(row[1] > row[0], `it takes after its neighbours at x = 7/8 and 1 (${row.join(', ')})`);
});

/**
 * The body as files, as an artist would give them to transfer from: its mesh (.obj), its weights (.dmat, one column
 * per bone in `order`: column c is the body's bone order[c]), its skeleton (.tgf) and, when `names` is given, the
 * file's bone names (.names, one per column).
 */
function bodyFiles(order: readonly number[], names?: readonly string[]): OpenedFile[] {
  const source = body();
  const nb = source.boneCount;
  const n = source.positions.length / 3;
  const columns = new Float64Array(n * order.length);
  for (let v = 0; v < n; v++) for (let c = 0; c < order.length; c++) columns[v * order.length + c] = source.weights[v * nb + order[c]];
  const text = (s: string) => new TextEncoder().encode(s);
  const files: OpenedFile[] = [
    { name: 'body.obj', bytes: new Uint8Array(readFileSync(dataFile('context-aware/reference.obj'))) },
    { name: 'body.dmat', bytes: text(writeDmatAscii({ rows: n, cols: order.length, data: columns })) },
  ];
  if (order.length === nb) files.push({ name: 'body.tgf', bytes: new Uint8Array(readFileSync(dataFile('context-aware/skeleton.tgf'))) });
  if (names) files.push({ name: 'body.names', bytes: text(formatBoneNames(names)) });
  return files;
}

/** The shirt alone as the scene, on the body's skeleton, all on bone 0, its bones named `boneNames` (or none). */
function shirtScene(made: MadeMesh, boneNames?: string[]) {
  const data = contextAwareBody();
  const nb = data.boneCount;
  const n = made.positions.length / 3;
  const weights = new Float64Array(n * nb);
  for (let v = 0; v < n; v++) weights[v * nb] = 1;
  const history = new UndoHistory();
  const store = new SceneStore(
    withDerived({
      name: 'shirt.obj',
      meshFiles: ['shirt.obj'],
      mesh: { positions: made.positions, triangles: made.triangles },
      skeletonFile: 'skeleton.tgf',
      skeleton: data.skeleton,
      weights: { rows: n, cols: nb, data: weights },
      weightsSource: 'bone 0',
      poses: null,
      posesFile: null,
      handles: null,
      handlesFile: null,
      warnings: [],
      ...(boneNames ? { boneNames } : {}),
    }),
    history,
  );
  return { store, history };
}

/** A transfer host on `store` whose file dialog gives `files`; it keeps the notices and the last transfer. */
function fileTransferHost(store: SceneStore, files: () => OpenedFile[]) {
  const notices: { title: string; items: readonly string[] }[] = [];
  const lastTransfer = new LastTransfer(store);
  const meshes = new MeshesController(store);
  const host = {
    store,
    transferClient: inProcessTransfer,
    meshes,
    maxInfluences: { value: 8 },
    notice: { show: (title: string, items: readonly string[]) => notices.push({ title, items }) },
    binding: { selectVertices: () => undefined },
    setBindPanel: () => undefined,
    bridge: { openFiles: () => Promise.resolve(files()) },
    lastTransfer,
  };
  return { notices, lastTransfer, handler: transferCommands(host)['weights.transferFromFile'] };
}

test('weights.transferFromFile: the body’s files onto the shirt, its bones matched by name in another order; the outcome kept per vertex', async () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const n = made.positions.length / 3;
  // The scene calls bone b "b<b>"; the file lists the bones backwards, with their names.
  const sceneNames = Array.from({ length: nb }, (_, b) => `b${b}`);
  const reversed = Array.from({ length: nb }, (_, c) => nb - 1 - c);
  const { store, history } = shirtScene(made, sceneNames);
  const { notices, lastTransfer, handler } = fileTransferHost(store, () =>
    bodyFiles(
      reversed,
      reversed.map((b) => `b${b}`),
    ),
  );
  const result = await handler.run({ smooth: false });
  const expected = weightTransfer(source, made, nb, { smoothIterations: 0 });
  const limited = limitInfluences({ rows: n, cols: nb, data: expected.weights }, 8, null).weights.data;
  assert.deepEqual(
    result,
    {
      file: 'body.obj + body.dmat',
      bonesMatchedBy: 'name',
      matched: expected.matchedCount,
      inpainted: expected.inpaintedCount,
      nearest: 0,
    },
    'the file, the bones matched by name, the counts',
  );
  assert.ok(expected.inpaintedCount > 0 && expected.matchedCount > 0, 'the bulge is inpainted, the rest matched');
  const after = store.doc.weights.data;
  let worst = 0;
  for (let i = 0; i < after.length; i++) worst = Math.max(worst, Math.abs(after[i] - limited[i]));
  assert.ok(worst < 1e-12, `each bone’s column comes from the file’s column of its name (worst difference ${worst})`);
  assert.equal(history.newest?.label, 'Transfer weights from body.obj + body.dmat to shirt.obj', 'one labelled step');
  assert.match(notices[0].items.join('\n'), /Bones matched by name/, 'the notice says how the bones were matched');
  // What the Transfer view colours each vertex by: the transfer's own outcome.
  const record = lastTransfer.record;
  assert.ok(record, 'the transfer is remembered');
  assert.deepEqual(record.status, Int8Array.from(expected.status), 'each vertex’s outcome is the transfer’s');
  assert.deepEqual(record.counts, { matched: expected.matchedCount, inpainted: expected.inpaintedCount, nearest: 0 });
  assert.equal(
    lastTransfer.verticesOf('inpainted')?.reduce((a, b) => a + b, 0),
    expected.inpaintedCount,
    'the inpainted vertices',
  );
  history.undo();
  assert.ok(lastTransfer.record, 'undo keeps the outcome shown until the next transfer or a new scene');
  store.open(store.doc, 'opened again');
  assert.equal(lastTransfer.record, null, 'a new scene has had no transfer');
});

test('weights.transferFromFile: by count where a side names no bones; a file whose bones do not fit is refused naming it; no file chosen changes nothing', async () => {
  const source = body();
  const nb = source.boneCount;
  const made = shirt(source, 0.06);
  const identity = Array.from({ length: nb }, (_, b) => b);

  // The scene names no bones: the file's columns are taken as they are.
  const unnamed = shirtScene(made);
  const byCount = fileTransferHost(unnamed.store, () => bodyFiles(identity, ['x', ...identity.slice(1).map((b) => `y${b}`)]));
  const counted = await byCount.handler.run({ smooth: false });
  assert.equal(counted?.bonesMatchedBy, 'count');
  const expected = weightTransfer(source, made, nb, { smoothIterations: 0 });
  const limited = limitInfluences({ rows: made.positions.length / 3, cols: nb, data: expected.weights }, 8, null).weights.data;
  let worst = 0;
  for (let i = 0; i < limited.length; i++) worst = Math.max(worst, Math.abs(unnamed.store.doc.weights.data[i] - limited[i]));
  assert.ok(worst < 1e-12, `the columns as they are (worst difference ${worst})`);
  assert.match(byCount.notices[0].items.join('\n'), /Bones matched by count \(\d+\): the scene’s bones have no names/);

  // A weight file for one bone fewer, with no skeleton or names: by count, and the counts differ.
  const fewer = shirtScene(made);
  const short = fileTransferHost(fewer.store, () => bodyFiles(identity.slice(0, nb - 1)));
  const before = fewer.store.doc;
  await assert.rejects(
    async () => short.handler.run({}),
    new RegExp(
      `^FormatError: body\\.obj \\+ body\\.dmat: its weights are for ${nb - 1} bones and the scene has ${nb}; bones are matched by count, since the file names no bones`,
    ),
  );
  assert.equal(fewer.store.doc, before, 'nothing changes');

  // A named bone that carries weight in the file and that the scene lacks.
  const sceneNames = identity.map((b) => `b${b}`);
  const named = shirtScene(made, sceneNames);
  const stranger = fileTransferHost(named.store, () => bodyFiles(identity, ['hips', ...sceneNames.slice(1)]));
  await assert.rejects(async () => stranger.handler.run({}), /^FormatError: body\.obj \+ body\.dmat: the scene has no bone named "hips"/);
  assert.equal(named.history.newest, undefined, 'no step');

  // The dialog closed without a file.
  const cancelled = fileTransferHost(named.store, () => []);
  assert.equal(await cancelled.handler.run({}), null, 'null: no file');
  assert.equal(named.history.newest, undefined, 'no step');
  assert.equal(cancelled.lastTransfer.record, null, 'no transfer remembered');
});

test('a project read as a weighted file gives its mesh, weights and bone names', async () => {
  const data = contextAwareBody();
  const nb = data.boneCount;
  const names = Array.from({ length: nb }, (_, b) => `bone_${b}`);
  const doc = withDerived({
    name: 'body.obj',
    meshFiles: ['body.obj'],
    mesh: data.mesh,
    skeletonFile: 'skeleton.tgf',
    skeleton: data.skeleton,
    weights: data.weights,
    weightsSource: 'harmonic',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    boneNames: names,
  });
  const bytes = await writeProjectFile(
    { scene: projectSceneOf(doc), settings: defaultProjectSettings(data.mesh.positions.length / 3, nb) },
    'body.rig.glb',
  );
  const asset = await readWeightedAsset([{ name: 'body.rig.glb', bytes }]);
  assert.equal(asset.file, 'body.rig.glb');
  assert.deepEqual(asset.boneNames, names, 'the project’s bone names');
  assert.deepEqual(asset.mesh.positions, data.mesh.positions, 'its mesh');
  assert.deepEqual(asset.weights.data, data.weights.data, 'its weights, bit for bit');
  await assert.rejects(
    () => readWeightedAsset([{ name: 'a.obj', bytes: new TextEncoder().encode('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n') }]),
    /^FormatError: a\.obj: give a project or a rigged glTF, or one mesh \(\.obj, \.off\) with its weights \(\.dmat\)/,
  );
});

test('a rigged glTF read as a weighted file: the Fox’s joints by name; its columns go to the scene’s bones of those names', async () => {
  const bytes = new Uint8Array(readFileSync(dataFile('gltf/Fox/Fox.glb')));
  const asset = await readWeightedAsset([{ name: 'Fox.glb', bytes }]);
  const { rows, cols, data } = asset.weights;
  assert.equal(asset.file, 'Fox.glb');
  assert.equal(rows, asset.mesh.positions.length / 3, 'a row per vertex');
  const names = asset.boneNames;
  assert.ok(names, 'the glTF names its joints');
  assert.equal(names.length, cols, 'a name per bone');
  // A scene naming the same bones in reverse order takes bone b's column from the file's column of its name.
  const reversed = [...names].reverse();
  const { weights, fit } = fitAssetBones(asset, reversed, cols);
  assert.equal(fit, 'name');
  for (let v = 0; v < rows; v += 97)
    for (let b = 0; b < cols; b++) assert.equal(weights[v * cols + b], data[v * cols + (cols - 1 - b)], `vertex ${v}, bone ${reversed[b]}`);
  // A scene with one bone fewer by name lacks one that carries weight: refused, naming it.
  const weighted = names.findIndex((_, b) => data.some((w, i) => i % cols === b && w > 0));
  const missing = names.filter((_, b) => b !== weighted);
  assert.throws(
    () => fitAssetBones(asset, missing, cols - 1),
    new RegExp(`^FormatError: Fox\\.glb: the scene has no bone named "${names[weighted]}"`),
  );
});
