/**
 * What the project's WebAssembly kernels are written with (panel-kernels.ts: the packed solve; face-kernel.ts: the
 * per-face loop): a small builder that writes a module's bytes from stack-machine instructions (Fn, moduleBytes),
 * compiling them where the runtime allows (compileModule), and MemoryCarver, which lays typed arrays out in a
 * kernel's memory. Kernels import one memory (env.memory) and take byte offsets into it; the arrays they read are
 * views of that memory, so nothing is copied per call.
 */

export type ValueType = 'i32' | 'f64' | 'v128';
const TYPE_CODE: Record<ValueType, number> = { i32: 0x7f, f64: 0x7c, v128: 0x7b };
/** Memories are at most this large here: typed arrays over them index with 32-bit offsets on every runtime. */
export const MAX_PAGES = 32_768; // 2 GiB
export const PAGE = 65_536;

function unsigned(n: number, out: number[]): void {
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
}

function signed(n: number, out: number[]): void {
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

function utf8(text: string, out: number[]): void {
  const bytes = new TextEncoder().encode(text);
  unsigned(bytes.length, out);
  out.push(...bytes);
}

/**
 * One function of the module, written as stack-machine instructions: its parameters (all i32), its result (none or
 * one value), its named locals, structured loops. Each method appends one instruction (or a short fixed sequence) and returns the builder.
 */
export class Fn {
  readonly code: number[] = [];
  private readonly slots = new Map<string, number>();
  private readonly localTypes: ValueType[] = [];

  constructor(
    readonly name: string,
    readonly params: readonly string[],
    readonly result: ValueType | null = null,
  ) {
    params.forEach((p, i) => this.slots.set(p, i));
  }

  local(type: ValueType, ...names: string[]): this {
    for (const n of names) {
      this.slots.set(n, this.params.length + this.localTypes.length);
      this.localTypes.push(type);
    }
    return this;
  }

  private slot(n: string): number {
    const i = this.slots.get(n);
    if (i === undefined) throw new Error(`WebAssembly kernel ${this.name} has no local ${n}`);
    return i;
  }

  private emit(opcode: number, immediate?: number): this {
    this.code.push(opcode);
    if (immediate !== undefined) unsigned(immediate, this.code);
    return this;
  }

  private simd(opcode: number, alignedOffset?: number): this {
    this.code.push(0xfd);
    unsigned(opcode, this.code);
    if (alignedOffset !== undefined) {
      this.code.push(3);
      unsigned(alignedOffset, this.code);
    }
    return this;
  }

  get(n: string): this {
    return this.emit(0x20, this.slot(n));
  }
  set(n: string): this {
    return this.emit(0x21, this.slot(n));
  }
  i32(value: number): this {
    this.code.push(0x41);
    signed(value | 0, this.code);
    return this;
  }
  f64Zero(): this {
    this.code.push(0x44, 0, 0, 0, 0, 0, 0, 0, 0);
    return this;
  }
  /** f64.const value */
  f64(value: number): this {
    this.code.push(0x44, ...new Uint8Array(new Float64Array([value]).buffer));
    return this;
  }
  add(): this {
    return this.emit(0x6a);
  }
  sub(): this {
    return this.emit(0x6b);
  }
  equal(): this {
    return this.emit(0x46);
  }
  greaterU(): this {
    return this.emit(0x4b);
  }
  greaterEqualS(): this {
    return this.emit(0x4e);
  }
  /** i32 a != b */
  notEqual(): this {
    return this.emit(0x47);
  }
  /** i32 a < b, signed */
  lessS(): this {
    return this.emit(0x48);
  }
  /** i32 a <= b, signed */
  lessEqualS(): this {
    return this.emit(0x4c);
  }
  /** i32 a > b, signed */
  greaterS(): this {
    return this.emit(0x4a);
  }
  /** i32 a << b */
  shl(): this {
    return this.emit(0x74);
  }
  /** i32 a >>> b */
  shrU(): this {
    return this.emit(0x76);
  }
  /** (a, b, condition) → a if condition ≠ 0, else b */
  select(): this {
    return this.emit(0x1b);
  }
  /** memory.size: the memory's pages */
  memorySize(): this {
    this.code.push(0x3f, 0);
    return this;
  }
  /** memory.grow by the pages on the stack: the previous size, or −1 when it cannot grow */
  memoryGrow(): this {
    this.code.push(0x40, 0);
    return this;
  }
  /** i32 >>> 1 */
  half(): this {
    return this.i32(1).emit(0x76);
  }
  call(index: number): this {
    return this.emit(0x10, index);
  }
  mul(): this {
    return this.emit(0x6c);
  }
  lessU(): this {
    return this.emit(0x49);
  }
  lessEqualU(): this {
    return this.emit(0x4d);
  }
  fadd(): this {
    return this.emit(0xa0);
  }
  fsub(): this {
    return this.emit(0xa1);
  }
  fmul(): this {
    return this.emit(0xa2);
  }
  /** f64 a == b (an i32) */
  fequal(): this {
    return this.emit(0x61);
  }
  /** f64 a <= b (an i32; false when either is NaN) */
  flessEqual(): this {
    return this.emit(0x65);
  }
  /** f64 a > b (an i32; false when either is NaN) */
  fgreater(): this {
    return this.emit(0x64);
  }
  /** f64 a != b (an i32; true when either is NaN) */
  fnotEqual(): this {
    return this.emit(0x62);
  }
  fdiv(): this {
    return this.emit(0xa3);
  }
  fabs(): this {
    return this.emit(0x99);
  }
  /** f64 −a */
  fneg(): this {
    return this.emit(0x9a);
  }
  /** f64 max(a, b), as Math.max: NaN if either is, +0 over −0 */
  fmax(): this {
    return this.emit(0xa5);
  }
  fsqrt(): this {
    return this.emit(0x9f);
  }
  /** return the value on the stack (or nothing) */
  ret(): this {
    return this.emit(0x0f);
  }
  /** i32 a & b */
  and(): this {
    return this.emit(0x71);
  }
  /** i32 a ^ b */
  xor(): this {
    return this.emit(0x73);
  }
  /** i32 a | b */
  or(): this {
    return this.emit(0x72);
  }
  /** i32 a == 0 */
  isZero(): this {
    return this.emit(0x45);
  }
  /** f64 a < b (an i32; false when either is NaN) */
  fless(): this {
    return this.emit(0x63);
  }
  /** f64.convert_i32_s: the i32 on the stack as an f64 */
  toF64(): this {
    return this.emit(0xb7);
  }
  /** f64.load from (address on the stack) + offset */
  load(offset = 0): this {
    this.code.push(0x2b, 3);
    unsigned(offset, this.code);
    return this;
  }
  /** f64.store to (address, value on the stack) + offset */
  store(offset = 0): this {
    this.code.push(0x39, 3);
    unsigned(offset, this.code);
    return this;
  }
  /** i32.store to (address, value on the stack) + offset */
  storeI32(offset = 0): this {
    this.code.push(0x36, 2);
    unsigned(offset, this.code);
    return this;
  }
  /** i32.load8_u: the byte at (address on the stack) + offset */
  loadU8(offset = 0): this {
    this.code.push(0x2d, 0);
    unsigned(offset, this.code);
    return this;
  }
  /** f32.load from (address on the stack) + offset, promoted to f64 */
  loadF32(offset = 0): this {
    this.code.push(0x2a, 2);
    unsigned(offset, this.code);
    return this.emit(0xbb);
  }
  loadI32(offset = 0): this {
    this.code.push(0x28, 2);
    unsigned(offset, this.code);
    return this;
  }
  vload(offset = 0): this {
    return this.simd(0x00, offset);
  }
  vstore(offset = 0): this {
    return this.simd(0x0b, offset);
  }
  /** v128.load64_splat: one f64 in both lanes */
  vloadSplat(offset = 0): this {
    return this.simd(0x0a, offset);
  }
  /** f64x2.splat: the f64 on the stack in both lanes */
  splat(): this {
    return this.simd(0x14);
  }
  lane(index: 0 | 1): this {
    this.simd(0x21);
    this.code.push(index);
    return this;
  }
  /** f64x2.replace_lane: the vector with lane `index` set to the f64 on the stack */
  replaceLane(index: 0 | 1): this {
    this.simd(0x22);
    this.code.push(index);
    return this;
  }
  vadd(): this {
    return this.simd(0xf0);
  }
  vsub(): this {
    return this.simd(0xf1);
  }
  vmul(): this {
    return this.simd(0xf2);
  }
  vzero(): this {
    this.simd(0x0c);
    for (let i = 0; i < 16; i++) this.code.push(0);
    return this;
  }
  /** if (condition on the stack) then … else … */
  when(then: (f: this) => unknown, otherwise?: (f: this) => unknown): this {
    this.code.push(0x04, 0x40);
    then(this);
    if (otherwise) {
      this.code.push(0x05);
      otherwise(this);
    }
    this.code.push(0x0b);
    return this;
  }
  /** local += step */
  step(n: string, by: number): this {
    return this.get(n).i32(by).add().set(n);
  }
  /** while (condition) body; the condition leaves an i32 on the stack */
  loop(condition: (f: this) => unknown, body: (f: this) => unknown): this {
    this.code.push(0x02, 0x40, 0x03, 0x40); // block, loop
    condition(this);
    this.code.push(0x45, 0x0d, 1); // i32.eqz, br_if 1: leave the block
    body(this);
    this.code.push(0x0c, 0, 0x0b, 0x0b); // br 0: again; end loop; end block
    return this;
  }

  /** The function's code entry: its size, its locals in runs of one type, its instructions, end. */
  entry(): number[] {
    const runs: [number, ValueType][] = [];
    for (const type of this.localTypes) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === type) last[0]++;
      else runs.push([1, type]);
    }
    const body: number[] = [];
    unsigned(runs.length, body);
    for (const [count, type] of runs) {
      unsigned(count, body);
      body.push(TYPE_CODE[type]);
    }
    body.push(...this.code, 0x0b);
    const out: number[] = [];
    unsigned(body.length, out);
    return out.concat(body);
  }
}

