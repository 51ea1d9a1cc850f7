/**
 * What the last binding did, line by line, each line with the scene vertices it speaks of (for its Select): which
 * shells (connected parts of the welded mesh) the last Compute bound by which method — surface harmonic, volumetric,
 * bound rigidly to a bone, or left unbound — and why auto chose it, what the volumetric binding had to make up (bones
 * left out or outside the mesh, vertices from the nearest voxel), how many vertices it welded into how many, and how
 * many vertices of the last weight transfer were matched, inpainted or had no match. No DOM: the Bind panel shows it,
 * the one place that says which method bound which shell. The shells are the bind's own weld's (the one its method was
 * chosen on), not welded again.
 */
import type { MeshPart, TriangleMesh } from '../../workers/formats/types.ts';
import type { WeldGroups } from '../../workers/weights/bind-mesh.ts';
import type { UnhandledComponent } from '../../workers/weights/harmonic-weights.ts';
import type { VolumetricWeightsResult } from '../../workers/weights/volumetric-weights.ts';
import { TRANSFER_CATEGORIES, type TransferRecord } from '../meshes/last-transfer.ts';
import { countOf, formatCount } from '../project/plain-number.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import type { BindingController } from './binding-controller.ts';

/** One line of the report and the vertices it is about. */
export interface SummaryLine {
  /**
   * what the line counts: a binding method, a note on the bind (why auto chose the method, what the volumetric binding
   * made up; no vertices), the welded vertices, or a transfer outcome
   */
  kind: 'surface' | 'volumetric' | 'rigid' | 'unbound' | 'note' | 'welded' | 'matched' | 'inpainted' | 'nearest';
  text: string;
  /** #V of the scene, 1 for each vertex the line speaks of */
  vertices: Uint8Array;
  /** how many vertices are 1 in `vertices` */
  count: number;
}

/** The last Compute, as the binding controller keeps it. */
export interface LastCompute {
  /** the mesh of the scene it bound, or null: the whole scene */
  part: MeshPart | null;
  method: 'surface' | 'volumetric';
  /** the surface solve's parts without handles, their first vertex in scene numbering */
  unhandledComponents: readonly UnhandledComponent[];
  /** whether those parts were bound rigidly to their nearest bone (else left at weight 0) */
  boundRigidly: boolean;
  /** the weld distance it ran with, mesh units */
  weldTolerance: number;
  /** the bound mesh welded (the part's own vertex numbers), as the bind welded it */
  weld: WeldGroups;
  /** #W the shell of each welded vertex */
  shellOf: Int32Array;
  /** why auto chose the method ('' when the method was given) */
  reason: string;
  /** the volumetric binding's result (its bones left out or outside the mesh, its vertices from the nearest voxel) */
  volumetric: VolumetricWeightsResult | null;
}

/**
 * The report's lines for the last Compute (null: none while its weights are the scene's) and the last transfer.
 * @param mesh       the scene's mesh (#V vertices)
 * @param last       the last Compute, or null
 * @param transfer   the last transfer's outcome, or null
 * @param boneNames  #B names for the bones bound rigidly to
 */
export function bindingSummary(
  mesh: TriangleMesh,
  last: LastCompute | null,
  transfer: TransferRecord | null,
  boneNames: readonly string[],
): SummaryLine[] {
  const n = mesh.positions.length / 3;
  const lines: SummaryLine[] = last ? computeLines(n, last, boneNames) : [];
  if (transfer && transfer.status.length === n) {
    for (const category of TRANSFER_CATEGORIES) {
      const vertices = Uint8Array.from(transfer.status, (s) => (s === category.status ? 1 : 0));
      const count = transfer.counts[category.key];
      if (count === 0 && category.key === 'nearest') continue;
      lines.push({
        kind: category.key,
        text: `Transfer from ${transfer.source} to ${transfer.target}: ${countOf(count, 'vertex', 'vertices')} ${category.key === 'nearest' ? 'with no match (their closest points’ weights)' : category.label}`,
        vertices,
        count,
      });
    }
  }
  return lines;
}

