/**
 * What every step of the glTF input sanitizer (sanitize-input.ts) shares: the limits, the small value checks that
 * name a JSON pointer and a reason when they fail, and the extensions the file uses that are kept.
 */
import { decodeDataUri, type DataUri } from '../data-uri.ts';
import { excerpt } from '../text-scanner.ts';

/** A JSON object of the asset. */
export type Json = Record<string, unknown>;
/** Refuses the file: `where` is a JSON pointer (`/accessors/3`), `reason` says what is wrong there. */
export type Fail = (where: string, reason: string) => never;
/** A check of one kept extension's object at `at` (null: it has no references to check). */
export type ExtensionCheck = ((def: Json, at: string) => void) | null;

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
 * The extensions whose data is kept (after the sanitizer's checks); the others are taken off `extensionsUsed`, so
 * that glTF-Transform does not follow their unchecked references.
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
/** True for an extension whose data the sanitizer checks and keeps (`KHR_materials_*` as a family). */
export const keptExtension = (name: string): boolean => KEPT_EXTENSIONS.has(name) || name.startsWith('KHR_materials_');

/** Bytes of one component, by glTF `componentType`. */
export const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENT_NAME: Record<number, string> = {
  5120: 'bytes',
  5121: 'unsigned bytes',
  5122: 'shorts',
  5123: 'unsigned shorts',
  5125: 'unsigned ints',
  5126: 'floats',
};
/** `floats`, `normalized unsigned bytes`: components in words, from `componentType` with `n` for normalized. */
export const componentWords = (key: string): string => `${key.endsWith('n') ? 'normalized ' : ''}${COMPONENT_NAME[parseInt(key, 10)]}`;

/** True for a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** True for a whole number in [0, length). */
export const isIndex = (value: unknown, length: number): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) < length;

/** A short text of a JSON value for messages. */
export function shown(value: unknown): string {
  if (value === undefined) return 'a missing value';
  // Values come from JSON.parse, so they stringify (only a function or symbol would give undefined).
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A data: URI's media type and bytes (decoded by data-uri.ts), or a failure naming the URI, cut short, and the problem. */
export function dataUri(uri: string, where: string, fail: Fail): DataUri {
  const result = decodeDataUri(uri);
  return result.ok ? result.uri : fail(where, `the data: URI '${excerpt(uri)}' is not valid: ${result.problem}`);
}

/** An external file by its URI as written or, failing that, percent-decoded. */
export function fileResource(resources: Record<string, Uint8Array>, uri: string): Uint8Array | undefined {
  if (Object.hasOwn(resources, uri)) return resources[uri];
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // kept as written
  }
  return Object.hasOwn(resources, decoded) ? resources[decoded] : undefined;
}

/** A shallow copy of `entry` with `extensions` replaced (or removed when there are none). */
export function withExtensions(entry: Json, extensions: Json | undefined): Json {
  const { extensions: _all, ...rest } = entry;
  return extensions ? { ...rest, extensions } : rest;
}

/**
 * One asset being sanitized: its JSON root, how to refuse it, where notices go, the extensions it uses that are
 * kept, and the counts of the root extensions' lists that entries refer to.
 */
export class SanitizeContext {
  /** the extensions of `extensionsUsed` whose data is kept */
  readonly used: Set<string>;
  /** lights of KHR_lights_punctual, variants of KHR_materials_variants, packets of KHR_xmp_json_ld */
  lightCount = 0;
  variantCount = 0;
  packetCount = 0;

  /**
   * @param root     the asset's JSON (an object)
   * @param fail     refuses the file
   * @param notices  what is left out without refusing the file is reported here
   */
  constructor(
    readonly root: Json,
    readonly fail: Fail,
    readonly notices: string[] | undefined,
  ) {
    // An entry that is no name (a number where a name belongs) names no extension.
    const used = Array.isArray(root.extensionsUsed) ? (root.extensionsUsed as unknown[]) : [];
    this.used = new Set(used.filter((name): name is string => typeof name === 'string' && keptExtension(name)));
  }

