/**
 * Two passes over a whole mesh that a binding runs first, as WebAssembly: the exact welding's hash of positions
 * (weld-vertices.ts) and the connected components' union-find (connected-components.ts). The steps are the
 * JavaScript's in the same order, so the roots and labels are the same (a unit test holds them equal).
 *
 * What it saves is V8's warm-up: on a process's first binding both loops ran in the interpreter (the body's 12 of
 * its first binding's 60–110 ms). The module is written with the builder of sparse/wasm-module.ts and kept here as
 * base64 (MESH_MODULE_BASE64, checked by a unit test). Inputs that would not fit the kernels' scratch memory
 * stay in JavaScript: a memory of their own would cost its fresh pages and a copy where the JavaScript's arrays cost
 * the pages alone.
 */
import {
  ByteLayout,
  Fn,
  kernelMemoriesOf,
  local,
  moduleBytes,
  overRanges,
  range,
  readInt as read,
  writeInt as write,
} from '../sparse/wasm-module.ts';

/** The welding hash's multipliers of x, y and z (weld-vertices.ts's `mix` and the kernel's `roots` alike). */
export const WELD_HASH = [73856093, 19349663, 83492791] as const;

const VERTEX_RANGE = 8_192;
const FACE_RANGE = 16_384;

/**
 * roots(from, to, positions, head, next, root, mask) → the vertices in [from, to) at the position of an earlier one:
 * each such vertex's root is that first vertex, every other vertex is its own root and joins its bucket's list.
 */
function roots(): Fn {
  const f = new Fn('roots', ['from', 'to', 'positions', 'head', 'next', 'root', 'mask'], 'i32');
  f.local('i32', 'v', 'p', 'q', 'u', 'bucket', 'same');
  f.local('f64', 'x', 'y', 'z');
  range(f, 'v', local('from'), local('to'), (g) => {
    write(g, 'root', local('v'), local('v'));
    g.get('v').i32(24).mul().get('positions').add().set('p');
    ['x', 'y', 'z'].forEach((axis, k) =>
      g
        .get('p')
        .load(8 * k)
        .set(axis),
    );
    // The coordinates' 32-bit halves xor'd, 0 for ±0; mixed as the JavaScript's `mix`.
    ['x', 'y', 'z'].forEach((axis, k) => {
      g.i32(0);
      g.get('p')
        .loadI32(8 * k)
        .get('p')
        .loadI32(8 * k + 4)
        .xor();
      g.get(axis).f64Zero().fequal().select();
      g.i32(WELD_HASH[k]).mul();
      if (k > 0) g.xor();
    });
    g.get('mask').and().set('bucket');
    read(g, 'head', local('bucket')).set('u');
    // Walk the bucket's list to the first vertex at exactly this position (u < 0: none). The position of a u < 0 is
    // read too (the memory before `positions` is padding) and discarded by the `and`.
    const same = (h: Fn): void => {
      h.get('u').i32(24).mul().get('positions').add().set('q');
      ['x', 'y', 'z'].forEach((axis, k) => {
        h.get('q')
          .load(8 * k)
          .get(axis)
          .fequal();
        if (k > 0) h.and();
      });
    };
    g.loop(
      (h) => {
        h.get('u').i32(0).greaterEqualS();
        same(h);
        h.isZero().and();
      },
      (h) => read(h, 'next', local('u')).set('u'),
    );
    g.get('u').i32(0).greaterEqualS();
    g.when(
      (h) => {
        write(h, 'root', local('v'), local('u'));
        h.step('same', 1);
      },
      (h) => {
        write(h, 'next', local('v'), (k) => read(k, 'head', local('bucket')));
        write(h, 'head', local('bucket'), local('v'));
      },
    );
  });
  return f.get('same');
}

/** fill(from, to, array): array[i] = i over [from, to) */
function identity(): Fn {
  const f = new Fn('identity', ['from', 'to', 'array']);
  f.local('i32', 'i');
  range(f, 'i', local('from'), local('to'), (g) => write(g, 'array', local('i'), local('i')));
  return f;
}

/**
 * unite(from, to, n, triangles, root) → −1, or the first face in [from, to) naming a vertex outside [0, n): joins each
 * face's corners (union-find with path halving, the smaller root kept).
 */
