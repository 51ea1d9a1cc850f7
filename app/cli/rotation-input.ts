/**
 * What `rigwright clip` and `rigwright pose` read: the bones a rotation is given for (a TGF skeleton, with the names
 * of its names file when it has one, or a project's skeleton and names) and the rotations themselves, a JSON list of
 * `{ "frame": F, "bone": "name" | index, "quaternion": [x, y, z, w] }`. Errors name the file, the entry and the reason.
 */
import { existsSync } from 'node:fs';
import { boneNamesFileFor, parseBoneNames } from '../../workers/formats/bone-names.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { MIN_QUATERNION_LENGTH } from '../../workers/formats/pose-file.ts';
import { isProjectFile, readProjectFile } from '../../workers/formats/project-file.ts';
import { documentFromProject } from '../../workers/scene/project-document.ts';
import { errorMessage } from '../../workers/scene/scene-document.ts';
import { readBytes, readJsonFile, readSkeleton, type CliStreams } from './cli-support.ts';

/** The bones rotations are given for. */
export interface RotatedBones {
  boneCount: number;
  /** #B names: the names file's or the project's, or null when the skeleton has none */
  names: readonly string[] | null;
}

/** One rotation as given: its frame (0 where the command takes none), bone and unit quaternion x y z w. */
export interface GivenRotation {
  frame: number;
  bone: number;
  quaternion: [number, number, number, number];
}

/**
 * The bones of a TGF skeleton (names from the names file beside it, when there is one: `body.tgf` → `body.names`) or
 * of a project (`.rig.glb`).
 * @throws FormatError naming the file for a file that is neither, whose skeleton or names do not read, or whose
 *         skeleton has no bones (a project of a mesh alone)
 */
export function readRotatedBones(file: string, stderr: CliStreams['stderr']): RotatedBones {
  const bones = readBones(file, stderr);
  if (bones.boneCount === 0)
    throw new FormatError(file, '', 'the skeleton has no bones: give it bones first (rigwright skeleton, or the skeleton tool)');
  return bones;
}

function readBones(file: string, stderr: CliStreams['stderr']): RotatedBones {
  if (/\.glb$/i.test(file)) {
    const bytes = readBytes(file);
    if (!isProjectFile(bytes)) throw new FormatError(file, '', 'not a Rigwright project (a .glb the app saved as a project)');
    const read = readProjectFile(bytes, file);
    for (const notice of read.notices) stderr.write(`rigwright: warning: ${notice}\n`);
    try {
      const doc = documentFromProject(read.scene, read.settings);
      return { boneCount: doc.skeleton.parents.length, names: doc.boneNames ?? null };
    } catch (error) {
      throw new FormatError(file, '', errorMessage(error));
    }
  }
  const skeleton = readSkeleton(file);
  const boneCount = skeleton.parents.length;
  const namesFile = boneNamesFileFor(file);
  if (!existsSync(namesFile)) return { boneCount, names: null };
  return { boneCount, names: parseBoneNames(new TextDecoder().decode(readBytes(namesFile)), namesFile, boneCount) };
}

/**
 * Reads the rotations file.
 * @param withFrames  whether each entry gives a frame (clip) or none may (pose)
 * @returns the rotations in the file's order, each quaternion normalized
 * @throws FormatError naming the file and the entry (`entry k`, 0-based) for anything but such a list: an unknown
 *         bone, a frame that is not a whole number ≥ 0, a quaternion that is not four finite numbers or is zero, a
 *         bone given twice at one frame
 */
export function readRotations(file: string, bones: RotatedBones, withFrames: boolean): GivenRotation[] {
  const value = readJsonFile(file);
  const shape = withFrames ? '{ "frame": F, "bone": B, "quaternion": [x, y, z, w] }' : '{ "bone": B, "quaternion": [x, y, z, w] }';
  if (!Array.isArray(value)) throw new FormatError(file, '', `expected a list of ${shape}`);
  const seen = new Map<string, number>();
  return value.map((entry: unknown, k): GivenRotation => {
    const where = `entry ${k}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new FormatError(file, where, `expected ${shape}`);
    const { frame = withFrames ? undefined : 0, bone, quaternion } = entry as Record<string, unknown>;
    const known = new Set(withFrames ? ['frame', 'bone', 'quaternion'] : ['bone', 'quaternion']);
    const extra = Object.keys(entry).find((key) => !known.has(key));
    if (extra !== undefined) throw new FormatError(file, where, `unknown field "${extra}": expected ${shape}`);
    if (typeof frame !== 'number' || !Number.isInteger(frame) || frame < 0)
      throw new FormatError(file, where, `the frame must be a whole number ≥ 0, not ${JSON.stringify(frame) ?? 'missing'}`);
    const b = boneIndex(bone, bones, file, where);
    if (!Array.isArray(quaternion) || quaternion.length !== 4 || !quaternion.every((q) => typeof q === 'number' && Number.isFinite(q)))
      throw new FormatError(
        file,
        where,
        `the quaternion must be four finite numbers x, y, z, w, not ${JSON.stringify(quaternion) ?? 'missing'}`,
      );
    const [x, y, z, w] = quaternion as number[];
    const length = Math.hypot(x, y, z, w);
    if (!(length >= MIN_QUATERNION_LENGTH))
      throw new FormatError(file, where, `the quaternion (${x}, ${y}, ${z}, ${w}) is zero: not a rotation`);
    const key = `${frame} ${b}`;
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw new FormatError(
        file,
        where,
        `bone ${describeBone(b, bones)} is given twice${withFrames ? ` at frame ${frame}` : ''} (entry ${earlier} too)`,
      );
    seen.set(key, k);
    return { frame, bone: b, quaternion: [x / length, y / length, z / length, w / length] };
  });
}

/** A bone given by name (the names file's or project's) or by index from 0. */
function boneIndex(bone: unknown, bones: RotatedBones, file: string, where: string): number {
  const B = bones.boneCount;
  if (typeof bone === 'string') {
    const byName = bones.names?.indexOf(bone) ?? -1;
    if (byName >= 0) return byName;
    throw new FormatError(
      file,
      where,
      bones.names
        ? `no bone is named "${bone}"`
        : `the skeleton has no bone names (no names file beside it), so "${bone}" names no bone: give its index 0–${B - 1}`,
    );
  }
  if (typeof bone === 'number' && Number.isInteger(bone) && bone >= 0 && bone < B) return bone;
  throw new FormatError(file, where, `the bone must be a name or an index 0–${B - 1}, not ${JSON.stringify(bone) ?? 'missing'}`);
}

function describeBone(bone: number, bones: RotatedBones): string {
  return bones.names ? `"${bones.names[bone]}"` : String(bone);
}
