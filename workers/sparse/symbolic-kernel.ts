/**
 * The symbolic analysis (choleskySymbolic in cholesky-symbolic.ts) as WebAssembly: the same passes, one function
 * each, over the same arrays, so the analysis is the JavaScript one value for value (a unit test holds every field
 * equal on meshes and random matrices). The JavaScript around the calls only lays the arrays out, fills the ones that
 * start at 0 or −1, and copies the results out.
 *
 * What it saves is V8's warm-up: a process's first analysis, and every small one (a few thousand columns run each
 * pass too briefly for the optimizing compiler to pay), runs the JavaScript passes in the interpreter; and, warm,
 * the bounds checks on the passes' scattered reads. The module is written with the builder of wasm-module.ts and kept
 * here as base64 (SYMBOLIC_MODULE_BASE64, checked against the builder by a unit test).
 *
 * Memory (Int32 unless said, byte offsets passed to every function): the results and what the last pass still reads
 * first; then A's pattern, the ordering and the arrays only the earlier passes read, over which the supernodes' arrays
 * and rows are laid once the amalgamation has sized them (the memory grows when they need more).
 */
import type { CholeskySymbolic } from './cholesky-symbolic.ts';
import type { CscMatrix } from './csc-matrix.ts';
import {
  addInt,
  element,
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
} from './wasm-module.ts';

/**
 * Explicit zeros a supernode merge may add, as a fraction of the merged block (both analyses' amalgamation rule).
 * Harmonic weights solve dozens of right-hand sides per factorization, so solve time (proportional to the stored
 * entries) outweighs the faster dense kernels that CHOLMOD-style aggressive amalgamation buys: on the body mesh
 * subdivided twice, merging only nearly-free-of-zeros blocks cut the solve by a quarter at equal factorization time
 * against CHOLMOD's default rule.
 */
export const MERGE_ZERO_FRACTION = 0.02;

/**
 * A merge that leaves the supernode at most this many columns wide is taken whatever zeros it adds (CHOLMOD's
 * smallest relaxation step): a mesh Laplacian's fundamental supernodes are mostly one or two columns, and each
 * supernode costs the factorization and the solve a setup of its own. Measured against merging by the zero fraction
 * alone (interleaved in one process, medians): the factorization of the hand's block 0.61 → 0.45 ms and the body's
 * 1.10 → 0.87 ms, the three-column panel solve of the body subdivided twice 56.6 → 52.1 ms, the harmonic solves
 * unchanged (stored values +23%, +25% and +5%).
 */
export const MERGE_ALWAYS_COLUMNS = 4;

/** for (name = from − 1; name ≥ to; name−−) body */
function down(g: Fn, name: string, from: Emit, body: Emit, to: Emit = (h) => h.i32(0)): void {
  from(g);
  g.i32(1).sub().set(name);
  g.loop(
    (h) => {
      h.get(name);
      to(h);
      h.greaterEqualS();
    },
    (h) => {
      body(h);
      h.step(name, -1);
    },
  );
}

/** array[index] += by (1 unless given; local `t`: scratch address) */
const increment = (g: Fn, array: string, index: Emit, by: Emit = (h) => h.i32(1)): void => addInt(g, array, index, by, 't');

/**
 * For each column j, its entries below the diagonal from the column's end down: body with locals p (the entry),
 * i (its row) and pj (inverse[j]) set.
 */
function belowDiagonal(g: Fn, body: Emit): void {
  range(g, 'j', local('from'), local('to'), (h) => {
    read(h, 'inverse', local('j')).set('pj');
    read(h, 'cp', local('j')).set('lo');
    read(h, 'cp', local('j'), 4).i32(1).sub().set('p');
    // rows ascend (countNeighbours checked), so the entries below the diagonal are the column's last ones; the
    // read at lo − 1 (the column before's last row, or the padding before the rows) is discarded by the and
    h.loop(
      (k) => {
        k.get('p').get('lo').greaterEqualS();
        read(k, 'ri', local('p')).get('j').greaterS();
        k.and();
      },
      (k) => {
        read(k, 'ri', local('p')).set('i');
        body(k);
        k.step('p', -1);
      },
    );
  });
}

function fn(name: string, params: readonly string[], result: 'i32' | 'f64' | null = null): Fn {
  return new Fn(name, params, result).local('i32', 't');
}

/** countNeighbours(n, cp, ri, degree, diagonal) → −1, or the first column whose rows do not ascend */
function countNeighbours(): Fn {
  const f = fn('countNeighbours', ['from', 'to', 'n', 'cp', 'ri', 'degree', 'diagonal'], 'i32');
  f.local('i32', 'j', 'p', 'end', 'i', 'below', 'previous');
  range(f, 'j', local('from'), local('to'), (g) => {
    g.i32(0).set('below');
    g.i32(-1).set('previous');
    read(g, 'cp', local('j'), 4).set('end');
    range(
      g,
      'p',
      (h) => read(h, 'cp', local('j')),
      local('end'),
      (h) => {
        read(h, 'ri', local('p')).set('i');
        h.get('i').get('previous').lessEqualS();
        h.when((k) => k.get('j').ret());
        h.get('i').set('previous');
        h.get('j').get('i').lessS();
        h.when(
          (k) => {
            increment(k, 'degree', local('i'));
            k.step('below', 1);
          },
          (k) => {
            k.get('i').get('j').equal();
            k.when((m) => write(m, 'diagonal', local('j'), local('p')));
          },
        );
      },
    );
    increment(g, 'degree', local('j'), local('below'));
  });
  return f.i32(-1);
}

