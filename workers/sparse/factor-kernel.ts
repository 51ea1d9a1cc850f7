/**
 * The supernodal numeric factorization's loop (factorSupernodes in cholesky-numeric.ts) as WebAssembly with 128-bit
 * SIMD. It runs the same left-looking algorithm on the same layout: for each supernode, its descendants' updates
 * (each entry's dot product summed in registers over the descendant's columns in order, two update columns in the
 * lanes of one vector, four columns and two rows at a time where the update is that wide), then the dense
 * factorization of its own block (its first columns one at a time, then pairs, the columns before a pair acting as
 * its descendant). Each entry sums its products in the same order as the JavaScript loop where a descendant has at
 * most four columns and for a block's first four columns, so a mesh Laplacian's many small supernodes factor to the
 * same bits; wider ones differ from it in round-off only.
 *
 * What it saves is the interpreter and the compile: a process's first factorization runs in code compiled from
 * these bytes in about a millisecond, where V8 runs the JavaScript loop unoptimized until it has compiled it; and,
 * warm, the bounds checks on every entry and half the arithmetic instructions. The module (4.7 kB) is written with
 * the builder of wasm-module.ts, kept here as base64 (FACTOR_MODULE_BASE64, checked against the builder by a unit
 * test: the builder would take a process's first call several milliseconds), and compiled once per runtime. A
 * page's main thread may not compile a module over 4 kB synchronously: there the JavaScript loop runs; workers and
 * Node compile it.
 */
import type { CholeskySymbolic } from './cholesky-symbolic.ts';
import { Fn, kernelMemoriesOf, moduleBytes, SCRATCH_BYTES } from './wasm-module.ts';

/** The same threshold as the JavaScript loop's (cholesky-numeric.ts): a pivot below it is lost to cancellation. */
export const PIVOT_CANCELLATION = 1e-13;

/** Columns of a block factored one at a time against each earlier one (the JavaScript loop's order); past them, pairs. */
const NARROW_BLOCK = 4;

const MAIN = 0;
const UPDATE = 1;
const BLOCK = 2;

/** address = base + index · size (index: the i32 on the stack) */
function at(f: Fn, base: string, size: number): Fn {
  return f.i32(size).mul().get(base).add();
}

/**
 * update(top, ld8, columns, height, width, base, rowCount8, relative): subtracts a descendant's update from a
 * supernode's block. `top`: the byte address of the descendant's entry (i0, 0), its columns ld8 bytes apart;
 * `height` rows from there, the first `width` of them in the supernode's columns; `base`: the supernode's block,
 * its columns rowCount8 bytes apart; `relative`: the block row of each of the update's rows (Int32).
 */
