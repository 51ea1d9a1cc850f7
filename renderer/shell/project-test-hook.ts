/**
 * The test hook's window into project files (`window.__rigwright.project`): the session's state, the page title,
 * the history's first step, and the scene and settings as a project holds them — every array as the base64 of its
 * bytes, so a test compares them bit for bit.
 */
import type { ProjectContents } from '../../workers/formats/project-file.ts';
import { denseWeights } from '../../workers/scene/bone-data.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { ProjectFiles } from './project-files.ts';

/** What the project hook reads of the app. */
export interface ProjectTestHost {
  readonly project: Pick<ProjectFiles, 'session' | 'recent' | 'contents' | 'busy'>;
  readonly history: Pick<UndoHistory, 'origin' | 'undoLabels'>;
  readonly error: string | null;
}

export interface ProjectTestState {
  fileName: string | null;
  dirty: boolean;
  title: string;
  /** what the undo history starts from ('Opened' after opening a project) */
  origin: string | null;
  undo: string[];
  recent: string[];
  error: string | null;
}

export interface ProjectTestHook {
  state(): ProjectTestState;
  /** every array of the project's scene and settings, as base64 of its bytes (null when absent) */
  arrays(): Record<string, string | null>;
  /** the other fields of the scene and the settings, as JSON values */
  values(): Record<string, unknown>;
  /** resolves when no open or save is running */
  idle(): Promise<void>;
}

function base64(array: ArrayBufferView | null | undefined): string | null {
  if (!array) return null;
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * Every array of a project's scene and settings as the base64 of its bytes (null when absent), by name: the mesh,
 * skeleton, weights, handles, bone scales, blend map, locks, each example's positions and pose, and the poses and
 * each clip's poses. A test compares the open app's project (ProjectTestHook.arrays) with a file read in Node.
 */
export function projectArrays({ scene, settings }: Pick<ProjectContents, 'scene' | 'settings'>): Record<string, string | null> {
  const out: Record<string, string | null> = {
    positions: base64(scene.mesh.positions),
    triangles: base64(scene.mesh.triangles),
    joints: base64(scene.skeleton.joints),
    bones: base64(scene.skeleton.bones),
    weights: base64(denseWeights(scene.weights)),
    handles: base64(scene.handles),
    boneScales: base64(scene.boneScales),
    blend: base64(settings.skin.blend),
    locked: base64(settings.paint.locked),
  };
  for (const example of scene.examples) {
    out[`example ${example.name}.positions`] = base64(example.positions);
    out[`example ${example.name}.pose`] = base64(example.pose);
  }
  const poses = [{ name: 'poses', poses: scene.poses }, ...scene.clips.map((c) => ({ name: `clip ${c.name}`, poses: c.poses }))];
  for (const { name, poses: p } of poses) {
    if (!p) continue;
    if (p.kind === 'quaternions') out[`${name}.final`] = base64(p.final);
    else {
      out[`${name}.rotations`] = base64(p.rotations);
      out[`${name}.translations`] = base64(p.translations);
    }
  }
  return out;
}

export function projectTestHook(app: ProjectTestHost): ProjectTestHook {
  const project = app.project;
  return {
    state: () => ({
      fileName: project.session.fileName,
      dirty: project.session.dirty,
      title: document.title,
      origin: app.history.origin,
      undo: app.history.undoLabels(),
      recent: project.recent.map((r) => r.name),
      error: app.error,
    }),
    arrays: () => projectArrays(project.contents()),
    values: () => {
      const { scene, settings } = project.contents();
      return {
        name: scene.name,
        meshFiles: scene.meshFiles,
        skeletonFile: scene.skeletonFile,
        boneNames: scene.boneNames,
        weightsSource: scene.weightsSource,
        posesFile: scene.posesFile,
        poseKind: scene.poses?.kind ?? null,
        clips: scene.clips.map((c) => c.name),
        handlesFile: scene.handlesFile,
        skin: { ...settings.skin, blend: null },
        view: settings.view,
        paint: { ...settings.paint, locked: null },
        export: settings.export,
        posespace: settings.posespace,
        examples: scene.examples.map(({ name, file, poseSource, hidden }) => ({ name, file, poseSource, hidden })),
      };
    },
    idle: async () => {
      while (project.busy) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
