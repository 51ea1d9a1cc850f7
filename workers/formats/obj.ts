/**
 * Wavefront OBJ meshes: geometry only. `v` positions, `f` faces (fan-triangulated); `vt` and `vn` are counted
 * but not kept, since skinning needs positions and connectivity and recomputes normals.
 */
import { FormatError } from './format-error.ts';
import { TextScanner, describeNonFinite, exactNumberText, excerpt } from './text-scanner.ts';
import type { MeshFileReport, TriangleMesh } from './types.ts';

const SPACE = 32;
const TAB = 9;
const CR = 13;
const LF = 10;
const HASH = 35;
const SLASH = 47;
const LOWER_F = 102;
const LOWER_N = 110;
const LOWER_T = 116;
const LOWER_V = 118;

/** Records that carry nothing a rig needs (groups, materials, smoothing, lines, free-form geometry). */
const IGNORED_RECORDS = new Set([
  'o',
  'g',
  's',
  'l',
  'p',
  'vp',
  'usemtl',
  'mtllib',
  'usemap',
  'maplib',
  'shadow_obj',
  'trace_obj',
  'mg',
  'bevel',
  'c_interp',
  'd_interp',
  'lod',
  'cstype',
  'deg',
  'bmat',
  'step',
  'curv',
  'curv2',
  'surf',
  'parm',
  'trim',
  'hole',
  'scrv',
  'sp',
  'end',
  'con',
  'call',
  'csh',
]);

const AXES = ['x', 'y', 'z'];
/** Unknown record kinds named in warnings; a damaged file with thousands of them gets no more. */
const MAX_UNKNOWN_RECORD_WARNINGS = 20;

/**
 * Reads an OBJ file.
 * @param text the file's text
 * @param file file name for error messages
 * @returns mesh: positions #V × 3, triangles #F × 3 (0-based, fan-triangulated polygons keep their corner order);
 *          report: polygons triangulated, `vt`/`vn` counts, warnings (unknown records, no faces)
 * @throws FormatError naming the line for: a vertex with fewer than 3 coordinates (mentioning truncation when the
 *         file ends inside the line), a non-numeric, NaN or infinite coordinate, a face with fewer than 3 corners,
 *         a vertex index that is 0, non-integer or refers to a vertex not defined before the face; and for a file
 *         without vertices
 */
