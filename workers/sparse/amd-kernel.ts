/**
 * The approximate minimum degree ordering's elimination (amdOfGraph in amd-ordering.ts) as WebAssembly: the same
 * quotient graph in the same arrays, each phase of a step a function of its own as there (pivotElement,
 * markExternalDegrees, approximateDegrees, mergeSupervariables, finishElement), the degree lists, the mark clearing
 * and the growth of the list storage inline in the main loop. It makes the same choices in the same order, so the
 * ordering is the JavaScript one pivot for pivot (a unit test holds them equal on meshes and random graphs). Two
 * more functions surround it: `adjacency` builds the graph from a matrix's columns (symmetricAdjacency's lists, in
 * its order) in the ordering's own memory, and `permutation` reads the ordering off the elimination's steps.
 *
 * What it saves is the interpreter and the compiles: a process's first ordering runs in code compiled from these
 * bytes in about a millisecond, where V8 runs the JavaScript phases unoptimized until it has compiled them (the
 * reason for amd-ordering.ts's primer); and, warm, the bounds checks. The module is written with the builder of
 * wasm-module.ts and kept here as base64 (AMD_MODULE_BASE64, checked against the builder by a unit test).
 *
 * Memory (Int32 throughout, byte offsets passed to every function): the step values `at` (STEP_VALUES), the nodes
 * (NODE fields each), parent, step, head (n + 1), the hash table (HASH_BUCKETS heads, next, hash), the graph's
 * offsets (n + 1), a matrix's columns when the graph is built from them, then the lists `iw` to the memory's end,
 * which grows when an element needs more room.
 */
import {
  addInt,
  element,
  Fn,
  kernelMemoriesOf,
  local,
  moduleBytes,
  PAGE,
  range,
  readInt as read,
  writeInt as write,
  type Emit,
} from './wasm-module.ts';
import type { CscMatrix } from './csc-matrix.ts';

/** Node fields (amd-ordering.ts): list start and length, element count, size, degree, mark, degree-list links. */
const NODE_FIELDS = { PE: 0, LEN: 1, ELEN: 2, NV: 3, DEGREE: 4, MARK: 5, NEXT: 6, LAST: 7, NODE: 8 } as const;
/** A step's running values (amd-ordering.ts). */
const STEP_FIELDS = { LP_START: 0, LP_END: 1, DK: 2, PIVOT_SIZE: 3, ELIMINATED: 4, FREE: 5, STEP_VALUES: 6 } as const;
const HASH_BUCKETS = 1024;

const { PE, LEN, ELEN, NV, DEGREE, MARK, NEXT, LAST, NODE } = NODE_FIELDS;
const { LP_START, LP_END, DK, PIVOT_SIZE, ELIMINATED, FREE } = STEP_FIELDS;

const BASES = ['iw', 'node', 'head', 'parent', 'step', 'hashHead', 'hashNext', 'hashOf', 'at'] as const;
const MAIN = 0;
const PIVOT_ELEMENT = 1;
const MARK_EXTERNAL = 2;
const APPROXIMATE = 3;
const MERGE = 4;
const FINISH = 5;
const ADJACENCY = 6;
const PERMUTATION = 7;

/** The address of node (local `i`). */
const nodeOf = (g: Fn, i: string): Fn =>
  g
    .get(i)
    .i32(4 * NODE)
    .mul()
    .get('node')
    .add();
/** node[i].field */
const field = (g: Fn, i: string, f: number): Fn => nodeOf(g, i).loadI32(4 * f);
/** node[i].field = value */
const setField = (g: Fn, i: string, f: number, value: Emit): void => {
  nodeOf(g, i);
  value(g);
  g.storeI32(4 * f);
};
const stepValue = (g: Fn, f: number): Fn => g.get('at').loadI32(4 * f);
const setStepValue = (g: Fn, f: number, value: Emit): void => {
  g.get('at');
  value(g);
  g.storeI32(4 * f);
};

/** Takes variable (local) i out of the degree list of its DEGREE field (locals rn, rl: scratch). */
function removeFromDegreeList(g: Fn, i: string): void {
  field(g, i, NEXT).set('rn');
  field(g, i, LAST).set('rl');
  g.get('rn').i32(-1).notEqual();
  g.when((h) => setField(h, 'rn', LAST, local('rl')));
  g.get('rl').i32(-1).notEqual();
  g.when(
    (h) => setField(h, 'rl', NEXT, local('rn')),
    (h) => write(h, 'head', (k) => field(k, i, DEGREE), local('rn')),
  );
}

/** Puts variable (local) i at the head of degree list (local) d (local rh: scratch). */
function insertInDegreeList(g: Fn, i: string, d: string): void {
  read(g, 'head', local(d)).set('rh');
  setField(g, i, NEXT, local('rh'));
  setField(g, i, LAST, (h) => h.i32(-1));
  g.get('rh').i32(-1).notEqual();
  g.when((h) => setField(h, 'rh', LAST, local(i)));
  write(g, 'head', local(d), local(i));
}

/** for (k = at[LP_START]; k < lpEnd; k++) body, lpEnd = at[LP_END] (locals k and lpEnd) */
function overLp(g: Fn, body: Emit): void {
  stepValue(g, LP_END).set('lpEnd');
  range(g, 'k', (h) => stepValue(h, LP_START), local('lpEnd'), body);
}

function fn(name: string, params: readonly string[], result: 'i32' | null = null): Fn {
  return new Fn(name, [...BASES, ...params], result);
}

