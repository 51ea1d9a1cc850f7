/**
 * Input sanitizer, buffers and buffer views: every buffer's data is present and at least as long as declared (a GLB
 * binary chunk, a data: URI decoded here or a file given with the asset; a meshopt fallback buffer may have none);
 * every buffer view lies inside its buffer; a meshopt-compressed view's compressed bytes lie inside theirs and decode
 * to a bounded size.
 */
import { isDataUri } from '../data-uri.ts';
import {
  dataUri,
  fileResource,
  isObject,
  MAX_DECODED_VIEW_BYTES,
  MAX_UNBACKED_ELEMENTS,
  shown,
  withExtensions,
  type Fail,
  type Json,
  type SanitizeContext,
} from './sanitize-context.ts';

const MESHOPT_MODES = new Set(['ATTRIBUTES', 'TRIANGLES', 'INDICES']);
const MESHOPT_FILTERS = new Set(['NONE', 'OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL']);

/** The buffers as checked. */
export interface SanitizedBuffers {
  /** the file's buffer entries, as written */
  buffers: Json[];
  /** each buffer's bytes, null for a meshopt fallback buffer */
  data: (Uint8Array | null)[];
  /** the entries for glTF-Transform: byteLength, name, extras, the uri its data is under in `resources`, kept extensions */
  outBuffers: Json[];
}

/** The buffer views as checked. */
export interface SanitizedViews {
  /** the file's buffer view entries, as written */
  views: Json[];
  /** 1 for a meshopt-compressed view */
  compressed: Uint8Array;
  /** the entries for glTF-Transform */
  outViews: Json[];
}

/**
 * Checks the buffers against their data and puts each buffer's bytes in `outResources` under the key its uri gets.
 * @param ctx           the asset being sanitized
 * @param glbBin        the GLB's binary chunk, or null
 * @param resources     external files by URI as written
 * @param glbKey        the key glTF-Transform looks up for the GLB binary chunk
 * @param outResources  filled: buffer data by key (`glbKey`, the URI as written, `__dataN.bin` for a data: URI)
 */
