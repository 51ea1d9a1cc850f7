/**
 * The glTF input sanitizer: structural checks of a glTF 2.0 asset before glTF-Transform reads it. glTF-Transform
 * trusts the JSON: it sizes typed arrays by `count`, reads buffers at the offsets written, follows every index and
 * recurses through node hierarchies. Every place it would do so is checked against the bytes actually present, so
 * that a damaged or hostile file is refused with its JSON pointer (`/accessors/3`) and a reason instead of an
 * allocation of gigabytes, a read past the end, a stack overflow or a silently wrong result.
 *
 * The asset comes back whole: materials (with their extensions and texture references), textures, images,
 * samplers, cameras, and the extensions glTF-Transform reads are kept, each after its references are checked:
 * Draco-compressed primitives (KHR_draco_mesh_compression), meshopt-compressed buffer views and their fallback
 * buffers without data (EXT_meshopt_compression), lights, material variants, node visibility and XMP metadata.
 * An extension whose data would reach glTF-Transform unchecked (EXT_mesh_gpu_instancing, EXT_mesh_features,
 * EXT_structural_metadata, one it does not know) is taken off the extension lists and its data left out.
 * What the rig does not need and glTF-Transform cannot read is left out with a notice instead of refusing the file:
 * a camera that is not sound, an image whose file is missing, a material's reference to a texture without image.
 *
 * One step per part of the asset, in the order glTF-Transform's references run: buffers and views
 * (sanitize-buffers.ts), accessors (sanitize-accessors.ts), images, textures and materials
 * (sanitize-materials.ts), meshes (sanitize-meshes.ts), cameras, nodes, skins and scenes (sanitize-nodes.ts),
 * animations (sanitize-animations.ts). The GLB container is read before, by glb.ts.
 */
import { sanitizeAccessors } from './sanitize-accessors.ts';
import { sanitizeAnimations } from './sanitize-animations.ts';
import { sanitizeBuffers, sanitizeBufferViews } from './sanitize-buffers.ts';
import { isObject, SanitizeContext, shown, type Fail, type Json } from './sanitize-context.ts';
import { sanitizeImages, sanitizeMaterials, sanitizeSamplers, sanitizeTextures } from './sanitize-materials.ts';
import { sanitizeMeshes } from './sanitize-meshes.ts';
import { sanitizeCameras, sanitizeNodes, sanitizeScenes, sanitizeSkins } from './sanitize-nodes.ts';

export { MAX_DECODED_VIEW_BYTES, MAX_LIST_ENTRIES, MAX_UNBACKED_ELEMENTS } from './sanitize-context.ts';

const LIGHT_TYPES = new Set(['directional', 'point', 'spot']);

/** The JSON and resources to give glTF-Transform, checked; see the module comment. */
export interface SanitizedGltf {
  json: Json;
  /** buffer and image data by the key its uri now has (the GLB binary chunk under the `glbKey` given) */
  resources: Record<string, Uint8Array>;
}

/** The asset object and the extension lists; a notice for the extensions used whose data is left out. */
function checkAssetAndExtensionLists(ctx: SanitizeContext): Json {
  const { root } = ctx;
  const fail: Fail = ctx.fail;
  const asset = root.asset;
  if (!isObject(asset)) fail('/asset', 'missing: every glTF file has an asset object with its version');
  const version = asset.version;
  if (version !== '2.0') fail('/asset/version', `glTF version ${shown(version)} is not supported (Rigwright reads glTF 2.0)`);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const value = root[key];
    if (value === undefined) continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail(`/${key}`, 'must be an array of extension names');
    ctx.tooLong(value, `/${key}`);
  }
  // Which required extensions a file may have is decided before these checks (gltf-extensions.ts, REQUIRED_EXTENSIONS).
  // Of the extensions used, only those whose data is checked here reach glTF-Transform.
  const dropped = ((root.extensionsUsed as string[] | undefined) ?? []).filter((name) => !ctx.used.has(name));
  if (dropped.length > 0)
    ctx.notices?.push(
      `the file uses ${dropped.slice(0, 6).join(', ')}${dropped.length > 6 ? ` and ${dropped.length - 6} more` : ''}; ${dropped.length === 1 ? 'its' : 'their'} data is left out (Rigwright keeps the extensions whose references it checks)`,
    );
  return asset;
}

