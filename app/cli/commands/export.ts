/** `rigwright export`: a skinned, animated glTF 2.0 asset from a mesh, a skeleton, weights and poses. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { boneNamesFileFor, parseBoneNames } from '../../../workers/formats/bone-names.ts';
import { exportGltf, GLTF_EXPORT_DEFAULTS, type GltfClip, type GltfPoseSpace, type GltfRig } from '../../../workers/formats/gltf-export.ts';
import { readMtl } from '../../../workers/formats/mtl.ts';
import type { RigFile } from '../../../workers/formats/read-file.ts';
import { objLook, type BatchFile } from '../../../workers/formats/obj-materials.ts';
import type { GltfCompression } from '../../../workers/formats/gltf-extensions.ts';
import type { GltfWeightComponent } from '../../../workers/formats/gltf-skin-weights.ts';
import { vertexNormals } from '../../../workers/mesh/vertex-normals.ts';
import { influencesFromWeights } from '../../../workers/skinning/influences.ts';
import { MAX_INFLUENCE_CHOICES } from '../../../workers/weights/limit-influences.ts';
import {
  outputExtension,
  readBoundRig,
  readBytes,
  readMatrix,
  readSkeleton,
  required,
  UsageError,
  writeFiles,
  type CliCommand,
  type CliStreams,
  type CommandLine,
} from '../cli-support.ts';
import { exportGltfInPlace } from '../../../workers/formats/gltf-edit.ts';
import { WRITE_COMPRESSIONS } from '../../../workers/formats/gltf/write-options.ts';
import { scalesFromDmat } from '../../../workers/formats/gltf/clip-scales.ts';
import { withoutConnectorBones } from '../../../workers/formats/gltf/connector-bones.ts';
import { importGltf } from '../../../workers/formats/gltf-import.ts';
import { gltfResources } from '../../../workers/formats/gltf-resource-uris.ts';
import { baseName } from '../../../workers/formats/file-name.ts';
import { quoted, referencedPath } from '../../../workers/formats/resource-path.ts';
import { resourceFile, resourceTargets } from '../../asset-resources.ts';
import { FormatError, printableLine } from '../../../workers/formats/format-error.ts';
import { weightsFromDmat } from '../../../workers/formats/weights-file.ts';
import type { DenseMatrix } from '../../../workers/formats/types.ts';
import type { PoseSequence } from '../../../workers/rig/pose-sequence.ts';
import type { Skeleton } from '../../../workers/rig/skeleton.ts';
import { importedSource } from '../imported-source.ts';
import { readPoses } from '../pose-input.ts';
import { exampleDisplacements, exampleOptionsHelp, examplesInterpolator, rbfOption, readExamples } from '../example-input.ts';

const WEIGHT_TYPES: readonly GltfWeightComponent[] = ['float', 'unsigned-byte', 'unsigned-short'];

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'a skinned, animated glTF (.glb, or .gltf + .bin)',
  usage: `Usage: rigwright export --mesh M --skeleton S.tgf --weights W.dmat [--poses P.dmat [--translations T.dmat] [--times K.dmat] [--scales C.dmat]]
                        [--influences 1…8] [--examples E1.obj:E1.dmat,… [--rbf KERNEL]]
                        [--weight-type float|unsigned-byte|unsigned-short] [--compress none|draco|meshopt]
                        --out A.glb|A.gltf
       rigwright export --base B.glb|B.gltf [--weights W.dmat] [--skeleton S.tgf] [--poses P.dmat [--translations T.dmat] [--times K.dmat] [--scales C.dmat]]
                        [--influences 1…8] [--weight-type …] [--compress …] --out A.glb|A.gltf

Writes a skinned glTF 2.0 asset: one joint node per bone at its start joint, named by the skeleton's names file
(S.names beside S.tgf, one name per bone) when there is one, inverse bind matrices (a skin per skeleton tree), the
four (or eight) strongest weights per vertex summing exactly to 1, and each pose file as an animation clip named
after it (rotation matrices: one keyframe per frame, at its --times or at ${GLTF_EXPORT_DEFAULTS.framesPerSecond} fps; quaternions: t = 0 rest, t = 1 s final pose).
A .gltf output also writes its buffer next to it as a .bin file with the same name (and with --base the images
the base names, at their URIs inside the output's folder, subfolders made; a URI that leads out of it is refused).
With --examples, context-aware LBS (course handout Sec. 8.1) the way every glTF player can play it: each example,
unposed through LBS, becomes a morph target holding its rest-space displacement, and the clip animates the
targets' weights with the RBF pose-space weights a_j of each keyframe's pose (glTF morphs before skinning).
A mesh that \`rigwright import\` wrote names the glTF it was read from (its first line): a fresh export then warns
of what it leaves out of that file (vertex colours, texture coordinate sets past the first, its tangents, cameras,
lights, animation of nodes that are not joints; --base keeps them), or says in one line that this could not be
checked when the file is no longer there.

  --base FILE          edit this glTF in place (what \`rigwright import\` read it from): its meshes, UVs, materials,
                       textures, names, other nodes, clips and extensions stay; the weights (#vertices of all its
                       meshes × its joints, or the imported TGF's bones whose extra connector columns are zero), the
                       skeleton (its joints moved to the TGF's bone heads) and the poses (a new clip) replace the file's
  --mesh FILE          mesh, .obj or .off; an OBJ's objects and groups become meshes on the one skin with their
                       vt/vn, and the materials of its mtllib files (next to it) with their map_Kd images
  --skeleton FILE      TGF skeleton
  --weights FILE       DMAT skinning weights, #vertices × #bones
  --poses FILE         DMAT pose file for this skeleton (optional), or libigl's 12·B × L absolute-transform animation;
                       without --base a comma-separated list, one clip each, named after the file (NAME-pose-CLIP.dmat,
                       as \`rigwright import\` writes them, gives the clip CLIP)
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3: translation channels (a list as --poses,
                       an empty entry for none)
  --times FILE         DMAT key times of those frames in seconds, L × 1 (what \`rigwright import\` writes; a list as --poses)
  --scales FILE        DMAT joint scales of those frames, B·L × 1 (what \`rigwright import\` writes for a clip whose
                       joints scale): scale channels; a list as --poses, an empty entry for none
  --influences K       the most bones per vertex, 1 … 8, as the app's Max influences: the largest kept, renormalised;
                       one joint set (JOINTS_0/WEIGHTS_0) while no vertex keeps more than 4, else a second set
                       many viewers ignore; default ${GLTF_EXPORT_DEFAULTS.influences}
  --weight-type T      float, unsigned-byte or unsigned-short (normalized integers); default ${GLTF_EXPORT_DEFAULTS.weightComponent}
  ${exampleOptionsHelp(23)}
  --compress C         none, draco (KHR_draco_mesh_compression: positions quantized to 14 bits, normals to 10, float
                       weights to 12; integer weights stay exact) or meshopt (EXT_meshopt_compression, lossless here);
                       either is required to read the file; default ${GLTF_EXPORT_DEFAULTS.compression}: a fresh export is not
                       compressed, and with --base the base's own compression stays (each Draco primitive and each
                       meshopt-compressed buffer view the export does not change is kept byte for byte; changed ones
                       are compressed again, and a notice names them; --compress draco or meshopt compresses every
                       one again)
  --out FILE           output, .glb or .gltf
  -h, --help           this help
`,
  options: {
    base: 'string',
    mesh: 'string',
    skeleton: 'string',
    weights: 'string',
    poses: 'string',
    translations: 'string',
    times: 'string',
    scales: 'string',
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
    if (values.base !== undefined) return exportOntoBase(line, stdout, stderr);
    const meshFile = required(line, 'mesh');
    const skeletonFile = required(line, 'skeleton');
    const weightsFile = required(line, 'weights');
    const out = required(line, 'out');
    const format = outputExtension(out, ['glb', 'gltf']);
    const influences = influencesOption(values.influences);
    const weightComponent = (values['weight-type'] ?? GLTF_EXPORT_DEFAULTS.weightComponent) as GltfWeightComponent;
    if (!WEIGHT_TYPES.includes(weightComponent)) {
      throw new UsageError(`--weight-type must be ${WEIGHT_TYPES.join(', ')}; not "${values['weight-type']}"`);
    }

    if (values.rbf !== undefined && values.examples === undefined) throw new UsageError('--rbf applies with --examples only');
    if ((values.translations !== undefined || values.times !== undefined) && values.poses === undefined)
      throw new UsageError('--translations and --times apply with --poses only');
    if (values.scales !== undefined && values.poses === undefined) throw new UsageError('--scales applies with --poses only');
    const kernel = rbfOption(values.rbf);
    const compression = compressionOption(values.compress);

    const { mesh, meshRead, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
    const asset = objAsset(meshRead, meshFile, (warning) => stderr.write(`rigwright: warning: ${warning}\n`));
    // The glTF `rigwright import` read this OBJ from, when it says so: its losses become notices.
    const source = importedSource(meshFile, (warning) => stderr.write(`rigwright: warning: ${warning}\n`));
    const examples = values.examples === undefined ? [] : readExamples(values.examples, mesh, boneCount);
    let poseSpace: GltfPoseSpace | undefined;
    if (examples.length > 0) {
      const interpolator = examplesInterpolator(examples, boneCount, kernel);
      // Unposed through the influences the file stores, so that the player's LBS inverts exactly.
      const influenceSet = influencesFromWeights(weights, influences);
      poseSpace = {
        names: examples.map((e) => e.name),
        displacements: exampleDisplacements(mesh.positions, examples, skeleton, influenceSet, 'lbs', 'per-vertex', stderr),
        interpolator,
      };
    }
    const read = {
      skeleton,
      weights,
      clips: freshClips(values, skeleton, boneCount, stderr),
      boneNames: namesBeside(skeletonFile, boneCount),
    };
    // Connector bones (rigwright import's, for bones that start away from their parent's end) are no joints in glTF;
    // examples pose every bone of the file, so with them the skeleton stays as it is.
    const { rig, removed } = examples.length === 0 ? withoutConnectorBones(read) : { rig: read, removed: [] };
    if (removed.length > 0) {
      const listed = removed.slice(0, 8).map((b) => JSON.stringify(printableLine(read.boneNames?.[b] ?? `bone ${b}`, 80)));
      stderr.write(
        `rigwright: warning: ${skeletonFile}: ${removed.length} connector bone${removed.length === 1 ? '' : 's'} (${listed.join(', ')}${removed.length > 8 ? ', …' : ''}: no weight, at rest in every pose) left out of the joints; ${removed.length === 1 ? 'its children hang' : 'their children hang'} on ${removed.length === 1 ? 'its parent' : 'their parents'}\n`,
      );
    }
    const { clips } = rig;
    const basename = path.basename(out).replace(/\.gltf$/i, '');
    const result = await exportGltf(
      {
        mesh,
        normals: vertexNormals(mesh.positions, mesh.triangles),
        ...rig,
        poseSpace,
        name: path.basename(meshFile).replace(/\.[^.]*$/, ''),
        ...asset,
        ...(source ? { source } : {}),
      },
      out,
      { format: format === 'glb' ? 'glb' : 'gltf', influences, weightComponent, basename, compression },
    );
    for (const warning of result.warnings) stderr.write(`rigwright: warning: ${out}: ${warning}\n`);
    // One set, the .bin before the .gltf that refers to it: a failure leaves the old pair as it was.
    const files = resourceTargets(path.dirname(out), result.resources, out);
    files.push({ path: out, contents: result.bytes });
    writeFiles(files, true);
    const written = [out, ...files.slice(0, -1).map((f) => f.path)];
    stdout.write(
      `wrote ${written.join(' and ')}: ${vertexCount} vertices${asset.parts && asset.parts.length > 1 ? ` in ${asset.parts.length} meshes` : ''}${asset.look ? `, ${asset.look.materials.length} material${asset.look.materials.length === 1 ? '' : 's'}` : ''}, ${rig.skeleton.parents.length} joints, ${clips.length} animation${clips.length === 1 ? '' : 's'}, up to ${influences} influences per vertex (${weightComponent} weights${compression === 'none' ? '' : `, ${compression}-compressed`})${examples.length > 0 ? `, ${examples.length} example morph target${examples.length === 1 ? '' : 's'} (${kernel} RBF weights)` : ''}\n`,
    );
    return 0;
  },
};

/**
 * What an OBJ brings besides its vertices, as the app keeps it: its objects and groups as meshes, its vt/vn, and
 * the materials of its `mtllib` files (next to the OBJ) with their `map_Kd` images (next to the library; a path
 * that is not there is also looked for by its base name there), through the app's objLook. Like a glTF's URIs,
 * these names are read only inside the OBJ's folder (referencedPath; no symbolic link out of it): a library named
 * outside it is not read, with a warning; an image path outside it (often a Windows exporter's absolute path) is
 * looked for by its base name next to the library.
 */
