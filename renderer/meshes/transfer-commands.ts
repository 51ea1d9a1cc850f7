/**
 * Weights carried from one mesh of the scene to another (robust transfer with inpainting,
 * workers/weights/weight-transfer.ts), as one undo step: the Meshes panel's Transfer button and the
 * weights.transferFromMesh command. The target's locked bones keep their weights; the result keeps the scene's max
 * influences; a notice says how many vertices were matched and how many inpainted, and selects the inpainted ones on
 * request (the weight views draw the selection over the weights).
 */
import type { ArgumentOf, ResultOf } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { boneCountOf } from '../../workers/scene/scene-document.ts';
import { limitInfluences } from '../../workers/weights/limit-influences.ts';
import {
  TRANSFER_MATCHED,
  weightTransfer,
  type TransferLocks,
  type TransferMesh,
  type WeightTransferOptions,
  type WeightTransferResult,
} from '../../workers/weights/weight-transfer.ts';
import { partMesh, withPartWeights, withSkinned } from '../document/mesh-parts.ts';
import type { MeshesController } from './meshes-controller.ts';

/** One transfer's inputs (weightTransfer's). */
export interface TransferRequest {
  source: TransferMesh & { weights: Float64Array };
  target: TransferMesh;
  boneCount: number;
  options: WeightTransferOptions;
  locks?: TransferLocks;
}

/** What computes a transfer: the app's worker (io/transfer-client.ts), or inProcessTransfer. */
export interface TransferRunner {
  /** true while a transfer is computed */
  readonly running: boolean;
  transfer(request: TransferRequest, onProgress?: (stage: string, fraction: number) => void): Promise<WeightTransferResult>;
}

/** The transfer computed right here, for the command line's scripts and tests (no worker). */
export const inProcessTransfer: TransferRunner = {
  running: false,
  transfer: ({ source, target, boneCount, options, locks }, onProgress) =>
    Promise.resolve(weightTransfer(source, target, boneCount, options, locks, onProgress)),
};

/** What the transfer command uses of the app. */
export interface TransferCommandsHost {
  readonly store: SceneStore;
  readonly transferClient: TransferRunner;
  readonly meshes: Pick<MeshesController, 'indexOf' | 'list'>;
  /** the scene's max influences: transferred weights keep it */
  readonly maxInfluences: { readonly value: number };
  readonly notice: { show(title: string, items: readonly string[], actions?: readonly { label: string; run(): void }[]): void };
  /** the vertex selection the weight views show: the notice's action selects the vertices not matched */
  readonly binding: { selectVertices(inside: Uint8Array, combine: 'replace'): void };
  setBindPanel(open: boolean): void;
}

export type TransferCommandId = 'weights.transferFromMesh';

export function transferCommands(app: TransferCommandsHost): HandlersFor<TransferCommandId> {
  return {
    'weights.transferFromMesh': {
      run: (argument) => transferFromMesh(app, argument),
      canRun: () => app.meshes.list.length > 1 && !app.transferClient.running,
      refusal: () =>
        app.transferClient.running ? 'a weight transfer is running' : 'the scene has one mesh: there is no other mesh to take weights from',
    },
  };
}

/**
 * Transfers the weights of mesh `from` onto mesh `to` (one undo step, "Transfer weights from A to B"), computed by
 * the host's transfer runner (the app's worker); the other meshes' rows stay bit for bit.
 * @throws Error naming the meshes when they are the same one, or when the scene changed while it was computed
 */
