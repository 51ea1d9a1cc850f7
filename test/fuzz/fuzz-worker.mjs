// Worker thread entry: Node 20 does not pass `--import tsx` to workers, so the TypeScript loader is registered here.
import { register } from 'tsx/esm/api';

register();
await import('./fuzz-worker.ts');
