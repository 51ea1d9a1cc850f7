/**
 * A scene part's geometry as glTF primitives for a fresh export (fresh-document.ts): its vertices (split per OBJ
 * corner, fresh-parts.ts partLayout) with POSITION, NORMAL, TEXCOORD_0 (from the OBJ corners or the look's
 * per-vertex uvs) and TANGENT where a material has a normal map (vertex-tangents.ts), and one primitive per material
 * run sharing those vertex accessors. Weights are the weights step's (skin-weights-step.ts).
 */
import type { Accessor, Document, Material, Primitive } from '@gltf-transform/core';
import { partLayout } from './fresh-parts.ts';
import type { MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from '../types.ts';
import { vertexTangents } from '../vertex-tangents.ts';

/** What the primitives are made from. */
export interface PartGeometry {
  doc: Document;
  accessor: (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4', array: Float32Array | Uint16Array | Uint32Array) => Accessor;
  mesh: TriangleMesh;
  /** #V × 3 unit vertex normals, used where the OBJ corner names none */
  restNormals: Float64Array;
  corners: ObjCorners | null;
  look: SurfaceLook | undefined;
  materials: readonly Material[];
  warnings: string[];
}

/**
 * The part's primitives (one per non-empty material run, the first carrying the vertex attributes the others share)
 * and its glTF vertex → scene vertex map.
 */
export function partPrimitives(geometry: PartGeometry, part: MeshPart): { primitives: Primitive[]; map: Uint32Array } {
  const { doc, accessor, mesh, restNormals, corners, look, materials, warnings } = geometry;
  const layout = partLayout(part, mesh.triangles, corners);
  const { map } = layout;
  const n = map.length;
  const positions = new Float32Array(3 * n);
  const normals = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const v = map[i];
    const vn = layout.normal ? layout.normal[i] : -1;
    for (let c = 0; c < 3; c++) {
      positions[3 * i + c] = mesh.positions[3 * v + c];
      normals[3 * i + c] = vn >= 0 ? corners!.normals[3 * vn + c] : restNormals[3 * v + c];
    }
  }
  const unit = unitNormals(normals);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('NORMAL', accessor('VEC3', unit));
  const runs = part.materialRanges ?? [{ triangleCount: part.triangleCount, material: part.material }];
  const runMaterials = runs.map((run) => (run.material >= 0 ? materials[run.material] : null));
  const textured = runMaterials.some((m) => m?.getBaseColorTexture() || m?.getNormalTexture() || m?.getEmissiveTexture());
  let uvs: Float32Array | null = null;
  if (layout.texcoord && layout.texcoord.some((t) => t >= 0)) {
    // OBJ puts v = 0 at the bottom of the image, glTF at the top.
    uvs = new Float32Array(2 * n);
    const used = new Uint8Array(n);
    for (const i of layout.indices) used[i] = 1;
    let missing = 0;
    layout.texcoord.forEach((t, i) => {
      if (t >= 0) {
        uvs![2 * i] = corners!.texcoords[2 * t];
        uvs![2 * i + 1] = 1 - corners!.texcoords[2 * t + 1];
      } else if (used[i]) missing++;
    });
    if (missing > 0) warnings.push(`mesh "${part.name}": ${missing} vertices have no texture coordinate in the OBJ file; they get (0, 0)`);
  } else if (!layout.texcoord && look?.uvs) {
    uvs = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) {
      uvs[2 * i] = look.uvs[2 * map[i]];
      uvs[2 * i + 1] = look.uvs[2 * map[i] + 1];
    }
  } else if (textured) {
    uvs = new Float32Array(2 * n);
    warnings.push(`mesh "${part.name}": its material has a texture but the mesh has no texture coordinates; all are (0, 0)`);
  }
  if (uvs) primitive.setAttribute('TEXCOORD_0', accessor('VEC2', uvs));
  // A normal map needs a tangent space, written rather than left to each reader to make up (vertex-tangents.ts).
  if (uvs && runMaterials.some((m) => m?.getNormalTexture()))
    primitive.setAttribute('TANGENT', accessor('VEC4', vertexTangents(positions, unit, uvs, layout.indices)));
  const primitives: Primitive[] = [];
  let first = 0;
  runs.forEach((run, r) => {
    if (run.triangleCount === 0) return;
    const indices = layout.indices.subarray(3 * first, 3 * (first + run.triangleCount));
    first += run.triangleCount;
    const runPrimitive = primitives.length === 0 ? primitive : primitive.clone();
    runPrimitive.setIndices(accessor('SCALAR', n <= 65535 ? Uint16Array.from(indices) : indices.slice()));
    runPrimitive.setMaterial(runMaterials[r]);
    primitives.push(runPrimitive);
  });
  return { primitives, map };
}

/** Float32 normals renormalized after rounding, so that every stored normal is unit within float32 precision. */
function unitNormals(normals: Float64Array): Float32Array {
  const out = new Float32Array(normals.length);
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i],
      y = normals[i + 1],
      z = normals[i + 2];
    const length = Math.hypot(x, y, z);
    if (length > 0 && Number.isFinite(length)) {
      out[i] = x / length;
      out[i + 1] = y / length;
      out[i + 2] = z / length;
    } else {
      out[i + 2] = 1;
    }
  }
  return out;
}
