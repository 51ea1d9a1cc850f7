/**
 * The cotangent Laplacian's free block as WebAssembly: cotangentLaplacian restricted to a column mask
 * (cotangent-laplacian.ts, edge-weight-matrix.ts), then the lower triangle of its free columns in free numbering and
 * the free–handle couplings (harmonic-weights.ts's freeBlock), in one memory. The arithmetic is the JavaScript's,
 * operation for operation and in the same order, so the block and the couplings are the same bit for bit (a unit test
 * holds them equal).
 *
 * What it saves is V8's warm-up: a process's first binding ran these passes in the interpreter (about half of the
 * hand's first binding), and the passes' scattered reads are bounds-checked when warm. The module is written with the
 * builder of sparse/wasm-module.ts and kept here as base64 (LAPLACIAN_MODULE_BASE64, checked by a unit test).
 *
 * Memory (byte offsets passed to every function): the positions, the corner weights, the triangles, the free
 * numbering, the handles, the slots' starts and fills, each vertex's slot, the block's and couplings' lengths, the
 * mask (bytes); then, sized by the slots' count, the slots' rows and values, the block and the couplings (the memory
 * grows for them when short).
 */
import type { CscMatrix } from '../sparse/csc-matrix.ts';
import {
  addInt,
  ByteLayout,
  Fn,
  grown,
  kernelMemoriesOf,
  local,
  moduleBytes,
  overRanges,
  PAGE,
  range,
  readInt as read,
  writeInt as write,
  type Emit,
} from '../sparse/wasm-module.ts';
import { COTANGENT_BOUND, ZERO_AREA } from './cotangent-laplacian.ts';

/** the Float64 array[index] (its address pushed) */
const f64At = (g: Fn, array: string, index: Emit): Fn => {
  index(g);
  return g.i32(8).mul().get(array).add();
};
const readF64 = (g: Fn, array: string, index: Emit): Fn => f64At(g, array, index).load();
/** the mask's byte of vertex (local) v */
const masked = (g: Fn, v: string): Fn => g.get(v).get('mask').add().loadU8();

/**
 * slots(from, to, n, triangles, mask, start) → −1, or the first corner in [from, to) naming a vertex outside [0, n):
 * start[v + 1] counts two slots per face of an assembled vertex v, as edgeWeightMatrix lays them out.
 */
function slots(): Fn {
  const f = new Fn('slots', ['from', 'to', 'n', 'triangles', 'mask', 'start'], 'i32');
  f.local('i32', 't', 'v', 'q');
  range(f, 't', local('from'), local('to'), (g) => {
    read(g, 'triangles', local('t')).set('v');
    g.get('v').get('n').lessU().isZero();
    g.when((h) => h.get('t').ret());
    masked(g, 'v');
    g.when((h) =>
      addInt(
        h,
        'start',
        (k) => k.get('v').i32(1).add(),
        (k) => k.i32(2),
        'q',
      ),
    );
  });
  return f.i32(-1);
}

/** prefix(from, to, start): start's prefix sums over [from, to), with one slot more per vertex (the diagonal's) */
function prefix(): Fn {
  const f = new Fn('prefix', ['from', 'to', 'start']);
  f.local('i32', 'i');
  range(f, 'i', local('from'), local('to'), (g) =>
    write(
      g,
      'start',
      (h) => h.get('i').i32(1).add(),
      (h) => {
        read(h, 'start', (k) => k.get('i').i32(1).add());
        read(h, 'start', local('i'));
        h.i32(1).add().add();
      },
    ),
  );
  return f;
}

/**
 * weights(from, to, positions, triangles, mask, weights): over faces [from, to), cotangentWeights — ½ cot of each corner's angle, scaled
 * down together past COTANGENT_BOUND, zero for faces of zero area; faces of no assembled vertex are skipped.
 */
