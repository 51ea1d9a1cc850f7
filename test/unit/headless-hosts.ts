/**
 * The hosts the paint and binding controllers run on in Node: the views they feed record nothing (or the vertices
 * packed), the matcher and the file readers are stand-ins that a test replaces where it uses them. One place for
 * the wiring the controller tests share.
 */
import { BindingController, type BindingHost } from '../../renderer/bind/binding-controller.ts';
import { PaintController, type MirrorMatcher } from '../../renderer/paint/paint-controller.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { bindMesh } from '../../workers/weights/bind-mesh.ts';

export interface HeadlessPaintOptions {
  /** the mirror match (default: refuses, for tests that do not mirror) */
  matcher?: MirrorMatcher;
  /** the selected bone (default 1) */
  selectedBone?: () => number;
  /** runs a flush before the next frame (default: never, the controller flushes itself at a stroke's end) */
  schedule?: (callback: () => void) => void;
  vertexMask?: () => Uint8Array | null;
  /** the selected vertices Flood fill fills (default: none) */
  vertexSelection?: () => Uint8Array | null;
  /** collects the vertices whose influence rows were packed for the GPU */
  packed?: Set<number>;
  /** influences per vertex the views start with (default 4) */
  stride?: number;
}

export function headlessPaintController(store: SceneStore, options: HeadlessPaintOptions = {}): PaintController {
  let influences = influencesFromWeights(store.doc.weights, options.stride ?? 4);
  const { packed } = options;
  return new PaintController({
    store,
    matcher: options.matcher ?? { mirrorVertexMap: () => Promise.reject(new Error('no mirror matching here')), cancel: () => undefined },
    selectedBone: options.selectedBone ?? (() => 1),
    weightsChanged: () => undefined,
    weightsSettled: () => undefined,
    schedule: options.schedule ?? (() => undefined),
    ...(options.vertexMask ? { vertexMask: options.vertexMask } : {}),
    ...(options.vertexSelection ? { vertexSelection: options.vertexSelection } : {}),
    views: {
      influences: () => influences,
      padInfluences: (stride) => (influences = influencesFromWeights(store.doc.weights, stride)),
      skinned: () => ({ packInfluenceRow: (_, v) => void packed?.add(v), commitInfluenceRows: () => undefined }),
      weightView: () => ({ updateVertex: () => undefined, commitVertices: () => undefined }),
    },
  });
}

/** The binding worker's bind run in the calling thread (bindMesh), for a test's client. */
export const bindInProcess: BindingHost['client']['bindMesh'] = (positions, triangles, skeleton, request, progress) =>
  Promise.resolve(bindMesh(positions, triangles, skeleton, request, progress));

/** A binding controller on `store` with `client` solving; what a test does not give is a stand-in that is not used. */
export function headlessBindingController(
  store: SceneStore,
  client: BindingHost['client'],
  host: Partial<Omit<BindingHost, 'store' | 'client'>> = {},
): BindingController {
  return new BindingController({
    io: { readRigFile: () => Promise.reject(new Error('unused')), handlesFromDmat: () => Promise.reject(new Error('unused')) },
    bridge: { openFiles: () => Promise.resolve([]), saveFile: () => Promise.resolve(true) },
    posedPositions: () => store.doc.mesh.positions,
    viewProjection: () => ({ elements: [], width: 1, height: 1 }),
    selectedBone: () => 0,
    load: () => Promise.resolve(),
    showError: () => undefined,
    computed: () => undefined,
    vertexMask: () => null,
    shownTriangles: () => store.doc.mesh.triangles,
    ...host,
    store,
    client,
  });
}
