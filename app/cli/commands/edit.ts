/**
 * `rigwright edit`: changes a project as the app does — each edit one step of the scene store on the document opened
 * from the project (workers/scene/: the same weight edits as the paint panel's commands, bit for bit) — and writes
 * the project back with its settings.
 */
import path from 'node:path';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { isProjectFile, readProjectFile, writeProjectFile } from '../../../workers/formats/project-file.ts';
import { normalizeWeightRows } from '../../../workers/formats/weights-file.ts';
import { mirrorVertexMap, type MirrorVertexMap } from '../../../workers/paint/mirror-vertex-map.ts';
import { vertexOneRing, type VertexOneRing } from '../../../workers/paint/vertex-one-ring.ts';
import { BoneEditError, deleteBone, renameBone, type BoneEdit } from '../../../workers/rig/bone-edits.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../../workers/scene/project-document.ts';
import { boneCountOf, errorMessage, vertexCountOf, type SceneDocument } from '../../../workers/scene/scene-document.ts';
import {
  boneScaleEdit,
  limitTotalEdit,
  mirrorToleranceOf,
  mirrorWeightsEdit,
  normalizeWeightsEdit,
  paintLockEdit,
  pruneWeightsEdit,
  SceneEditError,
  smoothBoneEdit,
  type SceneEdit,
  type WeightEditOptions,
} from '../../../workers/scene/scene-edits.ts';
import { SceneStore } from '../../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../../workers/scene/undo-history.ts';
import {
  outputExtension,
  parseNumber,
  parseOptionSequence,
  readBytes,
  required,
  UsageError,
  writeFile,
  type CliCommand,
  type OptionUse,
} from '../cli-support.ts';

/** How many values each option takes (0: a flag). */
const ARITY: Readonly<Record<string, number>> = {
  out: 1,
  mesh: 1,
  'max-influences': 1,
  normalize: 0,
  limit: 0,
  prune: 1,
  smooth: 1,
  mirror: 1,
  'bone-scale': 4,
  lock: 1,
  unlock: 1,
  'rename-bone': 2,
  'delete-bone': 1,
};

/** The options that are edits, applied in the order given; the others are settings of the whole run. */
const EDITS = new Set(['normalize', 'limit', 'prune', 'smooth', 'mirror', 'bone-scale', 'lock', 'unlock', 'rename-bone', 'delete-bone']);

/** The edits that change weights as the app's paint panel does: the weights are painted after them. */
const WEIGHT_PAINT_EDITS = new Set(['normalize', 'limit', 'prune', 'smooth', 'mirror']);

/** An edit as given, checked as far as the command line alone allows (bones are looked up in the project). */
type EditRequest =
  | { kind: 'normalize' | 'limit' }
  | { kind: 'prune'; threshold: number }
  | { kind: 'smooth' | 'lock' | 'unlock' | 'delete-bone'; bone: string }
  | { kind: 'mirror'; axis: 0 | 1 | 2; side: -1 | 1 }
  | { kind: 'bone-scale'; bone: string; scale: [number, number, number] }
  | { kind: 'rename-bone'; bone: string; name: string };

