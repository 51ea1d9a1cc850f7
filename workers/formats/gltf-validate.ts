/**
 * Structural checks of a glTF 2.0 asset before glTF-Transform reads it. glTF-Transform trusts the JSON: it sizes
 * typed arrays by `count`, reads buffers at the offsets written, follows every index and recurses through node
 * hierarchies. Every place it would do so is checked here against the bytes actually present, so that a damaged
 * or hostile file is refused with its JSON pointer (`/accessors/3`) and a reason instead of an allocation of
 * gigabytes, a read past the end, a stack overflow or a silently wrong result.
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
 * Also: data: URIs (decoded here, by data-uri.ts). The GLB container is read by gltf/glb.ts.
 */
import { decodeDataUri, isDataUri, type DataUri } from './data-uri.ts';
import { excerpt } from './text-scanner.ts';

// The container's reader and writer under the names the writer's modules still import them by.
export { parseGlb, writeGlb as buildGlb } from './gltf/glb.ts';

type Json = Record<string, unknown>;
type Fail = (where: string, reason: string) => never;

/**
 * Most entries in any one list (nodes, accessors, a node's children, an animation's channels…): glTF-Transform
 * builds its graph in time that grows faster than the entry count (50,000 nodes take seconds), so a list longer
 * than any rig needs is refused instead of hanging.
 */
export const MAX_LIST_ENTRIES = 20000;

/** Accessors without buffer data (zero-filled, sparse or Draco-decoded) hold at most this many elements. */
export const MAX_UNBACKED_ELEMENTS = 1 << 24;

/** A meshopt-compressed buffer view decodes to at most this many bytes (its count × byteStride). */
export const MAX_DECODED_VIEW_BYTES = 1 << 28;

/**
 * The extensions whose data is kept (after the checks below); the others are taken off `extensionsUsed`, so that
 * glTF-Transform does not follow their unchecked references.
 */
const KEPT_EXTENSIONS = new Set([
  'KHR_draco_mesh_compression',
  'EXT_meshopt_compression',
  'KHR_mesh_quantization',
  'KHR_lights_punctual',
  'KHR_materials_variants',
  'KHR_node_visibility',
  'KHR_xmp_json_ld',
  'KHR_texture_transform',
  'KHR_texture_basisu',
  'EXT_texture_webp',
  'EXT_texture_avif',
]);
const keptExtension = (name: string): boolean => KEPT_EXTENSIONS.has(name) || name.startsWith('KHR_materials_');
const MESHOPT_MODES = new Set(['ATTRIBUTES', 'TRIANGLES', 'INDICES']);
const MESHOPT_FILTERS = new Set(['NONE', 'OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL']);
const LIGHT_TYPES = new Set(['directional', 'point', 'spot']);

const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const SPARSE_INDEX_TYPES = new Set([5121, 5123, 5125]);
const COMPONENT_NAME: Record<number, string> = {
  5120: 'bytes',
  5121: 'unsigned bytes',
  5122: 'shorts',
  5123: 'unsigned shorts',
  5125: 'unsigned ints',
  5126: 'floats',
};
/**
 * The component types an attribute may have, as `componentType` with `n` for normalized: glTF 2.0 §3.7.2.1 (mesh
 * attributes) and §3.7.2.2 (morph targets), and what KHR_mesh_quantization adds. JOINTS_n and WEIGHTS_n are checked by
 * the importer; attributes not named here (custom `_NAME` ones, morphed TEXCOORD_n and COLOR_n) are not restricted.
 */
const ATTRIBUTE_COMPONENTS: Record<string, { core: string[]; quantized: string[] }> = {
  POSITION: { core: ['5126'], quantized: ['5120', '5120n', '5121', '5121n', '5122', '5122n', '5123', '5123n'] },
  NORMAL: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TANGENT: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TEXCOORD: { core: ['5126', '5121n', '5123n'], quantized: ['5120', '5120n', '5121', '5122', '5122n', '5123'] },
  COLOR: { core: ['5126', '5121n', '5123n'], quantized: [] },
};
const TARGET_COMPONENTS: Record<string, { core: string[]; quantized: string[] }> = {
  POSITION: { core: ['5126'], quantized: ['5120', '5120n', '5122', '5122n'] },
  NORMAL: { core: ['5126'], quantized: ['5120n', '5122n'] },
  TANGENT: { core: ['5126'], quantized: ['5120n', '5122n'] },
};
/** `floats`, `normalized unsigned bytes`: an accessor's components in words, from their key in the tables above. */
const componentWords = (key: string): string => `${key.endsWith('n') ? 'normalized ' : ''}${COMPONENT_NAME[parseInt(key, 10)]}`;
const INTERPOLATIONS = new Set(['LINEAR', 'STEP', 'CUBICSPLINE']);
const PATHS = new Set(['translation', 'rotation', 'scale', 'weights']);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isIndex = (value: unknown, length: number): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) < length;