function update(): Fn {
  const f = new Fn('update', ['top', 'ld8', 'columns', 'height', 'width', 'base', 'rowCount8', 'relative']);
  f.local('i32', 'j', 'i', 'tj', 'tk', 'tl', 'tm', 'r', 'p', 'q', 'k');
  f.local('f64', 'a', 'sum');
  f.local('v128', 'ab', 'de', 'x', 'y', 'acc', 'acc2', 'acc3', 'acc4');
  /** the block row of the update's row in local `i`, times 8 */
  const row8 = (g: Fn): Fn => at(g.get('i'), 'relative', 4).loadI32().i32(8).mul().set('r');
  /** target column address of the update's column j + plus */
  const column = (g: Fn, plus: number): Fn => {
    at(g.get('j'), 'relative', 4).loadI32(4 * plus);
    return g.get('rowCount8').mul().get('base').add();
  };
  /** *(target + r) −= value of the f64 on the stack */
  const subtractAt = (g: Fn, target: string, value: (h: Fn) => unknown): void => {
    g.get(target).get('r').add().get(target).get('r').add().load();
    value(g);
    g.fsub().store();
  };
  /** the lanes of vector `acc` subtracted at row r of target columns `low` and `high` (high null: lane 0 only) */
  const subtractLanes = (g: Fn, acc: string, low: string, high: string | null): void => {
    subtractAt(g, low, (m) => m.get(acc).lane(0));
    if (high !== null) subtractAt(g, high, (m) => m.get(acc).lane(1));
  };
  /**
   * Dot products over the descendant's columns, in order: p at L[i, 0], q at L[j, 0] (+ 8·o when o is given), `terms` emitting the
   * first column's products (first = true) and then each next column's, added (p and q moved on by ld8 between).
   */
  const sums = (g: Fn, o: number | null, terms: (h: Fn, first: boolean) => void): void => {
    at(g.get('i'), 'top', 8).set('p');
    at(g.get('j'), 'top', 8);
    if (o !== null) g.i32(8 * o).add();
    g.set('q');
    terms(g, true);
    g.i32(1).set('k');
    g.loop(
      (h) => h.get('k').get('columns').lessU(),
      (h) => {
        h.get('p').get('ld8').add().set('p');
        h.get('q').get('ld8').add().set('q');
        terms(h, false);
        h.step('k', 1);
      },
    );
  };
  /** acc = (or +=) the product, for vectors (vmul, vadd) or f64 (fmul, fadd) */
  const accumulate = (h: Fn, acc: string, first: boolean, product: (m: Fn) => unknown, vector: boolean): void => {
    if (!first) h.get(acc);
    product(h);
    if (!first && vector) h.vadd();
    else if (!first) h.fadd();
    h.set(acc);
  };
  /** acc = Σ_k L[i, k] · (L[j + o, k], L[j + o + 1, k]) (o: 0 or 2) */
  const pairSum = (g: Fn, o = 0): void =>
    sums(g, o, (h, first) => accumulate(h, 'acc', first, (m) => m.get('p').load().splat().get('q').vload().vmul(), true));
  /** pairSum for rows i (acc) and i + 1 (acc2) at once: each (L[j, k], L[j + 1, k]) loaded serves both */
  const pairSums = (g: Fn): void =>
    sums(g, null, (h, first) => {
      h.get('q').vload().set('ab');
      accumulate(h, 'acc', first, (m) => m.get('p').load().splat().get('ab').vmul(), true);
      accumulate(h, 'acc2', first, (m) => m.get('p').load(8).splat().get('ab').vmul(), true);
    });
  /**
   * pairSums for columns j, j + 1 (acc: row i, acc2: row i + 1) and j + 2, j + 3 (acc3, acc4) at once: each entry
   * of the descendant loaded serves four products
   */
  const quadSums = (g: Fn): void =>
    sums(g, null, (h, first) => {
      h.get('q').vload().set('ab');
      h.get('q').vload(16).set('de');
      h.get('p').load().splat().set('x');
      h.get('p').load(8).splat().set('y');
      for (const [acc, row, pair] of [
        ['acc', 'x', 'ab'],
        ['acc2', 'y', 'ab'],
        ['acc3', 'x', 'de'],
        ['acc4', 'y', 'de'],
      ]) {
        accumulate(h, acc, first, (m) => m.get(row).get(pair).vmul(), true);
      }
    });
  /** sum = Σ_k L[i, k] · L[j, k] */
  const columnSum = (g: Fn): void =>
    sums(g, null, (h, first) => accumulate(h, 'sum', first, (m) => m.get('p').load().get('q').load().fmul(), false));
  f.i32(0).set('j');
  f.get('columns').i32(1).equal();
  f.when(
    (g) => {
      // One column: (L[j], L[j + 1]) stays in a register for the whole pair.
      g.loop(
        (h) => h.get('j').i32(1).add().get('width').lessU(),
        (h) => {
          column(h, 0).set('tj');
          column(h, 1).set('tk');
          at(h.get('j'), 'top', 8).vload().set('ab');
          h.get('j').set('i');
          row8(h);
          subtractAt(h, 'tj', (k) => at(k.get('i'), 'top', 8).load().get('ab').lane(0).fmul());
          h.step('i', 1);
          h.loop(
            (k) => k.get('i').get('height').lessU(),
            (k) => {
              row8(k);
              at(k.get('i'), 'top', 8).load().splat().get('ab').vmul().set('acc');
              subtractLanes(k, 'acc', 'tj', 'tk');
              k.step('i', 1);
            },
          );
          h.step('j', 2);
        },
      );
      g.get('j').get('width').lessU();
      g.when((h) => {
        column(h, 0).set('tj');
        at(h.get('j'), 'top', 8).load().set('a');
        h.get('j').set('i');
        h.loop(
          (k) => k.get('i').get('height').lessU(),
          (k) => {
            row8(k);
            subtractAt(k, 'tj', (m) => at(m.get('i'), 'top', 8).load().get('a').fmul());
            k.step('i', 1);
          },
        );
      });
    },
    (g) => {
      // Four update columns at a time: rows j … j + 2 (the triangle) by pairs, the rows below two at a time.
      g.loop(
        (h) => h.get('j').i32(3).add().get('width').lessU(),
        (h) => {
          column(h, 0).set('tj');
          column(h, 1).set('tk');
          column(h, 2).set('tl');
          column(h, 3).set('tm');
          h.get('j').set('i');
          row8(h);
          pairSum(h);
          subtractLanes(h, 'acc', 'tj', null);
          h.step('i', 1);
          row8(h);
          pairSum(h);
          subtractLanes(h, 'acc', 'tj', 'tk');
          h.step('i', 1);
          row8(h);
          pairSum(h);
          subtractLanes(h, 'acc', 'tj', 'tk');
          pairSum(h, 2);
          subtractLanes(h, 'acc', 'tl', null);
          h.step('i', 1);
          h.loop(
            (k) => k.get('i').i32(1).add().get('height').lessU(),
            (k) => {
              quadSums(k);
              for (const [acc, next] of [
                ['acc', 'acc3'],
                ['acc2', 'acc4'],
              ]) {
                row8(k);
                subtractLanes(k, acc, 'tj', 'tk');
                subtractLanes(k, next, 'tl', 'tm');
                k.step('i', 1);
              }
            },
          );
          h.get('i').get('height').lessU();
          h.when((k) => {
            row8(k);
            pairSum(k);
            subtractLanes(k, 'acc', 'tj', 'tk');
            pairSum(k, 2);
            subtractLanes(k, 'acc', 'tl', 'tm');
          });
          h.step('j', 4);
        },
      );
      g.loop(
        (h) => h.get('j').i32(1).add().get('width').lessU(),
        (h) => {
          column(h, 0).set('tj');
          column(h, 1).set('tk');
          h.get('j').set('i');
          row8(h);
          pairSum(h);
          subtractLanes(h, 'acc', 'tj', null);
          h.step('i', 1);
          h.loop(
            (k) => k.get('i').i32(1).add().get('height').lessU(),
            (k) => {
              pairSums(k);
              for (const acc of ['acc', 'acc2']) {
                row8(k);
                subtractLanes(k, acc, 'tj', 'tk');
                k.step('i', 1);
              }
            },
          );
          h.get('i').get('height').lessU();
          h.when((k) => {
            row8(k);
            pairSum(k);
            subtractLanes(k, 'acc', 'tj', 'tk');
          });
          h.step('j', 2);
        },
      );
      g.get('j').get('width').lessU();
      g.when((h) => {
        column(h, 0).set('tj');
        h.get('j').set('i');
        h.loop(
          (k) => k.get('i').get('height').lessU(),
          (k) => {
            row8(k);
            columnSum(k);
            subtractAt(k, 'tj', (m) => m.get('sum'));
            k.step('i', 1);
          },
        );
      });
    },
  );
  return f;
}