/** inversePermutation(n, perm, degree, start, inverse) → −1, or the first entry that makes perm no permutation */
function inversePermutation(): Fn {
  const f = fn('inversePermutation', ['from', 'to', 'n', 'perm', 'degree', 'start', 'inverse'], 'i32');
  f.local('i32', 'k', 'i');
  range(f, 'k', local('from'), local('to'), (g) => {
    read(g, 'perm', local('k')).set('i');
    g.get('i').get('n').lessU().isZero();
    g.when((h) => h.get('k').ret());
    read(g, 'inverse', local('i')).i32(-1).notEqual();
    g.when((h) => h.get('k').ret());
    write(g, 'inverse', local('i'), local('k'));
    write(
      g,
      'start',
      (h) => h.get('k').i32(1).add(),
      (h) => {
        read(h, 'start', local('k'));
        read(h, 'degree', local('i'));
        h.add();
      },
    );
  });
  return f.i32(-1);
}

/** Pushes min(pi, pj) (then) or max (otherwise) of locals pi, pj. */
const lower = (g: Fn): Fn => g.get('pi').get('pj').get('pi').get('pj').lessS().select();
const higher = (g: Fn): Fn => g.get('pj').get('pi').get('pi').get('pj').lessS().select();

/** fillUpper(n, cp, ri, inverse, upperEnd, upper) */
function fillUpper(): Fn {
  const f = fn('fillUpper', ['from', 'to', 'n', 'cp', 'ri', 'inverse', 'upperEnd', 'upper']);
  f.local('i32', 'j', 'pj', 'lo', 'p', 'i', 'pi', 'q', 'r');
  belowDiagonal(f, (g) => {
    read(g, 'inverse', local('i')).set('pi');
    higher(g).set('r');
    read(g, 'upperEnd', local('r')).set('q');
    write(g, 'upper', local('q'), lower);
    write(g, 'upperEnd', local('r'), (h) => h.get('q').i32(1).add());
  });
  return f;
}

/** linkTree(n, start, upperEnd, upper, parent, size, ancestor) */
function linkTree(): Fn {
  const f = fn('linkTree', ['from', 'to', 'n', 'start', 'upperEnd', 'upper', 'parent', 'size', 'ancestor']);
  f.local('i32', 'k', 'sizeK', 'p', 'end', 'i', 'next');
  range(f, 'k', local('from'), local('to'), (g) => {
    g.i32(1).set('sizeK');
    read(g, 'upperEnd', local('k')).set('end');
    range(
      g,
      'p',
      (h) => read(h, 'start', local('k')),
      local('end'),
      (h) => {
        read(h, 'upper', local('p')).set('i');
        h.loop(
          (k) => k.get('i').i32(-1).notEqual().get('i').get('k').lessS().and(),
          (k) => {
            read(k, 'ancestor', local('i')).set('next');
            write(k, 'ancestor', local('i'), local('k'));
            k.get('next').i32(-1).equal();
            k.when((m) => {
              write(m, 'parent', local('i'), local('k'));
              m.get('sizeK');
              read(m, 'size', local('i'));
              m.add().set('sizeK');
            });
            k.get('next').set('i');
          },
        );
      },
    );
    write(g, 'size', local('k'), local('sizeK'));
  });
  return f;
}

/** numberPostorder(n, treeParent, size, perm, inverse, label, end, post, finalPerm, parent, first) */
function numberPostorder(): Fn {
  const f = fn('numberPostorder', [
    'from',
    'to',
    'n',
    'treeParent',
    'size',
    'perm',
    'inverse',
    'label',
    'end',
    'post',
    'finalPerm',
    'parent',
    'first',
  ]);
  f.local('i32', 'k', 'p', 'last', 'sizeK', 'original');
  down(
    f,
    'k',
    local('to'),
    (g) => {
      read(g, 'treeParent', local('k')).set('p');
      g.get('n').get('p').get('p').i32(-1).equal().select().set('p');
      read(g, 'end', local('p')).i32(1).sub().set('last');
      read(g, 'size', local('k')).set('sizeK');
      write(g, 'end', local('p'), (h) => h.get('last').i32(1).add().get('sizeK').sub());
      write(g, 'parent', local('last'), (h) => read(h, 'label', local('p')));
      write(g, 'label', local('k'), local('last'));
      write(g, 'end', local('k'), local('last'));
      write(g, 'post', local('last'), local('k'));
      write(g, 'first', local('last'), (h) => h.get('last').get('sizeK').sub().i32(1).add());
      read(g, 'perm', local('k')).set('original');
      write(g, 'finalPerm', local('last'), local('original'));
      write(g, 'inverse', local('original'), local('last'));
    },
    local('from'),
  );
  return f;
}

/** listPointers(n, post, perm, start, upperEnd, degree, diagonalOf, lowerPointers, upperPointers, diagonalEntry) */
function listPointers(): Fn {
  const params = [
    'from',
    'to',
    'n',
    'post',
    'perm',
    'start',
    'upperEnd',
    'degree',
    'diagonalOf',
    'lowerPointers',
    'upperPointers',
    'diagonalEntry',
  ];
  const f = fn('listPointers', params);
  f.local('i32', 'k', 'old', 'upper', 'original');
  range(f, 'k', local('from'), local('to'), (g) => {
    read(g, 'post', local('k')).set('old');
    read(g, 'upperEnd', local('old'));
    read(g, 'start', local('old'));
    g.sub().set('upper');
    read(g, 'perm', local('k')).set('original');
    write(
      g,
      'upperPointers',
      (h) => h.get('k').i32(1).add(),
      (h) => read(h, 'upperPointers', local('k')).get('upper').add(),
    );
    write(
      g,
      'lowerPointers',
      (h) => h.get('k').i32(1).add(),
      (h) => {
        read(h, 'lowerPointers', local('k'));
        read(h, 'degree', local('original'));
        h.add().get('upper').sub();
      },
    );
    write(g, 'diagonalEntry', local('k'), (h) => read(h, 'diagonalOf', local('original')));
  });
  return f;
}

