/**
 * The app's files for scripts: `rig.files.open`, `saveProject` and `exportGltf` answered by the page, through the
 * same code as File → Import, File → Save and File → Export.
 *
 * In the desktop app a script's path locates the file (`byPath`: the desktop shell reads and writes it, the page still
 * never learning a folder): a path inside the working folder — the project's folder, or with no project the folder of
 * the scene's files — is read or written without asking; the first path of a run outside it asks the user once in the
 * app (a notice with Allow / Refuse; the answer holds for the rest of the run, reads and writes alike), and the file
 * is then read or written there. What is read is loaded as File → Import loads it.
 *
 * Otherwise (the web build, which has only what the user gives it) a script's path names a file rather than locating
 * it:
 *
 *  - open: the user picks the files in the open dialog, which names the files the script asked for (on the web the
 *    app first asks in a notice, whose button opens the browser's file picker); what the user picks is loaded as
 *    File → Import loads it (a mesh or a project opens a new scene, weights or poses go into this one). The web build
 *    has no sample files of its own to open by URL.
 *  - writes (saveProject, exportGltf): the base name of the path is the file's name. In the desktop app a script's
 *    first write of a run asks the user in the app (a notice with Allow / Refuse; the answer holds for the rest of the
 *    run), and each file is then written where the user says in the Save dialog. In the web build every write is a
 *    download the user sees, named after the path, and nothing is asked.
 *
 * No DOM: the questions, dialogs, loading and writing are the shell's (AppScriptFilesHost).
 */
import { LABEL_CONTROL_CHARACTERS, type OpenedFile, type OpenFilesRequest } from '../../app/ipc-contract.ts';
import type { ExportOptions, ScriptCalls } from '../../workers/script/script-api.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { baseName, fileExtension } from '../../workers/formats/file-name.ts';
import { MAX_INFLUENCE_CHOICES } from '../../workers/weights/limit-influences.ts';
import type { ScriptRunFiles } from './script-controller.ts';

/** The weight storages an export takes (ExportOptions.weightComponent). */
const WEIGHT_COMPONENTS = ['float', 'unsigned-short', 'unsigned-byte'] as const;

/** One glTF export as a script asks for it, in the terms of File → Export's dialog. */
export interface ScriptExport {
  /** base name, ending in .glb or .gltf */
  fileName: string;
  format: 'glb' | 'gltf';
  /** the most bones per vertex the file stores, 1 … 8 */
  influences: number;
  weightComponent: (typeof WEIGHT_COMPONENTS)[number];
  /** the scene to write: the scene shown, or it with one clip only (ExportOptions.clip) */
  doc: SceneDocument;
}

/** What the files need of the app. */
export interface AppScriptFilesHost {
  readonly platform: 'electron' | 'web';
  /** the scene now */
  readonly doc: SceneDocument;
  /**
   * Asks the user in the app (a notice with buttons).
   * @returns the index of the choice pressed, or -1 when the question went unanswered (dismissed, or replaced)
   */
  ask(title: string, lines: readonly string[], choices: readonly string[]): Promise<number>;
  /** the question asked now, if any, goes unanswered (-1) and leaves the screen */
  dismissQuestion(): void;
  /** the open dialog (the browser's file picker on the web); [] when the user cancels */
  openFiles(request: OpenFilesRequest): Promise<OpenedFile[]>;
  /** loads files as File → Import does; @returns the error the app shows when loading failed, else null */
  loadFiles(files: OpenedFile[]): Promise<string | null>;
  /** writes the project file as File → Save writes it, offered as `name`; @returns the name written, or null when cancelled */
  saveProject(name: string): Promise<string | null>;
  /** exports as File → Export does; @returns whether it was written (false: the user cancelled) */
  exportGltf(request: ScriptExport): Promise<boolean>;
  /** the export's settings now (influences: the scene's max influences) */
  exportSettings(): { influences: number; weightComponent: ScriptExport['weightComponent'] };
  /** the desktop app's files by path; absent: the open dialog and the Save dialog or downloads */
  readonly byPath?: ScriptFilesByPath;
}

