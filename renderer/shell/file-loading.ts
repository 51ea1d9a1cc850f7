/**
 * Files into the scene: batches from the Open dialog, drag and drop, or the desktop shell, read one batch after
 * another. A new mesh or skeleton opens a new scene (and a new undo history); weights, poses or handles opened
 * into the current scene are one undoable step. The files of a batch that fit are loaded together; those that do
 * not are listed with the reason in one notice. A batch of which nothing fits changes nothing.
 */
import type { OpenedFile, RigwrightBridge } from '../../app/ipc-contract.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import { isProjectFile } from '../../workers/formats/project-file.ts';
import type { ExampleLoadOptions } from '../document/example-files.ts';
import { loadBatchIntoDocument } from '../document/load-files.ts';
import { countOf } from '../project/plain-number.ts';
import type { NoticeAction } from '../panels/notice.ts';
import { LoadError, errorMessage, examplesOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { readBrowserFiles } from '../io/bridge.ts';
import { getIoClient } from '../io/io-client.ts';
import { gpuLimitProblem } from '../view/skinned-mesh.ts';

/** What loading files needs of the app. */
export interface FileLoadingHost {
  readonly store: SceneStore;
  readonly viewport: { readonly maxTextureSize: number; invalidate(): void };
  readonly bridge: Pick<RigwrightBridge, 'openFiles'>;
  /** `error`: something failed (a file was not loaded), so the notice stays until it is dismissed */
  readonly notice: {
    show(title: string, lines: readonly string[], actions?: readonly NoticeAction[], options?: { error?: boolean }): void;
  };
  readonly examples: { loadOptions(asExamples: boolean): ExampleLoadOptions };
  /** the question before unsaved work goes */
  readonly work: { readonly guard: { mayDiscard(): Promise<boolean> } };
  readonly project: { openDropped(file: OpenedFile): Promise<void> };
  setError(message: string | null): void;
  refreshChrome(): void;
  /** the influences the viewport would skin these weights with (the GPU's limits are checked on them) */
  influencesFor(weights: DenseMatrix): Influences;
}

export class FileLoading {
  /** the names of the batch being read, for the status line */
  loading: string[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly app: FileLoadingHost) {}

  /**
   * Loads a batch of files; batches run one after another, each swapping the scene whole or not at all.
   * @param options  asExamples: every mesh is an example (the Examples panel's Add)
   */
  load(files: OpenedFile[], options: Pick<ExampleLoadOptions, 'asExamples'> = {}): Promise<void> {
    // A project file (a .glb carrying the project extension) opens as a project: a new scene with its settings.
    const project = files.length === 1 && !options.asExamples && isProjectFile(files[0].bytes) ? files[0] : null;
    if (project) {
      this.queue = this.queue.then(() => this.app.project.openDropped(project));
      return this.queue;
    }
    this.queue = this.queue.then(() => this.loadNow(files, options.asExamples ?? false));
    return this.queue;
  }

  dropFiles(files: File[]): void {
    readBrowserFiles(files).then(
      (opened) => this.load(opened),
      (error: unknown) => this.app.setError(`Could not read the dropped files: ${errorMessage(error)}`),
    );
  }

  /**
   * A new mesh or skeleton is a new scene (a new undo history); weights, poses or handles opened into the scene
   * are one undoable step. Files left out and warnings are shown in one notice.
   */
  private async loadNow(files: OpenedFile[], asExamples: boolean): Promise<void> {
    this.app.setError(null);
    this.loading = files.map((f) => f.name);
    this.app.refreshChrome();
    try {
      const options = this.app.examples.loadOptions(asExamples);
      let base = this.app.store.doc;
      let { document: candidate, refused } = await loadBatchIntoDocument(base, files, getIoClient(), options);
      // The scene changed while the files were read: read them again onto the new scene, so the load does not
      // silently undo that change.
      while (this.app.store.doc !== base) {
        base = this.app.store.doc;
        ({ document: candidate, refused } = await loadBatchIntoDocument(base, files, getIoClient(), options));
      }
      const influences = this.app.influencesFor(candidate.weights);
      const problem = gpuLimitProblem(candidate, influences.stride, this.app.viewport.maxTextureSize);
      if (problem) throw new LoadError(problem);
      const refusedNames = new Set(refused.map((r) => r.file));
      const names = files
        .filter((f) => !refusedNames.has(f.name))
        .map((f) => f.name)
        .join(', ');
      if (candidate.mesh !== base.mesh || candidate.skeleton !== base.skeleton) {
        // A new scene replaces the current one: unsaved changes are saved or let go first, or nothing happens.
        if (!(await this.app.work.guard.mayDiscard()) || this.app.store.doc !== base) return;
        this.app.store.open(candidate, `opened ${names}`);
      } else this.app.store.edit(editLabel(base, candidate, names), candidate);
      for (const warning of candidate.warnings) console.warn(warning);
      const notLoaded = refused.map((r) => `Not loaded: ${r.message}`);
      const problems = [
        ...(refused.length > 0 ? [`${countOf(refused.length, 'file')} not loaded`] : []),
        ...(candidate.warnings.length > 0 ? [countOf(candidate.warnings.length, 'warning')] : []),
      ];
      if (problems.length > 0)
        this.app.notice.show(`Opened ${candidate.name} with ${problems.join(' and ')}`, [...notLoaded, ...candidate.warnings], [], {
          error: refused.length > 0,
        });
    } catch (error) {
      this.app.setError(errorMessage(error));
    } finally {
      this.loading = [];
      this.app.refreshChrome();
      this.app.viewport.invalidate();
    }
  }

  openFiles(options: Pick<ExampleLoadOptions, 'asExamples'> = {}): Promise<void> {
    return this.app.bridge.openFiles().then(
      (files) => (files.length > 0 ? this.load(files, options) : undefined),
      (error: unknown) => this.app.setError(`Could not open files: ${errorMessage(error)}`),
    );
  }
}

/** 'Add examples eg0, eg1' when the batch only added examples, else 'Open <files>'. */
function editLabel(base: SceneDocument, candidate: SceneDocument, names: string): string {
  const before = examplesOf(base);
  const added = examplesOf(candidate).slice(before.length);
  const onlyExamples =
    added.length > 0 &&
    candidate.weights === base.weights &&
    candidate.poses === base.poses &&
    candidate.handles === base.handles &&
    candidate.boneScales === base.boneScales;
  return onlyExamples ? `Add example${added.length > 1 ? 's' : ''} ${added.map((e) => e.name).join(', ')}` : `Open ${names}`;
}
