/**
 * The renderer's handle on the file-reading worker (workers/io.worker.ts). One worker for the page's lifetime;
 * calls return promises, typed arrays come back transferred.
 */
import { wrap, type Remote } from 'comlink';
import type { IoApi } from '../../workers/io.worker.ts';

export type IoClient = Remote<IoApi>;

let client: IoClient | null = null;

export function getIoClient(): IoClient {
  client ??= wrap<IoApi>(new Worker(new URL('../../workers/io.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-io' }));
  return client;
}
