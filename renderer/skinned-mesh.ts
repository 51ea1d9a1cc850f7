/**
 * The GPU-skinned mesh: a three.js mesh whose standard material gets shaders/lbs.glsl spliced in, fed by two
 * RGBA32F data textures in the layout of workers/skinning/joint-texture-layout.ts (joint transforms, updated
 * every frame; per-vertex influences, rebuilt when the influence count changes), plus a readback pass that
 * runs the same chunk over the vertices as points into a float render target, so the GPU's skinned positions
 * can be compared with the CPU reference.
 */
import * as THREE from 'three';
import lbsChunk from '../shaders/lbs.glsl?raw';
import readbackVertex from '../shaders/skinned-readback.vert.glsl?raw';
import readbackFragment from '../shaders/skinned-readback.frag.glsl?raw';
import {
  JOINT_TEXTURE_WIDTH_LOG2,
  influenceTextureSize,
  jointTextureSize,
  packInfluences,
  packJointTransforms,
} from '../workers/skinning/joint-texture-layout.ts';
import type { Influences } from '../workers/skinning/influences.ts';
import type { SceneDocument } from './scene-document.ts';

const LBS_HEADER = `#define LBS_TEXTURE_WIDTH_LOG2 ${JOINT_TEXTURE_WIDTH_LOG2}\n${lbsChunk}\n`;
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
  readonly mesh: THREE.Mesh<THREE.BufferGeometry, THREE.MeshStandardMaterial>;
  private readonly geometry: THREE.BufferGeometry;
  private readonly material: THREE.MeshStandardMaterial;
  private readonly uniforms: {
    lbsJointTexture: THREE.IUniform<THREE.DataTexture>;
    lbsInfluenceTexture: THREE.IUniform<THREE.DataTexture>;
  };
  private readonly jointTexture: THREE.DataTexture;
  private readonly jointPixels: Float32Array;
  private readonly boneCount: number;
  private readonly vertexCount: number;

  private readonly readbackScene = new THREE.Scene();
  private readonly readbackCamera = new THREE.OrthographicCamera();
  private readonly readbackGeometry: THREE.BufferGeometry;
  private readonly readbackMaterial: THREE.ShaderMaterial;
  /** texels of the influence texture per vertex, compiled into both shaders as LBS_TEXELS_PER_VERTEX */
  private texelsPerVertex = 0;
  private readonly readbackTarget: THREE.WebGLRenderTarget;
  private readonly readbackPixels: Float32Array;

  /**
   * @param doc         scene whose rest mesh is drawn (positions and normals are uploaded as float32)
   * @param influences  per-vertex influences (#V × stride), e.g. influencesFromWeights(doc.weights, 4)
   */
  constructor(doc: SceneDocument, influences: Influences) {
    const { positions, triangles } = doc.mesh;
    this.vertexCount = positions.length / 3;
    this.boneCount = doc.skeleton.parents.length;

    this.geometry = new THREE.BufferGeometry();
    const position = new THREE.BufferAttribute(new Float32Array(positions), 3);
    this.geometry.setAttribute('position', position);
    this.geometry.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(doc.restNormals), 3));
    this.geometry.setIndex(new THREE.BufferAttribute(triangles, 1));

    const jointSize = jointTextureSize(this.boneCount);
    this.jointTexture = floatTexture(jointSize.width, jointSize.height);
    this.jointPixels = this.jointTexture.image.data as Float32Array;
    this.uniforms = {
      lbsJointTexture: { value: this.jointTexture },
      lbsInfluenceTexture: { value: floatTexture(1, 1) },
    };

    this.material = new THREE.MeshStandardMaterial({
      color: 0xb9c2cf,
      roughness: 0.62,
      metalness: 0.05,
      side: THREE.DoubleSide,
    });
    this.material.onBeforeCompile = (shader) => {
      Object.assign(shader.uniforms, this.uniforms);
      shader.vertexShader = shader.vertexShader
        .replace('#include <common>', `#include <common>\n${LBS_HEADER}`)
        .replace(
          '#include <beginnormal_vertex>',
          '#include <beginnormal_vertex>\nLbsBlend lbs = lbsBlend(gl_VertexID);\nobjectNormal = lbsNormal(lbs, objectNormal);',
        )
        .replace('#include <begin_vertex>', '#include <begin_vertex>\ntransformed = lbsPosition(lbs, transformed);');
    };
    this.material.customProgramCacheKey = () => `rigwright-lbs-${this.texelsPerVertex}`;
    this.mesh = new THREE.Mesh(this.geometry, this.material);
    // The bounding sphere is the rest pose's; the skinned mesh can leave it.
    this.mesh.frustumCulled = false;

    // Points without an index, sharing the position buffer, so gl_VertexID runs over the vertices once each.
    this.readbackGeometry = new THREE.BufferGeometry();
    this.readbackGeometry.setAttribute('position', position);
    const readbackRows = Math.max(1, Math.ceil(this.vertexCount / READBACK_WIDTH));
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
    this.setInfluences(influences);
  }

  /** Replaces the influence texture (#V × stride influences → ceil(stride / 2) texels per vertex). */
  setInfluences(influences: Influences): void {
    const size = influenceTextureSize(influences.vertexCount, influences.stride);
    const texture = floatTexture(size.width, size.height);
    packInfluences(influences, texture.image.data as Float32Array);
    this.uniforms.lbsInfluenceTexture.value.dispose();
    this.uniforms.lbsInfluenceTexture.value = texture;
    // A compile-time count lets the shader compiler unroll the influence loop; changing it recompiles.
    if (size.texelsPerVertex !== this.texelsPerVertex) {
      this.texelsPerVertex = size.texelsPerVertex;
      for (const material of [this.material, this.readbackMaterial]) {
        material.defines = { ...material.defines, LBS_TEXELS_PER_VERTEX: this.texelsPerVertex };
        material.needsUpdate = true;
      }
    }
  }

  /** Uploads this frame's bone transforms (#B × 12 rest → posed 3×4, row-major). */
  setTransforms(transforms: Float64Array): void {
    packJointTransforms(transforms, this.boneCount, this.jointPixels);
    this.jointTexture.needsUpdate = true;
  }

  setWireframe(on: boolean): void {
    this.material.wireframe = on;
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
    this.jointTexture.dispose();
    this.uniforms.lbsInfluenceTexture.value.dispose();
    this.readbackGeometry.dispose();
    this.readbackMaterial.dispose();
    this.readbackTarget.dispose();
  }
}
