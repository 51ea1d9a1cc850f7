/**
 * The look of OBJ meshes from the material files opened with them: each OBJ's `usemtl` names are looked up in its
 * `mtllib` files (and any other .mtl of the batch), and each material's `map_Kd` image among the batch's images.
 * Dropped files carry no folders, so files are matched by base name (exactly, else ignoring case). Whatever is
 * missing is a notice naming the file, never a failure: a material no library defines is drawn with the default
 * material, a missing or unreadable image leaves the material its colour.
 *
 * MaterialLook from an MTL material: base colour Kd (linear, see workers/formats/mtl.ts; white without Kd) and alpha
 * d; with a map_Kd image the image is the colour and Kd is not multiplied in (as Blender's OBJ importer does: its
 * exporter writes a grey Kd beside the image). Metallic and roughness by Blender's importer's rules (mtlPbr); emission
 * Ke, or the map_Ke image in its place; the normal map (map_Bump, bump, norm) with its -bm scale. Alpha: BLEND for
 * d < 1 or a map_d that is the map_Kd image; MASK for a map_Kd image with alpha otherwise (materialLook). OBJ says
 * nothing of face culling, so materials are single-sided (glTF's default), in the viewport as in the export.
 */
import { FormatError } from './format-error.ts';
import { baseName, fileExtension } from './file-name.ts';
import { mtlPbr, readMtl, type MtlMaterial } from './mtl.ts';
import { excerpt } from './text-scanner.ts';
import type { LookImage, MaterialLook, MeshPart, SurfaceLook } from './types.ts';

/** A file of the batch by name and bytes. */
export interface BatchFile {
  name: string;
  bytes: Uint8Array;
}

/** An OBJ as read: its name, `usemtl` names (parts' material indices), `mtllib` files and parts. */
export interface ObjMaterialUse {
  name: string;
  materials: readonly string[];
  materialLibraries: readonly string[];
  parts: readonly MeshPart[] | null;
}

const IMAGE_EXTENSIONS = ['png', 'jpg', 'jpeg'];

/** True for the files this module reads: .mtl libraries and PNG/JPEG images. */
export function isMaterialFile(name: string): boolean {
  const extension = fileExtension(name);
  return extension === 'mtl' || IMAGE_EXTENSIONS.includes(extension);
}

