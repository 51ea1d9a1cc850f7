/**
 * Input sanitizer, accessors: a component type and an element type glTF knows, every element inside its buffer view
 * (glTF 2.0 §3.6.2: offsets aligned to the component size, the stride at least an element), accessors without data
 * bounded, and sparse parts tightly packed, inside their views, with every index naming an element of the accessor.
 */
import { plainView, type SanitizedBuffers, type SanitizedViews } from './sanitize-buffers.ts';
import { COMPONENT_SIZE, isObject, MAX_UNBACKED_ELEMENTS, shown, type Fail, type Json, type SanitizeContext } from './sanitize-context.ts';

const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const SPARSE_INDEX_TYPES = new Set([5121, 5123, 5125]);

/** An accessor's `count` elements of `elementSize` bytes inside its buffer view `view`: alignment, stride, end. */
function checkBacked(ctx: SanitizeContext, accessor: Json, view: Json, where: string, count: number, elementSize: number): void {
  const fail: Fail = ctx.fail;
  const componentSize = COMPONENT_SIZE[accessor.componentType as number];
  const offset = ctx.wholeNumber(accessor, 'byteOffset', where, 0, 0);
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
}

/** An accessor's sparse part: its indices and values inside their views, every index naming one of `count` elements. */
function checkSparse(
  ctx: SanitizeContext,
  buffers: SanitizedBuffers,
  views: SanitizedViews,
  accessor: Json,
  where: string,
  count: number,
  elementSize: number,
): void {
  const fail: Fail = ctx.fail;
  const componentSize = COMPONENT_SIZE[accessor.componentType as number];
  const sparse = accessor.sparse;
  if (!isObject(sparse)) fail(`${where}/sparse`, 'must be an object');
  const sparseCount = ctx.wholeNumber(sparse, 'count', `${where}/sparse`, 1);
  if (sparseCount > count) fail(`${where}/sparse/count`, `${sparseCount} sparse entries for an accessor of ${count} elements`);
  for (const part of ['indices', 'values'] as const) {
    const at = `${where}/sparse/${part}`;
    const def = sparse[part];
    if (!isObject(def)) fail(at, 'missing');
    const v =
      part === 'indices'
        ? plainView(ctx, views, def.bufferView, `${at}/bufferView`)
        : ctx.index(def.bufferView, views.views.length, `${at}/bufferView`, 'buffer view');
    const view = views.views[v];
    if (view.byteStride !== undefined) fail(`${at}/bufferView`, 'sparse data must be tightly packed (its buffer view has a byteStride)');
    const offset = ctx.wholeNumber(def, 'byteOffset', at, 0, 0);
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
      const bytes = buffers.data[view.buffer as number] ?? fail(`${at}/bufferView`, 'the buffer view has no data');
      const base = bytes.byteOffset + ((view.byteOffset as number | undefined) ?? 0) + offset;
      const dv = new DataView(bytes.buffer, base, sparseCount * size);
      for (let i = 0; i < sparseCount; i++) {
        const target = size === 1 ? dv.getUint8(i) : size === 2 ? dv.getUint16(2 * i, true) : dv.getUint32(4 * i, true);
        if (target >= count) fail(`${at}`, `entry ${i} names element ${target}, past the accessor's ${count} elements`);
      }
    }
  }
}

/**
 * Checks every accessor against its buffer view (checkBacked) and its sparse part (checkSparse).
 * @param ctx      the asset being sanitized
 * @param buffers  the buffers as checked
 * @param views    the buffer views as checked
 * @returns the accessors, as written (they reach glTF-Transform unchanged)
 */
export function sanitizeAccessors(ctx: SanitizeContext, buffers: SanitizedBuffers, views: SanitizedViews): Json[] {
  const fail: Fail = ctx.fail;
  const accessors = ctx.array('accessors');
  accessors.forEach((accessor, a) => {
    const where = `/accessors/${a}`;
    const componentSize = COMPONENT_SIZE[accessor.componentType as number];
    if (!componentSize) fail(`${where}/componentType`, `${shown(accessor.componentType)} is not a glTF component type`);
    const components = TYPE_SIZE[accessor.type as string];
    if (!components) fail(`${where}/type`, `${shown(accessor.type)} is not a glTF accessor type`);
    const count = ctx.wholeNumber(accessor, 'count', where, 1);
    if (accessor.normalized !== undefined && typeof accessor.normalized !== 'boolean') fail(`${where}/normalized`, 'must be true or false');
    const elementSize = components * componentSize;
    if (accessor.bufferView !== undefined) {
      const view = views.views[ctx.index(accessor.bufferView, views.views.length, `${where}/bufferView`, 'buffer view')];
      checkBacked(ctx, accessor, view, where, count, elementSize);
    } else if (ctx.wholeNumber(accessor, 'byteOffset', where, 0, 0) !== 0) {
      fail(`${where}/byteOffset`, 'an accessor without a buffer view cannot have a byte offset');
    } else if (count > MAX_UNBACKED_ELEMENTS) {
      fail(`${where}/count`, `${count} elements without buffer data; Rigwright reads at most ${MAX_UNBACKED_ELEMENTS} such elements`);
    }
    if (accessor.sparse !== undefined) checkSparse(ctx, buffers, views, accessor, where, count, elementSize);
  });
  return accessors;
}