/** pivotElement(p, elenp): Lp, the new element p (amd-ordering.ts's pivotElement). */
function pivotElement(): Fn {
  const f = fn('pivotElement', ['p', 'elenp']);
  f.local('i32', 'pivotSize', 'pe', 'stop', 'start', 'end', 'dk', 'k', 'e', 'isElement', 'from', 'to', 'q', 'i', 'nvi', 'rn', 'rl');
  field(f, 'p', NV).set('pivotSize');
  setField(f, 'p', NV, (g) => g.i32(0).get('pivotSize').sub());
  field(f, 'p', PE).set('pe');
  f.get('pe');
  field(f, 'p', LEN);
  f.add().set('stop');
  f.get('pe');
  stepValue(f, FREE);
  f.get('elenp').i32(0).equal().select().set('start');
  f.get('start').set('end');
  f.i32(0).set('dk');
  range(f, 'k', local('pe'), local('stop'), (g) => {
    read(g, 'iw', local('k')).set('e');
    g.get('k').get('pe').get('elenp').add().lessS().set('isElement');
    g.get('isElement');
    g.when(
      (h) => {
        field(h, 'e', PE).set('from');
        h.get('from');
        field(h, 'e', LEN);
        h.add().set('to');
      },
      (h) => {
        h.get('k').set('from');
        h.get('k').i32(1).add().set('to');
      },
    );
    range(g, 'q', local('from'), local('to'), (h) => {
      read(h, 'iw', local('q')).set('i');
      field(h, 'i', NV).set('nvi');
      h.get('nvi').i32(0).greaterS();
      h.when((k) => {
        k.get('dk').get('nvi').add().set('dk');
        setField(k, 'i', NV, (m) => m.i32(0).get('nvi').sub());
        write(k, 'iw', local('end'), local('i'));
        k.step('end', 1);
        removeFromDegreeList(k, 'i');
      });
    });
    g.get('isElement').get('e').get('p').notEqual().and();
    g.when((h) => {
      write(h, 'parent', local('e'), local('p'));
      setField(h, 'e', MARK, (k) => k.i32(0));
    });
  });
  setStepValue(f, LP_START, local('start'));
  setStepValue(f, LP_END, local('end'));
  f.get('elenp').i32(0).notEqual();
  f.when((g) => setStepValue(g, FREE, local('end')));
  setStepValue(f, DK, local('dk'));
  setStepValue(f, PIVOT_SIZE, local('pivotSize'));
  setStepValue(f, ELIMINATED, (g) => stepValue(g, ELIMINATED).get('pivotSize').add());
  return f;
}

/** markExternalDegrees(wflg): node[e].MARK − wflg becomes |Le \ Lp| for every live element e next to Lp. */
function markExternalDegrees(): Fn {
  const f = fn('markExternalDegrees', ['wflg']);
  f.local('i32', 'k', 'lpEnd', 'i', 'eln', 'nvi', 'wnvi', 'q', 'stop', 'e', 'we');
  overLp(f, (g) => {
    read(g, 'iw', local('k')).set('i');
    field(g, 'i', ELEN).set('eln');
    g.get('eln').i32(0).greaterS();
    g.when((h) => {
      h.i32(0);
      field(h, 'i', NV);
      h.sub().set('nvi');
      h.get('wflg').get('nvi').sub().set('wnvi');
      field(h, 'i', PE).set('q');
      h.get('q').get('eln').add().set('stop');
      h.loop(
        (k) => k.get('q').get('stop').lessS(),
        (k) => {
          read(k, 'iw', local('q')).set('e');
          field(k, 'e', MARK).set('we');
          k.get('we').get('wflg').greaterEqualS();
          k.when(
            (m) => setField(m, 'e', MARK, (r) => r.get('we').get('nvi').sub()),
            (m) => {
              m.get('we').i32(0).notEqual();
              m.when((r) => setField(r, 'e', MARK, (t) => field(t, 'e', DEGREE).get('wnvi').add()));
            },
          );
          k.step('q', 1);
        },
      );
    });
  });
  return f;
}

/** approximateDegrees(p, wflg): approximate degrees of Lp's variables, absorption, mass elimination, hashing. */
function approximateDegrees(): Fn {
  const f = fn('approximateDegrees', ['p', 'wflg']);
  f.local('i32', 'dk', 'pivotSize', 'eliminated', 'k', 'lpEnd', 'i', 'p1', 'p2', 'p3', 'p4', 'pn', 'h', 'd', 'q', 'e');
  f.local('i32', 'external', 'j', 'nvj', 'nvi', 'current', 'bucket');
  stepValue(f, DK).set('dk');
  stepValue(f, PIVOT_SIZE).set('pivotSize');
  stepValue(f, ELIMINATED).set('eliminated');
  overLp(f, (g) => {
    read(g, 'iw', local('k')).set('i');
    field(g, 'i', PE).set('p1');
    g.get('p1');
    field(g, 'i', ELEN);
    g.add().set('p2');
    g.get('p1').set('pn');
    g.i32(0).set('h').i32(0).set('d');
    range(g, 'q', local('p1'), local('p2'), (h) => {
      read(h, 'iw', local('q')).set('e');
      field(h, 'e', MARK).i32(0).notEqual();
      h.when((k) => {
        field(k, 'e', MARK).get('wflg').sub().set('external');
        k.get('external').i32(0).greaterS();
        k.when(
          (m) => {
            m.get('d').get('external').add().set('d');
            write(m, 'iw', local('pn'), local('e'));
            m.step('pn', 1);
            m.get('h').get('e').add().set('h');
          },
          (m) => {
            // Aggressive absorption: Le ⊆ Lp, so element p covers e.
            write(m, 'parent', local('e'), local('p'));
            setField(m, 'e', MARK, (r) => r.i32(0));
          },
        );
      });
    });
    setField(g, 'i', ELEN, (h) => h.get('pn').get('p1').sub().i32(1).add());
    g.get('pn').set('p3');
    g.get('p1');
    field(g, 'i', LEN);
    g.add().set('p4');
    range(g, 'q', local('p2'), local('p4'), (h) => {
      read(h, 'iw', local('q')).set('j');
      field(h, 'j', NV).set('nvj');
      h.get('nvj').i32(0).greaterS();
      h.when((k) => {
        k.get('d').get('nvj').add().set('d');
        write(k, 'iw', local('pn'), local('j'));
        k.step('pn', 1);
        k.get('h').get('j').add().set('h');
      });
    });
    field(g, 'i', ELEN).i32(1).equal().get('p3').get('pn').equal().and();
    g.when(
      (h) => {
        // Mass elimination: i is adjacent to element p only, so it is eliminated together with p.
        write(h, 'parent', local('i'), local('p'));
        h.i32(0);
        field(h, 'i', NV);
        h.sub().set('nvi');
        h.get('dk').get('nvi').sub().set('dk');
        h.get('pivotSize').get('nvi').add().set('pivotSize');
        h.get('eliminated').get('nvi').add().set('eliminated');
        setField(h, 'i', NV, (k) => k.i32(0));
        setField(h, 'i', ELEN, (k) => k.i32(-1));
      },
      (h) => {
        field(h, 'i', DEGREE).set('current');
        setField(h, 'i', DEGREE, (k) => k.get('current').get('d').get('current').get('d').lessS().select());
        // Element p goes first in i's list.
        write(h, 'iw', local('pn'), (k) => read(k, 'iw', local('p3')));
        write(h, 'iw', local('p3'), (k) => read(k, 'iw', local('p1')));
        write(h, 'iw', local('p1'), local('p'));
        setField(h, 'i', LEN, (k) => k.get('pn').get('p1').sub().i32(1).add());
        h.get('h')
          .i32(HASH_BUCKETS - 1)
          .and()
          .set('bucket');
        write(h, 'hashOf', local('i'), local('h'));
        write(h, 'hashNext', local('i'), (k) => read(k, 'hashHead', local('bucket')));
        write(h, 'hashHead', local('bucket'), local('i'));
      },
    );
  });
  setStepValue(f, DK, local('dk'));
  setStepValue(f, PIVOT_SIZE, local('pivotSize'));
  setStepValue(f, ELIMINATED, local('eliminated'));
  return f;
}

