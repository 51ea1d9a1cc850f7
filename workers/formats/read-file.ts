/**
 * One entry point for every file a user can drop on the window or name on the command line: picks the reader
 * by extension.
 */
import { readDmat } from './dmat.ts';
import { FormatError } from './format-error.ts';
import { readObj } from './obj.ts';
import { readOff } from './off.ts';
import { readTgf } from './tgf.ts';
import type { DenseMatrix, MeshFileReport, TgfSkeleton, TriangleMesh } from './types.ts';

/** What a file turned out to hold. `name` is the name it was read under. */
export type RigFile =
  | { kind: 'mesh'; name: string; mesh: TriangleMesh; report: MeshFileReport }
  | { kind: 'skeleton'; name: string; skeleton: TgfSkeleton }
  | { kind: 'matrix'; name: string; matrix: DenseMatrix };

/** Extensions readRigFile understands, for file dialogs. */
export const RIG_FILE_EXTENSIONS = ['obj', 'off', 'tgf', 'dmat'] as const;

/**
 * Reads a mesh (.obj, .off), skeleton (.tgf) or matrix (.dmat: weights, handles, poses) from its bytes.
 * Text formats are decoded as UTF-8 (a byte-order mark is dropped).
 * @param name  file name (a path is fine); its extension, in any case, selects the format
 * @param bytes the whole file
 * @returns the parsed content, tagged by kind
 * @throws FormatError from the reader, or "unsupported file type" for any other extension
 */
export function readRigFile(name: string, bytes: Uint8Array): RigFile {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  switch (extension) {
    case 'obj': {
      const { mesh, report } = readObj(decodeText(bytes), name);
      return { kind: 'mesh', name, mesh, report };
    }
    case 'off': {
      const { mesh, report } = readOff(decodeText(bytes), name);
      return { kind: 'mesh', name, mesh, report };
    }
    case 'tgf':
      return { kind: 'skeleton', name, skeleton: readTgf(decodeText(bytes), name) };
    case 'dmat':
      return { kind: 'matrix', name, matrix: readDmat(bytes, name) };
    default: {
      const found = extension ? `'.${extension}'` : 'a file without extension';
      const known = RIG_FILE_EXTENSIONS.map((e) => `.${e}`).join(', ');
      throw new FormatError(name, '', `unsupported file type: ${found} (Rigwright reads ${known})`);
    }
  }
}

function decodeText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
