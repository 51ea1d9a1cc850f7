/**
 * The fuzz harness: makes inputs from the real files (input i of a format comes from its own random stream, seeded
 * by the run's seed, the format and i, so it is rebuilt alone), reads each in a worker thread under a time limit
 * (a worker that runs past it is terminated and the input reported as a hang), and counts how each ended.
 */
import { Worker } from 'node:worker_threads';
import { loadedSeeds, loadSeeds, seedFormat, FUZZ_FORMATS, WRITE_FORMATS, type FuzzFormat } from './corpus.ts';
import { mutate, type FuzzInput } from './mutators.ts';
import { GOOD_OUTCOMES, type Outcome, type OutcomeKind } from './outcome.ts';
import type { FuzzJob } from './fuzz-worker.ts';
import { addTally, drawWritePlan, emptyTally, type WriteTally } from './write-outcome.ts';
import { seededRandom } from '../unit/seeded-random.ts';

export interface FuzzOptions {
  /** inputs per format */
  count: number;
  formats?: readonly FuzzFormat[];
  seed?: number;
  /** per-input time limit, ms */
  timeoutMs?: number;
  /** worker threads */
  jobs?: number;
  /** only these input indices (to reproduce a failure) */
  only?: number[];
  /** called after every input */
  onProgress?: (format: FuzzFormat, done: number) => void;
  /** a test of the time limit: how long the worker is busy before it reads an input (ms; 0 or absent: not at all) */
  stallMs?: (format: FuzzFormat, index: number) => number;
}

export interface FuzzFailure {
  format: FuzzFormat;
  index: number;
  seed: number;
  input: string;
  mutations: string[];
  outcome: Outcome;
}

export interface FuzzReport {
  seed: number;
  /** format → outcome kind → count */
  counts: Map<FuzzFormat, Map<OutcomeKind, number>>;
  failures: FuzzFailure[];
  /** slowest input per format, ms */
  slowest: Map<FuzzFormat, number>;
  /** per write format: the exports of the inputs read as a result, written and read back or refused clearly (by export) */
  exports: Map<FuzzFormat, WriteTally>;
  seconds: number;
}

const formatIndex = (format: FuzzFormat): number => FUZZ_FORMATS.indexOf(format);

/** The random stream of one input: independent of every other input. */
export function inputRandom(seed: number, format: FuzzFormat, index: number): () => number {
  const mixed =
    Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(formatIndex(format) + 1, 0xc2b2ae35) ^ Math.imul(index + 1, 0x27d4eb2f);
  return seededRandom(mixed >>> 0);
}

/**
 * Input `index` of `format` for run `seed`, with the seed file's name and role (after loadSeeds, which runFuzz awaits);
 * for a write format also how its scene is written (drawn after the mutations, so they are those of a read format).
 */
export function makeInput(seed: number, format: FuzzFormat, index: number): { input: FuzzInput; job: Omit<FuzzJob, 'id'> } {
  const random = inputRandom(seed, format, index);
  const seeds = loadedSeeds().filter((s) => s.format === seedFormat(format));
  if (seeds.length === 0) throw new Error(`fuzz: no seed files for ${format}`);
  const source = seeds[Math.floor(random() * seeds.length)];
  const input = mutate(source, random);
  const write = WRITE_FORMATS[format] ? drawWritePlan(random) : undefined;
  return {
    input,
    job: {
      format,
      name: input.name,
      bytes: input.bytes,
      resources: input.resources,
      role: source.dmat,
      lineEnds: input.lineEnds,
      ...(write ? { write } : {}),
    },
  };
}

/** What a worker posts: that it has loaded the readers, or how one input ended. */
type WorkerMessage = { ready: true } | { id: number; outcome: Outcome; ms: number; exports?: WriteTally };
type Answer = { outcome: Outcome; ms: number; exports?: WriteTally };

/** Longest a worker may take to load the readers before it counts as crashed. */
const START_LIMIT_MS = 120000;

/**
 * One worker thread and the input it is reading. Its events (answers, errors, its exit) settle only its own input,
 * so a worker terminated for a hang cannot end the input its replacement is reading.
 */
class FuzzWorker {
  private readonly worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: 1536 },
  });
  /** resolves with '' once the readers are loaded, or with why the worker stopped first */
  private readonly started: Promise<string>;
  private pending: { id: number; settle: (answer: Answer) => void } | null = null;
  /** why the worker stopped, once it has */
  private stopped = '';

  constructor() {
    this.started = new Promise((resolve) => {
      this.worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) resolve('');
        else if (this.pending?.id === message.id)
          this.pending.settle({ outcome: message.outcome, ms: message.ms, exports: message.exports });
      });
      const died = (why: string): void => {
        this.stopped ||= why;
        resolve(this.stopped);
        this.pending?.settle({ outcome: { kind: 'crash', detail: this.stopped }, ms: 0 });
      };
      this.worker.on('error', (error) => died(`worker died: ${error.message}`));
      this.worker.on('exit', (code) => died(`worker exited with code ${code}`));
    });
  }

  /** Waits for the readers to load (up to START_LIMIT_MS); '' when they did, else why not. */
  async start(): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`worker did not start within ${START_LIMIT_MS} ms`), START_LIMIT_MS);
    });
    const why = await Promise.race([this.started, late]);
    clearTimeout(timer);
    if (why) void this.stop(why);
    return why;
  }

  /** Reads one input; past `timeoutMs` the worker is terminated and the input is a hang. */
  read(job: FuzzJob, timeoutMs: number): Promise<Answer> {
    if (this.stopped) return Promise.resolve({ outcome: { kind: 'crash', detail: this.stopped }, ms: 0 });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        settle({ outcome: { kind: 'hang', detail: `no answer within ${timeoutMs} ms` }, ms: timeoutMs });
        void this.stop('terminated after a hang');
      }, timeoutMs);
      const settle = (answer: Answer): void => {
        clearTimeout(timer);
        if (this.pending?.id === job.id) this.pending = null;
        resolve(answer);
      };
      this.pending = { id: job.id, settle };
      this.worker.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
    });
  }

  /** True while the worker can read another input. */
  get alive(): boolean {
    return !this.stopped;
  }

  stop(why = 'closed'): Promise<number> {
    this.stopped ||= why;
    return this.worker.terminate();
  }
}

