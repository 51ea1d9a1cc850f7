/**
 * The pose options `fk`, `skin` and `export` share: --poses with --translations, and for `fk` and `skin` the time
 * to evaluate (--frame N | --t T) and the bone transforms there.
 */
import { FormatError } from '../../workers/formats/format-error.ts';
import { poseSequenceFromDmat, withTranslationsFromDmat } from '../../workers/formats/pose-file.ts';
import { dmatRole } from '../../workers/formats/dmat-role.ts';
import { poseSequenceFromTransforms } from '../../workers/formats/transform-animation.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { parseNumber, readMatrix, UsageError } from './cli-support.ts';

/** Where in a pose sequence to evaluate, and how to say so. */
export interface PoseTime {
  time: number;
  frame?: number;
  frameCount?: number;
  t?: number;
}

/**
 * The --poses file, with the --translations file (start-joint translations, B·L × 3) and the --times file (the
 * frames' key times in seconds, L × 1, strictly increasing, as `import` writes them) when given. With `rig`, the
 * --poses file may also be libigl's animation of absolute bone transforms (12·B × L, transform-animation.ts), which
 * carries its own translations; its warnings go to `rig.warn`.
 */
export function readPoses(
  posesFile: string,
  translationsFile: string | undefined,
  boneCount: number,
  timesFile?: string,
  rig?: { skeleton: Skeleton; warn(message: string): void },
): PoseSequence {
  const matrix = readMatrix(posesFile, 'a pose file');
  // As the app tells them apart (dmatRole): a pose file's shape first, then an animation's.
  if (rig && dmatRole(matrix, 0, boneCount).role === 'animation') {
    if (translationsFile !== undefined)
      throw new UsageError(
        `--translations does not apply: ${posesFile} is an animation of absolute bone transforms, which places every bone itself`,
      );
    const { poses, warnings } = poseSequenceFromTransforms(matrix, rig.skeleton, posesFile);
    for (const warning of warnings) rig.warn(warning);
    return timesFile === undefined ? poses : withKeyTimes(poses, posesFile, timesFile);
  }
  let seq = poseSequenceFromDmat(matrix, boneCount, posesFile);
  if ((translationsFile !== undefined || timesFile !== undefined) && seq.kind !== 'matrices')
    throw new UsageError(`--translations and --times need rotation-matrix poses; ${posesFile} holds final-pose quaternions`);
  if (translationsFile !== undefined)
    seq = withTranslationsFromDmat(readMatrix(translationsFile, 'a translations file'), seq, translationsFile);
  if (timesFile === undefined || seq.kind !== 'matrices') return seq;
  return withKeyTimes(seq, posesFile, timesFile);
}

/** A rotation-matrix sequence with the --times file's key times (L × 1 seconds, strictly increasing). */
function withKeyTimes(seq: PoseSequence, posesFile: string, timesFile: string): PoseSequence {
  if (seq.kind !== 'matrices') return seq;
  const times = readMatrix(timesFile, 'a key times file');
  if (times.cols !== 1 || times.rows !== seq.frameCount)
    throw new FormatError(
      timesFile,
      '',
      `holds ${times.rows} × ${times.cols} values; ${posesFile} has ${seq.frameCount} frames, so it needs ${seq.frameCount} × 1 key times`,
    );
  times.data.forEach((t, f) => {
    if (!Number.isFinite(t) || t < 0)
      throw new FormatError(timesFile, `row ${f + 1}`, `key time ${t} is not a finite number of seconds ≥ 0`);
    if (f > 0 && !(t > times.data[f - 1]))
      throw new FormatError(
        timesFile,
        `row ${f + 1}`,
        `key time ${t} s does not come after ${times.data[f - 1]} s; key times increase strictly`,
      );
  });
  return { ...seq, times: times.data.slice() };
}

/**
 * Chooses the pose time from --frame / --t (at most one of them) for this pose sequence.
 * Matrices: --frame N (0-based, default the last frame); quaternions: --t T (default 1). The wrong option for the
 * file's kind, or a frame past the end, is bad input for that file (exit 1).
 */
export function poseTime(seq: PoseSequence, posesFile: string, frameText?: string, tText?: string): PoseTime {
  if (seq.kind === 'matrices') {
    const range = `frames 0–${seq.frameCount - 1}`;
    if (tText !== undefined) {
      throw new FormatError(
        posesFile,
        '',
        `holds rotation matrices (${seq.frameCount} frames), so --t does not apply; choose a frame with --frame N (${range})`,
      );
    }
    let frame = seq.frameCount - 1;
    if (frameText !== undefined) {
      if (!/^\d+$/.test(frameText)) throw new UsageError(`--frame must be a whole number ≥ 0, not "${frameText}"`);
      frame = Number(frameText);
      if (frame >= seq.frameCount) {
        throw new FormatError(
          posesFile,
          `frame ${frameText}`,
          `out of range: the file has ${seq.frameCount} frame${seq.frameCount === 1 ? '' : 's'} (${range})`,
        );
      }
    }
    return { time: frame, frame, frameCount: seq.frameCount };
  }
  if (frameText !== undefined) {
    throw new FormatError(
      posesFile,
      '',
      `holds one final pose as quaternions (4B × 1), so --frame does not apply; interpolate from the rest pose with --t T in [0, 1]`,
    );
  }
  let t = 1;
  if (typeof tText === 'string') {
    t = parseNumber(tText);
    if (!(t >= 0 && t <= 1)) throw new UsageError(`--t must be a number from 0 to 1, not "${tText}"`);
  }
  return { time: t, t };
}

export function describeTime(at: PoseTime): string {
  return at.frame !== undefined ? `frame ${at.frame} of 0–${(at.frameCount ?? 1) - 1}` : `t = ${at.t}`;
}

/** Bone transforms (#B × 12, rest → posed) of `skeleton` at `time` of `seq`. */
export function poseTransforms(skeleton: Skeleton, seq: PoseSequence, time: number): Float64Array {
  const boneCount = skeleton.parents.length;
  const transforms = new Float64Array(12 * boneCount);
  poseForwardKinematics(skeleton, seq, time, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
  return transforms;
}
