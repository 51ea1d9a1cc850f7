/**
 * What harmonicWeights reports, as sentences for people: shared by the command line and the Bind panel.
 * @param bonesWithoutHandles  bone indices
 * @param unhandled            components without handles (size, nearest bone, first vertex)
 * @param boundRigidly         whether those components were bound to their nearest bone
 * @param boneNames            #B names to call the bones by (the app's boneNamesOf); absent: `bone <index>`
 * @param handleConflicts      welded vertices joining handles of different bones (HarmonicWeightsResult.handleConflicts)
 */
export function bindingReport(
  bonesWithoutHandles: readonly number[],
  unhandled: readonly { vertexCount: number; nearestBone: number; firstVertex: number }[],
  boundRigidly: boolean,
  boneNames?: readonly string[],
  handleConflicts?: { count: number; firstVertex: number },
): string[] {
  const lines: string[] = [];
  if (handleConflicts && handleConflicts.count > 0) {
    const one = handleConflicts.count === 1;
    lines.push(
      `${handleConflicts.count} welded ${one ? 'vertex joins' : 'vertices join'} handles of different bones (from vertex ${handleConflicts.firstVertex}): each held by its first copy's bone`,
    );
  }
  const one = bonesWithoutHandles.length === 1;
  if (bonesWithoutHandles.length > 0) {
    const bones = boneNames
      ? bonesWithoutHandles.map((b) => boneNames[b]).join(', ')
      : `${one ? 'bone' : 'bones'} ${bonesWithoutHandles.join(', ')}`;
    lines.push(`${bones} ${one ? 'has' : 'have'} no handle vertices: weight 0 everywhere`);
  }
  const called = (bone: number): string => boneNames?.[bone] ?? `bone ${bone}`;
  for (const c of unhandled) {
    const nearest = c.nearestBone >= 0 ? `nearest ${called(c.nearestBone)}` : 'no bone has handles';
    const fate = boundRigidly && c.nearestBone >= 0 ? `bound rigidly to ${called(c.nearestBone)}` : 'weights left at 0';
    lines.push(`a part of the mesh without handles: ${c.vertexCount} vertices from vertex ${c.firstVertex}, ${nearest}; ${fate}`);
  }
  return lines;
}
