/**
 * The context-aware body of the shared data (`context-aware/`, see its PROVENANCE.md): rest mesh, skeleton, harmonic
 * weights from its handles, the 394-frame pose sequence and the four examples eg0…eg3 with their poses. Loaded once.
 */
import { readFileSync } from 'node:fs';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import type { DenseMatrix, TriangleMesh } from '../../workers/formats/types.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { dataFile } from './shared-data.ts';

export interface ContextAwareExample {
  name: string;
  mesh: TriangleMesh;
  /** #B × 9 relative rotations */
  pose: Float64Array;
}

export interface ContextAwareBody {
  mesh: TriangleMesh;
  skeleton: Skeleton;
  boneCount: number;
  handles: Int32Array;
  /** #V × #B harmonic weights from handles.dmat */
  weights: DenseMatrix;
  /** all_frames.dmat, 394 frames */
  frames: Extract<PoseSequence, { kind: 'matrices' }>;
  examples: ContextAwareExample[];
  /** the frames of all_frames.dmat that eg0…eg3 were posed at (PROVENANCE.md) */
  exampleFrames: readonly number[];
}

let cached: ContextAwareBody | null = null;

function matrices(file: string, boneCount: number): Extract<PoseSequence, { kind: 'matrices' }> {
  const seq = poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(file)), file), boneCount, file);
  if (seq.kind !== 'matrices') throw new Error(`${file}: expected rotation matrices`);
  return seq;
}

export function contextAwareBody(): ContextAwareBody {
  if (cached) return cached;
  const mesh = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const boneCount = skeleton.parents.length;
  const n = mesh.positions.length / 3;
  const handlesFileName = dataFile('context-aware/handles.dmat');
  const handles = handlesFromDmat(readDmat(new Uint8Array(readFileSync(handlesFileName)), 'handles.dmat'), n, boneCount, 'handles.dmat');
  const { weights } = harmonicWeights(mesh.positions, mesh.triangles, handles, boneCount);
  const frames = matrices(dataFile('context-aware/all_frames.dmat'), boneCount);
  const examples = [0, 1, 2, 3].map((j) => ({
    name: `eg${j}`,
    mesh: readObj(readFileSync(dataFile(`context-aware/eg${j}.obj`), 'utf8'), `eg${j}.obj`).mesh,
    pose: matrices(dataFile(`context-aware/eg${j}.dmat`), boneCount).rotations,
  }));
  cached = {
    mesh,
    skeleton,
    boneCount,
    handles,
    weights: { rows: n, cols: boneCount, data: weights },
    frames,
    examples,
    exampleFrames: [34, 56, 87, 80],
  };
  return cached;
}