/** mergeSupervariables(wflg): variables of Lp with identical lists merge; returns the mark counter after. */
function mergeSupervariables(): Fn {
  const f = fn('mergeSupervariables', ['wflg'], 'i32');
  f.local('i32', 'k', 'lpEnd', 'first', 'bucket', 'i', 'ln', 'eln', 'hi', 'candidate', 'q', 'qEnd', 'jLast', 'j', 'same', 'after', 'iwq');
  /** hashOf[x] == hi && node[x].LEN == ln && node[x].ELEN == eln, for local x */
  const matches = (g: Fn, x: string): void => {
    read(g, 'hashOf', local(x)).get('hi').equal();
    field(g, x, LEN).get('ln').equal().and();
    field(g, x, ELEN).get('eln').equal().and();
  };
  overLp(f, (g) => {
    read(g, 'iw', local('k')).set('first');
    field(g, 'first', NV).i32(0).lessS();
    g.when((h) => {
      read(h, 'hashOf', local('first'))
        .i32(HASH_BUCKETS - 1)
        .and()
        .set('bucket');
      read(h, 'hashHead', local('bucket')).set('i');
      write(h, 'hashHead', local('bucket'), (k) => k.i32(-1));
      h.loop(
        (k) => {
          k.get('i').i32(-1).notEqual();
          read(k, 'hashNext', local('i')).i32(-1).notEqual();
          k.and();
        },
        (k) => {
          field(k, 'i', LEN).set('ln');
          field(k, 'i', ELEN).set('eln');
          read(k, 'hashOf', local('i')).set('hi');
          // A list is marked only when a later variable has its hash, length and element count.
          read(k, 'hashNext', local('i')).set('candidate');
          k.loop(
            (m) => {
              m.get('candidate').i32(-1).notEqual();
              matches(m, 'candidate');
              m.i32(0).equal().and();
            },
            (m) => read(m, 'hashNext', local('candidate')).set('candidate'),
          );
          k.get('candidate').i32(-1).notEqual();
          k.when((m) => {
            field(m, 'i', PE).set('qEnd');
            m.get('qEnd').get('ln').add().set('qEnd');
            range(
              m,
              'q',
              (r) => field(r, 'i', PE).i32(1).add(),
              local('qEnd'),
              (r) => {
                setIwq(r);
                setField(r, 'iwq', MARK, local('wflg'));
              },
            );
            m.get('i').set('jLast');
            read(m, 'hashNext', local('i')).set('j');
            m.loop(
              (r) => r.get('j').i32(-1).notEqual(),
              (r) => {
                matches(r, 'j');
                r.set('same');
                field(r, 'j', PE).set('qEnd');
                r.get('qEnd').get('ln').add().set('qEnd');
                field(r, 'j', PE).i32(1).add().set('q');
                r.loop(
                  (t) => t.get('same').get('q').get('qEnd').lessS().and(),
                  (t) => {
                    setIwq(t);
                    field(t, 'iwq', MARK).get('wflg').notEqual();
                    t.when((u) => u.i32(0).set('same'));
                    t.step('q', 1);
                  },
                );
                read(r, 'hashNext', local('j')).set('after');
                r.get('same');
                r.when(
                  (t) => {
                    write(t, 'parent', local('j'), local('i'));
                    setField(t, 'i', NV, (u) => {
                      field(u, 'i', NV);
                      field(u, 'j', NV);
                      u.add();
                    });
                    setField(t, 'j', NV, (u) => u.i32(0));
                    setField(t, 'j', ELEN, (u) => u.i32(-1));
                    write(t, 'hashNext', local('jLast'), local('after'));
                  },
                  (t) => t.get('j').set('jLast'),
                );
                r.get('after').set('j');
              },
            );
            m.step('wflg', 1);
          });
          read(k, 'hashNext', local('i')).set('i');
        },
      );
    });
  });
  return f.get('wflg');
}

/** local iwq = iw[q] */
function setIwq(g: Fn): void {
  read(g, 'iw', local('q')).set('iwq');
}

/** finishElement(p, elenp, n, minDegree): final degrees of Lp's principal variables; returns the least degree. */
function finishElement(): Fn {
  const f = fn('finishElement', ['p', 'elenp', 'n', 'minDegree'], 'i32');
  f.local('i32', 'lpStart', 'dk', 'eliminated', 'least', 'put', 'k', 'i', 'nvi', 'a', 'b', 'd', 'rh');
  stepValue(f, LP_START).set('lpStart');
  stepValue(f, DK).set('dk');
  stepValue(f, ELIMINATED).set('eliminated');
  f.get('minDegree').set('least');
  f.get('lpStart').set('put');
  range(
    f,
    'k',
    local('lpStart'),
    (g) => stepValue(g, LP_END),
    (g) => {
      read(g, 'iw', local('k')).set('i');
      g.i32(0);
      field(g, 'i', NV);
      g.sub().set('nvi');
      g.get('nvi').i32(0).greaterS();
      g.when((h) => {
        setField(h, 'i', NV, local('nvi'));
        field(h, 'i', DEGREE).get('dk').add().get('nvi').sub().set('a');
        h.get('n').get('eliminated').sub().get('nvi').sub().set('b');
        h.get('a').get('b').get('a').get('b').lessS().select().set('d');
        setField(h, 'i', DEGREE, local('d'));
        insertInDegreeList(h, 'i', 'd');
        h.get('d').get('least').lessS();
        h.when((k) => k.get('d').set('least'));
        write(h, 'iw', local('put'), local('i'));
        h.step('put', 1);
      });
    },
  );
  setField(f, 'p', NV, (g) => stepValue(g, PIVOT_SIZE));
  setField(f, 'p', LEN, (g) => g.get('put').get('lpStart').sub());
  f.get('put').get('lpStart').equal();
  f.when((g) => setField(g, 'p', MARK, (h) => h.i32(0)));
  f.get('elenp').i32(0).notEqual();
  f.when((g) => setStepValue(g, FREE, local('put')));
  return f.get('least');
}

