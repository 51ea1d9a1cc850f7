/**
 * Wavefront OBJ meshes: `v` positions, `f` faces (fan-triangulated), `vt` texture coordinates and `vn` normals per
 * face corner (ObjCorners), and the objects (`o`) or groups (`g`) as meshes of the scene (MeshPart).
 *
 * The rig's vertices are the `v` records in file order: weights, handles and example files index them, so they are
 * never reordered. A part is a contiguous range of those vertices, so the objects of a file become parts when their
 * faces use disjoint, consecutive blocks of `v` records, as Blender, Maya and 3ds Max write them. The part of a face
 * is its latest `o` name when the file has `o` records (groups inside an object are material or smoothing sets that
 * share its vertices), else its latest `g` name. Objects whose vertex blocks overlap or interleave are merged into
 * one part named after all of them (with a warning), so every part stays one range. Faces are stably sorted by part
 * (no change for a file whose objects come one after the other). `usemtl` gives the faces after it their material
 * (named by first use in ObjFile.materials; the `mtllib` files are listed for the loader, which reads them, see
 * mtl.ts): an object with several materials on disjoint vertex blocks becomes a part per material.
 */
import { baseName } from './file-name.ts';
import { FormatError } from './format-error.ts';
import { TextScanner, describeNonFinite, exactNumberText, excerpt } from './text-scanner.ts';
import type { MeshFileReport, MeshPart, ObjCorners, TriangleMesh } from './types.ts';

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

