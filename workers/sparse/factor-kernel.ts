/**
 * The supernodal numeric factorization's loop (factorSupernodes in cholesky-numeric.ts) as WebAssembly with 128-bit
 * SIMD. It runs the same left-looking algorithm on the same layout: for each supernode, its descendants' updates
 * (two update columns at a time, their two entries of a row in the lanes of one vector, a descendant's columns one
 * after another), then the dense factorization of its own block column by column (two rows to a vector). Where a
 * descendant has at most four columns and a block at most four, the sums are the JavaScript loop's in the same order,
 * so a mesh Laplacian's many small supernodes factor to the same bits; wider ones sum their columns in plain order
 * instead of the JavaScript loop's groups of four, which differs in round-off only.
 *
 * What it saves is the interpreter and the compile: a process's first factorization runs in code compiled from
 * these bytes in well under a millisecond, where V8 runs the JavaScript loop unoptimized until it has compiled it,
 * and the bounds checks on every entry. The module (2.2 kB) is written with the builder of wasm-module.ts, kept
 * here as base64 (FACTOR_MODULE_BASE64, checked against the builder by a unit test), and compiled once per runtime.
 */
import type { CholeskySymbolic } from './cholesky-symbolic.ts';
import { compileModule, Fn, MAX_PAGES, moduleBytes, PAGE } from './wasm-module.ts';

