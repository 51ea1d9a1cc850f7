/**
 * The fuzz harness: makes inputs from the real files (input i of a format comes from its own random stream, seeded
 * by the run's seed, the format and i, so it is rebuilt alone), reads each in a worker thread under a time limit
 * (a worker that runs past it is terminated and the input reported as a hang), and counts how each ended.
 */
import { Worker } from 'node:worker_threads';
import { loadedSeeds, loadSeeds, FUZZ_FORMATS, type FuzzFormat } from './corpus.ts';
import { mutate, type FuzzInput } from './mutators.ts';
import type { Outcome, OutcomeKind } from './outcome.ts';
import type { FuzzJob } from './fuzz-worker.ts';
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
  seconds: number;
}

/** Outcomes that are not failures. */
export const GOOD_OUTCOMES: readonly OutcomeKind[] = ['result', 'clear error'];

const formatIndex = (format: FuzzFormat): number => FUZZ_FORMATS.indexOf(format);

/** The random stream of one input: independent of every other input. */
export function inputRandom(seed: number, format: FuzzFormat, index: number): () => number {
  const mixed =
    Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(formatIndex(format) + 1, 0xc2b2ae35) ^ Math.imul(index + 1, 0x27d4eb2f);
  return seededRandom(mixed >>> 0);
}

/** Input `index` of `format` for run `seed`, with the seed file's name and role (after loadSeeds, which runFuzz awaits). */
export function makeInput(seed: number, format: FuzzFormat, index: number): { input: FuzzInput; job: Omit<FuzzJob, 'id'> } {
  const random = inputRandom(seed, format, index);
  const seeds = loadedSeeds().filter((s) => s.format === format);
  if (seeds.length === 0) throw new Error(`fuzz: no seed files for ${format}`);
  const source = seeds[Math.floor(random() * seeds.length)];
  const input = mutate(source, random);
  return { input, job: { format, name: input.name, bytes: input.bytes, resources: input.resources, role: source.dmat } };
}

class Runner {
  private worker: Worker | null = null;
  private pending: { id: number; resolve: (o: { outcome: Outcome; ms: number }) => void; timer: NodeJS.Timeout } | null = null;

  constructor(private readonly timeoutMs: number) {}

  private start(): Worker {
    const worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: 1536 },
    });
    worker.on('message', (message: { id: number; outcome: Outcome; ms: number }) => {
      const pending = this.pending;
      if (!pending || pending.id !== message.id) return;
      clearTimeout(pending.timer);
      this.pending = null;
      pending.resolve({ outcome: message.outcome, ms: message.ms });
    });
    const died = (why: string): void => {
      if (this.worker === worker) this.worker = null;
      const pending = this.pending;
      if (!pending) return;
      clearTimeout(pending.timer);
      this.pending = null;
      pending.resolve({ outcome: { kind: 'crash', detail: why }, ms: 0 });
    };
    worker.on('error', (error) => died(`worker died: ${error.message}`));
    worker.on('exit', (code) => died(`worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  run(job: FuzzJob): Promise<{ outcome: Outcome; ms: number }> {
    const worker = this.worker ?? this.start();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending = null;
        this.worker = null;
        void worker.terminate();
        resolve({ outcome: { kind: 'hang', detail: `no answer within ${this.timeoutMs} ms` }, ms: this.timeoutMs });
      }, this.timeoutMs);
      this.pending = { id: job.id, resolve, timer };
      const transfer = [job.bytes.buffer as ArrayBuffer];
      worker.postMessage(job, transfer);
    });
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
  }
}

/** Runs the fuzzer; never throws for a failing input (failures are in the report). */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const all = await loadSeeds();
  // By default every format with seed files (the project file's is a fixture that may not exist in a checkout).
  const formats = options.formats ?? FUZZ_FORMATS.filter((format) => all.some((s) => s.format === format));
  const timeoutMs = options.timeoutMs ?? 10000;
  const jobs = Math.max(1, options.jobs ?? 1);
  const started = performance.now();
  const counts = new Map<FuzzFormat, Map<OutcomeKind, number>>();
  const slowest = new Map<FuzzFormat, number>();
  const failures: FuzzFailure[] = [];
  const runners = Array.from({ length: jobs }, () => new Runner(timeoutMs));
  let nextId = 0;
  try {
    for (const format of formats) {
      const tally = new Map<OutcomeKind, number>();
      counts.set(format, tally);
      const indices = options.only ?? Array.from({ length: options.count }, (_, i) => i);
      let cursor = 0;
      let done = 0;
      const lane = async (runner: Runner): Promise<void> => {
        while (cursor < indices.length) {
          const index = indices[cursor++];
          const { input, job } = makeInput(seed, format, index);
          const { outcome, ms } = await runner.run({ id: nextId++, ...job });
          tally.set(outcome.kind, (tally.get(outcome.kind) ?? 0) + 1);
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
  return { seed, counts, failures, slowest, seconds: (performance.now() - started) / 1000 };
}

/** The per-format table: inputs tried and how each ended. */
export function formatReport(report: FuzzReport): string {
  const kinds: OutcomeKind[] = [
    'result',
    'clear error',
    'other exception',
    'internal message',
    'bad result',
    'long message',
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
  lines.push(`seed ${report.seed}, ${report.seconds.toFixed(1)} s, ${report.failures.length} failures`);
  return lines.join('\n');
}

/** One failure as text that says how to reproduce it. */
export function formatFailure(f: FuzzFailure): string {
  return `${f.format} input ${f.index} (seed ${f.seed}, from ${f.input}: ${f.mutations.join('; ')})\n  ${f.outcome.kind}: ${f.outcome.detail.replace(/\n/g, '\n  ')}\n  reproduce: npm run fuzz -- --format ${f.format} --seed ${f.seed} --only ${f.index}`;
}