function computeLines(n: number, last: LastCompute, boneNames: readonly string[]): SummaryLine[] {
  const start = last.part?.vertexStart ?? 0;
  const { weld, shellOf } = last;
  const count = weld.index.length;
  const shellCount = shellOf.reduce((most, shell) => Math.max(most, shell + 1), 0);
  const shells = { count: shellCount, labels: shellOf };
  // Each shell's fate: the method, or the unhandled part's (rigid to its bone, or unbound).
  const fate: string[] = new Array<string>(shells.count).fill(last.method);
  for (const c of last.unhandledComponents) {
    const local = c.firstVertex - start;
    if (local < 0 || local >= count) continue;
    fate[shells.labels[weld.index[local]]] = last.boundRigidly && c.nearestBone >= 0 ? `rigid:${c.nearestBone}` : 'unbound';
  }
  const groups = new Map<string, { vertices: Uint8Array; count: number; shells: Set<number> }>();
  for (let v = 0; v < count; v++) {
    const shell = shells.labels[weld.index[v]];
    let group = groups.get(fate[shell]);
    if (!group) groups.set(fate[shell], (group = { vertices: new Uint8Array(n), count: 0, shells: new Set() }));
    group.vertices[start + v] = 1;
    group.count++;
    group.shells.add(shell);
  }
  const where = last.part ? ` of ${last.part.name}` : '';
  const lines: SummaryLine[] = [];
  const order = (key: string) => (key === 'surface' || key === 'volumetric' ? 0 : key.startsWith('rigid:') ? 1 : 2);
  for (const [key, group] of [...groups].sort((a, b) => order(a[0]) - order(b[0]))) {
    const size = `${countOf(group.shells.size, 'shell')}${where}, ${countOf(group.count, 'vertex', 'vertices')}`;
    const [kind, text]: [SummaryLine['kind'], string] =
      key === 'surface'
        ? ['surface', `Surface harmonic weights: ${size}`]
        : key === 'volumetric'
          ? ['volumetric', `Volumetric weights: ${size}`]
          : key === 'unbound'
            ? ['unbound', `Left unbound (no handles, weight 0): ${size}`]
            : ['rigid', `Bound rigidly to ${boneNames[Number(key.slice(6))] ?? `bone ${key.slice(6)}`} (no handles): ${size}`];
    lines.push({ kind, text, vertices: group.vertices, count: group.count });
  }
  for (const text of notesOf(last, boneNames)) lines.push({ kind: 'note', text, vertices: new Uint8Array(n), count: 0 });
  // The vertices that share a place with another: they were one vertex for the solve.
  const welded = new Uint8Array(n);
  let members = 0;
  let groupsOfMany = 0;
  for (let w = 0; w < weld.count; w++) {
    const size = weld.memberStart[w + 1] - weld.memberStart[w];
    if (size < 2) continue;
    groupsOfMany++;
    members += size;
    for (let k = weld.memberStart[w]; k < weld.memberStart[w + 1]; k++) welded[start + weld.members[k]] = 1;
  }
  lines.push({
    kind: 'welded',
    text:
      members > 0
        ? `Welded: ${countOf(members, 'vertex', 'vertices')}${where} at the same place bound as ${formatCount(groupsOfMany)}`
        : `Welded: none${where} (no two vertices at one place)`,
    vertices: welded,
    count: members,
  });
  return lines;
}

/** Why auto chose the method, and what the volumetric binding made up, as sentences. */
function notesOf(last: LastCompute, boneNames: readonly string[]): string[] {
  const notes = last.reason ? [last.reason.charAt(0).toUpperCase() + last.reason.slice(1)] : [];
  const volumetric = last.volumetric;
  if (!volumetric) return notes;
  const names = (bones: readonly number[]) => bones.map((b) => boneNames[b] ?? `bone ${b}`).join(', ');
  if (volumetric.bonesLeftOut.length > 0)
    notes.push(`Left out (weight 0; mostly outside the mesh, they carry their children): ${names(volumetric.bonesLeftOut)}`);
  if (volumetric.bonesOutsideSolid.length > 0)
    notes.push(`Outside the mesh, bound from the nearest voxels: ${names(volumetric.bonesOutsideSolid)}`);
  if (volumetric.verticesFromNearestVoxel > 0)
    notes.push(
      `${countOf(volumetric.verticesFromNearestVoxel, 'vertex', 'vertices')} in shells no bone reaches took their weights from the nearest voxels bones reach`,
    );
  return notes;
}

/** What the binding report reads of the app. */
export interface BindingSummaryHost {
  readonly store: { readonly doc: SceneDocument };
  /** the last Compute, while its weights are the scene's */
  readonly binding: Pick<BindingController, 'lastResult'>;
  readonly lastTransfer: { readonly record: TransferRecord | null };
}

/**
 * The report's lines now, worked out again only when the mesh, the bone names, the last Compute or the last transfer
 * changed.
 * @returns a function giving the lines
 */
export function bindingSummaryOf(host: BindingSummaryHost): () => SummaryLine[] {
  let cached: { doc: SceneDocument; last: object | null; transfer: object | null; lines: SummaryLine[] } | null = null;
  return () => {
    const doc = host.store.doc;
    const last = host.binding.lastResult;
    const transfer = host.lastTransfer.record;
    if (
      cached &&
      cached.doc.mesh === doc.mesh &&
      cached.doc.boneNames === doc.boneNames &&
      cached.last === last &&
      cached.transfer === transfer
    )
      return cached.lines;
    const compute: LastCompute | null = last && {
      part: last.part,
      method: last.method,
      unhandledComponents: last.method === 'surface' ? last.result.unhandledComponents : [],
      boundRigidly: last.boundRigidly,
      weldTolerance: last.weldTolerance,
      weld: last.weld,
      shellOf: last.shellOf,
      reason: last.reason,
      volumetric: last.method === 'volumetric' ? last.result : null,
    };
    const lines = bindingSummary(doc.mesh, compute, transfer, boneNamesOf(doc));
    cached = { doc, last, transfer, lines };
    return lines;
  };
}

/** What the report's command uses: the selection, and the lines as the Bind panel shows them (one bindingSummaryOf). */
export interface BindingSummaryCommandsHost {
  readonly binding: { selectVertices(inside: Uint8Array, combine: 'replace'): void };
  bindingSummary(): SummaryLine[];
}

export function bindingSummaryCommands(host: BindingSummaryCommandsHost): HandlersFor<'bind.selectReported'> {
  return {
    'bind.selectReported': {
      run: (index) => {
        const shown = host.bindingSummary();
        if (index >= shown.length)
          throw new Error(`the binding report has ${shown.length} line${shown.length === 1 ? '' : 's'}; there is no line ${index}`);
        host.binding.selectVertices(shown[index].vertices.slice(), 'replace');
        return shown[index].count;
      },
    },
  };
}
