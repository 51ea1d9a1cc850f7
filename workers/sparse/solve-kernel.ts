/**
 * The supernodal solve for many right-hand sides (forwardSolve and backwardSolve in cholesky-solve.ts) as
 * WebAssembly with 128-bit SIMD: the same passes over the factor's blocks, each supernode on its column range, two
 * right-hand sides in the lanes of one vector. The arithmetic is the JavaScript loops', operation for operation and in
 * the same order (their groups of four columns or rows, the zero multipliers they skip), without fused multiply-adds,
 * so the solution is the same bit for bit (a unit test holds them equal).
 *
 * What it saves is the interpreter and the compiles of a process's first solve, and, warm, the bounds checks and half
 * the arithmetic instructions. The solve works on a compact copy of the right-hand sides' rows (row r at r · k) in
 * its own memory with the factor's arrays; the module is written with the builder of wasm-module.ts and kept here as
 * base64 (SOLVE_MODULE_BASE64, checked against the builder by a unit test).
 */
import type { CholeskyFactor } from './cholesky-numeric.ts';
import { Fn, kernelMemoriesOf, local, moduleBytes, readInt as int, type Emit } from './wasm-module.ts';

const PARAMS = ['count', 'ss', 'rp', 'rows', 'vp', 'v', 'x', 'k8', 'low', 'high'] as const;

/** the value address of the block entry (index in local `e` + the one pushed) */
const entry = (g: Fn, index: Emit): Fn => {
  index(g);
  return g.i32(8).mul().get('v').add();
};

/**
 * For c8 over the supernode's column range (bytes lo8 … hi8 of a row): `vector` two columns at a time, `scalar` the
 * last one alone; each emits its operation on the row addresses plus local c8.
 */
function columns(g: Fn, vector: Emit, scalar: Emit): void {
  g.get('lo8').set('c8');
  g.loop(
    (h) => h.get('c8').i32(8).add().get('hi8').lessU(),
    (h) => {
      vector(h);
      h.step('c8', 16);
    },
  );
  g.get('c8').get('hi8').lessU();
  g.when((h) => scalar(h));
}

/** the row address (a local) + c8 */
const at = (g: Fn, row: string): Fn => g.get(row).get('c8').add();

/** x[row] −= Σ a_m · x[src_m] over m (locals a0…, s0… as splats sa0…), summed left to right as the JavaScript does */
function subtractSum(g: Fn, row: string, terms: number, sources: string[]): void {
  columns(
    g,
    (h) => {
      at(h, row);
      at(h, row).vload();
      for (let m = 0; m < terms; m++) {
        h.get(`sa${m}`);
        at(h, sources[m]).vload().vmul();
        if (m > 0) h.vadd();
      }
      h.vsub().vstore();
    },
    (h) => {
      at(h, row);
      at(h, row).load();
      for (let m = 0; m < terms; m++) {
        h.get(`a${m}`);
        at(h, sources[m]).load().fmul();
        if (m > 0) h.fadd();
      }
      h.fsub().store();
    },
  );
}

/** x[row] *= the f64 in local `inverse` (splat in `sinv`) */
function scale(g: Fn, row: string): void {
  columns(
    g,
    (h) => {
      at(h, row);
      at(h, row).vload().get('sinv').vmul().vstore();
    },
    (h) => {
      at(h, row);
      at(h, row).load().get('inverse').fmul().store();
    },
  );
}

/** a_m = v[base + offset of column, row] and its splat, for locals named a{m} */
function coefficient(g: Fn, m: number, address: Emit): void {
  address(g);
  g.load().set(`a${m}`);
  g.get(`a${m}`).splat().set(`sa${m}`);
}

function declare(f: Fn): void {
  f.local('i32', 's', 'lo8', 'hi8', 'first', 'columns', 'rowStart', 'ld', 'base', 'j', 'i', 'c8', 'cj', 'ck', 'xj', 'xk', 'xi');
  f.local('i32', 'y0', 'y1', 'y2', 'y3', 'c0', 'c1', 'c2', 'c3', 'x0', 'x1', 'x2', 'x3');
  f.local('f64', 'a0', 'a1', 'a2', 'a3', 'inverse');
  f.local('v128', 'sa0', 'sa1', 'sa2', 'sa3', 'sinv');
}

