/**
 * The meshes of a scene as ranges of its one vertex list (MeshPart): joining mesh files into one scene, the vertices
 * and triangles a tool may touch, and the sub-mesh of one part with its rows merged back into the scene's weights.
 * Pure functions over typed arrays: loading, the meshes controller, the brush, the lasso and binding use them.
 */
import type { DenseMatrix, MeshPart, ObjCorners, TriangleMesh } from '../../workers/formats/types.ts';
import { withRows } from '../../workers/scene/bone-data.ts';

/** The parts of a scene: its own, or one part covering every vertex and triangle. */
export function partsOf(doc: { name: string; mesh: TriangleMesh; parts?: readonly MeshPart[] }): readonly MeshPart[] {
  if (doc.parts && doc.parts.length > 0) return doc.parts;
  return [wholePart(doc.name, doc.mesh)];
}

function wholePart(name: string, mesh: TriangleMesh, vertexStart = 0, triangleStart = 0): MeshPart {
  return {
    name,
    vertexStart,
    vertexCount: mesh.positions.length / 3,
    triangleStart,
    triangleCount: mesh.triangles.length / 3,
    material: -1,
    source: null,
    skinned: true,
  };
}

/** `names` made unique in order: a repeated name gets ` 2`, ` 3`, … (the first keeps its name). */
export function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let k = 2; taken.has(unique); k++) unique = `${name} ${k}`;
    taken.add(unique);
    return unique;
  });
}

/**
 * Several meshes as one: their vertices and triangles one after the other, in the order given, and a part per
 * mesh (or, for a mesh that has parts of its own — an OBJ with objects or groups — those parts, shifted).
 * @param meshes  each with its name (the file name), its mesh and optionally its own parts (ranges of that mesh)
 * @returns the joined mesh (#V = Σ #V_i) and its parts, names made unique
 */
export function joinMeshes(meshes: readonly { name: string; mesh: TriangleMesh; parts?: readonly MeshPart[] }[]): {
  mesh: TriangleMesh;
  parts: MeshPart[];
} {
  let vertexCount = 0;
  let triangleCount = 0;
  for (const { mesh } of meshes) {
    vertexCount += mesh.positions.length / 3;
    triangleCount += mesh.triangles.length / 3;
  }
  const positions = new Float64Array(3 * vertexCount);
  const triangles = new Uint32Array(3 * triangleCount);
  const parts: MeshPart[] = [];
  let v0 = 0;
  let t0 = 0;
  for (const { name, mesh, parts: own } of meshes) {
    positions.set(mesh.positions, 3 * v0);
    const t = mesh.triangles;
    for (let i = 0; i < t.length; i++) triangles[3 * t0 + i] = t[i] + v0;
    const local = own && own.length > 0 ? own : [wholePart(name, mesh)];
    for (const part of local) {
      const partName = own && own.length > 1 ? `${name}: ${part.name}` : name;
      parts.push({ ...part, name: partName, vertexStart: part.vertexStart + v0, triangleStart: part.triangleStart + t0 });
    }
    v0 += mesh.positions.length / 3;
    t0 += t.length / 3;
  }
  const names = uniqueNames(parts.map((p) => p.name));
  parts.forEach((p, i) => (p.name = names[i]));
  return { mesh: { positions, triangles }, parts };
}

/**
 * The OBJ `vt`/`vn` of joined meshes (joinMeshes' order): their texture coordinates and normals one list after the
 * other, each triangle corner's indices shifted to match; a mesh without corners gives -1 at its corners.
 * @returns the joined corners, or undefined when no mesh has any
 */
export function joinCorners(meshes: readonly { corners: ObjCorners | null; triangleCount: number }[]): ObjCorners | undefined {
  if (!meshes.some((m) => m.corners)) return undefined;
  let texcoordCount = 0;
  let normalCount = 0;
  let cornerCount = 0;
  for (const { corners, triangleCount } of meshes) {
    texcoordCount += corners ? corners.texcoords.length : 0;
    normalCount += corners ? corners.normals.length : 0;
    cornerCount += 3 * triangleCount;
  }
  const joined: ObjCorners = {
    texcoords: new Float64Array(texcoordCount),
    normals: new Float64Array(normalCount),
    cornerTexcoords: new Int32Array(cornerCount).fill(-1),
    cornerNormals: new Int32Array(cornerCount).fill(-1),
  };
  let t0 = 0;
  let n0 = 0;
  let c0 = 0;
  for (const { corners, triangleCount } of meshes) {
    if (corners) {
      joined.texcoords.set(corners.texcoords, t0);
      joined.normals.set(corners.normals, n0);
      for (let i = 0; i < 3 * triangleCount; i++) {
        const t = corners.cornerTexcoords[i];
        const n = corners.cornerNormals[i];
        joined.cornerTexcoords[c0 + i] = t < 0 ? -1 : t + t0 / 2;
        joined.cornerNormals[c0 + i] = n < 0 ? -1 : n + n0 / 3;
      }
      t0 += corners.texcoords.length;
      n0 += corners.normals.length;
    }
    c0 += 3 * triangleCount;
  }
  return joined;
}