export const editCommand: CliCommand = {
  name: 'edit',
  summary: 'edit a project: weights (normalize, limit, prune, smooth, mirror), locks and bones',
  usage: `Usage: rigwright edit IN.rig.glb [edits…] [--mesh NAME]… [--max-influences K] --out OUT.rig.glb

Opens a Rigwright project, applies the edits in the order given, each as the app applies it (the weight edits
give the very weights of the paint panel's commands: locked bones keep their weights, rows keep at most the
influence limit), as one undo step, and writes the project with its settings to OUT (which may be IN).

Edits (any number, in order; BONE is a bone's name or else its number from 0, as the scene is at that edit):
  --normalize          every vertex's weights to sum 1 around the locked bones
  --limit              every vertex keeps at most the influence limit of non-zero weights
  --prune T            unlocked weights below T (in [0, 1]) become 0, rows renormalized
  --smooth BONE        smooth one bone's weights over the mesh (10 steps, factor 0.5)
  --mirror AXIS        x, y or z with + or - (x means x+): x+ copies the weights of the -x side onto the +x side,
                       each bone taken by its mirrored bone (by name, else by position), x- the other way
  --lock BONE          the weight edits after it (and painting in the app) keep the bone's weights
  --unlock BONE        undoes --lock, or a lock saved in the project
  --bone-scale BONE X Y Z  the bone's local scale about its start joint (positive numbers)
  --rename-bone BONE NAME  a new name for the bone (unique; a scene without names gets \`bone 0\`, \`bone 1\`, …)
  --delete-bone BONE   the bone goes; its weights go to its parent (a root's to its first child), its children
                       hang from its parent, every bone after it is numbered one less
Settings:
  --mesh NAME          weight edits change the vertices of this mesh only (repeat for several); default all
  --max-influences K   the influence limit (a whole number ≥ 0, 0 = none), saved with the project; default the
                       project's
  --out FILE           output, .glb (a project is named NAME.rig.glb)
  -h, --help           this help
`,
  options: {},
  allowPositionals: true,
  parse: (args) => parseOptionSequence(args, ARITY),

  async run(line, { stdout, stderr }) {
    const { positionals } = line;
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no project given' : 'give one project');
    const file = positionals[0];
    const out = required(line, 'out');
    outputExtension(out, ['glb']);
    const requests = (line.sequence ?? []).filter((use) => EDITS.has(use.name)).map(editRequest);
    if (requests.length === 0) throw new UsageError('no edit given');
    const meshNames = (line.sequence ?? []).filter((use) => use.name === 'mesh').map((use) => use.values[0]);
    const maxInfluences = line.values['max-influences'] === undefined ? undefined : wholeNumber(line.values['max-influences']);

    const bytes = readBytes(file);
    if (!isProjectFile(bytes)) throw new FormatError(file, '', 'not a Rigwright project (a .glb the app saved as a project)');
    const read = readProjectFile(bytes, file);
    for (const notice of read.notices) stderr.write(`rigwright: warning: ${notice}\n`);
    let doc: SceneDocument;
    try {
      doc = documentFromProject(read.scene, read.settings);
    } catch (error) {
      throw new FormatError(file, '', errorMessage(error));
    }
    const history = new UndoHistory();
    const store = new SceneStore(doc, history);
    const editor = new ProjectEditor(file, {
      maxInfluences: maxInfluences ?? read.settings.paint.maxInfluences,
      vertexMask: meshMask(doc, meshNames, file),
    });
    const lines: string[] = [];
    let applied = 0;
    let selectedBone = read.settings.view.selectedBone;
    // The status line's ", painted": kept while the weights stay, set by a weights edit, gone with other new weights.
    let weightsPainted = read.scene.weightsPainted === true;
    const applyAll = (): void => {
      for (const request of requests) {
        const edit = editor.edit(store.doc, request);
        if (!edit) {
          lines.push(`--${request.kind}: changed nothing`);
          continue;
        }
        const weightsBefore = store.doc.weights;
        store.edit(edit.label, edit.fields);
        if (WEIGHT_PAINT_EDITS.has(request.kind)) weightsPainted = true;
        else if (store.doc.weights !== weightsBefore) weightsPainted = false;
        // The selected bone the project saves follows its bone when the bones are numbered anew (gone: none).
        if ('newIndexOf' in edit && edit.newIndexOf && selectedBone >= 0) selectedBone = edit.newIndexOf[selectedBone] ?? -1;
        applied++;
        lines.push(`${edit.label}${'vertices' in edit && edit.vertices !== undefined ? `: ${edit.vertices} vertices changed` : ''}`);
      }
    };
    // All the edits are one step, as a script's are in the app.
    history.group(`Edit ${path.basename(file)}`, applyAll);

    const settings = projectSettingsOf(store.doc, {
      ...read.settings,
      view: { ...read.settings.view, selectedBone },
      paint: { ...read.settings.paint, maxInfluences: editor.options.maxInfluences! },
    });
    writeFile(out, await writeProjectFile({ scene: projectSceneOf(store.doc, weightsPainted), settings }, path.basename(out)));
    // A row whose locked weights sum below 1 with nothing unlocked beside them stays short of 1, in the app as here;
    // opening the project normalizes it (the reader's check, run on a copy), so the user hears of it now.
    const weights = store.doc.weights;
    for (const change of normalizeWeightRows({ ...weights, data: weights.data.slice() }, true))
      stderr.write(
        `rigwright: warning: ${out}: after the edits, ${change} when the project is opened (locked bones left nothing unlocked to take the rest)\n`,
      );
    stdout.write(`${lines.join('\n')}\nwrote ${out}: ${applied} edits\n`);
    return 0;
  },
};

/** Makes each requested edit of the document as it is at that edit; what depends on the mesh alone is made once. */
class ProjectEditor {
  private oneRing: VertexOneRing | undefined;
  private readonly mirrorMaps: (MirrorVertexMap | undefined)[] = [];

  constructor(
    private readonly file: string,
    /** the influence limit and the meshes' vertex mask; the locks are the document's */
    readonly options: WeightEditOptions,
  ) {}

