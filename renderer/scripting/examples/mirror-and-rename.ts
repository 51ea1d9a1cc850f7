// Mirrors the weights from the character's left to its right, then renames the bones to another convention.
//
// The character's left is +x (a glTF asset faces +z, a Blender one −y: either way its left hand is at +x), so
// Mirror + → − gives each vertex at −x the weights of its mirror image at +x, every bone swapped with its partner
// (by side names such as .L/.R, else by position). The renaming turns `arm.L` / `arm_R` into `LeftArm` / `RightArm`,
// the names engines such as Unity's humanoid and Mixamo use; bones without a side suffix keep their names.
//
// Arguments: the mirror axis (x, y or z; default x), e.g.
//   rigwright run mirror-and-rename.ts --project body.rig.glb --save body-mirrored.rig.glb

const axis = ['x', 'y', 'z'].indexOf(args[0] ?? 'x');
if (axis < 0) throw new Error(`the axis must be x, y or z, not "${args[0]}"`);
await rig.paint.mirrorToNegative(axis as 0 | 1 | 2);

/** `arm.L` → `LeftArm`, `hand_r` → `RightHand`; null for a name without a side suffix. */
function engineName(name: string): string | null {
  const match = /^(.+)[._]([LlRr])$/.exec(name);
  if (!match) return null;
  const side = match[2].toUpperCase() === 'L' ? 'Left' : 'Right';
  const base = match[1].replace(/(^|[._\s-]+)(\w)/g, (_match: string, _separator: string, letter: string) => letter.toUpperCase());
  return side + base;
}

let renamed = 0;
for (const bone of await rig.scene.bones()) {
  const name = engineName(bone.name);
  if (name === null || name === bone.name) continue;
  await rig.bone.rename({ bone: bone.index, name });
  renamed++;
}
print(`mirrored the weights across ${'xyz'[axis]} = 0; renamed ${renamed} bones`);
