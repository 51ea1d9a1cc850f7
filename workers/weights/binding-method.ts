/**
 * Which binding a mesh gets: surface harmonic weights (exact and fast on a closed, connected surface) or volumetric
 * geodesic voxel binding (every shell of a mesh made of several, open or intersecting, gets weights). The choice is
 * made on the welded mesh, so a mesh split at seams counts as the surface it is.
 */
import { connectedComponents } from '../mesh/connected-components.ts';
import { weldVertices, type WeldedVertices } from '../mesh/weld-vertices.ts';

/**
 * 'auto': volumetric for a mesh of several shells or with a boundary, or one whose automatic handles take more than
 * RIGID_HANDLE_FRACTION of its vertices; surface harmonic for any other closed connected one.
 */
export type BindingMethod = 'auto' | 'surface' | 'volumetric';

export const BINDING_METHODS = ['auto', 'surface', 'volumetric'] as const;

/** One connected piece of the welded mesh. */
export interface MeshShell {
  /** the input's vertices in it */
  vertexCount: number;
  /** its lowest input vertex, to point the user at it */
  firstVertex: number;
  /** welded edges of one triangle only (a hole's rim, an open sheet's border); 0 for a closed shell */
  boundaryEdges: number;
  /** welded edges of three triangles or more (fins, T-junctions) */
  nonManifoldEdges: number;
}

/** The shells of a welded mesh, and the shell of each welded vertex. */
export interface WeldedShells {
  /** the shells in order of their lowest input vertex */
  shells: MeshShell[];
  /** #W the shell of each welded vertex (an index into `shells`) */
  labels: Int32Array;
}

/**
 * The shells of a mesh after welding: connected components of the welded triangles (a vertex in no triangle is a
 * shell of its own), each with its boundary and non-manifold edge counts.
 *
 * @param positions     #V × 3 positions
 * @param triangles     #F × 3 vertex indices
 * @param weldTolerance see WeldVerticesOptions.tolerance (mesh units)
 * @returns the shells in order of their lowest vertex
 */
export function meshShells(positions: Float64Array, triangles: Uint32Array, weldTolerance = 0): MeshShell[] {
  return weldedShells(weldVertices(positions, triangles, { tolerance: weldTolerance })).shells;
}

/** The longest bucket of a vertex's sides that weldedShells sorts by insertion. */
const INSERTION_SORT_MOST = 16;

/**
 * meshShells on a mesh already welded (weldVertices), so that one weld serves the method's choice, the solve and the
 * binding report.
 * @param weld the welded mesh
 * @returns its shells and each welded vertex's shell
 */
export function weldedShells(weld: WeldedVertices): WeldedShells {
  const { count, labels } = connectedComponents(weld.count, weld.triangles);
  const shells: MeshShell[] = Array.from({ length: count }, () => ({
    vertexCount: 0,
    firstVertex: -1,
    boundaryEdges: 0,
    nonManifoldEdges: 0,
  }));
  for (let v = 0; v < weld.index.length; v++) {
    const shell = shells[labels[weld.index[v]]];
    shell.vertexCount++;
    if (shell.firstVertex < 0) shell.firstVertex = v;
  }
  // Edge use counts: each triangle side under its lower welded vertex (a bucket per vertex), then each bucket's higher
  // vertices sorted, so equal sides sit together and a run's length is how many triangles use the edge.
  const t = weld.triangles;
  const start = new Int32Array(weld.count + 1);
  for (let i = 0; i < t.length; i++) {
    const a = t[i];
    const b = t[i % 3 === 2 ? i - 2 : i + 1];
    start[(a < b ? a : b) + 1]++;
  }
  for (let v = 0; v < weld.count; v++) start[v + 1] += start[v];
  const fill = start.slice(0, weld.count);
  const higher = new Int32Array(t.length);
  for (let i = 0; i < t.length; i++) {
    const a = t[i];
    const b = t[i % 3 === 2 ? i - 2 : i + 1];
    higher[fill[a < b ? a : b]++] = a < b ? b : a;
  }
  for (let v = 0; v < weld.count; v++) {
    const first = start[v];
    const end = start[v + 1];
    // Insertion sort where a bucket holds a vertex's few sides (most do), the typed array's sort beyond (a fan's hub
    // holds two sides per triangle around it, which insertion would sort in quadratic time).
    if (end - first > INSERTION_SORT_MOST) higher.subarray(first, end).sort();
    else
      for (let i = first + 1; i < end; i++) {
        const x = higher[i];
        let j = i;
        for (; j > first && higher[j - 1] > x; j--) higher[j] = higher[j - 1];
        higher[j] = x;
      }
    for (let i = first; i < end;) {
      let j = i + 1;
      while (j < end && higher[j] === higher[i]) j++;
      if (j - i === 1) shells[labels[v]].boundaryEdges++;
      else if (j - i > 2) shells[labels[v]].nonManifoldEdges++;
      i = j;
    }
  }
  return { shells, labels };
}