/** Emits one instruction sequence that leaves a value on the stack (or does its work) on the function given. */
export type Emit = (g: Fn) => unknown;

/** pushes local `name` */
export const local =
  (name: string): Emit =>
  (g) =>
    g.get(name);

/** the address of the 4-byte array[index] (`array` a local holding its byte offset, the index pushed by `index`) */
export const element = (g: Fn, array: string, index: Emit): Fn => {
  index(g);
  return g.i32(4).mul().get(array).add();
};

/** the Int32 array[index], read at `offset` bytes past it */
export const readInt = (g: Fn, array: string, index: Emit, offset = 0): Fn => element(g, array, index).loadI32(offset);

/** array[index] += by (Int32); local `scratch` holds the element's address meanwhile */
export const addInt = (g: Fn, array: string, index: Emit, by: Emit, scratch: string): void => {
  element(g, array, index).set(scratch);
  g.get(scratch).get(scratch).loadI32();
  by(g);
  g.add().storeI32();
};

/** array[index] = value (Int32) */
export const writeInt = (g: Fn, array: string, index: Emit, value: Emit): void => {
  element(g, array, index);
  value(g);
  g.storeI32();
};

/** for (name = from; name < to; name++) body — `to` re-evaluated each time, signed comparison */
export function range(g: Fn, name: string, from: Emit, to: Emit, body: Emit): void {
  from(g);
  g.set(name);
  g.loop(
    (h) => {
      h.get(name);
      to(h);
      h.lessS();
    },
    (h) => {
      body(h);
      h.step(name, 1);
    },
  );
}

