/** A full disk for the tests: node:fs/promises whose writes fail with ENOSPC on the files a predicate picks. */
import * as fsPromises from 'node:fs/promises';
import type { AtomicAsyncFs } from '../../app/atomic-write.ts';

/**
 * node:fs/promises as it is, except that a file handle `full` picks (from open's arguments) fails every write with
 * ENOSPC, as on a full disk.
 * @param full  whether the file being opened is one whose writes fail (checked at each open)
 */
export function fullDiskPromises(full: (file: string, flags: unknown) => boolean): AtomicAsyncFs {
  return {
    ...fsPromises,
    open: async (...args: Parameters<typeof fsPromises.open>) => {
      const handle = await fsPromises.open(...args);
      if (!full(String(args[0]), args[1])) return handle;
      return new Proxy(handle, {
        get(target, key) {
          if (key === 'write')
            return () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}
