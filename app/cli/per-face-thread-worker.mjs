// The helper thread of per-face skinning's two-core frame (started by per-face-thread.ts): it loads the TypeScript
// module through tsx, which this thread does not inherit from the process that started it, says it is ready, and
// runs the helper's loop until the stop command; the thread then ends.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runPerFaceHelper } = await import('../../workers/skinning/per-face-two-core.ts');
parentPort.postMessage('ready');
runPerFaceHelper(workerData);
