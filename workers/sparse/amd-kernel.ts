/**
 * The approximate minimum degree ordering's elimination (amdOfGraph in amd-ordering.ts) as WebAssembly: the same
 * quotient graph in the same arrays, each phase of a step a function of its own as there (pivotElement,
 * markExternalDegrees, approximateDegrees, mergeSupervariables, finishElement), the degree lists, the mark clearing
 * and the growth of the list storage inline in the main loop. It makes the same choices in the same order, so the
 * ordering is the JavaScript one pivot for pivot (a unit test holds them equal on meshes and random graphs).
 *
 * What it saves is the interpreter and the compiles: a process's first ordering runs in code compiled from these
 * bytes in about a millisecond, where V8 runs the JavaScript phases unoptimized until it has compiled them (the
 * reason for amd-ordering.ts's primer); and, warm, the bounds checks. The module is written with the builder of
 * wasm-module.ts and kept here as base64 (AMD_MODULE_BASE64, checked against the builder by a unit test).
 *
 * Memory (Int32 throughout, byte offsets passed to every function): the step values `at` (STEP_VALUES), the nodes
 * (NODE fields each), parent, step, head (n + 1), the hash table (HASH_BUCKETS heads, next, hash), the graph's
 * offsets (n + 1), then the lists `iw` to the memory's end, which grows when an element needs more room.
 */
import {
  compileBase64,
  Fn,
  KernelMemories,
  local,
  moduleBytes,
  PAGE,
  range,
  readInt as read,
  writeInt as write,
  type Emit,
} from './wasm-module.ts';

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

/** The module's bytes, written by the builder. */
export function amdModuleBytes(): Uint8Array<ArrayBuffer> {
  const fns: Fn[] = [];
  fns[MAIN] = amd();
  fns[PIVOT_ELEMENT] = pivotElement();
  fns[MARK_EXTERNAL] = markExternalDegrees();
  fns[APPROXIMATE] = approximateDegrees();
  fns[MERGE] = mergeSupervariables();
  fns[FINISH] = finishElement();
  return moduleBytes(fns, false);
}

/** amdModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const AMD_MODULE_BASE64 = [
  'AGFzbQEAAAABSwVgDH9/f39/f39/f39/fwF/YAt/f39/f39/f39/fwBgCn9/f39/f39/f38AYAp/f39/f39/f39/AX9gDX9/f39/',
  'f39/f39/f38BfwISAQNlbnYGbWVtb3J5AgEAgIACAwcGAAECAQMEB2cGA2FtZAAADHBpdm90RWxlbWVudAABE21hcmtFeHRlcm5h',
  'bERlZ3JlZXMAAhJhcHByb3hpbWF0ZURlZ3JlZXMAAxNtZXJnZVN1cGVydmFyaWFibGVzAAQNZmluaXNoRWxlbWVudAAFCq0aBsgH',
  'ARJ/QQAhDAJAA0AgDCAJSEUNASAMQQFqQQRsIAtqKAIAIQ0gDEEEbCALaigCACEdIA0gHWshDSAMQSBsIAFqIB02AgAgDEEgbCAB',
  'aiANNgIEIAxBIGwgAWpBATYCDCAMQSBsIAFqIA02AhAgDEEgbCABakEBNgIUIA1BBGwgAmooAgAhDiAMQSBsIAFqIA42AhggDEEg',
  'bCABakF/NgIcIA5Bf0cEQCAOQSBsIAFqIAw2AhwLIA1BBGwgAmogDDYCACAMQQFqIQwMAAsLIAggCUEEbCALaigCADYCFD8AQRB0',
  'IABrQQJ2IRpBAiERAkADQCAIKAIQIAlIRQ0BIBEgCkoEQEEAIQwCQANAIAwgCUhFDQEgDEEgbCABaigCFEEARwRAIAxBIGwgAWpB',
  'ATYCFAsgDEEBaiEMDAALC0ECIRELAkADQCATQQRsIAJqKAIAQX9GRQ0BIBNBAWohEwwACwsgE0EEbCACaigCACEVIBVBIGwgAWoo',
  'AhghDyAVQSBsIAFqKAIcIRAgD0F/RwRAIA9BIGwgAWogEDYCHAsgEEF/RwRAIBBBIGwgAWogDzYCGAUgFUEgbCABaigCEEEEbCAC',
  'aiAPNgIACyAVQQRsIARqIBQ2AgAgFEEBaiEUIBVBIGwgAWooAgghFiAWQQBHBEAgFUEgbCABaigCBCEXIBVBIGwgAWooAgAhGCAY',
  'IBZqIRkCQANAIBggGUhFDQEgGEEEbCAAaigCACEdIBcgHUEgbCABaigCBGohFyAYQQFqIRgMAAsLIAgoAhQgF2ohGyAbIBpKBEAg',
  'GyAJaiEcIBpBAXQgHCAaQQF0IBxKGyEcIBsgGkoEQCAcQQJ0IABqQf//A2pBEHY/AGtAAEF/RwRAPwBBEHQgAGtBAnYhGgsLIBsg',
  'GkoEQCAbQQJ0IABqQf//A2pBEHY/AGtAAEF/RwRAPwBBEHQgAGtBAnYhGgsLIBsgGkoEQEF/DwsLCyAAIAEgAiADIAQgBSAGIAcg',
  'CCAVIBYQASAVQSBsIAFqIAgoAgA2AgAgFUEgbCABaiAIKAIEIAgoAgBrNgIEIBVBIGwgAWpBfzYCCCAVQSBsIAFqIAgoAgg2AhAg',
  'CCgCCCASSgRAIAgoAgghEgsgACABIAIgAyAEIAUgBiAHIAggERACIAAgASACIAMgBCAFIAYgByAIIBUgERADIBVBIGwgAWogCCgC',
  'CDYCECAAIAEgAiADIAQgBSAGIAcgCCARIBJqEAQhESAAIAEgAiADIAQgBSAGIAcgCCAVIBYgCSATEAUhEwwACwsgFAvVAwEQfyAJ',
  'QSBsIAFqKAIMIQsgCUEgbCABakEAIAtrNgIMIAlBIGwgAWooAgAhDCAMIAlBIGwgAWooAgRqIQ0gDCAIKAIUIApBAEYbIQ4gDiEP',
  'QQAhECAMIRECQANAIBEgDUhFDQEgEUEEbCAAaigCACESIBEgDCAKakghEyATBEAgEkEgbCABaigCACEUIBQgEkEgbCABaigCBGoh',
  'FQUgESEUIBFBAWohFQsgFCEWAkADQCAWIBVIRQ0BIBZBBGwgAGooAgAhFyAXQSBsIAFqKAIMIRggGEEASgRAIBAgGGohECAXQSBs',
  'IAFqQQAgGGs2AgwgD0EEbCAAaiAXNgIAIA9BAWohDyAXQSBsIAFqKAIYIRkgF0EgbCABaigCHCEaIBlBf0cEQCAZQSBsIAFqIBo2',
  'AhwLIBpBf0cEQCAaQSBsIAFqIBk2AhgFIBdBIGwgAWooAhBBBGwgAmogGTYCAAsLIBZBAWohFgwACwsgEyASIAlHcQRAIBJBBGwg',
  'A2ogCTYCACASQSBsIAFqQQA2AhQLIBFBAWohEQwACwsgCCAONgIAIAggDzYCBCAKQQBHBEAgCCAPNgIUCyAIIBA2AgggCCALNgIM',
  'IAggCCgCECALajYCEAvhAQEKfyAIKAIEIQsgCCgCACEKAkADQCAKIAtIRQ0BIApBBGwgAGooAgAhDCAMQSBsIAFqKAIIIQ0gDUEA',
  'SgRAQQAgDEEgbCABaigCDGshDiAJIA5rIQ8gDEEgbCABaigCACEQIBAgDWohEQJAA0AgECARSEUNASAQQQRsIABqKAIAIRIgEkEg',
  'bCABaigCFCETIBMgCU4EQCASQSBsIAFqIBMgDms2AhQFIBNBAEcEQCASQSBsIAFqIBJBIGwgAWooAhAgD2o2AhQLCyAQQQFqIRAM',
  'AAsLCyAKQQFqIQoMAAsLC6cFARV/IAgoAgghCyAIKAIMIQwgCCgCECENIAgoAgQhDyAIKAIAIQ4CQANAIA4gD0hFDQEgDkEEbCAA',
  'aigCACEQIBBBIGwgAWooAgAhESARIBBBIGwgAWooAghqIRIgESEVQQAhFkEAIRcgESEYAkADQCAYIBJIRQ0BIBhBBGwgAGooAgAh',
  'GSAZQSBsIAFqKAIUQQBHBEAgGUEgbCABaigCFCAKayEaIBpBAEoEQCAXIBpqIRcgFUEEbCAAaiAZNgIAIBVBAWohFSAWIBlqIRYF',
  'IBlBBGwgA2ogCTYCACAZQSBsIAFqQQA2AhQLCyAYQQFqIRgMAAsLIBBBIGwgAWogFSARa0EBajYCCCAVIRMgESAQQSBsIAFqKAIE',
  'aiEUIBIhGAJAA0AgGCAUSEUNASAYQQRsIABqKAIAIRsgG0EgbCABaigCDCEcIBxBAEoEQCAXIBxqIRcgFUEEbCAAaiAbNgIAIBVB',
  'AWohFSAWIBtqIRYLIBhBAWohGAwACwsgEEEgbCABaigCCEEBRiATIBVGcQRAIBBBBGwgA2ogCTYCAEEAIBBBIGwgAWooAgxrIR0g',
  'CyAdayELIAwgHWohDCANIB1qIQ0gEEEgbCABakEANgIMIBBBIGwgAWpBfzYCCAUgEEEgbCABaigCECEeIBBBIGwgAWogHiAXIB4g',
  'F0gbNgIQIBVBBGwgAGogE0EEbCAAaigCADYCACATQQRsIABqIBFBBGwgAGooAgA2AgAgEUEEbCAAaiAJNgIAIBBBIGwgAWogFSAR',
  'a0EBajYCBCAWQf8HcSEfIBBBBGwgB2ogFjYCACAQQQRsIAZqIB9BBGwgBWooAgA2AgAgH0EEbCAFaiAQNgIACyAOQQFqIQ4MAAsL',
  'IAggCzYCCCAIIAw2AgwgCCANNgIQC6UFARB/IAgoAgQhCyAIKAIAIQoCQANAIAogC0hFDQEgCkEEbCAAaigCACEMIAxBIGwgAWoo',
  'AgxBAEgEQCAMQQRsIAdqKAIAQf8HcSENIA1BBGwgBWooAgAhDiANQQRsIAVqQX82AgACQANAIA5Bf0cgDkEEbCAGaigCAEF/R3FF',
  'DQEgDkEgbCABaigCBCEPIA5BIGwgAWooAgghECAOQQRsIAdqKAIAIREgDkEEbCAGaigCACESAkADQCASQX9HIBJBBGwgB2ooAgAg',
  'EUYgEkEgbCABaigCBCAPRnEgEkEgbCABaigCCCAQRnFBAEZxRQ0BIBJBBGwgBmooAgAhEgwACwsgEkF/RwRAIA5BIGwgAWooAgAh',
  'FCAUIA9qIRQgDkEgbCABaigCAEEBaiETAkADQCATIBRIRQ0BIBNBBGwgAGooAgAhGSAZQSBsIAFqIAk2AhQgE0EBaiETDAALCyAO',
  'IRUgDkEEbCAGaigCACEWAkADQCAWQX9HRQ0BIBZBBGwgB2ooAgAgEUYgFkEgbCABaigCBCAPRnEgFkEgbCABaigCCCAQRnEhFyAW',
  'QSBsIAFqKAIAIRQgFCAPaiEUIBZBIGwgAWooAgBBAWohEwJAA0AgFyATIBRIcUUNASATQQRsIABqKAIAIRkgGUEgbCABaigCFCAJ',
  'RwRAQQAhFwsgE0EBaiETDAALCyAWQQRsIAZqKAIAIRggFwRAIBZBBGwgA2ogDjYCACAOQSBsIAFqIA5BIGwgAWooAgwgFkEgbCAB',
  'aigCDGo2AgwgFkEgbCABakEANgIMIBZBIGwgAWpBfzYCCCAVQQRsIAZqIBg2AgAFIBYhFQsgGCEWDAALCyAJQQFqIQkLIA5BBGwg',
  'BmooAgAhDgwACwsLIApBAWohCgwACwsgCQvWAgEMfyAIKAIAIQ0gCCgCCCEOIAgoAhAhDyAMIRAgDSERIA0hEgJAA0AgEiAIKAIE',
  'SEUNASASQQRsIABqKAIAIRNBACATQSBsIAFqKAIMayEUIBRBAEoEQCATQSBsIAFqIBQ2AgwgE0EgbCABaigCECAOaiAUayEVIAsg',
  'D2sgFGshFiAVIBYgFSAWSBshFyATQSBsIAFqIBc2AhAgF0EEbCACaigCACEYIBNBIGwgAWogGDYCGCATQSBsIAFqQX82AhwgGEF/',
  'RwRAIBhBIGwgAWogEzYCHAsgF0EEbCACaiATNgIAIBcgEEgEQCAXIRALIBFBBGwgAGogEzYCACARQQFqIRELIBJBAWohEgwACwsg',
  'CUEgbCABaiAIKAIMNgIMIAlBIGwgAWogESANazYCBCARIA1GBEAgCUEgbCABakEANgIUCyAKQQBHBEAgCCARNgIUCyAQCw==',
].join('');

let memories: KernelMemories | null | undefined;

/** The module's memories, compiled once; null where this runtime cannot compile it. */
function amdMemories(): KernelMemories | null {
  if (memories === undefined) {
    const module = compileBase64(AMD_MODULE_BASE64);
    // Orderings whose arrays start within 16 MiB share one memory kept for the process (the lists may grow it).
    memories = module === null ? null : new KernelMemories(module, 16 << 20, true);
  }
  return memories;
}

