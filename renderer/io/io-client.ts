/**
 * The renderer's handle on the file-reading worker (workers/io.worker.ts). One worker at a time for the page's
 * lifetime — a fresh one after a crash (worker-supervisor.ts); calls return promises, typed arrays come back
 * transferred.
 */
import type { Remote } from 'comlink';
import type { IoApi } from '../../workers/io.worker.ts';
import { SupervisedWorker, supervisedRemote } from './worker-supervisor.ts';

export type IoClient = Remote<IoApi>;

let client: IoClient | null = null;

/** A call in words, for the message when the worker dies under it: the file it reads when it has one. */
function describeIoCall(method: string, args: unknown[]): string {
  const named = (index: number) => (typeof args[index] === 'string' ? ` ${args[index]}` : '');
  switch (method) {
    case 'readRigFile':
      return `Reading${named(0)}`;
    case 'importGltf':
      return `Importing${named(0)}`;
    case 'weightsFromDmat':
      return `Reading the weights${named(3)}`;
    case 'poseSequenceFromDmat':
      return `Reading the poses${named(2)}`;
    case 'poseSequenceFromTransforms':
      return `Reading the animation${named(2)}`;
    case 'handlesFromDmat':
      return `Reading the handles${named(3)}`;
    case 'exportGltf':
    case 'exportGltfInPlace':
      return 'Exporting glTF';
    case 'encodeProject':
      return `Saving the project${named(1)}`;
    case 'readWeightedAsset':
      return `Reading the weights to transfer from ${Array.isArray(args[0]) ? (args[0] as { name?: unknown }[]).map((f) => String(f?.name)).join(', ') : 'a file'}`;
    case 'boneDistanceWeights':
      return 'Computing bone-distance weights';
    default:
      return method;
  }
}

export function getIoClient(): IoClient {
  client ??= supervisedRemote(
    new SupervisedWorker<IoApi>(
      'file-reading worker',
      () => new Worker(new URL('../../workers/io.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-io' }),
    ),
    describeIoCall,
  );
  return client;
}
