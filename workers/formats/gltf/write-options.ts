/**
 * The write step's options (write-step.ts): the file's form, the .bin's name and the geometry compression. Apart from
 * the step so that the page can read the defaults (GLTF_EXPORT_DEFAULTS) without loading the writer.
 */
import type { GltfCompression } from '../gltf-extensions.ts';
import { printableLine } from '../format-error.ts';
import type { Fail } from './export-state.ts';

export interface WriteOptions {
  /** 'glb': one binary file; 'gltf': JSON plus one .bin resource */
  format?: 'glb' | 'gltf';
  /** name of the .bin resource without extension (format 'gltf') */
  basename?: string;
  /** geometry compression, written as a required extension (see compressOnWrite in gltf-extensions.ts) */
  compression?: GltfCompression;
}

export const WRITE_DEFAULTS: Required<WriteOptions> = { format: 'glb', basename: 'model', compression: 'none' };

/** The file forms the write step writes. */
export const WRITE_FORMATS: readonly Required<WriteOptions>['format'][] = ['glb', 'gltf'];
/** The geometry compressions the write step applies. */
export const WRITE_COMPRESSIONS: readonly GltfCompression[] = ['none', 'draco', 'meshopt'];

/** An option's value as a message shows it: a string quoted, on one line; anything else as String gives it. */
function shownValue(value: unknown): string {
  return printableLine(typeof value === 'string' ? JSON.stringify(value) : String(value), 60);
}

/**
 * Checks the write step's options: a known format and compression, and a base name for the .bin that is a non-empty
 * string.
 * @throws through `fail`, naming the reason
 */
export function checkWriteOptions(opts: Required<WriteOptions>, fail: Fail): void {
  if (!WRITE_FORMATS.includes(opts.format)) fail('', `format must be ${WRITE_FORMATS.join(' or ')}, not ${shownValue(opts.format)}`);
  if (!WRITE_COMPRESSIONS.includes(opts.compression))
    fail('', `compression must be ${WRITE_COMPRESSIONS.join(', ')}, not ${shownValue(opts.compression)}`);
  if (typeof opts.basename !== 'string' || opts.basename === '')
    fail('', `the .bin's base name must be a non-empty string, not ${shownValue(opts.basename)}`);
}