/**
 * Files by the script's path, read and written by the desktop shell: each call answers OUTSIDE, touching nothing,
 * when the path is outside the working folder and `outside` (the user allowed it for this run) is false.
 */
export interface ScriptFilesByPath {
  /** the file at `path`, read whole, and for a .gltf the buffers and images it names */
  read(path: string, outside: boolean): Promise<OpenedFile[] | typeof OUTSIDE>;
  /** writes the project file at `path`; @returns the base name written */
  saveProject(path: string, outside: boolean): Promise<string | typeof OUTSIDE>;
  /** exports to `path` (a .gltf with its resources beside it); @returns the base name written */
  exportGltf(path: string, request: ScriptExport, outside: boolean): Promise<string | typeof OUTSIDE>;
}

/** A ScriptFilesByPath answer: the path is outside the working folder and nothing was done. */
export const OUTSIDE: unique symbol = Symbol('outside the working folder');

/** Choices of the write question, in order. */
export const WRITE_CHOICES = ['Allow writing for this run', 'Refuse'] as const;
/** Choices of the desktop app's question before the first file of a run outside the working folder, in order. */
export const OUTSIDE_CHOICES = ['Allow files outside the folder for this run', 'Refuse'] as const;
/** Choices of the web page's open question, in order. */
export const OPEN_CHOICES = ['Choose the files…', 'Refuse'] as const;

export class AppScriptFiles implements ScriptRunFiles {
  /** the script running, or null */
  private file: string | null = null;
  /** this run's answer to the write question (desktop), null until asked */
  private writes: Promise<boolean> | null = null;
  /** this run's answer to the question about files outside the working folder (desktop by path), null until asked */
  private outside: Promise<boolean> | null = null;
  /** whether this run may use files outside the working folder */
  private outsideAllowed = false;
  private openingNow = false;

  constructor(private readonly host: AppScriptFilesHost) {}

  get opening(): boolean {
    return this.openingNow;
  }

  beginRun(file: string): void {
    this.file = file;
    this.forgetAnswers();
  }

  endRun(): void {
    this.file = null;
    this.forgetAnswers();
  }

  private forgetAnswers(): void {
    this.writes = null;
    this.outside = null;
    this.outsideAllowed = false;
  }

  cancel(): void {
    this.host.dismissQuestion();
  }

  readonly 'files.open': ScriptCalls['files.open'] = async (paths) => {
    const names = pathList(paths).map((path) => baseName(path));
    const list = names.join(', ');
    const script = this.file ?? 'the script';
    const { byPath } = this.host;
    if (byPath) {
      const opened: OpenedFile[] = [];
      for (const path of pathList(paths))
        for (const read of await this.byPath('files.open', path, (outside) => byPath.read(path, outside)))
          if (!opened.some((f) => f.name === read.name)) opened.push(read);
      await this.load(opened);
      return;
    }
    if (this.host.platform === 'web') {
      const answer = await this.host.ask(
        `${script} asks to open ${list}`,
        ['A web page cannot read a path: choose the files in the file picker that opens.'],
        OPEN_CHOICES,
      );
      if (answer !== 0) throw new Error(`files.open: the user did not open ${list}`);
    }
    const picked = await this.host.openFiles({ title: dialogTitle(names, script) });
    if (picked.length === 0) throw new Error(`files.open: the user chose no files (the script asked for ${list})`);
    await this.load(picked);
  };

  /** Loads files as File → Import does. @throws Error naming the files when they could not be opened or were not */
  private async load(picked: OpenedFile[]): Promise<void> {
    const before = this.host.doc;
    this.openingNow = true;
    let error: string | null;
    try {
      error = await this.host.loadFiles(picked);
    } finally {
      this.openingNow = false;
    }
    const chosen = picked.map((file) => file.name).join(', ');
    if (error !== null) throw new Error(`files.open: ${chosen} could not be opened: ${error}`);
    if (this.host.doc === before) throw new Error(`files.open: ${chosen} was not opened (the user kept the scene)`);
  }