/** Records that carry nothing a rig needs (materials, smoothing, lines, free-form geometry). */
const IGNORED_RECORDS = new Set([
  's',
  'l',
  'p',
  'vp',
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
/** Corners naming a missing `vt` or `vn` described one by one in warnings; the rest are counted. */
const MAX_CORNER_WARNINGS = 5;

/** What readObj returns. */
export interface ObjFile {
  /** positions #V × 3 (the `v` records in order), triangles #F × 3 (0-based) */
  mesh: TriangleMesh;
  report: MeshFileReport;
  /**
   * the objects (or groups; split per material where their vertices allow) as parts, in vertex order; null when the
   * file is one mesh without a material
   */
  parts: MeshPart[] | null;
  /** `vt`/`vn` of every triangle corner; null when no face corner names one */
  corners: ObjCorners | null;
  /** the `usemtl` names in order of first use: parts' `material` index this list */
  materials: string[];
  /** the `mtllib` files, as written (folders included), in order, each once */
  materialLibraries: string[];
}

/**
 * Reads an OBJ file.
 * @param text the file's text
 * @param file file name for error messages
 * @returns mesh: positions #V × 3, triangles #F × 3 (0-based, fan-triangulated polygons keep their corner order,
 *          faces grouped by part); report: polygons triangulated, `vt`/`vn` counts, warnings (unknown records, no
 *          faces, corners naming a missing `vt`/`vn`, objects merged because they share vertices); parts (two or
 *          more objects or groups, or any part with a material) and corners, `usemtl` names and `mtllib` files (see
 *          ObjFile)
 * @throws FormatError naming the line for: a vertex with fewer than 3 coordinates (mentioning truncation when the
 *         file ends inside the line), a non-numeric, NaN or infinite coordinate (of `v`, `vt` or `vn`), a `vt` without
 *         coordinates, a `vn` with fewer than 3, a face with fewer than 3 corners, a vertex index that is 0,
 *         non-integer or refers to a vertex not defined before the face, a texture or normal index that is not a
 *         whole number; and for a file without vertices
 */
export function readObj(text: string, file: string): ObjFile {
  const reader = new ObjReader(text, file);
  reader.readRecords();
  return reader.result();
}

/** Reads one OBJ's records: the state between them, and a method per record kind. */
class ObjReader {
  private readonly scanner: TextScanner;
  // Vertices: the `v` records, #V × 3, in a buffer grown by doubling.
  private vertexCapacity: number;
  private positions: Float64Array;
  private vertexCount = 0;
  // Triangles #F × 3 with the `vt`/`vn` of each corner (-1: none) and the named part of each.
  private triangleCapacity: number;
  private triangles: Uint32Array;
  private cornerTexcoords: Int32Array;
  private cornerNormals: Int32Array;
  private trianglePart: Uint32Array;
  private triangleCount = 0;
  private polygonsTriangulated = 0;
  // Texture coordinates #vt × 2 and normals #vn × 3.
  private texcoords = new Float64Array(64);
  private texcoordCount = 0;
  private normals = new Float64Array(96);
  private normalCount = 0;
  private cornersUsed = false;
  private badCorners = 0;
  private readonly warnings: string[] = [];
  private readonly unknownRecords = new Set<string>();
  // Parts: the key of the current face (the latest `o` name, or `g` name while the file has no `o`; and its material).
  private readonly partNames: string[] = [];
  private readonly partMaterials: number[] = [];
  private readonly partByKey = new Map<string, number>();
  private currentObject: string | null = null;
  private currentGroup: string | null = null;
  private sawObject = false;
  private currentPart = -1;
  // Materials: `usemtl` names in order of first use, the current one (-1: none yet), and the `mtllib` files.
  private readonly materialNames: string[] = [];
  private readonly materialByName = new Map<string, number>();
  private currentMaterial = -1;
  private readonly materialLibraries: string[] = [];
  private readonly libraryNamesSeen = new Set<string>();

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {
    this.scanner = new TextScanner(text, file);
    this.vertexCapacity = Math.max(1024, Math.ceil(text.length / 64));
    this.positions = new Float64Array(this.vertexCapacity * 3);
    this.triangleCapacity = this.vertexCapacity * 2;
    this.triangles = new Uint32Array(this.triangleCapacity * 3);
    this.cornerTexcoords = new Int32Array(this.triangleCapacity * 3);
    this.cornerNormals = new Int32Array(this.triangleCapacity * 3);
    this.trianglePart = new Uint32Array(this.triangleCapacity);
  }

  /** Every line of the file, each by its record kind (the common ones found by their first characters). */
  readRecords(): void {
    const { scanner, text } = this;
    while (!scanner.atEnd()) {
      if (!scanner.hasToken()) {
        scanner.nextLine();
        continue;
      }
      const pos = scanner.pos;
      const first = text.charCodeAt(pos);
      const second = pos + 1 < text.length ? text.charCodeAt(pos + 1) : SPACE;
      const third = pos + 2 < text.length ? text.charCodeAt(pos + 2) : SPACE;
      if (first === LOWER_V && (second === SPACE || second === TAB)) this.readVertex(pos);
      else if (first === LOWER_F && (second === SPACE || second === TAB)) this.readFace(pos);
      else if (first === LOWER_V && second === LOWER_T && (third === SPACE || third === TAB)) this.readTexcoord(pos);
      else if (first === LOWER_V && second === LOWER_N && (third === SPACE || third === TAB)) this.readNormal(pos);
      else if (first !== HASH) this.readNamedRecord();
      scanner.nextLine();
    }
  }

  /** `v x y z` at pos: a position (a fourth value, w, is ignored). */
  private readVertex(pos: number): void {
    const { scanner } = this;
    if (this.vertexCount === this.vertexCapacity) {
      this.vertexCapacity *= 2;
      const grown = new Float64Array(this.vertexCapacity * 3);
      grown.set(this.positions);
      this.positions = grown;
    }
    scanner.pos = pos + 1;
    const positions = this.positions;
    const base = this.vertexCount * 3;
    for (let axis = 0; axis < 3; axis++) {
      if (!scanner.hasToken()) scanner.failShort(`vertex has ${axis} coordinate${axis === 1 ? '' : 's'}, needs 3 (x y z)`);
      const value = scanner.number(`vertex ${AXES[axis]} coordinate`);
      if (!Number.isFinite(value)) scanner.fail(`vertex ${AXES[axis]} coordinate ${describeNonFinite(value)}`);
      positions[base + axis] = value;
    }
    this.vertexCount++;
  }

  /** `f v[/vt[/vn]] …` at pos: a polygon, fan-triangulated from its first corner, in the current part. */
  private readFace(pos: number): void {
    const { scanner } = this;
    scanner.pos = pos + 1;
    if (this.currentPart < 0) this.currentPart = this.partOf();
    let corners = 0;
    let firstCorner = 0;
    let firstTexcoord = -1;
    let firstNormal = -1;
    let previousCorner = 0;
    let previousTexcoord = -1;
    let previousNormal = -1;
    while (scanner.hasToken(true)) {
      const index = scanner.integer('vertex index', true);
      let texcoord = -1;
      let normal = -1;
      for (let slot = 1; scanner.peek() === SLASH; slot++) {
        scanner.pos++;
        const c = scanner.peek();
        if (c !== SLASH && c !== SPACE && c !== TAB && c !== -1 && c !== CR && c !== LF) {
          const reference = scanner.integer('texture or normal index', true);
          if (slot === 1) texcoord = this.cornerIndex(reference, this.texcoordCount, 'vt');
          else if (slot === 2) normal = this.cornerIndex(reference, this.normalCount, 'vn');
        }
      }
      const corner = this.vertexIndex(index);
      if (texcoord >= 0 || normal >= 0) this.cornersUsed = true;
      if (corners === 0) {
        firstCorner = corner;
        firstTexcoord = texcoord;
        firstNormal = normal;
      } else if (corners >= 2) {
        this.addTriangle(
          firstCorner,
          previousCorner,
          corner,
          firstTexcoord,
          previousTexcoord,
          texcoord,
          firstNormal,
          previousNormal,
          normal,
        );
      }
      previousCorner = corner;
      previousTexcoord = texcoord;
      previousNormal = normal;
      corners++;
    }
    if (corners < 3) scanner.failShort(`face has ${corners} corner${corners === 1 ? '' : 's'}, needs at least 3`);
    if (corners > 3) this.polygonsTriangulated++;
  }

  /** The 0-based vertex of a face corner's 1-based (or negative, relative) index; a FormatError when it names none. */
  private vertexIndex(index: number): number {
    const { vertexCount } = this;
    const scanner: TextScanner = this.scanner;
    if (index > 0) {
      if (index > vertexCount) {
        scanner.fail(`vertex index ${index} is out of range: only ${vertexCount} vertices are defined before this face`);
      }
      return index - 1;
    } else if (index < 0) {
      if (-index > vertexCount) {
        scanner.fail(
          `relative vertex index ${index} reaches before the first vertex: only ${vertexCount} vertices are defined before this face`,
        );
      }
      return vertexCount + index;
    }
    scanner.fail('vertex index 0 is invalid: OBJ indices start at 1 (or count back from -1)');
  }

  /** Appends triangle a b c (0-based vertices) with its corners' `vt` and `vn` (-1: none) to the current part. */
  private addTriangle(a: number, b: number, c: number, ta: number, tb: number, tc: number, na: number, nb: number, nc: number): void {
    if (this.triangleCount === this.triangleCapacity) {
      this.triangleCapacity *= 2;
      this.triangles = grow(this.triangles, this.triangleCapacity * 3);
      this.cornerTexcoords = grow(this.cornerTexcoords, this.triangleCapacity * 3);
      this.cornerNormals = grow(this.cornerNormals, this.triangleCapacity * 3);
      this.trianglePart = grow(this.trianglePart, this.triangleCapacity);
    }
    const t = this.triangleCount * 3;
    const { triangles, cornerTexcoords, cornerNormals } = this;
    triangles[t] = a;
    triangles[t + 1] = b;
    triangles[t + 2] = c;
    cornerTexcoords[t] = ta;
    cornerTexcoords[t + 1] = tb;
    cornerTexcoords[t + 2] = tc;
    cornerNormals[t] = na;
    cornerNormals[t + 1] = nb;
    cornerNormals[t + 2] = nc;
    this.trianglePart[this.triangleCount] = this.currentPart;
    this.triangleCount++;
  }

  /** The 0-based index of a `vt`/`vn` reference, or -1 (with a warning) when it names none defined so far. */
  private cornerIndex(index: number, count: number, what: 'vt' | 'vn'): number {
    const resolved = index > 0 ? index - 1 : index < 0 ? count + index : -1;
    if (resolved >= 0 && resolved < count) return resolved;
    if (this.badCorners++ < MAX_CORNER_WARNINGS) {
      this.warnings.push(
        `line ${this.scanner.line}: ${what === 'vt' ? 'texture' : 'normal'} index ${index} names no '${what}' record (${count} defined before this face); the corner has none`,
      );
    }
    return -1;
  }

  /** `vt u [v [w]]` at pos: a texture coordinate (v 0 when missing, w ignored). */
  private readTexcoord(pos: number): void {
    const { scanner } = this;
    scanner.pos = pos + 2;
    if (!scanner.hasToken()) scanner.failShort('texture coordinate has no values, needs u (and v)');
    if (this.texcoordCount * 2 === this.texcoords.length) this.texcoords = grow(this.texcoords, this.texcoords.length * 2);
    for (let axis = 0; axis < 2 && scanner.hasToken(); axis++) {
      const value = scanner.number(`texture ${axis === 0 ? 'u' : 'v'} coordinate`);
      if (!Number.isFinite(value)) scanner.fail(`texture ${axis === 0 ? 'u' : 'v'} coordinate ${describeNonFinite(value)}`);
      this.texcoords[2 * this.texcoordCount + axis] = value;
    }
    this.texcoordCount++;
  }

  /** `vn x y z` at pos: a normal. */
  private readNormal(pos: number): void {
    const { scanner } = this;
    scanner.pos = pos + 2;
    if (this.normalCount * 3 === this.normals.length) this.normals = grow(this.normals, this.normals.length * 2);
    for (let axis = 0; axis < 3; axis++) {
      if (!scanner.hasToken()) scanner.failShort(`normal has ${axis} coordinate${axis === 1 ? '' : 's'}, needs 3 (x y z)`);
      const value = scanner.number(`normal ${AXES[axis]} coordinate`);
      if (!Number.isFinite(value)) scanner.fail(`normal ${AXES[axis]} coordinate ${describeNonFinite(value)}`);
      this.normals[3 * this.normalCount + axis] = value;
    }
    this.normalCount++;
  }

  /** A record found by its keyword: `o`, `g`, `usemtl`, `mtllib`, one that is ignored, or an unknown one (a warning). */
  private readNamedRecord(): void {
    const { scanner } = this;
    const keyword = scanner.peekToken();
    if (keyword === 'o' || keyword === 'g') {
      scanner.pos += 1;
      const name = scanner.restOfLine().replace(/\s+/g, ' ');
      if (keyword === 'o') {
        this.sawObject = true;
        this.currentObject = name || 'object';
      } else this.currentGroup = name || 'default';
      this.currentPart = -1;
    } else if (keyword === 'usemtl') {
      scanner.pos += keyword.length;
      this.useMaterial(scanner.restOfLine());
    } else if (keyword === 'mtllib') {
      scanner.pos += keyword.length;
      for (const library of libraryNames(scanner.restOfLine())) {
        if (this.libraryNamesSeen.has(library)) continue;
        this.libraryNamesSeen.add(library);
        this.materialLibraries.push(library);
      }
    } else if (
      !IGNORED_RECORDS.has(keyword) &&
      !this.unknownRecords.has(keyword) &&
      this.unknownRecords.size < MAX_UNKNOWN_RECORD_WARNINGS
    ) {
      this.unknownRecords.add(keyword);
      this.warnings.push(`line ${scanner.line}: unknown record '${excerpt(keyword)}' ignored`);
    }
  }

  /** `usemtl NAME` (its name given): the faces after it have that material (none for an empty name, with a warning). */
  private useMaterial(name: string): void {
    let material = name ? this.materialByName.get(name) : -1;
    if (material === undefined) {
      material = this.materialNames.length;
      this.materialByName.set(name, material);
      this.materialNames.push(name);
    }
    if (!name) this.warnings.push(`line ${this.scanner.line}: 'usemtl' without a name: the faces after it have no material`);
    this.currentMaterial = material;
    this.currentPart = -1;
  }

  /** The named part of the faces read now: the current object (or group) with the current material. */
  private partOf(): number {
    const name = (this.sawObject ? this.currentObject : this.currentGroup) ?? '';
    const key = `${this.currentMaterial} ${name}`;
    let part = this.partByKey.get(key);
    if (part === undefined) {
      part = this.partNames.length;
      this.partByKey.set(key, part);
      this.partNames.push(name);
      this.partMaterials.push(this.currentMaterial);
    }
    return part;
  }

  /** The file as read: arrays cut to their counts, the closing warnings, and the faces grouped into parts. */
  result(): ObjFile {
    const { file, warnings, triangleCount, texcoordCount, normalCount, badCorners } = this;
    if (this.vertexCount === 0) throw new FormatError(file, '', "no vertices: the file has no 'v' lines");
    if (triangleCount === 0) warnings.push("no faces: the file has no 'f' lines");
    if (badCorners > MAX_CORNER_WARNINGS) warnings.push(`${badCorners - MAX_CORNER_WARNINGS} more corners name a missing 'vt' or 'vn'`);
    const mesh = { positions: this.positions.slice(0, this.vertexCount * 3), triangles: this.triangles.slice(0, triangleCount * 3) };
    let corners: ObjCorners | null = this.cornersUsed
      ? {
          texcoords: this.texcoords.slice(0, 2 * texcoordCount),
          normals: this.normals.slice(0, 3 * normalCount),
          cornerTexcoords: this.cornerTexcoords.slice(0, 3 * triangleCount),
          cornerNormals: this.cornerNormals.slice(0, 3 * triangleCount),
        }
      : null;
    // Before any `o` (or `g`), faces belong to a part named after the file.
    const fileName = baseName(file).replace(/\.obj$/i, '') || 'mesh';
    const names = this.partNames.map((name) => name || fileName);
    const grouped = groupParts(
      mesh,
      this.trianglePart.subarray(0, triangleCount),
      { names, materials: this.partMaterials, materialNames: this.materialNames },
      this.sawObject ? 'objects' : 'groups',
      warnings,
    );
    if (grouped.order) {
      mesh.triangles = permuteTriangles(mesh.triangles, grouped.order);
      if (corners) {
        corners = {
          ...corners,
          cornerTexcoords: permuteTriangles(corners.cornerTexcoords, grouped.order),
          cornerNormals: permuteTriangles(corners.cornerNormals, grouped.order),
        };
      }
    }
    return {
      mesh,
      report: { polygonsTriangulated: this.polygonsTriangulated, texcoords: texcoordCount, normals: normalCount, warnings },
      parts: grouped.parts,
      corners,
      materials: this.materialNames,
      materialLibraries: this.materialLibraries,
    };
  }
}

/**
 * The files of an `mtllib` line: names separated by spaces, as the format has it, unless that would cut a name
 * ending in `.mtl` apart (`mtllib my scene.mtl`, as some exporters write names with spaces): then the whole line.
 */
export function libraryNames(rest: string): string[] {
  if (!rest) return [];
  const tokens = rest.split(/\s+/);
  return tokens.every((t) => /\.mtl$/i.test(t)) ? tokens : [rest];
}

function grow<T extends Float64Array | Uint32Array | Int32Array>(array: T, length: number): T {
  const grown = new (array.constructor as new (n: number) => T)(length);
  grown.set(array);
  return grown;
}

function permuteTriangles<T extends Uint32Array | Int32Array>(values: T, order: Uint32Array): T {
  const out = new (values.constructor as new (n: number) => T)(values.length);
  for (let i = 0; i < order.length; i++) {
    const from = 3 * order[i];
    out[3 * i] = values[from];
    out[3 * i + 1] = values[from + 1];
    out[3 * i + 2] = values[from + 2];
  }
  return out;
}

/**
 * The parts of a file: each named part's vertex span (the lowest and highest `v` its faces use); spans that overlap
 * are merged (one warning each); the merged spans in vertex order, stretched to cover the vertices between them
 * (loose vertices join the part before them, leading ones the first). Faces are then ordered by part, stably.
 * A named part is an object (or group) with one material: an object whose materials cover disjoint vertex blocks
 * becomes a part per material, `NAME (MATERIAL)`; materials that share vertices stay one part whose triangles are
 * ordered into a run per material (MeshPart.materialRanges), its `material` the one of most of its triangles.
 * @param triangleParts  #F named part of each triangle, as read
 * @param named          per named part its object or group name and material (index into materialNames, -1: none)
 * @returns parts (null for fewer than two without materials) and the new triangle order (null when it is the file's)
 */
function groupParts(
  mesh: TriangleMesh,
  triangleParts: Uint32Array,
  named: { names: readonly string[]; materials: readonly number[]; materialNames: readonly string[] },
  kind: 'objects' | 'groups',
  warnings: string[],
): { parts: MeshPart[] | null; order: Uint32Array | null } {
  const { names, materials, materialNames } = named;
  const { triangles } = mesh;
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = triangles.length / 3;
  const low = new Float64Array(names.length).fill(Infinity);
  const high = new Float64Array(names.length).fill(-Infinity);
  for (let t = 0; t < triangleCount; t++) {
    const p = triangleParts[t];
    for (let k = 0; k < 3; k++) {
      const v = triangles[3 * t + k];
      if (v < low[p]) low[p] = v;
      if (v > high[p]) high[p] = v;
    }
  }
  const used = names.map((_, p) => p).filter((p) => low[p] <= high[p]);
  if (used.length === 0 || (used.length === 1 && materials[used[0]] < 0)) return { parts: null, order: null };
  used.sort((a, b) => low[a] - low[b] || a - b);
  // Sweep in vertex order, merging every part whose span starts inside the current merged span.
  const merged: { members: number[]; low: number; high: number }[] = [];
  for (const p of used) {
    const last = merged[merged.length - 1];
    if (last && low[p] <= last.high) {
      last.members.push(p);
      last.high = Math.max(last.high, high[p]);
    } else merged.push({ members: [p], low: low[p], high: high[p] });
  }
  const triangleCounts = new Uint32Array(names.length);
  for (let t = 0; t < triangleCount; t++) triangleCounts[triangleParts[t]]++;
  const groupMaterial = merged.map((group) => {
    let best = materials[group.members[0]];
    let bestCount = 0;
    const counts = new Map<number, number>();
    for (const p of group.members) counts.set(materials[p], (counts.get(materials[p]) ?? 0) + triangleCounts[p]);
    for (const [material, count] of counts) {
      if (count > bestCount) {
        bestCount = count;
        best = material;
      }
    }
    return best;
  });
  merged.forEach((group) => {
    const objects = [...new Set(group.members.map((p) => names[p]))];
    if (objects.length > 1) {
      const list = objects.map((name) => `'${excerpt(name)}'`).join(', ');
      warnings.push(`${kind} ${list} share vertices (or their vertices interleave), so they load as one mesh`);
    }
  });
  // One mesh without any material is the whole mesh (no parts); one whose triangles name a material keeps its runs.
  if (merged.length === 1 && merged[0].members.every((p) => materials[p] < 0)) return { parts: null, order: null };
  // Runs: each group's materials, in the order their first triangles come in the file; a named part is in one run.
  const firstTriangle = new Float64Array(names.length).fill(Infinity);
  for (let t = triangleCount - 1; t >= 0; t--) firstTriangle[triangleParts[t]] = t;
  const runs: { group: number; material: number }[] = [];
  const runOfPart = new Uint32Array(names.length);
  const groupRuns: number[][] = merged.map(() => []);
  merged.forEach((group, g) => {
    const members = [...group.members].sort((a, b) => firstTriangle[a] - firstTriangle[b]);
    for (const p of members) {
      let run = groupRuns[g].find((r) => runs[r].material === materials[p]);
      if (run === undefined) {
        run = runs.length;
        runs.push({ group: g, material: materials[p] });
        groupRuns[g].push(run);
      }
      runOfPart[p] = run;
    }
  });
  // Counting sort of triangles by run (group by group): stable, and the identity when the file lists its parts in
  // vertex order and each object's materials one after the other.
  const counts = new Uint32Array(runs.length + 1);
  for (let t = 0; t < triangleCount; t++) counts[runOfPart[triangleParts[t]] + 1]++;
  for (let r = 0; r < runs.length; r++) counts[r + 1] += counts[r];
  const runStarts = counts.slice(0, runs.length);
  const next = counts.slice(0, runs.length);
  const order = new Uint32Array(triangleCount);
  let identity = true;
  for (let t = 0; t < triangleCount; t++) {
    const at = next[runOfPart[triangleParts[t]]]++;
    order[at] = t;
    if (at !== t) identity = false;
  }
  const runEnd = (r: number): number => (r + 1 < runs.length ? runStarts[r + 1] : triangleCount);
  // An object split by material: its parts are named after both.
  const split = new Set<string>();
  const groupObjects = merged.map((group) => [...new Set(group.members.map((p) => names[p]))].join(' + '));
  const seen = new Set<string>();
  for (const name of groupObjects) (seen.has(name) ? split : seen).add(name);
  const taken = new Set<string>();
  const parts = merged.map((group, g): MeshPart => {
    const material = groupMaterial[g];
    const base = split.has(groupObjects[g]) && material >= 0 ? `${groupObjects[g]} (${materialNames[material]})` : groupObjects[g];
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base} (${k})`;
    taken.add(name);
    const vertexStart = g === 0 ? 0 : group.low;
    const vertexEnd = g + 1 < merged.length ? merged[g + 1].low : vertexCount;
    const own = groupRuns[g];
    const triangleStart = runStarts[own[0]];
    const part: MeshPart = {
      name,
      vertexStart,
      vertexCount: vertexEnd - vertexStart,
      triangleStart,
      triangleCount: runEnd(own[own.length - 1]) - triangleStart,
      material,
      source: null,
      skinned: true,
    };
    if (own.length > 1) part.materialRanges = own.map((r) => ({ triangleCount: runEnd(r) - runStarts[r], material: runs[r].material }));
    return part;
  });
  return { parts, order: identity ? null : order };
}

/** What an OBJ can carry besides the triangles. */
export interface ObjWriteOptions {
  /** each part becomes an object (`o NAME`) holding its triangles; parts cover the triangles in order */
  parts?: readonly MeshPart[] | null;
  /** #V × 2 texture coordinates per vertex in glTF's convention (v down), written as `vt u 1−v` */
  uvs?: Float32Array | null;
  /** #V × 3 normals per vertex, written as `vn` */
  normals?: Float64Array | null;
  /** the material library (`mtllib`) and the material names parts' `material` index (`usemtl` per part) */
  materials?: { library: string; names: readonly string[] } | null;
}

/**
 * Writes an OBJ: `v` lines, then `vt` and `vn` (one per vertex, so corner k of a face uses the same number for all
 * three) when given, then `f` lines, under `o` lines when there are parts. Coordinates are written with the fewest
 * digits that read back to the identical doubles (a float32 texture coordinate t comes back exactly as 1 − (1 − t)).
 * @param mesh     positions #V × 3, triangles #F × 3 (0-based)
 * @param options  see ObjWriteOptions
 * @returns the file text
 */
export function writeObj(mesh: TriangleMesh, options: ObjWriteOptions = {}): string {
  const { positions, triangles } = mesh;
  const { parts, uvs, normals, materials } = options;
  const vertexCount = positions.length / 3;
  const triangleCount = triangles.length / 3;
  const lines: string[] = [];
  if (materials) lines.push(`mtllib ${materials.library}`);
  const useMaterial = (material: number): void => {
    const name = materials && material >= 0 ? materials.names[material] : undefined;
    if (name !== undefined) lines.push(`usemtl ${name.replace(/[\r\n]+/g, ' ')}`);
  };
  const text = exactNumberText;
  for (let v = 0; v < vertexCount; v++)
    lines.push(`v ${text(positions[3 * v])} ${text(positions[3 * v + 1])} ${text(positions[3 * v + 2])}`);
  if (uvs) for (let v = 0; v < vertexCount; v++) lines.push(`vt ${text(uvs[2 * v])} ${text(1 - uvs[2 * v + 1])}`);
  if (normals)
    for (let v = 0; v < vertexCount; v++) lines.push(`vn ${text(normals[3 * v])} ${text(normals[3 * v + 1])} ${text(normals[3 * v + 2])}`);
  const corner =
    uvs && normals ? (i: number) => `${i}/${i}/${i}` : uvs ? (i: number) => `${i}/${i}` : normals ? (i: number) => `${i}//${i}` : String;
  const faces = (from: number, to: number): void => {
    for (let f = from; f < to; f++)
      lines.push(`f ${corner(triangles[3 * f] + 1)} ${corner(triangles[3 * f + 1] + 1)} ${corner(triangles[3 * f + 2] + 1)}`);
  };
  if (parts && parts.length > 1) {
    for (const part of parts) {
      // An object name is the rest of its line: line breaks cannot be part of it.
      lines.push(`o ${part.name.replace(/[\r\n]+/g, ' ')}`);
      useMaterial(part.material);
      faces(part.triangleStart, part.triangleStart + part.triangleCount);
    }
  } else {
    useMaterial(parts?.[0]?.material ?? -1);
    faces(0, triangleCount);
  }
  lines.push('');
  return lines.join('\n');
}
