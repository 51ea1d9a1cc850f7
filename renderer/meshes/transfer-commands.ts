/**
 * Weights carried onto a mesh of the scene from another of its meshes or from a file (robust transfer with inpainting,
 * workers/weights/weight-transfer.ts), as one undo step: the Meshes panel's Transfer row and the
 * weights.transferFromMesh and weights.transferFromFile commands. The target's locked bones keep their weights; the result keeps the scene's max
 * influences; a notice says how many vertices were matched and how many inpainted, and selects the inpainted ones on
 * request (the weight views draw the selection over the weights).
 */
import type { ArgumentOf, ResultOf } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { boneCountOf } from '../../workers/scene/scene-document.ts';
import { rowsOf } from '../../workers/scene/bone-data.ts';
import { limitInfluences } from '../../workers/weights/limit-influences.ts';
import {
  TRANSFER_INPAINTED,
  weightTransfer,
  type TransferLocks,
  type TransferMesh,
  type WeightTransferOptions,
  type WeightTransferResult,
} from '../../workers/weights/weight-transfer.ts';
import {
  fitAssetBones,
  readWeightedAsset,
  WEIGHTED_ASSET_EXTENSIONS,
  type AssetFile,
  type WeightedAsset,
} from '../../workers/formats/weighted-asset.ts';
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import { partMesh, withPartWeights, withSkinned } from '../document/mesh-parts.ts';
import type { MeshesController } from './meshes-controller.ts';
import type { LastTransfer } from './last-transfer.ts';

/** One transfer's inputs (weightTransfer's). */
export interface TransferRequest {
  source: TransferMesh & { weights: Float64Array };
  target: TransferMesh;
  boneCount: number;
  options: WeightTransferOptions;
  locks?: TransferLocks;
}

/** What computes a transfer and reads a file to transfer from: the app's workers (io/transfer-client.ts), or inProcessTransfer. */
export interface TransferRunner {
  /** true while a transfer is computed */
  readonly running: boolean;
  transfer(request: TransferRequest, onProgress?: (stage: string, fraction: number) => void): Promise<WeightTransferResult>;
  /** A weighted mesh from files (workers/formats/weighted-asset.ts). */
  readWeightedAsset(files: AssetFile[]): Promise<WeightedAsset>;
}

/** The transfer computed right here, for the command line's scripts and tests (no worker). */
export const inProcessTransfer: TransferRunner = {
  running: false,
  transfer: ({ source, target, boneCount, options, locks }, onProgress) =>
    Promise.resolve(weightTransfer(source, target, boneCount, options, locks, onProgress)),
  readWeightedAsset,
};

/** What the transfer commands use of the app. */
export interface TransferCommandsHost {
  readonly store: SceneStore;
  readonly transferClient: TransferRunner;
  readonly meshes: Pick<MeshesController, 'indexOf' | 'list'> & { readonly active: number };
  /** the scene's max influences: transferred weights keep it */
  readonly maxInfluences: { readonly value: number };
  readonly notice: { show(title: string, items: readonly string[], actions?: readonly { label: string; run(): void }[]): void };
  /**
   * the vertex selection the weight views show (the notice's action selects the inpainted vertices), and the binding's
   * options: the transfer welds the target by the binding's weld tolerance (absent: exactly coincident vertices)
   */
  readonly binding: {
    selectVertices(inside: Uint8Array, combine: 'replace'): void;
    readonly options?: { readonly weldTolerance: number };
  };
  setBindPanel(open: boolean): void;
  /** where the file to transfer from is asked for (the app's file opening) */
  readonly bridge?: Pick<RigwrightBridge, 'openFiles'>;
  /** each vertex's outcome of the last transfer, for the Transfer view and the binding report */
  readonly lastTransfer?: Pick<LastTransfer, 'remember'>;
}

export type TransferCommandId = 'weights.transferFromMesh' | 'weights.transferFromFile';

export function transferCommands(app: TransferCommandsHost): HandlersFor<TransferCommandId> {
  return {
    'weights.transferFromMesh': {
      run: (argument) => transferFromMesh(app, argument),
      canRun: () => app.meshes.list.length > 1 && !app.transferClient.running,
      refusal: () =>
        app.transferClient.running ? 'a weight transfer is running' : 'the scene has one mesh: there is no other mesh to take weights from',
    },
    'weights.transferFromFile': {
      run: (argument) => transferFromFile(app, argument),
      canRun: () => !app.transferClient.running,
      refusal: 'a weight transfer is running',
    },
  };
}