function unite(): Fn {
  const f = new Fn('unite', ['from', 'to', 'n', 'triangles', 'root'], 'i32');
  f.local('i32', 'face', 'a', 'b', 'c', 'ra', 'rb', 't');
  /** local x = its root, halving the path on the way */
  const find = (g: Fn, x: string): void => {
    g.loop(
      (h) => read(h, 'root', local(x)).get(x).notEqual(),
      (h) => {
        read(h, 'root', (k) => read(k, 'root', local(x))).set('t');
        write(h, 'root', local(x), local('t'));
        h.get('t').set(x);
      },
    );
  };
  range(f, 'face', local('from'), local('to'), (g) => {
    ['a', 'b', 'c'].forEach((corner, k) => read(g, 'triangles', (h) => h.get('face').i32(3).mul().i32(k).add()).set(corner));
    g.get('a').get('n').lessU().get('b').get('n').lessU().and().get('c').get('n').lessU().and().isZero();
    g.when((h) => h.get('face').ret());
    g.get('a').set('ra');
    find(g, 'ra');
    for (const corner of ['b', 'c']) {
      g.get(corner).set('rb');
      find(g, 'rb');
      g.get('ra').get('rb').lessS();
      g.when(
        (h) => write(h, 'root', local('rb'), local('ra')),
        (h) => {
          h.get('rb').get('ra').lessS();
          h.when((k) => {
            write(k, 'root', local('ra'), local('rb'));
            k.get('rb').set('ra');
          });
        },
      );
    }
  });
  return f.i32(-1);
}

/**
 * label(from, to, count, root, labels) → count after [from, to): each vertex's root made final (parents have lower
 * indices, so root[root[i]] is final when i is reached) and its component numbered by its lowest vertex.
 */
function label(): Fn {
  const f = new Fn('label', ['from', 'to', 'count', 'root', 'labels'], 'i32');
  f.local('i32', 'i', 'r');
  range(f, 'i', local('from'), local('to'), (g) => {
    read(g, 'root', (h) => read(h, 'root', local('i'))).set('r');
    write(g, 'root', local('i'), local('r'));
    g.get('r').get('i').equal();
    g.when(
      (h) => {
        write(h, 'labels', local('i'), local('count'));
        h.step('count', 1);
      },
      (h) => write(h, 'labels', local('i'), (k) => read(k, 'labels', local('r'))),
    );
  });
  return f.get('count');
}

/** The module's bytes, as the builder writes them (MESH_MODULE_BASE64 holds them). */
export function meshModuleBytes(): Uint8Array<ArrayBuffer> {
  return moduleBytes([roots(), identity(), unite(), label()], false);
}

/** meshModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const MESH_MODULE_BASE64 = [
  'AGFzbQEAAAABGwNgB39/f39/f38Bf2ADf39/AGAFf39/f38BfwISAQNlbnYGbWVtb3J5AgEAgIACAwUEAAECAgckBAVyb290cwAA',
  'CGlkZW50aXR5AAEFdW5pdGUAAgVsYWJlbAADCowHBMYCAgZ/A3wgACEHAkADQCAHIAFIRQ0BIAdBBGwgBWogBzYCACAHQRhsIAJq',
  'IQggCCsDACENIAgrAwghDiAIKwMQIQ9BACAIKAIAIAgoAgRzIA1EAAAAAAAAAABhG0Hd6JsjbEEAIAgoAgggCCgCDHMgDkQAAAAA',
  'AAAAAGEbQZ+BnQlsc0EAIAgoAhAgCCgCFHMgD0QAAAAAAAAAAGEbQbf/5ydscyAGcSELIAtBBGwgA2ooAgAhCgJAA0AgCkEATiAK',
  'QRhsIAJqIQkgCSsDACANYSAJKwMIIA5hcSAJKwMQIA9hcUVxRQ0BIApBBGwgBGooAgAhCgwACwsgCkEATgRAIAdBBGwgBWogCjYC',
  'ACAMQQFqIQwFIAdBBGwgBGogC0EEbCADaigCADYCACALQQRsIANqIAc2AgALIAdBAWohBwwACwsgDAssAQF/IAAhAwJAA0AgAyAB',
  'SEUNASADQQRsIAJqIAM2AgAgA0EBaiEDDAALCwucAwEHfyAAIQUCQANAIAUgAUhFDQEgBUEDbEEAakEEbCADaigCACEGIAVBA2xB',
  'AWpBBGwgA2ooAgAhByAFQQNsQQJqQQRsIANqKAIAIQggBiACSSAHIAJJcSAIIAJJcUUEQCAFDwsgBiEJAkADQCAJQQRsIARqKAIA',
  'IAlHRQ0BIAlBBGwgBGooAgBBBGwgBGooAgAhCyAJQQRsIARqIAs2AgAgCyEJDAALCyAHIQoCQANAIApBBGwgBGooAgAgCkdFDQEg',
  'CkEEbCAEaigCAEEEbCAEaigCACELIApBBGwgBGogCzYCACALIQoMAAsLIAkgCkgEQCAKQQRsIARqIAk2AgAFIAogCUgEQCAJQQRs',
  'IARqIAo2AgAgCiEJCwsgCCEKAkADQCAKQQRsIARqKAIAIApHRQ0BIApBBGwgBGooAgBBBGwgBGooAgAhCyAKQQRsIARqIAs2AgAg',
  'CyEKDAALCyAJIApIBEAgCkEEbCAEaiAJNgIABSAKIAlIBEAgCUEEbCAEaiAKNgIAIAohCQsLIAVBAWohBQwACwtBfwt3AQJ/IAAh',
  'BQJAA0AgBSABSEUNASAFQQRsIANqKAIAQQRsIANqKAIAIQYgBUEEbCADaiAGNgIAIAYgBUYEQCAFQQRsIARqIAI2AgAgAkEBaiEC',
  'BSAFQQRsIARqIAZBBGwgBGooAgA2AgALIAVBAWohBQwACwsgAgs=',
].join('');

const meshMemories = kernelMemoriesOf(MESH_MODULE_BASE64);

type Pass = (...args: number[]) => number;

/**
 * The exact welding's roots (weld-vertices.ts's exactRoots) in WebAssembly.
 * @returns each vertex's root and the group count, or null where WebAssembly is unavailable or the arrays would not
 *          fit the scratch memory
 */