function weights(): Fn {
  const f = new Fn('weights', ['from', 'to', 'positions', 'triangles', 'mask', 'weights']);
  f.local('i32', 'face', 'ia', 'ib', 'ic', 'pa', 'pb', 'pc', 'out');
  const names = ['abx', 'aby', 'abz', 'acx', 'acy', 'acz', 'bcx', 'bcy', 'bcz', 'crossX', 'crossY', 'crossZ'];
  f.local('f64', ...names, 'doubleArea', 'edgeSquares', 'dotA', 'dotB', 'dotC', 'scale');
  /** a · b + c · d + e · f, left to right, over locals */
  const dot = (g: Fn, terms: [string, string][]): Fn => {
    terms.forEach(([a, b], k) => {
      g.get(a).get(b).fmul();
      if (k > 0) g.fadd();
    });
    return g;
  };
  range(f, 'face', local('from'), local('to'), (g) => {
    for (const [corner, at] of [
      ['ia', 0],
      ['ib', 1],
      ['ic', 2],
    ] as const)
      read(g, 'triangles', (h) => h.get('face').i32(3).mul().i32(at).add()).set(corner);
    masked(g, 'ia');
    masked(g, 'ib').or();
    masked(g, 'ic').or();
    g.when((h) => {
      for (const [corner, p] of [
        ['ia', 'pa'],
        ['ib', 'pb'],
        ['ic', 'pc'],
      ] as const)
        f64At(h, 'positions', (k) => k.get(corner).i32(3).mul()).set(p);
      // ab = b − a, ac = c − a, bc = ac − ab
      ['x', 'y', 'z'].forEach((axis, k) => {
        h.get('pb')
          .load(8 * k)
          .get('pa')
          .load(8 * k)
          .fsub()
          .set(`ab${axis}`);
        h.get('pc')
          .load(8 * k)
          .get('pa')
          .load(8 * k)
          .fsub()
          .set(`ac${axis}`);
      });
      ['x', 'y', 'z'].forEach((axis) => h.get(`ac${axis}`).get(`ab${axis}`).fsub().set(`bc${axis}`));
      h.get('aby').get('acz').fmul().get('abz').get('acy').fmul().fsub().set('crossX');
      h.get('abz').get('acx').fmul().get('abx').get('acz').fmul().fsub().set('crossY');
      h.get('abx').get('acy').fmul().get('aby').get('acx').fmul().fsub().set('crossZ');
      dot(h, [
        ['crossX', 'crossX'],
        ['crossY', 'crossY'],
        ['crossZ', 'crossZ'],
      ])
        .fsqrt()
        .set('doubleArea');
      dot(
        h,
        ['abx', 'aby', 'abz', 'acx', 'acy', 'acz', 'bcx', 'bcy', 'bcz'].map((v) => [v, v] as [string, string]),
      ).set('edgeSquares');
      f64At(h, 'weights', (m) => m.get('face').i32(3).mul()).set('out');
      h.get('doubleArea').f64(ZERO_AREA).get('edgeSquares').fmul().fgreater();
      h.when(
        (k) => {
          dot(k, [
            ['abx', 'acx'],
            ['aby', 'acy'],
            ['abz', 'acz'],
          ]).set('dotA');
          dot(k, [
            ['abx', 'bcx'],
            ['aby', 'bcy'],
            ['abz', 'bcz'],
          ])
            .fneg()
            .set('dotB');
          dot(k, [
            ['acx', 'bcx'],
            ['acy', 'bcy'],
            ['acz', 'bcz'],
          ]).set('dotC');
          k.f64(0.5);
          k.get('doubleArea');
          k.get('dotA').fabs().get('dotB').fabs().fmax().get('dotC').fabs().fmax();
          k.f64(COTANGENT_BOUND).fdiv().fmax().fdiv().set('scale');
          ['dotA', 'dotB', 'dotC'].forEach((d, c) => {
            k.get('out')
              .get(d)
              .get('scale')
              .fmul()
              .store(8 * c);
          });
        },
        // zero area: no usable cotangent (the weights of faces with no assembled vertex are never read)
        (k) =>
          [0, 1, 2].forEach((c) =>
            k
              .get('out')
              .f64Zero()
              .store(8 * c),
          ),
      );
    });
  });
  return f;
}

