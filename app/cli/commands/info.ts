/**
 * `rigwright info`: what each file holds and what is wrong with it; given together, matrices are also checked
 * against the one mesh and the one skeleton among the files.
 */
import { dmatFits, dmatReadings, type DmatReading, type DmatRole } from '../../../workers/formats/dmat-role.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { poseSequenceFromDmat } from '../../../workers/formats/pose-file.ts';
import { readRigFile } from '../../../workers/formats/read-file.ts';
import type { DenseMatrix, MeshFileReport, TriangleMesh } from '../../../workers/formats/types.ts';
import { handlesFromDmat, weightsFromDmat } from '../../../workers/formats/weights-file.ts';
import { boundingBox } from '../../../workers/mesh/bounds.ts';
import { buildSkeleton, type Skeleton } from '../../../workers/rig/skeleton.ts';
import { formatNumber, readBytes, UsageError, type CliCommand } from '../cli-support.ts';

export const infoCommand: CliCommand = {
  name: 'info',
  summary: 'what each file holds (counts, hierarchy, bounds) and what is wrong with it',
  usage: `Usage: rigwright info FILE…

Reports for each file what it holds: a mesh (vertices, triangles, bounds), a skeleton (joints, bones, parents,
roots, bounds) or a DMAT matrix (rows × cols and what it can be: weights, poses or handles), and what is wrong
with it. Given together, files are also checked against each other: weights and handles against the mesh and
skeleton, poses against the skeleton (when exactly one of each is given).
Exits with 1 when any file is bad, after reporting all of them.

  -h, --help       this help
`,
  options: {},
  allowPositionals: true,

  run({ positionals }, { stdout, stderr }) {
    if (positionals.length === 0) throw new UsageError('no files given');

    const entries = positionals.map(readInfoEntry);
    const context: InfoContext = {};
    const meshes = entries.filter((e) => e.kind === 'mesh');
    const skeletons = entries.filter((e) => e.kind === 'skeleton');
    if (meshes.length === 1) context.mesh = { file: meshes[0].file, vertexCount: meshes[0].mesh.positions.length / 3 };
    if (skeletons.length === 1) context.skeleton = { file: skeletons[0].file, boneCount: skeletons[0].skeleton.parents.length };

    let bad = 0;
    for (const entry of entries) {
      let heading: string = entry.kind;
      let lines: string[] = [];
      let error = entry.kind === 'unreadable' ? entry.error : undefined;
      if (entry.kind === 'mesh') lines = describeMesh(entry.mesh, entry.report);
      if (entry.kind === 'skeleton') lines = describeSkeleton(entry.skeleton);
      if (entry.kind === 'matrix') {
        const m = entry.matrix;
        heading = `matrix ${m.rows} × ${m.cols}`;
        const readings = dmatReadings(m);
        lines =
          readings.length > 0
            ? readings.map((r) => `could be ${describeReading(r)}`)
            : ['fits nothing Rigwright reads (weights #V × #B, poses 3·B·L × 3 or 4B × 1, handles #V × 1)'];
        try {
          lines.push(...checkAgainstContext(m, entry.file, readings, context));
        } catch (failure) {
          if (!(failure instanceof FormatError)) throw failure;
          error = failure;
        }
      }
      if (error) {
        bad++;
        stderr.write(`rigwright: ${error.message}\n`);
        lines.push(`error: ${error.message}`);
      }
      stdout.write(`${entry.file}: ${heading}\n${lines.map((line) => `  ${line}\n`).join('')}`);
    }
    if (bad > 0) stdout.write(`bad files: ${bad} of ${entries.length}\n`);
    return bad > 0 ? 1 : 0;
  },
};

/** A file read for `info`, with what it is for the cross-checks. */
type InfoEntry =
  | { file: string; kind: 'unreadable'; error: FormatError }
  | { file: string; kind: 'mesh'; mesh: TriangleMesh; report: MeshFileReport }
  | { file: string; kind: 'skeleton'; skeleton: Skeleton }
  | { file: string; kind: 'matrix'; matrix: DenseMatrix };

function readInfoEntry(file: string): InfoEntry {
  try {
    const read = readRigFile(file, readBytes(file));
    switch (read.kind) {
      case 'mesh':
        return { file, kind: 'mesh', mesh: read.mesh, report: read.report };
      case 'skeleton':
        return { file, kind: 'skeleton', skeleton: buildSkeleton(read.skeleton, file) };
      case 'matrix':
        return { file, kind: 'matrix', matrix: read.matrix };
    }
  } catch (error) {
    if (error instanceof FormatError) return { file, kind: 'unreadable', error };
    throw error;
  }
}

function describeReading(reading: DmatReading): string {
  switch (reading.role) {
    case 'poses':
      return reading.layout === 'rotation-matrices'
        ? `rotation-matrix poses: ${reading.rotationCount} rotations = bones × frames`
        : `final-pose quaternions (x y z w) for ${reading.boneCount} bones`;
    case 'handles':
      return `handles for ${reading.vertexCount} vertices: bones 0–${reading.largestBone}, ${reading.freeVertexCount} vertices without a handle`;
    case 'weights':
      return `skinning weights for ${reading.vertexCount} vertices × ${reading.boneCount} bones (rows sum to 1)`;
  }
}

