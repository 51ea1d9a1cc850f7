/**
 * The packed solve (cholesky-panels.ts) as WebAssembly with 128-bit SIMD: both passes over a range of supernodes
 * (forwardRange, backwardRange), each supernode's diagonal block and the rows below it, with the rows below
 * supernodes of two or more columns in kernels of their own (forwardBelow: gather the block's solved rows into
 * updates, scatter them; backwardBelow: gather the rows below, take their dot products with the block's columns off
 * the block's rows). They compute what the JavaScript loops compute, in the same order, without fused
 * multiply-adds, so their results are the same bit for bit; what they save is the bounds checks and the registers
 * those cost V8 (the backward loop's twelve running sums no longer spill), and half the arithmetic instructions
 * (x and y of a row in the two lanes of one vector, z alone; or two columns to a vector).
 *
 * The module is written here as bytes by a small builder (Fn below) and compiled once per runtime. It imports its
 * memory: the solve's arrays must be views of one WebAssembly.Memory, which panelMemory makes (shared when two
 * threads solve in it), and the kernels take byte offsets into it.
 *
 * Arguments of the range kernels, all byte offsets but `from` and `to` (supernodes from … to − 1):
 *   ss, bs, vs   supernodeStart, belowStart, valueStart (Int32)
 *   inv          inverseDiagonal
 *   v            values (per supernode: its triangle by rows, then panels of four columns row by row, then the
 *                last columns one at a time)
 *   x            x (three values per row), t: scratch of at least 3 × the most rows below a wide supernode
 *   rows         belowRows (Int32: 3 × a row's pivot index, an offset into x in values)
 */

type ValueType = 'i32' | 'f64' | 'v128';
const TYPE_CODE: Record<ValueType, number> = { i32: 0x7f, f64: 0x7c, v128: 0x7b };
/** Memories are at most this large here: typed arrays over them index with 32-bit offsets on every runtime. */
const MAX_PAGES = 32_768; // 2 GiB
const PAGE = 65_536;

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
 * One function of the module, written as stack-machine instructions: its parameters (all i32), its named locals,
 * structured loops. Each method appends one instruction (or a short fixed sequence) and returns the builder.
 */
class Fn {
  readonly code: number[] = [];
  private readonly slots = new Map<string, number>();
  private readonly localTypes: ValueType[] = [];