/** The root's kept extensions: lights, material variants and XMP packets, whose counts entries refer to. */
function sanitizeRootExtensions(ctx: SanitizeContext): Json | undefined {
  const fail: Fail = ctx.fail;
  return ctx.keptExtensions(ctx.root, '', {
    KHR_lights_punctual: (def, at) => {
      const lights = ctx.objects(def, 'lights', at);
      lights.forEach((light, l) => {
        const where = `${at}/lights/${l}`;
        if (!LIGHT_TYPES.has(light.type as string)) fail(`${where}/type`, `${shown(light.type)} is not directional, point or spot`);
        ctx.numbers(light, 'color', 3, where);
        ctx.finite(light, 'intensity', where, false);
        ctx.finite(light, 'range', where, false);
        if (light.spot !== undefined) {
          if (!isObject(light.spot)) fail(`${where}/spot`, `must be an object, found ${shown(light.spot)}`);
          ctx.finite(light.spot, 'innerConeAngle', `${where}/spot`, false);
          ctx.finite(light.spot, 'outerConeAngle', `${where}/spot`, false);
        }
      });
      ctx.lightCount = lights.length;
    },
    KHR_materials_variants: (def, at) => {
      ctx.variantCount = ctx.objects(def, 'variants', at).length;
    },
    KHR_xmp_json_ld: (def, at) => {
      ctx.packetCount = ctx.objects(def, 'packets', at).length;
    },
  });
}

/**
 * Checks a glTF asset's JSON against its buffers and returns a copy fit for glTF-Transform.
 * @param json       the parsed JSON
 * @param glbBin     the GLB's binary chunk, or null
 * @param resources  external files by URI as written
 * @param glbKey     the key glTF-Transform looks up for the GLB binary chunk
 * @param fail       refuses the file, naming the JSON pointer and the reason (the caller adds the file's name)
 * @param notices    what is left out without refusing the file (a camera that is not sound) is reported here
 * @throws FormatError (through `fail`)
 */
export function sanitizeGltfInput(
  json: unknown,
  glbBin: Uint8Array | null,
  resources: Record<string, Uint8Array>,
  glbKey: string,
  fail: Fail,
  notices?: string[],
): SanitizedGltf {
  if (!isObject(json)) fail('', 'the JSON is not an object');
  const ctx = new SanitizeContext(json, fail, notices);
  const asset = checkAssetAndExtensionLists(ctx);
  const rootExtensions = sanitizeRootExtensions(ctx);
  const outResources: Record<string, Uint8Array> = {};
  const buffers = sanitizeBuffers(ctx, glbBin, resources, glbKey, outResources);
  const views = sanitizeBufferViews(ctx, buffers);
  const accessors = sanitizeAccessors(ctx, buffers, views);
  const images = sanitizeImages(ctx, views, resources, outResources);
  const samplers = sanitizeSamplers(ctx);
  const textures = sanitizeTextures(ctx, images, samplers.length);
  const materials = sanitizeMaterials(ctx, textures);
  const meshes = sanitizeMeshes(ctx, views, accessors, materials.length);
  const cameras = sanitizeCameras(ctx);
  const nodeList = ctx.array('nodes');
  const skinList = ctx.array('skins');
  const nodes = sanitizeNodes(ctx, nodeList, cameras, { meshes: meshes.length, skins: skinList.length });
  const skins = sanitizeSkins(ctx, skinList, accessors, nodes.outNodes.length);
  const animations = sanitizeAnimations(ctx, accessors.length, nodes.outNodes.length);
  const scenes = sanitizeScenes(ctx, nodes.parent);

  // What glTF-Transform gets: the checked parts, with the extensions whose references were checked.
  const out: Json = {
    asset: { version: '2.0' },
    buffers: buffers.outBuffers,
    bufferViews: views.outViews,
    accessors,
    images: images.outImages,
    samplers,
    textures,
    materials,
    meshes,
    cameras: cameras.outCameras,
    nodes: nodes.outNodes,
    skins,
    animations,
    scenes,
  };
  // Names are strings or absent (they become bone names and appear in messages).
  for (const key of Object.keys(out)) {
    const list = out[key];
    if (Array.isArray(list))
      for (const entry of list as Json[]) if (entry.name !== undefined && typeof entry.name !== 'string') delete entry.name;
  }
  for (const key of ['generator', 'copyright'] as const) if (typeof asset[key] === 'string') (out.asset as Json)[key] = asset[key];
  if (ctx.used.size > 0) out.extensionsUsed = [...ctx.used];
  const required = ((ctx.root.extensionsRequired as string[] | undefined) ?? []).filter((name) => ctx.used.has(name));
  if (required.length > 0) out.extensionsRequired = required;
  if (rootExtensions) out.extensions = rootExtensions;
  if (ctx.root.scene !== undefined) out.scene = ctx.root.scene;
  return { json: out, resources: outResources };
}
