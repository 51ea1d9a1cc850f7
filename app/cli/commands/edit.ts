/**
 * `rigwright edit`: changes a project as the app does — each edit one step of the scene store on the document opened
 * from the project (workers/scene/: the same weight edits as the paint panel's commands, bit for bit) — and writes
 * the project back with its settings.
 */
import path from 'node:path';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { isProjectFile, readProjectFile, writeProjectFile, type ProjectSettings } from '../../../workers/formats/project-file.ts';
import { normalizeWeightRows } from '../../../workers/formats/weights-file.ts';
import type { MirrorVertexMap } from '../../../workers/paint/mirror-vertex-map.ts';
import type { VertexOneRing } from '../../../workers/paint/vertex-one-ring.ts';
import { vertexOneRing } from '../../../workers/paint/vertex-one-ring.ts';
import { mirrorVertexMap } from '../../../workers/paint/mirror-vertex-map.ts';
import { documentFromProject, projectSceneOf } from '../../../workers/scene/project-document.ts';
import { boneCountOf, errorMessage, vertexCountOf, type SceneDocument } from '../../../workers/scene/scene-document.ts';
import {
  boneScaleEdit,
  limitTotalEdit,
  mirrorToleranceOf,
  mirrorWeightsEdit,
  normalizeWeightsEdit,
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
};

/** The options that are edits, applied in the order given; the others are settings of the whole run. */
const EDITS = new Set(['normalize', 'limit', 'prune', 'smooth', 'mirror', 'bone-scale']);

/** An edit as given, checked as far as the command line alone allows (bones are looked up in the project). */
type EditRequest =
  | { kind: 'normalize' | 'limit' }
  | { kind: 'prune'; threshold: number }
  | { kind: 'smooth'; bone: string }
  | { kind: 'mirror'; axis: 0 | 1 | 2; side: -1 | 1 }
  | { kind: 'bone-scale'; bone: string; scale: [number, number, number] };

export const editCommand: CliCommand = {
  name: 'edit',
  summary: 'edit a project: normalize, limit, prune, smooth, mirror weights, scale bones',
  usage: `Usage: rigwright edit IN.rig.glb [edits…] [--mesh NAME]… [--max-influences K] --out OUT.rig.glb

Opens a Rigwright project, applies the edits in the order given, each as the app applies it (the weight edits
give the very weights of the paint panel's commands: locked bones keep their weights, rows keep at most the
influence limit), and writes the project with its settings to OUT (which may be IN).

Edits (any number, in order; BONE is a bone's name or its number from 0):
  --normalize          every vertex's weights to sum 1 around the locked bones
  --limit              every vertex keeps at most the influence limit of non-zero weights
  --prune T            unlocked weights below T (in [0, 1]) become 0, rows renormalized
  --smooth BONE        smooth one bone's weights over the mesh (10 steps, factor 0.5)
  --mirror AXIS        x, y or z with + or - (x means x+): x+ copies the weights of the -x side onto the +x side,
                       each bone taken by its mirrored bone (by name, else by position), x- the other way
  --bone-scale BONE X Y Z  the bone's local scale about its start joint (positive numbers)
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

    // A plain Uint8Array over the file's Buffer: the project reader copies arrays out with slice(), which on a
    // Node Buffer would share memory instead of copying.
    const fileBuffer = readBytes(file);
    const bytes = new Uint8Array(fileBuffer.buffer, fileBuffer.byteOffset, fileBuffer.byteLength);
    if (!isProjectFile(bytes)) throw new FormatError(file, '', 'not a Rigwright project (a .glb the app saved as a project)');
    const read = readProjectFile(bytes, file);
    for (const notice of read.notices) stderr.write(`rigwright: warning: ${notice}\n`);
    let doc: SceneDocument;
    try {
      doc = documentFromProject(read.scene);
    } catch (error) {
      throw new FormatError(file, '', errorMessage(error));
    }
    const store = new SceneStore(doc, new UndoHistory());
    const settings = read.settings;
    const options: WeightEditOptions = {
      locked: settings.paint.locked,
      maxInfluences: maxInfluences ?? settings.paint.maxInfluences,
      vertexMask: meshMask(doc, meshNames, file),
    };
    // What depends on the mesh alone, made once for every edit that needs it (the mesh never changes here).
    let oneRing: VertexOneRing | undefined;
    const mirrorMaps: (MirrorVertexMap | undefined)[] = [];

    const lines: string[] = [];
    for (const request of requests) {
      const current = store.doc;
      let edit: SceneEdit | null;
      try {
        switch (request.kind) {
          case 'normalize':
            edit = normalizeWeightsEdit(current, options);
            break;
          case 'limit':
            if (options.maxInfluences === 0)
              throw new SceneEditError('the project sets no influence limit (0); give --max-influences K with K ≥ 1');
            edit = limitTotalEdit(current, options);
            break;
          case 'prune':
            edit = pruneWeightsEdit(current, request.threshold, options);
            break;
          case 'smooth':
            oneRing ??= vertexOneRing(vertexCountOf(current), current.mesh.triangles);
            edit = smoothBoneEdit(current, boneOf(current, request.bone, '--smooth', file), options, oneRing);
            break;
          case 'mirror': {
            const { axis, side } = request;
            const map = (mirrorMaps[axis] ??= mirrorVertexMap(
              current.mesh.positions,
              current.mesh.triangles,
              axis,
              mirrorToleranceOf(current),
            ));
            edit = mirrorWeightsEdit(current, axis, side, options, map);
            break;
          }
          case 'bone-scale':
            edit = boneScaleEdit(current, boneOf(current, request.bone, '--bone-scale', file), request.scale);
            break;
        }
      } catch (error) {
        if (error instanceof SceneEditError) throw new FormatError(file, '', `--${request.kind}: ${error.message}`);
        throw error;
      }
      if (!edit) {
        lines.push(`--${request.kind}: changed nothing`);
        continue;
      }
      store.edit(edit.label, edit.fields);
      lines.push(`${edit.label}${edit.vertices === undefined ? '' : `: ${edit.vertices} vertices changed`}`);
    }

    const written: ProjectSettings = {
      ...settings,
      paint: { ...settings.paint, locked: options.locked ?? settings.paint.locked, maxInfluences: options.maxInfluences! },
    };
    writeFile(out, await writeProjectFile({ scene: projectSceneOf(store.doc), settings: written }, path.basename(out)));
    // A row whose locked weights sum below 1 with nothing unlocked beside them stays short of 1, in the app as here;
    // opening the project normalizes it (the reader's check, run on a copy), so the user hears of it now.
    const weights = store.doc.weights;
    for (const change of normalizeWeightRows({ ...weights, data: weights.data.slice() }, true))
      stderr.write(
        `rigwright: warning: ${out}: after the edits, ${change} when the project is opened (locked bones left nothing unlocked to take the rest)\n`,
      );
    stdout.write(`${lines.join('\n')}\nwrote ${out}: ${store.history.undoCount} edits\n`);
    return 0;
  },
};

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
      return { kind: 'smooth', bone: first };
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
