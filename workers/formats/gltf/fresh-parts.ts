/**
 * The meshes, surface and joint placement of a fresh glTF export (fresh-document.ts builds the Document from them;
 * part-primitives.ts lays out each part's primitive), and the bone-tail extra that both exports write
 * (bone-tails.ts) and the import reads: the scene's parts become one mesh node each, over their own vertices. Where
 * OBJ corners give one `v` record several texture coordinates or normals (a UV seam, a hard edge), the part gets one
 * glTF vertex per distinct (v, vt, vn) corner, each carrying the position and weights of its `v`. The first corner
 * seen of a `v` keeps the `v`'s own slot, so a part without seams keeps the scene's vertex order. Materials come from
 * the scene's look: base colour factor, base colour image, double-sidedness.
 */
import type { Document, Material } from '@gltf-transform/core';
import type { MaterialLook, MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from '../types.ts';
import type { Skeleton } from '../../rig/skeleton.ts';
import type { Influences } from '../../skinning/influences.ts';
import { writeAlphaAndSampling, writeSurface, type LookExtensions } from '../material-look.ts';

type Fail = (where: string, reason: string) => never;

/** One part's glTF vertices and triangles. */
export interface PartLayout {
  /** glTF vertex → scene vertex (#N, N ≥ the part's vertex count: the part's vertices in order, then split copies) */
  map: Uint32Array;
  /** #3 × triangles, indices into the part's glTF vertices */
  indices: Uint32Array;
  /** per glTF vertex, its corner's `vt` (-1: none); null without corners */
  texcoord: Int32Array | null;
  /** per glTF vertex, its corner's `vn` (-1: none, the scene's vertex normal is used); null without corners */
  normal: Int32Array | null;
}

/**
 * The parts to write: the scene's, checked, or one part of every vertex and triangle named `name`.
 * @throws through `fail` when parts do not cover the vertices and triangles in order, or a triangle of a part names a
 *   vertex outside it, or a material index is out of range
 */
export function checkedParts(
  mesh: TriangleMesh,
  parts: readonly MeshPart[] | undefined,
  name: string,
  materialCount: number,
  fail: Fail,
): readonly MeshPart[] {
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = mesh.triangles.length / 3;
  if (!parts || parts.length === 0) {
    const material = materialCount === 1 ? 0 : -1;
    return [{ name, vertexStart: 0, vertexCount, triangleStart: 0, triangleCount, material, source: null, skinned: true }];
  }
  let vertexEnd = 0;
  let triangleEnd = 0;
  for (const part of parts) {
    const where = `mesh "${part.name}"`;
    if (part.vertexStart !== vertexEnd || !(part.vertexCount >= 0))
      fail(where, `its vertices ${part.vertexStart} … ${part.vertexStart + part.vertexCount - 1} do not follow the previous mesh's`);
    if (part.triangleStart !== triangleEnd || !(part.triangleCount >= 0))
      fail(where, `its triangles start at ${part.triangleStart}, the previous mesh's end at ${triangleEnd}`);
    vertexEnd += part.vertexCount;
    triangleEnd += part.triangleCount;
    if (vertexEnd > vertexCount || triangleEnd > triangleCount) fail(where, 'it reaches past the end of the mesh');
    if (!Number.isInteger(part.material) || part.material < -1 || part.material >= materialCount)
      fail(where, `material ${part.material} is not one of the ${materialCount} materials`);
    if (part.materialRanges) {
      let covered = 0;
      for (const run of part.materialRanges) {
        if (!Number.isInteger(run.material) || run.material < -1 || run.material >= materialCount)
          fail(where, `material ${run.material} of a run of its triangles is not one of the ${materialCount} materials`);
        if (!(Number.isInteger(run.triangleCount) && run.triangleCount >= 0)) fail(where, `a run of ${run.triangleCount} triangles`);
        covered += run.triangleCount;
      }
      if (covered !== part.triangleCount) fail(where, `its material runs cover ${covered} of its ${part.triangleCount} triangles`);
    }
    for (let i = 3 * part.triangleStart; i < 3 * triangleEnd; i++) {
      const v = mesh.triangles[i];
      if (v < part.vertexStart || v >= vertexEnd)
        fail(
          `${where} triangle ${Math.floor(i / 3)}`,
          `names vertex ${v}, outside the mesh's vertices ${part.vertexStart} … ${vertexEnd - 1}`,
        );
    }
  }
  if (vertexEnd !== vertexCount || triangleEnd !== triangleCount)
    fail('meshes', `they cover ${vertexEnd} of ${vertexCount} vertices and ${triangleEnd} of ${triangleCount} triangles`);
  return parts;
}

/** @throws through `fail` when corners do not fit the mesh (sizes, indices, non-finite values). */
export function checkCorners(mesh: TriangleMesh, corners: ObjCorners, fail: Fail): void {
  const cornerCount = mesh.triangles.length;
  if (corners.cornerTexcoords.length !== cornerCount || corners.cornerNormals.length !== cornerCount)
    fail(
      'OBJ corners',
      `${corners.cornerTexcoords.length / 3} and ${corners.cornerNormals.length / 3} triangles, the mesh has ${cornerCount / 3}`,
    );
  const texcoordCount = Math.floor(corners.texcoords.length / 2);
  const normalCount = Math.floor(corners.normals.length / 3);
  for (let c = 0; c < cornerCount; c++) {
    const t = corners.cornerTexcoords[c];
    const n = corners.cornerNormals[c];
    if (t < -1 || t >= texcoordCount) fail(`triangle ${Math.floor(c / 3)}`, `names texture coordinate ${t}, there are ${texcoordCount}`);
    if (n < -1 || n >= normalCount) fail(`triangle ${Math.floor(c / 3)}`, `names normal ${n}, there are ${normalCount}`);
  }
  for (const values of [corners.texcoords, corners.normals])
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) fail('OBJ corners', `value ${values[i]} is not finite`);
}