  readonly 'files.saveProject': ScriptCalls['files.saveProject'] = async (path) => {
    const name = fileNameOf('files.saveProject', path, ['glb'], 'a project file ends in .rig.glb');
    const { byPath } = this.host;
    if (byPath) return await this.byPath('files.saveProject', path, (outside) => byPath.saveProject(path, outside));
    await this.mayWrite('files.saveProject', name);
    const written = await this.host.saveProject(name);
    if (written === null) throw new Error(`files.saveProject: saving ${name} was cancelled by the user`);
    return written;
  };

  readonly 'files.exportGltf': ScriptCalls['files.exportGltf'] = async (path, options = {}) => {
    const fileName = fileNameOf('files.exportGltf', path, ['glb', 'gltf'], 'a glTF file ends in .glb or .gltf');
    const request = exportRequest(fileName, options, this.host.doc, this.host.exportSettings());
    const { byPath } = this.host;
    if (byPath) return await this.byPath('files.exportGltf', path, (outside) => byPath.exportGltf(path, request, outside));
    await this.mayWrite('files.exportGltf', fileName);
    if (!(await this.host.exportGltf(request))) throw new Error(`files.exportGltf: saving ${fileName} was cancelled by the user`);
    return fileName;
  };

  /**
   * A call by path: made at once inside the working folder; the first path of a run outside it asks the user once,
   * and the call is made again when allowed.
   * @throws Error naming the call, the script and the path when the user refused (or did not answer)
   */
  private async byPath<T>(call: string, path: string, run: (outside: boolean) => Promise<T | typeof OUTSIDE>): Promise<T> {
    const first = await run(this.outsideAllowed);
    if (first !== OUTSIDE) return first;
    const script = this.file ?? 'the script';
    if (this.outside === null) {
      const asked = this.host
        .ask(
          `${script} wants to use files outside the project's folder`,
          [`First ${path}. The answer holds until the script ends.`],
          OUTSIDE_CHOICES,
        )
        .then((answer) => {
          // An answer that comes after its run has ended holds for nothing.
          if (this.outside === asked) this.outsideAllowed = answer === 0;
          return answer === 0;
        });
      this.outside = asked;
    }
    if (!(await this.outside))
      throw new Error(`${call}: the user refused to let ${script} use files outside the project's folder (${path})`);
    const again = await run(true);
    if (again === OUTSIDE) throw new Error(`${call}: ${path} is outside the project's folder`);
    return again;
  }

  /** The desktop app asks once per run before the script's first write; the web page downloads without asking. */
  private async mayWrite(call: string, name: string): Promise<void> {
    if (this.host.platform === 'web') return;
    const script = this.file ?? 'the script';
    this.writes ??= this.host
      .ask(
        `${script} wants to write files`,
        [`First ${name}. Each file is saved where you choose in the Save dialog; the answer holds until the script ends.`],
        WRITE_CHOICES,
      )
      .then((answer) => answer === 0);
    if (!(await this.writes)) throw new Error(`${call}: the user refused to let ${script} write files (${name})`);
  }
}

/** The longest title the open dialog is given (the desktop shell refuses titles over 200 characters). */
export const OPEN_TITLE_LENGTH = 120;

/** `Open a.off, b.tgf for script.ts`, one line and at most OPEN_TITLE_LENGTH characters (the files counted when many). */
function dialogTitle(names: readonly string[], script: string): string {
  const title = (list: string) => `Open ${list} for ${script}`.replace(new RegExp(LABEL_CONTROL_CHARACTERS, 'g'), ' ');
  const whole = title(names.join(', '));
  if (whole.length <= OPEN_TITLE_LENGTH) return whole;
  const counted = title(`${names[0]} and ${names.length - 1} more`);
  return counted.length <= OPEN_TITLE_LENGTH ? counted : `${counted.slice(0, OPEN_TITLE_LENGTH - 1)}…`;
}

