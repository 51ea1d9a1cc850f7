/**
 * Per-face skinning's face loop (accumulateFaceGradients in per-face-skinning.ts) as WebAssembly with 128-bit SIMD:
 * for each face, the blend of its bones' logs, the exp of it by the half-angle series (half-angle-series.ts), the
 * rotation matrix, and the target gradients added into the right-hand sides of its three corners. The arithmetic is
 * the JavaScript loop's, operation for operation and in the same order, without fused multiply-adds, so the
 * right-hand sides are the same bit for bit; what it saves is V8's bounds checks and half the arithmetic of the
 * blend and the additions (x and y in the two lanes of one vector, z alone). A face whose blended log is longer than
 * the series covers (only where a face's weights sum to more than one) stops the kernel, which returns that face for
 * the JavaScript loop (its Math.sin and Math.cos) and is called again after it. The module is 1.9 kB, written with
 * the builder of wasm-module.ts and compiled once per runtime.
 *
 * Arguments, byte offsets but `from`, `to` (faces from … to − 1) and `scaled` (0 or 1):
 *   slotStart, weights, slotPairs, pairBones, cornerRows   the setup's face arrays (Uint32, Float64, Uint32, Uint32,
 *                                                          Int32)
 *   products                                               #F × 9 the faces' source gradient products
 *   q, pairLogs, pairScales                                the frame's bone quaternions, pair logs and pair scales
 *   rhs                                                    the right-hand sides, added to
 */
import { HALF_ANGLE_SERIES_LIMIT } from '../math/half-angle-series.ts';
import { compileModule, Fn, moduleBytes } from '../sparse/wasm-module.ts';

/** halfSinc's coefficients of h², h⁴ … h²² (half-angle-series.ts), as the JavaScript constants evaluate them. */
const SINC = [
  -1 / 6,
  1 / 120,
  -1 / 5040,
  1 / 362880,
  -1 / 39916800,
  1 / 6227020800,
  -1 / 1307674368000,
  1 / 355687428096000,
  -1 / 121645100408832000,
  1 / 51090942171709440000,
  -1 / (23 * 22 * 51090942171709440000),
];
/** halfCos's coefficients of h², h⁴ … h²². */
const COS = [
  -1 / 2,
  1 / 24,
  -1 / 720,
  1 / 40320,
  -1 / 3628800,
  1 / 479001600,
  -1 / 87178291200,
  1 / 20922789888000,
  -1 / 6402373705728000,
  1 / 2432902008176640000,
  -1 / (22 * 51090942171709440000),
];

/**
 * The series of halfSinc or halfCos of the squared half angle in local `h2` (h4, h8 set before), left on the stack,
 * grouped as there: 1 + h2·c1 + h4·(c2 + h2·c3) + h8·(c4 + h2·c5 + h4·(c6 + h2·c7)) + h8·h8·(c8 + h2·c9 + h4·(c10 + h2·c11)).
 */
function series(f: Fn, c: readonly number[]): void {
  f.f64(1).get('h2').f64(c[0]).fmul().fadd();
  f.get('h4').f64(c[1]).get('h2').f64(c[2]).fmul().fadd().fmul().fadd();
  f.get('h8').f64(c[3]).get('h2').f64(c[4]).fmul().fadd();
  f.get('h4').f64(c[5]).get('h2').f64(c[6]).fmul().fadd().fmul().fadd().fmul().fadd();
  f.get('h8').get('h8').fmul();
  f.f64(c[7]).get('h2').f64(c[8]).fmul().fadd();
  f.get('h4').f64(c[9]).get('h2').f64(c[10]).fmul().fadd().fmul().fadd().fmul().fadd();
}

/** a · b of locals a and b, left on the stack */
function product(f: Fn, a: string, b: string): Fn {
  return f.get(a).get(b).fmul();
}

/** 1 − 2 (a² + b²) of locals a and b: a rotation matrix's diagonal entry from its quaternion */
function oneMinus(f: Fn, a: string, b: string): Fn {
  f.f64(1).f64(2);
  product(f, a, a);
  product(f, b, b);
  return f.fadd().fmul().fsub();
}