/**
 * factorBlock(base, ld, columns, first, od, relative): the dense left-looking Cholesky of a supernode's ld × columns
 * block at byte address `base` (column-major), each column updated by every column before it, its pivot checked
 * against PIVOT_CANCELLATION of the original diagonal entry (od: Float64, by column), square-rooted, the rows below
 * scaled. The first NARROW_BLOCK columns take the earlier ones one at a time (two rows to a vector); after them,
 * columns go in pairs, the columns before a pair being its descendant in update() (its dot products summed in
 * registers, two rows at a time, one store per entry), the pair's second column then updated by its first.
 * `relative`: Int32 scratch of ld entries. Returns −1, or the first column whose pivot fails (left as it was, for the
 * error to report).
 */
function factorBlock(): Fn {
  const f = new Fn('factorBlock', ['base', 'ld', 'columns', 'first', 'od', 'relative'], 'i32');
  f.local('i32', 'j', 't', 'cj', 'ct', 'i8', 'end8', 'ld8', 'width');
  f.local('f64', 'a', 'pivot', 'inverse');
  f.local('v128', 'av');
  f.get('ld').i32(8).mul().set('ld8');
  f.get('ld8').set('end8');
  /** column cj from byte i8 to end8: x = x ∘ op, pairs then the last row alone */
  const rowsFrom = (g: Fn, pair: (h: Fn) => unknown, single: (h: Fn) => unknown): void => {
    g.loop(
      (h) => h.get('i8').i32(8).add().get('end8').lessU(),
      (h) => {
        pair(h);
        h.step('i8', 16);
      },
    );
    g.get('i8').get('end8').lessU();
    g.when((h) => single(h));
  };
  /** column cj −= column ct · a from row i8 / 8 down (a in local `a`, nothing when it is zero) */
  const axpy = (g: Fn): void => {
    g.get('a').f64Zero().fnotEqual();
    g.when((k) => {
      k.get('a').splat().set('av');
      rowsFrom(
        k,
        (m) => {
          m.get('cj').get('i8').add();
          m.get('cj').get('i8').add().vload();
          m.get('ct').get('i8').add().vload().get('av').vmul().vsub().vstore();
        },
        (m) => {
          m.get('cj').get('i8').add();
          m.get('cj').get('i8').add().load();
          m.get('ct').get('i8').add().load().get('a').fmul().fsub().store();
        },
      );
    });
  };
  /** column j (at cj), updated by every column before it: its pivot checked and square-rooted, the rest scaled */
  const finish = (g: Fn): void => {
    at(g.get('j'), 'cj', 8).load().set('pivot');
    g.get('pivot');
    g.f64(PIVOT_CANCELLATION);
    at(g.get('first').get('j').add(), 'od', 8).load().fabs().fmul();
    g.fgreater().get('pivot').f64(Infinity).fnotEqual().and().i32(0).equal();
    g.when((h) => h.get('first').get('j').add().ret());
    g.get('pivot').fsqrt().set('pivot');
    at(g.get('j'), 'cj', 8).get('pivot').store();
    g.f64(1).get('pivot').fdiv().set('inverse');
    g.get('inverse').splat().set('av');
    g.get('j').i32(1).add().i32(8).mul().set('i8');
    rowsFrom(
      g,
      (m) => {
        m.get('cj').get('i8').add();
        m.get('cj').get('i8').add().vload().get('av').vmul().vstore();
      },
      (m) => {
        m.get('cj').get('i8').add();
        m.get('cj').get('i8').add().load().get('inverse').fmul().store();
      },
    );
  };
  // Past the narrow columns, the columns before a pair are its descendant: update() maps the block onto itself.
  f.get('columns').i32(NARROW_BLOCK).greaterU();
  f.when((g) => {
    g.i32(0).set('t');
    g.loop(
      (h) => h.get('t').get('ld').lessU(),
      (h) => {
        at(h.get('t'), 'relative', 4).get('t').storeI32();
        h.step('t', 1);
      },
    );
  });
  f.i32(0).set('j');
  f.loop(
    (g) => g.get('j').get('columns').lessU(),
    (g) => {
      g.get('j').get('ld8').mul().get('base').add().set('cj');
      g.get('j').i32(NARROW_BLOCK).lessU();
      g.when(
        (h) => {
          // A narrow column: each column before it subtracted in turn, as the JavaScript loop does.
          h.get('base').set('ct');
          h.i32(0).set('t');
          h.loop(
            (k) => k.get('t').get('j').lessU(),
            (k) => {
              at(k.get('j'), 'ct', 8).load().set('a');
              k.get('j').i32(8).mul().set('i8');
              axpy(k);
              k.get('ct').get('ld8').add().set('ct');
              k.step('t', 1);
            },
          );
          finish(h);
        },
        (h) => {
          // A pair (or the last column): both updated by the columns before them at once, then one after the other.
          h.get('columns').get('j').sub().i32(2).greaterEqualS().set('width');
          h.get('width').i32(1).add().set('width');
          at(h.get('j'), 'base', 8).get('ld8').get('j');
          h.get('ld').get('j').sub().get('width').get('base').get('ld8');
          at(h.get('j'), 'relative', 4);
          h.call(UPDATE);
          finish(h);
          h.get('width').i32(2).equal();
          h.when((k) => {
            k.get('cj').set('ct');
            k.get('cj').get('ld8').add().set('cj');
            at(k.get('j').i32(1).add(), 'ct', 8).load().set('a');
            k.get('j').i32(1).add().i32(8).mul().set('i8');
            axpy(k);
            k.step('j', 1);
            finish(k);
          });
        },
      );
      g.step('j', 1);
    },
  );
  return f.i32(-1);
}