/** Whether amdKernel can run here (else the JavaScript loop orders). */
export function amdKernelAvailable(): boolean {
  return amdMemories() !== null;
}

/**
 * The elimination of amdOfGraph in WebAssembly on a graph's lists.
 * @returns step (#n: elimination step of each pivot, −1 for the others), parent (#n) and the number of steps, as
 *          amdOfGraph's loop leaves them, and whether the lists' memory had to grow; null where WebAssembly is
 *          unavailable or no memory can be had (the JavaScript loop runs then)
 */
export function amdKernel(
  offsets: Int32Array,
  neighbours: Int32Array,
  wflgLimit: number,
): { step: Int32Array; parent: Int32Array; steps: number; grown: boolean } | null {
  const n = offsets.length - 1;
  // at (padded to 16 values: reads of a node −1 stay in the memory), nodes, parent, step, head, hash table, offsets.
  const atOffset = 0;
  const nodeOffset = 16;
  const parentOffset = nodeOffset + NODE * n;
  const stepOffset = parentOffset + n;
  const headOffset = stepOffset + n;
  const hashHeadOffset = headOffset + n + 1;
  const hashNextOffset = hashHeadOffset + HASH_BUCKETS;
  const hashOfOffset = hashNextOffset + n;
  const offsetsOffset = hashOfOffset + n;
  const iwOffset = offsetsOffset + n + 1;
  const iwLength = Math.max(neighbours.length * 2, n + 16);
  const bound = amdMemories()?.take(4 * (iwOffset + iwLength));
  if (!bound) return null;
  const { memory } = bound;
  const run = bound.exports.amd as (...args: number[]) => number;
  const ints = new Int32Array(memory.buffer);
  ints.fill(0, atOffset, nodeOffset + NODE * n);
  ints.fill(-1, parentOffset, hashOfOffset);
  ints.set(offsets, offsetsOffset);
  ints.set(neighbours, iwOffset);
  const before = memory.buffer.byteLength;
  const steps = run(
    4 * iwOffset,
    4 * nodeOffset,
    4 * headOffset,
    4 * parentOffset,
    4 * stepOffset,
    4 * hashHeadOffset,
    4 * hashNextOffset,
    4 * hashOfOffset,
    4 * atOffset,
    n,
    wflgLimit,
    4 * offsetsOffset,
  );
  const grown = memory.buffer.byteLength > before;
  amdMemories()?.trim();
  if (steps < 0) return null;
  const after = new Int32Array(memory.buffer);
  return { step: after.slice(stepOffset, stepOffset + n), parent: after.slice(parentOffset, parentOffset + n), steps, grown };
}
