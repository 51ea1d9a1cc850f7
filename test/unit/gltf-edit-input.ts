/** The in-place export's input for an imported glTF left as it was read (tests add their edits to it). */
import type { GltfEdit } from '../../workers/formats/gltf-edit.ts';
import type { GltfImportResult } from '../../workers/formats/gltf-import.ts';

export function editOf(rig: GltfImportResult): GltfEdit {
  return { source: rig.gltfSource, mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, clips: rig.clips, parts: rig.parts };
}
