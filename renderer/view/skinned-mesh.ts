/**
 * The GPU-skinned mesh: a three.js mesh whose standard materials get the skinning chunks spliced in
 * (shaders/lbs.glsl, dqs.glsl, chosen by skin-select.glsl at compile time), fed by RGBA32F data textures in the
 * layout of workers/skinning/joint-texture-layout.ts (joint transforms and dual quaternions, updated every
 * frame; per-vertex influences, rebuilt when the influence count changes). Per-face skinning is solved on the
 * CPU and streamed into the position buffer instead (method 'streamed'). An optional distortion heat map
 * colours the surface (DISTORTION_COLOUR_MAP, colour-maps.ts). The Look view draws each part with the asset's material
(surface-look.ts) through the same chunks: only the fragment colour differs. A readback pass
 * runs the same chunk over the vertices as points into a float render target, so the GPU's skinned positions
 * can be compared with the CPU reference.
 *
 * OBJ texture coordinates are per triangle corner: where one `v` has several `vt` (a UV seam) the drawn geometry has
 * a copy of the vertex per extra `vt` (seam-split.ts), numbered after the rig's vertices. A copy is skinned as its
 * rig vertex (the `rigVertex` attribute, compiled in only when there are copies) and every per-vertex attribute on
 * the geometry — this view's and the weight view's — has the copies' entries copied from their rig vertex whenever
 * it is marked for upload, so only the texture coordinates differ. The readback draws the rig's vertices only.
 */
import * as THREE from 'three';
import lbsChunk from '../../shaders/lbs.glsl?raw';
import readbackVertex from '../../shaders/skinned-readback.vert.glsl?raw';
import readbackFragment from '../../shaders/skinned-readback.frag.glsl?raw';
import dqsChunk from '../../shaders/dqs.glsl?raw';
import skinSelectChunk from '../../shaders/skin-select.glsl?raw';
import contextChunk from '../../shaders/context-displacement.glsl?raw';
import { DISTORTION_COLOUR_MAP, MAGNITUDE_COLOUR_MAP, colourMapGlsl } from './colour-maps.ts';
import {
  JOINT_TEXTURE_WIDTH,
  JOINT_TEXTURE_WIDTH_LOG2,
  dualQuaternionTextureSize,
  packDualQuaternions,
  influenceTextureSize,
  jointTextureSize,
  packInfluences,
  packInfluenceVertex,
  packJointTransforms,
} from '../../workers/skinning/joint-texture-layout.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { ImageCache, LookMaterials, defaultMaterial, pageImageDecoder, partDrawGroups } from './surface-look.ts';
import { drawnTriangles, seamSplit, type SeamSplit } from './seam-split.ts';

const LBS_HEADER = `#define LBS_TEXTURE_WIDTH_LOG2 ${JOINT_TEXTURE_WIDTH_LOG2}\n${lbsChunk}\n${dqsChunk}\n${contextChunk}\n${skinSelectChunk}\n`;

/** The page's decoded images, shared by every view of every scene (held weakly by the image bytes). */
const PAGE_IMAGES = new ImageCache(pageImageDecoder);

/** What the vertex shader does: see shaders/skin-select.glsl. */
export type GpuSkinMethod = 'lbs' | 'dqs' | 'blend' | 'streamed';
const SKIN_METHOD_CODES: Record<GpuSkinMethod, number> = { lbs: 0, dqs: 1, blend: 2, streamed: 3 };
/** Readback target width in texels; height = ceil(#V / width). */
const READBACK_WIDTH = 1024;

function floatTexture(width: number, height: number): THREE.DataTexture {
  const texture = new THREE.DataTexture(new Float32Array(width * height * 4), width, height, THREE.RGBAFormat, THREE.FloatType);
  texture.minFilter = THREE.NearestFilter;
  texture.magFilter = THREE.NearestFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;
  return texture;
}

/**
 * Texture sizes this scene needs, checked against the GPU before the scene is swapped in.
 * @returns a reason the GPU cannot show the scene, or null
 */
export function gpuLimitProblem(doc: SceneDocument, influenceStride: number, maxTextureSize: number): string | null {
  const vertexCount = doc.mesh.positions.length / 3;
  const joint = jointTextureSize(doc.skeleton.parents.length);
  const influence = influenceTextureSize(vertexCount, influenceStride);
  const readbackRows = Math.ceil(vertexCount / READBACK_WIDTH);
  const rows = Math.max(joint.height, influence.height, readbackRows);
  return rows > maxTextureSize
    ? `${doc.name}: ${vertexCount} vertices × ${influenceStride} influences need a ${rows}-row texture; this GPU allows ${maxTextureSize}`
    : null;
}

