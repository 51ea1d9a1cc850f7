/**
 * How the skinned mesh is coloured: by its material (the asset's in the Look view, the plain one when shaded), the
 * selected bone's weight as a heat map (WEIGHT_COLOUR_MAP, optional iso-lines from shaders/weight-heatmap.glsl), each vertex's dominant
 * bone, the handles in one colour per bone (shaders/handle-colors.glsl), or each vertex's outcome in the last weight
 * transfer (transfer-colours.ts); the lasso selection is tinted in every
 * view. Per-vertex inputs are float attributes on the mesh's geometry; each material's own shader compilation is
 * extended, not replaced, so skinning and lighting stay as they are. The view's attributes and varyings are compiled
 * in (RW_WEIGHT_VIEW) only while a weight view or a selection needs them: on a software rasterizer every extra vertex
 * input costs measurably on dense meshes.
 */
import * as THREE from 'three';
import heatmapChunk from '../../shaders/weight-heatmap.glsl?raw';
import { WEIGHT_COLOUR_MAP, colourMapGlsl } from './colour-maps.ts';
import handleColorsChunk from '../../shaders/handle-colors.glsl?raw';
import { transferColourGlsl } from './transfer-colours.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';

import type { ViewMode } from './view-modes.ts';
import { boneColumn, dominantBone } from '../../workers/scene/bone-data.ts';

/** rwViewMode of each view: 0 leaves the material's colour (the plain and the asset's), the others replace it. */
const VIEW_CODES: Record<ViewMode, number> = { look: 0, shaded: 0, heatmap: 1, dominant: 2, handles: 3, transfer: 4 };

/** Heat-map uploads go by blocks of 2^BLOCK_BITS vertices (4 KiB of one float attribute). */
const BLOCK_BITS = 10;

const VERTEX_DECLARATIONS = `
#if RW_WEIGHT_VIEW
${handleColorsChunk}
${transferColourGlsl()}
uniform int rwViewMode;
attribute float rwTransfer;
attribute float rwWeight;
attribute float rwDominant;
attribute float rwHandle;
attribute float rwSelected;
varying float vRwWeight;
varying vec3 vRwColor;
varying float vRwSelected;
#endif
`;

// The bone colours are computed per vertex and interpolated, so region borders blend over one edge instead
// of stepping along triangle edges.
const VERTEX_BODY = `
#if RW_WEIGHT_VIEW
vRwWeight = rwWeight;
vRwSelected = rwSelected;
vRwColor = rwViewMode == 2 ? rwBoneColor(rwDominant)
  : rwViewMode == 4 ? rwTransferColor(rwTransfer)
  : (rwHandle >= 0.0 ? rwBoneColor(rwHandle) : RW_FREE_COLOR);
#endif
`;

const FRAGMENT_DECLARATIONS = `
#if RW_WEIGHT_VIEW
${colourMapGlsl(WEIGHT_COLOUR_MAP)}
${heatmapChunk}
uniform int rwViewMode;
uniform float rwIsoLines;
varying float vRwWeight;
varying vec3 vRwColor;
varying float vRwSelected;
#endif
`;

// Part of the colour goes to emission so the map reads the same on the lit and the shadowed side.
const FRAGMENT_BODY = `
#if RW_WEIGHT_VIEW
if (rwViewMode != 0 || vRwSelected > 0.0) {
  vec3 rwColor = diffuseColor.rgb;
  if (rwViewMode == 1) {
    rwColor = rwSrgbToLinear(rwViridis(vRwWeight));
    // No line at 0 and 1: whole regions sit exactly there (handles, far-away parts).
    float rwInterior = step(0.001, vRwWeight) * step(vRwWeight, 0.999);
    rwColor = mix(rwColor, vec3(0.02), 0.6 * rwIsoLines * rwInterior * rwIsoLine(vRwWeight, 0.1));
  } else if (rwViewMode >= 2) {
    rwColor = rwSrgbToLinear(vRwColor);
  }
  rwColor = mix(rwColor, rwSrgbToLinear(vec3(1.0, 0.55, 0.12)), 0.8 * vRwSelected);
  diffuseColor.rgb = rwColor * (rwViewMode == 0 ? 1.0 : 0.7);
  totalEmissiveRadiance += rwColor * (rwViewMode == 0 ? 0.15 : 0.35);
}
#endif
`;