/**
 * amd(n, wflgLimit, offsets): the whole elimination (amdOfGraph's loop), the nodes set up from the graph's offsets
 * (its lists already at the start of iw, parent, step, head and the hash table filled with −1, `at` zero). Returns
 * the number of pivots (steps), or −1 when the lists need more memory than can be had.
 */
function amd(): Fn {
  const f = fn('amd', ['n', 'wflgLimit', 'offsets'], 'i32');
  f.local('i32', 'i', 'd', 'rh', 'rn', 'rl', 'wflg', 'lemax', 'minDegree', 'steps', 'p', 'elenp', 'need', 'k', 'stop');
  f.local('i32', 'capacity', 'target', 'want', 'x');
  const capacity = (g: Fn): void => {
    g.memorySize().i32(16).shl().get('iw').sub().i32(2).shrU().set('capacity');
  };
  // The quotient graph is the graph; every variable in the degree list of its degree.
  range(
    f,
    'i',
    (g) => g.i32(0),
    local('n'),
    (g) => {
      read(g, 'offsets', (h) => h.get('i').i32(1).add()).set('d');
      read(g, 'offsets', local('i')).set('x');
      g.get('d').get('x').sub().set('d');
      setField(g, 'i', PE, local('x'));
      setField(g, 'i', LEN, local('d'));
      setField(g, 'i', NV, (h) => h.i32(1));
      setField(g, 'i', DEGREE, local('d'));
      setField(g, 'i', MARK, (h) => h.i32(1));
      insertInDegreeList(g, 'i', 'd');
    },
  );
  setStepValue(f, FREE, (g) => read(g, 'offsets', local('n')));
  capacity(f);
  f.i32(2).set('wflg');
  f.loop(
    (g) => stepValue(g, ELIMINATED).get('n').lessS(),
    (g) => {
      g.get('wflg').get('wflgLimit').greaterS();
      g.when((h) => {
        range(
          h,
          'i',
          (k) => k.i32(0),
          local('n'),
          (k) => {
            field(k, 'i', MARK).i32(0).notEqual();
            k.when((m) => setField(m, 'i', MARK, (r) => r.i32(1)));
          },
        );
        h.i32(2).set('wflg');
      });
      g.loop(
        (h) => read(h, 'head', local('minDegree')).i32(-1).equal(),
        (h) => h.step('minDegree', 1),
      );
      read(g, 'head', local('minDegree')).set('p');
      removeFromDegreeList(g, 'p');
      write(g, 'step', local('p'), local('steps'));
      g.step('steps', 1);
      field(g, 'p', ELEN).set('elenp');
      g.get('elenp').i32(0).notEqual();
      g.when((h) => {
        // Room Lp may need when appended: p's list length plus its elements' list lengths.
        field(h, 'p', LEN).set('need');
        field(h, 'p', PE).set('k');
        h.get('k').get('elenp').add().set('stop');
        h.loop(
          (k) => k.get('k').get('stop').lessS(),
          (k) => {
            read(k, 'iw', local('k')).set('x');
            k.get('need');
            field(k, 'x', LEN);
            k.add().set('need');
            k.step('k', 1);
          },
        );
        stepValue(h, FREE).get('need').add().set('target');
        h.get('target').get('capacity').greaterS();
        h.when((k) => {
          // Twice the room, or what is needed and n more, in whole pages; just what is needed if that fails.
          k.get('target').get('n').add().set('want');
          k.get('capacity').i32(1).shl().get('want').get('capacity').i32(1).shl().get('want').greaterS().select().set('want');
          for (const amount of ['want', 'target']) {
            k.get('target').get('capacity').greaterS();
            k.when((m) => {
              m.get(amount)
                .i32(2)
                .shl()
                .get('iw')
                .add()
                .i32(PAGE - 1)
                .add()
                .i32(16)
                .shrU();
              m.memorySize().sub().memoryGrow().i32(-1).notEqual();
              m.when((r) => capacity(r));
            });
          }
          k.get('target').get('capacity').greaterS();
          k.when((m) => m.i32(-1).ret());
        });
      });
      pushBases(g);
      g.get('p').get('elenp').call(PIVOT_ELEMENT);
      setField(g, 'p', PE, (h) => stepValue(h, LP_START));
      setField(g, 'p', LEN, (h) =>
        stepValue(h, LP_END)
          .get('at')
          .loadI32(4 * LP_START)
          .sub(),
      );
      setField(g, 'p', ELEN, (h) => h.i32(-1));
      setField(g, 'p', DEGREE, (h) => stepValue(h, DK));
      stepValue(g, DK).get('lemax').greaterS();
      g.when((h) => stepValue(h, DK).set('lemax'));
      pushBases(g);
      g.get('wflg').call(MARK_EXTERNAL);
      pushBases(g);
      g.get('p').get('wflg').call(APPROXIMATE);
      setField(g, 'p', DEGREE, (h) => stepValue(h, DK));
      pushBases(g);
      g.get('wflg').get('lemax').add().call(MERGE).set('wflg');
      pushBases(g);
      g.get('p').get('elenp').get('n').get('minDegree').call(FINISH).set('minDegree');
    },
  );
  return f.get('steps');
}

function pushBases(g: Fn): void {
  for (const b of BASES) g.get(b);
}

/**
 * adjacency(n, cp, ri, offsets, lists, next, lastSeen): the graph of pattern(A + Aᵀ) without the diagonal
 * (symmetricAdjacency in symmetric-adjacency.ts) from A's columns (cp, ri), each vertex's neighbours in the order
 * that function lists them: offsets (#n + 1, zero on entry), the lists from `lists` on; next and lastSeen: #n of
 * scratch (lastSeen −1 on entry). Returns the lists' total length, or −1 for a row outside the matrix.
 */
