/**
 * What harmonicWeights reports, as sentences for people: shared by the command line and the Bind panel.
 * @param bonesWithoutHandles  bone indices
 * @param unhandled            components without handles (size, nearest bone, first vertex)
 * @param boundRigidly         whether those components were bound to their nearest bone
 */
export function bindingReport(
  bonesWithoutHandles: readonly number[],
  unhandled: readonly { vertexCount: number; nearestBone: number; firstVertex: number }[],
  boundRigidly: boolean,
): string[] {
  const lines: string[] = [];
  if (bonesWithoutHandles.length > 0) {
    lines.push(
      `${bonesWithoutHandles.length === 1 ? 'bone' : 'bones'} ${bonesWithoutHandles.join(', ')} ${bonesWithoutHandles.length === 1 ? 'has' : 'have'} no handle vertices: weight 0 everywhere`,
    );
  }
  for (const c of unhandled) {
    const nearest = c.nearestBone >= 0 ? `nearest bone ${c.nearestBone}` : 'no bone has handles';
    const fate = boundRigidly && c.nearestBone >= 0 ? `bound rigidly to bone ${c.nearestBone}` : 'weights left at 0';
    lines.push(`a part of the mesh without handles: ${c.vertexCount} vertices from vertex ${c.firstVertex}, ${nearest}; ${fate}`);
  }
  return lines;
}