/**
 * run(from, to) over [0, n) in ranges of `size`, ascending (or descending), until one returns a value other than −1
 * (a pass without a result returns nothing). Kernels' passes run this way because V8 starts a module's functions in
 * baseline code and optimizes them once they have run a while, while a call keeps the code it started in.
 * @returns that value, or −1
 */
export function overRanges(n: number, size: number, run: (from: number, to: number) => number | void, descending = false): number {
  for (let c = 0; c < n; c += size) {
    const from = descending ? Math.max(0, n - c - size) : c;
    const result = run(from, descending ? n - c : Math.min(n, c + size));
    if (result !== undefined && result !== -1) return result;
  }
  return -1;
}

function section(id: number, content: number[], out: number[]): void {
  out.push(id);
  unsigned(content.length, out);
  out.push(...content);
}

/**
 * A module that imports env.memory (shared or not, up to MAX_PAGES) and exports `fns`, each (i32 …) → () or
 * (i32 …) → result. A function calls another by its index in `fns`.
 */
export function moduleBytes(fns: readonly Fn[], shared: boolean): Uint8Array<ArrayBuffer> {
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const signature = (f: Fn): string => `${f.params.length} ${f.result ?? ''}`;
  const signatures = [...new Set(fns.map(signature))];
  const types: number[] = [];
  unsigned(signatures.length, types);
  for (const s of signatures) {
    const f = fns.find((g) => signature(g) === s) as Fn;
    types.push(0x60);
    unsigned(f.params.length, types);
    for (let i = 0; i < f.params.length; i++) types.push(TYPE_CODE.i32);
    if (f.result === null) types.push(0);
    else types.push(1, TYPE_CODE[f.result]);
  }
  section(1, types, out);
  const imports: number[] = [1];
  utf8('env', imports);
  utf8('memory', imports);
  imports.push(0x02, shared ? 0x03 : 0x01);
  unsigned(0, imports);
  unsigned(MAX_PAGES, imports);
  section(2, imports, out);
  const functions: number[] = [];
  unsigned(fns.length, functions);
  for (const f of fns) unsigned(signatures.indexOf(signature(f)), functions);
  section(3, functions, out);
  const exports: number[] = [];
  unsigned(fns.length, exports);
  fns.forEach((f, i) => {
    utf8(f.name, exports);
    exports.push(0x00);
    unsigned(i, exports);
  });
  section(7, exports, out);
  const code: number[] = [];
  unsigned(fns.length, code);
  for (const f of fns) code.push(...f.entry());
  section(10, code, out);
  return new Uint8Array(out);
}

