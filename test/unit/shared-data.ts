/**
 * Where the tests find the repository and the shared rigging data (`../shared/data` beside the repository, or
 * RIGWRIGHT_DATA). A missing file fails the test with a message that says so; nothing is skipped.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

/** A file of the shared data, by path parts below the data folder; throws when it is missing. */
export function dataFile(...parts: string[]): string {
  const file = path.join(dataDir, ...parts);
  if (!existsSync(file)) throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  return file;
}

/** The shared arm rig (libigl's arm: mesh, skeleton, weights) as `rigwright` options: --mesh, --skeleton, --weights. */
export function armRigOptions(): string[] {
  return [
    '--mesh',
    dataFile('libigl', 'arm.obj'),
    '--skeleton',
    dataFile('libigl', 'arm.tgf'),
    '--weights',
    dataFile('libigl', 'arm-weights.dmat'),
  ];
}