const MAIN_PARAMS = ['count', 'ss', 'soc', 'rp', 'rows', 'vp', 'v', 'local', 'relative', 'head', 'link', 'cursor', 'od'] as const;

/**
 * factorSupernodes(count, ss, soc, rp, rows, vp, v, local, relative, head, link, cursor, od): the loop over
 * supernodes 0 … count − 1, byte offsets of the symbolic analysis's arrays (supernodeStart, supernodeOfColumn,
 * rowPointers, rows, valuePointers), of the values and of the scratch (local and relative: n, head: count,
 * filled with −1, link and cursor: count, Int32; od: n, Float64). Returns −1, or the column
 * whose pivot failed.
 */
function factorSupernodes(): Fn {
  const f = new Fn('factorSupernodes', MAIN_PARAMS, 'i32');
  f.local('i32', 's', 'first', 'columns', 'rowStart', 'rowCount', 'base', 'r', 'end', 'd', 'nextD', 'dRowStart', 'dRowEnd');
  f.local('i32', 'dBase', 'p1', 'p2', 'p', 't', 'result');
  /** the Int32 at array `base`, index on the stack */
  const int = (g: Fn, base: string, offset = 0): Fn => at(g, base, 4).loadI32(offset);
  /** link supernode `node` (a local) into the list of the supernode of column rows[local `at`]: cursor = at */
  const linkInto = (g: Fn, node: string, from: string): void => {
    int(int(g.get(from), 'rows'), 'soc').set('t');
    at(g.get(node), 'cursor', 4).get(from).storeI32();
    at(g.get(node), 'link', 4);
    int(g.get('t'), 'head');
    g.storeI32();
    at(g.get('t'), 'head', 4).get(node).storeI32();
  };
  f.i32(0).set('s');
  f.loop(
    (g) => g.get('s').get('count').lessU(),
    (g) => {
      int(g.get('s'), 'ss').set('first');
      int(g.get('s'), 'ss', 4).get('first').sub().set('columns');
      int(g.get('s'), 'rp').set('rowStart');
      int(g.get('s'), 'rp', 4).get('rowStart').sub().set('rowCount');
      at(int(g.get('s'), 'vp'), 'v', 8).set('base');
      // s's own columns come first among its rows, in order: only the rows below need a map.
      g.get('columns').set('r');
      g.loop(
        (h) => h.get('r').get('rowCount').lessU(),
        (h) => {
          at(int(h.get('rowStart').get('r').add(), 'rows'), 'local', 4)
            .get('r')
            .storeI32();
          h.step('r', 1);
        },
      );
      g.i32(0).set('r');
      g.loop(
        (h) => h.get('r').get('columns').lessU(),
        (h) => {
          at(h.get('first').get('r').add(), 'od', 8);
          at(h.get('r').get('rowCount').mul().get('r').add(), 'base', 8).load();
          h.store();
          h.step('r', 1);
        },
      );
      g.get('first').get('columns').add().set('end');
      int(g.get('s'), 'head').set('d');
      at(g.get('s'), 'head', 4).i32(-1).storeI32();
      g.loop(
        (h) => h.get('d').i32(-1).notEqual(),
        (h) => {
          int(h.get('d'), 'link').set('nextD');
          int(h.get('d'), 'rp').set('dRowStart');
          int(h.get('d'), 'rp', 4).set('dRowEnd');
          int(h.get('d'), 'vp').set('dBase');
          int(h.get('d'), 'cursor').set('p1');
          h.get('p1').set('p2');
          // Rows in s's columns (sorted, so they come first): their column; the rows below: through the map.
          h.loop(
            (k) => {
              k.get('p2').get('dRowEnd').lessU();
              int(k.get('p2'), 'rows').get('end').lessS();
              k.and();
            },
            (k) => {
              at(k.get('p2').get('p1').sub(), 'relative', 4);
              int(k.get('p2'), 'rows').get('first').sub();
              k.storeI32();
              k.step('p2', 1);
            },
          );
          h.get('p2').set('p');
          h.loop(
            (k) => k.get('p').get('dRowEnd').lessU(),
            (k) => {
              at(k.get('p').get('p1').sub(), 'relative', 4);
              int(int(k.get('p'), 'rows'), 'local');
              k.storeI32();
              k.step('p', 1);
            },
          );
          // update(top, ld8, columns, height, width, base, rowCount8, relative)
          at(h.get('dBase').get('p1').add().get('dRowStart').sub(), 'v', 8);
          h.get('dRowEnd').get('dRowStart').sub().i32(8).mul();
          int(h.get('d'), 'ss', 4);
          int(h.get('d'), 'ss');
          h.sub();
          h.get('dRowEnd').get('p1').sub();
          h.get('p2').get('p1').sub();
          h.get('base');
          h.get('rowCount').i32(8).mul();
          h.get('relative');
          h.call(UPDATE);
          h.get('p2').get('dRowEnd').lessU();
          h.when((k) => linkInto(k, 'd', 'p2'));
          h.get('nextD').set('d');
        },
      );
      g.get('base').get('rowCount').get('columns').get('first').get('od').get('relative').call(BLOCK).set('result');
      g.get('result').i32(-1).notEqual();
      g.when((h) => h.get('result').ret());
      g.get('columns').get('rowCount').lessU();
      g.when((h) => {
        h.get('rowStart').get('columns').add().set('p');
        linkInto(h, 's', 'p');
      });
      g.step('s', 1);
    },
  );
  return f.i32(-1);
}

