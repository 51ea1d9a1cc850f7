/**
 * A web worker that may die: an uncaught error in it (a script that fails to load, an exception outside a call, an
 * allocation the browser refuses) fires `error` on the Worker, and comlink's pending calls would then wait forever.
 * SupervisedWorker keeps the calls in flight, and on such an error terminates the worker, rejects every pending
 * call with a WorkerCrashError naming the work that failed, tells the listeners of onWorkerCrash (the shell shows a
 * notice), and starts a fresh worker for the next call. The scene is the page's: nothing in it depends on a worker.
 */
import { proxy, wrap, type ProxyMarked, type Remote } from 'comlink';

/** A call whose worker died under it. */
export class WorkerCrashError extends Error {
  override readonly name = 'WorkerCrashError';
  /**
   * @param worker  what the worker is, in words ("file-reading worker")
   * @param work    what the call was doing ("reading hand.off")
   * @param reason  what the browser said, or that the worker could not start
   */
  constructor(
    readonly worker: string,
    readonly work: string,
    readonly reason: string,
  ) {
    super(`${work} failed: the ${worker} stopped (${reason}); it is restarted for the next task`);
  }
}

/** What the shell is told when a worker dies. */
export interface WorkerCrash {
  worker: string;
  /** the calls that were running, each in words; empty when the worker died idle */
  work: string[];
  reason: string;
}

const crashListeners = new Set<(crash: WorkerCrash) => void>();

/** @returns a function that stops listening */
export function onWorkerCrash(listener: (crash: WorkerCrash) => void): () => void {
  crashListeners.add(listener);
  return () => crashListeners.delete(listener);
}

/** The longest browser message quoted in a report. */
const MAX_REASON_CHARACTERS = 200;

function reasonOf(event: Event): string {
  const message = (event as Partial<ErrorEvent>).message;
  if (typeof message !== 'string' || message === '') return 'it failed to start or was stopped by the browser';
  const text = message.replace(/^Uncaught\s+/, '');
  return text.length > MAX_REASON_CHARACTERS ? `${text.slice(0, MAX_REASON_CHARACTERS)}…` : text;
}

/** The worker's own errors arrive as Errors; anything else is wrapped so callers can read a message. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

interface PendingCall {
  work: string;
  reject: (error: Error) => void;
}

export class SupervisedWorker<T> {
  private worker: Worker | null = null;
  private remote: Remote<T> | null = null;
  private readonly pending = new Set<PendingCall>();

  /**
   * @param name    what the worker is, in words, for messages ("file-reading worker")
   * @param create  makes a new Worker (at the first call and after a crash)
   */
  constructor(
    readonly name: string,
    private readonly create: () => Worker,
  ) {}

  /** Whether a worker is running now (false before the first call and after a crash or stop). */
  get started(): boolean {
    return this.worker !== null;
  }

  /**
   * Runs `invoke` on the worker, started if need be.
   * @param work  what the call does, in words, for the message if the worker dies under it
   * @returns what the worker answers; rejects with WorkerCrashError when it dies first
   */
  call<R>(work: string, invoke: (remote: Remote<T>) => Promise<R>): Promise<R> {
    const remote = this.start();
    return new Promise<R>((resolve, reject) => {
      const entry: PendingCall = { work, reject };
      this.pending.add(entry);
      let answer: Promise<R>;
      try {
        answer = invoke(remote);
      } catch (error) {
        answer = Promise.reject(asError(error));
      }
      answer.then(
        (value) => {
          if (this.pending.delete(entry)) resolve(value);
        },
        (error: unknown) => {
          if (this.pending.delete(entry)) reject(asError(error));
        },
      );
    });
  }

  /** Terminates the worker and rejects the pending calls with `reason` (a cancel): no crash is reported. */
  stop(reason: Error): void {
    const calls = this.detach();
    for (const call of calls) call.reject(reason);
  }

  private start(): Remote<T> {
    if (this.remote) return this.remote;
    const worker = this.create();
    worker.addEventListener('error', (event) => {
      event.preventDefault(); // reported here, not as an uncaught page error
      this.crashed(worker, reasonOf(event));
    });
    worker.addEventListener('messageerror', () => this.crashed(worker, 'a message could not be read'));
    this.worker = worker;
    this.remote = wrap<T>(worker);
    return this.remote;
  }

  private detach(): PendingCall[] {
    this.worker?.terminate();
    this.worker = null;
    this.remote = null;
    const calls = [...this.pending];
    this.pending.clear();
    return calls;
  }

  private crashed(worker: Worker, reason: string): void {
    if (worker !== this.worker) return; // an old worker's late event
    const calls = this.detach();
    for (const call of calls) call.reject(new WorkerCrashError(this.name, call.work, reason));
    const crash: WorkerCrash = { worker: this.name, work: calls.map((c) => c.work), reason };
    for (const listener of crashListeners) listener(crash);
  }
}

/**
 * A comlink-like remote whose every method call goes through `supervisor.call`, described by `describe` (method name
 * and arguments → the work in words), so callers keep writing `remote.method(args)`.
 */
export function supervisedRemote<T>(supervisor: SupervisedWorker<T>, describe: (method: string, args: unknown[]) => string): Remote<T> {
  return new Proxy({} as Remote<T>, {
    get(_target, property) {
      if (typeof property !== 'string' || property === 'then') return undefined;
      return (...args: unknown[]) =>
        supervisor.call(describe(property, args), (remote) =>
          (remote as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[property](...args),
        );
    },
  });
}

/** A progress callback as a worker receives it (a comlink proxy: its calls come back as messages). */
export type WorkerProgress<A extends unknown[]> = ((...args: A) => void) & ProxyMarked;

/**
 * Runs one worker call that reports progress, so that its progress ends when its result arrives. The worker posts
 * progress through a port of its own (a comlink proxy), and the page reads the ports in no set order: a report
 * posted just before the result, or before a cancel, can arrive after it and would show a finished job as running.
 * Once the call settles (answered, failed, cancelled, its worker stopped) `onProgress` is called no more.
 * @param onProgress  what the page does with each report
 * @param run         starts the call, handing the worker the proxied callback
 * @returns the call's own promise, settled after the callback was closed
 */
export function callWithProgress<R, A extends unknown[]>(
  onProgress: (...args: A) => void,
  run: (progress: WorkerProgress<A>) => Promise<R>,
): Promise<R> {
  let open = true;
  const progress = proxy((...args: A) => {
    if (open) onProgress(...args);
  });
  let call: Promise<R>;
  try {
    call = run(progress);
  } catch (error) {
    call = Promise.reject(asError(error));
  }
  const close = () => {
    open = false;
  };
  return call.then(
    (value) => {
      close();
      return value;
    },
    (error: unknown) => {
      close();
      throw error;
    },
  );
}
