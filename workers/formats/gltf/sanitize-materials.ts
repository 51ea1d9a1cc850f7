/**
 * Input sanitizer, images, samplers, textures and materials. An image's bytes are in a plain buffer view, a data: URI
 * (decoded here) or a file given with the asset; an image file that is missing is left out with a notice (the rig does
 * not need it), and the textures that show it lose their source. Material factors are numbers and every texture
 * reference (`…Texture`, in the core or in an extension) names a texture of the file; one to a texture without an
 * image is left out with a notice.
 */
import { isDataUri } from '../data-uri.ts';
import { plainView, type SanitizedViews } from './sanitize-buffers.ts';
import {
  dataUri,
  fileResource,
  isObject,
  shown,
  withExtensions,
  type ExtensionCheck,
  type Fail,
  type Json,
  type SanitizeContext,
} from './sanitize-context.ts';

/** The images as kept. */
export interface SanitizedImages {
  /** the file's image count */
  count: number;
  /** each image's index among those kept, −1 for one left out */
  imageIndex: Int32Array;
  /** the entries for glTF-Transform */
  outImages: Json[];
}

/** One image, checked; undefined when its file is missing (with a notice). */
function sanitizeImage(
  ctx: SanitizeContext,
  views: SanitizedViews,
  resources: Record<string, Uint8Array>,
  outResources: Record<string, Uint8Array>,
  image: Json,
  i: number,
): Json | undefined {
  const fail: Fail = ctx.fail;
  const where = `/images/${i}`;
  if (image.mimeType !== undefined && typeof image.mimeType !== 'string')
    fail(`${where}/mimeType`, `must be a string, found ${shown(image.mimeType)}`);
  const extensions = ctx.keptExtensions(image, where, { KHR_xmp_json_ld: ctx.xmp });
  const { uri, ...rest } = withExtensions(image, extensions);
  if (image.bufferView !== undefined) {
    plainView(ctx, views, image.bufferView, `${where}/bufferView`);
    return rest;
  }
  if (uri === undefined) fail(where, 'an image needs a uri or a buffer view');
  if (typeof uri !== 'string') fail(`${where}/uri`, `must be a string, found ${shown(uri)}`);
  const text = uri;
  if (isDataUri(text)) {
    const { bytes, mediaType } = dataUri(text, `${where}/uri`, fail);
    const key = `__image${i}`;
    outResources[key] = bytes;
    return { ...rest, uri: key, ...(rest.mimeType === undefined && mediaType ? { mimeType: mediaType } : {}) };
  }
  const bytes = fileResource(resources, text);
  if (!bytes) {
    ctx.notices?.push(`image ${i} is left out: the image file "${shown(text).slice(1, -1)}" was not found (${where}/uri)`);
    return undefined;
  }
  outResources[text] = bytes;
  return { ...rest, uri: text };
}

/**
 * Checks the images and puts the bytes of those with a URI in `outResources`.
 * @param ctx           the asset being sanitized
 * @param views         the buffer views as checked
 * @param resources     external files by URI as written
 * @param outResources  filled: image bytes by the uri the image gets (`__imageN` for a data: URI)
 */
export function sanitizeImages(
  ctx: SanitizeContext,
  views: SanitizedViews,
  resources: Record<string, Uint8Array>,
  outResources: Record<string, Uint8Array>,
): SanitizedImages {
  const images = ctx.array('images');
  const imageIndex = new Int32Array(images.length).fill(-1);
  const outImages: Json[] = [];
  images.forEach((image, i) => {
    const kept = sanitizeImage(ctx, views, resources, outResources, image, i);
    if (!kept) return;
    imageIndex[i] = outImages.length;
    outImages.push(kept);
  });
  return { count: images.length, imageIndex, outImages };
}

/** Checks the samplers' filters and wrap modes (whole numbers); returns them as written. */
export function sanitizeSamplers(ctx: SanitizeContext): Json[] {
  const samplers = ctx.array('samplers');
  samplers.forEach((sampler, s) => {
    for (const key of ['magFilter', 'minFilter', 'wrapS', 'wrapT'])
      if (sampler[key] !== undefined) ctx.wholeNumber(sampler, key, `/samplers/${s}`, 0);
  });
  return samplers;
}

/**
 * Checks the textures' image and sampler references (and the image extensions'), with image indices renumbered as
 * the images kept; a source or an image extension whose image was left out is dropped with it.
 * @returns the entries for glTF-Transform
 */