/** The module's bytes, written by the builder. */
export function factorModuleBytes(): Uint8Array<ArrayBuffer> {
  const fns: Fn[] = [];
  fns[MAIN] = factorSupernodes();
  fns[UPDATE] = update();
  fns[BLOCK] = factorBlock();
  return moduleBytes(fns, false);
}

/**
 * factorModuleBytes() as base64, which a unit test holds equal to the builder's output: the builder takes several
 * milliseconds of a process's first factorization while V8 has not compiled it (2.2 kB one instruction at a time),
 * against well under one to decode these.
 */
export const FACTOR_MODULE_BASE64 = [
  'AGFzbQEAAAABJwNgDX9/f39/f39/f39/f38Bf2AIf39/f39/f38AYAZ/f39/f38BfwISAQNlbnYGbWVtb3J5AgEAgIACAwQDAAEC',
  'BysDEGZhY3RvclN1cGVybm9kZXMAAAZ1cGRhdGUAAQtmYWN0b3JCbG9jawACCtcjA9UFARJ/QQAhDQJAA0AgDSAASUUNASANQQRs',
  'IAFqKAIAIQ4gDUEEbCABaigCBCAOayEPIA1BBGwgA2ooAgAhECANQQRsIANqKAIEIBBrIREgDUEEbCAFaigCAEEIbCAGaiESIA8h',
  'EwJAA0AgEyARSUUNASAQIBNqQQRsIARqKAIAQQRsIAdqIBM2AgAgE0EBaiETDAALC0EAIRMCQANAIBMgD0lFDQEgDiATakEIbCAM',
  'aiATIBFsIBNqQQhsIBJqKwMAOQMAIBNBAWohEwwACwsgDiAPaiEUIA1BBGwgCWooAgAhFSANQQRsIAlqQX82AgACQANAIBVBf0dF',
  'DQEgFUEEbCAKaigCACEWIBVBBGwgA2ooAgAhFyAVQQRsIANqKAIEIRggFUEEbCAFaigCACEZIBVBBGwgC2ooAgAhGiAaIRsCQANA',
  'IBsgGEkgG0EEbCAEaigCACAUSHFFDQEgGyAaa0EEbCAIaiAbQQRsIARqKAIAIA5rNgIAIBtBAWohGwwACwsgGyEcAkADQCAcIBhJ',
  'RQ0BIBwgGmtBBGwgCGogHEEEbCAEaigCAEEEbCAHaigCADYCACAcQQFqIRwMAAsLIBkgGmogF2tBCGwgBmogGCAXa0EIbCAVQQRs',
  'IAFqKAIEIBVBBGwgAWooAgBrIBggGmsgGyAaayASIBFBCGwgCBABIBsgGEkEQCAbQQRsIARqKAIAQQRsIAJqKAIAIR0gFUEEbCAL',
  'aiAbNgIAIBVBBGwgCmogHUEEbCAJaigCADYCACAdQQRsIAlqIBU2AgALIBYhFQwACwsgEiARIA8gDiAMIAgQAiEeIB5Bf0cEQCAe',
  'DwsgDyARSQRAIBAgD2ohHCAcQQRsIARqKAIAQQRsIAJqKAIAIR0gDUEEbCALaiAcNgIAIA1BBGwgCmogHUEEbCAJaigCADYCACAd',
  'QQRsIAlqIA02AgALIA1BAWohDQwACwtBfwvCFQMKfwJ8CHtBACEIIAJBAUYEQAJAA0AgCEEBaiAESUUNASAIQQRsIAdqKAIAIAZs',
  'IAVqIQogCEEEbCAHaigCBCAGbCAFaiELIAhBCGwgAGr9AAMAIRQgCCEJIAlBBGwgB2ooAgBBCGwhDiAKIA5qIAogDmorAwAgCUEI',
  'bCAAaisDACAU/SEAoqE5AwAgCUEBaiEJAkADQCAJIANJRQ0BIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqKwMA/RQgFP3yASEYIAog',
  'DmogCiAOaisDACAY/SEAoTkDACALIA5qIAsgDmorAwAgGP0hAaE5AwAgCUEBaiEJDAALCyAIQQJqIQgMAAsLIAggBEkEQCAIQQRs',
  'IAdqKAIAIAZsIAVqIQogCEEIbCAAaisDACESIAghCQJAA0AgCSADSUUNASAJQQRsIAdqKAIAQQhsIQ4gCiAOaiAKIA5qKwMAIAlB',
  'CGwgAGorAwAgEqKhOQMAIAlBAWohCQwACwsLBQJAA0AgCEEDaiAESUUNASAIQQRsIAdqKAIAIAZsIAVqIQogCEEEbCAHaigCBCAG',
  'bCAFaiELIAhBBGwgB2ooAgggBmwgBWohDCAIQQRsIAdqKAIMIAZsIAVqIQ0gCCEJIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqIQ8g',
  'CEEIbCAAakEAaiEQIA8rAwD9FCAQ/QADAP3yASEYQQEhEQJAA0AgESACSUUNASAPIAFqIQ8gECABaiEQIBggDysDAP0UIBD9AAMA',
  '/fIB/fABIRggEUEBaiERDAALCyAKIA5qIAogDmorAwAgGP0hAKE5AwAgCUEBaiEJIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqIQ8g',
  'CEEIbCAAakEAaiEQIA8rAwD9FCAQ/QADAP3yASEYQQEhEQJAA0AgESACSUUNASAPIAFqIQ8gECABaiEQIBggDysDAP0UIBD9AAMA',
  '/fIB/fABIRggEUEBaiERDAALCyAKIA5qIAogDmorAwAgGP0hAKE5AwAgCyAOaiALIA5qKwMAIBj9IQGhOQMAIAlBAWohCSAJQQRs',
  'IAdqKAIAQQhsIQ4gCUEIbCAAaiEPIAhBCGwgAGpBAGohECAPKwMA/RQgEP0AAwD98gEhGEEBIRECQANAIBEgAklFDQEgDyABaiEP',
  'IBAgAWohECAYIA8rAwD9FCAQ/QADAP3yAf3wASEYIBFBAWohEQwACwsgCiAOaiAKIA5qKwMAIBj9IQChOQMAIAsgDmogCyAOaisD',
  'ACAY/SEBoTkDACAJQQhsIABqIQ8gCEEIbCAAakEQaiEQIA8rAwD9FCAQ/QADAP3yASEYQQEhEQJAA0AgESACSUUNASAPIAFqIQ8g',
  'ECABaiEQIBggDysDAP0UIBD9AAMA/fIB/fABIRggEUEBaiERDAALCyAMIA5qIAwgDmorAwAgGP0hAKE5AwAgCUEBaiEJAkADQCAJ',
  'QQFqIANJRQ0BIAlBCGwgAGohDyAIQQhsIABqIRAgEP0AAwAhFCAQ/QADECEVIA8rAwD9FCEWIA8rAwj9FCEXIBYgFP3yASEYIBcg',
  'FP3yASEZIBYgFf3yASEaIBcgFf3yASEbQQEhEQJAA0AgESACSUUNASAPIAFqIQ8gECABaiEQIBD9AAMAIRQgEP0AAxAhFSAPKwMA',
  '/RQhFiAPKwMI/RQhFyAYIBYgFP3yAf3wASEYIBkgFyAU/fIB/fABIRkgGiAWIBX98gH98AEhGiAbIBcgFf3yAf3wASEbIBFBAWoh',
  'EQwACwsgCUEEbCAHaigCAEEIbCEOIAogDmogCiAOaisDACAY/SEAoTkDACALIA5qIAsgDmorAwAgGP0hAaE5AwAgDCAOaiAMIA5q',
  'KwMAIBr9IQChOQMAIA0gDmogDSAOaisDACAa/SEBoTkDACAJQQFqIQkgCUEEbCAHaigCAEEIbCEOIAogDmogCiAOaisDACAZ/SEA',
  'oTkDACALIA5qIAsgDmorAwAgGf0hAaE5AwAgDCAOaiAMIA5qKwMAIBv9IQChOQMAIA0gDmogDSAOaisDACAb/SEBoTkDACAJQQFq',
  'IQkMAAsLIAkgA0kEQCAJQQRsIAdqKAIAQQhsIQ4gCUEIbCAAaiEPIAhBCGwgAGpBAGohECAPKwMA/RQgEP0AAwD98gEhGEEBIREC',
  'QANAIBEgAklFDQEgDyABaiEPIBAgAWohECAYIA8rAwD9FCAQ/QADAP3yAf3wASEYIBFBAWohEQwACwsgCiAOaiAKIA5qKwMAIBj9',
  'IQChOQMAIAsgDmogCyAOaisDACAY/SEBoTkDACAJQQhsIABqIQ8gCEEIbCAAakEQaiEQIA8rAwD9FCAQ/QADAP3yASEYQQEhEQJA',
  'A0AgESACSUUNASAPIAFqIQ8gECABaiEQIBggDysDAP0UIBD9AAMA/fIB/fABIRggEUEBaiERDAALCyAMIA5qIAwgDmorAwAgGP0h',
  'AKE5AwAgDSAOaiANIA5qKwMAIBj9IQGhOQMACyAIQQRqIQgMAAsLAkADQCAIQQFqIARJRQ0BIAhBBGwgB2ooAgAgBmwgBWohCiAI',
  'QQRsIAdqKAIEIAZsIAVqIQsgCCEJIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqIQ8gCEEIbCAAakEAaiEQIA8rAwD9FCAQ/QADAP3y',
  'ASEYQQEhEQJAA0AgESACSUUNASAPIAFqIQ8gECABaiEQIBggDysDAP0UIBD9AAMA/fIB/fABIRggEUEBaiERDAALCyAKIA5qIAog',
  'DmorAwAgGP0hAKE5AwAgCUEBaiEJAkADQCAJQQFqIANJRQ0BIAlBCGwgAGohDyAIQQhsIABqIRAgEP0AAwAhFCAPKwMA/RQgFP3y',
  'ASEYIA8rAwj9FCAU/fIBIRlBASERAkADQCARIAJJRQ0BIA8gAWohDyAQIAFqIRAgEP0AAwAhFCAYIA8rAwD9FCAU/fIB/fABIRgg',
  'GSAPKwMI/RQgFP3yAf3wASEZIBFBAWohEQwACwsgCUEEbCAHaigCAEEIbCEOIAogDmogCiAOaisDACAY/SEAoTkDACALIA5qIAsg',
  'DmorAwAgGP0hAaE5AwAgCUEBaiEJIAlBBGwgB2ooAgBBCGwhDiAKIA5qIAogDmorAwAgGf0hAKE5AwAgCyAOaiALIA5qKwMAIBn9',
  'IQGhOQMAIAlBAWohCQwACwsgCSADSQRAIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqIQ8gCEEIbCAAakEAaiEQIA8rAwD9FCAQ/QAD',
  'AP3yASEYQQEhEQJAA0AgESACSUUNASAPIAFqIQ8gECABaiEQIBggDysDAP0UIBD9AAMA/fIB/fABIRggEUEBaiERDAALCyAKIA5q',
  'IAogDmorAwAgGP0hAKE5AwAgCyAOaiALIA5qKwMAIBj9IQGhOQMACyAIQQJqIQgMAAsLIAggBEkEQCAIQQRsIAdqKAIAIAZsIAVq',
  'IQogCCEJAkADQCAJIANJRQ0BIAlBBGwgB2ooAgBBCGwhDiAJQQhsIABqIQ8gCEEIbCAAaiEQIA8rAwAgECsDAKIhE0EBIRECQANA',
  'IBEgAklFDQEgDyABaiEPIBAgAWohECATIA8rAwAgECsDAKKgIRMgEUEBaiERDAALCyAKIA5qIAogDmorAwAgE6E5AwAgCUEBaiEJ',
  'DAALCwsLC7kIAwh/A3wBeyABQQhsIQwgDCELIAJBBEsEQEEAIQcCQANAIAcgAUlFDQEgB0EEbCAFaiAHNgIAIAdBAWohBwwACwsL',
  'QQAhBgJAA0AgBiACSUUNASAGIAxsIABqIQggBkEESQRAIAAhCUEAIQcCQANAIAcgBklFDQEgBkEIbCAJaisDACEOIAZBCGwhCiAO',
  'RAAAAAAAAAAAYgRAIA79FCERAkADQCAKQQhqIAtJRQ0BIAggCmogCCAKav0AAwAgCSAKav0AAwAgEf3yAf3xAf0LAwAgCkEQaiEK',
  'DAALCyAKIAtJBEAgCCAKaiAIIApqKwMAIAkgCmorAwAgDqKhOQMACwsgCSAMaiEJIAdBAWohBwwACwsgBkEIbCAIaisDACEPIA9E',
  'gnZJaMIlPD0gAyAGakEIbCAEaisDAJmiZCAPRAAAAAAAAPB/YnFBAEYEQCADIAZqDwsgD58hDyAGQQhsIAhqIA85AwBEAAAAAAAA',
  '8D8gD6MhECAQ/RQhESAGQQFqQQhsIQoCQANAIApBCGogC0lFDQEgCCAKaiAIIApq/QADACAR/fIB/QsDACAKQRBqIQoMAAsLIAog',
  'C0kEQCAIIApqIAggCmorAwAgEKI5AwALBSACIAZrQQJOIQ0gDUEBaiENIAZBCGwgAGogDCAGIAEgBmsgDSAAIAwgBkEEbCAFahAB',
  'IAZBCGwgCGorAwAhDyAPRIJ2SWjCJTw9IAMgBmpBCGwgBGorAwCZomQgD0QAAAAAAADwf2JxQQBGBEAgAyAGag8LIA+fIQ8gBkEI',
  'bCAIaiAPOQMARAAAAAAAAPA/IA+jIRAgEP0UIREgBkEBakEIbCEKAkADQCAKQQhqIAtJRQ0BIAggCmogCCAKav0AAwAgEf3yAf0L',
  'AwAgCkEQaiEKDAALCyAKIAtJBEAgCCAKaiAIIApqKwMAIBCiOQMACyANQQJGBEAgCCEJIAggDGohCCAGQQFqQQhsIAlqKwMAIQ4g',
  'BkEBakEIbCEKIA5EAAAAAAAAAABiBEAgDv0UIRECQANAIApBCGogC0lFDQEgCCAKaiAIIApq/QADACAJIApq/QADACAR/fIB/fEB',
  '/QsDACAKQRBqIQoMAAsLIAogC0kEQCAIIApqIAggCmorAwAgCSAKaisDACAOoqE5AwALCyAGQQFqIQYgBkEIbCAIaisDACEPIA9E',
  'gnZJaMIlPD0gAyAGakEIbCAEaisDAJmiZCAPRAAAAAAAAPB/YnFBAEYEQCADIAZqDwsgD58hDyAGQQhsIAhqIA85AwBEAAAAAAAA',
  '8D8gD6MhECAQ/RQhESAGQQFqQQhsIQoCQANAIApBCGogC0lFDQEgCCAKaiAIIApq/QADACAR/fIB/QsDACAKQRBqIQoMAAsLIAog',
  'C0kEQCAIIApqIAggCmorAwAgEKI5AwALCwsgBkEBaiEGDAALC0F/Cw==',
].join('');

