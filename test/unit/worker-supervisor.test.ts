/**
 * renderer/io/worker-supervisor.ts and the worker clients built on it (io, binding, pose-space), with a stand-in
 * Worker: comlink talks to the real API object over a Node MessageChannel, and the test fires the `error` event a
 * browser fires when a worker dies (an uncaught error, an allocation it refuses, a script that fails to load). A
 * call in flight must reject — never hang — with a message naming the work, the crash is reported once, and the
 * next call runs on a fresh worker.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { expose } from 'comlink';
import type { BindMeshRequest } from '../../workers/weights/bind-mesh.ts';
import { onWorkerCrash, SupervisedWorker, WorkerCrashError, type WorkerCrash } from '../../renderer/io/worker-supervisor.ts';

/** A Worker as comlink and the supervisor use it: messages over a MessageChannel, `error` events fired by the test. */
class FakeWorker extends EventTarget {
  static created: FakeWorker[] = [];
  /** every one made, closed at the end so their ports let the process exit */
  static all: FakeWorker[] = [];
  terminated = false;
  private readonly port: MessagePort;

  constructor(api: object) {
    super();
    const { port1, port2 } = new MessageChannel();
    expose(api, port2 as unknown as Parameters<typeof expose>[1]);
    this.port = port1;
    FakeWorker.created.push(this);
    FakeWorker.all.push(this);
  }

  postMessage(message: unknown, transfer?: Transferable[]): void {
    if (!this.terminated) this.port.postMessage(message, transfer as never);
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions): void {
    if (type === 'message') {
      (this.port as unknown as EventTarget).addEventListener(type, listener, options);
      this.port.start();
    } else super.addEventListener(type, listener, options);
  }

  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (type === 'message') (this.port as unknown as EventTarget).removeEventListener(type, listener);
    else super.removeEventListener(type, listener);
  }

  terminate(): void {
    this.terminated = true;
    this.port.close();
  }

  /** What the browser does when the worker dies: an ErrorEvent-like `error`, cancelable. */
  crash(message: string): boolean {
    const event = Object.assign(new Event('error', { cancelable: true }), { message });
    this.dispatchEvent(event);
    return event.defaultPrevented;
  }
}

after(() => {
  for (const worker of FakeWorker.all) worker.terminate();
});

const neverAnswers = () => new Promise<never>(() => undefined);

/** A bind of one triangle by one bone, as the binding client sends it (the fake workers never run it). */
const bindRequest: Omit<BindMeshRequest, 'handles'> = {
  method: 'surface',
  rule: null,
  boneCount: 1,
  weldTolerance: 0,
  harmonic: {},
  volumetric: {},
};

const api = {
  add: (a: number, b: number) => a + b,
  readRigFile: neverAnswers,
  fails: () => {
    throw new RangeError('bad index');
  },
};

function asWorker(fake: FakeWorker): Worker {
  return fake as unknown as Worker;
}

test('a crash rejects the calls in flight naming their work, is reported once, and the next call gets a fresh worker', async () => {
  FakeWorker.created = [];
  const crashes: WorkerCrash[] = [];
  const unsubscribe = onWorkerCrash((crash) => crashes.push(crash));
  const supervisor = new SupervisedWorker<typeof api>('file-reading worker', () => asWorker(new FakeWorker(api)));
  assert.equal(supervisor.started, false);
  assert.equal(await supervisor.call('Adding', (remote) => remote.add(2, 3)), 5);
  assert.equal(FakeWorker.created.length, 1);

  const reading = supervisor.call('Reading hand.off', (remote) => remote.readRigFile());
  const other = supervisor.call('Reading hand.tgf', (remote) => remote.readRigFile());
  await new Promise((resolve) => setTimeout(resolve, 20)); // the calls have reached the worker and wait there
  const handled = FakeWorker.created[0].crash('Uncaught RangeError: Array buffer allocation failed');
  assert.equal(handled, true, 'the error is handled, not left as an uncaught page error');
  await assert.rejects(reading, (error: unknown) => {
    assert.ok(error instanceof WorkerCrashError, 'the rejection is a WorkerCrashError');
    assert.equal(
      error.message,
      'Reading hand.off failed: the file-reading worker stopped (RangeError: Array buffer allocation failed); it is restarted for the next task',
    );
    return true;
  });
  await assert.rejects(other, /^WorkerCrashError: Reading hand\.tgf failed/);
  assert.equal(FakeWorker.created[0].terminated, true);
  assert.equal(supervisor.started, false);
  assert.deepEqual(crashes, [
    { worker: 'file-reading worker', work: ['Reading hand.off', 'Reading hand.tgf'], reason: 'RangeError: Array buffer allocation failed' },
  ]);

  // A late event from the dead worker changes nothing; the next call starts worker 2, which answers.
  FakeWorker.created[0].crash('late');
  assert.equal(await supervisor.call('Adding', (remote) => remote.add(20, 22)), 42);
  assert.equal(FakeWorker.created.length, 2);
  assert.equal(crashes.length, 1);

  // A worker that fails to load fires an error without a message; an idle crash is reported with no work.
  FakeWorker.created[1].crash('');
  assert.deepEqual(crashes[1], { worker: 'file-reading worker', work: [], reason: 'it failed to start or was stopped by the browser' });
  unsubscribe();
});

