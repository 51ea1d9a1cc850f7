/**
 * Compute weights without the page: the app's BindingController with its worker calls made in-process, its progress
 * and bind report handed to a headless caller, and its failure made the command's error (headless-commands.ts).
 */
import type { CommandId } from '../commands/command-catalog.ts';
import { BindingController } from '../bind/binding-controller.ts';
import type { MaxInfluences } from '../bind/max-influences.ts';
import { vertexCountOf } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { bindMesh, bindMeshReply } from '../../workers/weights/bind-mesh.ts';

/** How far a long command has got, as the app's progress bar says it. */
export interface HeadlessProgress {
  readonly command: CommandId;
  /** the stage as the progress bar words it, with the time so far: `Solving: bone 3 of 20 · 1.2 s` */
  readonly text: string;
  /** 0 … 1 */
  readonly fraction: number;
}

/** What a command did, as the app's Bind panel reports it, one sentence a line. */
export interface HeadlessReport {
  readonly command: CommandId;
  /** what was done: the vertices welded into fewer for the solve */
  readonly lines: readonly string[];
  /** what the artist may want to fix: bones without handle vertices, parts of the mesh without handles */
  readonly warnings: readonly string[];
}
/** Who hears a headless Compute weights: its progress as it runs, its report once done. */
export interface BindListeners {
  /** called as a long command runs (Compute weights' stages), each time its stage or fraction changes */
  onProgress?: (progress: HeadlessProgress) => void;
  /** called once a command that reports what it did is done (Compute weights: its bind report) */
  onReport?: (report: HeadlessReport) => void;
}

/**
 * The app's binding controller on `store`, its worker call made here: the bind by the binding worker's own function
 * (bindMesh, workers/binding.worker.ts), on the inputs the controller gives the worker.
 */
export function headlessBinding(store: SceneStore, maxInfluences: MaxInfluences): BindingController {
  const binding: BindingController = new BindingController({
    store,
    client: {
      // The computation runs in the controller's call: running while the controller shows its progress (so that the
      // progress it is given is taken, as the app's worker's is).
      get running() {
        return binding.progress.running;
      },
      bindMesh: (positions, triangles, skeleton, request, progress) =>
        Promise.resolve(bindMeshReply(bindMesh(positions, triangles, skeleton, request, progress))),
      cancel: () => undefined,
    },
    io: {
      readRigFile: () => Promise.reject(new Error('headless: handle files are read by the script')),
      handlesFromDmat: () => Promise.reject(new Error('headless: handle files are read by the script')),
    },
    bridge: {
      openFiles: () => Promise.resolve([]),
      saveFile: () => Promise.resolve(false),
    },
    posedPositions: () => store.doc.mesh.positions,
    viewProjection: () => ({ elements: [], width: 1, height: 1 }),
    selectedBone: () => -1,
    load: () => Promise.resolve(),
    // The controller reports a failed computation here and in lastError; failedBind turns it into the command's error.
    showError: () => undefined,
    computed: () => undefined,
    vertexMask: () => null,
    shownTriangles: () => store.doc.mesh.triangles,
    limitWeights: (weights) => maxInfluences.limit(weights),
    maxInfluences: () => maxInfluences.value,
  });
  return binding;
}

/**
 * Compute weights' progress and report for a headless caller: each change of the binding's progress goes to
 * `onProgress` while it runs, and once a command binding the scene is done, `onReport` gets its bind report.
 * @returns a wrapper for the bind commands' runs, naming the command the progress and the report belong to
 */
export function bindProgressAndReport(
  binding: BindingController,
  store: SceneStore,
  { onProgress, onReport }: BindListeners,
): (command: CommandId, run: () => Promise<void>) => Promise<void> {
  let running: CommandId | null = null;
  let last = '';
  binding.onChange(() => {
    const { running: busy, stage, fraction } = binding.progress;
    if (!busy || running === null || `${stage} ${fraction}` === last) return;
    last = `${stage} ${fraction}`;
    onProgress?.({ command: running, text: binding.progressText(), fraction });
  });
  return async (command, run) => {
    const before = binding.lastResult;
    running = command;
    last = '';
    try {
      await run();
    } finally {
      running = null;
    }
    const done = binding.lastResult;
    if (!done || done === before) return;
    const solved = vertexCountOf(store.doc);
    const welded = done.result.weldedVertexCount;
    onReport?.({
      command,
      lines: welded < solved ? [`${solved} vertices solved as ${welded} (coincident ones welded)`] : [],
      warnings: binding.reportLines(),
    });
  };
}

/**
 * The app's Compute weights never rejects (it shows its error); a script's command does: it rejects with the
 * controller's message, the scene left as it was.
 */
export async function failedBind(binding: BindingController, run: Promise<void> | void): Promise<void> {
  await run;
  if (binding.lastError !== null) throw new Error(`Compute weights failed: ${binding.lastError}`);
}
