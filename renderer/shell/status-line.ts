import { boneCountOf, triangleCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { STALE_BINDING_TEXT } from '../bind/binding-controller.ts';
import type { StatusField } from '../panels/app-chrome.ts';
import { countOf } from '../project/plain-number.ts';

export interface StatusInput {
  doc: SceneDocument;
  /** files being read now */
  loadingNames: readonly string[];
  painted: boolean;
  /** 0 = all */
  influenceSetting: number;
  influenceStride: number;
  handles: { count: number; name: string | null };
  selectedBone: number;
  scaled: boolean;
  /** what Undo would undo, or null */
  undoLabel: string | null;
  /** the scene's meshes: how many, the one the tools act on (null: all), how many are hidden */
  meshes?: { count: number; active: string | null; hidden: number };
  /** the overlays on now, each a field that switches it off (scene-bound-state.ts overlayFields) */
  overlays?: readonly StatusField[];
  /** messages shown this session (the notices' list, opened by a click) */
  messages?: number;
  /** what a script running now is doing ('Running script… weights.ts 40%'), or null */
  script?: string | null;
}

/**
 * The status line's fields: a script running (with its progress), files, sizes, the scene's warnings as a count that
 * lists them when clicked, the overlays on (each switched off by a click), the messages shown (listed when clicked),
 * weights and influences (or that they are stale), handles, the bone by name, modes, the undo step.
 */
export function statusParts(s: StatusInput): StatusField[] {
  const { doc } = s;
  const files = [...new Set([...doc.meshFiles, doc.skeletonFile, doc.posesFile].filter((f): f is string => !!f))];
  const parts: StatusField[] = [
    // A script running holds the scene: said first.
    ...(s.script ? [s.script] : []),
    s.loadingNames.length > 0 ? `loading ${s.loadingNames.join(', ')}…` : files.length > 0 ? files.join(' · ') : 'built-in demo',
    `${countOf(vertexCountOf(doc), 'vertex', 'vertices')} · ${countOf(triangleCountOf(doc), 'triangle')} · ${boneCountOf(doc) > 0 ? countOf(boneCountOf(doc), 'bone') : 'no skeleton yet (J builds one)'}`,
    // Near the front: the line keeps to one line, and what comes late may be clipped on a narrow window.
    ...(doc.warnings.length > 0 ? [{ text: countOf(doc.warnings.length, 'warning'), command: 'view.warnings' } as const] : []),
    // An overlay hides the mesh's own colours: said early, where it is not clipped.
    ...(s.overlays ?? []),
    ...(s.messages ? [{ text: countOf(s.messages, 'message'), command: 'view.messages' } as const] : []),
    `weights: ${doc.weightsSource}${s.painted ? ', painted' : ''}`,
    ...(doc.bindingStale ? [STALE_BINDING_TEXT] : []),
    `influences: ${s.influenceSetting === 0 ? `all (${s.influenceStride})` : s.influenceSetting}`,
  ];
  if (s.handles.count > 0)
    parts.push(`handles: ${countOf(s.handles.count, 'vertex', 'vertices')}${s.handles.name ? ` (${s.handles.name})` : ''}`);
  if (s.selectedBone >= 0) {
    const [start, end] = doc.skeleton.bones.subarray(2 * s.selectedBone, 2 * s.selectedBone + 2);
    parts.push(`bone: ${boneNamesOf(doc)[s.selectedBone]} (joint ${start} → ${end})`);
  }
  if (s.meshes && s.meshes.count > 1) {
    const hidden = s.meshes.hidden > 0 ? `, ${s.meshes.hidden} hidden` : '';
    parts.push(`${s.meshes.count} meshes: tools act on ${s.meshes.active ?? 'all'}${hidden}`);
  }
  if (s.scaled) parts.push('scaled bones: DQS with non-rigid joints (two-phase)');
  if (s.undoLabel) parts.push(`undo: ${s.undoLabel}`);
  return parts;
}