/** The options of both transfer commands, as weightTransfer takes them, welding by the binding's weld tolerance. */
function transferOptions(
  app: TransferCommandsHost,
  {
    maxDistance,
    maxAngle,
    smooth,
  }: {
    maxDistance?: number;
    maxAngle?: number;
    smooth?: boolean;
  },
): WeightTransferOptions {
  const weldTolerance = app.binding.options?.weldTolerance;
  return {
    ...(weldTolerance !== undefined ? { weldTolerance } : {}),
    ...(maxDistance !== undefined ? { maxDistance } : {}),
    ...(maxAngle !== undefined ? { maxAngle } : {}),
    ...(smooth === false ? { smoothIterations: 0 } : {}),
  };
}

/**
 * Transfers the weights of mesh `from` onto mesh `to` (one undo step, "Transfer weights from A to B"), computed by
 * the host's transfer runner (the app's worker); the other meshes' rows stay bit for bit.
 * @throws Error naming the meshes when they are the same one, or when the scene changed while it was computed
 */
export async function transferFromMesh(
  app: TransferCommandsHost,
  argument: ArgumentOf<'weights.transferFromMesh'>,
): Promise<ResultOf<'weights.transferFromMesh'>> {
  const { store, meshes } = app;
  const source = meshes.list[meshes.indexOf(argument.from)];
  const target = meshes.list[meshes.indexOf(argument.to)];
  if (source === target) throw new Error(`${source.name} cannot take weights from itself: choose another mesh to transfer from`);
  const doc = store.doc;
  const noHandles = new Int32Array(doc.mesh.positions.length / 3).fill(-1);
  const sourceMesh = partMesh(doc.mesh, noHandles, source);
  const weights = rowsOf(doc.weights, source.vertexStart, source.vertexCount);
  const result = await transferOnto(
    app,
    source.name,
    { positions: sourceMesh.positions, triangles: sourceMesh.triangles, weights },
    target,
    transferOptions(app, argument),
    [],
  );
  return { matched: result.matchedCount, inpainted: result.inpaintedCount, nearest: result.nearestCount };
}

/**
 * Transfers the weights of a file onto mesh `to` (the active mesh when left out; the scene's mesh when it has one):
 * the file is asked for through the app's file opening and read in the file-reading worker, its bones fitted to the
 * scene's by name where both name them, else by count (fitAssetBones). One undo step, "Transfer weights from FILE to B".
 * @returns null when no file was chosen; else the counts and how the bones were matched
 * @throws Error naming the file when it cannot be read or its bones do not fit; when no mesh is active in a scene of several
 */
export async function transferFromFile(
  app: TransferCommandsHost,
  argument: ArgumentOf<'weights.transferFromFile'> = {},
): Promise<ResultOf<'weights.transferFromFile'>> {
  const { meshes } = app;
  const index = argument.to !== undefined ? meshes.indexOf(argument.to) : meshes.list.length === 1 ? 0 : meshes.active;
  if (index < 0) throw new Error('choose the mesh that takes the weights: make it active in the Meshes panel, or give `to`');
  const target = meshes.list[index];
  if (!app.bridge) throw new Error('there is no file dialog to choose the file to take weights from');
  const files = await app.bridge.openFiles({
    title: `Transfer weights onto ${target.name} from…`,
    extensions: [...WEIGHTED_ASSET_EXTENSIONS],
  });
  if (files.length === 0) return null;
  const doc = app.store.doc;
  const asset = await app.transferClient.readWeightedAsset(files);
  const { weights, fit } = fitAssetBones(asset, doc.boneNames ?? null, boneCountOf(doc));
  const fitLine =
    fit === 'name'
      ? `Bones matched by name: ${asset.boneNames!.length} in ${asset.file}, ${boneCountOf(doc)} in the scene.`
      : `Bones matched by count (${boneCountOf(doc)}): ${asset.boneNames ? 'the scene’s bones have no names' : `${asset.file} names no bones`}.`;
  if (app.store.doc !== doc) throw new Error(`the scene changed while ${asset.file} was read: transfer from it again`);
  const result = await transferOnto(
    app,
    asset.file,
    { positions: asset.mesh.positions, triangles: asset.mesh.triangles, weights },
    target,
    transferOptions(app, argument),
    [fitLine, ...asset.warnings],
  );
  return {
    file: asset.file,
    bonesMatchedBy: fit,
    matched: result.matchedCount,
    inpainted: result.inpaintedCount,
    nearest: result.nearestCount,
  };
}

