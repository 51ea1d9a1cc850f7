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
 * The module is written here as bytes with the builder of wasm-module.ts and compiled once per runtime. It imports its
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

import { compileModule, Fn, MAX_PAGES, moduleBytes, PAGE } from './wasm-module.ts';

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

/**
 * Packing one supernode (choleskyPanels in place): its block at `src` (column-major, `ld` rows, `columns` columns;
 * byte offset) becomes at `dst` its triangle by rows, then its rows below in panels of four columns side by side,
 * then the last columns one at a time, as packSupernodes writes them. `dst` lies before `src`'s block or far enough
 * that nothing is read after it is overwritten (the caller copies a block whose packed entries reach into it).
 */
function packBlock(): Fn {
  const f = new Fn('packBlock', ['src', 'columns', 'ld', 'dst']);
  f.local('i32', 'j', 'k', 'c', 'c1', 'c2', 'c3', 'end', 'stride');
  f.get('ld').i32(8).mul().set('stride');
  f.i32(1).set('j');
  f.loop(
    (g) => g.get('j').get('columns').lessU(),
    (g) => {
      // row j of the triangle: L[j][k] for k < j, at src + (k ld + j) · 8
      g.get('src').get('j').i32(8).mul().add().set('c');
      g.i32(0).set('k');
      g.loop(
        (h) => h.get('k').get('j').lessU(),
        (h) => {
          h.get('dst').get('c').load().store();
          h.step('dst', 8).step('k', 1);
          h.get('c').get('stride').add().set('c');
        },
      );
      g.step('j', 1);
    },
  );
  f.i32(0).set('j');
  f.loop(
    (g) => g.get('j').i32(4).add().get('columns').lessEqualU(),
    (g) => {
      g.get('src').get('j').get('stride').mul().add().get('columns').i32(8).mul().add().set('c');
      g.get('c').get('stride').add().set('c1');
      g.get('c1').get('stride').add().set('c2');
      g.get('c2').get('stride').add().set('c3');
      g.get('src').get('j').i32(1).add().get('stride').mul().add().set('end'); // where column j's rows below end
      g.loop(
        (h) => h.get('c').get('end').lessU(),
        (h) => {
          h.get('dst').get('c').load().store();
          h.get('dst').get('c1').load().store(8);
          h.get('dst').get('c2').load().store(16);
          h.get('dst').get('c3').load().store(24);
          h.step('dst', 32).step('c', 8).step('c1', 8).step('c2', 8).step('c3', 8);
        },
      );
      g.step('j', 4);
    },
  );
  f.loop(
    (g) => g.get('j').get('columns').lessU(),
    (g) => {
      g.get('src').get('j').get('stride').mul().add().get('columns').i32(8).mul().add().set('c');
      g.get('src').get('j').i32(1).add().get('stride').mul().add().set('end');
      g.loop(
        (h) => h.get('c').get('end').lessU(),
        (h) => {
          h.get('dst').get('c').load().store();
          h.step('dst', 8).step('c', 8);
        },
      );
      g.step('j', 1);
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
  /**
   * The memory's buffer when the kernels were instantiated: the arrays they take are views of it (a shared memory
   * that grows later hands out a new buffer object for the same bytes; views made before stay views of this one)
   */
  readonly buffer: ArrayBufferLike;
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
  /** One supernode's block at byte offset src (ld rows, columns columns) packed at byte offset dst (see packBlock) */
  packBlock(src: number, columns: number, ld: number, dst: number): void;
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
    // 2.9 kB: small enough to compile where it is used.
    module = compileModule(moduleBytes([forwardBelow(), backwardBelow(), forwardRange(), backwardRange(), packBlock()], shared));
    compiled[key] = module;
  }
  return module;
}

/**
 * A WebAssembly memory of at least `bytes` bytes, shared between threads or not; null where WebAssembly with SIMD is
 * unavailable or the size is over 2 GiB — the solve then keeps its arrays in ordinary buffers and its JavaScript
 * loops. It never grows (views of a memory that grows are detached), unless it is shared and `growable`: a shared
 * memory may grow up to 2 GiB, its views staying valid.
 */
export function panelMemory(bytes: number, shared: boolean, growable = false): WebAssembly.Memory | null {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  if (pages > MAX_PAGES || kernelModule(shared) === null) return null;
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: shared && growable ? MAX_PAGES : pages, shared });
  } catch {
    return null; // out of memory for one block this size: ordinary buffers may still fit
  }
}

/**
 * The kernels instantiated on a memory from panelMemory (on this thread; another thread instantiates its own on
 * the same shared memory).
 * @param buffer  the buffer object whose views they take: memory.buffer, or one taken from it before (of a shared
 *                memory that another thread may grow meanwhile, which gives memory.buffer a new object)
 */
export function panelKernels(memory: WebAssembly.Memory, buffer: ArrayBufferLike = memory.buffer): PanelKernels {
  const shared = typeof SharedArrayBuffer === 'function' && memory.buffer instanceof SharedArrayBuffer;
  const module = kernelModule(shared);
  if (module === null) throw new Error('panelKernels: WebAssembly SIMD is not available here');
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const exports = instance.exports as unknown as Omit<PanelKernels, 'memory'>;
  return { memory, buffer, forwardRange: exports.forwardRange, backwardRange: exports.backwardRange, packBlock: exports.packBlock };
}
