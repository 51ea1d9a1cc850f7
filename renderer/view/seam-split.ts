/**
 * Draw vertices for OBJ texture coordinates, which OBJ gives per triangle corner: a `v` whose corners name different
 * `vt` (a UV seam) is drawn as several vertices, one per distinct `vt`. The rig's vertices stay as they are: draw
 * vertex v < #V is rig vertex v (with the `vt` of its first corner), and each further (v, vt) pair gets a copy
 * numbered from #V on, which the GPU skins as its rig vertex. Only the drawn geometry changes; weights, skinning data
 * and readbacks stay per rig vertex.
 */
import type { ObjCorners } from '../../workers/formats/types.ts';

/** The drawn geometry of a mesh with per-corner texture coordinates. */
export interface SeamSplit {
  /** per copy (draw vertex #V + i), its rig vertex */
  copyOf: Uint32Array;
  /** #F × 3 the triangles in draw vertices */
  triangles: Uint32Array;
  /** (#V + copies) × 2 texture coordinates in glTF's convention (origin top left, v down: 1 − OBJ's v); (0, 0) where none */
  uvs: Float32Array;
}

/**
 * @param triangles    #F × 3 the mesh's triangles (rig vertices)
 * @param vertexCount  #V
 * @param corners      the OBJ corners (cornerTexcoords #F × 3, -1 where a corner has none)
 * @returns the split, or null when no corner names a texture coordinate (nothing to draw with)
 */
export function seamSplit(triangles: Uint32Array, vertexCount: number, corners: ObjCorners): SeamSplit | null {
  const cornerTexcoords = corners.cornerTexcoords;
  if (cornerTexcoords.length !== triangles.length || !cornerTexcoords.some((t) => t >= 0)) return null;
  const UNCLAIMED = -2;
  const first = new Int32Array(vertexCount).fill(UNCLAIMED);
  const drawn = new Uint32Array(triangles.length);
  const copies = new Map<number, number>();
  const copyOf: number[] = [];
  const copyTexcoord: number[] = [];
  const texcoordCount = corners.texcoords.length / 2;
  for (let c = 0; c < triangles.length; c++) {
    const v = triangles[c];
    const t = cornerTexcoords[c];
    if (first[v] === UNCLAIMED || first[v] === t) {
      first[v] = t;
      drawn[c] = v;
      continue;
    }
    // One key per (v, vt): vt ranges over -1 … #vt − 1.
    const key = v * (texcoordCount + 1) + (t + 1);
    let copy = copies.get(key);
    if (copy === undefined) {
      copy = vertexCount + copyOf.length;
      copies.set(key, copy);
      copyOf.push(v);
      copyTexcoord.push(t);
    }
    drawn[c] = copy;
  }
  const uvs = new Float32Array(2 * (vertexCount + copyOf.length));
  const put = (d: number, t: number): void => {
    if (t < 0) return;
    uvs[2 * d] = corners.texcoords[2 * t];
    uvs[2 * d + 1] = 1 - corners.texcoords[2 * t + 1];
  };
  for (let v = 0; v < vertexCount; v++) put(v, first[v]);
  copyTexcoord.forEach((t, i) => put(vertexCount + i, t));
  return { copyOf: Uint32Array.from(copyOf), triangles: drawn, uvs };
}

/**
 * The drawn triangles for a triangle list over rig vertices that is the mesh's own or derived from it (hidden
 * meshes' triangles made degenerate): a triangle as the mesh has it is drawn with its split corners, any other one
 * (a degenerate stand-in) as given, so it stays degenerate in index terms too.
 */
export function drawnTriangles(shown: Uint32Array, own: Uint32Array, split: SeamSplit): Uint32Array {
  if (shown === own) return split.triangles;
  const out = new Uint32Array(shown.length);
  for (let i = 0; i < shown.length; i += 3) {
    const same = shown[i] === own[i] && shown[i + 1] === own[i + 1] && shown[i + 2] === own[i + 2];
    const from = same ? split.triangles : shown;
    out[i] = from[i];
    out[i + 1] = from[i + 1];
    out[i + 2] = from[i + 2];
  }
  return out;
}