/**
 * The vertices a tool may touch: those of the active part (or of every part when `active` < 0) that are not hidden.
 * @param vertexCount #V
 * @param hidden      #parts, true for a hidden part
 * @returns #V, 1 = may be touched; null when every vertex may (nothing hidden, all parts active)
 */
export function toolVertexMask(
  vertexCount: number,
  parts: readonly MeshPart[],
  active: number,
  hidden: readonly boolean[],
): Uint8Array | null {
  if (active < 0 && !hidden.some(Boolean)) return null;
  const mask = new Uint8Array(vertexCount);
  parts.forEach((part, i) => {
    if (hidden[i] || (active >= 0 && i !== active)) return;
    mask.fill(1, part.vertexStart, part.vertexStart + part.vertexCount);
  });
  return mask;
}

/**
 * The triangles drawn and hit when some parts are hidden: a hidden part's triangles become degenerate (0, 0, 0),
 * so ranges and triangle numbers stay as they are (a part's triangles keep their place for its material).
 * @returns #F × 3, `triangles` itself when nothing is hidden, otherwise a new array
 */
export function visibleTriangles(triangles: Uint32Array, parts: readonly MeshPart[], hidden: readonly boolean[]): Uint32Array {
  if (!hidden.some(Boolean)) return triangles;
  const out = triangles.slice();
  parts.forEach((part, i) => {
    if (hidden[i]) out.fill(0, 3 * part.triangleStart, 3 * (part.triangleStart + part.triangleCount));
  });
  return out;
}

/** Keeps the first `count` of `indices` (and their `distances`) whose vertex the mask allows. @returns the count kept */
export function keepMasked(mask: Uint8Array, indices: Uint32Array, distances: Float64Array, count: number): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    if (!mask[indices[i]]) continue;
    indices[kept] = indices[i];
    distances[kept++] = distances[i];
  }
  return kept;
}

/**
 * One part as a mesh of its own, for solving on it alone.
 * @returns positions #Vp × 3 (a view into `mesh.positions`), triangles #Fp × 3 re-indexed from 0, handles #Vp (a view)
 * @throws Error naming the part when one of its triangles uses a vertex outside it
 */
export function partMesh(
  mesh: TriangleMesh,
  handles: Int32Array,
  part: MeshPart,
): { positions: Float64Array; triangles: Uint32Array; handles: Int32Array } {
  const { vertexStart: v0, vertexCount: n } = part;
  const triangles = mesh.triangles.slice(3 * part.triangleStart, 3 * (part.triangleStart + part.triangleCount));
  for (let i = 0; i < triangles.length; i++) {
    const local = triangles[i] - v0;
    if (triangles[i] < v0 || local >= n)
      throw new Error(`${part.name}: triangle ${part.triangleStart + Math.floor(i / 3)} uses vertex ${triangles[i]}, outside the mesh`);
    triangles[i] = local;
  }
  return {
    positions: mesh.positions.subarray(3 * v0, 3 * (v0 + n)),
    triangles,
    handles: handles.subarray(v0, v0 + n),
  };
}

/**
 * The scene's weights with one part's rows replaced.
 * @param weights     #V × #B the scene's weights (not modified)
 * @param partWeights #Vp × #B row-major, the part's new rows
 * @returns a new #V × #B matrix: other rows copied bit for bit
 */
export function withPartWeights(weights: DenseMatrix, part: MeshPart, partWeights: Float64Array): DenseMatrix {
  const nb = weights.cols;
  if (partWeights.length !== part.vertexCount * nb)
    throw new Error(`${part.name}: ${partWeights.length / nb} weight rows for ${part.vertexCount} vertices`);
  return withRows(weights, part.vertexStart, partWeights);
}

/** The scene's handles with one part's entries replaced (a new array). */
export function withPartHandles(handles: Int32Array, part: MeshPart, partHandles: Int32Array): Int32Array {
  const out = handles.slice();
  out.set(partHandles, part.vertexStart);
  return out;
}

/**
 * The parts once `bound` (one of them, or all when null) has skinning weights: a part the file had without a skin
 * is skinned from now on (export writes it with the skin).
 * @returns `parts` itself when nothing changes
 */
export function withSkinned(parts: readonly MeshPart[], bound: MeshPart | null): readonly MeshPart[] {
  const unskinned = (p: MeshPart) => !p.skinned && (bound === null || p.name === bound.name);
  return parts.some(unskinned) ? parts.map((p) => (unskinned(p) ? { ...p, skinned: true } : p)) : parts;
}

/** Whether two part lists are the same meshes (names and ranges), whatever else changed about them. */
export function sameMeshes(a: readonly MeshPart[], b: readonly MeshPart[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (p, i) =>
        p.name === b[i].name &&
        p.vertexStart === b[i].vertexStart &&
        p.vertexCount === b[i].vertexCount &&
        p.triangleStart === b[i].triangleStart &&
        p.triangleCount === b[i].triangleCount,
    )
  );
}
