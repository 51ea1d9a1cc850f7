/** `rigwright export`: a skinned, animated glTF 2.0 asset from a mesh, a skeleton, weights and poses. */
import path from 'node:path';
import { exportGltf, GLTF_EXPORT_DEFAULTS, type GltfClip, type GltfPoseSpace } from '../../../workers/formats/gltf-export.ts';
import type { GltfCompression } from '../../../workers/formats/gltf-extensions.ts';
import type { GltfWeightComponent } from '../../../workers/formats/gltf-skin-weights.ts';
import { vertexNormals } from '../../../workers/mesh/vertex-normals.ts';
import { influencesFromWeights } from '../../../workers/skinning/influences.ts';
import { outputExtension, readBoundRig, required, UsageError, writeFiles, type CliCommand } from '../cli-support.ts';
import { readPoses } from '../pose-input.ts';
import { exampleDisplacements, exampleOptionsHelp, examplesInterpolator, rbfOption, readExamples } from '../example-input.ts';

const WEIGHT_TYPES: readonly GltfWeightComponent[] = ['float', 'unsigned-byte', 'unsigned-short'];
const COMPRESSIONS: readonly GltfCompression[] = ['none', 'draco', 'meshopt'];

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'a skinned, animated glTF (.glb, or .gltf + .bin)',
  usage: `Usage: rigwright export --mesh M --skeleton S.tgf --weights W.dmat [--poses P.dmat [--translations T.dmat]]
                        [--influences 4|8] [--examples E1.obj:E1.dmat,… [--rbf KERNEL]]
                        [--weight-type float|unsigned-byte|unsigned-short] [--compress none|draco|meshopt]
                        --out A.glb|A.gltf

Writes a skinned glTF 2.0 asset: one joint node per bone at its start joint, inverse bind matrices, the four
(or eight) strongest weights per vertex summing exactly to 1, and the poses as an animation clip named after the
pose file (rotation matrices: one keyframe per frame at ${GLTF_EXPORT_DEFAULTS.framesPerSecond} fps; quaternions: t = 0 rest, t = 1 s final pose).
A .gltf output also writes its buffer next to it as a .bin file with the same name.
With --examples, context-aware LBS (course handout Sec. 8.1) the way every glTF player can play it: each example,
unposed through LBS, becomes a morph target holding its rest-space displacement, and the clip animates the
targets' weights with the RBF pose-space weights a_j of each keyframe's pose (glTF morphs before skinning).

  --mesh FILE          mesh, .obj or .off
  --skeleton FILE      TGF skeleton
  --weights FILE       DMAT skinning weights, #vertices × #bones
  --poses FILE         DMAT pose file for this skeleton (optional)
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3: translation channels
  --influences K       4 (JOINTS_0/WEIGHTS_0) or 8 (adds a second set many viewers ignore); default ${GLTF_EXPORT_DEFAULTS.influences}
  --weight-type T      float, unsigned-byte or unsigned-short (normalized integers); default ${GLTF_EXPORT_DEFAULTS.weightComponent}
  ${exampleOptionsHelp(23)}
  --compress C         none, draco (KHR_draco_mesh_compression: positions quantized to 14 bits, normals to 10, float
                       weights to 12; integer weights stay exact) or meshopt (EXT_meshopt_compression, lossless here);
                       either is required to read the file; default ${GLTF_EXPORT_DEFAULTS.compression}
  --out FILE           output, .glb or .gltf
  -h, --help           this help
`,
  options: {
    mesh: 'string',
    skeleton: 'string',
    weights: 'string',
    poses: 'string',
    translations: 'string',
    influences: 'string',
    'weight-type': 'string',
    examples: 'string',
    rbf: 'string',
    compress: 'string',
    out: 'string',
  },
  allowPositionals: false,

  async run(line, { stdout, stderr }) {
    const { values } = line;
    const meshFile = required(line, 'mesh');
    const skeletonFile = required(line, 'skeleton');
    const weightsFile = required(line, 'weights');
    const out = required(line, 'out');
    const format = outputExtension(out, ['glb', 'gltf']);
    const influences = values.influences ?? String(GLTF_EXPORT_DEFAULTS.influences);
    if (influences !== '4' && influences !== '8') throw new UsageError(`--influences must be 4 or 8, not "${influences}"`);
    const weightComponent = (values['weight-type'] ?? GLTF_EXPORT_DEFAULTS.weightComponent) as GltfWeightComponent;
    if (!WEIGHT_TYPES.includes(weightComponent)) {
      throw new UsageError(`--weight-type must be ${WEIGHT_TYPES.join(', ')}; not "${values['weight-type']}"`);
    }

    if (values.rbf !== undefined && values.examples === undefined) throw new UsageError('--rbf applies with --examples only');
    const kernel = rbfOption(values.rbf);
    const compression = (values.compress ?? GLTF_EXPORT_DEFAULTS.compression) as GltfCompression;
    if (!COMPRESSIONS.includes(compression))
      throw new UsageError(`--compress must be ${COMPRESSIONS.join(', ')}; not "${values.compress}"`);

    const { mesh, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
    const examples = values.examples === undefined ? [] : readExamples(values.examples, mesh, boneCount);
    let poseSpace: GltfPoseSpace | undefined;
    if (examples.length > 0) {
      const interpolator = examplesInterpolator(examples, boneCount, kernel);
      // Unposed through the influences the file stores, so that the player's LBS inverts exactly.
      const influenceSet = influencesFromWeights(weights, influences === '8' ? 8 : 4);
      poseSpace = {
        names: examples.map((e) => e.name),
        displacements: exampleDisplacements(mesh.positions, examples, skeleton, influenceSet, 'lbs', 'per-vertex', stderr),
        interpolator,
      };
    }
    const clips: GltfClip[] = [];
    if (values.poses !== undefined) {
      const poses = readPoses(values.poses, values.translations, boneCount);
      clips.push({ name: path.basename(values.poses).replace(/\.dmat$/i, ''), poses });
    }
    const basename = path.basename(out).replace(/\.gltf$/i, '');
    const result = await exportGltf(
      {
        mesh,
        normals: vertexNormals(mesh.positions, mesh.triangles),
        skeleton,
        weights,
        clips,
        poseSpace,
        name: path.basename(meshFile).replace(/\.[^.]*$/, ''),
      },
      out,
      { format: format === 'glb' ? 'glb' : 'gltf', influences: influences === '8' ? 8 : 4, weightComponent, basename, compression },
    );
    for (const warning of result.warnings) stderr.write(`rigwright: warning: ${out}: ${warning}\n`);
    // One set, the .bin before the .gltf that refers to it: a failure leaves the old pair as it was.
    const files = Object.entries(result.resources).map(([uri, bytes]) => ({ path: path.join(path.dirname(out), uri), contents: bytes }));
    files.push({ path: out, contents: result.bytes });
    writeFiles(files);
    const written = [out, ...files.slice(0, -1).map((f) => f.path)];
    stdout.write(
      `wrote ${written.join(' and ')}: ${vertexCount} vertices, ${boneCount} joints, ${clips.length} animation${clips.length === 1 ? '' : 's'}, up to ${influences} influences per vertex (${weightComponent} weights${compression === 'none' ? '' : `, ${compression}-compressed`})${examples.length > 0 ? `, ${examples.length} example morph target${examples.length === 1 ? '' : 's'} (${kernel} RBF weights)` : ''}\n`,
    );
    return 0;
  },
};
