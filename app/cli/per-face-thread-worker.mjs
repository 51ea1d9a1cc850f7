// The helper thread of per-face skinning in Node (started by per-face-thread.ts): it loads the TypeScript module
// through tsx, which this thread does not inherit from the process that started it, then answers ordering requests
// (a setup's ordering, made here while the other thread assembles) until it is sent a two-core frame's shared memory;
// it says it runs and runs the helper's loop until the stop command, and the thread then ends.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { answerOrdering, runPerFaceHelper } = await import('../../workers/skinning/per-face-two-core.ts');
parentPort.on('message', (message) => {
  if (message.kind === 'order') {
    const answer = answerOrdering(message);
    parentPort.postMessage(answer, answer.kind === 'ordering' ? [answer.ordering.buffer] : []);
    return;
  }
  parentPort.removeAllListeners('message');
  parentPort.postMessage({ kind: 'running' });
  runPerFaceHelper(message.shared);
  // Stopped: nothing more comes, and the open port would keep the thread alive.
  parentPort.close();
});
