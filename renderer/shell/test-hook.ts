/**
 * `window.__rigwright`: a small, stable window into the running app for end-to-end tests (test/e2e) and for
 * poking at the app from the devtools console. Always installed, in the desktop app and on the web page alike;
 * it only reads state and drives what the UI can also do (commands, play, pause, scrub, the influence count),
 * plus the GPU readback of skinned positions and the CPU reference at the same pose for comparison.
 */
import type { PoseKind } from '../deform/pose-evaluator.ts';
import type { BindOptions, HandleSource } from '../bind/binding-controller.ts';
import type { BrushSettings, PaintCommand } from '../paint/paint-controller.ts';
import type { HandleOverlap } from '../../workers/weights/handle-edits.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { MenuModel } from '../../app/ipc-contract.ts';
import type { ProjectTestHook } from './project-test-hook.ts';
import type { PoseTestHook } from './pose-test-hook.ts';
import type { ScriptOutput, ScriptRunResult } from '../../workers/script/script-host.ts';

export interface BindingTestState {
  view: ViewMode;
  isoLines: boolean;
  panelOpen: boolean;
  /** 'off' unless the lasso is the active tool */
  lasso: 'off' | 'idle' | 'drawing';
  xray: boolean;
  selectedVertexCount: number;
  /** handle vertices per bone */
  handleCounts: number[];
  binding: { running: boolean; stage: string; fraction: number };
  /**
   * the last completed bind's report, while its weights are the scene's, or null: the method that ran and, for a
   * surface solve, its bones and parts without handles and its Laplacian (none for a volumetric bind)
   */
  report: {
    method: 'surface' | 'volumetric';
    bonesWithoutHandles: number[];
    unhandledComponents: { vertexCount: number; nearestBone: number; firstVertex: number }[];
    laplacianUsed: string | null;
  } | null;
  lastError: string | null;
  overlap: HandleOverlap[] | null;
  source: HandleSource;
}

export interface BindingTestHook {
  state(): BindingTestState;
  setView(view: ViewMode): void;
  setPanelOpen(open: boolean): void;
  setLasso(armed: boolean): void;
  /** assigns the selection to the selected bone, as the A key does */
  assignSelection(): void;
  /** starts a solve with these settings; resolves when it completes, is cancelled or fails */
  startBind(options?: BindOptions): Promise<void>;
  cancelBind(): void;
  /** #V handle labels of the scene */
  handles(): number[];
}

export type PaintState = 'off' | 'idle' | 'pointing' | 'painting' | 'gradient' | 'resizing';

export interface PaintTestHook {
  setPaintMode(on: boolean): void;
  setBrush(settings: Partial<BrushSettings>): void;
  /** symmetry plane axis = 0 (0 = x), or off; resolves once the mirror match (worker) is in use */
  setSymmetry(axis: 0 | 1 | 2 | null): Promise<void>;
  /** the running mirror match: its axis and the fraction done, or null */
  matching(): { axis: number; fraction: number } | null;
  cancelMatching(): void;
  setLocked(bone: number, locked: boolean): void;
  selectBone(bone: number): void;
  /** the brush tool's state ('off' when another tool is active), and the undo history's step counts */
  state(): { state: PaintState; brush: BrushSettings; undoSteps: number; redoSteps: number; bonePairs: number[] | null; unmatched: number };
  /** the document's #V × #B row-major weights */
  weightsSnapshot(): number[];
  /** the last stroke's dab centres on the posed surface, x y z … (world units) */
  strokeWorldPositions(): number[];
  /** #V × 3 the posed positions of the current weights and pose, skinned afresh */
  posedPositions(): number[];
  /** #V × 3 the surface the next stroke paints on, brought up to date as the cursor's next move over it does */
  surfacePositions(): number[];
  /** the camera's world position */
  cameraPosition(): number[];
  undo(): void;
  redo(): void;
  /**
   * Durations (ms) of the latest dabs (pick on the posed surface, gather, visibility, paint, invariants, undo record),
   * flushes (influence rows re-packed, texture rows and heat-map blocks queued) and cursor moves outside strokes
   * (surface brought up to date, ring placed), oldest first; reading clears them.
   */
  takeTimes(): { dabs: number[]; flushes: number[]; hovers: number[] };
  command(name: PaintCommand, threshold?: number, axis?: 0 | 1 | 2): Promise<void>;
}