export function sanitizeTextures(ctx: SanitizeContext, images: SanitizedImages, samplerCount: number): Json[] {
  const imageSource: ExtensionCheck = (def, at) => {
    ctx.index(def.source, images.count, `${at}/source`, 'image');
  };
  return ctx.array('textures').map((texture, t): Json => {
    const where = `/textures/${t}`;
    ctx.optionalIndex(texture, 'source', images.count, where, 'image');
    ctx.optionalIndex(texture, 'sampler', samplerCount, where, 'sampler');
    const extensions = ctx.keptExtensions(texture, where, {
      KHR_texture_basisu: imageSource,
      EXT_texture_webp: imageSource,
      EXT_texture_avif: imageSource,
    });
    const remapped: Json = {};
    for (const [name, def] of Object.entries(extensions ?? {})) {
      const source = images.imageIndex[(def as Json).source as number];
      if (source >= 0) remapped[name] = { ...(def as Json), source };
    }
    const { source, ...rest } = withExtensions(texture, Object.keys(remapped).length > 0 ? remapped : undefined);
    return source !== undefined && images.imageIndex[source as number] >= 0
      ? { ...rest, source: images.imageIndex[source as number] }
      : rest;
  });
}

/** glTF-Transform takes a texture's image from its source or from an image extension (which replaces the source). */
const textureHasImage = (texture: Json): boolean => texture.source !== undefined || texture.extensions !== undefined;

/** A copy of a material part with its texture references checked; one to a texture without an image is left out. */
function textureInfos(ctx: SanitizeContext, outTextures: Json[], value: Json, at: string, depth: number): Json {
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key !== 'extras' && key.endsWith('Texture')) {
      const where = `${at}/${key}`;
      if (!isObject(entry)) ctx.fail(where, `must be an object naming a texture, found ${shown(entry)}`);
      const t = ctx.index(entry.index, outTextures.length, `${where}/index`, 'texture');
      if (entry.texCoord !== undefined) ctx.wholeNumber(entry, 'texCoord', where, 0);
      if (!textureHasImage(outTextures[t])) {
        ctx.notices?.push(`the texture reference ${where} is left out: texture ${t} has no image`);
        continue;
      }
    }
    out[key] = key !== 'extras' && isObject(entry) && depth < 3 ? textureInfos(ctx, outTextures, entry, `${at}/${key}`, depth + 1) : entry;
  }
  return out;
}

/**
 * Checks the materials: factors, alpha mode, double-sidedness, kept extensions (`KHR_materials_*`, XMP) and texture
 * references (textureInfos).
 * @param outTextures  the textures as kept (sanitizeTextures)
 * @returns the entries for glTF-Transform
 */
export function sanitizeMaterials(ctx: SanitizeContext, outTextures: Json[]): Json[] {
  const fail: Fail = ctx.fail;
  return ctx.array('materials').map((material, m): Json => {
    const where = `/materials/${m}`;
    const pbr = material.pbrMetallicRoughness;
    if (pbr !== undefined) {
      if (!isObject(pbr)) fail(`${where}/pbrMetallicRoughness`, `must be an object, found ${shown(pbr)}`);
      ctx.numbers(pbr, 'baseColorFactor', 4, `${where}/pbrMetallicRoughness`);
      ctx.finite(pbr, 'metallicFactor', `${where}/pbrMetallicRoughness`, false);
      ctx.finite(pbr, 'roughnessFactor', `${where}/pbrMetallicRoughness`, false);
    }
    ctx.numbers(material, 'emissiveFactor', 3, where);
    ctx.finite(material, 'alphaCutoff', where, false);
    if (material.alphaMode !== undefined && !['OPAQUE', 'MASK', 'BLEND'].includes(material.alphaMode as string))
      fail(`${where}/alphaMode`, `${shown(material.alphaMode)} is not OPAQUE, MASK or BLEND`);
    if (material.doubleSided !== undefined && typeof material.doubleSided !== 'boolean')
      fail(`${where}/doubleSided`, 'must be true or false');
    const extensions = ctx.keptExtensions(material, where, { 'KHR_materials_*': null, KHR_xmp_json_ld: ctx.xmp });
    return textureInfos(ctx, outTextures, withExtensions(material, extensions), where, 0);
  });
}