/** Reads inputs one at a time in a worker thread, starting a fresh one after a hang or a crash. */
class Runner {
  private current: FuzzWorker | null = null;

  constructor(private readonly timeoutMs: number) {}

  async run(job: FuzzJob): Promise<Answer> {
    if (!this.current?.alive) {
      this.current = new FuzzWorker();
      const why = await this.current.start();
      if (why) return { outcome: { kind: 'crash', detail: why }, ms: 0 };
    }
    // The time limit counts from the input's posting to a started worker: starting one is not part of the read.
    return this.current.read(job, this.timeoutMs);
  }

  async close(): Promise<void> {
    await this.current?.stop();
    this.current = null;
  }
}

/** Runs the fuzzer; never throws for a failing input (failures are in the report). */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const all = await loadSeeds();
  // By default every format with seed files (the project file's is a fixture that may not exist in a checkout).
  const formats = options.formats ?? FUZZ_FORMATS.filter((format) => all.some((s) => s.format === seedFormat(format)));
  const timeoutMs = options.timeoutMs ?? 10000;
  const jobs = Math.max(1, options.jobs ?? 1);
  const started = performance.now();
  const counts = new Map<FuzzFormat, Map<OutcomeKind, number>>();
  const slowest = new Map<FuzzFormat, number>();
  const exports = new Map<FuzzFormat, WriteTally>();
  const failures: FuzzFailure[] = [];
  const runners = Array.from({ length: jobs }, () => new Runner(timeoutMs));
  let nextId = 0;
  try {
    for (const format of formats) {
      const tally = new Map<OutcomeKind, number>();
      counts.set(format, tally);
      const written = emptyTally();
      if (WRITE_FORMATS[format]) exports.set(format, written);
      const indices = options.only ?? Array.from({ length: options.count }, (_, i) => i);
      let cursor = 0;
      let done = 0;
      const lane = async (runner: Runner): Promise<void> => {
        while (cursor < indices.length) {
          const index = indices[cursor++];
          const { input, job } = makeInput(seed, format, index);
          const stallMs = options.stallMs?.(format, index) ?? 0;
          const answer = await runner.run({ id: nextId++, ...job, ...(stallMs > 0 ? { stallMs } : {}) });
          const { outcome, ms } = answer;
          tally.set(outcome.kind, (tally.get(outcome.kind) ?? 0) + 1);
          addTally(written, answer.exports);
          slowest.set(format, Math.max(slowest.get(format) ?? 0, ms));
          if (!GOOD_OUTCOMES.includes(outcome.kind)) {
            failures.push({ format, index, seed, input: input.name, mutations: input.mutations, outcome });
          }
          options.onProgress?.(format, ++done);
        }
      };
      await Promise.all(runners.map(lane));
    }
  } finally {
    await Promise.all(runners.map((r) => r.close()));
  }
  return { seed, counts, failures, slowest, exports, seconds: (performance.now() - started) / 1000 };
}

/** The per-format table: inputs tried and how each ended. */
export function formatReport(report: FuzzReport): string {
  const kinds: OutcomeKind[] = [
    'result',
    'clear error',
    'other exception',
    'internal message',
    'bad message',
    'accepted-insane',
    'line endings',
    'resource outside',
    'bad output',
    'hang',
    'crash',
  ];
  const header = ['format', 'inputs', ...kinds, 'slowest ms'];
  const rows = [...report.counts].map(([format, tally]) => {
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    return [format, String(total), ...kinds.map((k) => String(tally.get(k) ?? 0)), (report.slowest.get(format) ?? 0).toFixed(0)];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  const lines = [line(header), ...rows.map(line)];
  for (const [format, { written, refused }] of report.exports)
    lines.push(
      `${format}: exports of the inputs read as a result: ${written} written and read back; refused with a clear error: ` +
        `${refused['no-op']} no-op (each also a bad output), ${refused.edit} edited, ${refused.fresh} fresh`,
    );
  lines.push(`seed ${report.seed}, ${report.seconds.toFixed(1)} s, ${report.failures.length} failures`);
  return lines.join('\n');
}

/** One failure as text that says how to reproduce it. */
export function formatFailure(f: FuzzFailure): string {
  return `${f.format} input ${f.index} (seed ${f.seed}, from ${f.input}: ${f.mutations.join('; ')})\n  ${f.outcome.kind}: ${f.outcome.detail.replace(/\n/g, '\n  ')}\n  reproduce: npm run fuzz -- --format ${f.format} --seed ${f.seed} --only ${f.index}`;
}