/**
 * A module's bytes compiled, or null where this runtime has no WebAssembly (or not these instructions: 128-bit
 * SIMD, shared memories) or does not allow compiling here. Small modules only: browsers compile up to 4 kB
 * synchronously even on a page.
 */
export function compileModule(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  try {
    // The constructor validates (a CompileError where the instructions are unknown): no separate validate pass.
    if (typeof WebAssembly === 'object') return new WebAssembly.Module(bytes);
  } catch {
    // not these instructions, or not allowed to compile here: the callers' JavaScript loops run instead
  }
  return null;
}

/**
 * A module kept as base64 in the source (the builder's output, which each kernel's unit test holds equal to it),
 * compiled as compileModule does: decoding is far cheaper on a process's first call than running the builder.
 */
export function compileBase64(base64: string): WebAssembly.Module | null {
  if (typeof atob !== 'function') return null;
  // A plain loop: on a process's first call it runs in V8's interpreter, where Uint8Array.from's iterator and
  // callback per byte cost twice as much (5–8 against 2–3 ms for the kernels' 18 kB).
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return compileModule(bytes);
}

/** A memory and the exports of a module instantiated on it. */
export interface BoundMemory {
  readonly memory: WebAssembly.Memory;
  readonly exports: WebAssembly.Exports;
}