/** fillPermuted(n, cp, ri, inverse, lowerNext, upperNext, lowerRows, upperPairs) */
function fillPermuted(): Fn {
  const f = fn('fillPermuted', ['from', 'to', 'n', 'cp', 'ri', 'inverse', 'lowerNext', 'upperNext', 'lowerRows', 'upperPairs']);
  f.local('i32', 'j', 'pj', 'lo', 'p', 'i', 'pi', 'c', 'r', 'q');
  belowDiagonal(f, (g) => {
    read(g, 'inverse', local('i')).set('pi');
    lower(g).set('c');
    higher(g).set('r');
    read(g, 'lowerNext', local('c')).set('q');
    write(g, 'lowerRows', local('q'), local('r'));
    write(g, 'lowerNext', local('c'), (h) => h.get('q').i32(1).add());
    read(g, 'upperNext', local('r')).set('q');
    write(g, 'upperNext', local('r'), (h) => h.get('q').i32(1).add());
    element(g, 'upperPairs', (h) => h.get('q').i32(1).shl()).set('q');
    g.get('q').get('c').storeI32();
    g.get('q').get('p').storeI32(4);
  });
  return f;
}

/** sweepColumnCounts(n, parent, first, lowerPointers, lowerRows, counts, leaves, ancestor) → the counts' sum */
function sweepColumnCounts(): Fn {
  const f = fn(
    'sweepColumnCounts',
    ['from', 'to', 'n', 'parent', 'first', 'lowerPointers', 'lowerRows', 'counts', 'leaves', 'ancestor'],
    'f64',
  );
  f.local('i32', 'j', 'fj', 'p', 'end', 'leaf', 'previous', 'q', 's', 'up', 'pj', 'cj');
  f.local('f64', 'total');
  range(f, 'j', local('from'), local('to'), (g) => {
    read(g, 'first', local('j')).set('fj');
    g.get('fj').get('j').equal();
    g.when((h) => increment(h, 'counts', local('j')));
    read(g, 'lowerPointers', local('j'), 4).set('end');
    range(
      g,
      'p',
      (h) => read(h, 'lowerPointers', local('j')),
      local('end'),
      (h) => {
        // leaf: the address of row i's pair (its largest first[] so far, its latest leaf)
        element(h, 'leaves', (k) => read(k, 'lowerRows', local('p')).i32(1).shl()).set('leaf');
        h.get('fj').get('leaf').loadI32().greaterS();
        h.when((k) => {
          k.get('leaf').get('fj').storeI32();
          k.get('leaf').loadI32(4).set('previous');
          k.get('leaf').get('j').storeI32(4);
          increment(k, 'counts', local('j'));
          k.get('previous').i32(-1).notEqual();
          k.when((m) => {
            m.get('previous').set('q');
            m.loop(
              (r) => read(r, 'ancestor', local('q')).i32(-1).notEqual(),
              (r) => read(r, 'ancestor', local('q')).set('q'),
            );
            m.get('previous').set('s');
            m.loop(
              (r) => r.get('s').get('q').notEqual(),
              (r) => {
                read(r, 'ancestor', local('s')).set('up');
                write(r, 'ancestor', local('s'), local('q'));
                r.get('up').set('s');
              },
            );
            increment(m, 'counts', local('q'), (r) => r.i32(-1));
          });
        });
      },
    );
    read(g, 'parent', local('j')).set('pj');
    read(g, 'counts', local('j')).set('cj');
    g.get('total').get('cj').toF64().fadd().set('total');
    g.get('pj').i32(-1).notEqual();
    g.when((h) => {
      write(h, 'ancestor', local('j'), local('pj'));
      increment(h, 'counts', local('pj'), (k) => k.get('cj').i32(1).sub());
    });
  });
  return f.get('total');
}

/**
 * groupColumns(n, parent, firstDescendant, columnCounts, groupFirst, groupRows, totals) → the number of groups;
 * totals (two f64): the groups' rows and values, summed. The sizes are summed and compared in f64, as the
 * JavaScript's numbers are, so the same merges are taken.
 */