export class SkinnedMeshView {
  readonly mesh: THREE.Mesh<THREE.BufferGeometry, THREE.MeshStandardMaterial | THREE.MeshStandardMaterial[]>;
  private readonly geometry: THREE.BufferGeometry;
  /** the default material (every view but Look, and Look's parts without a material) */
  private readonly material: THREE.MeshStandardMaterial;
  /** the Look view's materials, when the scene has a look */
  private readonly look: LookMaterials | null;
  private readonly uniforms: {
    lbsJointTexture: THREE.IUniform<THREE.DataTexture>;
    lbsInfluenceTexture: THREE.IUniform<THREE.DataTexture>;
    dqsTexture: THREE.IUniform<THREE.DataTexture>;
    contextDisplacementTexture: THREE.IUniform<THREE.DataTexture>;
    contextVertexCount: THREE.IUniform<number>;
    contextWeights: THREE.IUniform<Float32Array>;
  };
  /** the displacements the context texture holds (J × #V × 3), to upload only new ones */
  private contextDisplacements: Float64Array | null = null;
  private contextNormals: Float64Array | null = null;
  /** J of the compiled shader: examples whose displacements are added before skinning (0 = none) */
  private contextExamples = 0;
  private readonly dqsTexture: THREE.DataTexture;
  private readonly dqsPixels: Float32Array;
  private readonly positionAttribute: THREE.BufferAttribute;
  private readonly normalAttribute: THREE.BufferAttribute;
  private readonly restPositions: Float32Array;
  private readonly restNormalValues: Float32Array;
  private readonly blendAttribute: THREE.BufferAttribute;
  private readonly distortionAttribute: THREE.BufferAttribute;
  private skinMethod: GpuSkinMethod = 'lbs';
  private perVertexSigns = true;
  private nonRigid = false;
  /** 0 off, 1 distortion (diverging), 2 magnitude (sequential) */
  private heatMap: 0 | 1 | 2 = 0;
  private readonly jointTexture: THREE.DataTexture;
  private readonly jointPixels: Float32Array;
  private readonly boneCount: number;
  private readonly vertexCount: number;
  /** the drawn geometry split at OBJ UV seams, or null (draw vertices are the rig's vertices) */
  private readonly seam: SeamSplit | null;
  /** the scene's triangles and the ones last given to setTriangles (rig vertices) */
  private readonly ownTriangles: Uint32Array;
  private shownTriangles: Uint32Array;

  private readonly readbackScene = new THREE.Scene();
  private readonly readbackCamera = new THREE.OrthographicCamera();
  private readonly readbackGeometry: THREE.BufferGeometry;
  private readonly readbackMaterial: THREE.ShaderMaterial;
  /** texels of the influence texture per vertex, compiled into both shaders as LBS_TEXELS_PER_VERTEX */
  private texelsPerVertex = 0;
  /** flags, one per influence texture row, set by packInfluenceRow until commitInfluenceRows */
  private touchedRows = new Uint8Array(0);
  /** the influence texture awaits its whole upload (it is new): rows marked meanwhile go with it, not as ranges */
  private influenceTextureWhole = true;
  private readonly readbackTarget: THREE.WebGLRenderTarget;
  private readonly readbackPixels: Float32Array;