  /**
   * @returns the edit, or null when it changes nothing
   * @throws FormatError naming the project and the option when the document cannot take it
   */
  edit(doc: SceneDocument, request: EditRequest): SceneEdit | BoneEdit | null {
    const { options, file } = this;
    const bone = (text: string): number => boneOf(doc, text, `--${request.kind}`, file);
    try {
      switch (request.kind) {
        case 'normalize':
          return normalizeWeightsEdit(doc, options);
        case 'limit':
          if (options.maxInfluences === 0)
            throw new SceneEditError('the project sets no influence limit (0); give --max-influences K with K ≥ 1');
          return limitTotalEdit(doc, options);
        case 'prune':
          return pruneWeightsEdit(doc, request.threshold, options);
        case 'smooth':
          this.oneRing ??= vertexOneRing(vertexCountOf(doc), doc.mesh.triangles, doc.mesh.positions);
          return smoothBoneEdit(doc, bone(request.bone), options, this.oneRing);
        case 'mirror': {
          const { axis, side } = request;
          const { positions, triangles } = doc.mesh;
          const map = (this.mirrorMaps[axis] ??= mirrorVertexMap(positions, triangles, axis, mirrorToleranceOf(doc)));
          return mirrorWeightsEdit(doc, axis, side, options, map);
        }
        case 'lock':
        case 'unlock':
          return paintLockEdit(doc, bone(request.bone), request.kind === 'lock');
        case 'bone-scale':
          return boneScaleEdit(doc, bone(request.bone), request.scale);
        case 'rename-bone':
          return renameBone(doc, bone(request.bone), request.name);
        case 'delete-bone':
          return deleteBone(doc, bone(request.bone));
      }
    } catch (error) {
      if (error instanceof SceneEditError || error instanceof BoneEditError)
        throw new FormatError(file, '', `--${request.kind}: ${error.message}`);
      throw error;
    }
  }
}

/** An edit option as an edit, its values checked; a bad value is a usage error naming the option. */
function editRequest(use: OptionUse): EditRequest {
  const [first] = use.values;
  switch (use.name) {
    case 'normalize':
    case 'limit':
      return { kind: use.name };
    case 'prune': {
      const threshold = parseNumber(first);
      if (!(threshold >= 0 && threshold <= 1)) throw new UsageError(`--prune must be a number in [0, 1], not "${first}"`);
      return { kind: 'prune', threshold };
    }
    case 'smooth':
    case 'lock':
    case 'unlock':
    case 'delete-bone':
      return { kind: use.name, bone: first };
    case 'rename-bone':
      return { kind: 'rename-bone', bone: first, name: use.values[1] };
    case 'mirror': {
      const match = /^([xyz])([+-]?)$/.exec(first);
      if (!match) throw new UsageError(`--mirror must be x, y or z, optionally followed by + or -, not "${first}"`);
      return { kind: 'mirror', axis: 'xyz'.indexOf(match[1]) as 0 | 1 | 2, side: match[2] === '-' ? -1 : 1 };
    }
    case 'bone-scale': {
      const scale = use.values.slice(1).map(parseNumber);
      if (!scale.every((s) => Number.isFinite(s) && s > 0))
        throw new UsageError(`--bone-scale ${first}: the scale must be three positive numbers, not "${use.values.slice(1).join(' ')}"`);
      return { kind: 'bone-scale', bone: first, scale: scale as [number, number, number] };
    }
    default:
      throw new Error(`edit: no edit --${use.name}`);
  }
}

function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--max-influences must be a whole number ≥ 0, not "${text}"`);
  return Number(text);
}

/**
 * A bone named on the command line: a bone's name (as the project stores it), else its number from 0.
 * @throws FormatError naming the project and the option when the skeleton has no such bone
 */
function boneOf(doc: SceneDocument, text: string, option: string, file: string): number {
  const byName = doc.boneNames?.indexOf(text) ?? -1;
  if (byName >= 0) return byName;
  const B = boneCountOf(doc);
  if (/^\d+$/.test(text) && Number(text) < B) return Number(text);
  const named = doc.boneNames
    ? 'no bone of that name, and not a bone number'
    : 'the skeleton has no bone names, and this is not a bone number';
  throw new FormatError(file, '', `${option} "${text}": ${named} (bones 0–${B - 1})`);
}

/**
 * #V flags of the vertices of the meshes named (the scene's parts), or null for every vertex.
 * @throws FormatError naming the project when a name is no mesh of the scene
 */
function meshMask(doc: SceneDocument, names: readonly string[], file: string): Uint8Array | null {
  if (names.length === 0) return null;
  const parts = doc.parts ?? [{ name: doc.name, vertexStart: 0, vertexCount: vertexCountOf(doc) }];
  const mask = new Uint8Array(vertexCountOf(doc));
  for (const name of names) {
    const part = parts.find((p) => p.name === name);
    if (!part)
      throw new FormatError(
        file,
        '',
        `--mesh "${name}": no mesh of that name (the scene has ${parts.map((p) => `"${p.name}"`).join(', ')})`,
      );
    mask.fill(1, part.vertexStart, part.vertexStart + part.vertexCount);
  }
  return mask;
}