function objAsset(
  read: Extract<RigFile, { kind: 'mesh' }>,
  meshFile: string,
  warn: (warning: string) => void,
): Pick<GltfRig, 'parts' | 'look' | 'objCorners'> {
  const asset: Pick<GltfRig, 'parts' | 'look' | 'objCorners'> = {};
  if (read.corners) asset.objCorners = read.corners;
  const libraries = read.materialLibraries ?? [];
  const files: BatchFile[] = [];
  const folder = path.dirname(meshFile);
  /** The file at `relative` inside the OBJ's folder; null when it is not there, or (with a warning) leads out. */
  const tryRead = (name: string, relative: string): Uint8Array | null => {
    let source: string;
    try {
      source = resourceFile(folder, { uri: name, path: relative }, meshFile);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      warn(error.message);
      return null;
    }
    try {
      return readBytes(source);
    } catch {
      return null;
    }
  };
  for (const library of libraries) {
    const libraryPath = referencedPath(library, '');
    if (typeof libraryPath !== 'string') {
      warn(`${meshFile}: mtllib ${quoted(library)} ${libraryPath.reason}; it is not read`);
      continue;
    }
    const bytes = tryRead(library, libraryPath);
    if (!bytes) continue;
    files.push({ name: library, bytes });
    let maps: string[] = [];
    try {
      maps = readMtl(new TextDecoder().decode(bytes), library).materials.flatMap((m) => (m.diffuseMap ? [m.diffuseMap] : []));
    } catch {
      // objLook reports the library's error.
    }
    const libraryFolder = libraryPath.includes('/') ? libraryPath.slice(0, libraryPath.lastIndexOf('/')) : '';
    for (const map of new Set(maps)) {
      const exact = referencedPath(map, libraryFolder);
      const byName = referencedPath(baseName(map), libraryFolder);
      const image = (typeof exact === 'string' ? tryRead(map, exact) : null) ?? (typeof byName === 'string' ? tryRead(map, byName) : null);
      if (image && !files.some((f) => f.name === map)) files.push({ name: map, bytes: image });
    }
  }
  const look = objLook(
    [{ name: meshFile, materials: read.materials ?? [], materialLibraries: libraries, parts: read.parts ?? null }],
    files,
  );
  for (const warning of look.warnings) warn(warning);
  if (look.look) asset.look = look.look;
  if (look.parts[0]) asset.parts = look.parts[0];
  return asset;
}