/** 2 (a b ± c d) of locals a, b, c, d: an entry off a rotation matrix's diagonal */
function twice(f: Fn, a: string, b: string, c: string, d: string, plus: boolean): Fn {
  f.f64(2);
  product(f, a, b);
  product(f, c, d);
  return (plus ? f.fadd() : f.fsub()).fmul();
}

/**
 * Locals qx, qy, qz, qw: the exp of the log in locals (lx, ly, lz) by the half-angle series, as logExpSinc and
 * logExpCos of half-angle-series.ts take it (locals x2, h2, h4, h8, halfSin and sinc on the way); a log too long for
 * the series returns local `face` from the function instead.
 */
function expByHalfAngleSeries(f: Fn, lx: string, ly: string, lz: string): void {
  product(f, lx, lx);
  product(f, ly, ly).fadd();
  product(f, lz, lz).fadd().set('x2');
  f.f64(0.25).get('x2').fmul().set('h2');
  f.get('h2').f64(HALF_ANGLE_SERIES_LIMIT).flessEqual().i32(0).equal();
  f.when((g) => g.get('face').ret());
  f.get('h2').get('h2').fmul().set('h4').get('h4').get('h4').fmul().set('h8');
  series(f, SINC);
  f.set('halfSin');
  f.get('halfSin');
  series(f, COS);
  f.fmul().set('sinc');
  f.f64(1).f64(2).get('h2').fmul().get('halfSin').fmul().get('halfSin').fmul().fsub().set('qw');
  f.get(lx).get('sinc').fmul().set('qx');
  f.get(ly).get('sinc').fmul().set('qy');
  f.get(lz).get('sinc').fmul().set('qz');
}

const PARAMS = [
  'from',
  'to',
  'scaled',
  'slotStart',
  'weights',
  'slotPairs',
  'pairBones',
  'cornerRows',
  'products',
  'q',
  'pairLogs',
  'pairScales',
  'rhs',
] as const;

/**
 * The kernel: faces from … to − 1 as accumulateFaceGradients takes them; returns `to`, or the first face whose
 * blended log is too long for the series (nothing of it added yet).
 */