/** The supernode's fields, and its column range in bytes; the body runs when the range is not empty. */
function supernode(g: Fn, body: Emit): void {
  int(g, 'low', local('s')).i32(8).mul().set('lo8');
  int(g, 'high', local('s')).i32(8).mul().set('hi8');
  g.get('lo8').get('hi8').lessS();
  g.when((h) => {
    int(h, 'ss', local('s')).set('first');
    int(h, 'ss', local('s'), 4).get('first').sub().set('columns');
    int(h, 'rp', local('s')).set('rowStart');
    int(h, 'rp', local('s'), 4).get('rowStart').sub().set('ld');
    int(h, 'vp', local('s')).set('base');
    body(h);
  });
}

/** the address of x's row of pivot (pushed) */
const xRow = (g: Fn, pivot: Emit): Fn => {
  pivot(g);
  return g.get('k8').mul().get('x').add();
};
/** the address of x's row of the supernode's row i (local), through rows */
const belowRow = (g: Fn, i: string): Fn => xRow(g, (h) => int(h, 'rows', (m) => m.get('rowStart').get(i).add()));

/** x's row xj scaled by 1 / L[j][j] (column j's diagonal at cj + j) */
function divideByDiagonal(g: Fn): void {
  g.f64(1);
  entry(g, (m) => m.get('cj').get('j').add()).load();
  g.fdiv().set('inverse');
  g.get('inverse').splat().set('sinv');
  scale(g, 'xj');
}

/**
 * The triangle's rows i = j + 1 … columns − 1 of column j (at cj), each with its row xi of x: `target` −= L[i][j] ·
 * `source` (one of them xi, the other xj), rows whose entry is zero skipped.
 */
function triangleColumn(g: Fn, target: string, source: string): void {
  g.get('j').i32(1).add().set('i');
  g.loop(
    (m) => m.get('i').get('columns').lessU(),
    (m) => {
      coefficient(m, 0, (r) => entry(r, (t) => t.get('cj').get('i').add()));
      m.get('a0').f64Zero().fnotEqual();
      m.when((r) => {
        xRow(r, (t) => t.get('first').get('i').add()).set('xi');
        subtractSum(r, target, 1, [source]);
      });
      m.step('i', 1);
    },
  );
}

/** forward(count, …): y = L⁻¹b, supernodes 0 … count − 1 (forwardSolve). */
function forward(): Fn {
  const f = new Fn('forward', PARAMS);
  declare(f);
  f.i32(0).set('s');
  f.loop(
    (g) => g.get('s').get('count').lessU(),
    (g) => {
      supernode(g, (h) => {
        // The triangle, column by column.
        h.i32(0).set('j');
        h.loop(
          (k) => k.get('j').get('columns').lessU(),
          (k) => {
            k.get('base').get('j').get('ld').mul().add().set('cj');
            xRow(k, (m) => m.get('first').get('j').add()).set('xj');
            divideByDiagonal(k);
            triangleColumn(k, 'xi', 'xj');
            k.step('j', 1);
          },
        );
        // The rows below: four columns at a time, then one.
        h.i32(0).set('j');
        h.loop(
          (k) => k.get('j').i32(3).add().get('columns').lessU(),
          (k) => {
            for (let m = 0; m < 4; m++) {
              k.get('base').get('j').i32(m).add().get('ld').mul().add().set(`c${m}`);
              xRow(k, (r) => r.get('first').get('j').add().i32(m).add()).set(`x${m}`);
            }
            k.get('columns').set('i');
            k.loop(
              (m) => m.get('i').get('ld').lessU(),
              (m) => {
                for (let t = 0; t < 4; t++) coefficient(m, t, (r) => entry(r, (u) => u.get(`c${t}`).get('i').add()));
                belowRow(m, 'i').set('xi');
                subtractSum(m, 'xi', 4, ['x0', 'x1', 'x2', 'x3']);
                m.step('i', 1);
              },
            );
            k.step('j', 4);
          },
        );
        h.loop(
          (k) => k.get('j').get('columns').lessU(),
          (k) => {
            k.get('base').get('j').get('ld').mul().add().set('c0');
            xRow(k, (r) => r.get('first').get('j').add()).set('x0');
            k.get('columns').set('i');
            k.loop(
              (m) => m.get('i').get('ld').lessU(),
              (m) => {
                coefficient(m, 0, (r) => entry(r, (u) => u.get('c0').get('i').add()));
                m.get('a0').f64Zero().fnotEqual();
                m.when((r) => {
                  belowRow(r, 'i').set('xi');
                  subtractSum(r, 'xi', 1, ['x0']);
                });
                m.step('i', 1);
              },
            );
            k.step('j', 1);
          },
        );
      });
      g.step('s', 1);
    },
  );
  return f;
}