/** The same threshold as the JavaScript loop's (cholesky-numeric.ts): a pivot below it is lost to cancellation. */
export const PIVOT_CANCELLATION = 1e-13;

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
  f.local('i32', 'j', 'i', 'tj', 'tk', 'r', 'p', 'q', 'k');
  f.local('f64', 'a', 'sum');
  f.local('v128', 'ab', 'acc');
  /** the block row of the update's row in local `i`, times 8 */
  const row8 = (g: Fn): Fn => at(g.get('i'), 'relative', 4).loadI32().i32(8).mul().set('r');
  /** target column address of the update's column (local or j + 1) */
  const column = (g: Fn, plusOne: boolean): Fn => {
    at(g.get('j'), 'relative', 4).loadI32(plusOne ? 4 : 0);
    return g.get('rowCount8').mul().get('base').add();
  };
  /** *(target + r) −= value of the f64 on the stack */
  const subtractAt = (g: Fn, target: string, value: (h: Fn) => unknown): void => {
    g.get(target).get('r').add().get(target).get('r').add().load();
    value(g);
    g.fsub().store();
  };
  /** acc = Σ_k L[i, k] · (L[j, k], L[j + 1, k]) over the descendant's columns, in order */
  const pairSum = (g: Fn): void => {
    at(g.get('i'), 'top', 8).set('p');
    at(g.get('j'), 'top', 8).set('q');
    g.get('p').load().splat().get('q').vload().vmul().set('acc');
    g.i32(1).set('k');
    g.loop(
      (h) => h.get('k').get('columns').lessU(),
      (h) => {
        h.get('p').get('ld8').add().set('p');
        h.get('q').get('ld8').add().set('q');
        h.get('acc').get('p').load().splat().get('q').vload().vmul().vadd().set('acc');
        h.step('k', 1);
      },
    );
  };
  /** sum = Σ_k L[i, k] · L[j, k], in order */
  const columnSum = (g: Fn): void => {
    at(g.get('i'), 'top', 8).set('p');
    at(g.get('j'), 'top', 8).set('q');
    g.get('p').load().get('q').load().fmul().set('sum');
    g.i32(1).set('k');
    g.loop(
      (h) => h.get('k').get('columns').lessU(),
      (h) => {
        h.get('p').get('ld8').add().set('p');
        h.get('q').get('ld8').add().set('q');
        h.get('sum').get('p').load().get('q').load().fmul().fadd().set('sum');
        h.step('k', 1);
      },
    );
  };
  f.i32(0).set('j');
  f.get('columns').i32(1).equal();
  f.when(
    (g) => {
      // One column: (L[j], L[j + 1]) stays in a register for the whole pair.
      g.loop(
        (h) => h.get('j').i32(1).add().get('width').lessU(),
        (h) => {
          column(h, false).set('tj');
          column(h, true).set('tk');
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
              subtractAt(k, 'tj', (m) => m.get('acc').lane(0));
              subtractAt(k, 'tk', (m) => m.get('acc').lane(1));
              k.step('i', 1);
            },
          );
          h.step('j', 2);
        },
      );
      g.get('j').get('width').lessU();
      g.when((h) => {
        column(h, false).set('tj');
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
      g.loop(
        (h) => h.get('j').i32(1).add().get('width').lessU(),
        (h) => {
          column(h, false).set('tj');
          column(h, true).set('tk');
          h.get('j').set('i');
          row8(h);
          pairSum(h);
          subtractAt(h, 'tj', (k) => k.get('acc').lane(0));
          h.step('i', 1);
          h.loop(
            (k) => k.get('i').get('height').lessU(),
            (k) => {
              row8(k);
              pairSum(k);
              subtractAt(k, 'tj', (m) => m.get('acc').lane(0));
              subtractAt(k, 'tk', (m) => m.get('acc').lane(1));
              k.step('i', 1);
            },
          );
          h.step('j', 2);
        },
      );
      g.get('j').get('width').lessU();
      g.when((h) => {
        column(h, false).set('tj');
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
 * factorBlock(base, ld, columns, first, od): the dense left-looking Cholesky of a supernode's ld × columns block at
 * byte address `base` (column-major), each column updated by every column before it, its pivot checked against
 * PIVOT_CANCELLATION of the original diagonal entry (od: Float64, by column), square-rooted, the rows below scaled.
 * Returns −1, or the first column whose pivot fails (left as it was, for the error to report).
 */
function factorBlock(): Fn {
  const f = new Fn('factorBlock', ['base', 'ld', 'columns', 'first', 'od'], 'i32');
  f.local('i32', 'j', 't', 'cj', 'ct', 'i8', 'end8', 'ld8');
  f.local('f64', 'a', 'pivot', 'inverse');
  f.local('v128', 'av');
  f.get('ld').i32(8).mul().set('ld8');
  f.get('ld8').set('end8');
  f.i32(0).set('j');
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
  f.loop(
    (g) => g.get('j').get('columns').lessU(),
    (g) => {
      g.get('j').get('ld8').mul().get('base').add().set('cj');
      g.get('base').set('ct');
      g.i32(0).set('t');
      g.loop(
        (h) => h.get('t').get('j').lessU(),
        (h) => {
          at(h.get('j'), 'ct', 8).load().set('a');
          h.get('a').f64Zero().fnotEqual();
          h.when((k) => {
            k.get('a').splat().set('av');
            k.get('j').i32(8).mul().set('i8');
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
          h.get('ct').get('ld8').add().set('ct');
          h.step('t', 1);
        },
      );
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
      g.get('base').get('rowCount').get('columns').get('first').get('od').call(BLOCK).set('result');
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
  'AGFzbQEAAAABJgNgDX9/f39/f39/f39/f38Bf2AIf39/f39/f38AYAV/f39/fwF/AhIBA2VudgZtZW1vcnkCAQCAgAIDBAMAAQIH',
  'KwMQZmFjdG9yU3VwZXJub2RlcwAABnVwZGF0ZQABC2ZhY3RvckJsb2NrAAIKvhAD0wUBEn9BACENAkADQCANIABJRQ0BIA1BBGwg',
  'AWooAgAhDiANQQRsIAFqKAIEIA5rIQ8gDUEEbCADaigCACEQIA1BBGwgA2ooAgQgEGshESANQQRsIAVqKAIAQQhsIAZqIRIgDyET',
  'AkADQCATIBFJRQ0BIBAgE2pBBGwgBGooAgBBBGwgB2ogEzYCACATQQFqIRMMAAsLQQAhEwJAA0AgEyAPSUUNASAOIBNqQQhsIAxq',
  'IBMgEWwgE2pBCGwgEmorAwA5AwAgE0EBaiETDAALCyAOIA9qIRQgDUEEbCAJaigCACEVIA1BBGwgCWpBfzYCAAJAA0AgFUF/R0UN',
  'ASAVQQRsIApqKAIAIRYgFUEEbCADaigCACEXIBVBBGwgA2ooAgQhGCAVQQRsIAVqKAIAIRkgFUEEbCALaigCACEaIBohGwJAA0Ag',
  'GyAYSSAbQQRsIARqKAIAIBRIcUUNASAbIBprQQRsIAhqIBtBBGwgBGooAgAgDms2AgAgG0EBaiEbDAALCyAbIRwCQANAIBwgGElF',
  'DQEgHCAaa0EEbCAIaiAcQQRsIARqKAIAQQRsIAdqKAIANgIAIBxBAWohHAwACwsgGSAaaiAXa0EIbCAGaiAYIBdrQQhsIBVBBGwg',
  'AWooAgQgFUEEbCABaigCAGsgGCAaayAbIBprIBIgEUEIbCAIEAEgGyAYSQRAIBtBBGwgBGooAgBBBGwgAmooAgAhHSAVQQRsIAtq',
  'IBs2AgAgFUEEbCAKaiAdQQRsIAlqKAIANgIAIB1BBGwgCWogFTYCAAsgFiEVDAALCyASIBEgDyAOIAwQAiEeIB5Bf0cEQCAeDwsg',
  'DyARSQRAIBAgD2ohHCAcQQRsIARqKAIAQQRsIAJqKAIAIR0gDUEEbCALaiAcNgIAIA1BBGwgCmogHUEEbCAJaigCADYCACAdQQRs',
  'IAlqIA02AgALIA1BAWohDQwACwtBfwu8BwMIfwJ8AntBACEIIAJBAUYEQAJAA0AgCEEBaiAESUUNASAIQQRsIAdqKAIAIAZsIAVq',
  'IQogCEEEbCAHaigCBCAGbCAFaiELIAhBCGwgAGr9AAMAIRIgCCEJIAlBBGwgB2ooAgBBCGwhDCAKIAxqIAogDGorAwAgCUEIbCAA',
  'aisDACAS/SEAoqE5AwAgCUEBaiEJAkADQCAJIANJRQ0BIAlBBGwgB2ooAgBBCGwhDCAJQQhsIABqKwMA/RQgEv3yASETIAogDGog',
  'CiAMaisDACAT/SEAoTkDACALIAxqIAsgDGorAwAgE/0hAaE5AwAgCUEBaiEJDAALCyAIQQJqIQgMAAsLIAggBEkEQCAIQQRsIAdq',
  'KAIAIAZsIAVqIQogCEEIbCAAaisDACEQIAghCQJAA0AgCSADSUUNASAJQQRsIAdqKAIAQQhsIQwgCiAMaiAKIAxqKwMAIAlBCGwg',
  'AGorAwAgEKKhOQMAIAlBAWohCQwACwsLBQJAA0AgCEEBaiAESUUNASAIQQRsIAdqKAIAIAZsIAVqIQogCEEEbCAHaigCBCAGbCAF',
  'aiELIAghCSAJQQRsIAdqKAIAQQhsIQwgCUEIbCAAaiENIAhBCGwgAGohDiANKwMA/RQgDv0AAwD98gEhE0EBIQ8CQANAIA8gAklF',
  'DQEgDSABaiENIA4gAWohDiATIA0rAwD9FCAO/QADAP3yAf3wASETIA9BAWohDwwACwsgCiAMaiAKIAxqKwMAIBP9IQChOQMAIAlB',
  'AWohCQJAA0AgCSADSUUNASAJQQRsIAdqKAIAQQhsIQwgCUEIbCAAaiENIAhBCGwgAGohDiANKwMA/RQgDv0AAwD98gEhE0EBIQ8C',
  'QANAIA8gAklFDQEgDSABaiENIA4gAWohDiATIA0rAwD9FCAO/QADAP3yAf3wASETIA9BAWohDwwACwsgCiAMaiAKIAxqKwMAIBP9',
  'IQChOQMAIAsgDGogCyAMaisDACAT/SEBoTkDACAJQQFqIQkMAAsLIAhBAmohCAwACwsgCCAESQRAIAhBBGwgB2ooAgAgBmwgBWoh',
  'CiAIIQkCQANAIAkgA0lFDQEgCUEEbCAHaigCAEEIbCEMIAlBCGwgAGohDSAIQQhsIABqIQ4gDSsDACAOKwMAoiERQQEhDwJAA0Ag',
  'DyACSUUNASANIAFqIQ0gDiABaiEOIBEgDSsDACAOKwMAoqAhESAPQQFqIQ8MAAsLIAogDGogCiAMaisDACARoTkDACAJQQFqIQkM',
  'AAsLCwsLqAMDB38DfAF7IAFBCGwhCyALIQpBACEFAkADQCAFIAJJRQ0BIAUgC2wgAGohByAAIQhBACEGAkADQCAGIAVJRQ0BIAVB',
  'CGwgCGorAwAhDCAMRAAAAAAAAAAAYgRAIAz9FCEPIAVBCGwhCQJAA0AgCUEIaiAKSUUNASAHIAlqIAcgCWr9AAMAIAggCWr9AAMA',
  'IA/98gH98QH9CwMAIAlBEGohCQwACwsgCSAKSQRAIAcgCWogByAJaisDACAIIAlqKwMAIAyioTkDAAsLIAggC2ohCCAGQQFqIQYM',
  'AAsLIAVBCGwgB2orAwAhDSANRIJ2SWjCJTw9IAMgBWpBCGwgBGorAwCZomQgDUQAAAAAAADwf2JxQQBGBEAgAyAFag8LIA2fIQ0g',
  'BUEIbCAHaiANOQMARAAAAAAAAPA/IA2jIQ4gDv0UIQ8gBUEBakEIbCEJAkADQCAJQQhqIApJRQ0BIAcgCWogByAJav0AAwAgD/3y',
  'Af0LAwAgCUEQaiEJDAALCyAJIApJBEAgByAJaiAHIAlqKwMAIA6iOQMACyAFQQFqIQUMAAsLQX8L',
].join('');

let compiled: WebAssembly.Module | null | undefined;

/** The module, compiled once; null where this runtime cannot compile it. */
function factorModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = typeof atob === 'function' ? compileModule(Uint8Array.from(atob(FACTOR_MODULE_BASE64), (c) => c.charCodeAt(0))) : null;
  }
  return compiled;
}

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
  memory: WebAssembly.Memory;
  loop: (...args: number[]) => number;
  values: Float64Array;
  ints: Int32Array;
  /** byte offset of the Int32 arrays */
  intBytes: number;
}

/**
 * Factors up to this many bytes (values, copies of the analysis, scratch) run in one memory kept for the process
 * and are copied out, so that repeated small factorizations do not each map fresh pages; larger ones get a memory
 * of their own, which their values stay a view of.
 */
export const SCRATCH_BYTES = 16 << 20;
let scratch: { memory: WebAssembly.Memory; loop: (...args: number[]) => number } | null = null;
/** Large factors' layouts, by their values: refactoring with new values reuses the memory. */
const owned = new WeakMap<Float64Array, Layout>();
/** Every factor the loop made (for tests: which loop ran). */
const made = new WeakSet<Float64Array>();

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
function layout(module: WebAssembly.Module, symbolic: CholeskySymbolic, offsets: number[], small: boolean): Layout | null {
  const intBytes = 8 * (symbolic.storedValues + symbolic.n);
  const pages = Math.max(1, Math.ceil((intBytes + 4 * offsets[offsets.length - 1]) / PAGE));
  if (pages > MAX_PAGES) return null;
  const bound = (memory: WebAssembly.Memory) => ({
    memory,
    loop: new WebAssembly.Instance(module, { env: { memory } }).exports.factorSupernodes as (...args: number[]) => number,
  });
  let memory: WebAssembly.Memory;
  let loop: (...args: number[]) => number;
  try {
    if (small) {
      scratch ??= bound(new WebAssembly.Memory({ initial: pages, maximum: SCRATCH_BYTES / PAGE }));
      const have = scratch.memory.buffer.byteLength / PAGE;
      if (have < pages) scratch.memory.grow(pages - have);
      ({ memory, loop } = scratch);
    } else {
      ({ memory, loop } = bound(new WebAssembly.Memory({ initial: pages, maximum: pages })));
    }
  } catch {
    return null; // no room for one block this size: the JavaScript loop's arrays may still fit
  }
  return {
    symbolic,
    memory,
    loop,
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
  const module = factorModule();
  if (module === null) return null;
  const offsets = intOffsets(symbolic);
  const small = 8 * (symbolic.storedValues + symbolic.n) + 4 * offsets[offsets.length - 1] <= Math.min(scratchBytes, SCRATCH_BYTES);
  const known = reuse === undefined ? undefined : owned.get(reuse);
  const at = known !== undefined && known.symbolic === symbolic ? known : layout(module, symbolic, offsets, small);
  if (at === null) return null;
  const { values, ints, intBytes, loop } = at;
  const { supernodeCount: count, storedValues } = symbolic;
  if (at !== known) {
    [symbolic.supernodeStart, symbolic.supernodeOfColumn, symbolic.rowPointers, symbolic.rows, symbolic.valuePointers].forEach((array, k) =>
      ints.set(array, offsets[k]),
    );
  }
  values.fill(0);
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