/**
 * The module's memories. Factors whose arrays (values, copies of the analysis, scratch) fit the scratch memory run
 * there and are copied out, so that repeated small factorizations do not each map fresh pages; larger ones get a
 * memory of their own (the spare one an earlier stage left, or a new one), which their values stay a view of.
 */
const factorMemories = kernelMemoriesOf(FACTOR_MODULE_BASE64);

/** A factor's values made by the loop, or where it stopped. */
export interface KernelFactor {
  /** #symbolic.storedValues: the factor (its entries up to the failed column, when one failed) */
  values: Float64Array;
  /** −1, or the column whose pivot failed (its entry in `values` left as it was) */
  failed: number;
}

/** The layout of one factorization in a memory: Float64 values and original diagonal, then every Int32 array. */
interface Layout {
  symbolic: CholeskySymbolic;
  /** the process's scratch memory: the factor is copied out */
  scratch: boolean;
  /** the bytes from the memory's start that earlier calls may have left something in (KernelMemories.take) */
  dirty: number;
  /** the memory the values are a view of */
  memory: WebAssembly.Memory;
  loop: (...args: number[]) => number;
  values: Float64Array;
  ints: Int32Array;
  /** byte offset of the Int32 arrays */
  intBytes: number;
}

/** Large factors' layouts, by their values: refactoring with new values reuses the memory. */
const owned = new WeakMap<Float64Array, Layout>();
/** Every factor the loop made (for tests: which loop ran). */
const made = new WeakSet<Float64Array>();