/**
 * The rows below the supernode taken off its columns (backwardSolve): for each (column, target) pair, x's row
 * `target` −= Σ L[i][column] · x's row of below-row i, four rows at a time, then one at a time skipping zero entries.
 */
function backwardBelow(g: Fn, columns: [string, string][]): void {
  g.get('columns').set('i');
  g.loop(
    (m) => m.get('i').i32(3).add().get('ld').lessU(),
    (m) => {
      for (let t = 0; t < 4; t++) {
        m.get('i').i32(t).add().set('c0');
        belowRow(m, 'c0').set(`y${t}`);
      }
      for (const [column, target] of columns) {
        for (let t = 0; t < 4; t++) coefficient(m, t, (r) => entry(r, (u) => u.get(column).get('i').add().i32(t).add()));
        subtractSum(m, target, 4, ['y0', 'y1', 'y2', 'y3']);
      }
      m.step('i', 4);
    },
  );
  g.loop(
    (m) => m.get('i').get('ld').lessU(),
    (m) => {
      belowRow(m, 'i').set('y0');
      for (const [column, target] of columns) {
        coefficient(m, 0, (r) => entry(r, (u) => u.get(column).get('i').add()));
        m.get('a0').f64Zero().fnotEqual();
        m.when((r) => subtractSum(r, target, 1, ['y0']));
      }
      m.step('i', 1);
    },
  );
}

/** backward(count, …): x = L⁻ᵀy, supernodes count − 1 … 0 (backwardSolve). */
function backward(): Fn {
  const f = new Fn('backward', PARAMS);
  declare(f);
  f.get('count').set('s');
  f.loop(
    (g) => g.get('s').i32(0).greaterS(),
    (g) => {
      g.step('s', -1);
      supernode(g, (h) => {
        h.i32(0).set('j');
        // Two columns at a time, then the last one alone: rows below in fours, then one at a time.
        h.loop(
          (k) => k.get('j').i32(1).add().get('columns').lessU(),
          (k) => {
            k.get('base').get('j').get('ld').mul().add().set('cj');
            k.get('cj').get('ld').add().set('ck');
            xRow(k, (r) => r.get('first').get('j').add()).set('xj');
            xRow(k, (r) => r.get('first').get('j').add().i32(1).add()).set('xk');
            backwardBelow(k, [
              ['cj', 'xj'],
              ['ck', 'xk'],
            ]);
            k.step('j', 2);
          },
        );
        h.get('j').get('columns').lessU();
        h.when((k) => {
          k.get('base').get('j').get('ld').mul().add().set('cj');
          xRow(k, (r) => r.get('first').get('j').add()).set('xj');
          backwardBelow(k, [['cj', 'xj']]);
        });
        // The triangle, from the last column back.
        h.get('columns').set('j');
        h.loop(
          (k) => k.get('j').i32(0).greaterS(),
          (k) => {
            k.step('j', -1);
            k.get('base').get('j').get('ld').mul().add().set('cj');
            xRow(k, (r) => r.get('first').get('j').add()).set('xj');
            triangleColumn(k, 'xj', 'xi');
            divideByDiagonal(k);
          },
        );
      });
    },
  );
  return f;
}

/** The module's bytes, written by the builder. */
export function solveModuleBytes(): Uint8Array<ArrayBuffer> {
  return moduleBytes([forward(), backward()], false);
}

/** solveModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const SOLVE_MODULE_BASE64 = [
  'AGFzbQEAAAABDgFgCn9/f39/f39/f38AAhIBA2VudgZtZW1vcnkCAQCAgAIDAwIAAAcWAgdmb3J3YXJkAAAIYmFja3dhcmQAAQr+',
  'GgKpCQMcfwV8BXtBACEKAkADQCAKIABJRQ0BIApBBGwgCGooAgBBCGwhCyAKQQRsIAlqKAIAQQhsIQwgCyAMSARAIApBBGwgAWoo',
  'AgAhDSAKQQRsIAFqKAIEIA1rIQ4gCkEEbCACaigCACEPIApBBGwgAmooAgQgD2shECAKQQRsIARqKAIAIRFBACESAkADQCASIA5J',
  'RQ0BIBEgEiAQbGohFSANIBJqIAdsIAZqIRdEAAAAAAAA8D8gFSASakEIbCAFaisDAKMhKiAq/RQhLyALIRQCQANAIBRBCGogDElF',
  'DQEgFyAUaiAXIBRq/QADACAv/fIB/QsDACAUQRBqIRQMAAsLIBQgDEkEQCAXIBRqIBcgFGorAwAgKqI5AwALIBJBAWohEwJAA0Ag',
  'EyAOSUUNASAVIBNqQQhsIAVqKwMAISYgJv0UISsgJkQAAAAAAAAAAGIEQCANIBNqIAdsIAZqIRkgCyEUAkADQCAUQQhqIAxJRQ0B',
  'IBkgFGogGSAUav0AAwAgKyAXIBRq/QADAP3yAf3xAf0LAwAgFEEQaiEUDAALCyAUIAxJBEAgGSAUaiAZIBRqKwMAICYgFyAUaisD',
  'AKKhOQMACwsgE0EBaiETDAALCyASQQFqIRIMAAsLQQAhEgJAA0AgEkEDaiAOSUUNASARIBJBAGogEGxqIR4gDSASakEAaiAHbCAG',
  'aiEiIBEgEkEBaiAQbGohHyANIBJqQQFqIAdsIAZqISMgESASQQJqIBBsaiEgIA0gEmpBAmogB2wgBmohJCARIBJBA2ogEGxqISEg',
  'DSASakEDaiAHbCAGaiElIA4hEwJAA0AgEyAQSUUNASAeIBNqQQhsIAVqKwMAISYgJv0UISsgHyATakEIbCAFaisDACEnICf9FCEs',
  'ICAgE2pBCGwgBWorAwAhKCAo/RQhLSAhIBNqQQhsIAVqKwMAISkgKf0UIS4gDyATakEEbCADaigCACAHbCAGaiEZIAshFAJAA0Ag',
  'FEEIaiAMSUUNASAZIBRqIBkgFGr9AAMAICsgIiAUav0AAwD98gEgLCAjIBRq/QADAP3yAf3wASAtICQgFGr9AAMA/fIB/fABIC4g',
  'JSAUav0AAwD98gH98AH98QH9CwMAIBRBEGohFAwACwsgFCAMSQRAIBkgFGogGSAUaisDACAmICIgFGorAwCiICcgIyAUaisDAKKg',
  'ICggJCAUaisDAKKgICkgJSAUaisDAKKgoTkDAAsgE0EBaiETDAALCyASQQRqIRIMAAsLAkADQCASIA5JRQ0BIBEgEiAQbGohHiAN',
  'IBJqIAdsIAZqISIgDiETAkADQCATIBBJRQ0BIB4gE2pBCGwgBWorAwAhJiAm/RQhKyAmRAAAAAAAAAAAYgRAIA8gE2pBBGwgA2oo',
  'AgAgB2wgBmohGSALIRQCQANAIBRBCGogDElFDQEgGSAUaiAZIBRq/QADACArICIgFGr9AAMA/fIB/fEB/QsDACAUQRBqIRQMAAsL',
  'IBQgDEkEQCAZIBRqIBkgFGorAwAgJiAiIBRqKwMAoqE5AwALCyATQQFqIRMMAAsLIBJBAWohEgwACwsLIApBAWohCgwACwsL0BED',
  'HH8FfAV7IAAhCgJAA0AgCkEASkUNASAKQX9qIQogCkEEbCAIaigCAEEIbCELIApBBGwgCWooAgBBCGwhDCALIAxIBEAgCkEEbCAB',
  'aigCACENIApBBGwgAWooAgQgDWshDiAKQQRsIAJqKAIAIQ8gCkEEbCACaigCBCAPayEQIApBBGwgBGooAgAhEUEAIRICQANAIBJB',
  'AWogDklFDQEgESASIBBsaiEVIBUgEGohFiANIBJqIAdsIAZqIRcgDSASakEBaiAHbCAGaiEYIA4hEwJAA0AgE0EDaiAQSUUNASAT',
  'QQBqIR4gDyAeakEEbCADaigCACAHbCAGaiEaIBNBAWohHiAPIB5qQQRsIANqKAIAIAdsIAZqIRsgE0ECaiEeIA8gHmpBBGwgA2oo',
  'AgAgB2wgBmohHCATQQNqIR4gDyAeakEEbCADaigCACAHbCAGaiEdIBUgE2pBAGpBCGwgBWorAwAhJiAm/RQhKyAVIBNqQQFqQQhs',
  'IAVqKwMAIScgJ/0UISwgFSATakECakEIbCAFaisDACEoICj9FCEtIBUgE2pBA2pBCGwgBWorAwAhKSAp/RQhLiALIRQCQANAIBRB',
  'CGogDElFDQEgFyAUaiAXIBRq/QADACArIBogFGr9AAMA/fIBICwgGyAUav0AAwD98gH98AEgLSAcIBRq/QADAP3yAf3wASAuIB0g',
  'FGr9AAMA/fIB/fAB/fEB/QsDACAUQRBqIRQMAAsLIBQgDEkEQCAXIBRqIBcgFGorAwAgJiAaIBRqKwMAoiAnIBsgFGorAwCioCAo',
  'IBwgFGorAwCioCApIB0gFGorAwCioKE5AwALIBYgE2pBAGpBCGwgBWorAwAhJiAm/RQhKyAWIBNqQQFqQQhsIAVqKwMAIScgJ/0U',
  'ISwgFiATakECakEIbCAFaisDACEoICj9FCEtIBYgE2pBA2pBCGwgBWorAwAhKSAp/RQhLiALIRQCQANAIBRBCGogDElFDQEgGCAU',
  'aiAYIBRq/QADACArIBogFGr9AAMA/fIBICwgGyAUav0AAwD98gH98AEgLSAcIBRq/QADAP3yAf3wASAuIB0gFGr9AAMA/fIB/fAB',
  '/fEB/QsDACAUQRBqIRQMAAsLIBQgDEkEQCAYIBRqIBggFGorAwAgJiAaIBRqKwMAoiAnIBsgFGorAwCioCAoIBwgFGorAwCioCAp',
  'IB0gFGorAwCioKE5AwALIBNBBGohEwwACwsCQANAIBMgEElFDQEgDyATakEEbCADaigCACAHbCAGaiEaIBUgE2pBCGwgBWorAwAh',
  'JiAm/RQhKyAmRAAAAAAAAAAAYgRAIAshFAJAA0AgFEEIaiAMSUUNASAXIBRqIBcgFGr9AAMAICsgGiAUav0AAwD98gH98QH9CwMA',
  'IBRBEGohFAwACwsgFCAMSQRAIBcgFGogFyAUaisDACAmIBogFGorAwCioTkDAAsLIBYgE2pBCGwgBWorAwAhJiAm/RQhKyAmRAAA',
  'AAAAAAAAYgRAIAshFAJAA0AgFEEIaiAMSUUNASAYIBRqIBggFGr9AAMAICsgGiAUav0AAwD98gH98QH9CwMAIBRBEGohFAwACwsg',
  'FCAMSQRAIBggFGogGCAUaisDACAmIBogFGorAwCioTkDAAsLIBNBAWohEwwACwsgEkECaiESDAALCyASIA5JBEAgESASIBBsaiEV',
  'IA0gEmogB2wgBmohFyAOIRMCQANAIBNBA2ogEElFDQEgE0EAaiEeIA8gHmpBBGwgA2ooAgAgB2wgBmohGiATQQFqIR4gDyAeakEE',
  'bCADaigCACAHbCAGaiEbIBNBAmohHiAPIB5qQQRsIANqKAIAIAdsIAZqIRwgE0EDaiEeIA8gHmpBBGwgA2ooAgAgB2wgBmohHSAV',
  'IBNqQQBqQQhsIAVqKwMAISYgJv0UISsgFSATakEBakEIbCAFaisDACEnICf9FCEsIBUgE2pBAmpBCGwgBWorAwAhKCAo/RQhLSAV',
  'IBNqQQNqQQhsIAVqKwMAISkgKf0UIS4gCyEUAkADQCAUQQhqIAxJRQ0BIBcgFGogFyAUav0AAwAgKyAaIBRq/QADAP3yASAsIBsg',
  'FGr9AAMA/fIB/fABIC0gHCAUav0AAwD98gH98AEgLiAdIBRq/QADAP3yAf3wAf3xAf0LAwAgFEEQaiEUDAALCyAUIAxJBEAgFyAU',
  'aiAXIBRqKwMAICYgGiAUaisDAKIgJyAbIBRqKwMAoqAgKCAcIBRqKwMAoqAgKSAdIBRqKwMAoqChOQMACyATQQRqIRMMAAsLAkAD',
  'QCATIBBJRQ0BIA8gE2pBBGwgA2ooAgAgB2wgBmohGiAVIBNqQQhsIAVqKwMAISYgJv0UISsgJkQAAAAAAAAAAGIEQCALIRQCQANA',
  'IBRBCGogDElFDQEgFyAUaiAXIBRq/QADACArIBogFGr9AAMA/fIB/fEB/QsDACAUQRBqIRQMAAsLIBQgDEkEQCAXIBRqIBcgFGor',
  'AwAgJiAaIBRqKwMAoqE5AwALCyATQQFqIRMMAAsLCyAOIRICQANAIBJBAEpFDQEgEkF/aiESIBEgEiAQbGohFSANIBJqIAdsIAZq',
  'IRcgEkEBaiETAkADQCATIA5JRQ0BIBUgE2pBCGwgBWorAwAhJiAm/RQhKyAmRAAAAAAAAAAAYgRAIA0gE2ogB2wgBmohGSALIRQC',
  'QANAIBRBCGogDElFDQEgFyAUaiAXIBRq/QADACArIBkgFGr9AAMA/fIB/fEB/QsDACAUQRBqIRQMAAsLIBQgDEkEQCAXIBRqIBcg',
  'FGorAwAgJiAZIBRqKwMAoqE5AwALCyATQQFqIRMMAAsLRAAAAAAAAPA/IBUgEmpBCGwgBWorAwCjISogKv0UIS8gCyEUAkADQCAU',
  'QQhqIAxJRQ0BIBcgFGogFyAUav0AAwAgL/3yAf0LAwAgFEEQaiEUDAALCyAUIAxJBEAgFyAUaiAXIBRqKwMAICqiOQMACwwACwsL',
  'DAALCws=',
].join('');

/** The module's memories: solves whose arrays fit run in the scratch memory. */
const solveMemories = kernelMemoriesOf(SOLVE_MODULE_BASE64);

