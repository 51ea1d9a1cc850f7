/**
 * Blender reads our glTF as we meant it: test/blender/inspect-gltf.py imports an exported arm into Blender
 * (when `blender` is on the PATH) and reports bones, vertex groups, actions and the posed mesh, which must match
 * our bones, one vertex group per bone, the clip, and our CPU linear blend skinning. Blender then exports the
 * scene as GLB, and our importer must read that file into the same bones and posed mesh. Without Blender the test
 * prints one `SKIP blender:` line and is skipped. A run takes about 2–5 s (Blender starts headless, factory settings).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { repoRoot, dataFile } from './shared-data.ts';
import { blenderMissing, blenderReport } from './blender.ts';

const script = path.join(repoRoot, 'test/blender/inspect-gltf.py');

const noBlender = blenderMissing('the glTF-in-Blender check');

interface BlenderReport {
  bones: string[];
  vertexGroups: string[];
  actions: string[];
  rest: number[];
  posed: Record<string, number[]>;
}

test(
  'Blender imports our GLB with our bones, one vertex group per bone, the clip and the same posed mesh; we import the GLB Blender writes back',
  { skip: noBlender ? 'blender is not installed' : false },
  async () => {
    const mesh = readObj(readFileSync(dataFile('libigl', 'arm.obj'), 'utf8'), 'arm.obj').mesh;
    const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('libigl', 'arm.tgf'), 'utf8'), 'arm.tgf'), 'arm.tgf');
    const weights = readDmat(readFileSync(dataFile('libigl', 'arm-weights.dmat')), 'arm-weights.dmat');
    const boneCount = skeleton.parents.length;
    const frameCount = 8;
    const rotations = new Float64Array(9 * boneCount * frameCount);
    for (let f = 0; f < frameCount; f++) {
      for (let b = 0; b < boneCount; b++) {
        const a = 0.5 * Math.sin(f + b);
        rotations.set([Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a)], 9 * (f * boneCount + b));
      }
    }
    const poses: PoseSequence = { kind: 'matrices', boneCount, frameCount, rotations };
    const boneNames = ['upper', 'lower', 'hand', 'finger'];
    const exported = await exportGltf({ mesh, skeleton, weights, boneNames, clips: [{ name: 'wave', poses }], name: 'arm' }, 'arm.glb');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-blender-')), 'arm.glb');
    writeFileSync(file, exported.bytes);

    const frames = [0, 3, 7];
    const blenderFile = path.join(path.dirname(file), 'from-blender.glb');
    const started = performance.now();
    const report = blenderReport<BlenderReport>(script, [file, 'wave', '--export', blenderFile, ...frames.map(String)]);
    console.log(
      `blender: import, ${frames.length} posed frames and GLB export took ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    assert.deepEqual(report.bones.slice().sort(), boneNames.slice().sort());
    assert.deepEqual(report.vertexGroups.slice().sort(), boneNames.slice().sort());
    assert.ok(
      report.actions.some((a) => a.startsWith('wave')),
      `actions: ${report.actions.join(', ')}`,
    );

    // Blender may reorder or merge vertices; match each of its vertices to our nearest rest position.
    const diagonal = boundingBox(mesh.positions).diagonal;
    const match = matchVertices(mesh.positions, report.rest, diagonal, 'Blender');
    assert.ok(match.length >= 0.99 * (mesh.positions.length / 3), `Blender kept ${match.length} of ${mesh.positions.length / 3} vertices`);

    const fromBlender = await importGltf(readFileSync(blenderFile), 'from-blender.glb');
    assert.deepEqual(fromBlender.boneNames.slice().sort(), boneNames.slice().sort());
    assert.equal(fromBlender.weights.cols, boneCount);
    assert.ok(
      fromBlender.clips.some((c) => c.name.startsWith('wave')),
      fromBlender.clips.map((c) => c.name).join(', '),
    );
    const blenderMatch = matchVertices(mesh.positions, fromBlender.mesh.positions, diagonal, 'Blender-written GLB');

    const influences = influencesFromWeights(weights, 4);
    const frameRotations = new Float64Array(9 * boneCount);
    const transforms = new Float64Array(12 * boneCount);
    const expected = new Float64Array(mesh.positions.length);
    for (const f of frames) {
      samplePose(poses, f, frameRotations);
      forwardKinematics(skeleton, frameRotations, transforms);
      linearBlendSkinning(mesh.positions, influences, transforms, expected);
      const posed = report.posed[String(f)];
      let worst = 0;
      match.forEach((v, i) => {
        worst = Math.max(
          worst,
          Math.hypot(posed[3 * i] - expected[3 * v], posed[3 * i + 1] - expected[3 * v + 1], posed[3 * i + 2] - expected[3 * v + 2]),
        );
      });
      assert.ok(worst / diagonal < 1e-4, `frame ${f}: Blender's posed mesh is off by ${worst / diagonal} of the diagonal`);

      // The file Blender wrote, read by our importer, poses the same.
      const back = new Float64Array(fromBlender.mesh.positions.length);
      const clip = fromBlender.clips.find((c) => c.name.startsWith('wave'))!;
      samplePose(clip.poses, f, frameRotations);
      forwardKinematics(fromBlender.skeleton, frameRotations, transforms);
      linearBlendSkinning(fromBlender.mesh.positions, influencesFromWeights(fromBlender.weights, 4), transforms, back);
      let worstBack = 0;
      blenderMatch.forEach((v, i) => {
        worstBack = Math.max(
          worstBack,
          Math.hypot(back[3 * i] - expected[3 * v], back[3 * i + 1] - expected[3 * v + 1], back[3 * i + 2] - expected[3 * v + 2]),
        );
      });
      assert.ok(worstBack / diagonal < 1e-4, `frame ${f}: Blender's GLB imported by us is off by ${worstBack / diagonal} of the diagonal`);
    }
  },
);

/** For each point of `theirs` (#N × 3), the index of the nearest of `ours`, which must lie within 1e-5 of the diagonal. */
function matchVertices(ours: Float64Array, theirs: ArrayLike<number>, diagonal: number, label: string): number[] {
  const cell = 1e-3 * diagonal;
  const grid = new Map<string, number[]>();
  const cellOf = (x: number, y: number, z: number): number[] => [x, y, z].map((c) => Math.floor(c / cell));
  for (let v = 0; v < ours.length / 3; v++) {
    const k = cellOf(ours[3 * v], ours[3 * v + 1], ours[3 * v + 2]).join(',');
    grid.set(k, [...(grid.get(k) ?? []), v]);
  }
  const match: number[] = [];
  for (let i = 0; i < theirs.length; i += 3) {
    const x = theirs[i],
      y = theirs[i + 1],
      z = theirs[i + 2];
    const [cx, cy, cz] = cellOf(x, y, z);
    let best = -1;
    let bestDistance = Infinity;
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++) {
          for (const v of grid.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? []) {
            const d = Math.hypot(ours[3 * v] - x, ours[3 * v + 1] - y, ours[3 * v + 2] - z);
            if (d < bestDistance) [best, bestDistance] = [v, d];
          }
        }
    assert.ok(bestDistance < 1e-5 * diagonal, `${label} vertex ${i / 3} is at no rest position of ours`);
    match.push(best);
  }
  return match;
}