export async function transferFromMesh(
  app: TransferCommandsHost,
  { from, to, maxDistance, maxAngle, smooth }: ArgumentOf<'weights.transferFromMesh'>,
): Promise<ResultOf<'weights.transferFromMesh'>> {
  const { store, meshes } = app;
  const source = meshes.list[meshes.indexOf(from)];
  const target = meshes.list[meshes.indexOf(to)];
  if (source === target) throw new Error(`${source.name} cannot take weights from itself: choose another mesh to transfer from`);
  const doc = store.doc;
  const nb = boneCountOf(doc);
  const rows = (part: MeshPart) => doc.weights.data.subarray(part.vertexStart * nb, (part.vertexStart + part.vertexCount) * nb);
  const noHandles = new Int32Array(doc.mesh.positions.length / 3).fill(-1);
  const sourceMesh = partMesh(doc.mesh, noHandles, source);
  const targetMesh = partMesh(doc.mesh, noHandles, target);
  const locked = doc.paintLocks;
  const result = await app.transferClient.transfer({
    source: { positions: sourceMesh.positions, triangles: sourceMesh.triangles, weights: rows(source) },
    target: { positions: targetMesh.positions, triangles: targetMesh.triangles },
    boneCount: nb,
    options: {
      ...(maxDistance !== undefined ? { maxDistance } : {}),
      ...(maxAngle !== undefined ? { maxAngle } : {}),
      ...(smooth === false ? { smoothIterations: 0 } : {}),
    },
    ...(locked?.some((l) => l !== 0) ? { locks: { locked, weights: rows(target) } } : {}),
  });
  // These weights belong to the scene as it was: a new mesh, other weights or other meshes meanwhile make them stale.
  const now = store.doc;
  if (now.mesh !== doc.mesh || now.weights !== doc.weights || now.parts !== doc.parts || now.paintLocks !== doc.paintLocks)
    throw new Error(`the scene changed while the weights of ${source.name} were carried to ${target.name}: transfer them again`);
  const limited = limitInfluences({ rows: target.vertexCount, cols: nb, data: result.weights }, app.maxInfluences.value, locked ?? null);
  const parts = doc.parts && withSkinned(doc.parts, target);
  store.edit(`Transfer weights from ${source.name} to ${target.name}`, {
    weights: withPartWeights(doc.weights, target, limited.weights.data),
    weightsSource: `${doc.weightsSource}; ${target.name}: transferred from ${source.name}`,
    ...(parts !== doc.parts ? { parts } : {}),
  });
  // The vertices not matched, for the weight views' selection overlay (the notice's action shows them).
  const unmatched = new Uint8Array(doc.mesh.positions.length / 3);
  for (let v = 0; v < target.vertexCount; v++) if (result.status[v] !== TRANSFER_MATCHED) unmatched[target.vertexStart + v] = 1;
  const show = {
    label: 'Select the inpainted vertices',
    run: () => {
      app.binding.selectVertices(unmatched.slice(), 'replace');
      app.setBindPanel(true);
    },
  };
  const shown = result.inpaintedCount + result.nearestCount > 0 ? [show] : [];
  app.notice.show(`Weights transferred from ${source.name} to ${target.name}`, transferNoticeItems(result), shown);
  return { matched: result.matchedCount, inpainted: result.inpaintedCount, nearest: result.nearestCount };
}

/** The notice's lines: how many vertices matched, were inpainted, smoothed, or had nothing to be inpainted from. */
export function transferNoticeItems(result: WeightTransferResult): string[] {
  const vertices = (count: number) => `${count} ${count === 1 ? 'vertex' : 'vertices'}`;
  const items = [
    `${vertices(result.matchedCount)} matched a point of the source within the distance and angle; ${vertices(result.inpaintedCount)} inpainted from them${
      result.smoothedCount > 0 ? `, ${vertices(result.smoothedCount)} smoothed` : ''
    }.`,
  ];
  if (result.nearestCount > 0)
    items.push(
      `${vertices(result.nearestCount)} in parts with no match took their closest points’ weights: check them, or raise the distance or angle.`,
    );
  if (result.unnormalizedCount > 0)
    items.push(
      `${vertices(result.unnormalizedCount)} could not sum to 1: the locked bones leave no room, or the source has no weight there.`,
    );
  return items;
}
