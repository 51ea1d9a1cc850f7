/**
 * The renderer's handle on the binding worker (workers/binding.worker.ts); paint mode keeps a second one for mirror
 * matching, so the two never wait on each other. One computation at a time per client; `cancel`
 * terminates the worker — the only way to stop a synchronous solve without SharedArrayBuffer — rejects the
 * pending call with an AbortError, and the next call starts a fresh worker. A worker that crashes (out of memory,
 * an uncaught error) rejects the pending call with a WorkerCrashError and is replaced the same way
 * (worker-supervisor.ts). The main thread never waits on the solver, so the viewport keeps drawing.
 *
 * Inputs are copied once into new buffers that are then transferred (the document keeps its own arrays);
 * results come back transferred.
 */
import { transfer, type Remote } from 'comlink';
import type { BindingApi } from '../../workers/binding.worker.ts';
import type { TgfSkeleton } from '../../workers/formats/types.ts';
import type { MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import type { BindMeshReply, BindMeshRequest, BindProgress } from '../../workers/weights/bind-mesh.ts';
import { callWithProgress, SupervisedWorker } from './worker-supervisor.ts';

export class BindingClient {
  private readonly worker = new SupervisedWorker<BindingApi>(
    'binding worker',
    () => new Worker(new URL('../../workers/binding.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-binding' }),
  );
  /** the call in flight, if any */
  private current: object | null = null;

  get running(): boolean {
    return this.current !== null;
  }

  /**
   * A whole bind in the worker (bindMesh: one weld, the shells, the automatic handles, the method, the solve); the
   * result carries the weld's groups. Copies the inputs and transfers the copies.
   * @param onProgress  stage, overall fraction in [0, 1] and, in the surface solve, the bones with handles; not called
   *                    once the returned promise has settled
   * @throws DOMException AbortError after `cancel`; the binding's own errors otherwise
   */
  bindMesh(
    positions: Float64Array,
    triangles: Uint32Array,
    skeleton: TgfSkeleton,
    request: BindMeshRequest,
    onProgress: BindProgress,
  ): Promise<BindMeshReply> {
    const p = positions.slice();
    const t = triangles.slice();
    const joints = skeleton.joints.slice();
    const bones = skeleton.bones.slice();
    const handles = request.handles.slice();
    return callWithProgress(onProgress, (progress) =>
      this.run('Computing weights', (remote) =>
        remote.bindMesh(
          transfer(p, [p.buffer]),
          transfer(t, [t.buffer]),
          transfer({ joints, bones }, [joints.buffer, bones.buffer]),
          transfer({ ...request, handles }, [handles.buffer]),
          progress,
        ),
      ),
    );
  }

  /**
   * Mirror partners for symmetric painting in the worker (copies the inputs, transfers the copies).
   * @param onProgress  fraction of vertices matched, in [0, 1]; not called once the returned promise has settled
   * @throws DOMException AbortError after `cancel`
   */
  mirrorVertexMap(
    positions: Float64Array,
    triangles: Uint32Array,
    axis: 0 | 1 | 2,
    tolerance: number,
    onProgress: (fraction: number) => void,
  ): Promise<MirrorVertexMap> {
    const p = positions.slice();
    const t = triangles.slice();
    return callWithProgress(onProgress, (progress) =>
      this.run('Matching mirror vertices', (remote) =>
        remote.mirrorVertexMap(transfer(p, [p.buffer]), transfer(t, [t.buffer]), axis, tolerance, progress),
      ),
    );
  }

  /** Stops the running call at once (its promise rejects with AbortError); no-op when idle. */
  cancel(): void {
    if (!this.current) return;
    this.current = null;
    this.worker.stop(new DOMException('binding cancelled', 'AbortError'));
  }

  private run<T>(work: string, call: (remote: Remote<BindingApi>) => Promise<T>): Promise<T> {
    if (this.current) return Promise.reject(new Error('a binding computation is already running'));
    const token = {};
    this.current = token;
    const settle = () => {
      if (this.current === token) this.current = null;
    };
    return this.worker.call(work, call).then(
      (value) => {
        settle();
        return value;
      },
      (error: unknown) => {
        settle();
        throw error;
      },
    );
  }
}
