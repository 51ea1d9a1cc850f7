/**
 * A script's files headless (`rig.files` under `rigwright run`): open files as a new scene with the app's loader
 * (mesh, skeleton, weights, handles, poses, a glTF with its resources, or a project), save the project, and export
 * glTF as File → Export glTF… writes it, the files written as the CLI's `export` command writes them (atomically, a
 * .gltf's .bin and images beside it). Paths are relative to the working folder; a write outside it (and outside the
 * folder of the project the run opened) is refused unless the run allows it (--allow-write), with a message saying so.
 * The project's settings (max influences, binding options, selected bone, skinning method) travel with the scene:
 * read from a project opened, written back with the headless commands' values when it is saved.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { OpenedFile } from '../../ipc-contract.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { gltfResources } from '../../../workers/formats/gltf-resource-uris.ts';
import {
  defaultProjectSettings,
  isProjectFile,
  readProjectFile,
  writeProjectFile,
  type ProjectSettings,
} from '../../../workers/formats/project-file.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../../workers/scene/project-document.ts';
import { boneCountOf, errorMessage, vertexCountOf, type SceneDocument } from '../../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../../workers/scene/scene-store.ts';
import type { ExportOptions, ScriptCalls } from '../../../workers/script/script-api.ts';
import { MAX_INFLUENCE_CHOICES } from '../../../workers/weights/limit-influences.ts';
import { exportRequest } from '../../../renderer/scripting/app-script-files.ts';
import type { HeadlessOptions, HeadlessState } from '../../../renderer/scripting/headless-commands.ts';
import { exportSceneGltf, sceneFromFiles } from '../../../renderer/scripting/headless-scene.ts';
import { resourceFile, resourceTargets } from '../../asset-resources.ts';
import { readBytes, writeFiles } from '../cli-support.ts';

/** A scene read from the command line or a script: the document, and the settings of a project when it was one. */
export interface OpenedScene {
  doc: SceneDocument;
  /** the project's settings (null: not a project; a save starts from the defaults) */
  settings: ProjectSettings | null;
  /** the weights were painted after they were made (the project says so) */
  weightsPainted: boolean;
  /** the readers' corrections, one line each naming the file */
  notices: string[];
}

/**
 * Reads files as a new scene: one Rigwright project, or a batch the app's File → Import takes (a .gltf with the
 * .bin files and images it names, read from its folder).
 * @param files  paths as given (relative to the working folder)
 * @throws FormatError or LoadError naming the file, the place and the reason
 */
export async function openSceneFiles(files: readonly string[]): Promise<OpenedScene> {
  if (files.length === 0) throw new Error('no files to open');
  const read = files.map((file) => ({ file, bytes: readBytes(file) }));
  if (read.length === 1 && isProjectFile(read[0].bytes)) {
    const { file, bytes } = read[0];
    const project = readProjectFile(bytes, path.basename(file));
    let doc: SceneDocument;
    try {
      doc = documentFromProject(project.scene, project.settings);
    } catch (error) {
      throw new FormatError(file, '', errorMessage(error));
    }
    return { doc, settings: project.settings, weightsPainted: project.scene.weightsPainted === true, notices: project.notices };
  }
  const batch: OpenedFile[] = read.map(({ file, bytes }) => ({ name: path.basename(file), bytes }));
  for (const { file, bytes } of read) {
    if (!/\.gltf$/i.test(file)) continue;
    for (const resource of gltfResources(bytes, file)) {
      const name = path.basename(resource.path);
      if (!batch.some((f) => f.name === name)) batch.push({ name, bytes: readBytes(resourceFile(path.dirname(file), resource, file)) });
    }
  }
  const doc = await sceneFromFiles(batch);
  return { doc, settings: null, weightsPainted: false, notices: [] };
}

/** The settings of a project that a headless registry starts from, read as the app restores them (a value it would not take: its default). */
export function headlessOptionsOf(settings: ProjectSettings | null): HeadlessOptions {
  if (!settings) return {};
  const { binding, paint, view, skin } = settings;
  const options: HeadlessOptions = {
    // As the app restores it: a value it does not offer reads as the largest.
    maxInfluences: (MAX_INFLUENCE_CHOICES as readonly number[]).includes(paint.maxInfluences)
      ? paint.maxInfluences
      : MAX_INFLUENCE_CHOICES.at(-1)!,
    binding: {
      source: binding.source === 'distance' || binding.source === 'cylinder' ? binding.source : 'current',
      laplacian: binding.laplacian === 'uniform' ? 'uniform' : 'cotan',
      radiusFraction: binding.radiusFraction > 0 ? binding.radiusFraction : undefined,
      bindUnhandled: binding.bindUnhandled,
      weldTolerance: binding.weldTolerance >= 0 ? binding.weldTolerance : undefined,
    },
    selectedBone: view.selectedBone,
  };
  if (skin.method === 'lbs' || skin.method === 'dqs') options.skinMethod = skin.method;
  return options;
}

export interface CliScriptFilesOptions {
  store: SceneStore;
  /** the headless commands' settings: saved with the project, restored from a project opened */
  state: HeadlessState;
  /** the scene the run started from */
  opened: OpenedScene;
  /** the folder relative paths start from, and where writes may go */
  cwd: string;
  /** the folder of the project the run opened (writes may go there too), or null */
  projectFolder: string | null;
  /** writes may go anywhere (--allow-write) */
  allowWrite: boolean;
  /** a warning line for standard error */
  warn(message: string): void;
}

