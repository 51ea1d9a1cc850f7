/**
 * The write step's options (write-step.ts): the file's form, the .bin's name and the geometry compression. Apart from
 * the step so that the page can read the defaults (GLTF_EXPORT_DEFAULTS) without loading the writer.
 */
import type { GltfCompression } from '../gltf-extensions.ts';

export interface WriteOptions {
  /** 'glb': one binary file; 'gltf': JSON plus one .bin resource */
  format?: 'glb' | 'gltf';
  /** name of the .bin resource without extension (format 'gltf') */
  basename?: string;
  /** geometry compression, written as a required extension (see compressOnWrite in gltf-extensions.ts) */
  compression?: GltfCompression;
}

export const WRITE_DEFAULTS: Required<WriteOptions> = { format: 'glb', basename: 'model', compression: 'none' };
