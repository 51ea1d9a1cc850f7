/**
 * The keyboard help names the bone the commands act on: the selected bone by its name with its commands' keys, how to
 * select one, or, on a bare mesh, how to build a skeleton.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { helpBoneLine } from '../../renderer/commands/keybindings.ts';
import { renameBone } from '../../workers/rig/bone-edits.ts';
import { bareDocument } from '../../workers/scene/scene-document.ts';
import { handDocument } from './full-documents.ts';

test('the help names the selected bone with its keys, says how to select one, and how to start on a bare mesh', () => {
  const hand = handDocument();
  const named = { ...hand, ...renameBone(hand, 3, 'index.02.L').fields };
  assert.equal(helpBoneLine(named, 3), 'Selected bone: index.02.L (R poses it, S splits it, Shift M mirrors its limb, Alt I keys it).');
  assert.match(helpBoneLine(hand, 3), /^Selected bone: bone 3 \(/, 'a bone without a name is bone N');
  assert.equal(helpBoneLine(hand, -1), 'No bone selected: click a joint, or a row of the bone list (O).');
  const bare = bareDocument({ name: 'body.obj', mesh: hand.mesh });
  assert.equal(helpBoneLine(bare, -1), 'No skeleton yet: J builds one on the mesh, Shift T fits a template.');
});