/** The only mesh and the only skeleton given to `info`, used to check matrices against them. */
interface InfoContext {
  mesh?: { file: string; vertexCount: number };
  skeleton?: { file: string; boneCount: number };
}

/** Whether the files given hold what a reading is checked against: poses a skeleton, handles a mesh, weights both. */
function canCheck(role: DmatRole, context: InfoContext): boolean {
  if (role === 'poses') return context.skeleton !== undefined;
  if (role === 'weights') return context.skeleton !== undefined && context.mesh !== undefined;
  return context.mesh !== undefined;
}

/**
 * Checks a matrix against the mesh and skeleton given alongside it, using the same readers the app uses.
 * @returns lines to report; throws FormatError when the matrix is meant for them (by its shape and values) but fits
 *          neither
 */
function checkAgainstContext(m: DenseMatrix, file: string, readings: DmatReading[], context: InfoContext): string[] {
  const checkable = readings.filter((r) => canCheck(r.role, context));
  if (checkable.length === 0) return [];
  const vertexCount = context.mesh?.vertexCount ?? 0;
  const boneCount = context.skeleton?.boneCount ?? 0;
  const chosen = checkable.find((r) => dmatFits(m, r.role, vertexCount, boneCount)) ?? checkable[0];
  const skeleton = context.skeleton;
  const mesh = context.mesh;
  switch (chosen.role) {
    case 'poses': {
      const seq = poseSequenceFromDmat(m, skeleton!.boneCount, file);
      return [
        seq.kind === 'matrices'
          ? `fits ${skeleton!.file}: ${seq.frameCount} frames of ${seq.boneCount} bones`
          : `fits ${skeleton!.file}: final pose of ${seq.boneCount} bones`,
      ];
    }
    case 'weights': {
      const { warnings } = weightsFromDmat(m, mesh!.vertexCount, skeleton!.boneCount, file);
      return [`fits ${mesh!.file} and ${skeleton!.file} as skinning weights`, ...warnings.map((w) => `warning: ${w}`)];
    }
    case 'handles': {
      // Without a skeleton, any bone index is accepted; the shape check against the mesh still applies.
      handlesFromDmat(m, mesh!.vertexCount, skeleton?.boneCount ?? Number.MAX_SAFE_INTEGER, file);
      return [`fits ${mesh!.file}${skeleton ? ` and ${skeleton.file}` : ''} as handles`];
    }
  }
}

function describeMesh(mesh: TriangleMesh, report: MeshFileReport): string[] {
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = mesh.triangles.length / 3;
  const lines = [`${vertexCount} vertices, ${triangleCount} triangles`, boundsLine(mesh.positions)];
  if (report.polygonsTriangulated > 0) lines.push(`${report.polygonsTriangulated} polygons triangulated`);
  if (report.texcoords > 0 || report.normals > 0)
    lines.push(`${report.texcoords} texture coordinates, ${report.normals} normals (ignored)`);
  const used = new Uint8Array(vertexCount);
  let degenerate = 0;
  for (let f = 0; f < triangleCount; f++) {
    const a = mesh.triangles[3 * f],
      b = mesh.triangles[3 * f + 1],
      c = mesh.triangles[3 * f + 2];
    used[a] = used[b] = used[c] = 1;
    if (a === b || b === c || a === c) degenerate++;
  }
  const unused = vertexCount - used.reduce((sum, u) => sum + u, 0);
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  if (unused > 0) lines.push(`warning: ${unused} vertices are used by no triangle`);
  if (degenerate > 0) lines.push(`warning: ${degenerate} triangles repeat a vertex`);
  return lines;
}

function describeSkeleton(skeleton: Skeleton): string[] {
  const boneCount = skeleton.parents.length;
  const roots: number[] = [];
  for (let b = 0; b < boneCount; b++) if (skeleton.parents[b] < 0) roots.push(b);
  return [
    `${skeleton.joints.length / 3} joints, ${boneCount} bones, ${roots.length} root${roots.length === 1 ? '' : 's'} (bone${roots.length === 1 ? '' : 's'} ${roots.join(', ')})`,
    `parents (bone → parent bone, -1 = root): ${Array.from(skeleton.parents).join(' ')}`,
    boundsLine(skeleton.joints),
  ];
}

function formatPoint(p: ArrayLike<number>): string {
  return `(${formatNumber(p[0], 6)}, ${formatNumber(p[1], 6)}, ${formatNumber(p[2], 6)})`;
}

function boundsLine(positions: Float64Array): string {
  const box = boundingBox(positions);
  return `bounds ${formatPoint(box.min)} to ${formatPoint(box.max)}, diagonal ${formatNumber(box.diagonal, 6)}`;
}