test("a call's own error is not a crash: it rejects with that error and the worker stays", async () => {
  FakeWorker.created = [];
  const crashes: WorkerCrash[] = [];
  const unsubscribe = onWorkerCrash((crash) => crashes.push(crash));
  const supervisor = new SupervisedWorker<typeof api>('test worker', () => asWorker(new FakeWorker(api)));
  await assert.rejects(
    supervisor.call('Failing', (remote) => remote.fails()),
    (error: unknown) => error instanceof Error && error.message === 'bad index',
  );
  assert.equal(await supervisor.call('Adding', (remote) => remote.add(1, 1)), 2);
  assert.equal(FakeWorker.created.length, 1);
  assert.deepEqual(crashes, []);

  // stop (a cancel): the pending call rejects with the given reason, nothing is reported, the next call restarts.
  const pending = supervisor.call('Waiting', (remote) => remote.readRigFile());
  supervisor.stop(new DOMException('cancelled', 'AbortError'));
  await assert.rejects(pending, (error: unknown) => error instanceof DOMException && error.name === 'AbortError');
  assert.deepEqual(crashes, []);
  assert.equal(await supervisor.call('Adding', (remote) => remote.add(1, 2)), 3);
  assert.equal(FakeWorker.created.length, 2);
  unsubscribe();
});

