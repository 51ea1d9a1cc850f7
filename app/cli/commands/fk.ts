/** `rigwright fk`: the posed joint positions of a skeleton (forward kinematics), as a DMAT or JSON. */
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { posedJointPositions } from '../../../workers/rig/forward-kinematics.ts';
import { outputExtension, readSkeleton, required, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { describeTime, poseTime, poseTransforms, readPoses } from '../pose-input.ts';

export const fkCommand: CliCommand = {
  name: 'fk',
  summary: 'joint positions of a skeleton in a pose (forward kinematics)',
  usage: `Usage: rigwright fk --skeleton S.tgf --poses P.dmat [--translations T.dmat] [--frame N | --t T] --out J.dmat|J.json

Writes the posed joint positions, #joints × 3 in TGF node order: an ASCII DMAT, or with --out *.json
{ "joints": [[x, y, z], …] } with the frame or t it was taken at.

  --skeleton FILE  TGF skeleton
  --poses FILE     DMAT pose file for this skeleton, or libigl's animation of absolute bone transforms (12·B × L)
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3 (as rigwright import writes)
  --frame N        frame of a rotation-matrix pose file (3·B·L × 3), 0-based; default: the last frame
  --t T            SLERP parameter in [0, 1] from the rest pose to a quaternion pose (4B × 1); default: 1
  --out FILE       output, .dmat or .json
  -h, --help       this help
`,
  options: { skeleton: 'string', poses: 'string', translations: 'string', frame: 'string', t: 'string', out: 'string' },
  allowPositionals: false,

  run(line, { stdout, stderr }) {
    const { values } = line;
    const skeletonFile = required(line, 'skeleton');
    const posesFile = required(line, 'poses');
    const out = required(line, 'out');
    const format = outputExtension(out, ['dmat', 'json']);
    if (values.frame !== undefined && values.t !== undefined) throw new UsageError('give either --frame or --t, not both');

    const skeleton = readSkeleton(skeletonFile);
    const seq = readPoses(posesFile, values.translations, skeleton.parents.length, undefined, {
      skeleton,
      warn: (warning) => stderr.write(`rigwright: warning: ${warning}\n`),
    });
    const at = poseTime(seq, posesFile, values.frame, values.t);
    const transforms = poseTransforms(skeleton, seq, at.time);
    const jointCount = skeleton.joints.length / 3;
    const joints = new Float64Array(3 * jointCount);
    posedJointPositions(skeleton, transforms, joints);

    if (format === 'json') {
      const timing = at.frame !== undefined ? { frame: at.frame, frameCount: at.frameCount } : { t: at.t };
      const header = JSON.stringify({ skeleton: skeletonFile, poses: posesFile, kind: seq.kind, ...timing }, null, 2);
      // One joint per line keeps the file readable and diffable; JSON.stringify prints every double exactly.
      const rows: string[] = [];
      for (let j = 0; j < jointCount; j++) rows.push(`    ${JSON.stringify([joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]])}`);
      writeFile(out, `${header.slice(0, -2)},\n  "joints": [\n${rows.join(',\n')}\n  ]\n}\n`);
    } else {
      writeFile(out, writeDmatAscii({ rows: jointCount, cols: 3, data: joints }));
    }
    stdout.write(`wrote ${out}: ${jointCount} joints × 3 at ${describeTime(at)}\n`);
    return 0;
  },
};