export function sanitizeBuffers(
  ctx: SanitizeContext,
  glbBin: Uint8Array | null,
  resources: Record<string, Uint8Array>,
  glbKey: string,
  outResources: Record<string, Uint8Array>,
): SanitizedBuffers {
  const fail: Fail = ctx.fail;
  const buffers = ctx.array('buffers');
  const data: (Uint8Array | null)[] = [];
  const outBuffers: Json[] = buffers.map((buffer, b) => {
    const where = `/buffers/${b}`;
    const byteLength = ctx.wholeNumber(buffer, 'byteLength', where, 1);
    // glTF's buffer schema allows a name and extras as well; they are kept (a non-string name is dropped earlier).
    const named: Json = { byteLength };
    if (typeof buffer.name === 'string') named.name = buffer.name;
    if (buffer.extras !== undefined) named.extras = buffer.extras;
    const extensions = ctx.keptExtensions(buffer, where, {
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
        return withExtensions(named, extensions);
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
      bytes = fileResource(resources, uri) ?? fail(`${where}/uri`, `the buffer file "${shown(uri).slice(1, -1)}" was not found`);
      key = uri;
    }
    if (bytes.length < byteLength)
      fail(where, `the buffer declares ${byteLength} bytes but its data has ${bytes.length}; it looks truncated`);
    data.push(bytes);
    if (key === undefined) {
      outResources[glbKey] = bytes;
      return withExtensions(named, extensions);
    }
    outResources[key] = bytes;
    return withExtensions({ ...named, uri: key }, extensions);
  });
  return { buffers, data, outBuffers };
}

/**
 * EXT_meshopt_compression on buffer view `def`'s holder: the compressed bytes lie in a buffer with data, the mode,
 * filter and stride go together, and the view decodes to at most MAX_DECODED_VIEW_BYTES, at least its own length.
 */
function checkMeshopt(ctx: SanitizeContext, buffers: SanitizedBuffers, def: Json, at: string, viewLength: number): void {
  const fail: Fail = ctx.fail;
  const source = ctx.index(def.buffer, buffers.buffers.length, `${at}/buffer`, 'buffer');
  if (!buffers.data[source])
    fail(`${at}/buffer`, `buffer ${source} is a fallback buffer without data; compressed bytes need a buffer with data`);
  const from = ctx.wholeNumber(def, 'byteOffset', at, 0, 0);
  const size = ctx.wholeNumber(def, 'byteLength', at, 1);
  const sourceLength = buffers.buffers[source].byteLength as number;
  if (from + size > sourceLength)
    fail(at, `compressed bytes ${from} to ${from + size} are past the end of buffer ${source} (${sourceLength} bytes)`);
  const mode = def.mode;
  if (!MESHOPT_MODES.has(mode as string)) fail(`${at}/mode`, `${shown(mode)} is not ATTRIBUTES, TRIANGLES or INDICES`);
  const filter = def.filter ?? 'NONE';
  if (!MESHOPT_FILTERS.has(filter as string)) fail(`${at}/filter`, `${shown(filter)} is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL`);
  const stride = ctx.wholeNumber(def, 'byteStride', at, 1);
  if (mode === 'ATTRIBUTES' ? stride % 4 !== 0 || stride > 256 : stride !== 2 && stride !== 4)
    fail(
      `${at}/byteStride`,
      mode === 'ATTRIBUTES' ? `${stride} is not a stride of 4 to 256 bytes in steps of 4` : `${stride} is not an index size (2 or 4 bytes)`,
    );
  if (filter !== 'NONE' && mode !== 'ATTRIBUTES')
    fail(`${at}/filter`, `a filter applies to ATTRIBUTES only, the mode is ${mode as string}`);
  if ((filter === 'OCTAHEDRAL' && stride !== 4 && stride !== 8) || (filter === 'QUATERNION' && stride !== 8))
    fail(`${at}/byteStride`, `${stride} bytes is not a stride the ${filter as string} filter decodes`);
  const count = ctx.wholeNumber(def, 'count', at, 1);
  if (mode === 'TRIANGLES' && count % 3 !== 0) fail(`${at}/count`, `${count} indices are not whole triangles`);
  if (count > MAX_UNBACKED_ELEMENTS || count * stride > MAX_DECODED_VIEW_BYTES)
    fail(
      `${at}/count`,
      `${count} elements of ${stride} bytes; Rigwright decodes at most ${MAX_DECODED_VIEW_BYTES} bytes (and ${MAX_UNBACKED_ELEMENTS} elements) per buffer view`,
    );
  if (count * stride < viewLength)
    fail(at, `${count} elements of ${stride} bytes decode to ${count * stride} bytes, fewer than the buffer view's ${viewLength}`);
}

/**
 * Checks the buffer views: inside their buffer, a stride glTF allows, meshopt compression (checkMeshopt). Only
 * compressed views may point at a fallback buffer (it has no data).
 * @param ctx      the asset being sanitized
 * @param buffers  the buffers as checked
 */
export function sanitizeBufferViews(ctx: SanitizeContext, buffers: SanitizedBuffers): SanitizedViews {
  const fail: Fail = ctx.fail;
  const views = ctx.array('bufferViews');
  const compressed = new Uint8Array(views.length);
  const outViews = views.map((view, v): Json => {
    const where = `/bufferViews/${v}`;
    const b = ctx.index(view.buffer, buffers.buffers.length, `${where}/buffer`, 'buffer');
    const offset = ctx.wholeNumber(view, 'byteOffset', where, 0, 0);
    const length = ctx.wholeNumber(view, 'byteLength', where, 1);
    const bufferLength = buffers.buffers[b].byteLength as number;
    if (offset + length > bufferLength)
      fail(where, `bytes ${offset} to ${offset + length} are past the end of buffer ${b} (${bufferLength} bytes)`);
    if (view.byteStride !== undefined) {
      const stride = view.byteStride;
      if (!(Number.isInteger(stride) && (stride as number) >= 4 && (stride as number) <= 252 && (stride as number) % 4 === 0))
        fail(`${where}/byteStride`, `${shown(stride)} is not a stride of 4 to 252 bytes in steps of 4`);
    }
    const extensions = ctx.keptExtensions(view, where, {
      EXT_meshopt_compression: (def, at) => checkMeshopt(ctx, buffers, def, at, length),
    });
    if (extensions?.EXT_meshopt_compression) compressed[v] = 1;
    else if (!buffers.data[b])
      fail(
        `${where}/buffer`,
        `buffer ${b} is a fallback buffer without data; only buffer views compressed with EXT_meshopt_compression may point at it`,
      );
    return withExtensions(view, extensions);
  });
  return { views, compressed, outViews };
}

/**
 * A buffer view whose bytes are read as stored (an image, Draco data, sparse indices): a valid index, not
 * meshopt-compressed.
 * @returns the view's index
 */
export function plainView(ctx: SanitizeContext, views: SanitizedViews, value: unknown, where: string): number {
  const v = ctx.index(value, views.views.length, where, 'buffer view');
  if (views.compressed[v]) ctx.fail(where, `buffer view ${v} is meshopt-compressed; this data must be stored uncompressed`);
  return v;
}