function faceGradients(): Fn {
  const f = new Fn('faceGradients', PARAMS, 'i32');
  f.local('i32', 'face', 'slot', 'end', 'a', 'single', 'o', 'r');
  f.local('f64', 'w', 'lz', 'lx', 'ly', 'x2', 'h2', 'h4', 'h8', 'halfSin', 'sinc', 'qx', 'qy', 'qz', 'qw', 'sx', 'sy', 'sz');
  f.local('f64', 'r20', 'r21', 'r22', 'p0', 'p1', 'p2');
  f.local('v128', 'lxy', 'c0', 'c1', 'c2', 'sxy');
  /** address = base + index · size (index a local or the i32 on the stack) */
  const at = (g: Fn, base: string, size: number): Fn => g.i32(size).mul().get(base).add();
  /** lxy += w · log(xy) and lz += w · log(z) for the log at address `a` (w in local `w`); or = when `first` */
  const addLog = (g: Fn, xy: string, z: string, first: boolean): void => {
    g.get('w').splat().get('a').vload().vmul();
    if (!first) g.get(xy).vadd();
    g.set(xy);
    g.get('w').get('a').load(16).fmul();
    if (!first) g.get(z).fadd();
    g.set(z);
  };
  /** a = the pair log (or scale) array at `base` + 24 · slotPairs[slot local `s`]; w = weights[s] */
  const slotLog = (g: Fn, s: string, base: string): void => {
    at(g.get(s), 'weights', 8).load().set('w');
    at(at(g.get(s), 'slotPairs', 4).loadI32(), base, 24).set('a');
  };
  f.get('from').set('face');
  f.loop(
    (g) => g.get('face').get('to').lessU(),
    (g) => {
      at(g.get('face'), 'slotStart', 4).set('a');
      g.get('a').loadI32().set('slot');
      g.get('a').loadI32(4).set('end');
      // A face on one bone at full weight takes its quaternion as it is.
      g.i32(0).set('single');
      g.get('end').get('slot').sub().i32(1).equal();
      g.when((h) => {
        at(h.get('slot'), 'weights', 8).load().f64(1).fequal();
        h.when((k) => k.i32(1).set('single'));
      });
      g.get('single');
      g.when(
        (h) => {
          at(at(at(h.get('slot'), 'slotPairs', 4).loadI32(), 'pairBones', 8).loadI32(), 'q', 32).set('a');
          h.get('a').load().set('qx').get('a').load(8).set('qy').get('a').load(16).set('qz').get('a').load(24).set('qw');
        },
        (h) => {
          h.vzero().set('lxy').f64Zero().set('lz');
          h.get('end').get('slot').sub().i32(4).greaterEqualS();
          h.when((k) => {
            for (let m = 0; m < 4; m++) {
              slotLog(k, 'slot', 'pairLogs');
              addLog(k, 'lxy', 'lz', m === 0);
              k.step('slot', 1);
            }
          });
          h.loop(
            (k) => k.get('slot').get('end').lessU(),
            (k) => {
              slotLog(k, 'slot', 'pairLogs');
              addLog(k, 'lxy', 'lz', false);
              k.step('slot', 1);
            },
          );
          h.get('lxy').lane(0).set('lx').get('lxy').lane(1).set('ly');
          expByHalfAngleSeries(h, 'lx', 'ly', 'lz');
        },
      );
      // The rotation's columns (r0c, r1c) as vectors, its last row alone.
      oneMinus(g, 'qy', 'qz').splat();
      twice(g, 'qx', 'qy', 'qz', 'qw', true).replaceLane(1).set('c0');
      twice(g, 'qx', 'qy', 'qz', 'qw', false).splat();
      oneMinus(g, 'qx', 'qz').replaceLane(1).set('c1');
      twice(g, 'qx', 'qz', 'qy', 'qw', true).splat();
      twice(g, 'qy', 'qz', 'qx', 'qw', false).replaceLane(1).set('c2');
      twice(g, 'qx', 'qz', 'qy', 'qw', false).set('r20');
      twice(g, 'qy', 'qz', 'qx', 'qw', true).set('r21');
      oneMinus(g, 'qx', 'qy').set('r22');
      // The first phase's scale blend, with bone scales.
      g.f64(1).splat().set('sxy').f64(1).set('sz');
      g.get('scaled');
      g.when((h) => {
        at(h.get('face'), 'slotStart', 4).loadI32().set('slot');
        h.loop(
          (k) => k.get('slot').get('end').lessU(),
          (k) => {
            slotLog(k, 'slot', 'pairScales');
            addLog(k, 'sxy', 'sz', false);
            k.step('slot', 1);
          },
        );
      });
      g.get('sxy').lane(0).set('sx').get('sxy').lane(1).set('sy');
      // Each corner: rhs[row] += R (s̄ ∘ p_i), (x, y) in one vector.
      at(g.get('face'), 'products', 72).set('o');
      at(g.get('face'), 'cornerRows', 12).set('a');
      for (let i = 0; i < 3; i++) {
        g.get('sx')
          .get('o')
          .load(24 * i)
          .fmul()
          .set('p0');
        g.get('sy')
          .get('o')
          .load(24 * i + 8)
          .fmul()
          .set('p1');
        g.get('sz')
          .get('o')
          .load(24 * i + 16)
          .fmul()
          .set('p2');
        at(g.get('a').loadI32(4 * i), 'rhs', 8).set('r');
        g.get('r').get('r').vload();
        g.get('c0').get('p0').splat().vmul().get('c1').get('p1').splat().vmul().vadd().get('c2').get('p2').splat().vmul().vadd();
        g.vadd().vstore();
        g.get('r').get('r').load(16);
        product(g, 'r20', 'p0');
        product(g, 'r21', 'p1').fadd();
        product(g, 'r22', 'p2').fadd();
        g.fadd().store(16);
      }
      g.step('face', 1);
    },
  );
  return f.get('to');
}

