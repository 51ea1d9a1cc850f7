/** `rigwright clip`: a keyed clip from key poses (workers/rig/keyed-clip.ts), written as the DMAT the app reads. */
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { poseSequenceToDmat } from '../../../workers/formats/pose-file.ts';
import { quatToMatrix } from '../../../workers/math/quaternion.ts';
import { newKeyedClip, setKeysAt } from '../../../workers/rig/keyed-clip.ts';
import { MAX_CLIP_FRAMES } from '../../../workers/scene/clip-edits.ts';
import { outputExtension, required, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { readRotatedBones, readRotations } from '../rotation-input.ts';

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
      if (!/^\d+$/.test(values.frames) || Number(values.frames) < 1 || Number(values.frames) > MAX_CLIP_FRAMES)
        throw new UsageError(`--frames must be a whole number from 1 to ${MAX_CLIP_FRAMES}, not "${values.frames}"`);
      frames = Number(values.frames);
    }

    const bones = readRotatedBones(positionals[0], stderr);
    const keys = readRotations(keysFile, bones, true);
    if (keys.length === 0) throw new FormatError(keysFile, '', 'no keys: the list is empty');
    const last = keys.reduce((k, key, i) => (key.frame > keys[k].frame ? i : k), 0);
    const frameCount = frames ?? keys[last].frame + 1;
    if (keys[last].frame >= frameCount)
      throw new FormatError(
        keysFile,
        `entry ${last}`,
        `frame ${keys[last].frame} is past the clip's last frame ${frameCount - 1} (--frames ${frameCount})`,
      );
    if (frameCount > MAX_CLIP_FRAMES)
      throw new FormatError(keysFile, `entry ${last}`, `frame ${keys[last].frame} makes a clip longer than ${MAX_CLIP_FRAMES} frames`);

    const B = bones.boneCount;
    const clip = setKeysAt(
      newKeyedClip(B, frameCount),
      keys.map(({ frame, bone, quaternion }) => {
        const rotation = new Float64Array(9);
        quatToMatrix(quaternion, 0, rotation, 0);
        return { frame, bone, rotation };
      }),
    );
    const keyedFrames = new Set(keys.map((key) => key.frame)).size;
    writeFile(out, writeDmatAscii(poseSequenceToDmat(clip)));
    stdout.write(
      `wrote ${out}: ${frameCount} frames × ${B} bones (${3 * B * frameCount} × 3), ${keys.length} keys at ${keyedFrames} frames\n`,
    );
    return 0;
  },
};