/** Whether kernelSolve can run here (else the JavaScript loops solve). */
export function solveKernelAvailable(): boolean {
  return solveMemories() !== null;
}

/**
 * Solves whose copy (the factor's values, a compact row of k values per pivot, the arrays) would be larger than this
 * run in JavaScript: the copy then costs about what the solve does, and doubles its memory. On the 1M-vertex tube
 * (64 bones) the kernel took 4.8 s against 2.0 s for the JavaScript loops, most of it copying 0.9 GB; at the body
 * subdivided twice (33 MB) they were about even warm and the kernel 0.7 of the loops on a process's first solve.
 */
const LARGEST_COPY = 64 << 20;

/**
 * A solve laid out in the kernel's memory: the factor's values and analysis copied in, `compact` (#n × k, pivot row
 * r at r·k) zero, and the two passes to run on it with each supernode's column ranges.
 */
export interface KernelSolveRows {
  compact: Float64Array;
  /** forward on [forwardLow, forwardHigh), then backward on [backwardLow, backwardHigh), per supernode */
  run(forwardLow: Int32Array, forwardHigh: Int32Array, backwardLow: Int32Array, backwardHigh: Int32Array): void;
}

/**
 * The memory for a solve of k right-hand sides with `factor`, or null where WebAssembly SIMD is unavailable, the copy
 * would pass LARGEST_COPY or no memory can be had (the JavaScript loops solve then). Valid until the next kernel call.
 */