  /**
   * @param doc         scene whose rest mesh is drawn (positions and normals are uploaded as float32)
   * @param influences  per-vertex influences (#V × stride), e.g. influencesFromWeights(doc.weights, 4)
   * @param onLookChange  a texture of the look arrived (the view needs drawing again)
   * @param images        where the look's images are decoded, once per image
   */
  constructor(doc: SceneDocument, influences: Influences, onLookChange: () => void = () => {}, images: ImageCache = PAGE_IMAGES) {
    const { positions, triangles } = doc.mesh;
    this.vertexCount = positions.length / 3;
    this.boneCount = doc.skeleton.parents.length;
    this.ownTriangles = triangles;
    this.shownTriangles = triangles;
    // Seam copies only where a texture is drawn by the corners' texture coordinates: colours alone need none.
    const textured = doc.look?.materials.some((material) => material.baseColorTexture) ?? false;
    this.seam = textured && doc.objCorners ? seamSplit(triangles, this.vertexCount, doc.objCorners) : null;
    const drawCount = this.vertexCount + (this.seam?.copyOf.length ?? 0);

    this.geometry = new THREE.BufferGeometry();
    this.geometry.userData.rigVertexCount = this.vertexCount;
    if (this.seam && this.seam.copyOf.length > 0) this.mirrorSeamCopies(this.geometry, drawCount);
    const drawn = (values: ArrayLike<number>, itemSize: number): Float32Array => {
      const out = new Float32Array(itemSize * drawCount);
      out.set(values);
      return out;
    };
    this.restPositions = drawn(positions, 3);
    this.restNormalValues = drawn(doc.restNormals, 3);
    const position = new THREE.BufferAttribute(this.restPositions.slice(), 3);
    this.positionAttribute = position;
    this.normalAttribute = new THREE.BufferAttribute(this.restNormalValues.slice(), 3);
    this.geometry.setAttribute('position', position);
    this.geometry.setAttribute('normal', this.normalAttribute);
    this.blendAttribute = new THREE.BufferAttribute(new Float32Array(drawCount), 1);
    this.distortionAttribute = new THREE.BufferAttribute(new Float32Array(drawCount), 1);
    this.geometry.setAttribute('skinBlend', this.blendAttribute);
    this.geometry.setAttribute('skinDistortion', this.distortionAttribute);
    this.geometry.setIndex(new THREE.BufferAttribute(this.seam ? this.seam.triangles : triangles, 1));
    if (this.seam && this.seam.copyOf.length > 0) {
      // The copies' rest positions and normals are their rig vertices'.
      this.mirror(this.restPositions, 3);
      this.mirror(this.restNormalValues, 3);
      const rigVertex = new Float32Array(drawCount);
      for (let d = 0; d < drawCount; d++) rigVertex[d] = d < this.vertexCount ? d : this.seam.copyOf[d - this.vertexCount];
      this.geometry.setAttribute('rigVertex', new THREE.BufferAttribute(rigVertex, 1));
    }

    const jointSize = jointTextureSize(this.boneCount);
    this.jointTexture = floatTexture(jointSize.width, jointSize.height);
    this.jointPixels = this.jointTexture.image.data as Float32Array;
    const dqsSize = dualQuaternionTextureSize(this.boneCount);
    this.dqsTexture = floatTexture(dqsSize.width, dqsSize.height);
    this.dqsPixels = this.dqsTexture.image.data as Float32Array;
    this.uniforms = {
      lbsJointTexture: { value: this.jointTexture },
      lbsInfluenceTexture: { value: floatTexture(1, 1) },
      dqsTexture: { value: this.dqsTexture },
      contextDisplacementTexture: { value: floatTexture(1, 1) },
      contextVertexCount: { value: this.vertexCount },
      contextWeights: { value: new Float32Array(0) },
    };

    this.material = defaultMaterial();
    this.prepareMaterial(this.material);
    // Texture coordinates: the OBJ corners' (split at seams), else the look's per vertex (glTF).
    const uvs = this.seam ? this.seam.uvs : doc.look?.uvs && doc.look.uvs.length === 2 * this.vertexCount ? doc.look.uvs : null;
    if (uvs) this.geometry.setAttribute('uv', new THREE.BufferAttribute(uvs, 2));
    for (const group of partDrawGroups(doc.parts, triangles.length / 3, doc.look?.materials.length ?? 0)) {
      this.geometry.addGroup(group.start, group.count, group.materialIndex);
    }
    this.look = doc.look
      ? new LookMaterials({ ...doc.look, uvs }, this.material, images, (material) => this.prepareMaterial(material), onLookChange)
      : null;
    this.mesh = new THREE.Mesh<THREE.BufferGeometry, THREE.MeshStandardMaterial | THREE.MeshStandardMaterial[]>(
      this.geometry,
      this.material,
    );
    // The bounding sphere is the rest pose's; the skinned mesh can leave it.
    this.mesh.frustumCulled = false;

    // Points without an index, sharing the position buffer, so gl_VertexID runs over the vertices once each.
    this.readbackGeometry = new THREE.BufferGeometry();
    this.readbackGeometry.setAttribute('position', position);
    // Seam copies (after the rig's vertices) are skinned like their rig vertex: the readback needs the rig's only.
    this.readbackGeometry.setDrawRange(0, this.vertexCount);
    const readbackRows = Math.max(1, Math.ceil(this.vertexCount / READBACK_WIDTH));
    this.readbackGeometry.setAttribute('skinBlend', this.blendAttribute);
    this.readbackMaterial = new THREE.ShaderMaterial({
      uniforms: { ...this.uniforms, readbackSize: { value: new THREE.Vector2(READBACK_WIDTH, readbackRows) } },
      vertexShader: `${LBS_HEADER}${readbackVertex}`,
      fragmentShader: readbackFragment,
      blending: THREE.NoBlending,
      depthTest: false,
      depthWrite: false,
    });
    const points = new THREE.Points(this.readbackGeometry, this.readbackMaterial);
    points.frustumCulled = false;
    this.readbackScene.add(points);
    this.readbackTarget = new THREE.WebGLRenderTarget(READBACK_WIDTH, readbackRows, {
      type: THREE.FloatType,
      format: THREE.RGBAFormat,
      minFilter: THREE.NearestFilter,
      magFilter: THREE.NearestFilter,
      depthBuffer: false,
      generateMipmaps: false,
    });
    this.readbackPixels = new Float32Array(READBACK_WIDTH * readbackRows * 4);
    this.applyDefines();
    this.setInfluences(influences);
  }