export function kernelExactRoots(positions: Float64Array, n: number): { root: Int32Array; count: number } | null {
  let size = 1;
  while (size < 2 * n) size *= 2;
  // From 64: the bucket walk's discarded reads of a vertex −1 land in the padding.
  const at = new ByteLayout(64);
  const positionsAt = at.take(24 * n);
  const headAt = at.take(4 * size);
  const nextAt = at.take(4 * n);
  const rootAt = at.take(4 * n);
  const bound = meshMemories()?.takeScratch(at.end);
  if (!bound) return null;
  const { buffer } = bound.memory;
  new Float64Array(buffer, positionsAt, 3 * n).set(positions.subarray(0, 3 * n));
  new Int32Array(buffer, headAt, size).fill(-1);
  const pass = bound.exports.roots as Pass;
  let duplicates = 0;
  overRanges(n, VERTEX_RANGE, (from, to) => {
    duplicates += pass(from, to, positionsAt, headAt, nextAt, rootAt, size - 1);
  });
  return { root: new Int32Array(buffer, rootAt, n).slice(), count: n - duplicates };
}

/**
 * connectedComponents (connected-components.ts) in WebAssembly.
 * @returns the count and labels, or null where WebAssembly is unavailable, the arrays would not fit the scratch
 *          memory or a face names a vertex outside the mesh (the JavaScript then reports it)
 */
export function kernelConnectedComponents(vertexCount: number, triangles: Uint32Array): { count: number; labels: Int32Array } | null {
  const faces = Math.floor(triangles.length / 3);
  const at = new ByteLayout();
  const trianglesAt = at.take(12 * faces);
  const rootAt = at.take(4 * vertexCount);
  const labelsAt = at.take(4 * vertexCount);
  const bound = meshMemories()?.takeScratch(at.end);
  if (!bound) return null;
  const { buffer } = bound.memory;
  new Uint32Array(buffer, trianglesAt, 3 * faces).set(triangles.subarray(0, 3 * faces));
  const pass = bound.exports as Record<string, Pass>;
  overRanges(vertexCount, VERTEX_RANGE, (from, to) => pass.identity(from, to, rootAt));
  if (overRanges(faces, FACE_RANGE, (from, to) => pass.unite(from, to, vertexCount, trianglesAt, rootAt)) !== -1) return null;
  let count = 0;
  overRanges(vertexCount, VERTEX_RANGE, (from, to) => {
    count = pass.label(from, to, count, rootAt, labelsAt);
  });
  return { count, labels: new Int32Array(buffer, labelsAt, vertexCount).slice() };
}