export function kernelSolveRows(factor: CholeskyFactor, k: number): KernelSolveRows | null {
  const { n, supernodeCount: count, supernodeStart, rowPointers, rows, valuePointers } = factor.symbolic;
  const values = factor.values;
  const floats = values.length + n * k;
  const intOffsets = [0];
  for (const length of [count + 1, count + 1, rows.length, count + 1, count, count, count, count])
    intOffsets.push(intOffsets[intOffsets.length - 1] + length);
  const bytes = 8 * floats + 4 * intOffsets[intOffsets.length - 1];
  const bound = bytes > LARGEST_COPY ? null : solveMemories()?.take(bytes);
  if (!bound) return null;
  const { buffer } = bound.memory;
  new Float64Array(buffer, 0, values.length).set(values);
  const xOffset = 8 * values.length;
  const compact = new Float64Array(buffer, xOffset, n * k);
  // A new memory is zero; one that earlier calls wrote is made so.
  if (bound.dirty > xOffset) compact.fill(0);
  const intBytes = 8 * floats;
  const ints = new Int32Array(buffer, intBytes, intOffsets[intOffsets.length - 1]);
  const copy = (array: Int32Array, m: number): void => ints.set(array.subarray(0, intOffsets[m + 1] - intOffsets[m]), intOffsets[m]);
  [supernodeStart, rowPointers, rows, valuePointers].forEach(copy);
  const [ss, rp, rowsAt, vp, fLow, fHigh, bLow, bHigh] = intOffsets.map((o) => intBytes + 4 * o);
  const forward = bound.exports.forward as (...args: number[]) => void;
  const backward = bound.exports.backward as (...args: number[]) => void;
  return {
    compact,
    run(forwardLow, forwardHigh, backwardLow, backwardHigh) {
      [forwardLow, forwardHigh, backwardLow, backwardHigh].forEach((array, m) => copy(array, 4 + m));
      forward(count, ss, rp, rowsAt, vp, 0, xOffset, 8 * k, fLow, fHigh);
      backward(count, ss, rp, rowsAt, vp, 0, xOffset, 8 * k, bLow, bHigh);
    },
  };
}