  /** Copies each seam copy's entries (itemSize per vertex) from its rig vertex, in an array over the draw vertices. */
  private mirror(array: THREE.TypedArray, itemSize: number): void {
    const copyOf = this.seam?.copyOf;
    if (!copyOf) return;
    const base = this.vertexCount * itemSize;
    for (let i = 0; i < copyOf.length; i++)
      for (let k = 0; k < itemSize; k++) array[base + i * itemSize + k] = array[copyOf[i] * itemSize + k];
  }

  /**
   * Every attribute over the draw vertices set on the geometry from now on (this view's and the weight view's) gets
   * its seam copies' entries from their rig vertices each time it is marked for upload; when only ranges of it are
   * to be uploaded, the copies' range goes with them.
   */
  private mirrorSeamCopies(geometry: THREE.BufferGeometry, drawCount: number): void {
    const setAttribute = geometry.setAttribute.bind(geometry);
    const mirrored = (name: string, attribute: THREE.BufferAttribute | THREE.InterleavedBufferAttribute): THREE.BufferGeometry => {
      if (attribute instanceof THREE.BufferAttribute && attribute.count === drawCount && name !== 'uv' && name !== 'rigVertex') {
        const copies = drawCount - this.vertexCount;
        const itemSize = attribute.itemSize;
        Object.defineProperty(attribute, 'needsUpdate', {
          configurable: true,
          set: (value: boolean) => {
            if (value !== true) return;
            this.mirror(attribute.array, itemSize);
            if (attribute.updateRanges.length > 0) attribute.addUpdateRange(this.vertexCount * itemSize, copies * itemSize);
            attribute.version++;
          },
        });
        this.mirror(attribute.array, itemSize);
      }
      return setAttribute(name, attribute);
    };
    geometry.setAttribute = mirrored;
  }