/**
 * The memory every kernel module's small calls run in, one for the process (or worker): a binding's stages
 * (the Laplacian's block, the ordering, the analysis, the factorization, the solve) run one after another in the same
 * pages, which the stage before has just brought into the cache, instead of each in pages of its own that were last
 * touched a binding ago. Every call lays out and fills what it reads, and copies its results out.
 */
let sharedScratch: WebAssembly.Memory | null = null;

/**
 * The scratch memory's size: calls whose arrays fit in it run there, larger ones get a memory of their own (whose fresh
 * pages they pay for), and a call that grew it past this lets it go. One size for every module, as they share it.
 */
export const SCRATCH_BYTES = 16 << 20;

/** Whether `view` lies in the process's scratch memory as it is now (a later call may grow or replace it). */
export function inScratch(view: ArrayBufferView): boolean {
  return sharedScratch !== null && view.buffer === sharedScratch.buffer;
}

/**
 * The memory of the last finished call too large for the scratch memory (KernelMemories.done), for the next such call
 * of any module: a fresh memory costs its pages' first touch (about 6 µs for each 4 kB here), and a pipeline's large
 * stages (the ordering, the analysis, the factorization of a 300k-vertex mesh) follow one another. Held weakly: a
 * memory lives on while the job that made it runs (the WeakRef keeps it until then), then only if something else
 * keeps it, so a spare is never what holds memory after a computation.
 */
let spareMemory: WeakRef<WebAssembly.Memory> | null = null;

/**
 * The memories one module's calls run in: calls of up to SCRATCH_BYTES run in the process's scratch memory (so that
 * repeated small calls do not each map fresh pages), larger ones in a memory of their own: the spare one a finished
 * call left (grown when short), or a new one. Every memory may grow up to MAX_PAGES.
 */
export class KernelMemories {
  private scratch: BoundMemory | null = null;

  constructor(private readonly module: WebAssembly.Module) {}

  /**
   * A memory of at least `bytes` and the module bound to it: the scratch one (grown when short) when `bytes` is at
   * most `scratchBytes` (at most SCRATCH_BYTES), else one of its own; null when the size is over 2 GiB or the memory
   * cannot be had. `dirty`: how many bytes from its start may hold what earlier calls left (0 for a new memory; the
   * rest is zero).
   */
  take(bytes: number, scratchBytes = SCRATCH_BYTES): (BoundMemory & { scratch: boolean; dirty: number }) | null {
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    if (pages > MAX_PAGES) return null;
    const scratch = bytes <= Math.min(scratchBytes, SCRATCH_BYTES);
    try {
      if (!scratch) {
        const spare = spareMemory?.deref();
        spareMemory = null;
        const dirty = spare?.buffer.byteLength ?? 0;
        if (spare !== undefined && grown(spare, pages)) return { ...this.bind(spare), scratch, dirty };
        return { ...this.bind(new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES })), scratch, dirty: 0 };
      }
      const dirty = sharedScratch?.buffer.byteLength ?? 0;
      sharedScratch ??= new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES });
      if (!grown(sharedScratch, pages)) return null;
      if (this.scratch?.memory !== sharedScratch) this.scratch = this.bind(sharedScratch);
      return { ...this.scratch, scratch, dirty };
    } catch {
      return null; // no room for one block this size: the callers' JavaScript loops may still fit
    }
  }

  /**
   * The scratch memory (grown when short) and the module bound to it, or null when `bytes` is over SCRATCH_BYTES or it
   * cannot be had: for calls that would rather leave the work to JavaScript than pay for a memory of their own.
   */
  takeScratch(bytes: number): BoundMemory | null {
    return bytes > SCRATCH_BYTES ? null : this.take(bytes);
  }

  /**
   * A call is done with the memory `take` gave it, its results copied out: the scratch memory is let go when the call
   * grew it past SCRATCH_BYTES; a memory of its own becomes the spare for the next large call.
   */
  done(memory: WebAssembly.Memory): void {
    if (memory !== sharedScratch) spareMemory = new WeakRef(memory);
    else if (sharedScratch.buffer.byteLength > SCRATCH_BYTES) {
      sharedScratch = null;
      this.scratch = null;
    }
  }

  private bind(memory: WebAssembly.Memory): BoundMemory {
    return { memory, exports: new WebAssembly.Instance(this.module, { env: { memory } }).exports };
  }
}