/**
 * The transfer of `source`'s weights (the scene's bones) onto mesh `target` of the scene, as one undo step with its
 * notice; the outcome of each vertex is remembered for the Transfer view.
 * @param sourceName  the mesh or file named in the step's label and the notice
 * @param extraLines  more lines for the notice (how the bones were matched, the file's warnings)
 * @throws Error when the scene changed while it was computed
 */
async function transferOnto(
  app: TransferCommandsHost,
  sourceName: string,
  source: TransferRequest['source'],
  target: MeshPart,
  options: WeightTransferOptions,
  extraLines: readonly string[],
): Promise<WeightTransferResult> {
  const { store } = app;
  const doc = store.doc;
  const nb = boneCountOf(doc);
  const rows = (part: MeshPart) => rowsOf(doc.weights, part.vertexStart, part.vertexCount);
  const noHandles = new Int32Array(doc.mesh.positions.length / 3).fill(-1);
  const targetMesh = partMesh(doc.mesh, noHandles, target);
  const locked = doc.paintLocks;
  const result = await app.transferClient.transfer({
    source,
    target: { positions: targetMesh.positions, triangles: targetMesh.triangles },
    boneCount: nb,
    options,
    ...(locked?.some((l) => l !== 0) ? { locks: { locked, weights: rows(target) } } : {}),
  });
  // These weights belong to the scene as it was: a new mesh, other weights or other meshes meanwhile make them stale.
  const now = store.doc;
  if (now.mesh !== doc.mesh || now.weights !== doc.weights || now.parts !== doc.parts || now.paintLocks !== doc.paintLocks)
    throw new Error(`the scene changed while the weights of ${sourceName} were carried to ${target.name}: transfer them again`);
  const limited = limitInfluences({ rows: target.vertexCount, cols: nb, data: result.weights }, app.maxInfluences.value, locked ?? null);
  const parts = doc.parts && withSkinned(doc.parts, target);
  store.edit(`Transfer weights from ${sourceName} to ${target.name}`, {
    weights: withPartWeights(doc.weights, target, rowsOf(limited.weights, 0, target.vertexCount)),
    weightsSource: `${doc.weightsSource}; ${target.name}: transferred from ${sourceName}`,
    ...(parts !== doc.parts ? { parts } : {}),
  });
  const vertexCount = doc.mesh.positions.length / 3;
  app.lastTransfer?.remember(sourceName, target.name, vertexCount, target.vertexStart, result.status);
  // The inpainted vertices, for the weight views' selection overlay (the notice's action shows them).
  const inpainted = inpaintedVertices(result.status, target.vertexStart, vertexCount);
  const show = {
    label: 'Select the inpainted vertices',
    run: () => {
      app.binding.selectVertices(inpainted.slice(), 'replace');
      app.setBindPanel(true);
    },
  };
  const shown = result.inpaintedCount > 0 ? [show] : [];
  app.notice.show(`Weights transferred from ${sourceName} to ${target.name}`, [...transferNoticeItems(result), ...extraLines], shown);
  return result;
}

/**
 * The vertices a transfer inpainted, as a selection of the scene: those that took their closest points' weights (a
 * part with no match) are not inpainted and are named in the notice's lines instead.
 * @param status       #Vt each target vertex's outcome (WeightTransferResult.status)
 * @param vertexStart  the target mesh's first vertex in the scene
 * @param vertexCount  the scene's vertices
 * @returns #V 1 = inpainted
 */
export function inpaintedVertices(status: Uint8Array, vertexStart: number, vertexCount: number): Uint8Array {
  const inpainted = new Uint8Array(vertexCount);
  for (let v = 0; v < status.length; v++) if (status[v] === TRANSFER_INPAINTED) inpainted[vertexStart + v] = 1;
  return inpainted;
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