  /** The skinning chunks and the heat map go into a material's own shader (the same for every material). */
  private prepareMaterial(material: THREE.MeshStandardMaterial): void {
    const seamCopies = this.seam !== null && this.seam.copyOf.length > 0;
    material.defines = { ...material.defines, RW_SEAM_COPIES: seamCopies ? 1 : 0 };
    material.onBeforeCompile = (shader) => {
      Object.assign(shader.uniforms, this.uniforms);
      shader.vertexShader = shader.vertexShader
        .replace(
          '#include <common>',
          `#include <common>\n${LBS_HEADER}\n#if SKIN_HEATMAP\nattribute float skinDistortion;\nvarying float vSkinDistortion;\n#endif\n#if RW_SEAM_COPIES\nattribute float rigVertex;\n#define RW_RIG_VERTEX int(rigVertex + 0.5)\n#else\n#define RW_RIG_VERTEX gl_VertexID\n#endif`,
        )
        .replace(
          '#include <beginnormal_vertex>',
          '#include <beginnormal_vertex>\nvec3 skinnedPosition = position;\nskinVertex(RW_RIG_VERTEX, skinnedPosition, objectNormal);\n#if SKIN_HEATMAP\nvSkinDistortion = skinDistortion;\n#endif',
        )
        .replace('#include <begin_vertex>', '#include <begin_vertex>\ntransformed = skinnedPosition;');
      shader.fragmentShader = shader.fragmentShader
        .replace(
          '#include <common>',
          `#include <common>\n${colourMapGlsl(DISTORTION_COLOUR_MAP)}\n${colourMapGlsl(MAGNITUDE_COLOUR_MAP)}\n#if SKIN_HEATMAP\nvarying float vSkinDistortion;\n#endif`,
        )
        .replace(
          '#include <color_fragment>',
          '#include <color_fragment>\n#if SKIN_HEATMAP == 2\ndiffuseColor.rgb = magnitudeColor(vSkinDistortion);\n#elif SKIN_HEATMAP\ndiffuseColor.rgb = distortionColor(vSkinDistortion);\n#endif',
        );
    };
    material.customProgramCacheKey = () =>
      `rigwright-skin-${this.texelsPerVertex}-${this.skinMethod}-${this.perVertexSigns}-${this.nonRigid}-${this.heatMap}-${this.contextExamples}-${seamCopies ? 1 : 0}`;
  }

  /** Every material the mesh can draw with: the default one, then the look's. */
  get materials(): readonly THREE.MeshStandardMaterial[] {
    return this.look ? this.look.materials : [this.material];
  }

  /**
   * The Look view on: each part drawn with its own material (base colour × texture); off: every part with the
   * default material. The skinning is the same either way. Without a look the mesh keeps the default material.
   */
  setLook(on: boolean): void {
    this.mesh.material = on && this.look ? this.look.materials : this.material;
  }

  get lookShown(): boolean {
    return Array.isArray(this.mesh.material);
  }

  /** Resolves once the look's textures are decoded and on their materials (or have failed: see lookProblems). */
  get lookReady(): Promise<void> {
    return this.look?.ready ?? Promise.resolve();
  }

  get lookProblems(): readonly string[] {
    return this.look?.problems ?? [];
  }

  get method(): GpuSkinMethod {
    return this.skinMethod;
  }

  /**
   * Chooses the vertex shader's skinning (recompiles on change).
   * @param perVertexSigns  DQS antipodality: Kavan 2008 Alg. 2 in the shader (true) or signs aligned per bone
   *                        before packing (false)
   * @param nonRigid        whether any bone carries a first-phase scale (Sec. 4.2), compiled out when not
   */
  setMethod(method: GpuSkinMethod, perVertexSigns: boolean, nonRigid: boolean): void {
    if (method === this.skinMethod && perVertexSigns === this.perVertexSigns && nonRigid === this.nonRigid) return;
    if (this.skinMethod === 'streamed' && method !== 'streamed') {
      this.positionAttribute.copyArray(this.restPositions);
      this.normalAttribute.copyArray(this.restNormalValues);
      this.positionAttribute.needsUpdate = true;
      this.normalAttribute.needsUpdate = true;
    }
    this.skinMethod = method;
    this.perVertexSigns = perVertexSigns;
    this.nonRigid = nonRigid;
    this.applyDefines();
  }

  /**
   * Shows a heat map, or hides it (null): 'distortion' from #V log2 ratios of one-ring area / rest area
   * (DISTORTION_COLOUR_MAP), 'magnitude' from #V values in [0, 1] (MAGNITUDE_COLOUR_MAP; colour-maps.ts).
   */
  setDistortion(values: Float32Array | null, kind: 'distortion' | 'magnitude' = 'distortion'): void {
    if (values) {
      this.distortionAttribute.copyArray(values);
      this.distortionAttribute.needsUpdate = true;
    }
    const code = values === null ? 0 : kind === 'magnitude' ? 2 : 1;
    if (code !== this.heatMap) {
      this.heatMap = code;
      this.applyDefines();
    }
  }

  /** Per-vertex LBS ↔ DQS blend of method 'blend' (#V values in [0, 1]; 0 = LBS, 1 = DQS). */
  setBlendWeights(blend: Float32Array): void {
    this.blendAttribute.copyArray(blend);
    this.blendAttribute.needsUpdate = true;
  }