function adjacency(): Fn {
  const f = new Fn('adjacency', ['n', 'cp', 'ri', 'offsets', 'lists', 'next', 'lastSeen'], 'i32');
  f.local('i32', 'j', 'p', 'end', 'i', 'below', 'above', 'q', 'write', 'from', 'k');
  /** for each off-diagonal entry (i, j) of A: body */
  const entries = (g: Fn, body: Emit): void =>
    range(
      g,
      'j',
      (h) => h.i32(0),
      local('n'),
      (h) => {
        read(h, 'cp', (k) => k.get('j').i32(1).add()).set('end');
        range(
          h,
          'p',
          (k) => read(k, 'cp', local('j')),
          local('end'),
          (k) => {
            read(k, 'ri', local('p')).set('i');
            k.get('i').get('j').notEqual();
            k.when(body);
          },
        );
      },
    );
  /** list[next[at]++] = value */
  const append = (g: Fn, at: string, value: string): void => {
    read(g, 'next', local(at)).set('q');
    write(g, 'lists', local('q'), local(value));
    write(g, 'next', local(at), (h) => h.get('q').i32(1).add());
  };
  const bump = (g: Fn, at: string): void =>
    addInt(
      g,
      'offsets',
      (h) => h.get(at).i32(1).add(),
      (h) => h.i32(1),
      'q',
    );
  entries(f, (g) => {
    g.get('i').get('n').lessU().isZero();
    g.when((h) => h.i32(-1).ret());
    bump(g, 'i');
    bump(g, 'j');
    g.get('below').get('i').get('j').greaterS().or().set('below');
    g.get('above').get('i').get('j').lessS().or().set('above');
  });
  range(
    f,
    'i',
    (g) => g.i32(0),
    local('n'),
    (g) => {
      write(
        g,
        'offsets',
        (h) => h.get('i').i32(1).add(),
        (h) => {
          read(h, 'offsets', (k) => k.get('i').i32(1).add());
          read(h, 'offsets', local('i'));
          h.add();
        },
      );
      write(g, 'next', local('i'), (h) => read(h, 'offsets', local('i')));
    },
  );
  entries(f, (g) => {
    append(g, 'i', 'j');
    append(g, 'j', 'i');
  });
  // Both triangles stored: every edge is listed twice; keep each neighbour's first copy, compacting in place.
  f.get('below').get('above').and();
  f.when((g) => {
    g.i32(0).set('from');
    range(
      g,
      'i',
      (h) => h.i32(0),
      local('n'),
      (h) => {
        read(h, 'offsets', (k) => k.get('i').i32(1).add()).set('end');
        range(h, 'p', local('from'), local('end'), (k) => {
          read(k, 'lists', local('p')).set('k');
          read(k, 'lastSeen', local('k')).get('i').notEqual();
          k.when((m) => {
            write(m, 'lastSeen', local('k'), local('i'));
            write(m, 'lists', local('write'), local('k'));
            m.step('write', 1);
          });
        });
        h.get('end').set('from');
        write(h, 'offsets', (k) => k.get('i').i32(1).add(), local('write'));
      },
    );
  });
  return f.get('n').i32(4).mul().get('offsets').add().loadI32();
}

/**
 * permutation(n, step, parent, steps, group, start, perm): perm from the elimination's steps (permutationFromSteps
 * in amd-ordering.ts): each variable eliminated along with a pivot (step −1) follows its links to that pivot (the
 * links compressed on the way) and takes the pivot's step; the variables are then counted out by step, in index
 * order within one. start: #steps + 1, zero on entry; group: #n of scratch.
 */
function permutation(): Fn {
  const f = new Fn('permutation', ['n', 'step', 'parent', 'steps', 'group', 'start', 'perm']);
  f.local('i32', 'i', 'r', 'j', 'up', 'q', 's');
  const eliminatedAlong = (g: Fn, at: string): Fn => read(g, 'step', local(at)).i32(-1).equal();
  range(
    f,
    'i',
    (g) => g.i32(0),
    local('n'),
    (g) => {
      g.get('i').set('r');
      g.loop(
        (h) => eliminatedAlong(h, 'r'),
        (h) => read(h, 'parent', local('r')).set('r'),
      );
      write(g, 'group', local('i'), (h) => read(h, 'step', local('r')));
      g.get('i').set('j');
      g.loop(
        (h) => eliminatedAlong(h, 'j'),
        (h) => {
          read(h, 'parent', local('j')).set('up');
          write(h, 'parent', local('j'), local('r'));
          h.get('up').set('j');
        },
      );
    },
  );
  const groupStart = (g: Fn, plus: number): Fn => element(g, 'start', (h) => read(h, 'group', local('i')).i32(plus).add());
  range(
    f,
    'i',
    (g) => g.i32(0),
    local('n'),
    (g) =>
      addInt(
        g,
        'start',
        (h) => read(h, 'group', local('i')).i32(1).add(),
        (h) => h.i32(1),
        'q',
      ),
  );
  range(
    f,
    's',
    (g) => g.i32(0),
    local('steps'),
    (g) =>
      write(
        g,
        'start',
        (h) => h.get('s').i32(1).add(),
        (h) => {
          read(h, 'start', (k) => k.get('s').i32(1).add());
          read(h, 'start', local('s'));
          h.add();
        },
      ),
  );
  range(
    f,
    'i',
    (g) => g.i32(0),
    local('n'),
    (g) => {
      groupStart(g, 0).set('q');
      write(g, 'perm', (h) => h.get('q').loadI32(), local('i'));
      g.get('q').get('q').loadI32().i32(1).add().storeI32();
    },
  );
  return f;
}

/** The module's bytes, written by the builder. */
export function amdModuleBytes(): Uint8Array<ArrayBuffer> {
  const fns: Fn[] = [];
  fns[MAIN] = amd();
  fns[PIVOT_ELEMENT] = pivotElement();
  fns[MARK_EXTERNAL] = markExternalDegrees();
  fns[APPROXIMATE] = approximateDegrees();
  fns[MERGE] = mergeSupervariables();
  fns[FINISH] = finishElement();
  fns[ADJACENCY] = adjacency();
  fns[PERMUTATION] = permutation();
  return moduleBytes(fns, false);
}

/** amdModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const AMD_MODULE_BASE64 = [
  'AGFzbQEAAAABYAdgDH9/f39/f39/f39/fwF/YAt/f39/f39/f39/fwBgCn9/f39/f39/f38AYAp/f39/f39/f39/AX9gDX9/f39/',
  'f39/f39/f38Bf2AHf39/f39/fwF/YAd/f39/f39/AAISAQNlbnYGbWVtb3J5AgEAgIACAwkIAAECAQMEBQYHgQEIA2FtZAAADHBp',
  'dm90RWxlbWVudAABE21hcmtFeHRlcm5hbERlZ3JlZXMAAhJhcHByb3hpbWF0ZURlZ3JlZXMAAxNtZXJnZVN1cGVydmFyaWFibGVz',
  'AAQNZmluaXNoRWxlbWVudAAFCWFkamFjZW5jeQAGC3Blcm11dGF0aW9uAAcKlyIIyAcBEn9BACEMAkADQCAMIAlIRQ0BIAxBAWpB',
  'BGwgC2ooAgAhDSAMQQRsIAtqKAIAIR0gDSAdayENIAxBIGwgAWogHTYCACAMQSBsIAFqIA02AgQgDEEgbCABakEBNgIMIAxBIGwg',
  'AWogDTYCECAMQSBsIAFqQQE2AhQgDUEEbCACaigCACEOIAxBIGwgAWogDjYCGCAMQSBsIAFqQX82AhwgDkF/RwRAIA5BIGwgAWog',
  'DDYCHAsgDUEEbCACaiAMNgIAIAxBAWohDAwACwsgCCAJQQRsIAtqKAIANgIUPwBBEHQgAGtBAnYhGkECIRECQANAIAgoAhAgCUhF',
  'DQEgESAKSgRAQQAhDAJAA0AgDCAJSEUNASAMQSBsIAFqKAIUQQBHBEAgDEEgbCABakEBNgIUCyAMQQFqIQwMAAsLQQIhEQsCQANA',
  'IBNBBGwgAmooAgBBf0ZFDQEgE0EBaiETDAALCyATQQRsIAJqKAIAIRUgFUEgbCABaigCGCEPIBVBIGwgAWooAhwhECAPQX9HBEAg',
  'D0EgbCABaiAQNgIcCyAQQX9HBEAgEEEgbCABaiAPNgIYBSAVQSBsIAFqKAIQQQRsIAJqIA82AgALIBVBBGwgBGogFDYCACAUQQFq',
  'IRQgFUEgbCABaigCCCEWIBZBAEcEQCAVQSBsIAFqKAIEIRcgFUEgbCABaigCACEYIBggFmohGQJAA0AgGCAZSEUNASAYQQRsIABq',
  'KAIAIR0gFyAdQSBsIAFqKAIEaiEXIBhBAWohGAwACwsgCCgCFCAXaiEbIBsgGkoEQCAbIAlqIRwgGkEBdCAcIBpBAXQgHEobIRwg',
  'GyAaSgRAIBxBAnQgAGpB//8DakEQdj8Aa0AAQX9HBEA/AEEQdCAAa0ECdiEaCwsgGyAaSgRAIBtBAnQgAGpB//8DakEQdj8Aa0AA',
  'QX9HBEA/AEEQdCAAa0ECdiEaCwsgGyAaSgRAQX8PCwsLIAAgASACIAMgBCAFIAYgByAIIBUgFhABIBVBIGwgAWogCCgCADYCACAV',
  'QSBsIAFqIAgoAgQgCCgCAGs2AgQgFUEgbCABakF/NgIIIBVBIGwgAWogCCgCCDYCECAIKAIIIBJKBEAgCCgCCCESCyAAIAEgAiAD',
  'IAQgBSAGIAcgCCAREAIgACABIAIgAyAEIAUgBiAHIAggFSAREAMgFUEgbCABaiAIKAIINgIQIAAgASACIAMgBCAFIAYgByAIIBEg',
  'EmoQBCERIAAgASACIAMgBCAFIAYgByAIIBUgFiAJIBMQBSETDAALCyAUC9UDARB/IAlBIGwgAWooAgwhCyAJQSBsIAFqQQAgC2s2',
  'AgwgCUEgbCABaigCACEMIAwgCUEgbCABaigCBGohDSAMIAgoAhQgCkEARhshDiAOIQ9BACEQIAwhEQJAA0AgESANSEUNASARQQRs',
  'IABqKAIAIRIgESAMIApqSCETIBMEQCASQSBsIAFqKAIAIRQgFCASQSBsIAFqKAIEaiEVBSARIRQgEUEBaiEVCyAUIRYCQANAIBYg',
  'FUhFDQEgFkEEbCAAaigCACEXIBdBIGwgAWooAgwhGCAYQQBKBEAgECAYaiEQIBdBIGwgAWpBACAYazYCDCAPQQRsIABqIBc2AgAg',
  'D0EBaiEPIBdBIGwgAWooAhghGSAXQSBsIAFqKAIcIRogGUF/RwRAIBlBIGwgAWogGjYCHAsgGkF/RwRAIBpBIGwgAWogGTYCGAUg',
  'F0EgbCABaigCEEEEbCACaiAZNgIACwsgFkEBaiEWDAALCyATIBIgCUdxBEAgEkEEbCADaiAJNgIAIBJBIGwgAWpBADYCFAsgEUEB',
  'aiERDAALCyAIIA42AgAgCCAPNgIEIApBAEcEQCAIIA82AhQLIAggEDYCCCAIIAs2AgwgCCAIKAIQIAtqNgIQC+EBAQp/IAgoAgQh',
  'CyAIKAIAIQoCQANAIAogC0hFDQEgCkEEbCAAaigCACEMIAxBIGwgAWooAgghDSANQQBKBEBBACAMQSBsIAFqKAIMayEOIAkgDmsh',
  'DyAMQSBsIAFqKAIAIRAgECANaiERAkADQCAQIBFIRQ0BIBBBBGwgAGooAgAhEiASQSBsIAFqKAIUIRMgEyAJTgRAIBJBIGwgAWog',
  'EyAOazYCFAUgE0EARwRAIBJBIGwgAWogEkEgbCABaigCECAPajYCFAsLIBBBAWohEAwACwsLIApBAWohCgwACwsLpwUBFX8gCCgC',
  'CCELIAgoAgwhDCAIKAIQIQ0gCCgCBCEPIAgoAgAhDgJAA0AgDiAPSEUNASAOQQRsIABqKAIAIRAgEEEgbCABaigCACERIBEgEEEg',
  'bCABaigCCGohEiARIRVBACEWQQAhFyARIRgCQANAIBggEkhFDQEgGEEEbCAAaigCACEZIBlBIGwgAWooAhRBAEcEQCAZQSBsIAFq',
  'KAIUIAprIRogGkEASgRAIBcgGmohFyAVQQRsIABqIBk2AgAgFUEBaiEVIBYgGWohFgUgGUEEbCADaiAJNgIAIBlBIGwgAWpBADYC',
  'FAsLIBhBAWohGAwACwsgEEEgbCABaiAVIBFrQQFqNgIIIBUhEyARIBBBIGwgAWooAgRqIRQgEiEYAkADQCAYIBRIRQ0BIBhBBGwg',
  'AGooAgAhGyAbQSBsIAFqKAIMIRwgHEEASgRAIBcgHGohFyAVQQRsIABqIBs2AgAgFUEBaiEVIBYgG2ohFgsgGEEBaiEYDAALCyAQ',
  'QSBsIAFqKAIIQQFGIBMgFUZxBEAgEEEEbCADaiAJNgIAQQAgEEEgbCABaigCDGshHSALIB1rIQsgDCAdaiEMIA0gHWohDSAQQSBs',
  'IAFqQQA2AgwgEEEgbCABakF/NgIIBSAQQSBsIAFqKAIQIR4gEEEgbCABaiAeIBcgHiAXSBs2AhAgFUEEbCAAaiATQQRsIABqKAIA',
  'NgIAIBNBBGwgAGogEUEEbCAAaigCADYCACARQQRsIABqIAk2AgAgEEEgbCABaiAVIBFrQQFqNgIEIBZB/wdxIR8gEEEEbCAHaiAW',
  'NgIAIBBBBGwgBmogH0EEbCAFaigCADYCACAfQQRsIAVqIBA2AgALIA5BAWohDgwACwsgCCALNgIIIAggDDYCDCAIIA02AhALpQUB',
  'EH8gCCgCBCELIAgoAgAhCgJAA0AgCiALSEUNASAKQQRsIABqKAIAIQwgDEEgbCABaigCDEEASARAIAxBBGwgB2ooAgBB/wdxIQ0g',
  'DUEEbCAFaigCACEOIA1BBGwgBWpBfzYCAAJAA0AgDkF/RyAOQQRsIAZqKAIAQX9HcUUNASAOQSBsIAFqKAIEIQ8gDkEgbCABaigC',
  'CCEQIA5BBGwgB2ooAgAhESAOQQRsIAZqKAIAIRICQANAIBJBf0cgEkEEbCAHaigCACARRiASQSBsIAFqKAIEIA9GcSASQSBsIAFq',
  'KAIIIBBGcUEARnFFDQEgEkEEbCAGaigCACESDAALCyASQX9HBEAgDkEgbCABaigCACEUIBQgD2ohFCAOQSBsIAFqKAIAQQFqIRMC',
  'QANAIBMgFEhFDQEgE0EEbCAAaigCACEZIBlBIGwgAWogCTYCFCATQQFqIRMMAAsLIA4hFSAOQQRsIAZqKAIAIRYCQANAIBZBf0dF',
  'DQEgFkEEbCAHaigCACARRiAWQSBsIAFqKAIEIA9GcSAWQSBsIAFqKAIIIBBGcSEXIBZBIGwgAWooAgAhFCAUIA9qIRQgFkEgbCAB',
  'aigCAEEBaiETAkADQCAXIBMgFEhxRQ0BIBNBBGwgAGooAgAhGSAZQSBsIAFqKAIUIAlHBEBBACEXCyATQQFqIRMMAAsLIBZBBGwg',
  'BmooAgAhGCAXBEAgFkEEbCADaiAONgIAIA5BIGwgAWogDkEgbCABaigCDCAWQSBsIAFqKAIMajYCDCAWQSBsIAFqQQA2AgwgFkEg',
  'bCABakF/NgIIIBVBBGwgBmogGDYCAAUgFiEVCyAYIRYMAAsLIAlBAWohCQsgDkEEbCAGaigCACEODAALCwsgCkEBaiEKDAALCyAJ',
  'C9YCAQx/IAgoAgAhDSAIKAIIIQ4gCCgCECEPIAwhECANIREgDSESAkADQCASIAgoAgRIRQ0BIBJBBGwgAGooAgAhE0EAIBNBIGwg',
  'AWooAgxrIRQgFEEASgRAIBNBIGwgAWogFDYCDCATQSBsIAFqKAIQIA5qIBRrIRUgCyAPayAUayEWIBUgFiAVIBZIGyEXIBNBIGwg',
  'AWogFzYCECAXQQRsIAJqKAIAIRggE0EgbCABaiAYNgIYIBNBIGwgAWpBfzYCHCAYQX9HBEAgGEEgbCABaiATNgIcCyAXQQRsIAJq',
  'IBM2AgAgFyAQSARAIBchEAsgEUEEbCAAaiATNgIAIBFBAWohEQsgEkEBaiESDAALCyAJQSBsIAFqIAgoAgw2AgwgCUEgbCABaiAR',
  'IA1rNgIEIBEgDUYEQCAJQSBsIAFqQQA2AhQLIApBAEcEQCAIIBE2AhQLIBAL/QQBCn9BACEHAkADQCAHIABIRQ0BIAdBAWpBBGwg',
  'AWooAgAhCSAHQQRsIAFqKAIAIQgCQANAIAggCUhFDQEgCEEEbCACaigCACEKIAogB0cEQCAKIABJRQRAQX8PCyAKQQFqQQRsIANq',
  'IQ0gDSANKAIAQQFqNgIAIAdBAWpBBGwgA2ohDSANIA0oAgBBAWo2AgAgCyAKIAdKciELIAwgCiAHSHIhDAsgCEEBaiEIDAALCyAH',
  'QQFqIQcMAAsLQQAhCgJAA0AgCiAASEUNASAKQQFqQQRsIANqIApBAWpBBGwgA2ooAgAgCkEEbCADaigCAGo2AgAgCkEEbCAFaiAK',
  'QQRsIANqKAIANgIAIApBAWohCgwACwtBACEHAkADQCAHIABIRQ0BIAdBAWpBBGwgAWooAgAhCSAHQQRsIAFqKAIAIQgCQANAIAgg',
  'CUhFDQEgCEEEbCACaigCACEKIAogB0cEQCAKQQRsIAVqKAIAIQ0gDUEEbCAEaiAHNgIAIApBBGwgBWogDUEBajYCACAHQQRsIAVq',
  'KAIAIQ0gDUEEbCAEaiAKNgIAIAdBBGwgBWogDUEBajYCAAsgCEEBaiEIDAALCyAHQQFqIQcMAAsLIAsgDHEEQEEAIQ9BACEKAkAD',
  'QCAKIABIRQ0BIApBAWpBBGwgA2ooAgAhCSAPIQgCQANAIAggCUhFDQEgCEEEbCAEaigCACEQIBBBBGwgBmooAgAgCkcEQCAQQQRs',
  'IAZqIAo2AgAgDkEEbCAEaiAQNgIAIA5BAWohDgsgCEEBaiEIDAALCyAJIQ8gCkEBakEEbCADaiAONgIAIApBAWohCgwACwsLIABB',
  'BGwgA2ooAgAL6QIBBn9BACEHAkADQCAHIABIRQ0BIAchCAJAA0AgCEEEbCABaigCAEF/RkUNASAIQQRsIAJqKAIAIQgMAAsLIAdB',
  'BGwgBGogCEEEbCABaigCADYCACAHIQkCQANAIAlBBGwgAWooAgBBf0ZFDQEgCUEEbCACaigCACEKIAlBBGwgAmogCDYCACAKIQkM',
  'AAsLIAdBAWohBwwACwtBACEHAkADQCAHIABIRQ0BIAdBBGwgBGooAgBBAWpBBGwgBWohCyALIAsoAgBBAWo2AgAgB0EBaiEHDAAL',
  'C0EAIQwCQANAIAwgA0hFDQEgDEEBakEEbCAFaiAMQQFqQQRsIAVqKAIAIAxBBGwgBWooAgBqNgIAIAxBAWohDAwACwtBACEHAkAD',
  'QCAHIABIRQ0BIAdBBGwgBGooAgBBAGpBBGwgBWohCyALKAIAQQRsIAZqIAc2AgAgCyALKAIAQQFqNgIAIAdBAWohBwwACwsL',
].join('');

/** The module's memories: orderings whose arrays start within the scratch memory run there (the lists may grow it). */
const amdMemories = kernelMemoriesOf(AMD_MODULE_BASE64);

