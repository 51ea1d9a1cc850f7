/**
 * A glTF material's look beyond its colours: alpha coverage (alphaMode, alphaCutoff), the base colour texture's
 * KHR_texture_transform and its sampler, read from a glTF-Transform material into MaterialLook's optional fields
 * (only where they differ from glTF's defaults) and written back onto one. The value sets the project file checks.
 */
import type { Document, GLTF, Material, Texture, TextureInfo } from '@gltf-transform/core';
import type { KHRTextureTransform, Transform } from '@gltf-transform/extensions';
import type { LookImage, MaterialLook, TextureSampler, TextureTransform } from './types.ts';

/** glTF's wrap modes (WebGL enums). */
export const WRAP = { REPEAT: 10497, CLAMP_TO_EDGE: 33071, MIRRORED_REPEAT: 33648 } as const;
/** glTF's filters (WebGL enums). */
export const FILTER = {
  NEAREST: 9728,
  LINEAR: 9729,
  NEAREST_MIPMAP_NEAREST: 9984,
  LINEAR_MIPMAP_NEAREST: 9985,
  NEAREST_MIPMAP_LINEAR: 9986,
  LINEAR_MIPMAP_LINEAR: 9987,
} as const;
export const WRAP_MODES: readonly number[] = Object.values(WRAP);
export const MAG_FILTERS: readonly number[] = [FILTER.NEAREST, FILTER.LINEAR];
export const MIN_FILTERS: readonly number[] = Object.values(FILTER);
export const ALPHA_MODES = ['OPAQUE', 'MASK', 'BLEND'] as const;

const TEXTURE_TRANSFORM = 'KHR_texture_transform';

/**
 * The extension classes a look's materials need to be written (KHR_texture_transform where one has a transform),
 * loaded on demand: the page imports the export module for its defaults and does not carry extension code.
 */
export interface LookExtensions {
  textureTransform: typeof KHRTextureTransform | null;
}

export async function lookExtensions(materials: readonly MaterialLook[]): Promise<LookExtensions> {
  if (!materials.some((m) => m.textureTransform)) return { textureTransform: null };
  const { KHRTextureTransform } = await import('@gltf-transform/extensions');
  return { textureTransform: KHRTextureTransform };
}

/** glTF's default alphaCutoff (§5.19). */
export const DEFAULT_ALPHA_CUTOFF = 0.5;

/** The base colour texture info's KHR_texture_transform, or null. */
function transformOf(info: TextureInfo | null): Transform | null {
  return info?.getExtension<Transform>(TEXTURE_TRANSFORM) ?? null;
}

/** The TEXCOORD_n set the base colour texture reads: its transform's texCoord override, else the texture info's. */
export function baseColorTexCoord(material: Material | null): number {
  if (!material?.getBaseColorTexture()) return 0;
  const info = material.getBaseColorTextureInfo();
  return transformOf(info)?.getTexCoord() ?? info?.getTexCoord() ?? 0;
}

/** The optional fields of a material's look, each only where it differs from glTF's default. */
export function readAlphaAndSampling(material: Material): Pick<MaterialLook, 'alphaMode' | 'alphaCutoff' | 'textureTransform' | 'sampler'> {
  const out: Pick<MaterialLook, 'alphaMode' | 'alphaCutoff' | 'textureTransform' | 'sampler'> = {};
  const mode = material.getAlphaMode();
  if (mode !== 'OPAQUE') out.alphaMode = mode;
  const cutoff = material.getAlphaCutoff();
  if (cutoff !== DEFAULT_ALPHA_CUTOFF) out.alphaCutoff = cutoff;
  const info = material.getBaseColorTexture() ? material.getBaseColorTextureInfo() : null;
  if (!info) return out;
  const transform = transformOf(info);
  if (transform) {
    const [ox, oy] = transform.getOffset();
    const [sx, sy] = transform.getScale();
    out.textureTransform = { offset: [ox, oy], rotation: transform.getRotation(), scale: [sx, sy] };
  }
  const sampler: TextureSampler = {
    wrapS: info.getWrapS(),
    wrapT: info.getWrapT(),
    magFilter: info.getMagFilter(),
    minFilter: info.getMinFilter(),
  };
  if (sampler.wrapS !== WRAP.REPEAT || sampler.wrapT !== WRAP.REPEAT || sampler.magFilter !== null || sampler.minFilter !== null)
    out.sampler = sampler;
  return out;
}

