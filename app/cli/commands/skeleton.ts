/**
 * `rigwright skeleton`: a new skeleton for a mesh, from joint positions and parents (JSON) or from a template fitted
 * to marker positions (workers/rig/), written as TGF with its names file, or as a project with the mesh.
 */
import path from 'node:path';
import { boneNamesFileFor, formatBoneNames } from '../../../workers/formats/bone-names.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { defaultProjectSettings, writeProjectFile } from '../../../workers/formats/project-file.ts';
import { writeTgf } from '../../../workers/formats/tgf.ts';
import { replaceSkeleton, skeletonFromJointTree, type NamedSkeleton } from '../../../workers/rig/skeleton-build.ts';
import { fitTemplate, TEMPLATE_MARKERS, TemplateFitError, type TemplateKind } from '../../../workers/rig/template-rig.ts';
import type { Vec3 } from '../../../workers/rig/volume-ray.ts';
import { projectSceneOf, projectSettingsOf } from '../../../workers/scene/project-document.ts';
import { bareDocument, boneCountOf, vertexCountOf } from '../../../workers/scene/scene-document.ts';
import { SceneStore } from '../../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../../workers/scene/undo-history.ts';
import { outputExtension, readJsonFile, readMeshFile, UsageError, writeFiles, type CliCommand } from '../cli-support.ts';

const TEMPLATES: readonly TemplateKind[] = ['humanoid', 'quadruped'];

export const skeletonCommand: CliCommand = {
  name: 'skeleton',
  summary: 'a new skeleton for a mesh: from joints and parents, or a template fitted to markers',
  usage: `Usage: rigwright skeleton MESH (--joints J.json | --template KIND --markers M.json [--fingers])
                          [--out S.tgf] [--project P.rig.glb]

Makes a skeleton for the mesh (.obj or .off) and writes it as TGF with its names file, or as a project with the
mesh (provisional weights by bone distance, ready to bind in the app), or both.

  --joints FILE      JSON {"joints": [[x, y, z], …], "parents": [p, …], "names": ["…", …]}: one parent joint index
                     per joint (-1 for a root); each joint with a parent gets one bone from its parent to it, named
                     by its entry of the optional "names" (default \`bone <index>\`), in joint order
  --template KIND    humanoid or quadruped: a named skeleton fitted inside the mesh from the markers, symmetric
  --markers FILE     JSON {"MARKER": [x, y, z], …}: points on the mesh's surface (within 1 % of its size), as
                     placed in a front view; optional "view" (the direction the view looks along, default
                     [0, 0, -1]) and "up" (default [0, 1, 0]). Markers: humanoid ${TEMPLATE_MARKERS.humanoid.map((m) => m.id).join(', ')};
                     quadruped ${TEMPLATE_MARKERS.quadruped.map((m) => m.id).join(', ')}
  --fingers          humanoid: three bones for each finger and thumb
  --out FILE         the skeleton as .tgf, and its bone names beside it (S.names, one name per line, in bone order)
  --project FILE     a project (.rig.glb) with the mesh and the skeleton
  -h, --help         this help
`,
  options: { joints: 'string', template: 'string', markers: 'string', fingers: 'boolean', out: 'string', project: 'string' },
  allowPositionals: true,

  async run(line, { stdout }) {
    const { positionals, values, flags } = line;
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no mesh given' : 'give one mesh');
    const meshFile = positionals[0];
    const { joints, template, markers, out, project } = values;
    if ((joints === undefined) === (template === undefined)) throw new UsageError('give either --joints or --template');
    if (joints !== undefined && (markers !== undefined || flags.has('fingers')))
      throw new UsageError('--markers and --fingers go with --template, not --joints');
    if (template !== undefined && !TEMPLATES.includes(template as TemplateKind))
      throw new UsageError(`--template must be humanoid or quadruped, not "${template}"`);
    if (template !== undefined && markers === undefined) throw new UsageError('--template needs --markers M.json');
    if (flags.has('fingers') && template !== 'humanoid') throw new UsageError('--fingers goes with --template humanoid');
    if (out === undefined && project === undefined) throw new UsageError('give --out S.tgf, --project P.rig.glb or both');
    if (out !== undefined) outputExtension(out, ['tgf']);
    if (project !== undefined) outputExtension(project, ['glb']);

    const read = readMeshFile(meshFile);
    let skeleton: NamedSkeleton;
    let source: string;
    if (joints !== undefined) {
      skeleton = skeletonFromJointTree(readJsonFile(joints) as Parameters<typeof skeletonFromJointTree>[0], joints);
      source = path.basename(joints);
    } else {
      const kind = template as TemplateKind;
      const { points, view, up } = readMarkers(markers!, kind);
      try {
        skeleton = fitTemplate(read.mesh, kind, points, { fingers: flags.has('fingers'), view, up });
      } catch (error) {
        if (error instanceof TemplateFitError) throw new FormatError(markers!, '', error.message);
        throw error;
      }
      source = `${kind} template`;
    }
    const boneCount = skeleton.bones.length / 2;
    const lines = [`${boneCount} bones, ${skeleton.joints.length / 3} joints (${source})`];

    const files: { path: string; contents: string | Uint8Array }[] = [];
    if (out !== undefined) {
      const namesFile = boneNamesFileFor(out);
      files.push({ path: namesFile, contents: formatBoneNames(skeleton.names) }, { path: out, contents: writeTgf(skeleton) });
      lines.push(`wrote ${out} and ${namesFile}`);
    }
    if (project !== undefined) {
      const name = path.basename(meshFile);
      const bare = bareDocument({
        name,
        mesh: read.mesh,
        warnings: read.report.warnings.map((w) => `${name}: ${w}`),
        parts: read.parts ?? undefined,
        objCorners: read.corners ?? undefined,
      });
      const store = new SceneStore(bare, new UndoHistory());
      const skeletonFile = out === undefined ? source : path.basename(out);
      const edit = replaceSkeleton(bare, skeleton, skeletonFile, `Skeleton from ${source}`);
      store.edit(edit.label, edit.fields);
      const doc = store.doc;
      const settings = projectSettingsOf(doc, defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc)));
      files.push({ path: project, contents: await writeProjectFile({ scene: projectSceneOf(doc), settings }, path.basename(project)) });
      lines.push(`wrote ${project}`);
    }
    writeFiles(files);
    stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
};

/**
 * The markers file: an object of marker positions by id, with optional `view` and `up` directions.
 * @throws FormatError naming the file and the key for a value that is not three finite numbers or a key that is no
 *         marker of the template (missing markers are named by fitTemplate)
 */
function readMarkers(file: string, kind: TemplateKind): { points: Record<string, Vec3>; view?: Vec3; up?: Vec3 } {
  const value = readJsonFile(file);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FormatError(file, '', 'expected an object of marker positions: {"chin": [x, y, z], …}');
  const ids = new Set(TEMPLATE_MARKERS[kind].map((m) => m.id));
  const points: Record<string, Vec3> = {};
  let view: Vec3 | undefined;
  let up: Vec3 | undefined;
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(entry) || entry.length !== 3 || !entry.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new FormatError(file, key, 'must be three finite numbers [x, y, z]');
    const point = entry as unknown as Vec3;
    if (key === 'view') view = point;
    else if (key === 'up') up = point;
    else if (ids.has(key)) points[key] = point;
    else throw new FormatError(file, key, `is no marker of the ${kind} template (${[...ids].join(', ')}; also view, up)`);
  }
  return { points, view, up };
}
