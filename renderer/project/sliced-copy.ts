/**
 * A copy of the scene's contents taken a slice per task (SlicedCopy), for autosave: the page's thread never copies
 * much at once, and the copy's buffers are its own, to be moved to a worker.
 */
type TypedArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | BigInt64Array
  | BigUint64Array;
type TypedArrayType = new (length: number) => TypedArray;

/**
 * A deep copy of a value (the scene's contents: plain objects, arrays, strings, numbers and typed arrays), whose typed
 * arrays are filled a slice at a time by `step`, so that no single task copies much. What the copy shares keeps its
 * identity (an object or typed array referenced twice is copied once and referenced twice, as a structured clone
 * does), and each typed array of the copy has a buffer of its own, holding only its elements: they can be moved to a
 * worker (`buffers`). Other objects (a Map, a Date) are structured-cloned as the copy is set up; an object of a class
 * becomes a plain one with its own fields, as in a structured clone.
 *
 * The copy is of the source as it is while the steps run: the caller makes sure nothing writes into the source's
 * arrays in between (Autosave starts over when the scene changes).
 */
export class SlicedCopy<T> {
  /** the copy, complete once `done` */
  readonly value: T;
  /** the copy's typed arrays' buffers, one each */
  readonly buffers: ArrayBuffer[] = [];
  /** bytes copied so far, and in all */
  copiedBytes = 0;
  readonly totalBytes: number;
  /** typed arrays still to fill, in the order met, and the elements of the first already filled */
  private readonly fills: { from: TypedArray; to: TypedArray }[] = [];
  private next = 0;
  private filled = 0;

  constructor(source: T) {
    this.value = this.copy(source, new Map()) as T;
    this.totalBytes = this.fills.reduce((sum, f) => sum + f.to.byteLength, 0);
  }

  get done(): boolean {
    return this.next === this.fills.length;
  }

  /**
   * Copies about `maxBytes` more (at least one element when any is left; Infinity: all the rest).
   * @returns whether the copy is complete
   */
  step(maxBytes: number): boolean {
    let budget = maxBytes;
    while (this.next < this.fills.length && budget > 0) {
      const { from, to } = this.fills[this.next];
      const count = Math.min(from.length - this.filled, Math.max(1, Math.floor(budget / from.BYTES_PER_ELEMENT)));
      // `to` is of `from`'s own type (the union's members each take only their own kind of elements).
      (to as Float64Array).set(from.subarray(this.filled, this.filled + count) as unknown as Float64Array, this.filled);
      this.filled += count;
      const bytes = count * from.BYTES_PER_ELEMENT;
      this.copiedBytes += bytes;
      budget -= bytes;
      if (this.filled === from.length) {
        this.next++;
        this.filled = 0;
      }
    }
    return this.done;
  }

  private copy(value: unknown, copies: Map<object, unknown>): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const known = copies.get(value);
    if (known !== undefined) return known;
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const from = value as TypedArray;
      const to = new (from.constructor as TypedArrayType)(from.length);
      copies.set(value, to);
      this.buffers.push(to.buffer as ArrayBuffer);
      if (from.length > 0) this.fills.push({ from, to });
      return to;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      copies.set(value, out);
      for (const item of value) out.push(this.copy(item, copies));
      return out;
    }
    if (Object.prototype.toString.call(value) !== '[object Object]') {
      // A Map, a Date, an ArrayBuffer: as a structured clone copies it (ordinary objects, of any class, are copied below).
      const cloned = structuredClone(value);
      copies.set(value, cloned);
      return cloned;
    }
    const out: Record<string, unknown> = {};
    copies.set(value, out);
    for (const [key, item] of Object.entries(value)) out[key] = this.copy(item, copies);
    return out;
  }
}
