/**
 * The second thread of per-face skinning's two-core frame in the page (workers/skinning/per-face-two-core.ts): the
 * deform worker starts it with the frame's shared memory, hears it say it runs, and from then on drives it through
 * Atomics. It answers once, before its loop, so that the deform worker never blocks on a thread that is still
 * starting; it closes when told to stop.
 */
import { runPerFaceHelper, type PerFaceHelperShared } from './skinning/per-face-two-core.ts';

self.onmessage = (event: MessageEvent<PerFaceHelperShared>) => {
  self.onmessage = null;
  self.postMessage('running');
  runPerFaceHelper(event.data);
  self.close();
};