function groupColumns(): Fn {
  const f = fn('groupColumns', ['n', 'parent', 'firstDescendant', 'columnCounts', 'groupFirst', 'groupRows', 'totals'], 'i32');
  f.local('i32', 'count', 'first', 'end', 'rows', 'last', 'k', 'columns', 'p', 'mergedColumns', 'mergedRows');
  f.local('f64', 'rowTotal', 'valueTotal', 'nonzeros', 'ownNonzeros', 'stored');
  const close = (g: Fn): void => {
    g.get('end').get('first').greaterS();
    g.when((h) => {
      write(h, 'groupFirst', local('count'), local('first'));
      write(h, 'groupRows', local('count'), local('rows'));
      h.step('count', 1);
      h.get('rowTotal').get('rows').toF64().fadd().set('rowTotal');
      h.get('valueTotal').get('rows').toF64().get('end').get('first').sub().toF64().fmul().fadd().set('valueTotal');
    });
  };
  /** (c · (c − 1)) / 2 as f64, c a local */
  const triangle = (g: Fn, c: string): Fn => g.get(c).toF64().get(c).i32(1).sub().toF64().fmul().f64(2).fdiv();
  f.get('n').set('first');
  f.get('n').set('end');
  f.get('n').i32(1).sub().set('last');
  down(f, 'k', local('n'), (g) => {
    // k continues the fundamental supernode of k − 1 … last? (reads at k − 1 = −1 land in the padding; the and drops them)
    g.get('k').i32(0).greaterS();
    read(g, 'parent', (h) => h.get('k').i32(1).sub())
      .get('k')
      .equal();
    g.and();
    read(g, 'firstDescendant', (h) => h.get('k').i32(1).sub());
    read(g, 'firstDescendant', local('k'));
    g.equal().and();
    read(g, 'columnCounts', (h) => h.get('k').i32(1).sub());
    read(g, 'columnCounts', local('k')).i32(1).add();
    g.equal().and().isZero();
    g.when((h) => {
      h.get('last').get('k').sub().i32(1).add().set('columns');
      h.get('columns').toF64();
      read(h, 'columnCounts', local('last')).toF64();
      h.fmul();
      triangle(h, 'columns').fadd().set('ownNonzeros');
      read(h, 'parent', local('last')).set('p');
      h.get('columns').get('end').add().get('first').sub().set('mergedColumns');
      h.get('columns').get('rows').add().set('mergedRows');
      h.get('mergedColumns').toF64().get('mergedRows').toF64().fmul();
      triangle(h, 'mergedColumns').fsub().set('stored');
      h.get('p').get('last').greaterS();
      h.get('p').get('end').lessS().and();
      h.get('stored').get('ownNonzeros').fsub().get('nonzeros').fsub().get('stored').fdiv().f64(MERGE_ZERO_FRACTION).fless();
      h.get('mergedColumns').i32(MERGE_ALWAYS_COLUMNS).lessEqualS().or();
      h.and();
      h.when(
        (k) => {
          k.get('mergedRows').set('rows');
          k.get('nonzeros').get('ownNonzeros').fadd().set('nonzeros');
        },
        (k) => {
          close(k);
          k.get('last').i32(1).add().set('end');
          read(k, 'columnCounts', local('k')).set('rows');
          k.get('ownNonzeros').set('nonzeros');
        },
      );
      h.get('k').set('first');
      h.get('k').i32(1).sub().set('last');
    });
  });
  close(f);
  f.get('totals').get('rowTotal').store();
  f.get('totals').get('valueTotal').store(8);
  return f.get('count');
}

/**
 * placeSupernodes(n, count, parent, groupFirst, groupRows, rowEnd, valueEnd, supernodeStart, rowPointers,
 * valuePointers, superParent, supernodeOfColumn, columnSlots) → the largest block
 */
function placeSupernodes(): Fn {
  const params = [
    'n',
    'count',
    'parent',
    'groupFirst',
    'groupRows',
    'rowEnd',
    'valueEnd',
    'supernodeStart',
    'rowPointers',
    'valuePointers',
    'superParent',
    'supernodeOfColumn',
    'columnSlots',
  ];
  const f = fn('placeSupernodes', params, 'i32');
  f.local('i32', 'largest', 'end', 't', 's', 'first', 'rowCount', 'block', 'p', 'k', 'slot');
  f.get('n').set('end');
  range(
    f,
    't',
    (g) => g.i32(0),
    local('count'),
    (g) => {
      g.get('count').i32(1).sub().get('t').sub().set('s');
      read(g, 'groupFirst', local('t')).set('first');
      read(g, 'groupRows', local('t')).set('rowCount');
      g.get('rowCount').get('end').get('first').sub().mul().set('block');
      g.get('rowEnd').get('rowCount').sub().set('rowEnd');
      g.get('valueEnd').get('block').sub().set('valueEnd');
      write(g, 'supernodeStart', local('s'), local('first'));
      write(g, 'rowPointers', local('s'), local('rowEnd'));
      write(g, 'valuePointers', local('s'), local('valueEnd'));
      g.get('block').get('largest').get('block').get('largest').greaterS().select().set('largest');
      read(g, 'parent', (h) => h.get('end').i32(1).sub()).set('p');
      g.get('p').i32(0).lessS();
      g.when(
        (h) => write(h, 'superParent', local('s'), (k) => k.i32(-1)),
        (h) => write(h, 'superParent', local('s'), (k) => read(k, 'supernodeOfColumn', local('p'))),
      );
      range(g, 'k', local('first'), local('end'), (h) => {
        write(h, 'supernodeOfColumn', local('k'), local('s'));
        element(h, 'columnSlots', (m) => m.get('k').i32(1).shl()).set('slot');
        h.get('slot').get('s').storeI32();
        h.get('slot');
        h.get('valueEnd').get('k').get('first').sub().get('rowCount').mul().add().get('rowEnd').sub();
        h.storeI32(4);
      });
      g.get('first').set('end');
    },
  );
  return f.get('largest');
}

/**
 * walkRows(n, supernodeOfColumn, columnSlots, superParent, upperPointers, upperPairs, diagonalEntry, rows,
 * assemblyMap, fillPointer, mark)
 */
