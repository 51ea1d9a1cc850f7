/** `rigwright clip`: a keyed clip from key poses (workers/rig/keyed-clip.ts), written as the DMAT the app reads. */
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { poseSequenceToDmat } from '../../../workers/formats/pose-file.ts';
import { quatToMatrix } from '../../../workers/math/quaternion.ts';
import { newKeyedClip, setKeys } from '../../../workers/rig/keyed-clip.ts';
import { identityPose } from '../../../workers/rig/pose-sequence.ts';
import { outputExtension, required, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { readRotatedBones, readRotations } from '../rotation-input.ts';

/** Most frames a clip may have (an hour at 30 frames per second), as in the app. */
const MAX_FRAMES = 108_000;

export const clipCommand: CliCommand = {
  name: 'clip',
  summary: 'a clip from key poses (SLERP between keys), as a pose DMAT',
  usage: `Usage: rigwright clip SKELETON.tgf|PROJECT.rig.glb --keys K.json --out C.dmat [--frames L]

Makes a clip of L frames from key poses and writes it as a 3·B·L × 3 DMAT of relative rotation matrices (frame-major,
then bone), the pose file the app and \`rigwright fk\`, \`skin\` and \`export\` read. Each bone's frames between two of
its keys SLERP between them; before its first key it holds the first, after its last the last; a bone without keys
stays at rest.

K.json lists the keys: [{ "frame": 0, "bone": "upperarm.L", "quaternion": [x, y, z, w] }, …], each quaternion the
bone's rotation relative to its parent (libigl's convention: about the bone's rest start joint). A bone is a name
(from the skeleton's names file, body.tgf → body.names, or the project) or an index from 0.

  --keys FILE    the keys, JSON
  --frames L     the clip's length in frames (a whole number ≥ 1); default: the last key's frame + 1
  --out FILE     output, .dmat
  -h, --help     this help
`,
  options: { keys: 'string', frames: 'string', out: 'string' },
  allowPositionals: true,

  run(line, { stdout, stderr }) {
    const { positionals, values } = line;
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? 'no skeleton or project given' : 'give one skeleton or project');
    const keysFile = required(line, 'keys');
    const out = required(line, 'out');
    outputExtension(out, ['dmat']);
    let frames: number | undefined;
    if (values.frames !== undefined) {
      if (!/^\d+$/.test(values.frames) || Number(values.frames) < 1 || Number(values.frames) > MAX_FRAMES)
        throw new UsageError(`--frames must be a whole number from 1 to ${MAX_FRAMES}, not "${values.frames}"`);
      frames = Number(values.frames);
    }

    const bones = readRotatedBones(positionals[0], stderr);
    const keys = readRotations(keysFile, bones, true);
    if (keys.length === 0) throw new FormatError(keysFile, '', 'no keys: the list is empty');
    const last = keys.reduce((k, key) => (key.frame > keys[k].frame ? keys.indexOf(key) : k), 0);
    const frameCount = frames ?? keys[last].frame + 1;
    if (keys[last].frame >= frameCount)
      throw new FormatError(
        keysFile,
        `entry ${last}`,
        `frame ${keys[last].frame} is past the clip's last frame ${frameCount - 1} (--frames ${frameCount})`,
      );
    if (frameCount > MAX_FRAMES)
      throw new FormatError(keysFile, `entry ${last}`, `frame ${keys[last].frame} makes a clip longer than ${MAX_FRAMES} frames`);

    const B = bones.boneCount;
    let clip = newKeyedClip(B, frameCount);
    const byFrame = new Map<number, typeof keys>();
    for (const key of keys) byFrame.set(key.frame, [...(byFrame.get(key.frame) ?? []), key]);
    for (const [frame, atFrame] of [...byFrame].sort((a, b) => a[0] - b[0])) {
      const rotations = identityPose(B);
      for (const key of atFrame) quatToMatrix(key.quaternion, 0, rotations, 9 * key.bone);
      clip = setKeys(
        clip,
        frame,
        atFrame.map((key) => key.bone),
        rotations,
      );
    }
    writeFile(out, writeDmatAscii(poseSequenceToDmat(clip)));
    stdout.write(
      `wrote ${out}: ${frameCount} frames × ${B} bones (${3 * B * frameCount} × 3), ${keys.length} keys at ${byFrame.size} frames\n`,
    );
    return 0;
  },
};
