/**
 * Midpoint (1-to-4) subdivision of a triangle mesh with a per-vertex handle label carried along, as
 * ../shared/ref/subdivide.py makes the benchmarks' larger bodies (without its 7-digit OBJ rounding): each edge gets
 * one new vertex at its middle, labelled like its endpoints when they agree and free (-1) otherwise, and each
 * triangle (a, b, c) becomes (a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca).
 */
import { readFileSync } from 'node:fs';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { dataFile } from './shared-data.ts';

/**
 * The course body (context-aware/reference.obj, its skeleton.tgf and handles.dmat) subdivided `levels` times, the
 * handles carried along: 18,453 vertices at level 0, 73,806 at 1, 295,218 at 2.
 */
export function subdividedCourseBody(levels: number): {
  skeleton: Skeleton;
  positions: Float64Array;
  triangles: Uint32Array;
  handles: Int32Array;
} {
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const { mesh } = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj');
  const handles = handlesFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile('context-aware/handles.dmat'))), 'handles.dmat'),
    mesh.positions.length / 3,
    skeleton.parents.length,
    'handles.dmat',
  );
  return { skeleton, ...midpointSubdivision(mesh.positions, mesh.triangles, handles, levels) };
}

/**
 * @param positions  #V × 3
 * @param triangles  #F × 3
 * @param handles    #V handle label per vertex, -1 for free
 * @param levels     how many times to subdivide
 * @returns the subdivided positions, triangles (4^levels × #F) and handle labels
 */
export function midpointSubdivision(
  positions: Float64Array,
  triangles: Uint32Array,
  handles: Int32Array,
  levels: number,
): { positions: Float64Array; triangles: Uint32Array; handles: Int32Array } {
  let P = positions;
  let F = triangles;
  let H = handles;
  for (let level = 0; level < levels; level++) {
    const n = P.length / 3;
    const faceCount = F.length / 3;
    // An edge's vertex count is at most #V + 3 #F / 2 + boundary edges ≤ #V + 3 #F.
    const nextP = new Float64Array(3 * (n + 3 * faceCount));
    const nextH = new Int32Array(n + 3 * faceCount);
    nextP.set(P);
    nextH.set(H);
    const nextF = new Uint32Array(4 * F.length);
    const middle = new Map<number, number>();
    let count = n;
    const midpoint = (a: number, b: number): number => {
      const key = a < b ? a * n + b : b * n + a;
      let m = middle.get(key);
      if (m === undefined) {
        m = count++;
        middle.set(key, m);
        for (let d = 0; d < 3; d++) nextP[3 * m + d] = (P[3 * a + d] + P[3 * b + d]) / 2;
        nextH[m] = H[a] === H[b] ? H[a] : -1;
      }
      return m;
    };
    for (let f = 0; f < faceCount; f++) {
      const a = F[3 * f],
        b = F[3 * f + 1],
        c = F[3 * f + 2];
      const ab = midpoint(a, b),
        bc = midpoint(b, c),
        ca = midpoint(c, a);
      nextF.set([a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca], 12 * f);
    }
    P = nextP.slice(0, 3 * count);
    H = nextH.slice(0, count);
    F = nextF;
  }
  return { positions: P, triangles: F, handles: H };
}
