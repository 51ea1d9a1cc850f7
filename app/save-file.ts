/**
 * The main process's Save handler apart from Electron: validate the page's request, ask where to write (the app asks
 * with a Save dialog), write atomically. Kept free of `electron` so the same code runs in a plain Node process, where
 * a test kills it at random moments and checks the target is always the whole old file or the whole new one.
 */
import { writeFileAtomic } from './atomic-write.ts';
import { IPC_CHANNELS, type SaveFileRequest } from './ipc-contract.ts';
import { validateSaveFileRequest } from './ipc-validate.ts';

/**
 * @param argument     the page's request, as received (validated here)
 * @param chooseTarget where to write the validated request; null when the user cancels
 * @returns whether the file was written
 * @throws IpcArgumentError for a bad request, AtomicWriteError when the file cannot be written (the old one stays)
 */
export async function saveRequestedFile(
  argument: unknown,
  chooseTarget: (request: SaveFileRequest) => Promise<string | null>,
): Promise<boolean> {
  const request = validateSaveFileRequest(IPC_CHANNELS.saveFile, argument);
  const target = await chooseTarget(request);
  if (target === null) return false;
  await writeFileAtomic(target, request.bytes);
  return true;
}
