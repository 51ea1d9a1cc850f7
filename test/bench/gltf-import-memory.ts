/**
 * One glTF import in a fresh process, for gltf-import-compare.ts: `node --expose-gc --import tsx
 * gltf-import-memory.ts ROOT FILE [WARMUP]` imports FILE with the importGltf of the tree at ROOT (after importing the
 * small file WARMUP, when given) and prints one JSON line:
 * `peakBytes`, how far the process's peak resident set rose during the import above both the peak before it (left
 * by loading and the warm-up import) and the resident set it started from (after a GC, modules loaded, file read):
 * maxRSS after − max(maxRSS before, rss before), 0 when the import stays under the earlier peak; and
 * `retainedBytes`, the heap and array buffers the result holds after a full GC.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [root, file] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!root || !file || !gc) throw new Error('usage: node --expose-gc --import tsx gltf-import-memory.ts ROOT FILE');
const { importGltf } = (await import(path.join(root, 'workers/formats/gltf-import.ts'))) as {
  importGltf: (bytes: Uint8Array, file: string) => Promise<unknown>;
};
const bytes = new Uint8Array(readFileSync(file));
// What the first import of any file sets up once (decoders, compiled code) is not part of this file's peak.
const warmUp = process.argv[4];
if (warmUp) await importGltf(new Uint8Array(readFileSync(warmUp)), path.basename(warmUp));
const held = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
gc();
const rssBefore = process.memoryUsage().rss;
// maxRSS is in KiB.
const peakBefore = process.resourceUsage().maxRSS * 1024;
const heldBefore = held();
const result = await importGltf(bytes, path.basename(file));
const peakBytes = process.resourceUsage().maxRSS * 1024 - Math.max(peakBefore, rssBefore);
// Array buffers are released once their holders are collected and the event loop turns: collect, turn, collect.
gc();
await new Promise((resolve) => setImmediate(resolve));
gc();
const retainedBytes = held() - heldBefore;
process.stdout.write(`${JSON.stringify({ peakBytes, retainedBytes, alive: result !== undefined })}\n`);
