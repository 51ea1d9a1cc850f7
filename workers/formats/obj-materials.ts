/**
 * The look of OBJ meshes from the material files opened with them: each OBJ's `usemtl` names are looked up in its
 * `mtllib` files (and any other .mtl of the batch), and each material's `map_Kd` image among the batch's images.
 * Dropped files carry no folders, so files are matched by base name (exactly, else ignoring case). Whatever is
 * missing is a notice naming the file, never a failure: a material no library defines is drawn with the default
 * material, a missing or unreadable image leaves the material its colour.
 *
 * MaterialLook from an MTL material: base colour Kd (linear, see workers/formats/mtl.ts; white without Kd) and alpha
 * d; with a map_Kd image the image is the colour and Kd is not multiplied in (as Blender's OBJ importer does: its
 * exporter writes a grey Kd beside the image). OBJ has no face culling, so materials are double-sided.
 */
import { FormatError } from './format-error.ts';
import { baseName, fileExtension } from './file-name.ts';
import { readMtl, type MtlMaterial } from './mtl.ts';
import { excerpt } from './text-scanner.ts';
import type { MaterialLook, MeshPart, SurfaceLook } from './types.ts';

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
  const textures = new Map<BatchFile, { bytes: Uint8Array; mimeType: string } | null>();
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
  textures: Map<BatchFile, { bytes: Uint8Array; mimeType: string } | null>,
  warnings: string[],
): MaterialLook {
  let texture: { bytes: Uint8Array; mimeType: string } | null = null;
  if (material.diffuseMap) {
    const image = findFile(images, material.diffuseMap);
    if (!image) {
      warnings.push(
        `${library.name}: material '${excerpt(material.name)}': its image '${excerpt(material.diffuseMap)}' was not among the files opened (PNG or JPEG); the material shows its colour only`,
      );
    } else {
      if (!textures.has(image)) {
        const mimeType = imageMimeType(image.bytes);
        if (!mimeType) warnings.push(`${image.name}: not a PNG or JPEG image; material '${excerpt(material.name)}' shows its colour only`);
        textures.set(image, mimeType ? { bytes: image.bytes, mimeType } : null);
      }
      texture = textures.get(image) ?? null;
    }
  }
  const [r, g, b] = texture ? [1, 1, 1] : (material.diffuse ?? [1, 1, 1]);
  // A dissolve below 1 is see-through: blended, as glTF's BLEND (alpha from the colour times the image's).
  const blend = material.alpha < 1 ? { alphaMode: 'BLEND' as const } : {};
  return { name: material.name, baseColor: [r, g, b, material.alpha], baseColorTexture: texture, doubleSided: true, ...blend };
}