/** Autosave, crash recovery and the close guard (shell/unsaved-work.ts). */
export interface WorkTestHook {
  /** resolves once the start-up look for autosaved work is done (the recovery prompt is shown by then, if any) */
  started(): Promise<void>;
  state(): {
    session: string;
    /** the scene has changes not saved in a project file */
    unsaved: boolean;
    /** versions this page has written */
    written: number;
    /** a version is being written now */
    writing: boolean;
    latest: { id: string; name: string; savedAt: number; vertexCount: number; boneCount: number; editCount: number } | null;
    settings: { delaySeconds: number; maxWaitSeconds: number; versions: number };
    /** the version the recovery prompt offers (selected: the newest readable), or null */
    offered: { id: string; name: string; savedAt: number; vertexCount: number; boneCount: number; editCount: number } | null;
    /** ids of every version the prompt lists, newest first */
    offeredVersions: string[];
    /** ids of the listed versions found damaged */
    damaged: string[];
    /** why autosave is off for this page (its storage cannot be used), or null */
    off: string | null;
    promptShown: boolean;
    saveDialogOpen: boolean;
    /**
     * the longest the page's thread was held at once by the latest autosave's own steps (a slice of the scene's copy,
     * its hand-over to the io worker), ms
     */
    pauseMs: number;
    /** the latest autosave's copy of the scene: bytes, tasks, restarts (the scene changed meanwhile), longest task in ms */
    snapshot: { bytes: number; slices: number; restarts: number; longestSliceMs: number } | null;
  };
  /** the autosave settings (kept in local storage, as the settings dialog does) */
  setAutosave(options: { delaySeconds?: number; maxWaitSeconds?: number; versions?: number }): void;
  /** writes now what waits to be written */
  flush(): Promise<void>;
  /** what an in-app action asks before replacing a scene with unsaved changes (Save / Discard / Cancel dialog) */
  mayDiscard(): Promise<boolean>;
  /** the versions in the storage and the marked sessions */
  stored(): Promise<{ versions: { id: string; session: string }[]; marked: { session: string; alive: boolean }[] }>;
  /** the scene's arrays and names, copied, for bit-for-bit comparisons across a recovery */
  scene(): {
    name: string;
    positions: number[];
    triangles: number[];
    joints: number[];
    bones: number[];
    weights: number[];
    handles: number[] | null;
    boneScales: number[] | null;
    poses: number[] | null;
    translations: number[] | null;
    posesFile: string | null;
    weightsSource: string;
    history: string[];
  };
}

/** The scene's editable state, copied, for bit-for-bit comparisons across undo and redo. */
export interface SceneSnapshot {
  weights: number[];
  weightsSource: string;
  handles: number[] | null;
  handlesFile: string | null;
  boneScales: number[] | null;
  posesFile: string | null;
}

export type TestSkinMethod =
  'lbs' | 'dqs' | 'perface' | 'blend' | 'context-lbs' | 'context-dqs' | 'context-perface-eq9' | 'context-perface-eq10';

export interface ExamplesTestState {
  panelOpen: boolean;
  examples: { name: string; file: string; poseSource: string; hidden: boolean }[];
  /** a_j at the pose shown, one per shown example (in order) */
  weights: number[];
  kernel: string;
  unposing: { running: boolean; example: string; base: string; fraction: number };
  cancelled: boolean;
  rbfError: string | null;
  /** the shapes in the unposed row, left to right ('rest' first), or [] when it is not shown */
  unposedShown: string[];
  /** the example heat map and what it shows, in words */
  exampleMap: { mode: string; note: string };
}

export interface ExamplesTestHook {
  state(): ExamplesTestState;
  /** resolves once every unposing asked for is done (or cancelled) */
  unposed(): Promise<void>;
  /** #V × 3 positions of an example as loaded */
  positions(name: string): number[];
  /** #B × 9 relative rotations of an example's pose */
  pose(name: string): number[];
}

export interface RigwrightTestState {
  sceneName: string;
  meshFiles: string[];
  vertexCount: number;
  triangleCount: number;
  boneCount: number;
  jointCount: number;
  /** frame (matrices), t (quaternions) or 0 (rest) */
  time: number;
  duration: number;
  /** seconds of the timeline's time, for a clip with key times (null otherwise) */
  seconds: number | null;
  /** seconds of every frame of the current clip, when it has key times (null otherwise) */
  keyTimes: number[] | null;
  poseKind: PoseKind;
  playing: boolean;
  /** influences kept per vertex; 0 = all */
  influences: number;
  weightsSource: string;
  /** -1 when none */
  selectedBone: number;
  /** the message in the error banner, or null */
  error: string | null;
  framesRendered: number;
  /** skinning method shown (left half in the split view) */
  method: TestSkinMethod;
  antipodality: 'per-vertex' | 'per-bone';
  /** right half's method, null when not split */
  splitMethod: TestSkinMethod | null;
  heatMap: boolean;
  /** "As exported" preview on (LBS with the export's quantized influences) */
  asExported: boolean;
  /** the scene's animation clip names (glTF), empty otherwise */
  clips: string[];
  /** the current pose sequence's name (file or clip), null at rest */
  clipName: string | null;
}