/**
 * The blend of the examples' transformations for faces from … to − 1 (perFaceContextProductRange of
 * per-face-example-blend.ts, Eq. 9 or 10): out's nine products per face from the rest products and the active
 * examples' stored offsets (float32), the JavaScript's operations in its order. Returns `to`, or the first face whose
 * blended log is too long for the series (Eq. 10; nothing of it written), for the JavaScript to blend.
 * Arguments, byte offsets but from, to, eq10 (0 or 1), exampleCount (J) and count (the active examples):
 *   active, activeWeights   the active examples' indices (Int32) and weights (Float64)
 *   offsets                 the examples' productOffsets (Eq. 9: 6 a face and example) or polarOffsets (Eq. 10: 9)
 *   products, out           #F × 9 the rest products, and the blended ones written
 */
function contextProducts(): Fn {
  const params = ['from', 'to', 'eq10', 'exampleCount', 'count', 'active', 'activeWeights', 'offsets', 'products', 'out'];
  const f = new Fn('contextProducts', params, 'i32');
  f.local('i32', 'face', 'k', 'e', 'o', 'q', 'stride');
  const sums = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8'];
  f.local('f64', 'a', ...sums, 'x2', 'h2', 'h4', 'h8', 'halfSin', 'sinc', 'qx', 'qy', 'qz', 'qw');
  const r = ['r00', 'r01', 'r02', 'r10', 'r11', 'r12', 'r20', 'r21', 'r22'];
  const m = ['m00', 'm01', 'm02', 'm10', 'm11', 'm12', 'm20', 'm21', 'm22'];
  f.local('f64', ...r, ...m, 'p0', 'p1', 'p2', 'p3', 'p4', 'p5');
  // Offsets per face and example: 6 float32 (Eq. 9) or 9 (Eq. 10).
  f.i32(36).i32(24).get('eq10').select().set('stride');
  /** sums[i] += a · offset i of the active example k (local), for i < n */
  const addOffsets = (g: Fn, n: number): void => {
    g.loop(
      (h) => h.get('k').get('count').lessU(),
      (h) => {
        h.get('k').i32(8).mul().get('activeWeights').add().load().set('a');
        h.get('face').get('exampleCount').mul().get('k').i32(4).mul().get('active').add().loadI32().add();
        h.get('stride').mul().get('offsets').add().set('e');
        for (let i = 0; i < n; i++)
          h.get(sums[i])
            .get('a')
            .get('e')
            .loadF32(4 * i)
            .fmul()
            .fadd()
            .set(sums[i]);
        h.step('k', 1);
      },
    );
  };
  /** out's products of the face at o: v0 … v5, then corner 2 = −v0 − v3, −v1 − v4, −v2 − v5 */
  const store = (g: Fn, v: readonly string[]): void => {
    g.get('face').i32(72).mul().get('out').add().set('q');
    for (let i = 0; i < 6; i++)
      g.get('q')
        .get(v[i])
        .store(8 * i);
    for (let i = 0; i < 3; i++)
      g.get('q')
        .get(v[i])
        .fneg()
        .get(v[i + 3])
        .fsub()
        .store(48 + 8 * i);
  };
  f.get('from').set('face');
  f.loop(
    (g) => g.get('face').get('to').lessU(),
    (g) => {
      g.get('face').i32(72).mul().get('products').add().set('o');
      g.i32(0).set('k');
      g.get('eq10');
      g.when(
        (h) => {
          // log (b0, b1, b2) and S = [[b3 b4 b5] [b4 b6 b7] [b5 b7 b8]], starting from I
          for (let i = 0; i < 9; i++) h.f64([3, 6, 8].includes(i) ? 1 : 0).set(sums[i]);
          addOffsets(h, 9);
          expByHalfAngleSeries(h, 'b0', 'b1', 'b2');
          oneMinus(h, 'qy', 'qz').set('r00');
          twice(h, 'qx', 'qy', 'qz', 'qw', false).set('r01');
          twice(h, 'qx', 'qz', 'qy', 'qw', true).set('r02');
          twice(h, 'qx', 'qy', 'qz', 'qw', true).set('r10');
          oneMinus(h, 'qx', 'qz').set('r11');
          twice(h, 'qy', 'qz', 'qx', 'qw', false).set('r12');
          twice(h, 'qx', 'qz', 'qy', 'qw', false).set('r20');
          twice(h, 'qy', 'qz', 'qx', 'qw', true).set('r21');
          oneMinus(h, 'qx', 'qy').set('r22');
          // M = R S, S's columns (b3 b4 b5), (b4 b6 b7), (b5 b7 b8)
          const columnsOfS = [
            ['b3', 'b4', 'b5'],
            ['b4', 'b6', 'b7'],
            ['b5', 'b7', 'b8'],
          ];
          for (let row = 0; row < 3; row++)
            for (let col = 0; col < 3; col++) {
              product(h, r[3 * row], columnsOfS[col][0]);
              product(h, r[3 * row + 1], columnsOfS[col][1]).fadd();
              product(h, r[3 * row + 2], columnsOfS[col][2])
                .fadd()
                .set(m[3 * row + col]);
            }
          for (let i = 0; i < 6; i++)
            h.get('o')
              .load(8 * i)
              .set(`p${i}`);
          // corner c's product: M p_c, p_c = (p_{3c}, p_{3c+1}, p_{3c+2})
          for (let c = 0; c < 2; c++)
            for (let row = 0; row < 3; row++) {
              product(h, m[3 * row], `p${3 * c}`);
              product(h, m[3 * row + 1], `p${3 * c + 1}`).fadd();
              product(h, m[3 * row + 2], `p${3 * c + 2}`)
                .fadd()
                .set(sums[3 * c + row]);
            }
          store(h, sums);
        },
        (h) => {
          for (let i = 0; i < 6; i++)
            h.get('o')
              .load(8 * i)
              .set(sums[i]);
          addOffsets(h, 6);
          store(h, sums);
        },
      );
      g.step('face', 1);
    },
  );
  return f.get('to');
}