  constructor(
    readonly name: string,
    readonly params: readonly string[],
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
    if (i === undefined) throw new Error(`panel kernels: ${this.name} has no local ${n}`);
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

function section(id: number, content: number[], out: number[]): void {
  out.push(id);
  unsigned(content.length, out);
  out.push(...content);
}

/** A module that imports env.memory (shared or not, up to MAX_PAGES) and exports `fns`, each (i32 …) → (). */
function moduleBytes(fns: readonly Fn[], shared: boolean): Uint8Array<ArrayBuffer> {
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const arities = [...new Set(fns.map((f) => f.params.length))];
  const types: number[] = [];
  unsigned(arities.length, types);
  for (const arity of arities) {
    types.push(0x60);
    unsigned(arity, types);
    for (let i = 0; i < arity; i++) types.push(TYPE_CODE.i32);
    types.push(0);
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
  for (const f of fns) unsigned(arities.indexOf(f.params.length), functions);
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

/** ab += l · (x, y) and d += l · z of the row of three at `row` (l: one factor entry in both lanes). */
function accumulateRow(f: Fn, ab: string, d: string, l: string, row: string): void {
  f.get(ab).get(l).get(row).vload().vmul().vadd().set(ab);
  f.get(d).get(l).lane(0).get(row).load(16).fmul().fadd().set(d);
}

/** The row of three at `row` becomes (row − (ab, d)) · 1 / L[k][k], its inverse at `inverse`; without sums, row · it. */
function solveRow(f: Fn, row: string, inverse: string, ab: string | null = null, d: string | null = null): void {
  f.get(row).get(row).vload();
  if (ab !== null) f.get(ab).vsub();
  f.get(inverse).vloadSplat().vmul().vstore();
  f.get(row).get(row).load(16);
  if (d !== null) f.get(d).fsub();
  f.get(inverse).load().fmul().store(16);
}

/**
 * The below kernels' arguments, byte offsets but `columns` (≥ 2) and `below` (≥ 1): p, the supernode's first value
 * below its triangle; xb, x's entry of its first pivot row; t, the scratch; rows, its first entry of belowRows; x.
 */
const KERNEL_PARAMS = ['p', 'columns', 'below', 'xb', 't', 'rows', 'x'] as const;

/**
 * The forward kernel. For each panel of four columns j … j + 3 with solved rows (a_k, b_k, d_k), every row below:
 * t += ((L0·X0 + L1·X1) + L2·X2) + L3·X3 — (a, b) in one two-lane vector and d alone, as choleskyPanelForward sums
 * them; then the last columns one at a time; then x[row] −= t for each row below.
 */
function forwardBelow(): Fn {
  const f = new Fn('forwardBelow', KERNEL_PARAMS);
  f.local('i32', 'q', 'tEnd', 'c', 'cEnd', 'xi');
  f.local('v128', 'ab0', 'ab1', 'ab2', 'ab3', 'l0', 'l1', 'l2', 'l3');
  f.local('f64', 'd0', 'd1', 'd2', 'd3');
  f.get('t').get('below').i32(24).mul().add().set('tEnd');
  f.get('t').set('q');
  f.loop(
    (g) => g.get('q').get('tEnd').lessU(),
    (g) => g.get('q').f64Zero().store().step('q', 8),
  );
  f.get('xb').set('c');
  f.get('xb').get('columns').i32(24).mul().add().set('cEnd');
  f.loop(
    (g) => g.get('c').i32(96).add().get('cEnd').lessEqualU(),
    (g) => {
      for (let k = 0; k < 4; k++)
        g.get('c')
          .vload(24 * k)
          .set(`ab${k}`)
          .get('c')
          .load(24 * k + 16)
          .set(`d${k}`);
      g.get('t').set('q');
      g.loop(
        (h) => h.get('q').get('tEnd').lessU(),
        (h) => {
          for (let k = 0; k < 4; k++)
            h.get('p')
              .vloadSplat(8 * k)
              .set(`l${k}`);
          h.get('q').get('q').vload();
          h.get('l0').get('ab0').vmul().get('l1').get('ab1').vmul().vadd();
          h.get('l2').get('ab2').vmul().vadd().get('l3').get('ab3').vmul().vadd();
          h.vadd().vstore();
          h.get('q').get('q').load(16);
          h.get('l0').lane(0).get('d0').fmul().get('l1').lane(0).get('d1').fmul().fadd();
          h.get('l2').lane(0).get('d2').fmul().fadd().get('l3').lane(0).get('d3').fmul().fadd();
          h.fadd().store(16);
          h.step('p', 32).step('q', 24);
        },
      );
      g.step('c', 96);
    },
  );
  f.loop(
    (g) => g.get('c').get('cEnd').lessU(),
    (g) => {
      g.get('c').vload().set('ab0').get('c').load(16).set('d0');
      g.get('t').set('q');
      g.loop(
        (h) => h.get('q').get('tEnd').lessU(),
        (h) => {
          h.get('p').vloadSplat().set('l0');
          h.get('q').get('q').vload().get('l0').get('ab0').vmul().vadd().vstore();
          h.get('q').get('q').load(16).get('l0').lane(0).get('d0').fmul().fadd().store(16);
          h.step('p', 8).step('q', 24);
        },
      );
      g.step('c', 24);
    },
  );
  f.get('t').set('q');
  f.loop(
    (g) => g.get('q').get('tEnd').lessU(),
    (g) => {
      g.get('x').get('rows').loadI32().i32(8).mul().add().set('xi');
      g.get('xi').get('xi').vload().get('q').vload().vsub().vstore();
      g.get('xi').get('xi').load(16).get('q').load(16).fsub().store(16);
      g.step('q', 24).step('rows', 4);
    },
  );
  return f;
}

/**
 * The backward kernel. Gathers each row below into t; for each panel of four columns, twelve sums over the rows,
 * two columns to a vector: (s_j, s_{j+1}) += (L_j, L_{j+1}) · t_c for c = a, b, d, in row order as
 * choleskyPanelBackward adds them; x_{j+k} −= s_{j+k}; then the last columns one at a time.
 */
function backwardBelow(): Fn {
  const f = new Fn('backwardBelow', KERNEL_PARAMS);
  f.local('i32', 'q', 'tEnd', 'c', 'cEnd', 'xi');
  f.local('v128', 'l01', 'l23', 'u', 'w', 'z', 'a01', 'a23', 'b01', 'b23', 'd01', 'd23');
  f.local('f64', 'd');
  f.get('t').get('below').i32(24).mul().add().set('tEnd');
  f.get('t').set('q');
  f.loop(
    (g) => g.get('q').get('tEnd').lessU(),
    (g) => {
      g.get('x').get('rows').loadI32().i32(8).mul().add().set('xi');
      g.get('q').get('xi').vload().vstore();
      g.get('q').get('xi').load(16).store(16);
      g.step('q', 24).step('rows', 4);
    },
  );
  f.get('xb').set('c');
  f.get('xb').get('columns').i32(24).mul().add().set('cEnd');
  const sums = [
    ['a01', 'b01', 'd01'],
    ['a23', 'b23', 'd23'],
  ];
  f.loop(
    (g) => g.get('c').i32(96).add().get('cEnd').lessEqualU(),
    (g) => {
      for (const s of sums.flat()) g.vzero().set(s);
      g.get('t').set('q');
      g.loop(
        (h) => h.get('q').get('tEnd').lessU(),
        (h) => {
          h.get('p').vload().set('l01').get('p').vload(16).set('l23');
          h.get('q').vloadSplat().set('u').get('q').vloadSplat(8).set('w').get('q').vloadSplat(16).set('z');
          ['u', 'w', 'z'].forEach((value, m) => {
            h.get(sums[0][m]).get('l01').get(value).vmul().vadd().set(sums[0][m]);
            h.get(sums[1][m]).get('l23').get(value).vmul().vadd().set(sums[1][m]);
          });
          h.step('p', 32).step('q', 24);
        },
      );
      for (let k = 0; k < 4; k++) {
        for (let m = 0; m < 3; m++) {
          const offset = 24 * k + 8 * m;
          g.get('c')
            .get('c')
            .load(offset)
            .get(sums[k >> 1][m])
            .lane((k & 1) as 0 | 1)
            .fsub()
            .store(offset);
        }
      }
      g.step('c', 96);
    },
  );
  f.loop(
    (g) => g.get('c').get('cEnd').lessU(),
    (g) => {
      g.vzero().set('a01').f64Zero().set('d');
      g.get('t').set('q');
      g.loop(
        (h) => h.get('q').get('tEnd').lessU(),
        (h) => {
          h.get('p').vloadSplat().set('l01');
          accumulateRow(h, 'a01', 'd', 'l01', 'q');
          h.step('p', 8).step('q', 24);
        },
      );
      g.get('c').get('c').load().get('a01').lane(0).fsub().store();
      g.get('c').get('c').load(8).get('a01').lane(1).fsub().store(8);
      g.get('c').get('c').load(16).get('d').fsub().store(16);
      g.step('c', 24);
    },
  );
  return f;
}

const RANGE_PARAMS = ['from', 'to', 'ss', 'bs', 'vs', 'inv', 'v', 'x', 't', 'rows'] as const;
const FORWARD_BELOW = 0;
const BACKWARD_BELOW = 1;

/** Loads supernode s's first pivot, columns, first row below and rows below into locals. */
function supernodeHeader(f: Fn): void {
  f.get('ss').get('s').i32(4).mul().add().set('a');
  f.get('a').loadI32().set('first');
  f.get('a').loadI32(4).get('first').sub().set('columns');
  f.get('bs').get('s').i32(4).mul().add().set('a');
  f.get('a').loadI32().set('rowStart');
  f.get('a').loadI32(4).get('rowStart').sub().set('below');
  f.get('x').get('first').i32(24).mul().add().set('xb');
  f.get('inv').get('first').i32(8).mul().add().set('ip');
}

/**
 * The forward pass over supernodes from … to − 1, choleskyPanelForward's loop: the diagonal block's rows
 * (x_j = (b_j − Σ_{k<j} L[j][k] x_k) / L[j][j], (x, y) in one vector and z alone), then the rows below — scattered
 * one by one for a single column, by forwardBelow for more.
 */
function forwardRange(): Fn {
  const f = new Fn('forwardRange', RANGE_PARAMS);
  f.local('i32', 's', 'a', 'first', 'columns', 'rowStart', 'below', 'xb', 'ip', 'p', 'xj', 'xk', 'ij', 'q', 'qEnd', 'xi');
  f.local('v128', 'ab', 'l');
  f.local('f64', 'c');
  f.get('from').set('s');
  f.loop(
    (g) => g.get('s').get('to').lessU(),
    (g) => {
      supernodeHeader(g);
      g.get('v').get('vs').get('s').i32(4).mul().add().loadI32().i32(8).mul().add().set('p');
      solveRow(g, 'xb', 'ip');
      g.get('xb').i32(24).add().set('xj');
      g.get('ip').i32(8).add().set('ij');
      g.get('xb').get('columns').i32(24).mul().add().set('a'); // the block's end in x
      g.loop(
        (h) => h.get('xj').get('a').lessU(),
        (h) => {
          h.vzero().set('ab').f64Zero().set('c');
          h.get('xb').set('xk');
          h.loop(
            (k) => k.get('xk').get('xj').lessU(),
            (k) => {
              k.get('p').vloadSplat().set('l');
              accumulateRow(k, 'ab', 'c', 'l', 'xk');
              k.step('p', 8).step('xk', 24);
            },
          );
          solveRow(h, 'xj', 'ij', 'ab', 'c');
          h.step('xj', 24).step('ij', 8);
        },
      );
      g.get('below').i32(0).greaterU();
      g.when((h) => {
        h.get('columns').i32(1).equal();
        h.when(
          (k) => {
            k.get('xb').vload().set('ab').get('xb').load(16).set('c');
            k.get('rows').get('rowStart').i32(4).mul().add().set('q');
            k.get('q').get('below').i32(4).mul().add().set('qEnd');
            k.loop(
              (m) => m.get('q').get('qEnd').lessU(),
              (m) => {
                m.get('p').vloadSplat().set('l');
                m.get('x').get('q').loadI32().i32(8).mul().add().set('xi');
                m.get('xi').get('xi').vload().get('l').get('ab').vmul().vsub().vstore();
                m.get('xi').get('xi').load(16).get('l').lane(0).get('c').fmul().fsub().store(16);
                m.step('p', 8).step('q', 4);
              },
            );
          },
          (k) => {
            k.get('p').get('columns').get('below').get('xb').get('t');
            k.get('rows').get('rowStart').i32(4).mul().add().get('x').call(FORWARD_BELOW);
          },
        );
      });
      g.step('s', 1);
    },
  );
  return f;
}

/**
 * The backward pass over supernodes to − 1 down to from, choleskyPanelBackward's loop: a single column's dot
 * product with its rows below, or backwardBelow and then the diagonal block's rows from the last, two at a time.
 */
function backwardRange(): Fn {
  const f = new Fn('backwardRange', RANGE_PARAMS);
  f.local('i32', 's', 'a', 'first', 'columns', 'rowStart', 'below', 'xb', 'ip', 'p', 'q', 'qEnd', 'yi', 'i', 'rowEnd');
  f.local('i32', 'upper', 'lower', 'xi', 'xh', 'xk', 'k');
  f.local('v128', 'ab', 'l', 'm', 'e');
  f.local('f64', 'd', 'g', 'li');
  f.get('to').set('s');
  f.loop(
    (b) => b.get('s').get('from').greaterU(),
    (b) => {
      b.get('s').i32(1).sub().set('s');
      supernodeHeader(b);
      // p and rowEnd: where the rows below begin (after the triangle's c (c − 1) / 2 entries)
      b.get('v').get('vs').get('s').i32(4).mul().add().loadI32();
      b.get('columns').get('columns').i32(1).sub().mul().half().add().i32(8).mul().add().set('p');
      b.get('p').set('rowEnd');
      b.get('columns').i32(1).equal();
      b.when(
        (h) => {
          h.vzero().set('ab').f64Zero().set('d');
          h.get('rows').get('rowStart').i32(4).mul().add().set('q');
          h.get('q').get('below').i32(4).mul().add().set('qEnd');
          h.loop(
            (m) => m.get('q').get('qEnd').lessU(),
            (m) => {
              m.get('p').vloadSplat().set('l');
              m.get('x').get('q').loadI32().i32(8).mul().add().set('yi');
              accumulateRow(m, 'ab', 'd', 'l', 'yi');
              m.step('p', 8).step('q', 4);
            },
          );
          solveRow(h, 'xb', 'ip', 'ab', 'd');
        },
        (h) => {
          h.get('below').i32(0).greaterU();
          h.when((k) => {
            k.get('p').get('columns').get('below').get('xb').get('t');
            k.get('rows').get('rowStart').i32(4).mul().add().get('x').call(BACKWARD_BELOW);
          });
          // Rows i and i − 1 of the block together, from the last: see choleskyPanelBackward.
          h.get('columns').i32(1).sub().set('i');
          h.loop(
            (m) => m.get('i').i32(1).greaterEqualS(),
            (m) => {
              m.get('rowEnd').get('i').i32(8).mul().sub().set('upper');
              m.get('upper').get('i').i32(1).sub().i32(8).mul().sub().set('lower');
              m.get('xb').get('i').i32(24).mul().add().set('xi');
              m.get('ip').get('i').i32(8).mul().add().set('q'); // &inverse[first + i]
              m.get('xi').vload().get('q').vloadSplat().vmul().set('ab');
              m.get('xi').load(16).get('q').load().fmul().set('d');
              m.get('xi').get('ab').vstore().get('xi').get('d').store(16);
              m.get('upper').get('i').i32(1).sub().i32(8).mul().add().load().set('li');
              m.get('xi').i32(24).sub().set('xh');
              m.get('li').splat().set('l');
              // e = (x_{i−1} − L[i][i−1] a) / L[i−1][i−1], whose inverse is the entry before q
              m.get('q').i32(8).sub().set('qEnd');
              m.get('xh').vload().get('l').get('ab').vmul().vsub().get('qEnd').vloadSplat().vmul().set('e');
              m.get('xh').load(16).get('li').get('d').fmul().fsub().get('qEnd').load().fmul().set('g');
              m.get('xh').get('e').vstore().get('xh').get('g').store(16);
              m.i32(0).set('k');
              m.get('xb').set('xk');
              m.loop(
                (n) => n.get('k').get('i').i32(1).sub().lessU(),
                (n) => {
                  n.get('upper').get('k').i32(8).mul().add().set('yi');
                  n.get('yi').vloadSplat().set('l');
                  n.get('lower').get('k').i32(8).mul().add().vloadSplat().set('m');
                  n.get('xk').get('xk').vload().get('l').get('ab').vmul().get('m').get('e').vmul().vadd().vsub().vstore();
                  n.get('xk').get('xk').load(16);
                  n.get('l').lane(0).get('d').fmul().get('m').lane(0).get('g').fmul().fadd().fsub().store(16);
                  n.step('k', 1).step('xk', 24);
                },
              );
              m.get('lower').set('rowEnd');
              m.get('i').i32(2).sub().set('i');
            },
          );
          h.get('i').i32(0).equal();
          h.when((k) => {
            solveRow(k, 'xb', 'ip');
          });
        },
      );
    },
  );
  return f;
}

/** The range kernels of one instance, on its memory (see the module comment for the arguments). */
export interface PanelKernels {
  readonly memory: WebAssembly.Memory;
  /** choleskyPanelForward over supernodes from … to − 1; the other arguments are the arrays' byte offsets */
  forwardRange(
    from: number,
    to: number,
    ss: number,
    bs: number,
    vs: number,
    inv: number,
    v: number,
    x: number,
    t: number,
    rows: number,
  ): void;
  /** choleskyPanelBackward over supernodes to − 1 down to from */
  backwardRange(
    from: number,
    to: number,
    ss: number,
    bs: number,
    vs: number,
    inv: number,
    v: number,
    x: number,
    t: number,
    rows: number,
  ): void;
}

const compiled: { plain?: WebAssembly.Module | null; shared?: WebAssembly.Module | null } = {};

/** The module for plain or shared memories, compiled once; null where this runtime has no WebAssembly SIMD. */
function kernelModule(shared: boolean): WebAssembly.Module | null {
  const key = shared ? 'shared' : 'plain';
  let module = compiled[key];
  if (module === undefined) {
    module = null;
    try {
      // Small enough (2.7 kB; browsers compile up to 4 kB synchronously even on a page) to compile where it is used.
      const bytes = moduleBytes([forwardBelow(), backwardBelow(), forwardRange(), backwardRange()], shared);
      if (typeof WebAssembly === 'object' && WebAssembly.validate(bytes)) module = new WebAssembly.Module(bytes);
    } catch {
      module = null; // no WebAssembly (or not allowed to compile it here): the JavaScript loops solve alone
    }
    compiled[key] = module;
  }
  return module;
}

/**
 * A WebAssembly memory of at least `bytes` bytes that never grows (so views of it stay valid), shared between
 * threads or not; null where WebAssembly with SIMD is unavailable or the size is over 2 GiB — the solve then keeps
 * its arrays in ordinary buffers and its JavaScript loops.
 */
export function panelMemory(bytes: number, shared: boolean): WebAssembly.Memory | null {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  if (pages > MAX_PAGES || kernelModule(shared) === null) return null;
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
  } catch {
    return null; // out of memory for one block this size: ordinary buffers may still fit
  }
}

/**
 * The kernels instantiated on a memory from panelMemory (on this thread; another thread instantiates its own on
 * the same shared memory).
 */
export function panelKernels(memory: WebAssembly.Memory): PanelKernels {
  const shared = typeof SharedArrayBuffer === 'function' && memory.buffer instanceof SharedArrayBuffer;
  const module = kernelModule(shared);
  if (module === null) throw new Error('panelKernels: WebAssembly SIMD is not available here');
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const exports = instance.exports as unknown as Omit<PanelKernels, 'memory'>;
  return { memory, forwardRange: exports.forwardRange, backwardRange: exports.backwardRange };
}

/** Hands out typed arrays of one memory one after another, each starting on a 64-byte line. */
export class MemoryCarver {
  private offset = 0;

  constructor(readonly buffer: ArrayBufferLike) {}

  /** The bytes that views of these many 8-byte and 4-byte values take, each rounded up to whole lines. */
  static bytes(float64Lengths: readonly number[], int32Lengths: readonly number[]): number {
    const line = (bytes: number): number => Math.ceil(bytes / 64) * 64;
    return float64Lengths.reduce((sum, n) => sum + line(8 * n), 0) + int32Lengths.reduce((sum, n) => sum + line(4 * n), 0);
  }

  float64(length: number): Float64Array {
    const view = new Float64Array(this.buffer, this.offset, length);
    this.offset += Math.ceil((8 * length) / 64) * 64;
    return view;
  }

  int32(length: number): Int32Array {
    const view = new Int32Array(this.buffer, this.offset, length);
    this.offset += Math.ceil((4 * length) / 64) * 64;
    return view;
  }

  /** A copy of `array` in the memory, next after the views handed out so far. */
  copyOf<T extends Int32Array | Float64Array>(array: T): T {
    const copy = (array instanceof Int32Array ? this.int32(array.length) : this.float64(array.length)) as T;
    copy.set(array);
    return copy;
  }
}