/** Whether amdKernel can run here (else the JavaScript loop orders). */
export function amdKernelAvailable(): boolean {
  return amdMemories() !== null;
}

/** Where amdKernel's arrays lie in its memory (Int32 offsets; `iw` runs to the memory's end). */
interface AmdLayout {
  at: number;
  node: number;
  parent: number;
  step: number;
  head: number;
  hashHead: number;
  hashNext: number;
  hashOf: number;
  offsets: number;
  /** the input before the lists: a matrix's columns for `adjacency`, or nothing */
  input: number;
  iw: number;
}

/**
 * The ordering in WebAssembly: `load` puts the graph into the memory (offsets and the lists at the start of iw,
 * returning the lists' length, or −1 to give up), the elimination runs, and the permutation is read off its steps.
 * @param inputLength  Int32 values `load` may use before the lists
 * @param iwLength     the lists' first room
 */
function eliminate(
  n: number,
  inputLength: number,
  iwLength: number,
  wflgLimit: number,
  load: (ints: Int32Array, at: AmdLayout, exports: Record<string, (...args: number[]) => number>) => number,
): { perm: Int32Array; grown: boolean } | null {
  // at (padded to 16 values: reads of a node −1 stay in the memory), nodes, parent, step, head, hash table, offsets.
  const node = 16;
  const parent = node + NODE * n;
  const step = parent + n;
  const head = step + n;
  const hashHead = head + n + 1;
  const hashNext = hashHead + HASH_BUCKETS;
  const hashOf = hashNext + n;
  const offsets = hashOf + n;
  const input = offsets + n + 1;
  const iw = input + inputLength;
  const at: AmdLayout = { at: 0, node, parent, step, head, hashHead, hashNext, hashOf, offsets, input, iw };
  const bound = amdMemories()?.take(4 * (iw + iwLength));
  if (!bound) return null;
  const { memory } = bound;
  const exports = bound.exports as Record<string, (...args: number[]) => number>;
  const listsLength = load(new Int32Array(memory.buffer), at, exports);
  if (listsLength < 0) return null;
  const ints = new Int32Array(memory.buffer);
  ints.fill(0, at.at, parent);
  ints.fill(-1, parent, hashOf);
  const before = memory.buffer.byteLength;
  const b = (offset: number): number => 4 * offset;
  const steps = exports.amd(
    b(iw),
    b(node),
    b(head),
    b(parent),
    b(step),
    b(hashHead),
    b(hashNext),
    b(hashOf),
    b(at.at),
    n,
    wflgLimit,
    b(offsets),
  );
  const grown = memory.buffer.byteLength > before;
  let perm: Int32Array | null = null;
  if (steps >= 0) {
    // The permutation's scratch: the hash table's arrays and the degree lists' heads, done with.
    new Int32Array(memory.buffer).fill(0, head, head + steps + 1);
    exports.permutation(n, b(step), b(parent), steps, b(hashNext), b(head), b(hashOf));
    perm = new Int32Array(memory.buffer).slice(hashOf, hashOf + n);
  }
  amdMemories()?.done(memory);
  return perm === null ? null : { perm, grown };
}

