/**
 * `rigwright info`: what each file holds and what is wrong with it; given together, matrices are also checked
 * against the one mesh, the one skeleton and the one rotation-matrix pose file among the files. glTF files are
 * described from their document (meshes, skins and joints, clips with their key counts and rates, materials,
 * extensions) and from what `rigwright import` makes of them.
 */
import path from 'node:path';
import {
  canBeKeyTimes,
  canBeTranslations,
  dmatFits,
  dmatReadings,
  type DmatReading,
  type DmatRole,
} from '../../../workers/formats/dmat-role.ts';
import { canBeJointScales } from '../../../workers/formats/gltf/clip-scales.ts';
import { FormatError, printableLine } from '../../../workers/formats/format-error.ts';
import { importGltf, readCheckedGltf } from '../../../workers/formats/gltf-import.ts';
import { gltfJson, gltfResources } from '../../../workers/formats/gltf-resource-uris.ts';
import { summarizeGltf, type GltfSummary, type KeySpacing } from '../../../workers/formats/gltf-summary.ts';
import { poseSequenceFromDmat, withTranslationsFromDmat } from '../../../workers/formats/pose-file.ts';
import { linesWithoutTrailingBlanks, parseBoneNames } from '../../../workers/formats/bone-names.ts';
import { readRigFile } from '../../../workers/formats/read-file.ts';
import { readMtl, type MtlFile } from '../../../workers/formats/mtl.ts';
import { baseName } from '../../../workers/formats/file-name.ts';
import { poseSequenceFromTransforms } from '../../../workers/formats/transform-animation.ts';
import type { DenseMatrix, MeshFileReport, TriangleMesh } from '../../../workers/formats/types.ts';
import { handlesFromDmat, weightsFromDmat } from '../../../workers/formats/weights-file.ts';
import { boundingBox } from '../../../workers/mesh/bounds.ts';
import { buildSkeleton, type Skeleton } from '../../../workers/rig/skeleton.ts';
import { resourceFile } from '../../asset-resources.ts';
import {
  describeUnexpected,
  EXIT_INTERNAL_ERROR,
  formatNumber,
  MAX_OUTPUT_LINE_CHARACTERS,
  readBytes,
  UsageError,
  type CliCommand,
} from '../cli-support.ts';