/**
 * fill(from, to, triangles, mask, weights, next, rows, values): faces [from, to), in order: each assembled corner's
 * two slots, (neighbour,
 * weight of the edge to it), in face order (next: each vertex's next slot, from its start + 1).
 */
function fill(): Fn {
  const f = new Fn('fill', ['from', 'to', 'triangles', 'mask', 'weights', 'next', 'rows', 'values']);
  f.local('i32', 'face', 'a', 'b', 'c', 'q', 'w');
  const corners = ['a', 'b', 'c'];
  range(f, 'face', local('from'), local('to'), (g) => {
    corners.forEach((corner, at) => read(g, 'triangles', (h) => h.get('face').i32(3).mul().i32(at).add()).set(corner));
    f64At(g, 'weights', (h) => h.get('face').i32(3).mul()).set('w');
    // corner a: (b, weight of edge a–b: corner c's), (c, corner b's); and round
    corners.forEach((corner, at) => {
      const next = corners[(at + 1) % 3];
      const after = corners[(at + 2) % 3];
      masked(g, corner);
      g.when((h) => {
        read(h, 'next', local(corner)).set('q');
        write(h, 'rows', local('q'), local(next));
        f64At(h, 'values', local('q'))
          .get('w')
          .load(8 * ((at + 2) % 3))
          .store();
        write(h, 'rows', (k) => k.get('q').i32(1).add(), local(after));
        f64At(h, 'values', local('q'))
          .get('w')
          .load(8 * ((at + 1) % 3))
          .store(8);
        write(h, 'next', local(corner), (k) => k.get('q').i32(2).add());
      });
    });
  });
  return f;
}

const COLUMN_PARAMS = [
  'from',
  'to',
  'mask',
  'start',
  'rows',
  'values',
  'slot',
  'freeIndex',
  'handles',
  'pointers',
  'blockRows',
  'blockValues',
  'couplingFree',
  'couplingBone',
  'couplingValue',
  'counts',
];

/**
 * columns(…COLUMN_PARAMS): over columns [from, to), each assembled column's slots merged in place into sorted rows (edgeWeightMatrix: the
 * diagonal the sum of the weights, each neighbour minus the sum of its edge's; slot: each vertex's place in the
 * column being merged, −1 on entry), then at once split as freeBlock splits it: the rows at or below the column's
 * free index into the block, the handles' into the couplings. counts: the block's and the couplings' lengths and
 * the merged slots' end, read at the start and written at the end (zero before the first range).
 */
