/**
 * One bind of a mesh, as Compute weights runs it: the mesh welded once, its shells, the automatic handles when a rule
 * places them, the method (auto's choice, chooseBindingMethod) and the solve — harmonic weights from the handles or
 * volumetric weights from the bones — all on that one weld, which the result carries for the binding report and the
 * selection's welded groups.
 */
import type { TgfSkeleton } from '../formats/types.ts';
import { weldVertices, type WeldedVertices } from '../mesh/weld-vertices.ts';
import { automaticHandles, type AutomaticHandleRule } from './automatic-handles.ts';
import { chooseBindingMethod, handleFraction, weldedShells, type BindingMethod, type MeshShell } from './binding-method.ts';
import { harmonicWeights, type HarmonicWeightsOptions, type HarmonicWeightsResult } from './harmonic-weights.ts';
import { volumetricWeights, type VolumetricWeightsOptions, type VolumetricWeightsResult } from './volumetric-weights.ts';

export interface BindMeshRequest {
  /** the binding method; 'auto' chooses (chooseBindingMethod) */
  method: BindingMethod;
  /** #V the handles as they are (bone, or -1): the surface solve's, unless `rule` places them */
  handles: Int32Array;
  /** the rule that places the handles (automatic handles; not run for a volumetric bind), or null: `handles` as given */
  rule: AutomaticHandleRule | null;
  boneCount: number;
  /** vertices this close, in mesh units, are one vertex for every step (0: exactly coincident ones) */
  weldTolerance: number;
  /** the surface solve's options (its weld tolerance is the request's) */
  harmonic: HarmonicWeightsOptions;
  /** the volumetric binding's options (its weld tolerance is the request's) */
  volumetric: VolumetricWeightsOptions;
}

export interface BindMeshResult {
  method: 'surface' | 'volumetric';
  /** why auto chose the method ('' when the request named it) */
  reason: string;
  /** the welded mesh's shells */
  shells: MeshShell[];
  /** the mesh welded by the request's tolerance: every step ran on it */
  weld: WeldedVertices;
  /** #W the shell of each welded vertex */
  shellOf: Int32Array;
  /** #V the handles: the rule's where it placed them, else the request's */
  handles: Int32Array;
  /** the surface solve's result; null for a volumetric bind, or for a surface one without a handle vertex (not solved) */
  surface: HarmonicWeightsResult | null;
  /** the volumetric binding's result; null for a surface bind */
  volumetric: VolumetricWeightsResult | null;
  /**
   * wall-clock milliseconds of the bind's own steps: the weld, the shells (with their open edges), the automatic
   * handles (0 where no rule ran) and the whole bind, the solve included (its stages in its own result's timings)
   */
  timings: { weldMs: number; shellsMs: number; handlesMs: number; totalMs: number };
}

/** The weld's groups, without the welded positions and triangles: what a bind's caller keeps of its weld. */
export type WeldGroups = Pick<WeldedVertices, 'count' | 'index' | 'representative' | 'memberStart' | 'members'>;

/** A bind as the binding worker returns it: its weld's groups only (see WeldGroups). */
export type BindMeshReply = Omit<BindMeshResult, 'weld'> & { weld: WeldGroups };

/**
 * A bind's result with its weld cut to the groups (the weld's positions and triangles are the solve's, of no use to the
 * caller): the selection's welded groups and the binding report's shells need the index, the groups and the shells.
 * @param result a bindMesh result
 * @returns the same result but for its weld's positions and triangles
 */
export function bindMeshReply(result: BindMeshResult): BindMeshReply {
  const { count, index, representative, memberStart, members } = result.weld;
  return { ...result, weld: { count, index, representative, memberStart, members } };
}

/**
 * Progress of a bind: the stage and the overall fraction in [0, 1]; during the surface solve also how many bones have
 * handle vertices (the solve goes bone by bone over them).
 */
export type BindProgress = (stage: string, fraction: number, solvedBones?: number) => void;

/**
 * Binds a mesh by the request: welds it once (weldVertices), finds its shells (weldedShells), places the automatic
 * handles when a rule is given and the method may be the surface one, chooses the method, and runs harmonicWeights or
 * volumetricWeights on that weld.
 * @param positions   #V × 3 rest positions, mesh units
 * @param triangles   #F × 3 vertex indices
 * @param skeleton    joints #J × 3 and bones #B × 2, in the mesh's space
 * @param request     see BindMeshRequest
 * @param progress    see BindProgress
 * @param isCancelled polled by the solve; when it returns true the bind throws an AbortError DOMException
 * @returns what ran and what it found (see BindMeshResult)
 * @throws RangeError from the solve, naming the input that is wrong
 */
export function bindMesh(
  positions: Float64Array,
  triangles: Uint32Array,
  skeleton: TgfSkeleton,
  request: BindMeshRequest,
  progress?: BindProgress,
  isCancelled?: () => boolean,
): BindMeshResult {
  const { weldTolerance, boneCount } = request;
  progress?.('handles', 0);
  const start = performance.now();
  const weld = weldVertices(positions, triangles, { tolerance: weldTolerance });
  const welded = performance.now();
  const { shells, labels } = weldedShells(weld);
  const shelled = performance.now();
  const placed = request.rule !== null && request.method !== 'volumetric';
  const handles = placed ? automaticHandles(positions, skeleton, { ...request.rule!, weldTolerance }, weld) : request.handles;
  const handled = performance.now();
  const choice = chooseBindingMethod(request.method, shells, placed ? handleFraction(handles) : undefined);
  const bound = { method: choice.method, reason: choice.reason, shells, weld, shellOf: labels, handles };
  const timings = () => ({
    weldMs: welded - start,
    shellsMs: shelled - welded,
    handlesMs: handled - shelled,
    totalMs: performance.now() - start,
  });
  if (choice.method === 'volumetric') {
    const options = { ...request.volumetric, weldTolerance };
    const volumetric = volumetricWeights(positions, triangles, skeleton, options, progress, isCancelled, weld);
    return { ...bound, surface: null, volumetric, timings: timings() };
  }
  const active = new Set<number>();
  for (const bone of handles) if (bone >= 0) active.add(bone);
  if (active.size === 0) return { ...bound, surface: null, volumetric: null, timings: timings() };
  const solveProgress = progress && ((stage: string, fraction: number) => progress(stage, fraction, active.size));
  const options = { ...request.harmonic, weld: true, weldTolerance };
  const surface = harmonicWeights(positions, triangles, handles, boneCount, options, solveProgress, isCancelled, weld);
  return { ...bound, surface, volumetric: null, timings: timings() };
}