/** The face loop's instance on one memory (another thread instantiates its own on a shared memory). */
export interface FaceKernel {
  readonly memory: WebAssembly.Memory;
  /** the memory's buffer when instantiated: the arrays it takes are views of it (see PanelKernels.buffer) */
  readonly buffer: ArrayBufferLike;
  /** see the module comment; returns `to` or the first face left for the JavaScript loop */
  faceGradients(
    from: number,
    to: number,
    scaled: number,
    slotStart: number,
    weights: number,
    slotPairs: number,
    pairBones: number,
    cornerRows: number,
    products: number,
    q: number,
    pairLogs: number,
    pairScales: number,
    rhs: number,
  ): number;
  /** see contextProducts: returns `to` or the first face left for the JavaScript */
  contextProducts(
    from: number,
    to: number,
    eq10: number,
    exampleCount: number,
    count: number,
    active: number,
    activeWeights: number,
    offsets: number,
    products: number,
    out: number,
  ): number;
}

const compiled: { plain?: WebAssembly.Module | null; shared?: WebAssembly.Module | null } = {};

/**
 * The face kernel instantiated on a memory (panelMemory's, holding the face arrays and the right-hand sides), or
 * null where this runtime cannot compile it: then the JavaScript loop runs. `buffer` as panelKernels'.
 */
export function faceKernel(memory: WebAssembly.Memory, buffer: ArrayBufferLike = memory.buffer): FaceKernel | null {
  const shared = typeof SharedArrayBuffer === 'function' && memory.buffer instanceof SharedArrayBuffer;
  const key = shared ? 'shared' : 'plain';
  let module = compiled[key];
  if (module === undefined) {
    module = compileModule(moduleBytes([faceGradients(), contextProducts()], shared));
    compiled[key] = module;
  }
  if (module === null) return null;
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const exports = instance.exports as unknown as Pick<FaceKernel, 'faceGradients' | 'contextProducts'>;
  return { memory, buffer, faceGradients: exports.faceGradients, contextProducts: exports.contextProducts };
}
