/**
 * The script API beside the commands: what a script reads of the scene, writes to it, deforms and does with files.
 * The commands themselves (`rig.execute(id, argument)` and the `rig.<group>.<name>(argument)` methods) are typed from
 * the command catalog's schemas; everything else a script sees is declared here, once. Three readers:
 *
 *  - the sandbox (script-runtime.ts) implements `rig` over messages to its host;
 *  - the hosts (the app's renderer/scripting/, the CLI's `rigwright run`) answer those messages with ScriptCalls
 *    (script-scene-calls.ts), on the one scene model both share (workers/scene/);
 *  - the declaration file scripts are checked against (monaco's completions, `rigwright run`, the reference page) is
 *    generated from this file's declarations and the catalog, so it cannot drift from either.
 *
 * Conventions: indices are 0-based; positions are x, y, z per vertex in mesh units; every call returns a promise
 * (the scene lives in the host, not in the sandbox); large data crosses as typed arrays (transferred, not copied
 * per vertex). A call the scene cannot answer rejects with an Error whose message says why.
 */

/** The version of the API this file declares: the declaration file states it, and `rig.apiVersion` gives it. */
export const SCRIPT_API_VERSION = '1.1';

/** A point or direction: x, y, z. */
export type Vec3 = [number, number, number];

/** One mesh of the scene: a contiguous range of its vertices and triangles. */
export interface ScriptMesh {
  readonly index: number;
  /** unique in the scene */
  readonly name: string;
  readonly firstVertex: number;
  readonly vertexCount: number;
  readonly firstTriangle: number;
  readonly triangleCount: number;
}

/** One bone: the segment from its start joint (head) to its end joint (tail), at rest. */
export interface ScriptBone {
  readonly index: number;
  /** unique in the skeleton (the file's name, or `bone <index>` where it had none, as the app names it) */
  readonly name: string;
  /** the parent bone's index, -1 for a root */
  readonly parent: number;
  readonly head: Vec3;
  readonly tail: Vec3;
  /** whether painting and weight edits leave its weights as they are */
  readonly locked: boolean;
}

/** One clip (pose sequence) of the scene. */
export interface ScriptClip {
  readonly name: string;
  readonly frameCount: number;
  /** whether it is the one the viewport plays */
  readonly shown: boolean;
}

/** What the scene holds, in counts and names. */
export interface SceneSummary {
  /** the scene's name (its mesh file, or the demo's) */
  readonly name: string;
  readonly vertexCount: number;
  readonly triangleCount: number;
  readonly boneCount: number;
  readonly meshes: readonly ScriptMesh[];
  readonly clips: readonly ScriptClip[];
  /** where the weights came from: a file name, `harmonic`, … */
  readonly weightsSource: string;
  /** vertices that are handles of a bone (the weights solver's fixed values) */
  readonly handleCount: number;
}

/**
 * Skinning weights as rows: each vertex has `influences` slots of (bone, value), largest value first; a slot not
 * used has bone -1 and value 0. This shape does not change if the scene stores its weights sparsely; `dense()` of
 * the `rig.scene` API gives the #V × #B matrix when a script wants that instead.
 */
export interface WeightRows {
  readonly vertexCount: number;
  readonly boneCount: number;
  /** slots per vertex: the most bones any vertex has (at least 1) */
  readonly influences: number;
  /** vertexCount × influences bone indices, -1 in a slot not used */
  readonly bones: Int32Array;
  /** vertexCount × influences weights, 0 in a slot not used */
  readonly values: Float64Array;
}

/** How `rig.scene.skin` deforms the mesh. */
export interface SkinOptions {
  /** linear blend or dual quaternion skinning; default the method the viewport shows (`lbs` headless) */
  method?: 'lbs' | 'dqs';
  /** the clip to pose from; default the one shown */
  clip?: string;
  /** the frame of that clip, 0-based; default 0 (the rest pose when the scene has no clip) */
  frame?: number;
}

/** Which pose `rig.scene.pose` reads: a frame of a clip. */
export interface PoseOptions {
  /** the clip, by name; default the one shown (the rest pose when the scene has none) */
  clip?: string;
  /** the frame of that clip, 0-based; default 0 */
  frame?: number;
}

/** An example shape (context-aware deformation): the mesh sculpted in a known pose. */
export interface ScriptExample {
  /** unique among the examples: what `examplePositions` and the Examples panel call it */
  readonly name: string;
  /** #B × 9 row-major relative rotations it was sculpted in (the convention of `pose()`) */
  readonly pose: Float64Array;
  /** where the pose came from: a file name, `frame 34 of all_frames.dmat`, … */
  readonly poseSource: string;
  /** a hidden example takes no part in the deformation */
  readonly hidden: boolean;
}

/** How `rig.files.exportGltf` writes the asset (the export dialog's choices). */
export interface ExportOptions {
  /** the scene's max influences (1 … 8); default the scene's */
  influences?: number;
  /** how weights are stored; default 'float' */
  weightComponent?: 'float' | 'unsigned-short' | 'unsigned-byte';
  /** the clip to write; default the one shown (every clip when the scene came from a glTF) */
  clip?: string;
}