/** The paths of `files.open`'s argument. @throws Error naming the call and the bad value */
function pathList(paths: unknown): string[] {
  const list: unknown[] = typeof paths === 'string' ? [paths] : Array.isArray(paths) ? paths : [paths];
  if (list.length === 0) throw new Error('files.open: no path given');
  list.forEach((path, i) => {
    if (typeof path !== 'string' || baseName(path).trim() === '')
      throw new Error(`files.open: path ${i + 1} (${JSON.stringify(path) ?? String(path)}) is not a file name`);
  });
  return list as string[];
}

/** The base name a write is offered under. @throws Error naming the call, the path and the reason */
function fileNameOf(call: string, path: unknown, extensions: readonly string[], rule: string): string {
  if (typeof path !== 'string' || baseName(path).trim() === '')
    throw new Error(`${call}: ${JSON.stringify(path) ?? String(path)} is not a file name`);
  const name = baseName(path);
  if (!extensions.includes(fileExtension(name))) throw new Error(`${call}: ${JSON.stringify(path)}: ${rule}`);
  return name;
}

/**
 * The export a script's options stand for: influences and weight storage as given, else the export's settings (the
 * scene's max influences; 'float'); `clip` makes the scene's other clips stay out of the file.
 * @throws Error naming exportGltf, the option and the reason
 */
export function exportRequest(
  fileName: string,
  options: ExportOptions,
  doc: SceneDocument,
  settings: { influences: number; weightComponent: ScriptExport['weightComponent'] },
): ScriptExport {
  const fail = (reason: string): never => {
    throw new Error(`files.exportGltf: ${fileName}: ${reason}`);
  };
  const influences = options.influences ?? settings.influences;
  if (!(MAX_INFLUENCE_CHOICES as readonly number[]).includes(influences))
    fail(`influences ${JSON.stringify(influences)} is not one of ${MAX_INFLUENCE_CHOICES.join(', ')}`);
  const weightComponent = options.weightComponent ?? 'float';
  if (!WEIGHT_COMPONENTS.includes(weightComponent))
    fail(`weightComponent ${JSON.stringify(weightComponent)} is not one of ${WEIGHT_COMPONENTS.join(', ')}`);
  return {
    fileName,
    format: fileExtension(fileName) === 'gltf' ? 'gltf' : 'glb',
    influences,
    weightComponent,
    doc: options.clip === undefined ? doc : withOnlyClip(doc, options.clip, fail),
  };
}

/** The scene with one clip shown and no other: what an export of that clip alone writes. */
function withOnlyClip(doc: SceneDocument, name: string, fail: (reason: string) => never): SceneDocument {
  const clip = doc.clips?.find((c) => c.name === name);
  if (clip) return { ...doc, clips: [clip], poses: clip.poses, posesFile: clip.name };
  // A pose file shown (a DMAT) is a clip of its own, named as rig.scene.summary and the clip menu name it (its file,
  // or `poses`); the export writes it under its file's base name, which is taken too.
  const shownName = doc.poses ? (doc.posesFile ?? 'poses') : null;
  const exportedName = doc.poses ? (doc.posesFile ?? 'pose').replace(/\.dmat$/i, '') : null;
  if (shownName === name || exportedName === name) return { ...doc, clips: [] };
  const clipNames = (doc.clips ?? []).map((c) => c.name);
  const names = [...clipNames, ...(shownName !== null && !clipNames.includes(shownName) ? [shownName] : [])];
  return fail(`the scene has no clip "${name}" (${names.length > 0 ? `its clips: ${names.join(', ')}` : 'it has no clips'})`);
}
