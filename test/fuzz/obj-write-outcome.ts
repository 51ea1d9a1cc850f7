/**
 * Fresh exports of OBJ scenes under the fuzzer (format `obj-write`): a mutated OBJ the reader returns a sound mesh
 * for is rigged with the shared skeleton it was made for (libigl's arm.tgf and elephant.tgf; the two-object seed's
 * two bones), weights from each vertex's two nearest bones, its objects, materials (the seed's MTL for the
 * two-object OBJ) and vt/vn, and a clip turning one bone from the rest pose, then written fresh with the input's
 * drawn options. The file must read back soundly with the OBJ's triangles (vertices may split at vt/vn seams), or
 * the export must refuse with a clear error.
 */
import { readFileSync } from 'node:fs';
import { exportGltf, type GltfExportResult, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { objLook, type BatchFile } from '../../workers/formats/obj-materials.ts';
import type { RigFile } from '../../workers/formats/read-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import type { DenseMatrix, TriangleMesh } from '../../workers/formats/types.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { seededRandom } from '../unit/seeded-random.ts';
import { dataFile } from '../unit/shared-data.ts';
import { mtlSeed, seedFormat, type FuzzFormat } from './corpus.ts';
import { classifyError, readOne, type Outcome } from './outcome.ts';
import { emptyTally, outputName, restClip, writtenProblem, type WritePlan, type WriteTally } from './write-outcome.ts';

/** The skeleton each OBJ seed was made for, by the seed's name. */
function skeletonFor(name: string): Skeleton {
  const tgf = name === 'two-objects.obj' ? null : name.replace(/\.obj$/, '.tgf');
  if (!tgf) {
    return buildSkeleton({ joints: Float64Array.from([0, 0, 0, 5, 3, 0, 10, 6, 0]), bones: Uint32Array.from([0, 1, 1, 2]) }, 'two.tgf');
  }
  return buildSkeleton(readTgf(readFileSync(dataFile('libigl', tgf), 'utf8'), tgf), tgf);
}

const skeletons = new Map<string, Skeleton>();

/** Squared distance from point p to the segment a–b (all 3-vectors at offsets into `joints` and `points`). */
function segmentDistance2(points: Float64Array, p: number, joints: Float64Array, a: number, b: number): number {
  let dot = 0;
  let length2 = 0;
  for (let c = 0; c < 3; c++) {
    const d = joints[b + c] - joints[a + c];
    dot += (points[p + c] - joints[a + c]) * d;
    length2 += d * d;
  }
  const t = length2 > 0 ? Math.min(1, Math.max(0, dot / length2)) : 0;
  let distance2 = 0;
  for (let c = 0; c < 3; c++) {
    const x = points[p + c] - (joints[a + c] + t * (joints[b + c] - joints[a + c]));
    distance2 += x * x;
  }
  return distance2;
}

/**
 * #V × #B weights: each vertex on its two nearest bones by distance to their segments, in proportion to 1 / (d² + ε)
 * (ε: 1e-6 of the skeleton's size squared); a vertex so far away that the distances overflow goes wholly to its
 * nearest bone (or bone 0).
 */
export function nearestBoneWeights(mesh: TriangleMesh, skeleton: Skeleton): DenseMatrix {
  const V = mesh.positions.length / 3;
  const B = skeleton.parents.length;
  const data = new Float64Array(V * B);
  let size = 0;
  for (const x of skeleton.joints) size = Math.max(size, Math.abs(x));
  const epsilon = 1e-6 * Math.max(size * size, 1e-12);
  const distance2 = new Float64Array(B);
  for (let v = 0; v < V; v++) {
    let first = 0;
    let second = -1;
    for (let b = 0; b < B; b++) {
      distance2[b] = segmentDistance2(mesh.positions, 3 * v, skeleton.joints, 3 * skeleton.bones[2 * b], 3 * skeleton.bones[2 * b + 1]);
      if (distance2[b] < distance2[first]) [second, first] = [first, b];
      else if (b !== first && (second < 0 || distance2[b] < distance2[second])) second = b;
    }
    const row = v * B;
    const near = 1 / (distance2[first] + epsilon);
    const far = second >= 0 ? 1 / (distance2[second] + epsilon) : 0;
    if (near + far > 0 && Number.isFinite(near + far) && second >= 0) {
      data[row + first] = near / (near + far);
      data[row + second] = far / (near + far);
    } else {
      data[row + first] = 1;
    }
  }
  return { rows: V, cols: B, data };
}

/** The OBJ read as the CLI's export takes it: mesh, normals, the seed's skeleton, weights, parts, look, corners, a clip. */
export function objRig(name: string, file: Extract<RigFile, { kind: 'mesh' }>, plan: WritePlan): GltfRig {
  let skeleton = skeletons.get(name);
  if (!skeleton) skeletons.set(name, (skeleton = skeletonFor(name)));
  const random = seededRandom(plan.seed);
  const B = skeleton.parents.length;
  const libraries = file.materialLibraries ?? [];
  const materialFiles: BatchFile[] = libraries.includes('parts.mtl')
    ? [{ name: 'parts.mtl', bytes: new TextEncoder().encode(mtlSeed()) }]
    : [];
  const look = objLook([{ name, materials: file.materials ?? [], materialLibraries: libraries, parts: file.parts ?? null }], materialFiles);
  const axis = [random() - 0.5, random() - 0.5, random() - 0.5];
  const length = Math.hypot(...axis) || 1;
  return {
    mesh: file.mesh,
    normals: vertexNormals(file.mesh.positions, file.mesh.triangles),
    skeleton,
    weights: nearestBoneWeights(file.mesh, skeleton),
    clips:
      plan.edit === 'no clips'
        ? []
        : [
            restClip(
              B,
              Math.floor(random() * B),
              axis.map((c) => c / length),
              0.2 + random(),
            ),
          ],
    name: name.replace(/\.obj$/, ''),
    ...(look.parts[0] ? { parts: look.parts[0] } : {}),
    ...(look.look ? { look: look.look } : {}),
    ...(file.corners ? { objCorners: file.corners } : {}),
  };
}

/**
 * Writes an OBJ scene the reader returned fresh (see the module comment) and classifies how that ended: 'result'
 * when the file was written and read back or refused clearly, else the failure.
 */
export async function runObjWrite(
  name: string,
  file: Extract<RigFile, { kind: 'mesh' }>,
  plan: WritePlan,
): Promise<Outcome & { exports: WriteTally }> {
  const out = outputName(name.replace(/\.obj$/, '.glb'), plan.format);
  const label = `fresh export (${plan.format}, ${plan.influences} influences, ${plan.weightComponent} weights, compression ${plan.compression})`;
  let result: GltfExportResult;
  try {
    result = await exportGltf(objRig(name, file, plan), out, {
      format: plan.format,
      influences: plan.influences,
      weightComponent: plan.weightComponent,
      compression: plan.compression,
    });
  } catch (error) {
    const outcome = classifyError(error, out);
    if (outcome.kind !== 'clear error') return { ...outcome, detail: `${label}: ${outcome.detail}`, exports: emptyTally() };
    return { kind: 'result', detail: '', exports: { ...emptyTally(), refused: { 'no-op': 0, edit: 0, fresh: 1 } } };
  }
  const triangles = plan.compression === 'none' ? file.mesh.triangles.length / 3 : null;
  const problem = await writtenProblem(result, out, triangles === null ? null : { triangles });
  if (problem) return { kind: 'bad output', detail: `${label}: ${problem}`, exports: emptyTally() };
  return { kind: 'result', detail: '', exports: { ...emptyTally(), written: 1 } };
}

/** One input of `obj-write`: read as an OBJ is (readOne), and when that gives a sound mesh, written fresh (runObjWrite). */
export async function runObjWriteOne(
  format: FuzzFormat,
  name: string,
  bytes: Uint8Array,
  plan: WritePlan,
): Promise<Outcome & { exports?: WriteTally }> {
  const read = await readOne(seedFormat(format), name, bytes, undefined, undefined);
  const file = read.value as RigFile | undefined;
  if (read.outcome.kind !== 'result' || file?.kind !== 'mesh') return read.outcome;
  try {
    return await runObjWrite(name, file, plan);
  } catch (error) {
    return { kind: 'other exception', detail: `writing the mesh read: ${classifyError(error, name).detail}` };
  }
}
