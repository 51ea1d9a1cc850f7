/**
 * The asset's own look in the viewport (the Look view): one three.js material per glTF material (base colour factor
 * × base-colour texture, sRGB, glTF's UV convention: no flip; its alpha mode, sampler and KHR_texture_transform),
 * the app's default material for parts without one, and
 * the draw groups that give each part of the one vertex list its material. Images are decoded in the page
 * (createImageBitmap), once per image however many views show them; a material shows its base colour until its
 * image is decoded, and keeps it when the image cannot be decoded (the reason is reported, naming the material).
 */
import * as THREE from 'three';
import { DEFAULT_ALPHA_CUTOFF, FILTER, WRAP } from '../../workers/formats/material-look.ts';
import type { MaterialLook, MeshPart, SurfaceLook } from '../../workers/formats/types.ts';

/** A range of the index buffer drawn with one material: `start`, `count` in index entries (3 per triangle). */
export interface DrawGroup {
  start: number;
  count: number;
  /** 0: the default material; m + 1: material m of the look */
  materialIndex: number;
}

/** The material slot of a part: 0 (the default) for -1 or an index the look does not have, else material + 1. */
export function materialSlot(material: number, materialCount: number): number {
  return Number.isInteger(material) && material >= 0 && material < materialCount ? material + 1 : 0;
}

/**
 * The draw groups of a mesh whose parts are triangle ranges of one index buffer: the parts in triangle order (a part
 * with material ranges as one range per run), each with its material's slot, neighbours with the same slot merged into one group; triangles no part covers are drawn
 * with the default material, so every triangle is drawn exactly once.
 * @param parts          the scene's parts (absent: one mesh, all of it, with the default material)
 * @param triangleCount  #F of the index buffer
 * @param materialCount  number of materials of the look
 */
export function partDrawGroups(parts: readonly MeshPart[] | undefined, triangleCount: number, materialCount: number): DrawGroup[] {
  const ranges: { first: number; end: number; slot: number }[] = [];
  for (const part of parts ?? []) {
    // A part's runs of triangles with their own materials (MeshPart.materialRanges), else all of it with its material.
    let start = part.triangleStart;
    for (const run of part.materialRanges ?? [{ triangleCount: part.triangleCount, material: part.material }]) {
      const first = Math.max(0, start);
      const end = Math.min(triangleCount, start + run.triangleCount, part.triangleStart + part.triangleCount);
      if (end > first) ranges.push({ first, end, slot: materialSlot(run.material, materialCount) });
      start += run.triangleCount;
    }
  }
  ranges.sort((a, b) => a.first - b.first);
  const groups: DrawGroup[] = [];
  const push = (first: number, end: number, slot: number) => {
    if (end <= first) return;
    const last = groups.at(-1);
    if (last && last.materialIndex === slot && last.start + last.count === 3 * first) last.count += 3 * (end - first);
    else groups.push({ start: 3 * first, count: 3 * (end - first), materialIndex: slot });
  };
  let covered = 0;
  for (const { first, end, slot } of ranges) {
    push(covered, first, 0);
    // Overlapping parts (a bug upstream) must not draw a triangle twice: each range starts where the last ended.
    push(Math.max(first, covered), end, slot);
    covered = Math.max(covered, end);
  }
  push(covered, triangleCount, 0);
  return groups;
}

/** Decodes an image file's bytes (PNG, JPEG, …) into something a texture can hold. */
export type ImageDecoder = (bytes: Uint8Array, mimeType: string) => Promise<TexImageSource>;

/** The page's decoder: pixels as stored (no premultiplied alpha, no colour-profile conversion, no flip). */
export const pageImageDecoder: ImageDecoder = (bytes, mimeType) =>
  createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }), {
    premultiplyAlpha: 'none',
    colorSpaceConversion: 'none',
  });

/**
 * Decoded images, one per image's bytes: the views of one scene (the main view, the split view's second half, the
 * views made again after an edit) share them. Held weakly by the bytes, so a scene that is gone takes its images
 * with it.
 */
export class ImageCache {
  private readonly images = new WeakMap<Uint8Array, Promise<TexImageSource>>();
  /** how many images were decoded (for the bookkeeping's tests) */
  decodes = 0;

  constructor(private readonly decode: ImageDecoder) {}