function columns(): Fn {
  const f = new Fn('columns', COLUMN_PARAMS);
  f.local('i32', 'i', 'write', 'first', 'p', 'end', 'j', 's', 'q', 'r', 'g', 'column', 'blockEnd', 'couplingEnd', 'h');
  f.local('f64', 'w', 'diagonal');
  // Where the merged slots, the block and the couplings have got to: carried from one range of columns to the next.
  f.get('counts').loadI32().set('blockEnd');
  f.get('counts').loadI32(4).set('couplingEnd');
  f.get('counts').loadI32(8).set('write');
  range(f, 'i', local('from'), local('to'), (g) => {
    masked(g, 'i');
    g.when((h) => {
      h.get('write').set('first');
      h.f64Zero().set('diagonal');
      write(h, 'rows', local('write'), local('i'));
      write(h, 'slot', local('i'), local('write'));
      h.step('write', 1);
      read(h, 'start', (k) => k.get('i').i32(1).add()).set('end');
      range(
        h,
        'p',
        (k) => read(k, 'start', local('i')).i32(1).add(),
        local('end'),
        (k) => {
          read(k, 'rows', local('p')).set('j');
          readF64(k, 'values', local('p')).set('w');
          k.get('diagonal').get('w').fadd().set('diagonal');
          read(k, 'slot', local('j')).set('s');
          k.get('s').get('first').greaterEqualS();
          k.when(
            (m) => {
              f64At(m, 'values', local('s')).set('q');
              m.get('q').get('q').load().get('w').fsub().store();
            },
            (m) => {
              // insertion into the column's sorted run
              m.get('write').set('q');
              m.step('write', 1);
              m.loop(
                (r) => {
                  r.get('q').get('first').greaterS();
                  read(r, 'rows', (t) => t.get('q').i32(1).sub())
                    .get('j')
                    .greaterS();
                  r.and();
                },
                (r) => {
                  read(r, 'rows', (t) => t.get('q').i32(1).sub()).set('r');
                  write(r, 'rows', local('q'), local('r'));
                  f64At(r, 'values', local('q'));
                  readF64(r, 'values', (t) => t.get('q').i32(1).sub());
                  r.store();
                  write(r, 'slot', local('r'), local('q'));
                  r.step('q', -1);
                },
              );
              write(m, 'rows', local('q'), local('j'));
              f64At(m, 'values', local('q')).get('w').fneg().store();
              write(m, 'slot', local('j'), local('q'));
            },
          );
        },
      );
      f64At(h, 'values', (k) => read(k, 'slot', local('i')))
        .get('diagonal')
        .store();
      // The column split as freeBlock splits it.
      read(h, 'freeIndex', local('i')).set('column');
      range(h, 'p', local('first'), local('write'), (k) => {
        read(k, 'rows', local('p')).set('r');
        read(k, 'freeIndex', local('r')).set('g');
        k.get('g').get('column').greaterEqualS();
        k.when(
          (m) => {
            write(m, 'blockRows', local('blockEnd'), local('g'));
            f64At(m, 'blockValues', local('blockEnd'));
            readF64(m, 'values', local('p'));
            m.store();
            m.step('blockEnd', 1);
          },
          (m) => {
            read(m, 'handles', local('r')).set('h');
            m.get('h').i32(0).greaterEqualS();
            m.when((t) => {
              write(t, 'couplingFree', local('couplingEnd'), local('column'));
              write(t, 'couplingBone', local('couplingEnd'), local('h'));
              f64At(t, 'couplingValue', local('couplingEnd'));
              readF64(t, 'values', local('p'));
              t.store();
              t.step('couplingEnd', 1);
            });
          },
        );
      });
      write(h, 'pointers', (k) => k.get('column').i32(1).add(), local('blockEnd'));
    });
  });
  f.get('counts').get('blockEnd').storeI32();
  f.get('counts').get('couplingEnd').storeI32(4);
  f.get('counts').get('write').storeI32(8);
  return f;
}

/** The module's bytes, written by the builder. */
export function laplacianModuleBytes(): Uint8Array<ArrayBuffer> {
  return moduleBytes([slots(), prefix(), weights(), fill(), columns()], false);
}

/** laplacianModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const LAPLACIAN_MODULE_BASE64 = [
  'AGFzbQEAAAABOAVgBn9/f39/fwF/YAN/f38AYAZ/f39/f38AYAh/f39/f39/fwBgEH9/f39/f39/f39/f39/f38AAhIBA2VudgZt',
  'ZW1vcnkCAQCAgAIDBgUAAQIDBActBQVzbG90cwAABnByZWZpeAABB3dlaWdodHMAAgRmaWxsAAMHY29sdW1ucwAECpAOBV8BA38g',
  'ACEGAkADQCAGIAFIRQ0BIAZBBGwgA2ooAgAhByAHIAJJRQRAIAYPCyAHIARqLQAABEAgB0EBakEEbCAFaiEIIAggCCgCAEECajYC',
  'AAsgBkEBaiEGDAALC0F/C0oBAX8gACEDAkADQCADIAFIRQ0BIANBAWpBBGwgAmogA0EBakEEbCACaigCACADQQRsIAJqKAIAQQFq',
  'ajYCACADQQFqIQMMAAsLC7kEAgh/EnwgACEGAkADQCAGIAFIRQ0BIAZBA2xBAGpBBGwgA2ooAgAhByAGQQNsQQFqQQRsIANqKAIA',
  'IQggBkEDbEECakEEbCADaigCACEJIAcgBGotAAAgCCAEai0AAHIgCSAEai0AAHIEQCAHQQNsQQhsIAJqIQogCEEDbEEIbCACaiEL',
  'IAlBA2xBCGwgAmohDCALKwMAIAorAwChIQ4gDCsDACAKKwMAoSERIAsrAwggCisDCKEhDyAMKwMIIAorAwihIRIgCysDECAKKwMQ',
  'oSEQIAwrAxAgCisDEKEhEyARIA6hIRQgEiAPoSEVIBMgEKEhFiAPIBOiIBAgEqKhIRcgECARoiAOIBOioSEYIA4gEqIgDyARoqEh',
  'GSAXIBeiIBggGKKgIBkgGaKgnyEaIA4gDqIgDyAPoqAgECAQoqAgESARoqAgEiASoqAgEyAToqAgFCAUoqAgFSAVoqAgFiAWoqAh',
  'GyAGQQNsQQhsIAVqIQ0gGkSbK6GGm4QGPSAbomQEQCAOIBGiIA8gEqKgIBAgE6KgIRwgDiAUoiAPIBWioCAQIBaioJohHSARIBSi',
  'IBIgFaKgIBMgFqKgIR5EAAAAAAAA4D8gGiAcmSAdmaUgHpmlRAAAAAAAiMNAo6WjIR8gDSAcIB+iOQMAIA0gHSAfojkDCCANIB4g',
  'H6I5AxAFIA1EAAAAAAAAAAA5AwAgDUQAAAAAAAAAADkDCCANRAAAAAAAAAAAOQMQCwsgBkEBaiEGDAALCwuUAwEGfyAAIQgCQANA',
  'IAggAUhFDQEgCEEDbEEAakEEbCACaigCACEJIAhBA2xBAWpBBGwgAmooAgAhCiAIQQNsQQJqQQRsIAJqKAIAIQsgCEEDbEEIbCAE',
  'aiENIAkgA2otAAAEQCAJQQRsIAVqKAIAIQwgDEEEbCAGaiAKNgIAIAxBCGwgB2ogDSsDEDkDACAMQQFqQQRsIAZqIAs2AgAgDEEI',
  'bCAHaiANKwMIOQMIIAlBBGwgBWogDEECajYCAAsgCiADai0AAARAIApBBGwgBWooAgAhDCAMQQRsIAZqIAs2AgAgDEEIbCAHaiAN',
  'KwMAOQMAIAxBAWpBBGwgBmogCTYCACAMQQhsIAdqIA0rAxA5AwggCkEEbCAFaiAMQQJqNgIACyALIANqLQAABEAgC0EEbCAFaigC',
  'ACEMIAxBBGwgBmogCTYCACAMQQhsIAdqIA0rAwg5AwAgDEEBakEEbCAGaiAKNgIAIAxBCGwgB2ogDSsDADkDCCALQQRsIAVqIAxB',
  'Amo2AgALIAhBAWohCAwACwsLkQUCDn8CfCAPKAIAIRsgDygCBCEcIA8oAgghESAAIRACQANAIBAgAUhFDQEgECACai0AAARAIBEh',
  'EkQAAAAAAAAAACEfIBFBBGwgBGogEDYCACAQQQRsIAZqIBE2AgAgEUEBaiERIBBBAWpBBGwgA2ooAgAhFCAQQQRsIANqKAIAQQFq',
  'IRMCQANAIBMgFEhFDQEgE0EEbCAEaigCACEVIBNBCGwgBWorAwAhHiAfIB6gIR8gFUEEbCAGaigCACEWIBYgEk4EQCAWQQhsIAVq',
  'IRcgFyAXKwMAIB6hOQMABSARIRcgEUEBaiERAkADQCAXIBJKIBdBAWtBBGwgBGooAgAgFUpxRQ0BIBdBAWtBBGwgBGooAgAhGCAX',
  'QQRsIARqIBg2AgAgF0EIbCAFaiAXQQFrQQhsIAVqKwMAOQMAIBhBBGwgBmogFzYCACAXQX9qIRcMAAsLIBdBBGwgBGogFTYCACAX',
  'QQhsIAVqIB6aOQMAIBVBBGwgBmogFzYCAAsgE0EBaiETDAALCyAQQQRsIAZqKAIAQQhsIAVqIB85AwAgEEEEbCAHaigCACEaIBIh',
  'EwJAA0AgEyARSEUNASATQQRsIARqKAIAIRggGEEEbCAHaigCACEZIBkgGk4EQCAbQQRsIApqIBk2AgAgG0EIbCALaiATQQhsIAVq',
  'KwMAOQMAIBtBAWohGwUgGEEEbCAIaigCACEdIB1BAE4EQCAcQQRsIAxqIBo2AgAgHEEEbCANaiAdNgIAIBxBCGwgDmogE0EIbCAF',
  'aisDADkDACAcQQFqIRwLCyATQQFqIRMMAAsLIBpBAWpBBGwgCWogGzYCAAsgEEEBaiEQDAALCyAPIBs2AgAgDyAcNgIEIA8gETYC',
  'CAs=',
].join('');

/**
 * Faces (or corners) and vertices per call of a pass: a module's functions start in V8's baseline code and are
 * optimized once they have run a while, but a call keeps the code it started in (see symbolic-kernel.ts).
 */