export function readObj(text: string, file: string): { mesh: TriangleMesh; report: MeshFileReport } {
  const scanner: TextScanner = new TextScanner(text, file);
  let vertexCapacity = Math.max(1024, Math.ceil(text.length / 64));
  let positions = new Float64Array(vertexCapacity * 3);
  let vertexCount = 0;
  let triangleCapacity = vertexCapacity * 2;
  let triangles = new Uint32Array(triangleCapacity * 3);
  let triangleCount = 0;
  let polygonsTriangulated = 0;
  let texcoords = 0;
  let normals = 0;
  const warnings: string[] = [];
  const unknownRecords = new Set<string>();

  while (!scanner.atEnd()) {
    if (!scanner.hasToken()) {
      scanner.nextLine();
      continue;
    }
    const pos = scanner.pos;
    const first = text.charCodeAt(pos);
    const second = pos + 1 < text.length ? text.charCodeAt(pos + 1) : SPACE;
    const third = pos + 2 < text.length ? text.charCodeAt(pos + 2) : SPACE;
    if (first === LOWER_V && (second === SPACE || second === TAB)) {
      if (vertexCount === vertexCapacity) {
        vertexCapacity *= 2;
        const grown = new Float64Array(vertexCapacity * 3);
        grown.set(positions);
        positions = grown;
      }
      scanner.pos = pos + 1;
      const base = vertexCount * 3;
      for (let axis = 0; axis < 3; axis++) {
        if (!scanner.hasToken()) scanner.failShort(`vertex has ${axis} coordinate${axis === 1 ? '' : 's'}, needs 3 (x y z)`);
        const value = scanner.number(`vertex ${AXES[axis]} coordinate`);
        if (!Number.isFinite(value)) scanner.fail(`vertex ${AXES[axis]} coordinate ${describeNonFinite(value)}`);
        positions[base + axis] = value;
      }
      vertexCount++;
    } else if (first === LOWER_F && (second === SPACE || second === TAB)) {
      scanner.pos = pos + 1;
      let corners = 0;
      let firstCorner = 0;
      let previousCorner = 0;
      while (scanner.hasToken(true)) {
        const index = scanner.integer('vertex index', true);
        while (scanner.peek() === SLASH) {
          scanner.pos++;
          const c = scanner.peek();
          if (c !== SLASH && c !== SPACE && c !== TAB && c !== -1 && c !== CR && c !== LF) {
            scanner.integer('texture or normal index', true);
          }
        }
        let corner: number;
        if (index > 0) {
          if (index > vertexCount) {
            scanner.fail(`vertex index ${index} is out of range: only ${vertexCount} vertices are defined before this face`);
          }
          corner = index - 1;
        } else if (index < 0) {
          if (-index > vertexCount) {
            scanner.fail(
              `relative vertex index ${index} reaches before the first vertex: only ${vertexCount} vertices are defined before this face`,
            );
          }
          corner = vertexCount + index;
        } else {
          scanner.fail('vertex index 0 is invalid: OBJ indices start at 1 (or count back from -1)');
        }
        if (corners === 0) {
          firstCorner = corner;
        } else if (corners >= 2) {
          if (triangleCount === triangleCapacity) {
            triangleCapacity *= 2;
            const grown = new Uint32Array(triangleCapacity * 3);
            grown.set(triangles);
            triangles = grown;
          }
          const t = triangleCount * 3;
          triangles[t] = firstCorner;
          triangles[t + 1] = previousCorner;
          triangles[t + 2] = corner;
          triangleCount++;
        }
        previousCorner = corner;
        corners++;
      }
      if (corners < 3) scanner.failShort(`face has ${corners} corner${corners === 1 ? '' : 's'}, needs at least 3`);
      if (corners > 3) polygonsTriangulated++;
    } else if (first === LOWER_V && second === LOWER_T && (third === SPACE || third === TAB)) {
      texcoords++;
    } else if (first === LOWER_V && second === LOWER_N && (third === SPACE || third === TAB)) {
      normals++;
    } else if (first !== HASH) {
      const keyword = scanner.peekToken();
      if (!IGNORED_RECORDS.has(keyword) && !unknownRecords.has(keyword) && unknownRecords.size < MAX_UNKNOWN_RECORD_WARNINGS) {
        unknownRecords.add(keyword);
        warnings.push(`line ${scanner.line}: unknown record '${excerpt(keyword)}' ignored`);
      }
    }
    scanner.nextLine();
  }

  if (vertexCount === 0) throw new FormatError(file, '', "no vertices: the file has no 'v' lines");
  if (triangleCount === 0) warnings.push("no faces: the file has no 'f' lines");
  return {
    mesh: { positions: positions.slice(0, vertexCount * 3), triangles: triangles.slice(0, triangleCount * 3) },
    report: { polygonsTriangulated, texcoords, normals, warnings },
  };
}

/**
 * Writes an OBJ with `v` and `f` lines only (1-based), coordinates with the fewest digits that read back to
 * the identical doubles.
 * @param mesh positions #V × 3, triangles #F × 3 (0-based)
 * @returns the file text
 */
export function writeObj(mesh: TriangleMesh): string {
  const { positions, triangles } = mesh;
  const vertexCount = positions.length / 3;
  const triangleCount = triangles.length / 3;
  const lines = new Array<string>(vertexCount + triangleCount + 1);
  let k = 0;
  for (let v = 0; v < vertexCount; v++) {
    lines[k++] = `v ${exactNumberText(positions[3 * v])} ${exactNumberText(positions[3 * v + 1])} ${exactNumberText(positions[3 * v + 2])}`;
  }
  for (let f = 0; f < triangleCount; f++) {
    lines[k++] = `f ${triangles[3 * f] + 1} ${triangles[3 * f + 1] + 1} ${triangles[3 * f + 2] + 1}`;
  }
  lines[k] = '';
  return lines.join('\n');
}