/** The Look view: the asset's materials and textures on the skinned mesh (view/surface-look.ts). */
export interface LookTestHook {
  state(): {
    view: ViewMode;
    /** the mesh draws with the asset's materials now */
    shown: boolean;
    hasUvs: boolean;
    /** the look's materials: name, linear base colour, whether its texture is on the material now */
    materials: { name: string; baseColor: number[]; textured: boolean; doubleSided: boolean }[];
    /** the mesh's draw groups: index ranges and material slots (0 = default, m + 1 = material m) */
    groups: { start: number; count: number; materialIndex: number }[];
    /** what could not be shown, naming the material */
    problems: string[];
  };
  /** resolves once the look's images are decoded and on their materials (main and split views) */
  ready(): Promise<void>;
  /** #V × 2 texture coordinates of the scene, or null */
  uvs(): number[] | null;
  /** draws the viewport now and reads its pixels at page points (CSS pixels): RGBA 0–255 per point */
  pixels(points: { x: number; y: number }[]): number[][];
  /** the camera's projection × view matrix (column-major) and the canvas's rectangle in the page */
  camera(): { viewProjection: number[]; left: number; top: number; width: number; height: number };
}

/** The scene's meshes, which one the tools act on, which are shown and what is drawn. */
export interface MeshesTestHook {
  state(): {
    parts: { name: string; vertexStart: number; vertexCount: number; triangleStart: number; triangleCount: number }[];
    active: number;
    hidden: boolean[];
    panelOpen: boolean;
  };
  /**
   * triangles of the viewport mesh's index that are not degenerate (hidden meshes' are); `split`: of the split
   * view's second half (null when the view is not split); `unposed`: of the rest shape in the unposed-examples row
   * (null when the row is not shown)
   */
  drawnTriangles(view?: 'split' | 'unposed'): number | null;
  /** draws a frame now and counts its pixels that are not the background colour */
  coveredPixels(): number;
}

/** The Template panel: the template, its markers on the rest mesh, and page positions to drag their dots to. */
export interface TemplateTestHook {
  state(): {
    panelOpen: boolean;
    kind: string;
    fingers: boolean;
    /** the markers in the template's order: each one's surface point (world units), or null while off the mesh */
    markers: { id: string; label: string; point: number[] | null }[];
    /** the scene's bone names, in bone order (`bone <index>` where the skeleton has none) */
    bones: string[];
  };
  /** a world point's page position (CSS px) as the camera shows it now */
  pagePosition(point: [number, number, number]): { x: number; y: number };
}