/**
 * choleskySolvePermuted's two passes in WebAssembly on x's rows (pivot row r at offset[r], k values), each supernode
 * on its column range: [forwardLow, forwardHigh) in the forward pass, [backwardLow, backwardHigh) in the backward one.
 * Returns false where kernelSolveRows has no memory (x untouched: the JavaScript loops run then).
 */
export function kernelSolve(
  factor: CholeskyFactor,
  x: Float64Array,
  k: number,
  offset: Int32Array,
  forwardLow: Int32Array,
  forwardHigh: Int32Array,
  backwardLow: Int32Array,
  backwardHigh: Int32Array,
): boolean {
  const solve = kernelSolveRows(factor, k);
  if (solve === null) return false;
  const { n, supernodeOfColumn } = factor.symbolic;
  // Each row's values within its supernode's forward range (the rest of it is zero); the solve changes them within
  // the supernode's backward range only.
  gatherRows(x, offset, n, k, supernodeOfColumn, forwardLow, forwardHigh, solve.compact);
  solve.run(forwardLow, forwardHigh, backwardLow, backwardHigh);
  scatterRows(solve.compact, offset, n, k, supernodeOfColumn, backwardLow, backwardHigh, x);
  return true;
}

/** compact row r = x's row at offset[r] (k values each), within its supernode's range [low, high). */
function gatherRows(
  x: Float64Array,
  offset: Int32Array,
  n: number,
  k: number,
  supernodeOfColumn: Int32Array,
  low: Int32Array,
  high: Int32Array,
  compact: Float64Array,
): void {
  for (let r = 0; r < n; r++) {
    const s = supernodeOfColumn[r];
    const from = offset[r];
    const to = r * k;
    for (let c = low[s], end = high[s]; c < end; c++) compact[to + c] = x[from + c];
  }
}

/** x's row at offset[r] = compact row r, within its supernode's range [low, high). */
function scatterRows(
  compact: Float64Array,
  offset: Int32Array,
  n: number,
  k: number,
  supernodeOfColumn: Int32Array,
  low: Int32Array,
  high: Int32Array,
  x: Float64Array,
): void {
  for (let r = 0; r < n; r++) {
    const s = supernodeOfColumn[r];
    const to = offset[r];
    const from = r * k;
    for (let c = low[s], end = high[s]; c < end; c++) x[to + c] = compact[from + c];
  }
}