/**
 * The fresh export's clips: one per --poses file (a comma-separated list), with the --translations and --times file
 * at the same place in theirs (an empty entry: none), each named after its file: `NAME-pose-CLIP.dmat`, as
 * `rigwright import` writes them, gives the clip CLIP back; another file name without `.dmat`.
 */
function freshClips(values: CommandLine['values'], skeleton: Skeleton, boneCount: number, stderr: CliStreams['stderr']): GltfClip[] {
  if (values.poses === undefined) return [];
  const list = (value: string | undefined): (string | undefined)[] =>
    value === undefined ? [] : value.split(',').map((entry) => entry || undefined);
  const poseFiles = list(values.poses);
  const translationFiles = list(values.translations);
  const timeFiles = list(values.times);
  const scaleFiles = list(values.scales);
  for (const [option, files] of [
    ['--translations', translationFiles],
    ['--times', timeFiles],
    ['--scales', scaleFiles],
  ] as const)
    if (files.length > 0 && files.length !== poseFiles.length)
      throw new UsageError(`${option} lists ${files.length} files for ${poseFiles.length} --poses files (leave an entry empty for none)`);
  const clips: GltfClip[] = [];
  poseFiles.forEach((file, k) => {
    if (file === undefined) throw new UsageError(`--poses entry ${k + 1} is empty`);
    const poses = readPoses(file, translationFiles[k], boneCount, timeFiles[k], {
      skeleton,
      warn: (warning) => stderr.write(`rigwright: warning: ${warning}\n`),
    });
    const stem = path.basename(file).replace(/\.dmat$/i, '');
    const name = /-pose-(.+)$/.exec(stem)?.[1] ?? stem;
    if (clips.some((clip) => clip.name === name)) throw new UsageError(`two --poses files give the clip name "${name}"`);
    const scalesFile = scaleFiles[k];
    if (scalesFile === undefined) clips.push({ name, poses });
    else {
      if (poses.kind !== 'matrices') throw new UsageError(`--scales needs rotation-matrix poses; ${file} holds final-pose quaternions`);
      const matrix = readMatrix(scalesFile, 'a joint scales file');
      clips.push({ name, poses, scales: scalesFromDmat(matrix, poses.boneCount, poses.frameCount, scalesFile) });
    }
  });
  return clips;
}

