/**
 * The second thread of per-face skinning in the page (workers/skinning/per-face-two-core.ts): the deform worker
 * starts it at a large mesh's setup and first asks it for the setup's ordering, made here while the deform worker
 * assembles the system; then, when the page may share memory, sends it the two-core frame's shared memory, hears it
 * say it runs, and from then on drives it through Atomics. It answers the frame message once, before its loop, so
 * that the deform worker never blocks on a thread that is still starting; it closes when told to stop.
 */
import { answerOrdering, runPerFaceHelper, type PerFaceHelperAnswer, type PerFaceHelperMessage } from './skinning/per-face-two-core.ts';

self.onmessage = (event: MessageEvent<PerFaceHelperMessage>) => {
  const message = event.data;
  if (message.kind === 'order') {
    const answer = answerOrdering(message);
    self.postMessage(answer, { transfer: answer.kind === 'ordering' ? [answer.ordering.buffer as ArrayBuffer] : [] });
    return;
  }
  self.onmessage = null;
  self.postMessage({ kind: 'running' } satisfies PerFaceHelperAnswer);
  runPerFaceHelper(message.shared);
  self.close();
};