export class WeightView {
  private readonly uniforms = {
    rwViewMode: { value: 0 },
    rwIsoLines: { value: 1 },
  };
  private readonly weight: THREE.BufferAttribute;
  private readonly dominant: THREE.BufferAttribute;
  /** flags, one per block of 2^BLOCK_BITS vertices, set by updateVertex until commitVertices */
  private touchedBlocks: Uint8Array;
  private anyTouched = false;
  /** attributes queued for a whole upload, until it happens (ranges queued meanwhile would replace it) */
  private readonly whole = new Set<THREE.BufferAttribute>();
  private readonly handle: THREE.BufferAttribute;
  private readonly selected: THREE.BufferAttribute;
  private readonly transfer: THREE.BufferAttribute;
  private mode: ViewMode = 'shaded';
  private hasSelection = false;
  /** whether the view's inputs are compiled into the material (RW_WEIGHT_VIEW) */
  private compiledIn = false;

  readonly vertexCount: number;

  /**
   * @param geometry   the skinned mesh's geometry: it gains five float attributes, one entry per drawn vertex (the rig's
   *                   #V, then any copies drawn at UV seams, whose entries the geometry keeps equal to their rig vertex's:
   *                   see skinned-mesh.ts); `userData.rigVertexCount` gives #V when it has such copies
   * @param materials  every material the mesh draws with (the default one and the Look view's): each gets the view chunks
   */
  constructor(
    geometry: THREE.BufferGeometry,
    private readonly materials: readonly THREE.Material[],
  ) {
    const vertexCount = geometry.getAttribute('position').count;
    this.vertexCount = (geometry.userData.rigVertexCount as number | undefined) ?? vertexCount;
    const attribute = (name: string, fill: number) => {
      const a = new THREE.BufferAttribute(new Float32Array(vertexCount).fill(fill), 1);
      a.setUsage(THREE.DynamicDrawUsage);
      a.onUpload(() => this.whole.delete(a));
      geometry.setAttribute(name, a);
      return a;
    };
    this.weight = attribute('rwWeight', 0);
    this.dominant = attribute('rwDominant', 0);
    this.handle = attribute('rwHandle', -1);
    this.selected = attribute('rwSelected', 0);
    this.transfer = attribute('rwTransfer', -1);
    this.touchedBlocks = new Uint8Array(Math.ceil(vertexCount / 2 ** BLOCK_BITS));
    for (const material of materials) this.extend(material);
  }

  private extend(material: THREE.Material): void {
    const previousCompile = material.onBeforeCompile.bind(material);
    const previousKey = material.customProgramCacheKey.bind(material);
    material.onBeforeCompile = (shader, renderer) => {
      previousCompile(shader, renderer);
      Object.assign(shader.uniforms, this.uniforms);
      shader.vertexShader = shader.vertexShader
        .replace('#include <common>', `#include <common>\n${VERTEX_DECLARATIONS}`)
        .replace('#include <begin_vertex>', `#include <begin_vertex>\n${VERTEX_BODY}`);
      shader.fragmentShader = shader.fragmentShader
        .replace('#include <common>', `#include <common>\n${FRAGMENT_DECLARATIONS}`)
        .replace('#include <emissivemap_fragment>', `#include <emissivemap_fragment>\n${FRAGMENT_BODY}`);
    };
    material.customProgramCacheKey = () => `${previousKey()}-rw-weight-view-${this.compiledIn ? 1 : 0}`;
    material.defines = { ...material.defines, RW_WEIGHT_VIEW: 0 };
    material.needsUpdate = true;
  }

  private recompileIfNeeded(): void {
    const needed = VIEW_CODES[this.mode] !== 0 || this.hasSelection;
    if (needed === this.compiledIn) return;
    this.compiledIn = needed;
    for (const material of this.materials) {
      material.defines = { ...material.defines, RW_WEIGHT_VIEW: needed ? 1 : 0 };
      material.needsUpdate = true;
    }
  }