  /** Refuses a list longer than MAX_LIST_ENTRIES. */
  tooLong(value: unknown[], where: string): void {
    if (value.length > MAX_LIST_ENTRIES) this.fail(where, `${value.length} entries; Rigwright reads at most ${MAX_LIST_ENTRIES}`);
  }

  /** The root's list `key` (empty when absent): an array of objects. */
  array(key: string): Json[] {
    return this.objects(this.root, key, '');
  }

  /** A list of objects `holder[key]` (empty when absent), e.g. the lights inside an extension. */
  objects(holder: Json, key: string, where: string): Json[] {
    const value = holder[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) this.fail(`${where}/${key}`, `must be an array, found ${shown(value)}`);
    this.tooLong(value, `${where}/${key}`);
    value.forEach((entry, i) => {
      if (!isObject(entry)) this.fail(`${where}/${key}/${i}`, `must be an object, found ${shown(entry)}`);
    });
    return value as Json[];
  }

  /** A required index into `length` items of `what`. */
  index(value: unknown, length: number, where: string, what: string): number {
    if (!isIndex(value, length)) this.fail(where, `${shown(value)} is not a valid ${what} index (the file has ${length} ${what}s)`);
    return value;
  }

  /** An optional index `holder[key]` into `length` items of `what`. */
  optionalIndex(holder: Json, key: string, length: number, where: string, what: string): void {
    if (holder[key] !== undefined) this.index(holder[key], length, `${where}/${key}`, what);
  }

  /** `holder[key]` (or `fallback` when absent), a safe integer ≥ min. */
  wholeNumber(holder: Json, key: string, where: string, min: number, fallback?: number): number {
    const value = holder[key] ?? fallback;
    if (!(Number.isSafeInteger(value) && (value as number) >= min))
      this.fail(`${where}/${key}`, `${shown(value)} is not a whole number ≥ ${min}`);
    return value as number;
  }

  /** `holder[key]` is a finite number (or absent when not required). */
  finite(holder: Json, key: string, where: string, required: boolean): void {
    const value = holder[key];
    if (value === undefined && !required) return;
    if (!Number.isFinite(value)) this.fail(`${where}/${key}`, `${shown(value)} is not a finite number`);
  }

  /** `holder[key]`, when present, is `length` finite numbers. */
  numbers(holder: Json, key: string, length: number, where: string): void {
    const value = holder[key];
    if (value === undefined) return;
    if (!Array.isArray(value) || value.length !== length || !value.every((x) => Number.isFinite(x)))
      this.fail(`${where}/${key}`, `must be ${length} finite numbers, found ${shown(value)}`);
  }

  /**
   * The extensions of one entry that are kept: those the file uses and `checks` names (`KHR_materials_*` stands for
   * the family), each an object passed to its check.
   */
  keptExtensions(holder: Json, where: string, checks: Record<string, ExtensionCheck>): Json | undefined {
    const value = holder.extensions;
    if (value === undefined) return undefined;
    if (!isObject(value)) this.fail(`${where}/extensions`, `must be an object, found ${shown(value)}`);
    const kept: Json = {};
    for (const [name, def] of Object.entries(value)) {
      if (!this.used.has(name)) continue;
      const family = name.startsWith('KHR_materials_') ? 'KHR_materials_*' : name;
      if (!Object.hasOwn(checks, family)) continue;
      const at = `${where}/extensions/${name}`;
      if (!isObject(def)) this.fail(at, `must be an object, found ${shown(def)}`);
      checks[family]?.(def, at);
      kept[name] = def;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  }

  /** KHR_xmp_json_ld on an entry: its packet is one of the root's. */
  readonly xmp: ExtensionCheck = (def, at) => {
    this.index(def.packet, this.packetCount, `${at}/packet`, 'XMP packet');
  };
}