export const infoCommand: CliCommand = {
  name: 'info',
  summary: 'what each file holds (counts, hierarchy, bounds) and what is wrong with it',
  usage: `Usage: rigwright info FILE…

Reports for each file what it holds: a mesh (vertices, triangles, bounds), a skeleton (joints, bones, parents,
roots, bounds), a TGF's bone names file (.names), a DMAT matrix (rows × cols and what it can be: weights, poses,
handles, an animation of absolute bone transforms (libigl's 12·B × L, one column per frame), or the start-joint
translations or the key times (L × 1 seconds, what \`rigwright export --times\` reads) or the joint scales (B·L × 1,
what \`rigwright export --scales\` reads) that go with a pose file) or a glTF asset (.glb, or .gltf with its files: meshes with vertex and
triangle counts, skins with their joints, clips with key counts and key rate, materials, extensions used and
required, and what \`rigwright import\` reads from it), and what is wrong with it. Given together, files are also
checked against each other: weights and handles against the mesh and skeleton, poses and names against the skeleton,
translations against the skeleton and the pose file (when exactly one of each is given), key times against the pose
files of the skeleton given (by their frame counts).
Exits with 1 when any file is bad, after reporting all of them (3 when the tool itself failed on one).

  -h, --help       this help
`,
  options: {},
  allowPositionals: true,

  async run({ positionals }, { stdout, stderr }) {
    if (positionals.length === 0) throw new UsageError('no files given');

    const entries: InfoEntry[] = [];
    for (const file of positionals) entries.push(await readInfoEntry(file));
    const context: InfoContext = {};
    const meshes = entries.filter((e) => e.kind === 'mesh');
    const skeletons = entries.filter((e) => e.kind === 'skeleton');
    if (meshes.length === 1) context.mesh = { file: meshes[0].file, vertexCount: meshes[0].mesh.positions.length / 3 };
    if (skeletons.length === 1)
      context.skeleton = { file: skeletons[0].file, boneCount: skeletons[0].skeleton.parents.length, skeleton: skeletons[0].skeleton };
    if (context.skeleton) {
      const boneCount = context.skeleton.boneCount;
      const poseFiles = entries.filter(
        (e) =>
          e.kind === 'matrix' &&
          dmatFits(e.matrix, 'poses', 0, boneCount) &&
          e.matrix.cols === 3 &&
          dmatReadings(e.matrix).some((r) => r.role === 'poses'),
      );
      if (poseFiles.length === 1 && poseFiles[0].kind === 'matrix')
        context.poses = { file: poseFiles[0].file, matrix: poseFiles[0].matrix };
      context.poseFrames = poseFiles.map((e) => ({ file: e.file, frames: e.kind === 'matrix' ? e.matrix.rows / (3 * boneCount) : 0 }));
    }

    let bad = 0;
    let failed = 0;
    for (const entry of entries) {
      let heading: string = entry.kind;
      let lines: string[] = [];
      let error = entry.kind === 'unreadable' ? entry.error : undefined;
      if (entry.kind === 'mesh') lines = describeMesh(entry.mesh, entry.report);
      if (entry.kind === 'skeleton') lines = describeSkeleton(entry.skeleton);
      if (entry.kind === 'materials') lines = describeMaterials(entry.file, entry.library, meshes);
      if (entry.kind === 'image') lines = describeImage(entry.file, entry.bytes, entries);
      if (entry.kind === 'names') {
        heading = 'bone names';
        try {
          lines = describeBoneNames(entry.text, entry.file, context.skeleton);
        } catch (failure) {
          if (!(failure instanceof FormatError)) throw failure;
          error = failure;
        }
      }
      if (entry.kind === 'gltf') {
        heading = 'glTF';
        lines = entry.lines;
        error = entry.error;
      }
      if (entry.kind === 'matrix') {
        const m = entry.matrix;
        heading = `matrix ${m.rows} × ${m.cols}`;
        const readings = dmatReadings(m);
        const translations = canBeTranslations(m);
        const keyTimes = canBeKeyTimes(m);
        const scales = canBeJointScales(m);
        lines = readings.map((r) => `could be ${describeReading(r)}`);
        if (translations)
          lines.push(`could be start-joint translations for ${m.rows} bone-frames (B·L × 3, with a pose file of L frames of B bones)`);
        if (keyTimes)
          lines.push(
            `could be the key times of a clip of ${m.rows} frame${m.rows === 1 ? '' : 's'}, ${formatNumber(m.data[0], 6)}–${formatNumber(m.data[m.rows - 1], 6)} s (L × 1 seconds, increasing): rigwright export --times takes it with a pose file of ${m.rows} frame${m.rows === 1 ? '' : 's'}`,
          );
        if (scales)
          lines.push(
            `could be joint scales for ${m.rows} bone-frames, ${formatNumber(Math.min(...m.data), 6)}–${formatNumber(Math.max(...m.data), 6)} (B·L × 1, with a pose file of L frames of B bones): rigwright export --scales takes it`,
          );
        if (lines.length === 0)
          lines.push(
            'fits nothing Rigwright reads (weights #V × #B, poses 3·B·L × 3 or 4B × 1, handles #V × 1, animation 12·B × L, translations B·L × 3, key times L × 1)',
          );
        try {
          // Key times of whole seconds are handles in shape too: only a reading the files given fit is checked then.
          const vertexCount = context.mesh?.vertexCount ?? 0;
          const boneCount = context.skeleton?.boneCount ?? 0;
          // So are joint scales: a column of positive numbers is weights or handles in shape.
          const checked = keyTimes || scales ? readings.filter((r) => dmatFits(m, r.role, vertexCount, boneCount)) : readings;
          try {
            lines.push(...checkAgainstContext(m, entry.file, checked, context));
          } catch (failure) {
            // Key times whose count is the mesh's vertex count are handles in shape; the handle reader's reason is told.
            if (!((keyTimes || scales) && failure instanceof FormatError)) throw failure;
            lines.push(`as anything but ${keyTimes ? 'key times' : 'joint scales'} it does not fit the files given: ${failure.message}`);
          }
          if (translations && !readings.some((r) => canCheck(r.role, context))) lines.push(...checkTranslations(m, entry.file, context));
          if (keyTimes) lines.push(...checkKeyTimes(m, context));
          if (scales) lines.push(...checkJointScales(m, context));
        } catch (failure) {
          if (!(failure instanceof FormatError)) throw failure;
          error = failure;
        }
      }
      if (error) {
        bad++;
        if (entry.kind === 'unreadable' && entry.internal) failed++;
        stderr.write(`rigwright: ${error.message}\n`);
        lines.push(`error: ${error.message}`);
      }
      // Line by line: a name from the file that holds a line break cannot start a line of its own.
      stdout.write(`${shownLine(entry.file)}: ${heading}\n${lines.map((line) => `  ${shownLine(line)}\n`).join('')}`);
    }
    if (bad > 0) stdout.write(`bad files: ${bad} of ${entries.length}\n`);
    return failed > 0 ? EXIT_INTERNAL_ERROR : bad > 0 ? 1 : 0;
  },
};