/**
 * Hands the memory of a large factor's values (a memory of its own, which they are a view of) to a caller that
 * overwrites it, as packing the factor in place does: refactoring no longer reuses it. Null for a factor copied out
 * of the scratch memory, made by the JavaScript loop, or handed over before.
 */
export function releaseFactorMemory(values: Float64Array): WebAssembly.Memory | null {
  const at = owned.get(values);
  if (at === undefined) return null;
  owned.delete(values);
  return at.memory;
}

/** Whether `values` are a factor the WebAssembly loop made. */
export function factoredByKernel(values: Float64Array): boolean {
  return made.has(values);
}

/** Offsets (in Int32s) of the Int32 arrays, in this order, and their total. */
function intOffsets(symbolic: CholeskySymbolic): number[] {
  const { n, supernodeCount: count, rows } = symbolic;
  // The analysis's arrays (`rows` with one more entry: the loop's row test reads one past a supernode's last row),
  // then the scratch: local, relative, head, link, cursor.
  const lengths = [count + 1, n, count + 1, rows.length + 1, count + 1, n, n, count, count, count];
  const offsets = [0];
  for (const length of lengths) offsets.push(offsets[offsets.length - 1] + length);
  return offsets;
}

/** The memory laid out for `symbolic`: the scratch memory (grown when short) or a new one; null if none can be had. */
function layout(symbolic: CholeskySymbolic, offsets: number[], scratchBytes: number): Layout | null {
  const memories = factorMemories();
  const intBytes = 8 * (symbolic.storedValues + symbolic.n);
  const bound = memories?.take(intBytes + 4 * offsets[offsets.length - 1], scratchBytes);
  if (!bound) return null;
  const { memory, exports, scratch, dirty } = bound;
  return {
    symbolic,
    scratch,
    dirty,
    memory,
    loop: exports.factorSupernodes as (...args: number[]) => number,
    values: new Float64Array(memory.buffer, 0, symbolic.storedValues),
    ints: new Int32Array(memory.buffer, intBytes, offsets[offsets.length - 1]),
    intBytes,
  };
}