function walkRows(): Fn {
  const params = [
    'from',
    'to',
    'n',
    'supernodeOfColumn',
    'columnSlots',
    'superParent',
    'upperPointers',
    'upperPairs',
    'diagonalEntry',
    'rows',
    'assemblyMap',
    'fillPointer',
    'mark',
  ];
  const f = fn('walkRows', params);
  f.local('i32', 'i', 'own', 'place', 'diagonal', 'p', 'end', 'j', 'first', 's', 'q');
  range(f, 'i', local('from'), local('to'), (g) => {
    read(g, 'supernodeOfColumn', local('i')).set('own');
    write(g, 'mark', local('own'), local('i'));
    read(g, 'fillPointer', local('own')).set('place');
    write(g, 'fillPointer', local('own'), (h) => h.get('place').i32(1).add());
    write(g, 'rows', local('place'), local('i'));
    read(g, 'diagonalEntry', local('i')).set('diagonal');
    g.get('diagonal').i32(-1).notEqual();
    g.when((h) =>
      write(h, 'assemblyMap', local('diagonal'), (k) => {
        read(k, 'columnSlots', (m) => m.get('i').i32(1).shl(), 4);
        k.get('place').add();
      }),
    );
    read(g, 'upperPointers', local('i'), 4).i32(1).shl().set('end');
    range(
      g,
      'p',
      (h) => read(h, 'upperPointers', local('i')).i32(1).shl(),
      local('end'),
      (h) => {
        // j: the address of column j's slots (its supernode, its values' offset)
        element(h, 'columnSlots', (k) => read(k, 'upperPairs', local('p')).i32(1).shl()).set('j');
        h.get('j').loadI32().set('first');
        h.get('first').set('s');
        h.loop(
          (k) => read(k, 'mark', local('s')).get('i').notEqual(),
          (k) => {
            write(k, 'mark', local('s'), local('i'));
            read(k, 'fillPointer', local('s')).set('q');
            write(k, 'rows', local('q'), local('i'));
            write(k, 'fillPointer', local('s'), (m) => m.get('q').i32(1).add());
            read(k, 'superParent', local('s')).set('s');
          },
        );
        write(
          h,
          'assemblyMap',
          (k) => read(k, 'upperPairs', local('p'), 4),
          (k) => {
            k.get('j').loadI32(4);
            read(k, 'fillPointer', local('first'));
            k.add().i32(1).sub();
          },
        );
        h.step('p', 1); // and range's step: the next pair
      },
    );
  });
  return f;
}

/** checkRowCounts(count, fillPointer, rowPointers) → −1, or the first supernode whose rows the walk did not fill */
function checkRowCounts(): Fn {
  const f = fn('checkRowCounts', ['count', 'fillPointer', 'rowPointers'], 'i32');
  f.local('i32', 's');
  range(
    f,
    's',
    (g) => g.i32(0),
    local('count'),
    (g) => {
      read(g, 'fillPointer', local('s'));
      read(g, 'rowPointers', local('s'), 4);
      g.notEqual();
      g.when((h) => h.get('s').ret());
    },
  );
  return f.i32(-1);
}

const PASSES = [
  countNeighbours,
  inversePermutation,
  fillUpper,
  linkTree,
  numberPostorder,
  listPointers,
  fillPermuted,
  sweepColumnCounts,
  groupColumns,
  placeSupernodes,
  walkRows,
  checkRowCounts,
];

/** The module's bytes, written by the builder. */
export function symbolicModuleBytes(): Uint8Array<ArrayBuffer> {
  return moduleBytes(
    PASSES.map((pass) => pass()),
    false,
  );
}

/** symbolicModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const SYMBOLIC_MODULE_BASE64 = [
  'AGFzbQEAAAABdQlgB39/f39/f38Bf2AIf39/f39/f38AYAl/f39/f39/f38AYA1/f39/f39/f39/f39/AGAMf39/f39/f39/f39/',
  'AGAKf39/f39/f39/fwBgCn9/f39/f39/f38BfGANf39/f39/f39/f39/fwF/YAN/f38BfwISAQNlbnYGbWVtb3J5AgEAgIACAw0M',
  'AAABAgMEBQYABwMIB8ABDA9jb3VudE5laWdoYm91cnMAABJpbnZlcnNlUGVybXV0YXRpb24AAQlmaWxsVXBwZXIAAghsaW5rVHJl',
  'ZQADD251bWJlclBvc3RvcmRlcgAEDGxpc3RQb2ludGVycwAFDGZpbGxQZXJtdXRlZAAGEXN3ZWVwQ29sdW1uQ291bnRzAAcMZ3Jv',
  'dXBDb2x1bW5zAAgPcGxhY2VTdXBlcm5vZGVzAAkId2Fsa1Jvd3MACg5jaGVja1Jvd0NvdW50cwALCs8XDMkBAQd/IAAhCAJAA0Ag',
  'CCABSEUNAUEAIQxBfyENIAhBBGwgA2ooAgQhCiAIQQRsIANqKAIAIQkCQANAIAkgCkhFDQEgCUEEbCAEaigCACELIAsgDUwEQCAI',
  'DwsgCyENIAggC0gEQCALQQRsIAVqIQcgByAHKAIAQQFqNgIAIAxBAWohDAUgCyAIRgRAIAhBBGwgBmogCTYCAAsLIAlBAWohCQwA',
  'CwsgCEEEbCAFaiEHIAcgBygCACAMajYCACAIQQFqIQgMAAsLQX8LgAEBA38gACEIAkADQCAIIAFIRQ0BIAhBBGwgA2ooAgAhCSAJ',
  'IAJJRQRAIAgPCyAJQQRsIAZqKAIAQX9HBEAgCA8LIAlBBGwgBmogCDYCACAIQQFqQQRsIAVqIAhBBGwgBWooAgAgCUEEbCAEaigC',
  'AGo2AgAgCEEBaiEIDAALC0F/C8cBAQl/IAAhCQJAA0AgCSABSEUNASAJQQRsIAVqKAIAIQogCUEEbCADaigCACELIAlBBGwgA2oo',
  'AgRBAWshDAJAA0AgDCALTiAMQQRsIARqKAIAIAlKcUUNASAMQQRsIARqKAIAIQ0gDUEEbCAFaigCACEOIAogDiAOIApIGyEQIBBB',
  'BGwgBmooAgAhDyAPQQRsIAdqIA4gCiAOIApIGzYCACAQQQRsIAZqIA9BAWo2AgAgDEF/aiEMDAALCyAJQQFqIQkMAAsLC8cBAQd/',
  'IAAhCgJAA0AgCiABSEUNAUEBIQsgCkEEbCAEaigCACENIApBBGwgA2ooAgAhDAJAA0AgDCANSEUNASAMQQRsIAVqKAIAIQ4CQANA',
  'IA5Bf0cgDiAKSHFFDQEgDkEEbCAIaigCACEPIA5BBGwgCGogCjYCACAPQX9GBEAgDkEEbCAGaiAKNgIAIAsgDkEEbCAHaigCAGoh',
  'CwsgDyEODAALCyAMQQFqIQwMAAsLIApBBGwgB2ogCzYCACAKQQFqIQoMAAsLC+IBAQZ/IAFBAWshDgJAA0AgDiAATkUNASAOQQRs',
  'IANqKAIAIQ8gAiAPIA9Bf0YbIQ8gD0EEbCAIaigCAEEBayEQIA5BBGwgBGooAgAhESAPQQRsIAhqIBBBAWogEWs2AgAgEEEEbCAL',
  'aiAPQQRsIAdqKAIANgIAIA5BBGwgB2ogEDYCACAOQQRsIAhqIBA2AgAgEEEEbCAJaiAONgIAIBBBBGwgDGogECARa0EBajYCACAO',
  'QQRsIAVqKAIAIRIgEEEEbCAKaiASNgIAIBJBBGwgBmogEDYCACAOQX9qIQ4MAAsLC6wBAQV/IAAhDQJAA0AgDSABSEUNASANQQRs',
  'IANqKAIAIQ4gDkEEbCAGaigCACAOQQRsIAVqKAIAayEPIA1BBGwgBGooAgAhECANQQFqQQRsIApqIA1BBGwgCmooAgAgD2o2AgAg',
  'DUEBakEEbCAJaiANQQRsIAlqKAIAIBBBBGwgB2ooAgBqIA9rNgIAIA1BBGwgC2ogEEEEbCAIaigCADYCACANQQFqIQ0MAAsLC4MC',
  'AQp/IAAhCwJAA0AgCyABSEUNASALQQRsIAVqKAIAIQwgC0EEbCADaigCACENIAtBBGwgA2ooAgRBAWshDgJAA0AgDiANTiAOQQRs',
  'IARqKAIAIAtKcUUNASAOQQRsIARqKAIAIQ8gD0EEbCAFaigCACEQIBAgDCAQIAxIGyERIAwgECAQIAxIGyESIBFBBGwgBmooAgAh',
  'EyATQQRsIAhqIBI2AgAgEUEEbCAGaiATQQFqNgIAIBJBBGwgB2ooAgAhEyASQQRsIAdqIBNBAWo2AgAgE0EBdEEEbCAJaiETIBMg',
  'ETYCACATIA42AgQgDkF/aiEODAALCyALQQFqIQsMAAsLC5kDAgx/AXwgACELAkADQCALIAFIRQ0BIAtBBGwgBGooAgAhDCAMIAtG',
  'BEAgC0EEbCAHaiEKIAogCigCAEEBajYCAAsgC0EEbCAFaigCBCEOIAtBBGwgBWooAgAhDQJAA0AgDSAOSEUNASANQQRsIAZqKAIA',
  'QQF0QQRsIAhqIQ8gDCAPKAIASgRAIA8gDDYCACAPKAIEIRAgDyALNgIEIAtBBGwgB2ohCiAKIAooAgBBAWo2AgAgEEF/RwRAIBAh',
  'EQJAA0AgEUEEbCAJaigCAEF/R0UNASARQQRsIAlqKAIAIREMAAsLIBAhEgJAA0AgEiARR0UNASASQQRsIAlqKAIAIRMgEkEEbCAJ',
  'aiARNgIAIBMhEgwACwsgEUEEbCAHaiEKIAogCigCAEF/ajYCAAsLIA1BAWohDQwACwsgC0EEbCADaigCACEUIAtBBGwgB2ooAgAh',
  'FSAWIBW3oCEWIBRBf0cEQCALQQRsIAlqIBQ2AgAgFEEEbCAHaiEKIAogCigCACAVQQFrajYCAAsgC0EBaiELDAALCyAWC90DAgt/',
  'BXwgACEJIAAhCiAAQQFrIQwgAEEBayENAkADQCANQQBORQ0BIA1BAEogDUEBa0EEbCABaigCACANRnEgDUEBa0EEbCACaigCACAN',
  'QQRsIAJqKAIARnEgDUEBa0EEbCADaigCACANQQRsIANqKAIAQQFqRnFFBEAgDCANa0EBaiEOIA63IAxBBGwgA2ooAgC3oiAOtyAO',
  'QQFrt6JEAAAAAAAAAECjoCEVIAxBBGwgAWooAgAhDyAOIApqIAlrIRAgDiALaiERIBC3IBG3oiAQtyAQQQFrt6JEAAAAAAAAAECj',
  'oSEWIA8gDEogDyAKSHEgFiAVoSAUoSAWo0R7FK5H4XqUP2MgEEEETHJxBEAgESELIBQgFaAhFAUgCiAJSgRAIAhBBGwgBGogCTYC',
  'ACAIQQRsIAVqIAs2AgAgCEEBaiEIIBIgC7egIRIgEyALtyAKIAlrt6KgIRMLIAxBAWohCiANQQRsIANqKAIAIQsgFSEUCyANIQkg',
  'DUEBayEMCyANQX9qIQ0MAAsLIAogCUoEQCAIQQRsIARqIAk2AgAgCEEEbCAFaiALNgIAIAhBAWohCCASIAu3oCESIBMgC7cgCiAJ',
  'a7eioCETCyAGIBI5AwAgBiATOQMIIAgLowIBC38gACEPQQAhEAJAA0AgECABSEUNASABQQFrIBBrIREgEEEEbCADaigCACESIBBB',
  'BGwgBGooAgAhEyATIA8gEmtsIRQgBSATayEFIAYgFGshBiARQQRsIAdqIBI2AgAgEUEEbCAIaiAFNgIAIBFBBGwgCWogBjYCACAU',
  'IA4gFCAOShshDiAPQQFrQQRsIAJqKAIAIRUgFUEASARAIBFBBGwgCmpBfzYCAAUgEUEEbCAKaiAVQQRsIAtqKAIANgIACyASIRYC',
  'QANAIBYgD0hFDQEgFkEEbCALaiARNgIAIBZBAXRBBGwgDGohFyAXIBE2AgAgFyAGIBYgEmsgE2xqIAVrNgIEIBZBAWohFgwACwsg',
  'EiEPIBBBAWohEAwACwsgDgv4AgELfyAAIQ4CQANAIA4gAUhFDQEgDkEEbCADaigCACEPIA9BBGwgDGogDjYCACAPQQRsIAtqKAIA',
  'IRAgD0EEbCALaiAQQQFqNgIAIBBBBGwgCWogDjYCACAOQQRsIAhqKAIAIREgEUF/RwRAIBFBBGwgCmogDkEBdEEEbCAEaigCBCAQ',
  'ajYCAAsgDkEEbCAGaigCBEEBdCETIA5BBGwgBmooAgBBAXQhEgJAA0AgEiATSEUNASASQQRsIAdqKAIAQQF0QQRsIARqIRQgFCgC',
  'ACEVIBUhFgJAA0AgFkEEbCAMaigCACAOR0UNASAWQQRsIAxqIA42AgAgFkEEbCALaigCACEXIBdBBGwgCWogDjYCACAWQQRsIAtq',
  'IBdBAWo2AgAgFkEEbCAFaigCACEWDAALCyASQQRsIAdqKAIEQQRsIApqIBQoAgQgFUEEbCALaigCAGpBAWs2AgAgEkEBaiESIBJB',
  'AWohEgwACwsgDkEBaiEODAALCws+AQJ/QQAhBAJAA0AgBCAASEUNASAEQQRsIAFqKAIAIARBBGwgAmooAgRHBEAgBA8LIARBAWoh',
  'BAwACwtBfws=',
].join('');

/** The module's memories: analyses whose arrays fit run in the scratch memory. */
const symbolicMemories = kernelMemoriesOf(SYMBOLIC_MODULE_BASE64);

