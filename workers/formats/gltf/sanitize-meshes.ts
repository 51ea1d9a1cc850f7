/**
 * Input sanitizer, meshes and primitives: attributes, indices and morph targets name accessors whose component types
 * their semantic allows, the mode is a glTF primitive mode, the material exists, and the kept extensions' references
 * (Draco data in a plain buffer view with attributes the primitive has, material variants) are checked.
 */
import { plainView, type SanitizedViews } from './sanitize-buffers.ts';
import {
  componentWords,
  isIndex,
  isObject,
  shown,
  withExtensions,
  type ExtensionCheck,
  type Fail,
  type Json,
  type SanitizeContext,
} from './sanitize-context.ts';

type ComponentRules = Record<string, { core: string[]; quantized: string[] }>;

/**
 * The component types an attribute may have, as `componentType` with `n` for normalized: glTF 2.0 §3.7.2.1 (mesh
 * attributes) and §3.7.2.2 (morph targets), and what KHR_mesh_quantization adds. JOINTS_n and WEIGHTS_n are checked by
 * the importer; attributes not named here (custom `_NAME` ones, morphed TEXCOORD_n and COLOR_n) are not restricted.
 */
const ATTRIBUTE_COMPONENTS: ComponentRules = {
  POSITION: { core: ['5126'], quantized: ['5120', '5120n', '5121', '5121n', '5122', '5122n', '5123', '5123n'] },
  NORMAL: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TANGENT: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TEXCOORD: { core: ['5126', '5121n', '5123n'], quantized: ['5120', '5120n', '5121', '5122', '5122n', '5123'] },
  COLOR: { core: ['5126', '5121n', '5123n'], quantized: [] },
};
const TARGET_COMPONENTS: ComponentRules = {
  POSITION: { core: ['5126'], quantized: ['5120', '5120n', '5122', '5122n'] },
  NORMAL: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TANGENT: { core: ['5126'], quantized: ['5120n', '5122n'] },
};

/**
 * An attribute's accessor `a` (a valid index) has component types its semantic allows (`TEXCOORD_1` goes by
 * `TEXCOORD`), those of KHR_mesh_quantization only when the file uses it.
 */
function checkComponents(ctx: SanitizeContext, accessors: Json[], a: number, semantic: string, table: ComponentRules, where: string): void {
  const rule = table[semantic.replace(/_\d+$/, '')];
  if (!rule || semantic.startsWith('_')) return;
  const accessor = accessors[a];
  const key = `${accessor.componentType as number}${accessor.normalized === true ? 'n' : ''}`;
  if (rule.core.includes(key)) return;
  const quantization = ctx.used.has('KHR_mesh_quantization');
  if (quantization && rule.quantized.includes(key)) return;
  const allowed = [...rule.core, ...(quantization ? rule.quantized : [])].map(componentWords).join(', ');
  ctx.fail(
    where,
    !quantization && rule.quantized.includes(key)
      ? `${semantic} holds ${componentWords(key)} (accessor ${a}), which only KHR_mesh_quantization allows, and the file does not use it`
      : `${semantic} holds ${componentWords(key)} (accessor ${a}); glTF allows ${allowed}`,
  );
}