/**
 * Writes a look's alpha coverage onto a material, and its sampler and texture transform onto the material's base
 * colour texture info (the texture must be set first; without one only the alpha coverage is written). A transform
 * needs `extensions.textureTransform` (lookExtensions); the writer must register the document's extensions.
 */
export function writeAlphaAndSampling(doc: Document, material: Material, look: MaterialLook, extensions: LookExtensions): void {
  material.setAlphaMode(look.alphaMode ?? 'OPAQUE');
  material.setAlphaCutoff(look.alphaCutoff ?? DEFAULT_ALPHA_CUTOFF);
  const info = material.getBaseColorTexture() ? material.getBaseColorTextureInfo() : null;
  if (!info) return;
  if (look.sampler) {
    info
      .setWrapS(look.sampler.wrapS as GLTF.TextureWrapMode)
      .setWrapT(look.sampler.wrapT as GLTF.TextureWrapMode)
      .setMagFilter(look.sampler.magFilter as GLTF.TextureMagFilter | null)
      .setMinFilter(look.sampler.minFilter as GLTF.TextureMinFilter | null);
  }
  const t: TextureTransform | undefined = look.textureTransform;
  if (t) {
    if (!extensions.textureTransform) throw new Error(`material "${look.name}": KHR_texture_transform was not loaded (lookExtensions)`);
    const transform = doc
      .createExtension(extensions.textureTransform)
      .createTransform()
      .setOffset([t.offset[0], t.offset[1]])
      .setRotation(t.rotation)
      .setScale([t.scale[0], t.scale[1]]);
    info.setExtension(TEXTURE_TRANSFORM, transform);
  }
}

/** Image types core glTF 2.0 allows for a texture (others need an extension). */
const CORE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg']);

/**
 * Writes a look's surface beyond the base colour onto a material: metallicFactor and roughnessFactor always (absent in
 * the look: metallic 0, roughness 1, so a reader never falls back to glTF's metal default), emissiveFactor, the
 * emissive texture and the normal texture with its scale, each on TEXCOORD_0. An image of a type core glTF cannot
 * hold is left out with a warning naming the material.
 */
export function writeSurface(doc: Document, material: Material, look: MaterialLook, warnings: string[]): void {
  material.setMetallicFactor(look.metallic ?? 0).setRoughnessFactor(look.roughness ?? 1);
  const texture = (image: LookImage, what: string): Texture | null => {
    if (CORE_IMAGE_TYPES.has(image.mimeType))
      return doc.createTexture(`${look.name} ${what}`).setImage(image.bytes).setMimeType(image.mimeType);
    warnings.push(`material "${look.name}": its ${image.mimeType} ${what} image is left out (glTF holds PNG and JPEG)`);
    return null;
  };
  const emissiveTexture = look.emissiveTexture ? texture(look.emissiveTexture, 'emissive') : null;
  if (emissiveTexture) material.setEmissiveTexture(emissiveTexture);
  const emissive = look.emissive ?? [0, 0, 0];
  if (emissiveTexture || emissive.some((c) => c > 0)) material.setEmissiveFactor([emissive[0], emissive[1], emissive[2]]);
  const normalTexture = look.normalTexture ? texture(look.normalTexture, 'normal') : null;
  if (normalTexture && look.normalTexture) material.setNormalTexture(normalTexture).setNormalScale(look.normalTexture.scale);
}
