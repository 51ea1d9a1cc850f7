/**
 * The binding worker: a whole bind (bindMesh: automatic handles, harmonic or volumetric weights on one weld) and
 * mirror matching for symmetric painting, off the main thread so the viewport keeps drawing while a large mesh is
 * factorized or matched. A thin comlink wrapper over
 * workers/weights/ and workers/paint/mirror-vertex-map.ts.
 *
 * Progress travels back through a comlink-proxied callback (fire-and-forget messages). Cancellation does NOT
 * travel in: the solve is one synchronous call, so this worker reads no message until it returns, and a proxied
 * `isCancelled` would answer with a Promise, never a boolean. Without SharedArrayBuffer (it needs COOP/COEP
 * headers the web build cannot count on) the caller cancels by terminating this worker and starting a new one
 * (renderer/binding-client.ts): immediate at any stage, and nothing in here outlives a call.
 *
 * Every typed array returned is transferred, not copied.
 */
import { expose, transfer } from 'comlink';
import type { TgfSkeleton } from './formats/types.ts';
import { mirrorVertexMap, type MirrorVertexMap } from './paint/mirror-vertex-map.ts';
import { bindMesh, bindMeshReply, type BindMeshReply, type BindMeshRequest, type BindProgress } from './weights/bind-mesh.ts';

export const bindingApi = {
  /**
   * A whole bind (see bindMesh): one weld, the shells, the automatic handles, the method and the solve, the weld's
   * groups carried back (bindMeshReply: not its positions and triangles). `progress` is a comlink proxy (see
   * BindProgress).
   */
  bindMesh(
    positions: Float64Array,
    triangles: Uint32Array,
    skeleton: TgfSkeleton,
    request: BindMeshRequest,
    progress?: BindProgress,
  ): BindMeshReply {
    const result = bindMeshReply(
      bindMesh(positions, triangles, skeleton, request, (stage, fraction, bones) => void progress?.(stage, fraction, bones)),
    );
    const { weld } = result;
    const arrays = [
      weld.index,
      weld.representative,
      weld.memberStart,
      weld.members,
      result.shellOf,
      result.handles,
      result.surface?.weights,
      result.volumetric?.weights,
    ];
    // Each buffer once (the handles may be the request's own).
    const buffers = new Set<ArrayBufferLike>();
    for (const array of arrays) if (array) buffers.add(array.buffer);
    return transfer(result, [...buffers] as ArrayBuffer[]);
  },

  /** Mirror partners across the plane axis = 0 (see mirrorVertexMap); `progress` receives the fraction matched. */
  mirrorVertexMap(
    positions: Float64Array,
    triangles: Uint32Array,
    axis: 0 | 1 | 2,
    tolerance: number,
    progress?: (fraction: number) => void,
  ): MirrorVertexMap {
    const map = mirrorVertexMap(positions, triangles, axis, tolerance, (fraction) => void progress?.(fraction));
    return transfer(map, [map.triangle.buffer, map.barycentric.buffer, map.partner.buffer, map.distance.buffer, map.unmatched.buffer]);
  },
};

export type BindingApi = typeof bindingApi;

expose(bindingApi);