/** A file read for `info`, with what it is for the cross-checks. */
type InfoEntry =
  /** `internal`: the tool failed on it (not the file's fault); the other files are reported all the same */
  | { file: string; kind: 'unreadable'; error: FormatError; internal?: boolean }
  /** `libraries`: the OBJ's mtllib files as written */
  | { file: string; kind: 'mesh'; mesh: TriangleMesh; report: MeshFileReport; libraries: readonly string[] }
  | { file: string; kind: 'skeleton'; skeleton: Skeleton }
  | { file: string; kind: 'matrix'; matrix: DenseMatrix }
  /** a bone names file, its text: read against the skeleton when one is given with it */
  | { file: string; kind: 'names'; text: string }
  /** an OBJ's material library: checked against the OBJ given with it */
  | { file: string; kind: 'materials'; library: MtlFile }
  /** an image a material library may name (`rigwright import` writes the base colour images) */
  | { file: string; kind: 'image'; bytes: Uint8Array }
  /** described already; `error` when Rigwright cannot import it (the description says what it holds regardless) */
  | { file: string; kind: 'gltf'; lines: string[]; error?: FormatError };

async function readInfoEntry(file: string): Promise<InfoEntry> {
  try {
    if (/\.(glb|gltf)$/i.test(file)) return await readGltfEntry(file);
    if (/\.mtl$/i.test(file)) return { file, kind: 'materials', library: readMtl(new TextDecoder().decode(readBytes(file)), file) };
    if (/\.(png|jpe?g|webp|ktx2)$/i.test(file)) return { file, kind: 'image', bytes: readBytes(file) };
    const read = readRigFile(file, readBytes(file));
    switch (read.kind) {
      case 'mesh':
        return { file, kind: 'mesh', mesh: read.mesh, report: read.report, libraries: read.materialLibraries ?? [] };
      case 'skeleton':
        return { file, kind: 'skeleton', skeleton: buildSkeleton(read.skeleton, file) };
      case 'matrix':
        return { file, kind: 'matrix', matrix: read.matrix };
      case 'names':
        return { file, kind: 'names', text: read.text };
    }
  } catch (error) {
    if (error instanceof FormatError) return { file, kind: 'unreadable', error };
    return { file, kind: 'unreadable', error: new FormatError(file, '', `failed: ${describeUnexpected(error)}`), internal: true };
  }
}

/**
 * A names file: checked against the one skeleton given with it (count, empty and repeated names), else only for empty
 * and repeated names.
 * @throws FormatError from parseBoneNames
 */
function describeBoneNames(text: string, file: string, skeleton: InfoContext['skeleton']): string[] {
  if (skeleton) {
    const names = parseBoneNames(text, file, skeleton.boneCount);
    const shown = `${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`;
    return [`${names.length} names, one for each bone of ${skeleton.file}`, `first: ${shown}`];
  }
  const names = parseBoneNames(text, file, linesWithoutTrailingBlanks(text).length);
  return [`${names.length} names (give the skeleton with it to check them against its bones)`];
}