/** Lays Int32 arrays out one after another, each on a 64-byte line, after 16 values of padding (reads at −1). */
class Layout {
  end = 16;
  /** the offset (in Int32 values) of a new array of `length` */
  take(length: number): number {
    const at = this.end;
    this.end += Math.ceil(length / 16) * 16;
    return at;
  }
}

type Pass = (...args: number[]) => number;

/**
 * Columns per call of a pass. A module's functions start in V8's baseline code and are optimized once they have run
 * a while, but a call keeps the code it started in: a pass over all columns in one call would run a process's first
 * analysis wholly in the baseline code (on the 295k per-face block, 250–330 ms against 195–230 ms optimized).
 */
const CHUNK = 8192;

/**
 * choleskySymbolic's analysis in WebAssembly.
 * @returns the analysis, or null where WebAssembly is unavailable, no memory can be had, or the input fails one of
 *          choleskySymbolic's checks (its JavaScript passes then run and throw the error that names it)
 */
export function kernelSymbolic(a: CscMatrix, perm: Int32Array): CholeskySymbolic | null {
  const n = a.cols;
  const nonzeros = a.rowIndices.length;
  // What the supernodes' pass still reads, and the results, first; the arrays only the passes before it read after
  // them, where the supernodes' arrays and rows then go (fewer fresh pages: on this kind of machine a page's first
  // touch costs about as much as a pass's work on it).
  const at = new Layout();
  const finalPerm = at.take(n);
  const inverse = at.take(n);
  const parent = at.take(n);
  const counts = at.take(n);
  const upperPointers = at.take(n + 1);
  const diagonalEntry = at.take(n);
  // each entry below the diagonal once per direction (A's entries bound them); then the pairs (row, entry)
  const upper = at.take(2 * nonzeros);
  const groupFirst = at.take(n);
  const groupRows = at.take(n);
  const totals = at.take(4);
  const passesEnd = at.end;
  const cp = at.take(n + 1);
  const ri = at.take(nonzeros);
  const permAt = at.take(n);
  const degree = at.take(n);
  const diagonal = at.take(n);
  const start = at.take(n + 1);
  const upperEnd = at.take(n);
  const treeParent = at.take(n);
  const size = at.take(n);
  const ancestor = at.take(n);
  const label = at.take(n + 1);
  const end = at.take(n + 1);
  const post = at.take(n);
  const first = at.take(n);
  const lowerPointers = at.take(n + 1);
  const lowerRows = at.take(nonzeros);
  const lowerNext = at.take(n);
  const upperNext = at.take(n);
  const leaves = at.take(2 * n);
  const phaseOneEnd = at.end;
  const memories = symbolicMemories();
  const bound = memories?.take(4 * at.end);
  if (!memories || !bound) return null;
  const pass = bound.exports as Record<string, Pass>;
  let ints = new Int32Array(bound.memory.buffer);
  ints.set(a.colPointers, cp);
  ints.set(a.rowIndices, ri);
  ints.set(perm, permAt);
  ints.fill(0, degree, degree + n);
  ints.fill(-1, diagonal, diagonal + n);
  ints[start] = 0;
  ints.fill(-1, inverse, inverse + n);
  ints.fill(-1, treeParent, treeParent + n);
  ints.fill(-1, ancestor, ancestor + n);
  ints[label + n] = -1;
  ints[end + n] = n;
  ints[lowerPointers] = 0;
  ints[upperPointers] = 0;
  ints.fill(0, counts, counts + n);
  ints.fill(-1, leaves, leaves + 2 * n);
  const b = (offset: number): number => 4 * offset;
  if (overRanges(n, CHUNK, (from, to) => pass.countNeighbours(from, to, n, b(cp), b(ri), b(degree), b(diagonal))) !== -1) return null;
  if (overRanges(n, CHUNK, (from, to) => pass.inversePermutation(from, to, n, b(permAt), b(degree), b(start), b(inverse))) !== -1)
    return null;
  ints.copyWithin(upperEnd, start, start + n);
  overRanges(n, CHUNK, (from, to) => pass.fillUpper(from, to, n, b(cp), b(ri), b(inverse), b(upperEnd), b(upper)));
  overRanges(n, CHUNK, (from, to) => pass.linkTree(from, to, n, b(start), b(upperEnd), b(upper), b(treeParent), b(size), b(ancestor)));
  const passArgs = [b(treeParent), b(size), b(permAt), b(inverse), b(label), b(end), b(post), b(finalPerm), b(parent), b(first)];
  overRanges(n, CHUNK, (from, to) => pass.numberPostorder(from, to, n, ...passArgs), true);
  overRanges(n, CHUNK, (from, to) =>
    pass.listPointers(
      from,
      to,
      n,
      b(post),
      b(finalPerm),
      b(start),
      b(upperEnd),
      b(degree),
      b(diagonal),
      b(lowerPointers),
      b(upperPointers),
      b(diagonalEntry),
    ),
  );
  ints.copyWithin(lowerNext, lowerPointers, lowerPointers + n);
  ints.copyWithin(upperNext, upperPointers, upperPointers + n);
  overRanges(n, CHUNK, (from, to) =>
    pass.fillPermuted(from, to, n, b(cp), b(ri), b(inverse), b(lowerNext), b(upperNext), b(lowerRows), b(upper)),
  );
  ints.fill(-1, ancestor, ancestor + n);
  let factorNonzeros = 0;
  overRanges(n, CHUNK, (from, to) => {
    factorNonzeros += pass.sweepColumnCounts(
      from,
      to,
      n,
      b(parent),
      b(first),
      b(lowerPointers),
      b(lowerRows),
      b(counts),
      b(leaves),
      b(ancestor),
    );
    return -1;
  });
  const count = pass.groupColumns(n, b(parent), b(first), b(counts), b(groupFirst), b(groupRows), b(totals));
  const [rowTotal, valueTotal] = new Float64Array(bound.memory.buffer, b(totals), 2);
  if (valueTotal > 0x7fffffff) return null;

  at.end = passesEnd;
  const supernodeStart = at.take(count + 1);
  const rowPointers = at.take(count + 1);
  const valuePointers = at.take(count + 1);
  const superParent = at.take(count);
  const supernodeOfColumn = at.take(n);
  const columnSlots = at.take(2 * n);
  const rows = at.take(rowTotal);
  const assemblyMap = at.take(nonzeros);
  const fillPointer = at.take(count);
  const mark = at.take(count);
  if (!grown(bound.memory, Math.ceil((4 * Math.max(at.end, phaseOneEnd)) / PAGE))) {
    memories.done(bound.memory);
    return null; // no room for the rows: the JavaScript passes may still fit
  }
  ints = new Int32Array(bound.memory.buffer);
  ints.fill(-1, assemblyMap, assemblyMap + nonzeros);
  ints.fill(-1, mark, mark + count);
  const largestBlock = pass.placeSupernodes(
    n,
    count,
    b(parent),
    b(groupFirst),
    b(groupRows),
    rowTotal,
    valueTotal,
    b(supernodeStart),
    b(rowPointers),
    b(valuePointers),
    b(superParent),
    b(supernodeOfColumn),
    b(columnSlots),
  );
  ints[supernodeStart + count] = n;
  ints[rowPointers + count] = rowTotal;
  ints[valuePointers + count] = valueTotal;
  ints.copyWithin(fillPointer, rowPointers, rowPointers + count);
  overRanges(n, CHUNK, (from, to) =>
    pass.walkRows(
      from,
      to,
      n,
      b(supernodeOfColumn),
      b(columnSlots),
      b(superParent),
      b(upperPointers),
      b(upper),
      b(diagonalEntry),
      b(rows),
      b(assemblyMap),
      b(fillPointer),
      b(mark),
    ),
  );
  const filled = pass.checkRowCounts(count, b(fillPointer), b(rowPointers)) === -1;
  const out = (offset: number, length: number): Int32Array => ints.slice(offset, offset + length);
  const analysis: CholeskySymbolic = {
    n,
    perm: out(finalPerm, n),
    inversePerm: out(inverse, n),
    parent: out(parent, n),
    columnCounts: out(counts, n),
    factorNonzeros,
    supernodeCount: count,
    supernodeStart: out(supernodeStart, count + 1),
    supernodeOfColumn: out(supernodeOfColumn, n),
    rowPointers: out(rowPointers, count + 1),
    rows: out(rows, rowTotal),
    valuePointers: out(valuePointers, count + 1),
    storedValues: valueTotal,
    largestBlock,
    matrixNonzeros: nonzeros,
    assemblyMap: out(assemblyMap, nonzeros),
  };
  memories.done(bound.memory);
  return filled ? analysis : null;
}