/** The image's type from its first bytes (PNG and JPEG signatures), or null. */
export function imageMimeType(bytes: Uint8Array): string | null {
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

/**
 * The batch file named `wanted` (a path as written in a file): the file of that very name (the command line's files
 * keep their folders), else of the same base name (dropped files carry none), else the same ignoring case.
 */
function findFile<T extends BatchFile>(files: readonly T[], wanted: string): T | undefined {
  const base = baseName(wanted);
  return (
    files.find((f) => f.name === wanted) ??
    files.find((f) => baseName(f.name) === base) ??
    files.find((f) => baseName(f.name).toLowerCase() === base.toLowerCase())
  );
}

/**
 * The look of a batch's OBJ files.
 * @param objs           the OBJ files in scene order (their parts' materials index their own `materials`)
 * @param materialFiles  the batch's .mtl and image files
 * @returns the look (null when no OBJ names a material), each OBJ's parts with materials re-indexed into the look's
 *   (-1 where no library defines the name), and notices naming the files
 */
export function objLook(
  objs: readonly ObjMaterialUse[],
  materialFiles: readonly BatchFile[],
): { look: SurfaceLook | null; parts: (MeshPart[] | null)[]; warnings: string[] } {
  const warnings: string[] = [];
  const libraries = materialFiles.filter((f) => fileExtension(f.name) === 'mtl');
  const images = materialFiles.filter((f) => fileExtension(f.name) !== 'mtl');
  // Each library read once, however many OBJ files name it; its materials by name (each name once: the first).
  const read = new Map<BatchFile, Map<string, MtlMaterial>>();
  const readLibrary = (library: BatchFile): Map<string, MtlMaterial> => {
    let materials = read.get(library);
    if (!materials) {
      materials = new Map();
      try {
        const file = readMtl(new TextDecoder().decode(library.bytes), library.name);
        for (const material of file.materials) if (!materials.has(material.name)) materials.set(material.name, material);
        warnings.push(...file.warnings.map((w) => `${library.name}: ${w}`));
      } catch (error) {
        const reason = error instanceof FormatError ? error.message : `${library.name}: could not be read (${String(error)})`;
        warnings.push(`${reason}; its materials are drawn with the default material`);
      }
      read.set(library, materials);
    }
    return materials;
  };
  const used = new Set<BatchFile>();
  const lookMaterials: MaterialLook[] = [];
  // One look material per library material, however many OBJ files use it.
  const lookIndex = new Map<MtlMaterial, number>();
  const textures = new Map<BatchFile, LookImage | null>();
  const parts = objs.map((obj) => {
    if (obj.materials.length === 0 && obj.materialLibraries.length === 0) return obj.parts ? [...obj.parts] : null;
    // The libraries the OBJ names, in its order, then the batch's others.
    const named = new Set<BatchFile>();
    for (const wanted of obj.materialLibraries) {
      const library = findFile(libraries, wanted);
      if (library) named.add(library);
      else
        warnings.push(
          `${obj.name}: material library '${excerpt(wanted)}' was not among the files opened; open it with the OBJ to see its materials`,
        );
    }
    const searched = [...named, ...libraries.filter((l) => !named.has(l))];
    const index = obj.materials.map((name) => {
      let found: { material: MtlMaterial; library: BatchFile } | null = null;
      for (const library of searched) {
        const material = readLibrary(library).get(name);
        if (material) {
          found = { material, library };
          break;
        }
      }
      if (!found) {
        if (name)
          warnings.push(
            `${obj.name}: material '${excerpt(name)}' is in none of the material files opened${searched.length ? ` (${searched.map((l) => l.name).join(', ')})` : ''}; it is drawn with the default material`,
          );
        return -1;
      }
      used.add(found.library);
      let at = lookIndex.get(found.material);
      if (at === undefined) {
        at = lookMaterials.push(materialLook(found.material, found.library, images, textures, warnings)) - 1;
        lookIndex.set(found.material, at);
      }
      return at;
    });
    for (const library of named) used.add(library);
    const look = (material: number): number => (material >= 0 ? index[material] : -1);
    return obj.parts
      ? obj.parts.map((part) => ({
          ...part,
          material: look(part.material),
          ...(part.materialRanges ? { materialRanges: part.materialRanges.map((r) => ({ ...r, material: look(r.material) })) } : {}),
        }))
      : null;
  });
  for (const library of libraries) if (!used.has(library)) warnings.push(`${library.name}: no OBJ opened with it uses its materials`);
  const usedImages = new Set([...textures.keys()]);
  for (const image of images) if (!usedImages.has(image)) warnings.push(`${image.name}: no material opened with it names this image`);
  return { look: lookMaterials.length > 0 ? { uvs: null, materials: lookMaterials } : null, parts, warnings };
}

function materialLook(
  material: MtlMaterial,
  library: BatchFile,
  images: readonly BatchFile[],
  textures: Map<BatchFile, LookImage | null>,
  warnings: string[],
): MaterialLook {
  const where = `${library.name}: material '${excerpt(material.name)}'`;
  /** The batch image a statement (`statement` with a trailing space, or '' for map_Kd) names, decoded once per file; null (with a notice) when missing or not an image. */
  const imageOf = (file: string, statement: string, without: string): { image: LookImage; file: BatchFile } | null => {
    const found = findFile(images, file);
    if (!found) {
      warnings.push(
        `${where}: its ${statement}image '${excerpt(file)}' was not among the files opened (PNG or JPEG); the material ${without}`,
      );
      return null;
    }
    if (!textures.has(found)) {
      const mimeType = imageMimeType(found.bytes);
      if (!mimeType) warnings.push(`${found.name}: not a PNG or JPEG image; material '${excerpt(material.name)}' ${without}`);
      textures.set(found, mimeType ? { bytes: found.bytes, mimeType } : null);
    }
    const image = textures.get(found);
    return image ? { image, file: found } : null;
  };
  const diffuse = material.diffuseMap ? imageOf(material.diffuseMap, '', 'shows its colour only') : null;
  const [r, g, b] = diffuse ? [1, 1, 1] : (material.diffuse ?? [1, 1, 1]);
  const { metallic, roughness } = mtlPbr(material);
  const look: MaterialLook = {
    name: material.name,
    baseColor: [r, g, b, material.alpha],
    baseColorTexture: diffuse?.image ?? null,
    doubleSided: false,
    metallic,
    roughness,
  };
  // Alpha: a dissolve below 1, or an alpha image that is the colour image's own alpha, blends (as Blender's importer
  // does); a colour image that has alpha, without either, is a cutout (MASK at 0.5: a texel is drawn or not, so no
  // sorting, and an image whose alpha is all opaque looks as it would opaque).
  const alphaImage = material.alphaMap ? imageOf(material.alphaMap, 'map_d ', 'is drawn without it') : null;
  if (alphaImage && alphaImage.file !== diffuse?.file)
    warnings.push(
      `${where}: its map_d image '${excerpt(material.alphaMap ?? '')}' is not kept: glTF takes alpha from the base colour image only${diffuse ? ' (map_Kd is another image)' : ''}`,
    );
  if (material.alpha < 1 || (alphaImage && alphaImage.file === diffuse?.file)) look.alphaMode = 'BLEND';
  else if (diffuse && imageHasAlpha(diffuse.image)) look.alphaMode = 'MASK';
  if (material.emissiveMap) {
    const emissive = imageOf(material.emissiveMap, 'map_Ke ', `is drawn without emission${material.emissive ? ' but its Ke colour' : ''}`);
    if (emissive) {
      look.emissiveTexture = emissive.image;
      look.emissive = [1, 1, 1];
    }
  }
  if (!look.emissiveTexture && material.emissive && material.emissive.some((c) => c > 0)) look.emissive = [...material.emissive];
  if (material.normalMap) {
    const normal = imageOf(material.normalMap.file, 'normal map ', 'is drawn without it');
    if (normal) look.normalTexture = { ...normal.image, scale: material.normalMap.scale };
  }
  const notKept = [
    material.roughnessMap ? `map_Pr '${excerpt(material.roughnessMap)}'` : '',
    material.metallicMap ? `map_Pm '${excerpt(material.metallicMap)}'` : '',
  ].filter(Boolean);
  if (notKept.length > 0)
    warnings.push(
      `${where}: ${notKept.join(' and ')} ${notKept.length === 1 ? 'is' : 'are'} not kept (glTF packs roughness and metallic into one image); the material uses roughness ${roughness} and metallic ${metallic}`,
    );
  return look;
}

/**
 * Whether an image may have texels that are not opaque: a PNG of a colour type with alpha (4 grey + alpha, 6 RGBA)
 * or with a tRNS chunk before its image data; never a JPEG.
 */
export function imageHasAlpha(image: LookImage): boolean {
  const bytes = image.bytes;
  if (image.mimeType !== 'image/png' || bytes.length < 33) return false;
  const colourType = bytes[25];
  if (colourType === 4 || colourType === 6) return true;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    at += 12 + length;
  }
  return false;
}
