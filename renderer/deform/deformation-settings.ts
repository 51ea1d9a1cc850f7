/**
 * What the viewport's deformation shows, as plain state: the skinning method, DQS's antipodality mode, the split
 * view's second method, the distortion heat map, the examples' map and the per-vertex LBS ↔ DQS blend of the
 * weight-blended method. Every setter tells the listeners which setting it set (also when the value stays, as a
 * repeated menu choice re-applies it); the deformation controller feeds the views from them. No three.js, no DOM.
 */
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { METHOD_CYCLE, METHOD_LABELS, isPerFace, type SkinMethod } from './skin-methods.ts';
import { pick, type SettingsSection } from '../project/settings-store.ts';

const SKIN_METHODS = Object.keys(METHOD_LABELS) as SkinMethod[];
const ANTIPODALITIES: readonly DualQuaternionAntipodality[] = ['per-vertex', 'per-bone'];

/** The examples' maps (DeformationController.exampleMap): off, the displacement applied now, or the error at an example's pose. */
export type ExampleMapMode = 'off' | 'displacement' | 'error';

export type DeformationSetting = 'method' | 'antipodality' | 'split' | 'heatMap' | 'exampleMap' | 'blendWeights';

/** The per-vertex colouring the skinned views show: none, the area distortion, or the examples' map. */
export type VertexMap = 'none' | 'distortion' | 'example';

export class DeformationSettings {
  private currentMethod: SkinMethod = 'lbs';
  private currentAntipodality: DualQuaternionAntipodality = 'per-vertex';
  private currentSplit: SkinMethod | null = null;
  private currentHeatMap = false;
  private currentExampleMap: ExampleMapMode = 'off';
  private blend: Float32Array;
  private readonly listeners = new Set<(setting: DeformationSetting) => void>();

  /** @param vertexCount  #V of the mesh the blend weights are for */
  constructor(vertexCount: number) {
    this.blend = new Float32Array(vertexCount);
  }

  get method(): SkinMethod {
    return this.currentMethod;
  }

  get antipodality(): DualQuaternionAntipodality {
    return this.currentAntipodality;
  }

  /** the right half's method in the split view, or null when the view is not split */
  get splitMethod(): SkinMethod | null {
    return this.currentSplit;
  }

  get heatMap(): boolean {
    return this.currentHeatMap;
  }

  get exampleMap(): ExampleMapMode {
    return this.currentExampleMap;
  }

  /** #V LBS ↔ DQS blend of method 'blend' (0 = LBS); the array is replaced only by startMesh */
  get blendWeights(): Float32Array {
    return this.blend;
  }

  /**
   * What the views colour the mesh with: the examples' map takes the place of the distortion heat map while it is
   * on; with both off, none.
   */
  get vertexMap(): VertexMap {
    return this.currentExampleMap !== 'off' ? 'example' : this.currentHeatMap ? 'distortion' : 'none';
  }

  /** The methods on screen: the main one, then the split view's second one when the view is split. */
  get methodsShown(): SkinMethod[] {
    return this.currentSplit === null ? [this.currentMethod] : [this.currentMethod, this.currentSplit];
  }

  /** Whether a method on screen is solved per face (in the deform worker). */
  get usesPerFace(): boolean {
    return this.methodsShown.some(isPerFace);
  }

  /** @returns a function that removes the listener */
  subscribe(listener: (setting: DeformationSetting) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setMethod(method: SkinMethod): void {
    this.currentMethod = method;
    this.notify('method');
  }

  /** The next method of the M key's cycle; a method outside the cycle (weight blended, context) goes to its start. */
  cycleMethod(): void {
    const i = METHOD_CYCLE.indexOf(this.currentMethod);
    this.setMethod(METHOD_CYCLE[(i + 1) % METHOD_CYCLE.length]);
  }

  setAntipodality(mode: DualQuaternionAntipodality): void {
    this.currentAntipodality = mode;
    this.notify('antipodality');
  }

  /** @param method  the right half's method, or null to show one view */
  setSplit(method: SkinMethod | null): void {
    this.currentSplit = method;
    this.notify('split');
  }

  setHeatMap(on: boolean): void {
    this.currentHeatMap = on;
    this.notify('heatMap');
  }

  setExampleMap(mode: ExampleMapMode): void {
    this.currentExampleMap = mode;
    this.notify('exampleMap');
  }

  /** Copies the blend into the #V weights (a shorter array sets the first vertices only). */
  setBlendWeights(blend: ArrayLike<number>): void {
    if (blend.length > this.blend.length) throw new RangeError(`blend weights: ${blend.length} values for ${this.blend.length} vertices`);
    this.blend.set(blend);
    this.notify('blendWeights');
  }

  /**
   * A new mesh (or one of another vertex count): the blend starts over at LBS everywhere, in a new array. Tells no
   * listener: whoever changes the mesh brings the views up to date with it.
   */
  startMesh(vertexCount: number): void {
    this.blend = new Float32Array(vertexCount);
  }

  /**
   * The skinning settings a project saves (the blend map only when some vertex blends); a method this version does
   * not know keeps the current one.
   */
  readonly section: SettingsSection<'skin'> = {
    save: () => ({
      method: this.currentMethod,
      antipodality: this.currentAntipodality,
      split: this.currentSplit,
      heatMap: this.currentHeatMap,
      blend: this.blend.some((x) => x !== 0) ? this.blend.slice() : null,
    }),
    restore: (saved) => {
      this.setMethod(pick(saved.method, SKIN_METHODS, this.currentMethod));
      this.setAntipodality(pick(saved.antipodality, ANTIPODALITIES, this.currentAntipodality));
      this.setSplit(pick(saved.split as SkinMethod | null, [...SKIN_METHODS, null], null));
      this.setHeatMap(saved.heatMap);
      if (saved.blend && saved.blend.length === this.blend.length) this.setBlendWeights(saved.blend);
    },
  };

  private notify(setting: DeformationSetting): void {
    for (const listener of this.listeners) listener(setting);
  }
}