  image(texture: { bytes: Uint8Array; mimeType: string }): Promise<TexImageSource> {
    let image = this.images.get(texture.bytes);
    if (!image) {
      this.decodes++;
      image = this.decode(texture.bytes, texture.mimeType);
      this.images.set(texture.bytes, image);
    }
    return image;
  }
}

/** The app's material where the asset has none (and the material of every view but Look). */
export function defaultMaterial(): THREE.MeshStandardMaterial {
  return new THREE.MeshStandardMaterial({ color: 0xb9c2cf, roughness: 0.62, metalness: 0.05, side: THREE.DoubleSide });
}

/**
 * The Look view's materials for one mesh view: slot 0 the default material (shared with the other views), slot m + 1
 * material m of the look. `ready` resolves once every image is decoded and on its material (or has failed).
 */
export class LookMaterials {
  /** slot 0 the default material, then one per material of the look */
  readonly materials: THREE.MeshStandardMaterial[];
  readonly ready: Promise<void>;
  /** what could not be shown, each naming the material */
  readonly problems: string[] = [];
  private readonly textures: THREE.Texture[] = [];
  private disposed = false;

  /**
   * @param look      the scene's look
   * @param fallback  the default material (slot 0)
   * @param prepare   called on each new material before its first use (the skinning and view chunks go in here)
   * @param onChange  a texture arrived: the view needs drawing again
   */
  constructor(
    look: SurfaceLook,
    fallback: THREE.MeshStandardMaterial,
    images: ImageCache,
    prepare: (material: THREE.MeshStandardMaterial) => void,
    onChange: () => void,
  ) {
    const own = look.materials.map((m) => materialOf(m));
    for (const material of own) prepare(material);
    this.materials = [fallback, ...own];
    const pending = look.materials.map(async (m, i) => {
      if (!m.baseColorTexture) return;
      if (!look.uvs) {
        this.problems.push(`material ${m.name || i}: its texture is not shown, the mesh has no texture coordinates`);
        return;
      }
      try {
        const image = await images.image(m.baseColorTexture);
        if (this.disposed) return;
        const texture = new THREE.Texture(image);
        texture.colorSpace = THREE.SRGBColorSpace;
        // glTF's texture coordinates start at the image's top left, as the decoded image's rows do.
        texture.flipY = false;
        texture.anisotropy = 4;
        applySampling(texture, m);
        texture.needsUpdate = true;
        this.textures.push(texture);
        own[i].map = texture;
        own[i].needsUpdate = true;
        onChange();
      } catch (error) {
        this.problems.push(
          `material ${m.name || i}: its ${m.baseColorTexture.mimeType} texture could not be decoded (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    });
    this.ready = Promise.all(pending).then(() => undefined);
  }

  /** whether slot's material shows a texture now */
  textured(slot: number): boolean {
    return this.materials[slot]?.map != null;
  }

  dispose(): void {
    this.disposed = true;
    for (const texture of this.textures) texture.dispose();
    for (const material of this.materials.slice(1)) material.dispose();
  }
}

/**
 * A material's base colour factor (linear), alpha and sides; the texture is set once decoded. It is lit as the plain
 * shading is (its roughness and metalness), so that the view shows the asset's colours under the app's light; the
 * material's own metallic, roughness, emission and normal map are the export's (MaterialLook), not this view's.
 */
function materialOf(look: MaterialLook): THREE.MeshStandardMaterial {
  const [r, g, b] = look.baseColor;
  const material = new THREE.MeshStandardMaterial({
    roughness: 0.62,
    metalness: 0.05,
    side: look.doubleSided ? THREE.DoubleSide : THREE.FrontSide,
  });
  material.color.setRGB(r, g, b, THREE.LinearSRGBColorSpace);
  material.name = look.name;
  applyAlphaMode(material, look);
  return material;
}

/**
 * glTF's alpha coverage (§3.9.4) on a three.js material; alpha is the factor's alpha × the texel's (three.js's
 * opacity × map alpha). OPAQUE: alpha ignored (an opaque material writes alpha 1). MASK: a fragment whose alpha is
 * below the cutoff is discarded (three.js's alphaTest discards alpha < alphaTest), the rest drawn opaque. BLEND:
 * drawn after the opaque meshes, blended over them, without writing depth (as glTF viewers draw blended meshes).
 */
export function applyAlphaMode(material: THREE.MeshStandardMaterial, look: MaterialLook): void {
  const mode = look.alphaMode ?? 'OPAQUE';
  material.opacity = look.baseColor[3];
  material.transparent = mode === 'BLEND';
  material.depthWrite = mode !== 'BLEND';
  material.alphaTest = mode === 'MASK' ? (look.alphaCutoff ?? DEFAULT_ALPHA_CUTOFF) : 0;
}

/** glTF wrap modes (WebGL enums) as three.js's. */
const WRAPS = new Map<number, THREE.Wrapping>([
  [WRAP.REPEAT, THREE.RepeatWrapping],
  [WRAP.CLAMP_TO_EDGE, THREE.ClampToEdgeWrapping],
  [WRAP.MIRRORED_REPEAT, THREE.MirroredRepeatWrapping],
]);
/** glTF filters (WebGL enums) as three.js's. */
const FILTERS = new Map<number, THREE.TextureFilter>([
  [FILTER.NEAREST, THREE.NearestFilter],
  [FILTER.LINEAR, THREE.LinearFilter],
  [FILTER.NEAREST_MIPMAP_NEAREST, THREE.NearestMipmapNearestFilter],
  [FILTER.LINEAR_MIPMAP_NEAREST, THREE.LinearMipmapNearestFilter],
  [FILTER.NEAREST_MIPMAP_LINEAR, THREE.NearestMipmapLinearFilter],
  [FILTER.LINEAR_MIPMAP_LINEAR, THREE.LinearMipmapLinearFilter],
]);
const MIPMAP_FILTERS = new Set<THREE.TextureFilter>([
  THREE.NearestMipmapNearestFilter,
  THREE.LinearMipmapNearestFilter,
  THREE.NearestMipmapLinearFilter,
  THREE.LinearMipmapLinearFilter,
]);

/**
 * glTF's KHR_texture_transform as the 3 × 3 matrix three.js applies to uv (column vector, homogeneous):
 * uv' = T · R · S · uv with T = [1 0 ox; 0 1 oy], R = [cos r  sin r; −sin r  cos r] (rows), S = diag(sx, sy). The
 * extension's own example fixes R's signs: offset (0, 1), rotation π/2, scale 0.5 takes uv in [0, 1]² to the
 * image's lower left quadrant (u' = v / 2, v' = 1 − u / 2; v runs down the image). The texture's
 * image is not flipped (flipY false), so glTF's uv goes to the shader as it is and the matrix needs no change of
 * origin. three.js's own offset/repeat/rotation build S · R instead (scale after rotation), which differs when the
 * scale is not uniform, so the matrix is set directly.
 */
export function textureTransformMatrix(transform: NonNullable<MaterialLook['textureTransform']>): THREE.Matrix3 {
  const [ox, oy] = transform.offset;
  const [sx, sy] = transform.scale;
  const c = Math.cos(transform.rotation);
  const s = Math.sin(transform.rotation);
  // Matrix3.set takes rows.
  return new THREE.Matrix3().set(c * sx, s * sy, ox, -s * sx, c * sy, oy, 0, 0, 1);
}

/**
 * The material's sampler and texture transform on its texture: wrap modes, filters (mipmaps made only for a mipmap
 * minification filter; glTF leaves filters without a value to the viewer: linear, trilinear), the uv matrix.
 */
export function applySampling(texture: THREE.Texture, look: MaterialLook): void {
  const sampler = look.sampler;
  texture.wrapS = WRAPS.get(sampler?.wrapS ?? WRAP.REPEAT) ?? THREE.RepeatWrapping;
  texture.wrapT = WRAPS.get(sampler?.wrapT ?? WRAP.REPEAT) ?? THREE.RepeatWrapping;
  texture.magFilter = sampler?.magFilter === FILTER.NEAREST ? THREE.NearestFilter : THREE.LinearFilter;
  texture.minFilter = (sampler?.minFilter != null ? FILTERS.get(sampler.minFilter) : undefined) ?? THREE.LinearMipmapLinearFilter;
  texture.generateMipmaps = MIPMAP_FILTERS.has(texture.minFilter);
  if (look.textureTransform) {
    texture.matrixAutoUpdate = false;
    texture.matrix.copy(textureTransformMatrix(look.textureTransform));
  }
}