export interface RigwrightTestHook {
  /** the Template panel and its markers */
  template: TemplateTestHook;
  /** the Look view */
  look: LookTestHook;
  /** the scene's meshes */
  meshes: MeshesTestHook;
  /** runs a command as a key, button or menu item would (with its argument, if any); false when it is disabled now */
  command(id: string, argument?: unknown): boolean;
  /** example shapes, unposing and pose-space weights */
  examples: ExamplesTestHook;
  /** the undo history: labels oldest first, redo count, bytes held */
  history(): { undo: string[]; redo: number; bytes: number };
  /** the active tool and its state */
  tool(): { id: string; state: string };
  /** the rest skeleton, copied: #J × 3 joints, #B × 2 start and end joints, #B parents, #B names (`bone <index>` unnamed) */
  skeleton(): { joints: number[]; bones: number[]; parents: number[]; names: string[] };
  /** the scene's editable state, copied */
  snapshot(): SceneSnapshot;
  /** the ids of the commands that ran since the page opened, oldest first (one run by another command included) */
  commandsRun(): string[];
  /** what the desktop menus would show (the web bridge keeps the model it was sent), or null on the desktop */
  menu(): MenuModel | null;
  /** the keys of the keybinding table in use (the user's keys in place of a command's) as shown to people, in table order */
  keyTable(): string[];
  /** the Bind panel: handles, lasso, harmonic weights, weight views */
  binding: BindingTestHook;
  /** weight paint mode: brush, strokes, undo, whole-mesh commands */
  paint: PaintTestHook;
  /** project files: the session, the title, the scene and settings as saved (shell/project-test-hook.ts) */
  project: ProjectTestHook;
  /** posing: the pose tool, the bones posed by hand, the gizmo's rings on the page */
  pose: PoseTestHook;
  /** autosave, crash recovery, the close guard */
  work: WorkTestHook;
  /** resolves once the first frame has rendered */
  ready(): Promise<void>;
  state(): RigwrightTestState;
  pause(): void;
  play(): void;
  /** frame (matrices) or t (quaternions); renders synchronously after */
  setTime(time: number): void;
  /** 0 = all */
  setInfluences(k: number): void;
  /** #V × 3 from the GPU readback of the CURRENT pose and method (per-face: once its solve has arrived) */
  gpuPositions(): Promise<number[]>;
  /** #V × 3 from the GPU readback of the split view's right half at the CURRENT pose; null when not split */
  gpuSplitPositions(): Promise<number[] | null>;
  /** #V × 3 from the CPU reference of `method` at the CURRENT pose */
  cpuPositionsOf(method: string): number[];
  /** #V × 3 from the current method's CPU reference in workers/skinning at the CURRENT pose, same influences */
  cpuPositions(): number[];
  /** 'lbs' | 'dqs' | 'perface' | 'blend' (LBS/DQS lerped per vertex by the blend weights) */
  setMethod(method: string): void;
  setAntipodality(mode: 'per-vertex' | 'per-bone'): void;
  /** split view with `method` on the right, or null for one view */
  setSplit(method: string | null): void;
  setHeatMap(on: boolean): void;
  /** local scale of a bone about its start joint */
  setBoneScale(bone: number, scale: [number, number, number]): void;
  /** per-vertex LBS ↔ DQS blend (0 = LBS) of method 'blend': one value for all vertices or #V values */
  setBlendWeights(blend: number | number[]): void;
  /**
   * "As exported" preview on or off; `settings` (influences: the scene's max influences 1 … 8, weightComponent 'float' | 'unsigned-short' |
   * 'unsigned-byte') also become the export dialog's choices
   */
  setAsExported(on: boolean, settings?: { influences?: number; weightComponent: 'float' | 'unsigned-short' | 'unsigned-byte' }): void;
  /** shows clip `index` of state().clips */
  selectClip(index: number): void;
  /** replaces the scene with the twist test tube */
  loadTwistDemo(): void;
  /** resolves once the per-face solve of the current pose is on the GPU */
  settled(): Promise<void>;
  /** how many threads plain per-face frames run on (2: the two-core frame) */
  perFaceThreads(): Promise<number>;
  /** whether per-face context frames blend their products on two threads (the examples in shared memory) */
  perFaceExamplesShared(): Promise<boolean>;
  /** whether per-face frames run the WebAssembly kernels (solve and face loop) in the page's worker */
  perFaceKernels(): Promise<boolean>;
  /** CSS pixels in the page, for click tests */
  jointScreenPosition(joint: number): { x: number; y: number };
  /** of the rest mesh */
  boundingDiagonal(): number;
  /**
   * Pauses, then poses and draws `frames` frames across the sequence, each waited for with a one-pixel
   * readback so the GPU's work is inside the measurement; returns the median milliseconds per frame
   * (pose evaluation + joint texture upload + draw). For `npm run bench`.
   */
  measureFrameTime(frames: number): number;
  /**
   * Holds the viewport's draws (on) or resumes them (off; one draw follows). Everything else runs as usual. For
   * `npm run bench`: here a software rasterizer draws, on the same two cores as the page, so holding the draws
   * times the page's own work the way a machine with a GPU leaves it.
   */
  holdDraws(on: boolean): void;
  /**
   * Runs a script as the scripting panel's Run does (scripting/script-controller.ts); resolves when the run has
   * ended, with how it ended and every line it printed or failed with (the last says how the run ended)
   * @param file  its file name, as errors and the undo step name it; default `script.ts`
   */
  runScript(source: string, file?: string): Promise<{ result: ScriptRunResult; output: ScriptOutput[] }>;
  /** stops the running script, as the panel's Stop does */
  stopScript(): void;
  /** the scripts' time limit, in seconds (0: none), as the preference sets it */
  setScriptTimeLimit(seconds: number): void;
  /** whether a script runs, and what the status line says of it (null when none runs) */
  scriptState(): { running: boolean; status: string | null };
}

declare global {
  interface Window {
    __rigwright?: RigwrightTestHook;
  }
}

export function installTestHook(hook: RigwrightTestHook): void {
  window.__rigwright = hook;
}