/**
 * The ordering of amdOfGraph in WebAssembly on a graph's lists.
 * @returns the permutation (the same as amdOfGraph's loop gives) and whether the lists' memory had to grow; null
 *          where WebAssembly is unavailable or no memory can be had (the JavaScript loop runs then)
 */
export function amdKernel(offsets: Int32Array, neighbours: Int32Array, wflgLimit: number): { perm: Int32Array; grown: boolean } | null {
  const n = offsets.length - 1;
  return eliminate(n, 0, Math.max(neighbours.length * 2, n + 16), wflgLimit, (ints, at) => {
    ints.set(offsets, at.offsets);
    ints.set(neighbours, at.iw);
    return neighbours.length;
  });
}

/**
 * amdOrdering in WebAssembly: the graph of pattern(A + Aᵀ) is built in the kernel's memory from A's columns (the
 * lists symmetricAdjacency makes, in the same order), then ordered as amdKernel orders it.
 * @returns the permutation, or null where WebAssembly is unavailable, no memory can be had, or a row lies outside
 *          the matrix
 */
export function amdKernelOfMatrix(a: CscMatrix, wflgLimit: number): Int32Array | null {
  const n = a.cols;
  const entries = a.rowIndices.length;
  // Each entry off the diagonal lists two neighbours; the lists' first room is twice that, as amdKernel gives.
  const ordered = eliminate(n, n + 1 + entries, Math.max(4 * entries, n + 16), wflgLimit, (ints, at, exports) => {
    const cp = at.input;
    const ri = cp + n + 1;
    ints.set(a.colPointers, cp);
    ints.set(a.rowIndices, ri);
    ints.fill(0, at.offsets, at.offsets + n + 1);
    ints.fill(-1, at.hashOf, at.hashOf + n);
    return exports.adjacency(n, 4 * cp, 4 * ri, 4 * at.offsets, 4 * at.iw, 4 * at.hashNext, 4 * at.hashOf);
  });
  return ordered?.perm ?? null;
}