/** The scene: reading it, and writing weights and handles (each write one step of the run's undo group). */
export interface SceneApi {
  summary(): Promise<SceneSummary>;
  bones(): Promise<ScriptBone[]>;
  /** @throws Error naming the bone and the closest names the skeleton has, when it has none of that name */
  bone(name: string): Promise<ScriptBone>;
  /** the weights as rows (WeightRows) */
  weights(): Promise<WeightRows>;
  /** the weights as a dense #V × #B row-major matrix (vertex v's weight of bone b at v·#B + b) */
  denseWeights(): Promise<Float64Array>;
  /**
   * Replaces the weights: rows as `weights()` gives them (any number of slots), or a dense #V × #B row-major
   * matrix. Values are kept as given (no normalization: `rig.paint.normalize()` does that).
   * @throws Error when the counts do not fit the scene or a value is not finite, naming the vertex
   */
  setWeights(weights: WeightRows | Float64Array): Promise<void>;
  /** #V bone indices: the bone each vertex is a handle of, or -1 */
  handles(): Promise<Int32Array>;
  /** replaces the handles (#V bone indices, -1 for none) */
  setHandles(handles: Int32Array): Promise<void>;
  /** #V × 3 rest positions */
  restPositions(): Promise<Float64Array>;
  /** #F × 3 vertex indices of the triangles, every mesh's, in the scene's vertex numbering */
  triangles(): Promise<Uint32Array>;
  /** #J × 3 rest positions of the skeleton's joints (a bone's head and tail are two of them) */
  joints(): Promise<Float64Array>;
  /**
   * #B × 9 row-major relative rotations (each bone's rotation about its head relative to its parent, as pose files
   * store them) at a frame of a clip. On the clip shown (or the rest pose, when the scene has no clip), the bones posed
   * by hand (`pose.rotate`, not yet keyed) have their hand pose at every frame, as the viewport and `skin` show them;
   * another clip's frame is the clip's alone. A clip's start-joint translations (root motion) are not included.
   * @throws Error naming the option: an unknown clip or a frame out of range
   */
  pose(options?: PoseOptions): Promise<Float64Array>;
  /** the example shapes, in the Examples panel's order */
  examples(): Promise<ScriptExample[]>;
  /**
   * #V × 3 positions of an example shape (the rest mesh's vertex order)
   * @throws Error naming the example and the names the scene has, when it has none of that name
   */
  examplePositions(name: string): Promise<Float64Array>;
  /** #V × 3 positions of the mesh skinned at a frame of a clip */
  skin(options?: SkinOptions): Promise<Float64Array>;
}

/**
 * Files, by path. Headless, paths are relative to the working folder; in the desktop app, to the project's folder.
 * A script's first write outside that folder asks the user (in the app) or needs `--allow-write` (headless).
 */
export interface FilesApi {
  /**
   * opens files as a new scene, as File → Import does (a mesh with its skeleton, weights, poses; a glTF; a project).
   * Opening a scene clears the undo history, the run's own step with it: the run's edits before the open cannot be
   * undone, and a run that fails or is stopped after it keeps the scene it opened (its edits of that scene are undone)
   * instead of going back to the scene it began on
   */
  open(paths: string | readonly string[]): Promise<void>;
  /** saves the project (.rig.glb); @returns the path written */
  saveProject(path: string): Promise<string>;
  /** exports the skinned scene as glTF (.glb or .gltf by the extension); @returns the path written */
  exportGltf(path: string, options?: ExportOptions): Promise<string>;
}

/** Everything a script has besides the command methods (which the declaration file adds from the catalog). */
export interface ScriptGlobals {
  /** SCRIPT_API_VERSION */
  readonly apiVersion: string;
  readonly scene: SceneApi;
  readonly files: FilesApi;
  /**
   * Reports how far the script has got (the app's progress bar; headless, a line on standard error).
   * @param fraction  0 … 1
   */
  progress(fraction: number, message?: string): void;
}

/**
 * What a host answers for the sandbox: one method per call of SceneApi and FilesApi, plus `execute` for a command.
 * The sandbox sends `{ method, args }` and gets the result or an error message back; typed arrays travel as
 * transferables.
 */
export interface ScriptCalls {
  /** runs a catalog command as the user would: argument checked, refused with the reason when it cannot run now */
  execute(id: string, argument: unknown): Promise<unknown>;
  'scene.summary'(): SceneSummary;
  'scene.bones'(): ScriptBone[];
  'scene.bone'(name: string): ScriptBone;
  'scene.weights'(): WeightRows;
  'scene.denseWeights'(): Float64Array;
  'scene.setWeights'(weights: WeightRows | Float64Array): void;
  'scene.handles'(): Int32Array;
  'scene.setHandles'(handles: Int32Array): void;
  'scene.restPositions'(): Float64Array;
  'scene.triangles'(): Uint32Array;
  'scene.joints'(): Float64Array;
  'scene.pose'(options?: PoseOptions): Float64Array;
  'scene.examples'(): ScriptExample[];
  'scene.examplePositions'(name: string): Float64Array;
  'scene.skin'(options?: SkinOptions): Float64Array;
  'files.open'(paths: string | readonly string[]): Promise<void>;
  'files.saveProject'(path: string): Promise<string>;
  'files.exportGltf'(path: string, options?: ExportOptions): Promise<string>;
}

export type ScriptCallName = keyof ScriptCalls;