/** Grows `memory` to at least `pages` pages (its views are then detached); false when it cannot. */
export function grown(memory: WebAssembly.Memory, pages: number): boolean {
  const have = memory.buffer.byteLength / PAGE;
  if (have >= pages) return true;
  try {
    memory.grow(pages - have);
    return true;
  } catch {
    return false;
  }
}

/**
 * A kernel module's memories (KernelMemories), the module compiled from its base64 on the first call: null where this
 * runtime cannot compile it (its callers' JavaScript runs then).
 */
export function kernelMemoriesOf(base64: string): () => KernelMemories | null {
  let memories: KernelMemories | null | undefined;
  return () => {
    if (memories === undefined) {
      const module = compileBase64(base64);
      memories = module === null ? null : new KernelMemories(module);
    }
    return memories;
  };
}

/** Byte offsets of arrays laid one after another from `end`, each on a 64-byte line and padded to whole lines. */
export class ByteLayout {
  constructor(public end = 0) {}

  /** The next array's offset; `end` moves past it. */
  take(bytes: number): number {
    const at = Math.ceil(this.end / 64) * 64;
    this.end = at + Math.ceil(bytes / 64) * 64;
    return at;
  }
}

/** Hands out typed arrays of one memory one after another, each starting on a 64-byte line. */
export class MemoryCarver {
  /** @param offset  where the first view starts (a multiple of 64) */
  constructor(
    readonly buffer: ArrayBufferLike,
    private offset = 0,
  ) {}

  /** The bytes that views of these many 8-byte and 4-byte values take, each rounded up to whole lines. */
  static bytes(float64Lengths: readonly number[], int32Lengths: readonly number[]): number {
    const line = (bytes: number): number => Math.ceil(bytes / 64) * 64;
    return float64Lengths.reduce((sum, n) => sum + line(8 * n), 0) + int32Lengths.reduce((sum, n) => sum + line(4 * n), 0);
  }

  float64(length: number): Float64Array {
    return this.take(Float64Array, length);
  }

  float32(length: number): Float32Array {
    return this.take(Float32Array, length);
  }

  int32(length: number): Int32Array {
    return this.take(Int32Array, length);
  }

  uint32(length: number): Uint32Array {
    return this.take(Uint32Array, length);
  }

  /** A copy of `array` in the memory, next after the views handed out so far. */
  copyOf<T extends Int32Array | Uint32Array | Float32Array | Float64Array>(array: T): T {
    const { length } = array;
    const copy = (
      array instanceof Float64Array
        ? this.float64(length)
        : array instanceof Float32Array
          ? this.float32(length)
          : array instanceof Int32Array
            ? this.int32(length)
            : this.uint32(length)
    ) as T;
    copy.set(array);
    return copy;
  }

  /** The next view of `length` values, and the offset moved past it to the next line. */
  private take<T extends ArrayBufferView>(
    Type: { new (buffer: ArrayBufferLike, offset: number, length: number): T; readonly BYTES_PER_ELEMENT: number },
    length: number,
  ): T {
    const view = new Type(this.buffer, this.offset, length);
    this.offset += Math.ceil((Type.BYTES_PER_ELEMENT * length) / 64) * 64;
    return view;
  }
}