/** @throws through `fail` when the look does not fit the mesh (uvs size or values, material colours). */
export function checkLook(mesh: TriangleMesh, look: SurfaceLook, fail: Fail): void {
  const vertexCount = mesh.positions.length / 3;
  if (look.uvs) {
    if (look.uvs.length !== 2 * vertexCount) fail('texture coordinates', `${look.uvs.length / 2} for ${vertexCount} vertices`);
    for (let i = 0; i < look.uvs.length; i++)
      if (!Number.isFinite(look.uvs[i])) fail('texture coordinates', `vertex ${i >> 1} has ${look.uvs[i]}`);
  }
  for (const material of look.materials) {
    if (material.baseColor.length !== 4 || !material.baseColor.every((c) => c >= 0 && c <= 1))
      fail(`material "${material.name}"`, `base colour [${material.baseColor.join(', ')}] is not four numbers in 0 … 1`);
  }
}

/**
 * A part's glTF vertices: without corners, its own vertices; with corners, one per distinct (v, vt, vn) corner.
 * Vertices no triangle uses keep their slot (no texture coordinate, the vertex normal).
 */
export function partLayout(part: MeshPart, triangles: Uint32Array, corners: ObjCorners | null): PartLayout {
  const start = part.vertexStart;
  const count = part.vertexCount;
  const first = 3 * part.triangleStart;
  const last = 3 * (part.triangleStart + part.triangleCount);
  const indices = new Uint32Array(last - first);
  if (!corners) {
    for (let i = first; i < last; i++) indices[i - first] = triangles[i] - start;
    const map = new Uint32Array(count);
    for (let v = 0; v < count; v++) map[v] = start + v;
    return { map, indices, texcoord: null, normal: null };
  }
  const UNCLAIMED = -2;
  const texcoord: number[] = new Array<number>(count).fill(UNCLAIMED);
  const normal: number[] = new Array<number>(count).fill(UNCLAIMED);
  const map: number[] = Array.from({ length: count }, (_, v) => start + v);
  const copies = new Map<string, number>();
  for (let i = first; i < last; i++) {
    const v = triangles[i];
    const local = v - start;
    const t = corners.cornerTexcoords[i];
    const n = corners.cornerNormals[i];
    if (texcoord[local] === UNCLAIMED) {
      texcoord[local] = t;
      normal[local] = n;
      indices[i - first] = local;
    } else if (texcoord[local] === t && normal[local] === n) {
      indices[i - first] = local;
    } else {
      const key = `${v} ${t} ${n}`;
      let copy = copies.get(key);
      if (copy === undefined) {
        copy = map.length;
        copies.set(key, copy);
        map.push(v);
        texcoord.push(t);
        normal.push(n);
      }
      indices[i - first] = copy;
    }
  }
  for (let v = 0; v < count; v++) {
    if (texcoord[v] === UNCLAIMED) texcoord[v] = normal[v] = -1;
  }
  return { map: Uint32Array.from(map), indices, texcoord: Int32Array.from(texcoord), normal: Int32Array.from(normal) };
}

/** Image types core glTF 2.0 allows for a texture (others need an extension). */
const CORE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg']);

/**
 * The look's materials as glTF materials (base colour factor, base colour texture on TEXCOORD_0 with its sampler and
 * KHR_texture_transform, alpha mode and cutoff, double-sided; metallic, roughness, emission and normal map: writeSurface).
 * An image of a type core glTF cannot hold is left out with a warning. Materials with a texture transform need
 * `extensions` from lookExtensions.
 */
export function lookMaterials(
  doc: Document,
  materials: readonly MaterialLook[],
  warnings: string[],
  extensions: LookExtensions,
): Material[] {
  return materials.map((look) => {
    const material = doc
      .createMaterial(look.name)
      .setBaseColorFactor([look.baseColor[0], look.baseColor[1], look.baseColor[2], look.baseColor[3]])
      .setDoubleSided(look.doubleSided);
    const image = look.baseColorTexture;
    if (image && CORE_IMAGE_TYPES.has(image.mimeType)) {
      material.setBaseColorTexture(doc.createTexture(look.name).setImage(image.bytes).setMimeType(image.mimeType));
    } else if (image) {
      warnings.push(`material "${look.name}": its ${image.mimeType} base colour image is left out (glTF holds PNG and JPEG)`);
    }
    writeAlphaAndSampling(doc, material, look, extensions);
    writeSurface(doc, material, look, warnings);
    return material;
  });
}

