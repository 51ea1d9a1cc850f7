/**
 * Writes test/fixtures/project-v1.rig.glb: a project file of format 1, kept so that every later version's tests
 * read a file the first version wrote (test/unit/project-file.test.ts checks each field against `fixtureContents`).
 * A few-vertex scene in which every field differs from its default: weights that float32 cannot hold with more than
 * one influence per vertex, two clips (rotation matrices with translations, and final quaternions), handles, bone
 * scales, locks, the per-vertex blend map and every setting.
 *
 *   node --import tsx test/make-project-fixture.ts
 *
 * This file documents format 1: the file was written by this script while the format was 1 (commit e8836af) and
 * stays as that version wrote it — never write it again with a later writer. `fixtureContents` is what format 1
 * held (no examples, no pose-space settings); the tests expect a later reader to give these values plus what the
 * migrations add. Run as a script, it refuses unless the build writes format 1.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PROJECT_FORMAT_VERSION,
  writeProjectFile,
  type ProjectContents,
  type ProjectScene,
  type ProjectSettings,
} from '../workers/formats/project-file.ts';
import { buildSkeleton } from '../workers/rig/skeleton.ts';

export const FIXTURE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'project-v1.rig.glb');
export const FIXTURE_NAME = 'project-v1.rig.glb';

/** What a format 1 project holds: the scene without examples, the settings without the pose-space and binding ones. */
export interface FormatOneContents {
  formatVersion: 1;
  scene: Omit<ProjectScene, 'examples'>;
  settings: Omit<ProjectSettings, 'posespace' | 'binding'>;
}

/** The values the fixture was written from (fresh arrays on each call). */
export function fixtureContents(): FormatOneContents {
  const c = Math.cos(Math.PI / 6);
  const s = Math.sin(Math.PI / 6);
  const identity = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const aboutZ = [c, -s, 0, s, c, 0, 0, 0, 1];
  const walk = {
    kind: 'matrices' as const,
    boneCount: 3,
    frameCount: 2,
    rotations: new Float64Array([...identity, ...identity, ...identity, ...aboutZ, ...identity, ...aboutZ]),
    translations: new Float64Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0, 0, 0, 0, 0, 0, 0.1, 0]),
  };
  const wave = {
    kind: 'quaternions' as const,
    boneCount: 3,
    final: new Float64Array([0, 0, 0, 1, 0, 0, Math.sin(0.3), Math.cos(0.3), 0, 0, 0, 1]),
  };
  return {
    formatVersion: 1,
    scene: {
      name: 'arm.obj',
      meshFiles: ['arm.obj'],
      mesh: {
        positions: new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0.1, 1, 2, -0.1]),
        triangles: new Uint32Array([0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4]),
      },
      skeletonFile: 'arm.tgf',
      skeleton: buildSkeleton(
        { joints: new Float64Array([0.5, 0, 0, 0.5, 1, 0, 0.5, 2, 0, 0.5, 2.5, 0]), bones: new Uint32Array([0, 1, 1, 2, 2, 3]) },
        'arm.tgf',
      ),
      boneNames: ['upper', 'lower', 'hand'],
      weights: {
        rows: 6,
        cols: 3,
        data: new Float64Array([1, 0, 0, 0.9, 0.1, 0, 1 / 3, 1 / 3, 1 / 3, 0.2, 0.7, 0.1, 0, 0.4, 0.6, 0, 1e-7, 1 - 1e-7]),
      },
      weightsSource: 'arm-weights.dmat',
      poses: walk,
      posesFile: 'walk',
      clips: [
        { name: 'walk', poses: walk },
        { name: 'wave', poses: wave },
      ],
      handles: new Int32Array([0, -1, 1, -1, 2, -1]),
      handlesFile: 'arm-handles.dmat',
      boneScales: new Float64Array([1, 1, 1, 1.5, 1, 1, 1, 1, 2]),
      warnings: ['arm.obj: line 3: a note kept from reading'],
    },
    settings: {
      skin: {
        method: 'dqs',
        antipodality: 'per-bone',
        split: 'lbs',
        heatMap: true,
        blend: new Float32Array([0, 0.25, 0.5, 0.75, 1, 0.125]),
      },
      view: { mode: 'heatmap', isoLines: false, wireframe: true, skeleton: false, influences: 3, asExported: false, selectedBone: 1 },
      paint: {
        brush: { mode: 'smooth', radius: 25, strength: 0.6, falloff: 'linear', value: 0.4, spacing: 0.5, throughMesh: true },
        symmetry: 0,
        locked: new Uint8Array([0, 1, 0]),
        maxInfluences: 3,
      },
      export: { format: 'glb', influences: 8, weightComponent: 'unsigned-short' },
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const version: number = PROJECT_FORMAT_VERSION;
  if (version !== 1) throw new Error(`the fixture is format 1; this build writes ${version}: keep the file as it is`);
  // Only reached by a format 1 build, whose contents had exactly these fields.
  const bytes = await writeProjectFile(fixtureContents() as unknown as ProjectContents, FIXTURE_NAME);
  writeFileSync(FIXTURE_PATH, bytes);
  console.log(`${FIXTURE_PATH}: ${bytes.length} bytes`);
}