/** An MTL library: its materials, and which OBJ given names it in its `mtllib`. */
function describeMaterials(file: string, library: MtlFile, meshes: readonly InfoEntry[]): string[] {
  const lines = [
    `${library.materials.length} material${library.materials.length === 1 ? '' : 's'}`,
    ...library.materials.map(
      (m) =>
        `material "${m.name}": colour (${(m.diffuse ?? [1, 1, 1]).map((c) => formatNumber(c, 4)).join(', ')}), alpha ${formatNumber(m.alpha, 4)}${m.diffuseMap ? `, image ${m.diffuseMap}` : ''}`,
    ),
  ];
  const users = meshes.filter((e) => e.kind === 'mesh' && e.libraries.some((l) => baseName(l) === baseName(file))).map((e) => e.file);
  if (users.length > 0) lines.push(`fits ${users.join(', ')}: its materials (mtllib), which export and the app read`);
  lines.push(...library.warnings.map((w) => `warning: ${w}`));
  return lines;
}

/** An image: its type (by its first bytes) and size, and the materials given that name it. */
function describeImage(file: string, bytes: Uint8Array, entries: readonly InfoEntry[]): string[] {
  const png = bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const jpeg = bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kind = png ? `PNG ${view.getUint32(16)} × ${view.getUint32(20)}` : jpeg ? 'JPEG' : 'an image of another type';
  const lines = [`${kind}, ${bytes.length} bytes`];
  const named = entries.flatMap((e) =>
    e.kind === 'materials'
      ? e.library.materials.filter((m) => m.diffuseMap && baseName(m.diffuseMap) === baseName(file)).map((m) => `"${m.name}" of ${e.file}`)
      : [],
  );
  if (named.length > 0) lines.push(`fits material ${named.join(', ')} as its base colour image (map_Kd)`);
  return lines;
}

/** A line as `info` prints it: printable characters only (printableLine), at most MAX_OUTPUT_LINE_CHARACTERS long. */
function shownLine(line: string): string {
  return printableLine(line, MAX_OUTPUT_LINE_CHARACTERS);
}

function describeReading(reading: DmatReading): string {
  switch (reading.role) {
    case 'poses':
      return reading.layout === 'rotation-matrices'
        ? `rotation-matrix poses: ${reading.rotationCount} rotations = bones × frames`
        : `final-pose quaternions (x y z w) for ${reading.boneCount} bones`;
    case 'handles':
      return `handles for ${reading.vertexCount} vertices: bones 0–${reading.largestBone}, ${reading.freeVertexCount} vertices without a handle`;
    case 'weights':
      return `skinning weights for ${reading.vertexCount} vertices × ${reading.boneCount} bones (rows sum to 1, or 0 for a static vertex)`;
    case 'animation':
      return `an animation of absolute bone transforms: ${reading.frameCount} frames of ${reading.boneCount} bones (12·B × L, one column per frame)`;
  }
}

/** The only mesh, skeleton and rotation-matrix pose file given to `info`, used to check matrices against them. */
interface InfoContext {
  mesh?: { file: string; vertexCount: number };
  skeleton?: { file: string; boneCount: number; skeleton: Skeleton };
  poses?: { file: string; matrix: DenseMatrix };
  /** every rotation-matrix pose file given that fits the skeleton, with its frame count */
  poseFrames?: { file: string; frames: number }[];
}

/**
 * Whether the files given hold what a reading is checked against: poses and animations a skeleton, handles a mesh,
 * weights both.
 */
function canCheck(role: DmatRole, context: InfoContext): boolean {
  if (role === 'poses' || role === 'animation') return context.skeleton !== undefined;
  if (role === 'weights') return context.skeleton !== undefined && context.mesh !== undefined;
  return context.mesh !== undefined;
}

/**
 * Checks a matrix against the mesh and skeleton given alongside it, using the same readers the app uses.
 * @returns lines to report; throws FormatError when the matrix is meant for them (by its shape and values) but fits
 *          neither
 */