/** A short text of a JSON value for messages. */
function shown(value: unknown): string {
  if (value === undefined) return 'a missing value';
  // Values come from JSON.parse, so they stringify (only a function or symbol would give undefined).
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A data: URI's media type and bytes (decoded by data-uri.ts), or a failure naming the URI, cut short, and the problem. */
function dataUri(uri: string, where: string, fail: Fail): DataUri {
  const result = decodeDataUri(uri);
  return result.ok ? result.uri : fail(where, `the data: URI '${excerpt(uri)}' is not valid: ${result.problem}`);
}

/** The JSON and resources to give glTF-Transform, checked; see the module comment. */
export interface CheckedGltf {
  json: Json;
  /** buffer data by the key its buffer's uri now has (GLB binary chunk under `@glb.bin`) */
  resources: Record<string, Uint8Array>;
}

/**
 * Checks a glTF asset's JSON against its buffers and returns a copy fit for glTF-Transform.
 * @param json       the parsed JSON
 * @param glbBin     the GLB's binary chunk, or null
 * @param resources  external files by URI as written
 * @param glbKey     the key glTF-Transform looks up for the GLB binary chunk
 * @param notices    what is left out without refusing the file (a camera that is not sound) is reported here
 * @throws FormatError (through `fail`) naming the JSON pointer and the reason
 */
export function checkGltf(
  json: unknown,
  glbBin: Uint8Array | null,
  resources: Record<string, Uint8Array>,
  glbKey: string,
  fail: Fail,
  notices?: string[],
): CheckedGltf {
  if (!isObject(json)) fail('', 'the JSON is not an object');
  const root = json;
  const tooLong = (value: unknown[], where: string): void => {
    if (value.length > MAX_LIST_ENTRIES) fail(where, `${value.length} entries; Rigwright reads at most ${MAX_LIST_ENTRIES}`);
  };
  const array = (key: string): Json[] => {
    const value = root[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) fail(`/${key}`, `must be an array, found ${shown(value)}`);
    tooLong(value, `/${key}`);
    value.forEach((entry, i) => {
      if (!isObject(entry)) fail(`/${key}/${i}`, `must be an object, found ${shown(entry)}`);
    });
    return value as Json[];
  };
  /** A required or optional index into `length` items of `what`. */
  const index = (value: unknown, length: number, where: string, what: string): number => {
    if (!isIndex(value, length)) fail(where, `${shown(value)} is not a valid ${what} index (the file has ${length} ${what}s)`);
    return value;
  };
  const optionalIndex = (holder: Json, key: string, length: number, where: string, what: string): void => {
    if (holder[key] !== undefined) index(holder[key], length, `${where}/${key}`, what);
  };
  const wholeNumber = (holder: Json, key: string, where: string, min: number, fallback?: number): number => {
    const value = holder[key] ?? fallback;
    if (!(Number.isSafeInteger(value) && (value as number) >= min))
      fail(`${where}/${key}`, `${shown(value)} is not a whole number ≥ ${min}`);
    return value as number;
  };
  /** An external file by its URI as written or decoded. */
  const resource = (uri: string): Uint8Array | undefined => {
    let decoded = uri;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      // kept as written
    }
    if (Object.hasOwn(resources, uri)) return resources[uri];
    return Object.hasOwn(resources, decoded) ? resources[decoded] : undefined;
  };

  const finite = (holder: Json, key: string, where: string, required: boolean): void => {
    const value = holder[key];
    if (value === undefined && !required) return;
    if (!Number.isFinite(value)) fail(`${where}/${key}`, `${shown(value)} is not a finite number`);
  };
  const numbers = (holder: Json, key: string, length: number, where: string): void => {
    const value = holder[key];
    if (value === undefined) return;
    if (!Array.isArray(value) || value.length !== length || !value.every((x) => Number.isFinite(x)))
      fail(`${where}/${key}`, `must be ${length} finite numbers, found ${shown(value)}`);
  };
  /** A list of objects inside an extension (lights, variants, packets). */
  const objects = (holder: Json, key: string, where: string): Json[] => {
    const value = holder[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) fail(`${where}/${key}`, `must be an array, found ${shown(value)}`);
    tooLong(value, `${where}/${key}`);
    value.forEach((entry, i) => {
      if (!isObject(entry)) fail(`${where}/${key}/${i}`, `must be an object, found ${shown(entry)}`);
    });
    return value as Json[];
  };

  // Asset and extensions.
  const asset = root.asset;
  if (!isObject(asset)) fail('/asset', 'missing: every glTF file has an asset object with its version');
  if (asset.version !== '2.0') fail('/asset/version', `glTF version ${shown(asset.version)} is not supported (Rigwright reads glTF 2.0)`);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const value = root[key];
    if (value === undefined) continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail(`/${key}`, 'must be an array of extension names');
    tooLong(value, `/${key}`);
  }
  // Which required extensions a file may have is decided before these checks (gltf-extensions.ts, REQUIRED_EXTENSIONS).
  // Of the extensions used, only those whose data is checked here reach glTF-Transform.
  const used = new Set(((root.extensionsUsed as string[] | undefined) ?? []).filter(keptExtension));
  const dropped = ((root.extensionsUsed as string[] | undefined) ?? []).filter((name) => !used.has(name));
  if (dropped.length > 0)
    notices?.push(
      `the file uses ${dropped.slice(0, 6).join(', ')}${dropped.length > 6 ? ` and ${dropped.length - 6} more` : ''}; ${dropped.length === 1 ? 'its' : 'their'} data is left out (Rigwright keeps the extensions whose references it checks)`,
    );

  /**
   * The extensions of one entry that are kept: those the file uses and `checks` names (`KHR_materials_*` stands for
   * the family), each an object passed to its check (null: no references to check).
   */
  type ExtensionCheck = ((def: Json, at: string) => void) | null;
  const keptExtensions = (holder: Json, where: string, checks: Record<string, ExtensionCheck>): Json | undefined => {
    const value = holder.extensions;
    if (value === undefined) return undefined;
    if (!isObject(value)) fail(`${where}/extensions`, `must be an object, found ${shown(value)}`);
    const kept: Json = {};
    for (const [name, def] of Object.entries(value)) {
      if (!used.has(name)) continue;
      const family = name.startsWith('KHR_materials_') ? 'KHR_materials_*' : name;
      if (!Object.hasOwn(checks, family)) continue;
      const at = `${where}/extensions/${name}`;
      if (!isObject(def)) fail(at, `must be an object, found ${shown(def)}`);
      checks[family]?.(def, at);
      kept[name] = def;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  };
  /** A shallow copy of `entry` with `extensions` replaced (or removed when there are none). */
  const withExtensions = (entry: Json, extensions: Json | undefined): Json => {
    const { extensions: _all, ...rest } = entry;
    return extensions ? { ...rest, extensions } : rest;
  };

  let lightCount = 0;
  let variantCount = 0;
  let packetCount = 0;
  const rootExtensions = keptExtensions(root, '', {
    KHR_lights_punctual: (def, at) => {
      const lights = objects(def, 'lights', at);
      lights.forEach((light, l) => {
        const where = `${at}/lights/${l}`;
        if (!LIGHT_TYPES.has(light.type as string)) fail(`${where}/type`, `${shown(light.type)} is not directional, point or spot`);
        numbers(light, 'color', 3, where);
        finite(light, 'intensity', where, false);
        finite(light, 'range', where, false);
        if (light.spot !== undefined) {
          if (!isObject(light.spot)) fail(`${where}/spot`, `must be an object, found ${shown(light.spot)}`);
          finite(light.spot, 'innerConeAngle', `${where}/spot`, false);
          finite(light.spot, 'outerConeAngle', `${where}/spot`, false);
        }
      });
      lightCount = lights.length;
    },
    KHR_materials_variants: (def, at) => {
      variantCount = objects(def, 'variants', at).length;
    },
    KHR_xmp_json_ld: (def, at) => {
      packetCount = objects(def, 'packets', at).length;
    },
  });
  /** KHR_xmp_json_ld on an entry: its packet is one of the root's. */
  const xmp: ExtensionCheck = (def, at) => index(def.packet, packetCount, `${at}/packet`, 'XMP packet');

  // Buffers: data present and at least as long as declared; a meshopt fallback buffer may have none.
  const buffers = array('buffers');
  const data: (Uint8Array | null)[] = [];
  const outResources: Record<string, Uint8Array> = {};
  const outBuffers: Json[] = buffers.map((buffer, b) => {
    const where = `/buffers/${b}`;
    const byteLength = wholeNumber(buffer, 'byteLength', where, 1);
    const extensions = keptExtensions(buffer, where, {
      EXT_meshopt_compression: (def, at) => {
        if (def.fallback !== undefined && typeof def.fallback !== 'boolean') fail(`${at}/fallback`, 'must be true or false');
      },
    });
    const fallback = isObject(extensions?.EXT_meshopt_compression) && extensions.EXT_meshopt_compression.fallback === true;
    let bytes: Uint8Array | undefined;
    const uri = buffer.uri;
    let key: string | undefined;
    if (uri === undefined) {
      if (fallback) {
        // Its buffer views are decoded from the compressed data (EXT_meshopt_compression); it has no bytes of its own.
        data.push(null);
        return withExtensions({ byteLength }, extensions);
      }
      if (b !== 0 || !glbBin)
        fail(
          where,
          glbBin
            ? 'only the first buffer may be the GLB binary chunk; this one needs a uri'
            : 'the buffer has no uri and the file has no GLB binary chunk',
        );
      bytes = glbBin;
    } else if (typeof uri !== 'string') {
      fail(`${where}/uri`, `must be a string, found ${shown(uri)}`);
    } else if (isDataUri(uri)) {
      bytes = dataUri(uri, `${where}/uri`, fail).bytes;
      key = `__data${b}.bin`;
    } else {
      bytes = resource(uri) ?? fail(`${where}/uri`, `the buffer file "${shown(uri).slice(1, -1)}" was not found`);
      key = uri;
    }
    if (bytes.length < byteLength)
      fail(where, `the buffer declares ${byteLength} bytes but its data has ${bytes.length}; it looks truncated`);
    data.push(bytes);
    if (key === undefined) {
      outResources[glbKey] = bytes;
      return withExtensions({ byteLength }, extensions);
    }
    outResources[key] = bytes;
    return withExtensions({ byteLength, uri: key }, extensions);
  });

  // Buffer views: inside their buffer; a meshopt-compressed one also inside the buffer its compressed bytes are in,
  // and decoding to a bounded size. Only compressed views may point at a fallback buffer (it has no data).
  const views = array('bufferViews');
  const compressed = new Uint8Array(views.length);
  const outViews = views.map((view, v): Json => {
    const where = `/bufferViews/${v}`;
    const b = index(view.buffer, buffers.length, `${where}/buffer`, 'buffer');
    const offset = wholeNumber(view, 'byteOffset', where, 0, 0);
    const length = wholeNumber(view, 'byteLength', where, 1);
    const bufferLength = buffers[b].byteLength as number;
    if (offset + length > bufferLength)
      fail(where, `bytes ${offset} to ${offset + length} are past the end of buffer ${b} (${bufferLength} bytes)`);
    if (view.byteStride !== undefined) {
      const stride = view.byteStride;
      if (!(Number.isInteger(stride) && (stride as number) >= 4 && (stride as number) <= 252 && (stride as number) % 4 === 0))
        fail(`${where}/byteStride`, `${shown(stride)} is not a stride of 4 to 252 bytes in steps of 4`);
    }
    const extensions = keptExtensions(view, where, {
      EXT_meshopt_compression: (def, at) => {
        const source = index(def.buffer, buffers.length, `${at}/buffer`, 'buffer');
        if (!data[source])
          fail(`${at}/buffer`, `buffer ${source} is a fallback buffer without data; compressed bytes need a buffer with data`);
        const from = wholeNumber(def, 'byteOffset', at, 0, 0);
        const size = wholeNumber(def, 'byteLength', at, 1);
        const sourceLength = buffers[source].byteLength as number;
        if (from + size > sourceLength)
          fail(at, `compressed bytes ${from} to ${from + size} are past the end of buffer ${source} (${sourceLength} bytes)`);
        const mode = def.mode;
        if (!MESHOPT_MODES.has(mode as string)) fail(`${at}/mode`, `${shown(mode)} is not ATTRIBUTES, TRIANGLES or INDICES`);
        const filter = def.filter ?? 'NONE';
        if (!MESHOPT_FILTERS.has(filter as string))
          fail(`${at}/filter`, `${shown(filter)} is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL`);
        const stride = wholeNumber(def, 'byteStride', at, 1);
        if (mode === 'ATTRIBUTES' ? stride % 4 !== 0 || stride > 256 : stride !== 2 && stride !== 4)
          fail(
            `${at}/byteStride`,
            mode === 'ATTRIBUTES'
              ? `${stride} is not a stride of 4 to 256 bytes in steps of 4`
              : `${stride} is not an index size (2 or 4 bytes)`,
          );
        if (filter !== 'NONE' && mode !== 'ATTRIBUTES')
          fail(`${at}/filter`, `a filter applies to ATTRIBUTES only, the mode is ${mode as string}`);
        if ((filter === 'OCTAHEDRAL' && stride !== 4 && stride !== 8) || (filter === 'QUATERNION' && stride !== 8))
          fail(`${at}/byteStride`, `${stride} bytes is not a stride the ${filter as string} filter decodes`);
        const count = wholeNumber(def, 'count', at, 1);
        if (mode === 'TRIANGLES' && count % 3 !== 0) fail(`${at}/count`, `${count} indices are not whole triangles`);
        if (count > MAX_UNBACKED_ELEMENTS || count * stride > MAX_DECODED_VIEW_BYTES)
          fail(
            `${at}/count`,
            `${count} elements of ${stride} bytes; Rigwright decodes at most ${MAX_DECODED_VIEW_BYTES} bytes (and ${MAX_UNBACKED_ELEMENTS} elements) per buffer view`,
          );
        if (count * stride < length)
          fail(at, `${count} elements of ${stride} bytes decode to ${count * stride} bytes, fewer than the buffer view's ${length}`);
      },
    });
    if (extensions?.EXT_meshopt_compression) compressed[v] = 1;
    else if (!data[b])
      fail(
        `${where}/buffer`,
        `buffer ${b} is a fallback buffer without data; only buffer views compressed with EXT_meshopt_compression may point at it`,
      );
    return withExtensions(view, extensions);
  });
  /** A buffer view whose bytes are read as stored (an image, Draco data, sparse indices). */
  const plainView = (value: unknown, where: string): number => {
    const v = index(value, views.length, where, 'buffer view');
    if (compressed[v]) fail(where, `buffer view ${v} is meshopt-compressed; this data must be stored uncompressed`);
    return v;
  };

  // Accessors: every element inside its buffer view; sparse parts too.
  const accessors = array('accessors');
  accessors.forEach((accessor, a) => {
    const where = `/accessors/${a}`;
    const componentSize = COMPONENT_SIZE[accessor.componentType as number];
    if (!componentSize) fail(`${where}/componentType`, `${shown(accessor.componentType)} is not a glTF component type`);
    const components = TYPE_SIZE[accessor.type as string];
    if (!components) fail(`${where}/type`, `${shown(accessor.type)} is not a glTF accessor type`);
    const count = wholeNumber(accessor, 'count', where, 1);
    if (accessor.normalized !== undefined && typeof accessor.normalized !== 'boolean') fail(`${where}/normalized`, 'must be true or false');
    const elementSize = components * componentSize;
    if (accessor.bufferView !== undefined) {
      const view = views[index(accessor.bufferView, views.length, `${where}/bufferView`, 'buffer view')];
      const offset = wholeNumber(accessor, 'byteOffset', where, 0, 0);
      if (offset % componentSize !== 0) fail(`${where}/byteOffset`, `${offset} is not a multiple of the component size ${componentSize}`);
      // glTF 2.0 §3.6.2.4: the offset into the buffer (the view's and the accessor's together) is aligned as well.
      const viewOffset = typeof view.byteOffset === 'number' ? view.byteOffset : 0;
      if ((viewOffset + offset) % componentSize !== 0)
        fail(
          where,
          `starts at byte ${viewOffset + offset} of its buffer (buffer view ${accessor.bufferView as number} at ${viewOffset}, plus ${offset}), not a multiple of the component size ${componentSize}`,
        );
      const stride = (view.byteStride as number | undefined) ?? elementSize;
      if (stride < elementSize) fail(where, `elements of ${elementSize} bytes do not fit the buffer view's stride of ${stride} bytes`);
      const end = offset + stride * (count - 1) + elementSize;
      if (end > (view.byteLength as number))
        fail(
          where,
          `${count} elements need ${end} bytes, past the end of buffer view ${accessor.bufferView as number} (${view.byteLength as number} bytes)`,
        );
    } else if (wholeNumber(accessor, 'byteOffset', where, 0, 0) !== 0) {
      fail(`${where}/byteOffset`, 'an accessor without a buffer view cannot have a byte offset');
    } else if (count > MAX_UNBACKED_ELEMENTS) {
      fail(`${where}/count`, `${count} elements without buffer data; Rigwright reads at most ${MAX_UNBACKED_ELEMENTS} such elements`);
    }
    if (accessor.sparse === undefined) return;
    const sparse = accessor.sparse;
    if (!isObject(sparse)) fail(`${where}/sparse`, 'must be an object');
    const sparseCount = wholeNumber(sparse, 'count', `${where}/sparse`, 1);
    if (sparseCount > count) fail(`${where}/sparse/count`, `${sparseCount} sparse entries for an accessor of ${count} elements`);
    for (const part of ['indices', 'values'] as const) {
      const at = `${where}/sparse/${part}`;
      const def = sparse[part];
      if (!isObject(def)) fail(at, 'missing');
      const v =
        part === 'indices'
          ? plainView(def.bufferView, `${at}/bufferView`)
          : index(def.bufferView, views.length, `${at}/bufferView`, 'buffer view');
      const view = views[v];
      if (view.byteStride !== undefined) fail(`${at}/bufferView`, 'sparse data must be tightly packed (its buffer view has a byteStride)');
      const offset = wholeNumber(def, 'byteOffset', at, 0, 0);
      let size = elementSize;
      if (part === 'indices') {
        if (!SPARSE_INDEX_TYPES.has(def.componentType as number))
          fail(`${at}/componentType`, `${shown(def.componentType)} is not an unsigned integer type`);
        size = COMPONENT_SIZE[def.componentType as number];
      }
      const alignment = part === 'indices' ? size : componentSize;
      if (offset % alignment !== 0) fail(`${at}/byteOffset`, `${offset} is not aligned to its component size`);
      const sparseViewOffset = typeof view.byteOffset === 'number' ? view.byteOffset : 0;
      if ((sparseViewOffset + offset) % alignment !== 0)
        fail(at, `starts at byte ${sparseViewOffset + offset} of its buffer, not a multiple of its component size ${alignment}`);
      const end = offset + sparseCount * size;
      if (end > (view.byteLength as number))
        fail(
          at,
          `${sparseCount} entries need ${end} bytes, past the end of buffer view ${def.bufferView as number} (${view.byteLength as number} bytes)`,
        );
      if (part === 'indices') {
        // A plain view is on a buffer with data (checked with the buffer views).
        const bytes = data[view.buffer as number] ?? fail(`${at}/bufferView`, 'the buffer view has no data');
        const base = bytes.byteOffset + ((view.byteOffset as number | undefined) ?? 0) + offset;
        const dv = new DataView(bytes.buffer, base, sparseCount * size);
        for (let i = 0; i < sparseCount; i++) {
          const target = size === 1 ? dv.getUint8(i) : size === 2 ? dv.getUint16(2 * i, true) : dv.getUint32(4 * i, true);
          if (target >= count) fail(`${at}`, `entry ${i} names element ${target}, past the accessor's ${count} elements`);
        }
      }
    }
  });

  // Images: bytes in a plain buffer view, a data: URI (decoded here) or a file given with the asset. An image file
  // that is missing is left out with a notice (the rig does not need it); textures that show it lose their source.
  const images = array('images');
  const imageIndex = new Int32Array(images.length).fill(-1);
  const outImages: Json[] = [];
  images.forEach((image, i) => {
    const kept = checkedImage(image, i);
    if (!kept) return;
    imageIndex[i] = outImages.length;
    outImages.push(kept);
  });
  function checkedImage(image: Json, i: number): Json | undefined {
    const where = `/images/${i}`;
    if (image.mimeType !== undefined && typeof image.mimeType !== 'string')
      fail(`${where}/mimeType`, `must be a string, found ${shown(image.mimeType)}`);
    const extensions = keptExtensions(image, where, { KHR_xmp_json_ld: xmp });
    const { uri, ...rest } = withExtensions(image, extensions);
    if (image.bufferView !== undefined) {
      plainView(image.bufferView, `${where}/bufferView`);
      return rest;
    }
    if (uri === undefined) fail(where, 'an image needs a uri or a buffer view');
    if (typeof uri !== 'string') fail(`${where}/uri`, `must be a string, found ${shown(uri)}`);
    if (isDataUri(uri)) {
      const { bytes, mediaType } = dataUri(uri, `${where}/uri`, fail);
      const key = `__image${i}`;
      outResources[key] = bytes;
      return { ...rest, uri: key, ...(rest.mimeType === undefined && mediaType ? { mimeType: mediaType } : {}) };
    }
    const bytes = resource(uri);
    if (!bytes) {
      notices?.push(`image ${i} is left out: the image file "${shown(uri).slice(1, -1)}" was not found (${where}/uri)`);
      return undefined;
    }
    outResources[uri] = bytes;
    return { ...rest, uri };
  }

  const imageSamplers = array('samplers');
  imageSamplers.forEach((sampler, s) => {
    for (const key of ['magFilter', 'minFilter', 'wrapS', 'wrapT'])
      if (sampler[key] !== undefined) wholeNumber(sampler, key, `/samplers/${s}`, 0);
  });

  const textures = array('textures');
  const imageSource: ExtensionCheck = (def, at) => index(def.source, images.length, `${at}/source`, 'image');
  const outTextures = textures.map((texture, t): Json => {
    const where = `/textures/${t}`;
    optionalIndex(texture, 'source', images.length, where, 'image');
    optionalIndex(texture, 'sampler', imageSamplers.length, where, 'sampler');
    const extensions = keptExtensions(texture, where, {
      KHR_texture_basisu: imageSource,
      EXT_texture_webp: imageSource,
      EXT_texture_avif: imageSource,
    });
    // Image indices as in the images kept; an extension whose image was left out is dropped with it.
    const remapped: Json = {};
    for (const [name, def] of Object.entries(extensions ?? {})) {
      const source = imageIndex[(def as Json).source as number];
      if (source >= 0) remapped[name] = { ...(def as Json), source };
    }
    const { source, ...rest } = withExtensions(texture, Object.keys(remapped).length > 0 ? remapped : undefined);
    return source !== undefined && imageIndex[source as number] >= 0 ? { ...rest, source: imageIndex[source as number] } : rest;
  });

  /** glTF-Transform takes a texture's image from its source or from an image extension (which replaces the source). */
  const textureHasImage = (texture: Json): boolean => texture.source !== undefined || texture.extensions !== undefined;

  // Materials: factors are numbers; every texture reference (`…Texture`, in the core or in an extension) names a
  // texture of the file.
  const materials = array('materials');
  const textureInfo = (value: unknown, at: string): void => {
    if (!isObject(value)) fail(at, `must be an object naming a texture, found ${shown(value)}`);
    index(value.index, textures.length, `${at}/index`, 'texture');
    if (value.texCoord !== undefined) wholeNumber(value, 'texCoord', at, 0);
  };
  /** A copy of a material part with its texture references checked; one to a texture without an image is left out. */
  const textureInfos = (value: Json, at: string, depth: number): Json => {
    const out: Json = {};
    for (const [key, entry] of Object.entries(value)) {
      if (key !== 'extras' && key.endsWith('Texture')) {
        textureInfo(entry, `${at}/${key}`);
        const t = (entry as Json).index as number;
        if (!textureHasImage(outTextures[t])) {
          notices?.push(`the texture reference ${at}/${key} is left out: texture ${t} has no image`);
          continue;
        }
      }
      out[key] = key !== 'extras' && isObject(entry) && depth < 3 ? textureInfos(entry, `${at}/${key}`, depth + 1) : entry;
    }
    return out;
  };
  const outMaterials = materials.map((material, m): Json => {
    const where = `/materials/${m}`;
    const pbr = material.pbrMetallicRoughness;
    if (pbr !== undefined) {
      if (!isObject(pbr)) fail(`${where}/pbrMetallicRoughness`, `must be an object, found ${shown(pbr)}`);
      numbers(pbr, 'baseColorFactor', 4, `${where}/pbrMetallicRoughness`);
      finite(pbr, 'metallicFactor', `${where}/pbrMetallicRoughness`, false);
      finite(pbr, 'roughnessFactor', `${where}/pbrMetallicRoughness`, false);
    }
    numbers(material, 'emissiveFactor', 3, where);
    finite(material, 'alphaCutoff', where, false);
    if (material.alphaMode !== undefined && !['OPAQUE', 'MASK', 'BLEND'].includes(material.alphaMode as string))
      fail(`${where}/alphaMode`, `${shown(material.alphaMode)} is not OPAQUE, MASK or BLEND`);
    if (material.doubleSided !== undefined && typeof material.doubleSided !== 'boolean')
      fail(`${where}/doubleSided`, 'must be true or false');
    return textureInfos(
      withExtensions(material, keptExtensions(material, where, { 'KHR_materials_*': null, KHR_xmp_json_ld: xmp })),
      where,
      0,
    );
  });

  /**
   * An attribute's accessor `a` (a valid index) has component types its semantic allows (`TEXCOORD_1` goes by
   * `TEXCOORD`), those of KHR_mesh_quantization only when the file uses it.
   */
  const components = (a: number, semantic: string, table: typeof ATTRIBUTE_COMPONENTS, where: string): void => {
    const rule = table[semantic.replace(/_\d+$/, '')];
    if (!rule || semantic.startsWith('_')) return;
    const accessor = accessors[a];
    const key = `${accessor.componentType as number}${accessor.normalized === true ? 'n' : ''}`;
    if (rule.core.includes(key)) return;
    const quantization = used.has('KHR_mesh_quantization');
    if (quantization && rule.quantized.includes(key)) return;
    const allowed = [...rule.core, ...(quantization ? rule.quantized : [])].map(componentWords).join(', ');
    fail(
      where,
      !quantization && rule.quantized.includes(key)
        ? `${semantic} holds ${componentWords(key)} (accessor ${a}), which only KHR_mesh_quantization allows, and the file does not use it`
        : `${semantic} holds ${componentWords(key)} (accessor ${a}); glTF allows ${allowed}`,
    );
  };

  // Meshes.
  const meshes = array('meshes');
  const outMeshes = meshes.map((mesh, m): Json => {
    const where = `/meshes/${m}`;
    if (!Array.isArray(mesh.primitives)) fail(`${where}/primitives`, 'missing: a mesh needs an array of primitives');
    tooLong(mesh.primitives, `${where}/primitives`);
    const primitives = (mesh.primitives as unknown[]).map((primitive, p) => {
      const at = `${where}/primitives/${p}`;
      if (!isObject(primitive)) fail(at, 'must be an object');
      if (!isObject(primitive.attributes)) fail(`${at}/attributes`, 'missing: a primitive needs its attributes');
      for (const [semantic, a] of Object.entries(primitive.attributes)) {
        components(
          index(a, accessors.length, `${at}/attributes/${semantic}`, 'accessor'),
          semantic,
          ATTRIBUTE_COMPONENTS,
          `${at}/attributes/${semantic}`,
        );
      }
      optionalIndex(primitive, 'indices', accessors.length, at, 'accessor');
      if (primitive.mode !== undefined && !isIndex(primitive.mode, 7))
        fail(`${at}/mode`, `${shown(primitive.mode)} is not a primitive mode (0 to 6)`);
      const targets = primitive.targets;
      if (targets !== undefined) {
        if (!Array.isArray(targets)) fail(`${at}/targets`, 'must be an array');
        tooLong(targets, `${at}/targets`);
        targets.forEach((target, t) => {
          if (!isObject(target)) fail(`${at}/targets/${t}`, 'must be an object');
          for (const [semantic, a] of Object.entries(target)) {
            const where = `${at}/targets/${t}/${semantic}`;
            components(index(a, accessors.length, where, 'accessor'), semantic, TARGET_COMPONENTS, where);
          }
        });
      }
      optionalIndex(primitive, 'material', materials.length, at, 'material');
      const attributes = primitive.attributes;
      const extensions = keptExtensions(primitive, at, {
        KHR_draco_mesh_compression: (def, ext) => {
          plainView(def.bufferView, `${ext}/bufferView`);
          if (!isObject(def.attributes)) fail(`${ext}/attributes`, 'missing: Draco data needs its map of attributes');
          for (const [semantic, id] of Object.entries(def.attributes)) {
            if (!Object.hasOwn(attributes, semantic)) fail(`${ext}/attributes/${semantic}`, `the primitive has no ${semantic} attribute`);
            if (!(Number.isSafeInteger(id) && (id as number) >= 0))
              fail(`${ext}/attributes/${semantic}`, `${shown(id)} is not a Draco attribute id (a whole number ≥ 0)`);
          }
        },
        KHR_materials_variants: (def, ext) => {
          objects(def, 'mappings', ext).forEach((mapping, k) => {
            optionalIndex(mapping, 'material', materials.length, `${ext}/mappings/${k}`, 'material');
            const variants = mapping.variants;
            if (variants === undefined) return;
            if (!Array.isArray(variants)) fail(`${ext}/mappings/${k}/variants`, 'must be an array of variant indices');
            tooLong(variants, `${ext}/mappings/${k}/variants`);
            variants.forEach((variant, j) => index(variant, variantCount, `${ext}/mappings/${k}/variants/${j}`, 'variant'));
          });
        },
      });
      return withExtensions(primitive, extensions);
    });
    return withExtensions({ ...mesh, primitives }, keptExtensions(mesh, where, { KHR_xmp_json_ld: xmp }));
  });

  // Cameras are not part of a rig: one that is not sound is left out (with a notice) rather than refusing the file.
  const cameras = array('cameras');
  const cameraProblem = (camera: Json): string | undefined => {
    const type = camera.type;
    if (type !== 'perspective' && type !== 'orthographic') return `its type ${shown(type)} is not perspective or orthographic`;
    const def = camera[type];
    if (!isObject(def)) return `a ${type} camera needs its ${type} object`;
    const required = type === 'perspective' ? ['yfov', 'znear'] : ['xmag', 'ymag', 'znear', 'zfar'];
    for (const key of [...required, 'zfar', 'aspectRatio']) {
      if (def[key] === undefined ? required.includes(key) : !Number.isFinite(def[key]))
        return `its ${type}.${key} is ${shown(def[key])}, not a finite number`;
    }
    return undefined;
  };
  const cameraIndex = new Int32Array(cameras.length).fill(-1);
  const outCameras: Json[] = [];
  cameras.forEach((camera, c) => {
    const problem = cameraProblem(camera);
    if (problem) {
      notices?.push(`camera ${c} is left out: ${problem} (/cameras/${c})`);
      return;
    }
    cameraIndex[c] = outCameras.length;
    outCameras.push(camera);
  });

  // Nodes: references, transforms, and a forest (one parent each, no cycles).
  const nodes = array('nodes');
  const skins = array('skins');
  const parent = new Int32Array(nodes.length).fill(-1);
  const outNodes = nodes.map((node, n) => {
    const where = `/nodes/${n}`;
    optionalIndex(node, 'mesh', meshes.length, where, 'mesh');
    optionalIndex(node, 'skin', skins.length, where, 'skin');
    numbers(node, 'translation', 3, where);
    numbers(node, 'rotation', 4, where);
    numbers(node, 'scale', 3, where);
    numbers(node, 'matrix', 16, where);
    if (Array.isArray(node.rotation) && !(Math.hypot(...(node.rotation as number[])) > 0))
      fail(`${where}/rotation`, 'a zero quaternion is not a rotation');
    if (node.children !== undefined) {
      if (!Array.isArray(node.children)) fail(`${where}/children`, 'must be an array of node indices');
      node.children.forEach((child, k) => {
        const c = index(child, nodes.length, `${where}/children/${k}`, 'node');
        if (c === n) fail(`${where}/children/${k}`, `node ${n} names itself as its child`);
        if (parent[c] >= 0) fail(`${where}/children/${k}`, `node ${c} is already a child of node ${parent[c]} (a node has one parent)`);
        parent[c] = n;
      });
    }
    const { camera, ...rest } = node;
    const kept =
      camera !== undefined && isIndex(camera, cameras.length) && cameraIndex[camera] >= 0 ? { ...rest, camera: cameraIndex[camera] } : rest;
    if (camera !== undefined && !isIndex(camera, cameras.length))
      notices?.push(`node ${n}'s camera ${shown(camera)} is left out: the file has ${cameras.length} cameras (${where}/camera)`);
    return withExtensions(
      kept,
      keptExtensions(node, where, {
        KHR_lights_punctual: (def, at) => index(def.light, lightCount, `${at}/light`, 'light'),
        KHR_node_visibility: (def, at) => {
          if (def.visible !== undefined && typeof def.visible !== 'boolean') fail(`${at}/visible`, 'must be true or false');
        },
        KHR_xmp_json_ld: xmp,
      }),
    );
  });
  // With one parent each, a cycle is a walk up that never reaches a root.
  const state = new Uint8Array(nodes.length); // 0 unknown, 1 on the current walk, 2 reaches a root
  for (let n = 0; n < nodes.length; n++) {
    let at = n;
    while (at >= 0 && state[at] === 0) {
      state[at] = 1;
      at = parent[at];
    }
    if (at >= 0 && state[at] === 1) fail(`/nodes/${at}/children`, `the node hierarchy has a cycle through node ${at}`);
    for (let k = n; k >= 0 && state[k] === 1; k = parent[k]) state[k] = 2;
  }

  skins.forEach((skin, s) => {
    const where = `/skins/${s}`;
    if (!Array.isArray(skin.joints) || skin.joints.length === 0) fail(`${where}/joints`, 'missing: a skin needs an array of joint nodes');
    const seen = new Set<number>();
    (skin.joints as unknown[]).forEach((joint, j) => {
      const n = index(joint, nodes.length, `${where}/joints/${j}`, 'node');
      if (seen.has(n)) fail(`${where}/joints/${j}`, `node ${n} is listed twice as a joint`);
      seen.add(n);
    });
    optionalIndex(skin, 'inverseBindMatrices', accessors.length, where, 'accessor');
    if (skin.inverseBindMatrices !== undefined) {
      // glTF 2.0 §5.26: MAT4 of floats (no extension quantizes them).
      const ibm = accessors[skin.inverseBindMatrices as number];
      if (ibm.componentType !== 5126 || ibm.normalized === true)
        fail(
          `${where}/inverseBindMatrices`,
          `the inverse bind matrices hold ${componentWords(`${ibm.componentType as number}${ibm.normalized === true ? 'n' : ''}`)} (accessor ${skin.inverseBindMatrices as number}); glTF allows floats only`,
        );
    }
    optionalIndex(skin, 'skeleton', nodes.length, where, 'node');
  });

  const animations = array('animations');
  const outAnimations = animations.map((animation, a): Json => {
    const where = `/animations/${a}`;
    const samplers = animation.samplers;
    if (!Array.isArray(samplers)) fail(`${where}/samplers`, 'missing: an animation needs an array of samplers');
    tooLong(samplers, `${where}/samplers`);
    samplers.forEach((sampler, s) => {
      const at = `${where}/samplers/${s}`;
      if (!isObject(sampler)) fail(at, 'must be an object');
      index(sampler.input, accessors.length, `${at}/input`, 'accessor');
      index(sampler.output, accessors.length, `${at}/output`, 'accessor');
      if (sampler.interpolation !== undefined && !INTERPOLATIONS.has(sampler.interpolation as string))
        fail(`${at}/interpolation`, `${shown(sampler.interpolation)} is not LINEAR, STEP or CUBICSPLINE`);
    });
    const channels = animation.channels;
    if (!Array.isArray(channels)) fail(`${where}/channels`, 'missing: an animation needs an array of channels');
    tooLong(channels, `${where}/channels`);
    channels.forEach((channel, c) => {
      const at = `${where}/channels/${c}`;
      if (!isObject(channel)) fail(at, 'must be an object');
      index(channel.sampler, samplers.length, `${at}/sampler`, 'sampler');
      if (!isObject(channel.target)) fail(`${at}/target`, 'missing: a channel needs a target');
      if (!PATHS.has(channel.target.path as string))
        fail(`${at}/target/path`, `${shown(channel.target.path)} is not translation, rotation, scale or weights`);
      optionalIndex(channel.target, 'node', nodes.length, `${at}/target`, 'node');
    });
    return withExtensions(animation, keptExtensions(animation, where, { KHR_xmp_json_ld: xmp }));
  });

  const scenes = array('scenes');
  const outScenes = scenes.map((scene, s): Json => {
    const where = `/scenes/${s}`;
    const kept = withExtensions(scene, keptExtensions(scene, where, { KHR_xmp_json_ld: xmp }));
    if (scene.nodes === undefined) return kept;
    if (!Array.isArray(scene.nodes)) fail(`${where}/nodes`, 'must be an array of node indices');
    const seen = new Set<number>();
    scene.nodes.forEach((node, k) => {
      const n = index(node, nodes.length, `${where}/nodes/${k}`, 'node');
      if (parent[n] >= 0) fail(`${where}/nodes/${k}`, `node ${n} is a child of node ${parent[n]}, not a root`);
      if (seen.has(n)) fail(`${where}/nodes/${k}`, `node ${n} is listed twice`);
      seen.add(n);
    });
    return kept;
  });
  if (root.scene !== undefined) index(root.scene, scenes.length, '/scene', 'scene');

  // Names are strings or absent (they become bone names and appear in messages).
  const lists = [
    outBuffers,
    outViews,
    accessors,
    outImages,
    imageSamplers,
    outTextures,
    outMaterials,
    outMeshes,
    outCameras,
    outNodes,
    skins,
  ];
  for (const list of [...lists, outAnimations, outScenes]) {
    for (const entry of list) if (entry.name !== undefined && typeof entry.name !== 'string') delete entry.name;
  }

  // What glTF-Transform gets: the checked parts, with the extensions whose references were checked.
  const out: Json = {
    asset: { version: '2.0' },
    buffers: outBuffers,
    bufferViews: outViews,
    accessors,
    images: outImages,
    samplers: imageSamplers,
    textures: outTextures,
    materials: outMaterials,
    meshes: outMeshes,
    cameras: outCameras,
    nodes: outNodes,
    skins,
    animations: outAnimations,
    scenes: outScenes,
  };
  for (const key of ['generator', 'copyright'] as const) if (typeof asset[key] === 'string') (out.asset as Json)[key] = asset[key];
  if (used.size > 0) out.extensionsUsed = [...used];
  const required = ((root.extensionsRequired as string[] | undefined) ?? []).filter((name) => used.has(name));
  if (required.length > 0) out.extensionsRequired = required;
  if (rootExtensions) out.extensions = rootExtensions;
  if (root.scene !== undefined) out.scene = root.scene;
  return { json: out, resources: outResources };
}