/**
 * Above this fraction of a mesh's vertices being automatic handles, 'auto' binds volumetrically. Handle vertices keep
 * their bone's weight 1, so when most of the mesh is handles the surface solve decides the weights of under half of
 * it and the rest moves rigidly, the blend squeezed into the few rings between two handles. It happens where whole
 * cross-sections lie inside the handles: bones short against the mesh's thickness around them (a distance-rule
 * sphere reaches 1.1 × the local radius either side of the bone's midpoint) or limbs thinner than the cylinders. Measured
 * with the default distance rule: the shipped Fox 60% and RiggedFigure 70% (both closer to the artists' weights when
 * bound volumetrically), CesiumMan 10%, the course hand 30% and body 12% (bound well by the surface solve); 0.5 is
 * "most of the mesh", clear of each of them by 10 points.
 */
export const RIGID_HANDLE_FRACTION = 0.5;

/**
 * The fraction of vertices that are handles.
 * @param handles #V: bone index of each handle vertex, -1 for free vertices
 * @returns 0 to 1 (0 for no vertices)
 */
export function handleFraction(handles: Int32Array): number {
  let handled = 0;
  for (const h of handles) if (h >= 0) handled++;
  return handles.length > 0 ? handled / handles.length : 0;
}

/** The method a bind runs and, for 'auto', why: a sentence for the binding report. */
export interface BindingMethodChoice {
  method: 'surface' | 'volumetric';
  /** why 'auto' chose it (empty for a method given explicitly) */
  reason: string;
}

/**
 * The method a bind runs: `method` itself unless it is 'auto', which is volumetric for a mesh of several shells or
 * with a boundary (or non-manifold edges), or whose automatic handles take more than RIGID_HANDLE_FRACTION of its
 * vertices, and surface harmonic for any other closed, connected one.
 *
 * @param shells        the welded mesh's shells (meshShells)
 * @param handleShare   the fraction of vertices the automatic handles (the rule the options name) would make handles
 *                      (handleFraction); absent when the surface solve would use handles the artist gave, which are
 *                      the artist's choice and never switch the method
 */
export function chooseBindingMethod(method: BindingMethod, shells: readonly MeshShell[], handleShare?: number): BindingMethodChoice {
  if (method !== 'auto') return { method, reason: '' };
  if (shells.length !== 1) return { method: 'volumetric', reason: `auto chose volumetric: ${shells.length} shells after welding` };
  const open = shells[0].boundaryEdges + shells[0].nonManifoldEdges;
  if (open > 0) return { method: 'volumetric', reason: `auto chose volumetric: the welded mesh is open (${open} open edges)` };
  const percent = (f: number) => `${Math.round(100 * f)}%`;
  if (handleShare !== undefined && handleShare > RIGID_HANDLE_FRACTION)
    return {
      method: 'volumetric',
      reason: `auto chose volumetric: the automatic handles take ${percent(handleShare)} of the vertices (over ${percent(RIGID_HANDLE_FRACTION)}), a surface solve would bind most of the mesh rigidly`,
    };
  const share = handleShare === undefined ? '' : `, automatic handles on ${percent(handleShare)} of the vertices`;
  return { method: 'surface', reason: `auto chose surface: one closed shell${share}` };
}

/** chooseBindingMethod's method alone. */
export function resolveBindingMethod(method: BindingMethod, shells: readonly MeshShell[], handleShare?: number): 'surface' | 'volumetric' {
  return chooseBindingMethod(method, shells, handleShare).method;
}

/** How many shells a report names one by one; the rest are summed up in one line. */
const LISTED_SHELLS = 8;

/**
 * Which method bound which shell, as sentences for people (the Bind panel and the command line).
 * @param vertexOffset added to each shell's first vertex (a mesh part's place in the scene)
 */
export function shellReport(shells: readonly MeshShell[], method: 'surface' | 'volumetric', vertexOffset = 0): string[] {
  const how = method === 'volumetric' ? 'volumetric (geodesic voxels)' : 'surface (harmonic)';
  const describe = (s: MeshShell) => {
    const edges = [
      s.boundaryEdges > 0 ? `${s.boundaryEdges} boundary edge${s.boundaryEdges === 1 ? '' : 's'}` : '',
      s.nonManifoldEdges > 0 ? `${s.nonManifoldEdges} non-manifold edge${s.nonManifoldEdges === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    return `${s.vertexCount} vertices from vertex ${s.firstVertex + vertexOffset}, ${edges.length > 0 ? `open (${edges.join(', ')})` : 'closed'}`;
  };
  if (shells.length === 1) return [`one shell (${describe(shells[0])}): bound ${how}`];
  const lines = [`${shells.length} shells, all bound ${how}:`];
  const sorted = [...shells].sort((a, b) => b.vertexCount - a.vertexCount || a.firstVertex - b.firstVertex);
  for (const s of sorted.slice(0, LISTED_SHELLS)) lines.push(`shell of ${describe(s)}`);
  if (sorted.length > LISTED_SHELLS) {
    const rest = sorted.slice(LISTED_SHELLS);
    lines.push(`and ${rest.length} smaller shells of ${rest.reduce((sum, s) => sum + s.vertexCount, 0)} vertices in all`);
  }
  return lines;
}