test('the clients: a crashed io worker rejects the read naming the file; the binding client recovers and can cancel', async () => {
  const bindingApi = { bindMesh: neverAnswers };
  const ioApi = { readRigFile: neverAnswers };
  const previous = (globalThis as { Worker?: unknown }).Worker;
  (globalThis as { Worker?: unknown }).Worker = class {
    constructor(url: URL) {
      return new FakeWorker(url.pathname.endsWith('binding.worker.ts') ? bindingApi : ioApi);
    }
  };
  try {
    FakeWorker.created = [];
    const { getIoClient } = await import('../../renderer/io/io-client.ts');
    const read = getIoClient().readRigFile('broken.off', new Uint8Array(4));
    await new Promise((resolve) => setTimeout(resolve, 20));
    FakeWorker.created[0].crash('Uncaught InternalError: too much recursion');
    await assert.rejects(
      read,
      /^WorkerCrashError: Reading broken\.off failed: the file-reading worker stopped \(InternalError: too much recursion\)/,
    );

    const { BindingClient } = await import('../../renderer/io/binding-client.ts');
    const client = new BindingClient();
    const bind = () =>
      client.bindMesh(
        new Float64Array(9),
        new Uint32Array([0, 1, 2]),
        { joints: new Float64Array(6), bones: new Uint32Array([0, 1]) },
        { ...bindRequest, handles: new Int32Array(3) },
        () => undefined,
      );
    const solve = bind();
    assert.equal(client.running, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    FakeWorker.created.at(-1)!.crash('Uncaught RangeError: Invalid typed array length: 4294967296');
    await assert.rejects(solve, /^WorkerCrashError: Computing weights failed: the binding worker stopped/);
    assert.equal(client.running, false);

    const cancelled = bind();
    client.cancel();
    await assert.rejects(cancelled, (error: unknown) => error instanceof DOMException && error.name === 'AbortError');
    assert.equal(client.running, false);
  } finally {
    (globalThis as { Worker?: unknown }).Worker = previous;
  }
});

test('the pose-space client: a crash rejects the unposing naming it and the next one runs on a fresh worker; cancel aborts', async () => {
  const answer = { unposed: new Float64Array(3), displacements: new Float64Array(3), singularVertices: new Uint32Array(0) };
  let hang = true;
  const posespaceApi = { unpose: () => (hang ? neverAnswers() : answer) };
  const previous = (globalThis as { Worker?: unknown }).Worker;
  (globalThis as { Worker?: unknown }).Worker = class {
    constructor() {
      return new FakeWorker(posespaceApi);
    }
  };
  try {
    FakeWorker.created = [];
    const { PosespaceClient } = await import('../../renderer/io/posespace-client.ts');
    const client = new PosespaceClient();
    const job = {
      restPositions: new Float64Array(3),
      examplePositions: new Float64Array(3),
      influences: { stride: 1, bones: new Int32Array(1), weights: new Float32Array([1]) },
      pose: new Float64Array(9),
    } as unknown as Parameters<typeof client.unpose>[0];
    const first = client.unpose(job, () => undefined);
    await assert.rejects(
      client.unpose(job, () => undefined),
      /an unposing is already running/,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    FakeWorker.created[0].crash('Uncaught RangeError: Array buffer allocation failed');
    await assert.rejects(first, /^WorkerCrashError: unposing an example failed: the pose-space worker stopped \(RangeError: Array buffer/);

    hang = false;
    const second = await client.unpose(job, () => undefined);
    assert.equal(FakeWorker.created.length, 2, 'a fresh worker after the crash');
    assert.deepEqual(second.displacements, answer.displacements);

    hang = true;
    const cancelled = client.unpose(job, () => undefined);
    client.cancel();
    await assert.rejects(cancelled, (error: unknown) => error instanceof DOMException && error.name === 'AbortError');
    hang = false;
    assert.deepEqual((await client.unpose(job, () => undefined)).unposed, answer.unposed, 'a new unposing after a cancel');
  } finally {
    (globalThis as { Worker?: unknown }).Worker = previous;
  }
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and its resolve, to order two sides of a test without timers. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('a job’s progress ends when its result arrives, whatever order the worker’s messages come in; a cancel ends it too', async () => {
  const answer = { unposed: new Float64Array(3), displacements: new Float64Array(3), singularVertices: new Uint32Array(0) };
  // Like the real workers, each reports through its own port; the last report is posted only once the test has
  // its result (`resultIn`), as the page may read it when the ports are read in another order. A proxied call
  // resolves once the page has handled it, so `delivered` says the late report reached the page (and was dropped
  // or not): no timer races the ports.
  const unposeResultIn = deferred();
  const unposeLateDelivered = deferred();
  const posespaceApi = {
    unpose: async (_job: unknown, progress: (done: number, total: number) => Promise<void>) => {
      await progress(1, 2);
      void unposeResultIn.promise.then(() => progress(2, 2)).then(unposeLateDelivered.resolve);
      return answer;
    },
  };
  const bindingResultIn = deferred();
  const bindingLateDelivered = deferred();
  const bindingApi = {
    bindMesh: async (...args: unknown[]) => {
      const progress = args[4] as (stage: string, fraction: number) => Promise<void>;
      await progress('factorizing', 0.5);
      void bindingResultIn.promise.then(() => progress('solving', 1)).then(bindingLateDelivered.resolve);
      return { weights: new Float64Array(3), laplacianUsed: 'cotan', unhandledComponents: [] };
    },
    mirrorVertexMap: (...args: unknown[]) => {
      const progress = args[4] as (fraction: number) => void;
      setTimeout(() => progress(0.25), 30);
      return neverAnswers();
    },
  };
  const previous = (globalThis as { Worker?: unknown }).Worker;
  (globalThis as { Worker?: unknown }).Worker = class {
    constructor(url: URL) {
      return new FakeWorker(url.pathname.endsWith('binding.worker.ts') ? bindingApi : posespaceApi);
    }
  };
  try {
    const { PosespaceClient } = await import('../../renderer/io/posespace-client.ts');
    const unposer = new PosespaceClient();
    const job = {
      restPositions: new Float64Array(3),
      examplePositions: new Float64Array(3),
      influences: { stride: 1, bones: new Int32Array(1), weights: new Float32Array([1]) },
      pose: new Float64Array(9),
    } as unknown as Parameters<typeof unposer.unpose>[0];
    const unposeReports: { done: number; settled: boolean }[] = [];
    let unposed = false;
    await unposer.unpose(job, (done) => void unposeReports.push({ done, settled: unposed }));
    unposed = true;
    unposeResultIn.resolve();
    await unposeLateDelivered.promise;
    assert.deepEqual(unposeReports, [{ done: 1, settled: false }], 'the report before the result arrives, the one after it does not');

    const { BindingClient } = await import('../../renderer/io/binding-client.ts');
    const client = new BindingClient();
    const stages: { stage: string; settled: boolean }[] = [];
    let solved = false;
    await client.bindMesh(
      new Float64Array(9),
      new Uint32Array([0, 1, 2]),
      { joints: new Float64Array(6), bones: new Uint32Array([0, 1]) },
      { ...bindRequest, handles: new Int32Array(3) },
      (stage) => void stages.push({ stage, settled: solved }),
    );
    solved = true;
    bindingResultIn.resolve();
    await bindingLateDelivered.promise;
    assert.deepEqual(stages, [{ stage: 'factorizing', settled: false }], 'no binding report after the weights');

    const matched: number[] = [];
    const matching = client.mirrorVertexMap(new Float64Array(9), new Uint32Array([0, 1, 2]), 0, 1e-6, (f) => void matched.push(f));
    client.cancel();
    await assert.rejects(matching, (error: unknown) => error instanceof DOMException && error.name === 'AbortError');
    await pause(50);
    assert.deepEqual(matched, [], 'a report posted before the cancel reached the page is dropped');
  } finally {
    (globalThis as { Worker?: unknown }).Worker = previous;
  }
});