  get viewMode(): ViewMode {
    return this.mode;
  }

  setMode(mode: ViewMode): void {
    this.mode = mode;
    this.uniforms.rwViewMode.value = VIEW_CODES[mode];
    this.recompileIfNeeded();
  }

  setIsoLines(on: boolean): void {
    this.uniforms.rwIsoLines.value = on ? 1 : 0;
  }

  /** Heat-map input: column `bone` of the #V × #B row-major weights (zeros for bone -1). */
  setBoneWeights(weights: DenseMatrix, bone: number): void {
    const out = this.weight.array as Float32Array;
    // The rig's vertices; the seam copies after them are kept equal by the geometry (skinned-mesh.ts).
    boneColumn(weights, bone, out, this.vertexCount);
    this.uploadAll(this.weight);
  }

  /** Dominant-bone input: each vertex's largest-weight bone (the first one on ties). */
  setDominant(weights: DenseMatrix): void {
    const out = this.dominant.array as Float32Array;
    for (let v = 0; v < this.vertexCount; v++) out[v] = dominantBone(weights, v);
    this.uploadAll(this.dominant);
  }

  /**
   * Refreshes one vertex's heat-map and dominant-bone inputs after its weights changed; commitVertices then uploads
   * the blocks of vertices the refreshed ones fall in.
   * @param weight    the vertex's weight of the heat map's bone (0 without one)
   * @param dominant  its strongest bone
   */
  updateVertex(v: number, weight: number, dominant: number): void {
    (this.weight.array as Float32Array)[v] = weight;
    (this.dominant.array as Float32Array)[v] = dominant;
    this.touchedBlocks[v >> BLOCK_BITS] = 1;
    this.anyTouched = true;
  }

  /**
   * Queues the upload of the blocks updateVertex touched since the last commit: one range per run of touched
   * blocks, so a symmetric stroke uploads its two sides and not the vertices numbered between them. Ranges queued
   * before and not yet drawn stay queued (three.js clears them once uploaded).
   */
  commitVertices(): void {
    if (!this.anyTouched) return;
    const blocks = this.touchedBlocks;
    const vertexCount = this.weight.count;
    for (let b = 0; b < blocks.length; b++) {
      if (!blocks[b]) continue;
      let end = b;
      while (end < blocks.length && blocks[end]) blocks[end++] = 0;
      const start = b << BLOCK_BITS;
      const count = Math.min(end << BLOCK_BITS, vertexCount) - start;
      for (const attribute of [this.weight, this.dominant]) if (!this.whole.has(attribute)) attribute.addUpdateRange(start, count);
      b = end;
    }
    this.weight.needsUpdate = true;
    this.dominant.needsUpdate = true;
    this.anyTouched = false;
  }

  /** Queues the upload of a whole attribute, dropping any partial ranges queued before (they are part of it). */
  private uploadAll(attribute: THREE.BufferAttribute): void {
    attribute.clearUpdateRanges();
    attribute.needsUpdate = true;
    this.whole.add(attribute);
  }

  /** #V bone index or -1. */
  setHandles(handles: Int32Array | null): void {
    const out = this.handle.array as Float32Array;
    if (handles) out.set(handles);
    else out.fill(-1);
    this.uploadAll(this.handle);
  }

  /** Transfer view input: #V each vertex's outcome in the last weight transfer (meshes/last-transfer.ts), or null: none. */
  setTransferStatus(status: Int8Array | null): void {
    const out = this.transfer.array as Float32Array;
    if (status) out.set(status.subarray(0, this.vertexCount));
    else out.fill(-1);
    this.uploadAll(this.transfer);
  }

  /** #V 1 = selected, 0 = not. */
  setSelection(selection: Uint8Array): void {
    (this.selected.array as Float32Array).set(selection);
    this.uploadAll(this.selected);
    this.hasSelection = selection.includes(1);
    this.recompileIfNeeded();
  }
}
