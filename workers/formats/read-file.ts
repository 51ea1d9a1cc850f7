/**
 * One entry point for every file a user can drop on the window or name on the command line: picks the reader
 * by extension.
 */
import { BONE_NAMES_EXTENSION } from './bone-names.ts';
import { readDmat } from './dmat.ts';
import { fileExtension } from './file-name.ts';
import { FormatError } from './format-error.ts';
import { readObj } from './obj.ts';
import { readOff } from './off.ts';
import { readTgf } from './tgf.ts';
import type { DenseMatrix, MeshFileReport, MeshPart, ObjCorners, TgfSkeleton, TriangleMesh } from './types.ts';

/** What a file turned out to hold. `name` is the name it was read under. */
export type RigFile =
  | {
      kind: 'mesh';
      name: string;
      mesh: TriangleMesh;
      report: MeshFileReport;
      /** OBJ objects or groups as meshes of one vertex list (absent or null: one mesh) */
      parts?: MeshPart[] | null;
      /** OBJ `vt`/`vn` per triangle corner (absent or null: none) */
      corners?: ObjCorners | null;
      /** OBJ `usemtl` names in order of first use (parts' `material` index them) and `mtllib` files (absent: none) */
      materials?: string[];
      materialLibraries?: string[];
    }
  | { kind: 'skeleton'; name: string; skeleton: TgfSkeleton }
  | { kind: 'matrix'; name: string; matrix: DenseMatrix }
  /** a TGF's bone names file (bone-names.ts), read with its skeleton, whose bone count it is checked against */
  | { kind: 'names'; name: string; text: string };

/**
 * Largest text file read (OBJ, OFF, TGF, DMAT, .gltf): the whole text becomes one string, and JavaScript strings
 * stop at about 512 M characters; 256 MiB leaves room for the arrays made from it.
 */
export const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;
/** Largest binary file read (.glb, .bin): 1 GiB. */
export const MAX_BINARY_FILE_BYTES = 1024 * 1024 * 1024;

/** The size limit for a file, by its extension (.glb and .bin are binary, everything else text). */
export function fileSizeLimit(name: string): number {
  return /\.(glb|bin)$/i.test(name) ? MAX_BINARY_FILE_BYTES : MAX_TEXT_FILE_BYTES;
}

/**
 * Refuses a file too large to read, before it is read: call with its size from the file system (stat, File.size).
 * @param name      file name (a path is fine)
 * @param byteLength its size in bytes
 * @throws FormatError naming the file, its size and the limit
 */
export function checkFileSize(name: string, byteLength: number): void {
  const limit = fileSizeLimit(name);
  if (byteLength > limit) {
    const mib = (n: number): string => `${Math.round(n / (1024 * 1024))} MiB`;
    throw new FormatError(name, '', `the file has ${byteLength} bytes (${mib(byteLength)}), more than the ${mib(limit)} Rigwright reads`);
  }
}

/** Extensions readRigFile understands, for file dialogs. */
export const RIG_FILE_EXTENSIONS = ['obj', 'off', 'tgf', 'names', 'dmat'] as const;

/**
 * Reads a mesh (.obj, .off), skeleton (.tgf), bone names file (.names, kept as text: its names are checked when it is
 * paired with its skeleton, see parseBoneNames) or matrix (.dmat: weights, handles, poses) from its bytes.
 * Text formats are decoded as UTF-8 (a byte-order mark is dropped).
 * @param name  file name (a path is fine); its extension, in any case, selects the format
 * @param bytes the whole file
 * @returns the parsed content, tagged by kind
 * @throws FormatError from the reader, "unsupported file type" for any other extension, or a file larger than
 *         MAX_TEXT_FILE_BYTES
 */
export function readRigFile(name: string, bytes: Uint8Array): RigFile {
  checkFileSize(name, bytes.length);
  const extension = fileExtension(name);
  switch (extension) {
    case 'obj': {
      const { mesh, report, parts, corners, materials, materialLibraries } = readObj(decodeText(bytes), name);
      return { kind: 'mesh', name, mesh, report, parts, corners, materials, materialLibraries };
    }
    case 'off': {
      const { mesh, report } = readOff(decodeText(bytes), name);
      return { kind: 'mesh', name, mesh, report };
    }
    case 'tgf':
      return { kind: 'skeleton', name, skeleton: readTgf(decodeText(bytes), name) };
    case BONE_NAMES_EXTENSION:
      return { kind: 'names', name, text: decodeText(bytes) };
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