/**
 * Factors with `symbolic`'s layout in WebAssembly: `assemble` adds A's entries into the zeroed values it is given,
 * then the loop runs. Returns null where WebAssembly SIMD is unavailable or no memory can be had (the JavaScript
 * loop runs then).
 * @param reuse         the values of an earlier factor with this layout, to be overwritten
 * @param scratchBytes  factors up to this size (at most SCRATCH_BYTES) run in the scratch memory and are copied out
 */
export function kernelFactor(
  symbolic: CholeskySymbolic,
  assemble: (values: Float64Array) => void,
  reuse?: Float64Array,
  scratchBytes = SCRATCH_BYTES,
): KernelFactor | null {
  const offsets = intOffsets(symbolic);
  const known = reuse === undefined ? undefined : owned.get(reuse);
  const at = known !== undefined && known.symbolic === symbolic ? known : layout(symbolic, offsets, scratchBytes);
  if (at === null) return null;
  const small = at.scratch;
  const { values, ints, intBytes, loop } = at;
  const { supernodeCount: count, storedValues } = symbolic;
  if (at !== known) {
    [symbolic.supernodeStart, symbolic.supernodeOfColumn, symbolic.rowPointers, symbolic.rows, symbolic.valuePointers].forEach((array, k) =>
      ints.set(array, offsets[k]),
    );
  }
  // Memory no call has written is zero already (and filling it would touch every page of a large factor once more).
  values.fill(0, 0, at === known ? values.length : Math.min(values.length, Math.ceil(at.dirty / 8)));
  assemble(values);
  ints.fill(-1, offsets[7], offsets[7] + count);
  const [ss, soc, rp, rows, vp, local, relative, head, link, cursor] = offsets.map((o) => intBytes + 4 * o);
  const failed = loop(count, ss, soc, rp, rows, vp, 0, local, relative, head, link, cursor, 8 * storedValues);
  let result = values;
  if (small) {
    result = reuse !== undefined && reuse.length === storedValues && !owned.has(reuse) ? reuse : new Float64Array(storedValues);
    result.set(values);
  } else {
    owned.set(values, at);
  }
  made.add(result);
  return { values: result, failed };
}