/**
 * Where the joint nodes go: each bone's rest start joint, rounded to a grid g = 2^(e − 22) with 2^e ≥ the largest
 * coordinate. Every joint position and every difference of two is then a float32 number exactly (at most 2^23
 * grid steps), so the node translations, the inverse bind matrices (translation by −position) and any player's
 * sum of translations down the hierarchy agree exactly: inverse bind matrix × rest world matrix = identity.
 * The rounding moves a joint by at most g/2 ≤ 2.4e-7 × the largest coordinate (float32 itself rounds by 6e-8).
 * @returns #B × 3 positions
 */
export function gridJointPositions(skeleton: Skeleton): Float64Array {
  const { joints, bones } = skeleton;
  const boneCount = skeleton.parents.length;
  let largest = 0;
  for (let b = 0; b < boneCount; b++) for (let c = 0; c < 3; c++) largest = Math.max(largest, Math.abs(joints[3 * bones[2 * b] + c]));
  const out = new Float64Array(3 * boneCount);
  if (!(largest > 1e-30) || !Number.isFinite(largest)) {
    for (let b = 0; b < boneCount; b++) for (let c = 0; c < 3; c++) out[3 * b + c] = Math.fround(joints[3 * bones[2 * b] + c]);
    return out;
  }
  let exponent = Math.ceil(Math.log2(largest));
  if (2 ** exponent < largest) exponent++;
  const grid = 2 ** (exponent - 22);
  for (let b = 0; b < boneCount; b++) for (let c = 0; c < 3; c++) out[3 * b + c] = Math.round(joints[3 * bones[2 * b] + c] / grid) * grid;
  return out;
}

/**
 * The joint node extras key holding a bone's end (its tail) in the joint's bind frame, [x, y, z]: written for the
 * bones whose end a reader cannot tell from their children (bonesWithoutChildTail), read back by the importer.
 */
export const BONE_TAIL_EXTRA = 'rigwrightBoneTail';

/**
 * The bones whose end joint is not the head of their first child (by index) that starts away from their own head:
 * a leaf, or a bone whose children start elsewhere. For the others a reader finds the end from the children.
 */
export function bonesWithoutChildTail(skeleton: Skeleton): number[] {
  const { joints, bones, parents } = skeleton;
  const B = parents.length;
  const same = (a: number, b: number): boolean =>
    joints[3 * a] === joints[3 * b] && joints[3 * a + 1] === joints[3 * b + 1] && joints[3 * a + 2] === joints[3 * b + 2];
  const firstChild = new Int32Array(B).fill(-1);
  for (let c = 0; c < B; c++) {
    const p = parents[c];
    if (p >= 0 && firstChild[p] < 0 && !same(bones[2 * c], bones[2 * p])) firstChild[p] = c;
  }
  const out: number[] = [];
  for (let b = 0; b < B; b++) if (firstChild[b] < 0 || !same(bones[2 * firstChild[b]], bones[2 * b + 1])) out.push(b);
  return out;
}

/**
 * How a fresh export writes a part, decided from the influences of its vertices so that every player poses it where
 * the app and `rigwright skin` do (one rule for meshes without a skin):
 *   static   no vertex has weight: a mesh node without a skin at the scene's root; it stays at rest in every pose
 *            (all-zero weight rows are how the scene says "static")
 *   rigid    a part the scene holds unskinned (MeshPart.skinned false) whose every vertex has all its weight on one
 *            bone: a mesh node without a skin, a child of that bone's joint node, so it follows the joint rigidly
 *   skinned  anything else: on the skin, JOINTS/WEIGHTS per vertex; `unweighted` vertices of it have no weight, and
 *            since glTF's weights must sum to 1 they are bound to the first joint
 * @param part        the part (its `skinned` flag)
 * @param map         the part's glTF vertex → scene vertex
 * @param influences  the scene's #V × stride influences as exported (largest first; a row of zeros: no weight)
 */
export function partBinding(
  part: MeshPart,
  map: Uint32Array,
  influences: Influences,
): { kind: 'static' } | { kind: 'rigid'; bone: number } | { kind: 'skinned'; unweighted: number } {
  const { stride, bones, weights } = influences;
  let unweighted = 0;
  let single = -2;
  for (const v of map) {
    const i = v * stride;
    if (!(weights[i] > 0)) {
      unweighted++;
      continue;
    }
    const oneBone = weights[i] === 1 && (stride === 1 || !(weights[i + 1] > 0));
    single = single === -2 || single === bones[i] ? (oneBone ? bones[i] : -1) : -1;
  }
  if (unweighted === map.length) return { kind: 'static' };
  if (!part.skinned && unweighted === 0 && single >= 0) return { kind: 'rigid', bone: single };
  return { kind: 'skinned', unweighted };
}