  /**
   * Uploads this frame's dual quaternions for DQS (#B × 8, signs as the antipodality mode wants them) and the
   * first-phase scale/shear of non-rigid joints (#B × 12, or null when every bone is rigid).
   */
  setDualQuaternions(dualQuaternions: Float64Array, scales: Float64Array | null): void {
    packDualQuaternions(dualQuaternions, scales, this.boneCount, this.dqsPixels);
    this.dqsTexture.needsUpdate = true;
  }

  /**
   * Context-aware deformation (shaders/context-displacement.glsl): the examples' rest-space displacements
   * (J × #V × 3, example-major), their normal changes (packed alike, or null) and this pose's weights a_j (J), or
   * null to skin the rest mesh as it is. New arrays are uploaded once; the weights every call. Changing J recompiles.
   */
  setContext(displacements: Float64Array | null, normalDeltas: Float64Array | null, weights: ArrayLike<number>): void {
    const J = displacements ? weights.length : 0;
    const texels = J * this.vertexCount;
    if (displacements && displacements.length !== 3 * texels)
      throw new RangeError(`context skinning: ${displacements.length / 3} displacements for ${J} examples × ${this.vertexCount} vertices`);
    if (displacements && (displacements !== this.contextDisplacements || normalDeltas !== this.contextNormals)) {
      // δ_j of vertex v at texel j·#V + v; the normal changes after them, at J·#V + j·#V + v (zero without them).
      const texture = floatTexture(JOINT_TEXTURE_WIDTH, Math.max(1, Math.ceil((2 * texels) / JOINT_TEXTURE_WIDTH)));
      const pixels = texture.image.data as Float32Array;
      for (let i = 0; i < texels; i++) {
        pixels[4 * i] = displacements[3 * i];
        pixels[4 * i + 1] = displacements[3 * i + 1];
        pixels[4 * i + 2] = displacements[3 * i + 2];
        if (normalDeltas) {
          const o = 4 * (texels + i);
          pixels[o] = normalDeltas[3 * i];
          pixels[o + 1] = normalDeltas[3 * i + 1];
          pixels[o + 2] = normalDeltas[3 * i + 2];
        }
      }
      this.uniforms.contextDisplacementTexture.value.dispose();
      this.uniforms.contextDisplacementTexture.value = texture;
    }
    this.contextNormals = normalDeltas;
    this.contextDisplacements = displacements;
    if (this.uniforms.contextWeights.value.length !== J) this.uniforms.contextWeights.value = new Float32Array(J);
    if (J > 0) this.uniforms.contextWeights.value.set(weights);
    if (J !== this.contextExamples) {
      this.contextExamples = J;
      this.applyDefines();
    }
  }

  /** Method 'streamed': the posed positions and unit normals (#V × 3 each), computed on the CPU. */
  setStreamedPositions(positions: Float64Array | Float32Array, normals: Float64Array | Float32Array): void {
    this.positionAttribute.copyArray(positions);
    this.normalAttribute.copyArray(normals);
    this.positionAttribute.needsUpdate = true;
    this.normalAttribute.needsUpdate = true;
  }

  private applyDefines(): void {
    for (const material of [...this.materials, this.readbackMaterial]) {
      material.defines = {
        ...material.defines,
        SKIN_METHOD: SKIN_METHOD_CODES[this.skinMethod],
        DQS_PER_VERTEX_SIGNS: this.perVertexSigns ? 1 : 0,
        DQS_NON_RIGID: this.nonRigid ? 1 : 0,
        SKIN_HEATMAP: this.heatMap,
        SKIN_CONTEXT_EXAMPLES: this.contextExamples,
      };
      material.needsUpdate = true;
    }
  }

  /** Replaces the influence texture (#V × stride influences → ceil(stride / 2) texels per vertex). */
  setInfluences(influences: Influences): void {
    const size = influenceTextureSize(influences.vertexCount, influences.stride);
    const texture = floatTexture(size.width, size.height);
    packInfluences(influences, texture.image.data as Float32Array);
    // A new texture's first upload with update ranges would fill only those rows.
    this.influenceTextureWhole = true;
    texture.onUpdate = () => {
      if (this.uniforms.lbsInfluenceTexture.value === texture) this.influenceTextureWhole = false;
    };
    this.uniforms.lbsInfluenceTexture.value.dispose();
    this.uniforms.lbsInfluenceTexture.value = texture;
    // A compile-time count lets the shader compiler unroll the influence loop; changing it recompiles.
    if (size.texelsPerVertex !== this.texelsPerVertex) {
      this.texelsPerVertex = size.texelsPerVertex;
      for (const material of [...this.materials, this.readbackMaterial]) {
        material.defines = { ...material.defines, LBS_TEXELS_PER_VERTEX: this.texelsPerVertex };
        material.needsUpdate = true;
      }
    }
  }