const FACE_RANGE = 16_384;
const VERTEX_RANGE = 8_192;

/** The module's memories: blocks whose arrays fit run in the scratch memory. */
const laplacianMemories = kernelMemoriesOf(LAPLACIAN_MODULE_BASE64);

/** The free block of K, numbered by the free indices, and the free–handle couplings (harmonic-weights.ts). */
export interface FreeBlock {
  kff: CscMatrix;
  couplingFree: Int32Array;
  couplingBone: Int32Array;
  couplingValue: Float64Array;
}

/**
 * freeBlock(cotangentLaplacian(positions, triangles, isFree), freeIndex, freeCount, handles) in WebAssembly.
 * @param isFree    #V: 1 for the free vertices (those with a free index)
 * @param freeIndex #V: each free vertex's index (increasing with the vertex), −1 for the others
 * @returns the block and couplings, or null where WebAssembly is unavailable, no memory can be had or a triangle
 *          names a vertex outside the mesh (the JavaScript then assembles, and reports that)
 */
export function kernelCotangentFreeBlock(
  positions: Float64Array,
  triangles: Uint32Array,
  isFree: Uint8Array,
  freeIndex: Int32Array,
  freeCount: number,
  handles: Int32Array,
): FreeBlock | null {
  const n = Math.floor(positions.length / 3);
  const faces = Math.floor(triangles.length / 3);
  // Byte offsets, each array on a 64-byte line; the slots' count (at most n + 6 · faces) is known after `slots`.
  const layout = new ByteLayout(64);
  const take = (bytes: number): number => layout.take(bytes);
  const positionsAt = take(8 * 3 * n);
  const weightsAt = take(8 * 3 * faces);
  const trianglesAt = take(4 * 3 * faces);
  const freeIndexAt = take(4 * n);
  const handlesAt = take(4 * n);
  const startAt = take(4 * (n + 1));
  const nextAt = take(4 * n);
  const slotAt = take(4 * n);
  const countsAt = take(12);
  const maskAt = take(n);
  const memories = laplacianMemories();
  const bound = memories?.take(layout.end);
  if (!memories || !bound) return null;
  const pass = bound.exports as Record<string, (...args: number[]) => number>;
  const { memory } = bound;
  new Float64Array(memory.buffer, positionsAt, 3 * n).set(positions);
  new Uint32Array(memory.buffer, trianglesAt, 3 * faces).set(triangles.subarray(0, 3 * faces));
  new Int32Array(memory.buffer, freeIndexAt, n).set(freeIndex);
  new Int32Array(memory.buffer, handlesAt, n).set(handles);
  new Int32Array(memory.buffer, startAt, n + 1).fill(0);
  new Int32Array(memory.buffer, slotAt, n).fill(-1);
  new Uint8Array(memory.buffer, maskAt, n).set(isFree);
  if (overRanges(3 * faces, FACE_RANGE, (from, to) => pass.slots(from, to, n, trianglesAt, maskAt, startAt)) !== -1) {
    memories.done(memory);
    return null;
  }
  overRanges(n, VERTEX_RANGE, (from, to) => pass.prefix(from, to, startAt));
  const slotCount = new Int32Array(memory.buffer, startAt, n + 1)[n];
  const rowsAt = take(4 * slotCount);
  const valuesAt = take(8 * slotCount);
  const pointersAt = take(4 * (freeCount + 1));
  const blockRowsAt = take(4 * slotCount);
  const blockValuesAt = take(8 * slotCount);
  const couplingFreeAt = take(4 * slotCount);
  const couplingBoneAt = take(4 * slotCount);
  const couplingValueAt = take(8 * slotCount);
  if (!grown(memory, Math.ceil(layout.end / PAGE))) {
    memories.done(memory);
    return null;
  }
  const ints = new Int32Array(memory.buffer);
  ints.copyWithin(nextAt / 4, startAt / 4, startAt / 4 + n);
  for (let i = 0; i < n; i++) ints[nextAt / 4 + i]++;
  ints[pointersAt / 4] = 0;
  overRanges(faces, FACE_RANGE, (from, to) => pass.weights(from, to, positionsAt, trianglesAt, maskAt, weightsAt));
  overRanges(faces, FACE_RANGE, (from, to) => pass.fill(from, to, trianglesAt, maskAt, weightsAt, nextAt, rowsAt, valuesAt));
  new Int32Array(memory.buffer, countsAt, 3).fill(0);
  overRanges(n, VERTEX_RANGE, (from, to) =>
    pass.columns(
      from,
      to,
      maskAt,
      startAt,
      rowsAt,
      valuesAt,
      slotAt,
      freeIndexAt,
      handlesAt,
      pointersAt,
      blockRowsAt,
      blockValuesAt,
      couplingFreeAt,
      couplingBoneAt,
      couplingValueAt,
      countsAt,
    ),
  );
  const [blockLength, couplings] = new Int32Array(memory.buffer, countsAt, 2);
  const block: FreeBlock = {
    kff: {
      rows: freeCount,
      cols: freeCount,
      colPointers: new Int32Array(memory.buffer, pointersAt, freeCount + 1).slice(),
      rowIndices: new Int32Array(memory.buffer, blockRowsAt, blockLength).slice(),
      values: new Float64Array(memory.buffer, blockValuesAt, blockLength).slice(),
    },
    couplingFree: new Int32Array(memory.buffer, couplingFreeAt, couplings).slice(),
    couplingBone: new Int32Array(memory.buffer, couplingBoneAt, couplings).slice(),
    couplingValue: new Float64Array(memory.buffer, couplingValueAt, couplings).slice(),
  };
  memories.done(memory);
  return block;
}