/** `rig.files` for a headless run: ScriptCalls' file calls on the run's scene store. */
export class CliScriptFiles implements Pick<ScriptCalls, 'files.open' | 'files.saveProject' | 'files.exportGltf'> {
  /** the settings a save starts from: the project's the run (or the script) opened, else the defaults */
  private settings: ProjectSettings | null;
  private weightsPainted: boolean;
  private readonly startMethod: HeadlessState['skinMethod'];

  constructor(private readonly options: CliScriptFilesOptions) {
    this.settings = options.opened.settings;
    this.weightsPainted = options.opened.weightsPainted;
    this.startMethod = options.state.skinMethod;
    // The status line's ", painted": weights edited in place of the ones made are painted; new weights are not.
    options.store.subscribe((change) => {
      if (change.kind !== 'document') return;
      if (change.newScene) this.weightsPainted = false;
      else if (change.fields.has('weights')) this.weightsPainted = !change.fields.has('weightsSource');
    });
  }

  readonly 'files.open' = async (paths: string | readonly string[]): Promise<void> => {
    const list = typeof paths === 'string' ? [paths] : [...paths];
    if (list.length === 0 || list.some((p) => typeof p !== 'string' || p.trim() === ''))
      throw new Error(`files.open: ${JSON.stringify(paths)} is not a list of file paths`);
    const opened = await openSceneFiles(list.map((p) => path.resolve(this.options.cwd, p)));
    for (const notice of opened.notices) this.options.warn(notice);
    const { store, state } = this.options;
    store.open(opened.doc, `opened ${list.map((p) => path.basename(p)).join(', ')}`);
    this.settings = opened.settings;
    state.restore(headlessOptionsOf(opened.settings));
    this.weightsPainted = opened.weightsPainted;
  };

  readonly 'files.saveProject' = async (file: string): Promise<string> => {
    const target = this.writable('files.saveProject', file, ['glb'], 'a project ends in .rig.glb');
    writeFiles([{ path: target, contents: await this.projectBytes(path.basename(target)) }]);
    return target;
  };

  readonly 'files.exportGltf' = async (file: string, options: ExportOptions = {}): Promise<string> => {
    const target = this.writable('files.exportGltf', file, ['glb', 'gltf'], 'a glTF file ends in .glb or .gltf');
    const name = path.basename(target);
    const { store, state } = this.options;
    const request = exportRequest(name, options, store.doc, { influences: state.maxInfluences, weightComponent: 'float' });
    const result = await exportSceneGltf(request.doc, name, {
      format: request.format,
      influences: request.influences,
      weightComponent: request.weightComponent,
      basename: name.replace(/\.(glb|gltf)$/i, ''),
    });
    for (const warning of result.warnings) this.options.warn(`${file}: ${warning}`);
    // One set, the .bin before the .gltf that refers to it: a failure leaves the old files as they were.
    const files = resourceTargets(path.dirname(target), result.resources, target);
    files.push({ path: target, contents: result.bytes });
    writeFiles(files, true);
    return target;
  };

  /**
   * The project as `--save` and `rig.files.saveProject` write it: the scene, and the settings it was opened with (or
   * the defaults) carrying the headless commands' max influences, binding options, selected bone and skinning method.
   * @param fileName  the project's file name (the writer names the file's scene after it)
   */
  async projectBytes(fileName: string): Promise<Uint8Array> {
    const { store, state } = this.options;
    const doc = store.doc;
    const base = this.settings ?? defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
    const method = state.skinMethod !== this.startMethod ? state.skinMethod : base.skin.method;
    const settings = projectSettingsOf(doc, {
      ...base,
      skin: { ...base.skin, method },
      view: { ...base.view, selectedBone: state.selectedBone },
      paint: { ...base.paint, maxInfluences: state.maxInfluences },
      binding: { ...state.binding },
    });
    return writeProjectFile({ scene: projectSceneOf(doc, this.weightsPainted), settings }, fileName);
  }

  /**
   * The absolute path a write goes to.
   * @throws Error naming the call and the path: not a file name of the right kind, or outside the folders writes may
   *         go to without --allow-write
   */
  private writable(call: string, file: unknown, extensions: readonly string[], rule: string): string {
    if (typeof file !== 'string' || path.basename(file).trim() === '')
      throw new Error(`${call}: ${JSON.stringify(file) ?? String(file)} is not a file path`);
    const extension = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
    if (!extensions.includes(extension)) throw new Error(`${call}: ${JSON.stringify(file)}: ${rule}`);
    const { cwd, projectFolder, allowWrite } = this.options;
    const target = path.resolve(cwd, file);
    if (allowWrite) return target;
    const folders = [cwd, ...(projectFolder ? [projectFolder] : [])];
    if (folders.some((folder) => isInside(folder, target))) return target;
    const where = projectFolder ? `the working folder (${cwd}) and the project's folder (${projectFolder})` : `the working folder (${cwd})`;
    throw new Error(
      `${call}: ${JSON.stringify(file)} is outside ${where}; run rigwright run with --allow-write to let the script write there`,
    );
  }
}

/**
 * Whether `target` (absolute) lies inside `folder`, at any depth, once symbolic links are followed: the real path of
 * the target's nearest existing folder, so a link inside the folder that leads out of it takes no write out.
 */
function isInside(folder: string, target: string): boolean {
  const realFolder = realPath(path.resolve(folder));
  let existing = path.dirname(target);
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const realTarget = path.join(realPath(existing), path.relative(existing, target));
  const relative = path.relative(realFolder, realTarget);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The path with its symbolic links followed, or as it is when it cannot be resolved. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