/** The checks of a primitive's kept extensions: Draco data and material variants. */
function primitiveExtensionChecks(
  ctx: SanitizeContext,
  views: SanitizedViews,
  attributes: Json,
  materialCount: number,
): Record<string, ExtensionCheck> {
  const fail: Fail = ctx.fail;
  return {
    KHR_draco_mesh_compression: (def, ext) => {
      plainView(ctx, views, def.bufferView, `${ext}/bufferView`);
      if (!isObject(def.attributes)) fail(`${ext}/attributes`, 'missing: Draco data needs its map of attributes');
      for (const [semantic, id] of Object.entries(def.attributes)) {
        if (!Object.hasOwn(attributes, semantic)) fail(`${ext}/attributes/${semantic}`, `the primitive has no ${semantic} attribute`);
        if (!(Number.isSafeInteger(id) && (id as number) >= 0))
          fail(`${ext}/attributes/${semantic}`, `${shown(id)} is not a Draco attribute id (a whole number ≥ 0)`);
      }
    },
    KHR_materials_variants: (def, ext) => {
      ctx.objects(def, 'mappings', ext).forEach((mapping, k) => {
        ctx.optionalIndex(mapping, 'material', materialCount, `${ext}/mappings/${k}`, 'material');
        const variants = mapping.variants;
        if (variants === undefined) return;
        if (!Array.isArray(variants)) fail(`${ext}/mappings/${k}/variants`, 'must be an array of variant indices');
        ctx.tooLong(variants as unknown[], `${ext}/mappings/${k}/variants`);
        (variants as unknown[]).forEach((variant, j) =>
          ctx.index(variant, ctx.variantCount, `${ext}/mappings/${k}/variants/${j}`, 'variant'),
        );
      });
    },
  };
}

/** One primitive at `at`, checked; the entry for glTF-Transform. */
function sanitizePrimitive(
  ctx: SanitizeContext,
  views: SanitizedViews,
  accessors: Json[],
  materialCount: number,
  primitive: unknown,
  at: string,
): Json {
  const fail: Fail = ctx.fail;
  if (!isObject(primitive)) fail(at, 'must be an object');
  const p = primitive;
  if (!isObject(p.attributes)) fail(`${at}/attributes`, 'missing: a primitive needs its attributes');
  const attributes = p.attributes;
  for (const [semantic, a] of Object.entries(attributes)) {
    const where = `${at}/attributes/${semantic}`;
    checkComponents(ctx, accessors, ctx.index(a, accessors.length, where, 'accessor'), semantic, ATTRIBUTE_COMPONENTS, where);
  }
  ctx.optionalIndex(p, 'indices', accessors.length, at, 'accessor');
  if (p.mode !== undefined && !isIndex(p.mode, 7)) fail(`${at}/mode`, `${shown(p.mode)} is not a primitive mode (0 to 6)`);
  const targets = p.targets;
  if (targets !== undefined) {
    if (!Array.isArray(targets)) fail(`${at}/targets`, 'must be an array');
    ctx.tooLong(targets as unknown[], `${at}/targets`);
    (targets as unknown[]).forEach((target, t) => {
      if (!isObject(target)) fail(`${at}/targets/${t}`, 'must be an object');
      for (const [semantic, a] of Object.entries(target)) {
        const where = `${at}/targets/${t}/${semantic}`;
        checkComponents(ctx, accessors, ctx.index(a, accessors.length, where, 'accessor'), semantic, TARGET_COMPONENTS, where);
      }
    });
  }
  ctx.optionalIndex(p, 'material', materialCount, at, 'material');
  return withExtensions(p, ctx.keptExtensions(p, at, primitiveExtensionChecks(ctx, views, attributes, materialCount)));
}

/**
 * Checks every mesh and its primitives (sanitizePrimitive).
 * @param ctx            the asset being sanitized
 * @param views          the buffer views as checked
 * @param accessors      the accessors as checked
 * @param materialCount  how many materials the file has
 * @returns the entries for glTF-Transform
 */
export function sanitizeMeshes(ctx: SanitizeContext, views: SanitizedViews, accessors: Json[], materialCount: number): Json[] {
  return ctx.array('meshes').map((mesh, m): Json => {
    const where = `/meshes/${m}`;
    if (!Array.isArray(mesh.primitives)) ctx.fail(`${where}/primitives`, 'missing: a mesh needs an array of primitives');
    ctx.tooLong(mesh.primitives as unknown[], `${where}/primitives`);
    const primitives = (mesh.primitives as unknown[]).map((primitive, p) =>
      sanitizePrimitive(ctx, views, accessors, materialCount, primitive, `${where}/primitives/${p}`),
    );
    return withExtensions({ ...mesh, primitives }, ctx.keptExtensions(mesh, where, { KHR_xmp_json_ld: ctx.xmp }));
  });
}