  /**
   * Re-packs one vertex's influences into the current influence texture and marks the texture rows it falls in;
   * commitInfluenceRows then uploads only those rows (texture update ranges). One vertex at a time, so a caller
   * that has just rewritten the vertex's weights packs it while they are still in cache.
   * @param influences  the influences, already updated for the vertex, with the stride the texture was built with
   */
  packInfluenceRow(influences: Influences, v: number): void {
    const image = this.uniforms.lbsInfluenceTexture.value.image;
    const rowFloats = 4 * image.width;
    const perVertex = 4 * this.texelsPerVertex;
    if (this.touchedRows.length < image.height) this.touchedRows = new Uint8Array(image.height);
    packInfluenceVertex(influences, v, image.data as Float32Array);
    this.touchedRows[Math.floor((v * perVertex) / rowFloats)] = 1;
    this.touchedRows[Math.floor(((v + 1) * perVertex - 1) / rowFloats)] = 1;
  }

  /** Queues the upload of the texture rows packInfluenceRow marked. */
  commitInfluenceRows(): void {
    const texture = this.uniforms.lbsInfluenceTexture.value;
    const rowFloats = 4 * texture.image.width;
    const touched = this.touchedRows;
    // One range per touched texture row: three.js uploads each range with one texSubImage2D and never lets one span rows.
    let any = false;
    for (let row = 0; row < Math.min(touched.length, texture.image.height); row++) {
      if (!touched[row]) continue;
      touched[row] = 0;
      if (!this.influenceTextureWhole) texture.addUpdateRange(row * rowFloats, rowFloats);
      any = true;
    }
    if (any) texture.needsUpdate = true;
  }

  /** Uploads this frame's bone transforms (#B × 12 rest → posed 3×4, row-major). */
  setTransforms(transforms: Float64Array): void {
    packJointTransforms(transforms, this.boneCount, this.jointPixels);
    this.jointTexture.needsUpdate = true;
  }

  setWireframe(on: boolean): void {
    for (const material of this.materials) material.wireframe = on;
  }

  /** The triangles drawn (#F × 3, the rest mesh's vertex numbers): hidden meshes' triangles degenerate, none dropped. */
  setTriangles(triangles: Uint32Array): void {
    if (this.seam) {
      if (this.shownTriangles === triangles) return;
      this.shownTriangles = triangles;
      this.geometry.setIndex(new THREE.BufferAttribute(drawnTriangles(triangles, this.ownTriangles, this.seam), 1));
      return;
    }
    if (this.geometry.index?.array === triangles) return;
    this.geometry.setIndex(new THREE.BufferAttribute(triangles, 1));
  }

  /**
   * Skins every vertex on the GPU with the current textures and reads the result back.
   * @returns #V × 3 skinned positions (float32 precision)
   */
  readSkinnedPositions(renderer: THREE.WebGLRenderer): Float32Array {
    const previous = renderer.getRenderTarget();
    renderer.setRenderTarget(this.readbackTarget);
    renderer.clear(true, false, false);
    renderer.render(this.readbackScene, this.readbackCamera);
    renderer.readRenderTargetPixels(this.readbackTarget, 0, 0, this.readbackTarget.width, this.readbackTarget.height, this.readbackPixels);
    renderer.setRenderTarget(previous);
    const out = new Float32Array(this.vertexCount * 3);
    for (let v = 0; v < this.vertexCount; v++) {
      out[3 * v] = this.readbackPixels[4 * v];
      out[3 * v + 1] = this.readbackPixels[4 * v + 1];
      out[3 * v + 2] = this.readbackPixels[4 * v + 2];
    }
    return out;
  }

  dispose(): void {
    this.geometry.dispose();
    this.material.dispose();
    this.look?.dispose();
    this.jointTexture.dispose();
    this.dqsTexture.dispose();
    this.uniforms.lbsInfluenceTexture.value.dispose();
    this.uniforms.contextDisplacementTexture.value.dispose();
    this.readbackGeometry.dispose();
    this.readbackMaterial.dispose();
    this.readbackTarget.dispose();
  }
}
