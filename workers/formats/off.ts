/**
 * Object File Format meshes (ASCII): a header keyword (`OFF`, or a variant such as `COFF`/`NOFF`/`CNOFF` whose
 * extra per-vertex colour or normal columns are ignored), the counts `vertices faces edges`, one vertex per line,
 * then one face per line as `n i0 … i(n−1)` with 0-based indices. `#` starts a comment anywhere.
 */
import { FormatError } from './format-error.ts';
import { TextScanner, describeNonFinite, excerpt, withNewlines } from './text-scanner.ts';
import type { MeshFileReport, TriangleMesh } from './types.ts';

const OFF_KEYWORD = /^(ST)?C?N?(4)?(n)?OFF$/;
const AXES = ['x', 'y', 'z'];
/** Fewest characters of a vertex line (`0 0 0` and its line break) and of a face line (`3 0 1 2` and its break). */
const MIN_VERTEX_LINE = 6;
const MIN_FACE_LINE = 8;

/** Moves to the next line with content (skipping blank and comment lines); false at the end of the text. */
function toContent(scanner: TextScanner): boolean {
  while (!scanner.atEnd()) {
    if (scanner.hasToken(true)) return true;
    scanner.nextLine();
  }
  return false;
}

/**
 * Reads an ASCII OFF file.
 * @param source the file's text (any of the three line ends)
 * @param file file name for error messages
 * @returns mesh: positions #V × 3, triangles #F × 3 (0-based, polygons fan-triangulated in corner order);
 *          report: polygons triangulated, warnings (content after the announced faces)
 * @throws FormatError naming the line for: a missing or unsupported header (binary OFF, 4D, nOFF), bad counts,
 *         a file that ends before the announced vertices or faces, a vertex with fewer than 3 coordinates or a
 *         non-numeric, NaN or infinite one, a face with fewer than 3 corners or an index outside 0..#V−1
 */
export function readOff(source: string, file: string): { mesh: TriangleMesh; report: MeshFileReport } {
  // The counts are checked against the file's length: one line break, one character.
  const text = withNewlines(source);
  const scanner: TextScanner = new TextScanner(text, file);
  if (!toContent(scanner)) throw new FormatError(file, '', "the file is empty (expected the header 'OFF')");
  const keyword = scanner.peekToken();
  const match = OFF_KEYWORD.exec(keyword);
  if (!match) scanner.fail(`expected the header 'OFF', found '${excerpt(keyword)}'`);
  if (match[2] || match[3]) scanner.fail(`'${excerpt(keyword)}' files (not 3-dimensional) are not supported`);
  scanner.pos += keyword.length;
  if (scanner.hasToken(true) && scanner.peekToken().toUpperCase() === 'BINARY') {
    scanner.fail('binary OFF files are not supported; save the mesh as ASCII OFF or OBJ');
  }
  if (!scanner.hasToken(true)) {
    scanner.nextLine();
    if (!toContent(scanner)) scanner.failShort("the header 'OFF' is not followed by the counts 'vertices faces edges'");
  }
  const vertexCount = scanner.integer('vertex count');
  if (!scanner.hasToken(true)) scanner.failShort("the counts line needs 'vertices faces edges'; the face count is missing");
  const faceCount = scanner.integer('face count');
  if (vertexCount < 0 || faceCount < 0) scanner.fail(`counts cannot be negative (${vertexCount} vertices, ${faceCount} faces)`);
  if (vertexCount === 0) scanner.fail('the header announces 0 vertices');
  // Each vertex and face needs a line of its own: reject impossible counts.
  if (vertexCount + faceCount > text.length) {
    scanner.fail(
      `the header announces ${vertexCount} vertices and ${faceCount} faces, more than a file of ${text.length} characters can hold`,
    );
  }
  scanner.nextLine();

  // Arrays are sized by what the text can hold, not by the header alone (a truncated file reports itself below).
  const positions = new Float64Array(3 * Math.min(vertexCount, Math.floor(text.length / MIN_VERTEX_LINE) + 1));
  for (let v = 0; v < vertexCount; v++) {
    if (!toContent(scanner)) {
      throw new FormatError(
        file,
        `line ${scanner.line}`,
        `the file ends after ${v} of the ${vertexCount} vertices announced by its header; it looks truncated`,
      );
    }
    for (let axis = 0; axis < 3; axis++) {
      if (!scanner.hasToken(true)) scanner.failShort(`vertex ${v} has ${axis} coordinate${axis === 1 ? '' : 's'}, needs 3 (x y z)`);
      const value = scanner.number(`vertex ${v} ${AXES[axis]} coordinate`);
      if (!Number.isFinite(value)) scanner.fail(`vertex ${v} ${AXES[axis]} coordinate ${describeNonFinite(value)}`);
      positions[3 * v + axis] = value;
    }
    scanner.nextLine();
  }

  let triangleCapacity = Math.min(faceCount, Math.floor(text.length / MIN_FACE_LINE) + 1);
  let triangles = new Uint32Array(triangleCapacity * 3);
  let triangleCount = 0;
  let polygonsTriangulated = 0;
  for (let f = 0; f < faceCount; f++) {
    if (!toContent(scanner)) {
      throw new FormatError(
        file,
        `line ${scanner.line}`,
        `the file ends after ${f} of the ${faceCount} faces announced by its header; it looks truncated`,
      );
    }
    const corners = scanner.integer(`face ${f} corner count`);
    if (corners < 3) scanner.fail(`face ${f} has ${corners} corner${corners === 1 ? '' : 's'}, needs at least 3`);
    // Each corner index takes at least one character: no allocation from an impossible count.
    if (corners > scanner.length - scanner.pos) {
      scanner.fail(
        `face ${f} announces ${corners} corners, more than the ${scanner.length - scanner.pos} characters left in the file can hold`,
      );
    }
    if (corners > 3) polygonsTriangulated++;
    if (triangleCount + corners - 2 > triangleCapacity) {
      triangleCapacity = Math.max(triangleCapacity * 2, triangleCount + corners - 2);
      const grown = new Uint32Array(triangleCapacity * 3);
      grown.set(triangles);
      triangles = grown;
    }
    let firstCorner = 0;
    let previousCorner = 0;
    for (let k = 0; k < corners; k++) {
      if (!scanner.hasToken(true)) scanner.failShort(`face ${f} announces ${corners} corners but lists ${k}`);
      const corner = scanner.integer(`face ${f} vertex index`);
      if (corner < 0 || corner >= vertexCount) {
        scanner.fail(`face ${f} names vertex ${corner}, but vertices are numbered 0 to ${vertexCount - 1}`);
      }
      if (k === 0) {
        firstCorner = corner;
      } else if (k >= 2) {
        const t = triangleCount * 3;
        triangles[t] = firstCorner;
        triangles[t + 1] = previousCorner;
        triangles[t + 2] = corner;
        triangleCount++;
      }
      previousCorner = corner;
    }
    scanner.nextLine();
  }

  const warnings: string[] = [];
  if (toContent(scanner)) {
    warnings.push(`line ${scanner.line}: content after the ${faceCount} faces announced by the header was ignored`);
  }
  return {
    mesh: { positions, triangles: triangleCount === triangles.length / 3 ? triangles : triangles.slice(0, triangleCount * 3) },
    report: { polygonsTriangulated, texcoords: 0, normals: 0, warnings },
  };
}
