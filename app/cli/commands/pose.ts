/** `rigwright pose`: one pose from bone rotations, written as a pose DMAT. */
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { quatToMatrix } from '../../../workers/math/quaternion.ts';
import { poseSequenceToDmat } from '../../../workers/formats/pose-file.ts';
import { identityPose, type PoseSequence } from '../../../workers/rig/pose-sequence.ts';
import { outputExtension, required, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { readRotatedBones, readRotations } from '../rotation-input.ts';

export const poseCommand: CliCommand = {
  name: 'pose',
  summary: 'one pose from bone rotations, as a pose DMAT',
  usage: `Usage: rigwright pose SKELETON.tgf|PROJECT.rig.glb --rotations R.json --out P.dmat [--quaternions]

Writes one pose: a 3·B × 3 DMAT of relative rotation matrices (a pose file of one frame), or with --quaternions the
4B × 1 final-pose quaternions (x, y, z, w per bone) that the app SLERPs to from the rest pose. Bones not listed stay
at rest.

R.json lists the rotations: [{ "bone": "forearm.L", "quaternion": [x, y, z, w] }, …], each the bone's rotation
relative to its parent (libigl's convention: about the bone's rest start joint). A bone is a name (from the
skeleton's names file, body.tgf → body.names, or the project) or an index from 0.

  --rotations FILE  the rotations, JSON
  --quaternions     write 4B × 1 quaternions instead of 3·B × 3 matrices
  --out FILE        output, .dmat
  -h, --help        this help
`,
  options: { rotations: 'string', quaternions: 'boolean', out: 'string' },
  allowPositionals: true,

  run(line, { stdout, stderr }) {
    const { positionals } = line;
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? 'no skeleton or project given' : 'give one skeleton or project');
    const rotationsFile = required(line, 'rotations');
    const out = required(line, 'out');
    outputExtension(out, ['dmat']);
    const bones = readRotatedBones(positionals[0], stderr);
    const given = readRotations(rotationsFile, bones, false);
    const B = bones.boneCount;
    const quaternions = line.flags.has('quaternions');
    let pose: PoseSequence;
    if (quaternions) {
      const final = new Float64Array(4 * B);
      for (let b = 0; b < B; b++) final[4 * b + 3] = 1;
      for (const { bone, quaternion } of given) final.set(quaternion, 4 * bone);
      pose = { kind: 'quaternions', boneCount: B, final };
    } else {
      const rotations = identityPose(B);
      for (const { bone, quaternion } of given) quatToMatrix(quaternion, 0, rotations, 9 * bone);
      pose = { kind: 'matrices', boneCount: B, frameCount: 1, rotations };
    }
    writeFile(out, writeDmatAscii(poseSequenceToDmat(pose)));
    const shape = quaternions ? `${4 * B} × 1 quaternions` : `${3 * B} × 3 rotation matrices`;
    stdout.write(`wrote ${out}: ${B} bones (${shape}), ${given.length} rotated\n`);
    return 0;
  },
};