/** The bone names of the names file beside the TGF (`S.names`, one per bone), or undefined when there is none. */
function namesBeside(skeletonFile: string, boneCount: number): string[] | undefined {
  const namesFile = boneNamesFileFor(skeletonFile);
  if (!existsSync(namesFile)) return undefined;
  return parseBoneNames(new TextDecoder().decode(readBytes(namesFile)), namesFile, boneCount);
}

/**
 * `export --base B.glb`: B imported as `rigwright import` reads it, the given weights, skeleton heads and poses put
 * in its place, and B written back in place (workers/formats/gltf-edit.ts). Bones past B's joints (the connector
 * bones `import` adds to its TGF) must carry no weight; their poses are left out.
 */
async function exportOntoBase(line: CommandLine, stdout: CliStreams['stdout'], stderr: CliStreams['stderr']): Promise<number> {
  const { values } = line;
  const baseFile = values.base!;
  const out = required(line, 'out');
  const format = outputExtension(out, ['glb', 'gltf']);
  for (const option of ['mesh', 'examples', 'rbf'] as const)
    if (values[option] !== undefined) throw new UsageError(`--${option} does not apply with --base (the base file has the mesh)`);
  const influences = influencesOption(values.influences);
  const weightComponent = (values['weight-type'] ?? GLTF_EXPORT_DEFAULTS.weightComponent) as GltfWeightComponent;
  if (!WEIGHT_TYPES.includes(weightComponent))
    throw new UsageError(`--weight-type must be ${WEIGHT_TYPES.join(', ')}; not "${values['weight-type']}"`);
  const compression = compressionOption(values.compress);

  const bytes = readBytes(baseFile);
  const resources: Record<string, Uint8Array> = {};
  for (const resource of gltfResources(bytes, baseFile)) {
    const source = resourceFile(path.dirname(baseFile), resource, baseFile);
    try {
      resources[resource.uri] = readBytes(source);
    } catch (error) {
      stderr.write(`rigwright: warning: ${baseFile}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  const rig = await importGltf(bytes, path.basename(baseFile), resources);
  const vertexCount = rig.mesh.positions.length / 3;
  const boneCount = rig.skeleton.parents.length;

  // The TGF's bone count: B's joints, plus the connector bones `import` appended.
  let skeleton = rig.skeleton;
  let fileBones = boneCount;
  if (values.skeleton !== undefined) {
    const tgf = readSkeleton(values.skeleton);
    fileBones = tgf.parents.length;
    if (fileBones < boneCount)
      throw new FormatError(
        values.skeleton,
        '',
        `${fileBones} bones; ${baseFile} has ${boneCount} joints, which its bones 0–${boneCount - 1} must be`,
      );
    const joints = rig.skeleton.joints.slice();
    for (let b = 0; b < boneCount; b++) {
      const from = 3 * tgf.bones[2 * b];
      joints.set(tgf.joints.subarray(from, from + 3), 3 * rig.skeleton.bones[2 * b]);
    }
    skeleton = { ...rig.skeleton, joints };
  }
  let weights = rig.weights;
  if (values.weights !== undefined) {
    const matrix = readMatrix(values.weights, 'skinning weights');
    const columns = matrix.cols === boneCount || values.skeleton === undefined ? boneCount : fileBones;
    const read = weightsFromDmat(matrix, vertexCount, columns, values.weights);
    for (const warning of read.warnings) stderr.write(`rigwright: warning: ${values.weights}: ${warning}\n`);
    weights = firstColumns(read.weights, boneCount, values.weights);
  }
  const clips: GltfClip[] = [...rig.clips];
  if (values.poses !== undefined) {
    const read = readPoses(values.poses, values.translations, fileBones, values.times);
    const poses = firstBones(read, boneCount);
    let name = path.basename(values.poses).replace(/\.dmat$/i, '');
    while (clips.some((clip) => clip.name === name)) name = `${name} (edited)`;
    if (values.scales === undefined) clips.push({ name, poses });
    else {
      if (read.kind !== 'matrices')
        throw new UsageError(`--scales needs rotation-matrix poses; ${values.poses} holds final-pose quaternions`);
      const all = scalesFromDmat(readMatrix(values.scales, 'a joint scales file'), fileBones, read.frameCount, values.scales);
      const scales = new Float64Array(read.frameCount * boneCount);
      for (let f = 0; f < read.frameCount; f++) scales.set(all.subarray(f * fileBones, f * fileBones + boneCount), f * boneCount);
      clips.push({ name, poses, scales });
    }
  } else if (values.translations !== undefined || values.times !== undefined) {
    throw new UsageError('--translations and --times apply with --poses only');
  } else if (values.scales !== undefined) {
    throw new UsageError('--scales applies with --poses only');
  }
  const basename = path.basename(out).replace(/\.gltf$/i, '');
  const result = await exportGltfInPlace(
    { source: rig.gltfSource, mesh: rig.mesh, skeleton, weights, boneNames: rig.boneNames, clips, parts: rig.parts },
    out,
    { format: format === 'glb' ? 'glb' : 'gltf', influences, weightComponent, basename, compression },
  );
  for (const warning of result.warnings) stderr.write(`rigwright: warning: ${out}: ${warning}\n`);
  // The base's images at their URIs (subfolders made), checked inside the output's folder before anything is written.
  const files = resourceTargets(path.dirname(out), result.resources, out);
  files.push({ path: out, contents: result.bytes });
  writeFiles(files, true);
  stdout.write(
    `wrote ${[out, ...files.slice(0, -1).map((f) => f.path)].join(' and ')}: ${baseFile} edited in place, ${vertexCount} vertices in ${rig.parts.length} mesh${rig.parts.length === 1 ? '' : 'es'}, ${boneCount} joints, ${clips.length} animation${clips.length === 1 ? '' : 's'}\n`,
  );
  return 0;
}

/** The first `count` columns of a weight matrix; the others (connector bones) must be zero. */
function firstColumns(m: DenseMatrix, count: number, file: string): DenseMatrix {
  if (m.cols === count) return m;
  const data = new Float64Array(m.rows * count);
  for (let r = 0; r < m.rows; r++) {
    for (let c = count; c < m.cols; c++)
      if (m.data[r * m.cols + c] !== 0)
        throw new FormatError(
          file,
          `row ${r + 1}`,
          `weight on bone ${c}, which is not a joint of the base file (bones 0–${count - 1} are)`,
        );
    data.set(m.data.subarray(r * m.cols, r * m.cols + count), r * count);
  }
  return { rows: m.rows, cols: count, data };
}

/** A pose sequence for its first `count` bones (connector bones stay at rest and have no joint in glTF). */
function firstBones(seq: PoseSequence, count: number): PoseSequence {
  const B = seq.boneCount;
  if (B === count) return seq;
  if (seq.kind === 'quaternions') return { kind: 'quaternions', boneCount: count, final: seq.final.slice(0, 4 * count) };
  const rotations = new Float64Array(9 * count * seq.frameCount);
  const translations = seq.translations ? new Float64Array(3 * count * seq.frameCount) : undefined;
  for (let f = 0; f < seq.frameCount; f++) {
    rotations.set(seq.rotations.subarray(9 * B * f, 9 * (B * f + count)), 9 * count * f);
    translations?.set(seq.translations!.subarray(3 * B * f, 3 * (B * f + count)), 3 * count * f);
  }
  return {
    kind: 'matrices',
    boneCount: count,
    frameCount: seq.frameCount,
    rotations,
    translations,
    ...(seq.times ? { times: seq.times } : {}),
  };
}

/**
 * --compress NAME: one of the write step's compressions (WRITE_COMPRESSIONS); absent: GLTF_EXPORT_DEFAULTS.compression.
 * @throws UsageError naming the option and the value when it is not one of them
 */
function compressionOption(text: string | undefined): GltfCompression {
  const compression = (text ?? GLTF_EXPORT_DEFAULTS.compression) as GltfCompression;
  if (!WRITE_COMPRESSIONS.includes(compression)) throw new UsageError(`--compress must be ${WRITE_COMPRESSIONS.join(', ')}; not "${text}"`);
  return compression;
}

/**
 * --influences K: the most bones per vertex, one of MAX_INFLUENCE_CHOICES (1 … 8) as the app's Max influences takes;
 * absent: GLTF_EXPORT_DEFAULTS.influences.
 * @throws UsageError naming the option and the value when it is not one of them
 */
function influencesOption(text: string | undefined): number {
  if (text === undefined) return GLTF_EXPORT_DEFAULTS.influences;
  const count = Number(text);
  if (!/^\d+$/.test(text) || !(MAX_INFLUENCE_CHOICES as readonly number[]).includes(count))
    throw new UsageError(`--influences must be a whole number from 1 to 8, not "${text}"`);
  return count;
}