function checkAgainstContext(m: DenseMatrix, file: string, readings: DmatReading[], context: InfoContext): string[] {
  const checkable = readings.filter((r) => canCheck(r.role, context));
  if (checkable.length === 0) return [];
  const vertexCount = context.mesh?.vertexCount ?? 0;
  const boneCount = context.skeleton?.boneCount ?? 0;
  const chosen = checkable.find((r) => dmatFits(m, r.role, vertexCount, boneCount)) ?? checkable[0];
  const skeleton = context.skeleton;
  const mesh = context.mesh;
  switch (chosen.role) {
    case 'poses': {
      const seq = poseSequenceFromDmat(m, skeleton!.boneCount, file);
      return [
        seq.kind === 'matrices'
          ? `fits ${skeleton!.file}: ${seq.frameCount} frames of ${seq.boneCount} bones`
          : `fits ${skeleton!.file}: final pose of ${seq.boneCount} bones`,
      ];
    }
    case 'weights': {
      const { warnings, staticRows } = weightsFromDmat(m, mesh!.vertexCount, skeleton!.boneCount, file);
      return [
        `fits ${mesh!.file} and ${skeleton!.file} as skinning weights`,
        ...(staticRows > 0 ? [`${staticRows} vertices have no weight: static, they stay at rest`] : []),
        ...warnings.map((w) => `warning: ${w}`),
      ];
    }
    case 'animation': {
      const { poses, warnings } = poseSequenceFromTransforms(m, skeleton!.skeleton, file);
      const frames = poses.kind === 'matrices' ? poses.frameCount : 1;
      return [
        `fits ${skeleton!.file} as an animation: ${frames} frames of ${poses.boneCount} bones`,
        ...warnings.map((w) => `warning: ${w}`),
      ];
    }
    case 'handles': {
      // Without a skeleton, any bone index is accepted; the shape check against the mesh still applies.
      handlesFromDmat(m, mesh!.vertexCount, skeleton?.boneCount ?? Number.MAX_SAFE_INTEGER, file);
      return [`fits ${mesh!.file}${skeleton ? ` and ${skeleton.file}` : ''} as handles`];
    }
  }
}

/**
 * A matrix that can only be start-joint translations, checked against the skeleton and, when given, the pose file:
 * with both, the pose reader takes it or says why not (a FormatError); with the skeleton alone, B·L rows say L.
 */
function checkTranslations(m: DenseMatrix, file: string, context: InfoContext): string[] {
  const skeleton = context.skeleton;
  if (!skeleton) return [];
  const boneCount = skeleton.boneCount;
  if (context.poses) {
    const seq = withTranslationsFromDmat(m, poseSequenceFromDmat(context.poses.matrix, boneCount, context.poses.file), file);
    const frames = seq.kind === 'matrices' ? seq.frameCount : 1;
    return [`fits ${skeleton.file} and ${context.poses.file} as start-joint translations: ${frames} frames of ${boneCount} bones`];
  }
  return m.rows % boneCount === 0
    ? [`fits ${skeleton.file} as start-joint translations of ${m.rows / boneCount} frames of ${boneCount} bones`]
    : [`does not fit ${skeleton.file} as start-joint translations: ${m.rows} rows are no multiple of ${boneCount} bones`];
}

/**
 * Key times (canBeKeyTimes) against the pose files given with the skeleton: those of as many frames fit. Nothing to
 * say without pose files; a file that fits none of them is said so, not refused (it may be another clip's).
 */
function checkKeyTimes(m: DenseMatrix, context: InfoContext): string[] {
  const poseFiles = context.poseFrames ?? [];
  if (poseFiles.length === 0) return [];
  const fitting = poseFiles.filter((p) => p.frames === m.rows).map((p) => p.file);
  if (fitting.length > 0) return [`fits ${fitting.join(', ')} as key times (rigwright export --poses ${fitting[0]} --times this file)`];
  return [
    `fits none of the pose files given as key times (${poseFiles.map((p) => `${p.file}: ${p.frames} frames`).join(', ')}; this file: ${m.rows})`,
  ];
}

/**
 * Joint scales (canBeJointScales) against the skeleton and the pose files given with it: those of L frames fit a file
 * of B·L rows. Nothing to say without them; a file that fits none is said so, not refused (it may be another clip's).
 */
function checkJointScales(m: DenseMatrix, context: InfoContext): string[] {
  const poseFiles = context.poseFrames ?? [];
  const boneCount = context.skeleton?.boneCount;
  if (poseFiles.length === 0 || !boneCount) return [];
  const fitting = poseFiles.filter((p) => p.frames * boneCount === m.rows).map((p) => p.file);
  if (fitting.length > 0) return [`fits ${fitting.join(', ')} as joint scales (rigwright export --poses ${fitting[0]} --scales this file)`];
  return [
    `fits none of the pose files given as joint scales (${poseFiles.map((p) => `${p.file}: ${p.frames * boneCount} bone-frames`).join(', ')}; this file: ${m.rows})`,
  ];
}

