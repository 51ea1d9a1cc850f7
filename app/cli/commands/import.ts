/** `rigwright import`: mesh, skeleton, weights and poses from a rigged glTF, as OBJ, TGF and DMAT files. */
import path from 'node:path';
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { FormatError, printableLine } from '../../../workers/formats/format-error.ts';
import { importGltf } from '../../../workers/formats/gltf-import.ts';
import { boneNameProblem, formatBoneNames } from '../../../workers/formats/bone-names.ts';
import { gltfJson, gltfResources } from '../../../workers/formats/gltf-resource-uris.ts';
import { clipScales, scalesToDmat } from '../../../workers/formats/gltf/clip-scales.ts';
import { freshExportLosses } from '../../../workers/formats/gltf/fresh-losses.ts';
import { writeObj } from '../../../workers/formats/obj.ts';
import { writeMtl, type MtlWriteMaterial } from '../../../workers/formats/mtl.ts';
import { poseSequenceToDmat, translationsToDmat } from '../../../workers/formats/pose-file.ts';
import { tgfWithConnectors, writeTgf } from '../../../workers/formats/tgf.ts';
import type { DenseMatrix, MaterialLook } from '../../../workers/formats/types.ts';
import { withRestBones } from '../../../workers/rig/pose-sequence.ts';
import { AtomicWriteError, makeFoldersSync } from '../../atomic-write.ts';
import { resourceFile } from '../../asset-resources.ts';
import { readBytes, required, UsageError, writeFiles, type CliCommand } from '../cli-support.ts';
import { importedFromLine } from '../imported-source.ts';

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'mesh, skeleton, weights and poses from a rigged glTF',
  usage: `Usage: rigwright import A.glb|A.gltf --out-dir D

Reads a rigged glTF (a .gltf finds its .bin files and images in its folder: a URI that leads out of it, by \`..\`,
an absolute path or a symbolic link, is refused) and writes into D:
  NAME.obj                 every mesh node (skinned or not, of every skin) as an object, in the bind pose, in
                           the file's node order, with its texture coordinates and normals (the meshes and their
                           vertex ranges are listed on the output too), usemtl per object when it has materials;
                           its first line, a comment \`# imported from "../A.glb"\`, records the source's path,
                           relative to the OBJ's folder, so that a fresh \`export\` from these files can name what
                           it leaves out of A, as import does here
  NAME.mtl                 the materials (base colour as Kd, alpha as d, the base colour image as map_Kd)
  NAME-texture-K.png|jpg   material K's base colour image, as the glTF holds it
  NAME.names               the bones' names, one a line in TGF bone order (the joints' names, then each connector
                           bone's), which \`export\` reads beside NAME.tgf
  NAME.tgf                 one bone per joint of every skin (the first skin's in its order), from its joint to its
                           child joint
  NAME-weights.dmat        #vertices × #bones weights (rows sum to 1)
  NAME-pose-CLIP.dmat      per animation: relative rotations, 3·B·L × 3, one frame per key time of the clip
  NAME-translations-CLIP.dmat  per animation whose joints move (root motion): start-joint translations, B·L × 3
  NAME-times-CLIP.dmat     per animation: its key times in seconds, L × 1 (\`export --times\` keys the clip there)
  NAME-scales-CLIP.dmat    per animation whose joints scale: each joint's uniform scale, B·L × 1 (\`export --scales\`)
What the rig cannot hold (scale animation, morph targets, …) and what MTL cannot say (a colour tinting its image,
texture transforms, alpha cutoff) is reported as a warning, and so is what these files, and so a fresh \`export\`
from them, leave out: vertex colours, texture coordinate sets past the first, the file's tangents, cameras, lights
and the animation of nodes that are not joints. \`rigwright export --base\` writes such files back into the glTF,
which keeps all of these, its materials, textures and UVs.

  --out-dir DIR    output folder (created when missing)
  -h, --help       this help
`,
  options: { 'out-dir': 'string' },
  allowPositionals: true,

  async run(line, { stdout, stderr }) {
    const { positionals } = line;
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no glTF file given' : 'give one glTF file');
    const file = positionals[0];
    const outDir = required(line, 'out-dir');
    const bytes = readBytes(file);
    const resources: Record<string, Uint8Array> = {};
    for (const resource of gltfResources(bytes, file)) {
      const source = resourceFile(path.dirname(file), resource, file);
      try {
        resources[resource.uri] = readBytes(source);
      } catch (error) {
        // Missing images are fine (the rig needs none); a missing buffer fails in the importer, which names it.
        stderr.write(`rigwright: warning: ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    // The folder before the import's work: a file in its place, or a place where the system allows no folder (/proc),
    // fails now, in words. A file refused above made none.
    try {
      makeFoldersSync(outDir);
    } catch (error) {
      if (error instanceof AtomicWriteError) throw new FormatError(outDir, '', `cannot create the folder: ${error.reason}`);
      throw error;
    }
    const rig = await importGltf(bytes, path.basename(file), resources);
    for (const warning of rig.warnings) stderr.write(`rigwright: warning: ${file}: ${warning}\n`);
    // What neither these files nor a fresh export from them can hold (the same notices such an export gives).
    for (const loss of freshExportLosses(gltfJson(bytes, file), file)) stderr.write(`rigwright: warning: ${loss}\n`);

    const base = fileNamePart(rig.name, 'model');
    const { tgf, connectedBones } = tgfWithConnectors(rig.skeleton, `${base}.tgf`);
    const boneCount = rig.skeleton.parents.length;
    const extra = connectedBones.length;
    if (extra > 0) {
      const listed = connectedBones
        .slice(0, 4)
        .map((b) => `${b} (${printableLine(rig.boneNames[b], 80)})`)
        .join(', ');
      stderr.write(
        `rigwright: warning: ${base}.tgf: ${extra} bones start away from their parent's end (bones ${listed}${extra > 4 ? ', …' : ''}); TGF says parents only by shared joints, so each has a connector bone from its parent's end (bones ${boneCount}–${boneCount + extra - 1}: no weight, at rest in the pose files)\n`,
      );
    }
    const weights = extra === 0 ? rig.weights : padColumns(rig.weights, boneCount + extra);
    // Every output is written as one set: a failure halfway leaves the previous import's files as they were.
    const outputs: { path: string; contents: string | Uint8Array }[] = [];
    const write = (name: string, contents: string | Uint8Array): void => {
      outputs.push({ path: path.join(outDir, name), contents });
    };
    // Materials as an MTL library next to the OBJ: base colour and alpha, the base colour image as a file.
    const materials = rig.look.materials.length > 0 ? mtlOf(rig.look.materials, base) : null;
    const obj = writeObj(rig.mesh, {
      parts: rig.parts,
      uvs: rig.look.uvs,
      normals: rig.normals,
      materials: materials && { library: `${base}.mtl`, names: materials.names },
    });
    write(`${base}.obj`, `${importedFromLine(path.join(outDir, `${base}.obj`), file)}\n${obj}`);
    if (materials) {
      for (const warning of materials.warnings) stderr.write(`rigwright: warning: ${base}.mtl: ${warning}\n`);
      write(`${base}.mtl`, writeMtl(materials.library));
      for (const image of materials.images) write(image.name, image.bytes);
    }
    write(`${base}.tgf`, writeTgf(tgf));
    write(`${base}-weights.dmat`, writeDmatAscii(weights));
    const names = namesFileNames(rig.boneNames, connectedBones);
    for (const warning of names.warnings) stderr.write(`rigwright: warning: ${base}.names: ${warning}\n`);
    write(`${base}.names`, formatBoneNames(names.names));
    const used = new Set<string>();
    rig.clips.forEach((clip, i) => {
      let part = fileNamePart(clip.name, `clip${i}`);
      if (used.has(part)) part = `${part}-${i}`;
      used.add(part);
      const poses = withRestBones(clip.poses, extra);
      write(`${base}-pose-${part}.dmat`, writeDmatAscii(poseSequenceToDmat(poses)));
      const translations = translationsToDmat(poses);
      if (translations) write(`${base}-translations-${part}.dmat`, writeDmatAscii(translations));
      if (poses.kind === 'matrices' && poses.times)
        write(`${base}-times-${part}.dmat`, writeDmatAscii({ rows: poses.frameCount, cols: 1, data: poses.times }));
      const scales = clipScales(clip.poses, [...rig.skeleton.parents, ...connectedBones.map((b) => rig.skeleton.parents[b])]);
      if (scales) write(`${base}-scales-${part}.dmat`, writeDmatAscii(scalesToDmat(scales)));
    });
    writeFiles(outputs);
    const written = outputs.map((o) => o.path);
    stdout.write(
      `read ${file}: ${rig.mesh.positions.length / 3} vertices, ${rig.mesh.triangles.length / 3} triangles, ${rig.skeleton.parents.length} bones, ${rig.clips.length} animations\n${rig.parts.map((part) => `mesh ${printableLine(part.name, 200)}: vertices ${part.vertexStart}–${part.vertexStart + part.vertexCount - 1}${part.skinned ? '' : ` (${unskinnedRule(rig.weights, part.vertexStart, rig.boneNames)})`}\n`).join('')}${written.map((w) => `wrote ${w}\n`).join('')}`,
    );
    return 0;
  },
};

/**
 * The look's materials as MTL materials (unique names, the base colour as Kd and d, metallic and roughness as Pm and
 * Pr; the base colour image as a file
 * `BASE-texture-K.png|jpg` (or the image's own type) for map_Kd, where Kd is then white as the image is the colour).
 */
function mtlOf(
  materials: readonly MaterialLook[],
  base: string,
): { names: string[]; library: MtlWriteMaterial[]; images: { name: string; bytes: Uint8Array }[]; warnings: string[] } {
  const names: string[] = [];
  const warnings: string[] = [];
  const images: { name: string; bytes: Uint8Array }[] = [];
  const library = materials.map((material, k): MtlWriteMaterial => {
    let name = material.name.trim() || `material ${k}`;
    if (names.includes(name)) name = `${name} ${k}`;
    names.push(name);
    const texture = material.baseColorTexture;
    let diffuseMap: string | null = null;
    if (texture) {
      const kind = /^image\/([a-z0-9]+)$/.exec(texture.mimeType)?.[1] ?? 'bin';
      diffuseMap = `${base}-texture-${k}.${kind === 'jpeg' ? 'jpg' : kind}`;
      images.push({ name: diffuseMap, bytes: texture.bytes });
      if (kind !== 'png' && kind !== 'jpeg')
        warnings.push(
          `material '${name}': its image is ${texture.mimeType || 'of no stated type'}; most OBJ readers read PNG and JPEG only`,
        );
    }
    const [r, g, b, a] = material.baseColor;
    if (texture && (r !== 1 || g !== 1 || b !== 1))
      warnings.push(`material '${name}': its colour (${[r, g, b].join(', ')}) tints its image in glTF; OBJ readers take the image alone`);
    if (material.textureTransform || material.alphaMode === 'MASK')
      warnings.push(
        `material '${name}': MTL cannot say its ${material.textureTransform ? 'texture transform' : 'alpha cutoff'}; it is left out`,
      );
    const pbr = {
      ...(material.metallic !== undefined ? { metallic: material.metallic } : {}),
      ...(material.roughness !== undefined ? { roughness: material.roughness } : {}),
    };
    return { name, diffuse: texture ? [1, 1, 1] : [r, g, b], alpha: a, diffuseMap, ...pbr };
  });
  return { names, library, images, warnings };
}

/** A file name part from a clip or mesh name: letters, digits, - and _ only. */
export function fileNamePart(name: string, fallback: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_');
  // Trimmed by index: the pattern /_+$/ tries every `_` of a long run and takes time quadratic in its length.
  let start = 0;
  let end = cleaned.length;
  while (start < end && cleaned.charCodeAt(start) === 95) start++;
  while (end > start && cleaned.charCodeAt(end - 1) === 95) end--;
  return cleaned.slice(start, end) || fallback;
}

/**
 * How a mesh without a skin moves (gltf-import.ts's rule), from the weight row of its first vertex: rigidly with the
 * one bone it is bound to (its nearest ancestor joint), or not at all when it has no weight (no joint above it).
 */
function unskinnedRule(weights: DenseMatrix, vertex: number, boneNames: readonly string[]): string {
  const row = weights.data.subarray(vertex * weights.cols, (vertex + 1) * weights.cols);
  const bone = row.indexOf(1);
  return bone >= 0
    ? `unskinned, rigid: follows joint ${printableLine(boneNames[bone], 200)}`
    : 'unskinned, static: no joint above it, stays at rest';
}

/** The matrix with zero columns appended up to `cols`. */
function padColumns(m: DenseMatrix, cols: number): DenseMatrix {
  const data = new Float64Array(m.rows * cols);
  for (let r = 0; r < m.rows; r++) data.set(m.data.subarray(r * m.cols, (r + 1) * m.cols), r * cols);
  return { rows: m.rows, cols, data };
}

/**
 * The names file's names: each joint's name, then `connector to NAME` for each connector bone (after `connected`, the
 * bones they lead to, in order). A name a names file cannot hold (empty, a line break) becomes `bone_K`, and a name
 * an earlier bone has gets ` (K)` after it, K the bone's index; each such change is a warning.
 */
function namesFileNames(boneNames: readonly string[], connected: readonly number[]): { names: string[]; warnings: string[] } {
  const names: string[] = [];
  const renamed: string[] = [];
  const taken = new Set<string>();
  [...boneNames, ...connected.map((b) => `connector to ${boneNames[b]}`)].forEach((wanted, k) => {
    let name = boneNameProblem(wanted) === null ? wanted : `bone_${k}`;
    for (let again = 0; taken.has(name); again++) name = `${name} (${again === 0 ? k : again})`;
    if (name !== wanted) renamed.push(`bone ${k} ${JSON.stringify(printableLine(wanted, 80))} as ${JSON.stringify(name)}`);
    taken.add(name);
    names.push(name);
  });
  const warnings =
    renamed.length > 0
      ? [
          `${renamed.length} bone name${renamed.length === 1 ? '' : 's'} the file cannot hold as ${renamed.length === 1 ? 'it is' : 'they are'} (empty, a line break, or another bone's): ${renamed.slice(0, 4).join(', ')}${renamed.length > 4 ? ', …' : ''}`,
        ]
      : [];
  return { names, warnings };
}