/**
 * A .glb or .gltf (with the files it names, next to it): its description, then what `rigwright import` reads from it
 * and the warnings it gives. A file that cannot be read at all is unreadable; one that reads but does not import
 * (no skinned mesh, say) is described and reported bad with the importer's reason.
 */
async function readGltfEntry(file: string): Promise<InfoEntry> {
  const bytes = readBytes(file);
  const lines: string[] = [];
  const resources: Record<string, Uint8Array> = {};
  for (const resource of gltfResources(bytes, file)) {
    const source = resourceFile(path.dirname(file), resource, file);
    try {
      resources[resource.uri] = readBytes(source);
    } catch (error) {
      lines.push(`warning: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const notices: string[] = [];
  const json = gltfJson(bytes, file);
  const summary = summarizeGltf(await readCheckedGltf(bytes, file, resources, notices), json);
  lines.push(...describeGltf(json as GltfJsonHeader, summary));
  try {
    const rig = await importGltf(bytes, file, resources);
    lines.push(
      `rigwright import reads ${rig.mesh.positions.length / 3} vertices, ${rig.mesh.triangles.length / 3} triangles, ${rig.skeleton.parents.length} bones, ${rig.clips.length} clip${rig.clips.length === 1 ? '' : 's'}`,
    );
    lines.push(`bones (joint order): ${rig.boneNames.join(', ')}`);
    lines.push(
      `meshes: ${rig.parts.map((part) => `${part.name} (${part.vertexCount} vertices${part.skinned ? '' : ', unskinned'})`).join(', ')}`,
    );
    lines.push(...rig.warnings.map((warning) => `warning: ${warning}`));
    return { file, kind: 'gltf', lines };
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    lines.push(...notices.map((notice) => `warning: ${notice}`));
    return { file, kind: 'gltf', lines, error };
  }
}

/** The parts of a glTF's JSON that the document does not keep as written. */
interface GltfJsonHeader {
  asset?: { version?: unknown; generator?: unknown };
  extensionsUsed?: unknown;
  extensionsRequired?: unknown;
}

function describeGltf(json: GltfJsonHeader, summary: GltfSummary): string[] {
  const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const generator = typeof json.asset?.generator === 'string' ? `, generator ${json.asset.generator}` : '';
  const version = typeof json.asset?.version === 'string' ? json.asset.version : '?';
  const lines = [`glTF ${version}${generator}: ${plural(summary.scenes, 'scene')}, ${plural(summary.nodes, 'node')}`];
  const used = list(json.extensionsUsed);
  const required = list(json.extensionsRequired);
  lines.push(used.length > 0 ? `extensions used: ${used.join(', ')}; required: ${required.join(', ') || 'none'}` : 'extensions: none');
  summary.meshes.forEach((mesh, m) => {
    const parts = [
      `${label(mesh.name, 'mesh', m)}: ${mesh.vertices} vert${mesh.vertices === 1 ? 'ex' : 'ices'}, ${plural(mesh.triangles, 'triangle')} in ${plural(mesh.primitives, 'primitive')}`,
    ];
    if (mesh.otherPrimitives > 0) parts.push(`${mesh.otherPrimitives} of them points or lines`);
    parts.push(mesh.attributes.join(' '));
    if (mesh.morphTargets > 0) parts.push(plural(mesh.morphTargets, 'morph target'));
    parts.push(mesh.skins.length > 0 ? `skinned by ${mesh.skins.join(', ')}` : 'not skinned');
    lines.push(parts.join('; '));
  });
  summary.skins.forEach((skin, s) => {
    lines.push(
      `${label(skin.name, 'skin', s)}: ${plural(skin.joints.length, 'joint')}${skin.inverseBindMatrices ? '' : ', no inverse bind matrices'}`,
    );
    skin.joints.forEach((joint, j) =>
      lines.push(`  joint ${j}${joint.name ? ` "${joint.name}"` : ''}${joint.parent < 0 ? ', root' : ` ← joint ${joint.parent}`}`),
    );
  });
  summary.clips.forEach((clip, c) => {
    const paths = Object.entries(clip.paths).map(([name, count]) => `${count} ${name}`);
    const samplers =
      clip.samplerKeys[0] === clip.samplerKeys[1] ? '' : `; samplers hold ${clip.samplerKeys[0]}–${clip.samplerKeys[1]} keys`;
    lines.push(
      `clip ${clip.name ? `"${clip.name}"` : `"animation ${c}"`}: ${plural(clip.keys, 'key')}, ${describeSpacing(clip.spacing)}, ${formatNumber(clip.start, 4)}–${formatNumber(clip.end, 4)} s; ${plural(clip.channels, 'channel')} (${paths.join(', ')}); ${clip.interpolations.join(', ')}${samplers}`,
    );
  });
  summary.materials.forEach((material, m) => {
    const colour = material.baseColorFactor.map((c) => formatNumber(c, 4)).join(', ');
    const texture = material.baseColorTexture ? `, base colour texture (${material.baseColorTexture})` : '';
    const extensions = material.extensions.length > 0 ? `; ${material.extensions.join(', ')}` : '';
    lines.push(`${label(material.name, 'material', m)}: base colour (${colour})${texture}${extensions}`);
  });
  lines.push(`${plural(summary.textures, 'texture')}`);
  return lines;
}

/** `kind "name"`, or `kind k` for an unnamed one. */
function label(name: string, kind: string, index: number): string {
  return name ? `${kind} "${name}"` : `${kind} ${index}`;
}

/** Key spacing as a rate: "24 fps", "on a 30 fps grid with gaps", "irregular", "a still pose". */
function describeSpacing(spacing: KeySpacing): string {
  switch (spacing.kind) {
    case 'still':
      return 'a still pose';
    case 'regular':
      return `${Number(spacing.fps.toFixed(2))} fps`;
    case 'grid':
      return `on a ${Number(spacing.fps.toFixed(2))} fps grid with gaps`;
    case 'irregular':
      return 'irregular';
  }
}

function describeMesh(mesh: TriangleMesh, report: MeshFileReport): string[] {
  const vertexCount = mesh.positions.length / 3;
  const triangleCount = mesh.triangles.length / 3;
  const lines = [`${vertexCount} vertices, ${triangleCount} triangles`, boundsLine(mesh.positions)];
  if (report.polygonsTriangulated > 0) lines.push(`${report.polygonsTriangulated} polygons triangulated`);
  if (report.texcoords > 0 || report.normals > 0)
    lines.push(`${report.texcoords} texture coordinates, ${report.normals} normals (the app's look and export keep them)`);
  const used = new Uint8Array(vertexCount);
  let degenerate = 0;
  for (let f = 0; f < triangleCount; f++) {
    const a = mesh.triangles[3 * f],
      b = mesh.triangles[3 * f + 1],
      c = mesh.triangles[3 * f + 2];
    used[a] = used[b] = used[c] = 1;
    if (a === b || b === c || a === c) degenerate++;
  }
  const unused = vertexCount - used.reduce((sum, u) => sum + u, 0);
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  if (unused > 0) lines.push(`warning: ${unused} vertices are used by no triangle`);
  if (degenerate > 0) lines.push(`warning: ${degenerate} triangles repeat a vertex`);
  return lines;
}

function describeSkeleton(skeleton: Skeleton): string[] {
  const boneCount = skeleton.parents.length;
  const roots: number[] = [];
  for (let b = 0; b < boneCount; b++) if (skeleton.parents[b] < 0) roots.push(b);
  return [
    `${skeleton.joints.length / 3} joints, ${boneCount} bones, ${roots.length} root${roots.length === 1 ? '' : 's'} (bone${roots.length === 1 ? '' : 's'} ${roots.join(', ')})`,
    `parents (bone → parent bone, -1 = root): ${Array.from(skeleton.parents).join(' ')}`,
    boundsLine(skeleton.joints),
  ];
}

function formatPoint(p: ArrayLike<number>): string {
  return `(${formatNumber(p[0], 6)}, ${formatNumber(p[1], 6)}, ${formatNumber(p[2], 6)})`;
}

function boundsLine(positions: Float64Array): string {
  const box = boundingBox(positions);
  return `bounds ${formatPoint(box.min)} to ${formatPoint(box.max)}, diagonal ${formatNumber(box.diagonal, 6)}`;
}
