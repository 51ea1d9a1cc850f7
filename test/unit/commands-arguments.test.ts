/**
 * Command arguments and refusals: the registry checks every argument against the command's schema before the
 * handler runs (messages name the command, the field and what was expected), the handler's result comes back
 * from execute, a command that cannot run now throws saying why (its enabled-when clause or its handler's
 * refusal), and invoke — what keys, menus and buttons use — skips and reports instead of throwing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../renderer/commands/command-catalog.ts';
import { arg, checkArgument, describe } from '../../renderer/commands/command-schema.ts';
import { CommandRefused, CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { whyNot } from '../../renderer/commands/when-clause.ts';
import { METHOD_LABELS } from '../../renderer/deform/skin-methods.ts';

test('a bad argument throws naming the command, the field and what was expected', () => {
  const scale = COMMANDS['bone.scale'].argument!;
  const scene = { boneCount: () => 4 };
  assert.throws(() => checkArgument(scale, { bone: 1, scale: [1, 'x', 1] }, 'bone.scale', scene), {
    message: 'bone.scale: scale[1] must be a number from 0.05 to 10, got "x"',
  });
  assert.throws(() => checkArgument(scale, { bone: 4, scale: [1, 1, 1] }, 'bone.scale', scene), {
    message: 'bone.scale: bone must be a bone from 0 to 3, got 4',
  });
  assert.throws(
    () => checkArgument(scale, { bone: 1, scale: [1, 1] }, 'bone.scale', scene),
    /bone\.scale: scale must be an array of 3 numbers/,
  );
  assert.throws(() => checkArgument(scale, { bone: 1, scale: [1, 1, 1], extra: 2 }, 'bone.scale', scene), /extra is not a field/);
  assert.throws(() => checkArgument(scale, 7, 'bone.scale', scene), /bone\.scale: argument must be an object \{ bone/);
  checkArgument(scale, { bone: 3, scale: [0.05, 10, 1] }, 'bone.scale', scene);
  // The range's ends are inside, just outside is not.
  assert.throws(() => checkArgument(scale, { bone: 3, scale: [0.0499, 1, 1] }, 'bone.scale', scene), /scale\[0\]/);
  assert.throws(() => checkArgument(COMMANDS['skin.method'].argument!, 'dq', 'skin.method'), {
    message: `skin.method: argument must be one of ${Object.keys(METHOD_LABELS)
      .map((m) => JSON.stringify(m))
      .join(', ')}, got "dq"`,
  });
  assert.throws(
    () => checkArgument(COMMANDS['view.frameAll'].argument ?? arg.none, 3, 'view.frameAll'),
    /view\.frameAll: argument must be left out/,
  );
});

test('each kind of schema accepts what it says and refuses the rest', () => {
  const ok = (schema: Parameters<typeof checkArgument>[0], value: unknown) => checkArgument(schema, value, 'x.y', { boneCount: () => 3 });
  const bad = (schema: Parameters<typeof checkArgument>[0], value: unknown) =>
    assert.throws(() => ok(schema, value), /^Error: x\.y: /, `${describe(schema)} refuses ${JSON.stringify(value)}`);
  ok(arg.integer(0, 5), 5);
  bad(arg.integer(0, 5), 2.5);
  bad(arg.integer(0, 5), 6);
  bad(arg.number(0, 1), Number.NaN);
  bad(arg.number(0, 1), '0.5');
  ok(arg.bone(true), -1);
  bad(arg.bone(), -1);
  bad(arg.bone(true), 3);
  ok(arg.nullable(arg.oneOf([0, 1, 2])), null);
  bad(arg.nullable(arg.oneOf([0, 1, 2])), 3);
  bad(arg.oneOf([0, 1, 2]), null);
  ok(arg.optional(arg.number(1, 2)), undefined);
  bad(arg.optional(arg.number(1, 2)), null);
  ok(arg.union(arg.oneOf(['viewport']), arg.integer(0)), 'viewport');
  ok(arg.union(arg.oneOf(['viewport']), arg.integer(0)), 12);
  bad(arg.union(arg.oneOf(['viewport']), arg.integer(0)), 'view');
  ok(arg.string(true), 'eg0');
  bad(arg.string(true), '  ');
  ok(arg.string(), '');
  bad(arg.boolean, 1);
  ok(arg.mesh(true), -1);
  bad(arg.mesh(), []);
  const meshes = { boneCount: () => 0, meshIndex: (v: number | string) => (v === 'arm' || v === 0 ? 0 : fail(v)) };
  function fail(v: unknown): never {
    throw new Error(`no mesh ${JSON.stringify(v)}`);
  }
  checkArgument(arg.mesh(), 'arm', 'meshes.toggle', meshes);
  assert.throws(() => checkArgument(arg.mesh(), 'leg', 'meshes.toggle', meshes), { message: 'meshes.toggle: argument: no mesh "leg"' });
});

test('the catalog’s choices are the app’s: skinning methods', () => {
  const methods = COMMANDS['skin.method'].argument!;
  assert.ok(methods.kind === 'oneOf', 'skin.method takes one of a list');
  assert.deepEqual([...methods.values].sort(), Object.keys(METHOD_LABELS).sort());
});

/** A registry with a context the test changes. */
function registry(context: Record<string, string | boolean>, scene = { boneCount: () => 3 }) {
  const reported: string[] = [];
  const commands = new CommandRegistry(
    () => context,
    (id, error) => void reported.push(`${id}: ${(error as Error).message}`),
    scene,
  );
  return { commands, reported };
}

test('execute gives back the handler’s result, and the argument is checked before the handler runs', async () => {
  const { commands } = registry({ toolBusy: false });
  const seen: unknown[] = [];
  let wireframe = false;
  commands.register('view.wireframe', { run: () => (wireframe = !wireframe) });
  commands.register('bone.scale', { run: (argument) => void seen.push(argument) });
  commands.register('paint.symmetry', { run: async (axis) => void seen.push(axis) });
  assert.equal(commands.execute('view.wireframe'), true);
  assert.equal(commands.execute('view.wireframe'), false);
  void commands.execute('bone.scale', { bone: 2, scale: [1, 2, 3] });
  assert.throws(() => commands.execute('bone.scale', { bone: 3, scale: [1, 2, 3] }), /bone\.scale: bone must be a bone from 0 to 2, got 3/);
  await commands.execute('paint.symmetry', 1);
  assert.deepEqual(seen, [{ bone: 2, scale: [1, 2, 3] }, 1], 'the refused argument never reached the handler');
});

test('a command that cannot run now throws why: its enabled-when clause, or its handler’s refusal', () => {
  const context: Record<string, string | boolean> = { toolBusy: true, tool: 'brush', binding: false, boneSelected: false };
  const { commands } = registry(context);
  let undoable = false;
  const ran: string[] = [];
  commands.register('edit.undo', { run: () => void ran.push('undo'), canRun: () => undoable, refusal: 'nothing to undo' });
  commands.register('paint.smooth', { run: () => void ran.push('smooth') });
  commands.register('bind.compute', { run: () => void ran.push('compute') });
  commands.register('paint.resizeBrush', { run: () => void ran.push('resize') });
  assert.throws(() => commands.execute('edit.undo'), { message: 'edit.undo cannot run now: a paint stroke is in progress' });
  context.tool = 'lasso';
  assert.throws(() => commands.execute('edit.undo'), { message: 'edit.undo cannot run now: a gesture is in progress' });
  context.toolBusy = false;
  assert.throws(() => commands.execute('edit.undo'), { message: 'edit.undo cannot run now: nothing to undo' });
  assert.throws(() => commands.execute('paint.smooth'), { message: 'paint.smooth cannot run now: no bone selected' });
  context.binding = true;
  assert.throws(
    () => commands.execute('bind.compute'),
    (error: unknown) => {
      assert.ok(error instanceof CommandRefused, 'a refusal is a CommandRefused');
      assert.equal(error.reason, 'weights are being computed');
      return true;
    },
  );
  assert.throws(() => commands.execute('paint.resizeBrush'), { message: 'paint.resizeBrush cannot run now: the tool is lasso, not brush' });
  assert.deepEqual(ran, [], 'no refused command ran');
  undoable = true;
  context.boneSelected = true;
  void commands.execute('edit.undo');
  void commands.execute('paint.smooth');
  assert.deepEqual(ran, ['undo', 'smooth']);
  assert.equal(commands.refusal('edit.undo'), null);
});

test('whyNot names the first term that fails, and null when the clause holds', () => {
  assert.equal(whyNot('meshActive && !binding && !toolBusy', { meshActive: true, binding: true }), 'weights are being computed');
  assert.equal(whyNot('meshActive && !binding', { meshActive: false, binding: true }), 'no mesh is active (all meshes are)');
  assert.equal(whyNot('toolState == resizing', { toolState: 'idle' }), 'the tool’s state is idle, not resizing');
  assert.equal(whyNot('!toolBusy', { toolBusy: false }), null);
  assert.equal(whyNot(undefined, {}), null);
});

test('invoke (keys, menus, buttons) skips a disabled command and reports errors and bad arguments instead of throwing', async () => {
  const context = { toolBusy: false };
  const { commands, reported } = registry(context);
  const ran: unknown[] = [];
  commands.register('skin.blend', { run: (value) => void ran.push(value) });
  commands.register('edit.redo', { run: () => void ran.push('redo') });
  commands.register('paint.symmetry', { run: () => Promise.reject(new Error('mirror matching failed')) });
  assert.deepEqual(commands.invoke('skin.blend', 2), { ran: true });
  assert.deepEqual(commands.invoke('skin.blend', 0.5), { ran: true });
  context.toolBusy = true;
  assert.deepEqual(commands.invoke('edit.redo'), { ran: false }, 'disabled: skipped, nothing reported');
  context.toolBusy = false;
  await commands.invoke('paint.symmetry', 2).result;
  assert.deepEqual(ran, [0.5]);
  assert.deepEqual(reported, [
    'skin.blend: skin.blend: argument must be a number from 0 to 1, got 2',
    'paint.symmetry: mirror matching failed',
  ]);
  assert.throws(() => commands.invoke('view.frameAll'), /no handler/);
});

test('argument and result types come from the catalog: a wrong argument does not type-check', () => {
  const { commands } = registry({ toolBusy: false });
  commands.register('skin.method', { run: () => undefined });
  commands.register('paint.lock', { run: (bone) => bone > 0 });
  void commands.execute('skin.method', 'dqs');
  // @ts-expect-error  'dq' is not a skinning method
  assert.throws(() => commands.execute('skin.method', 'dq'), /skin\.method: argument must be one of/);
  // @ts-expect-error  skin.method needs its argument
  assert.throws(() => commands.execute('skin.method'), /got nothing/);
  const locked: boolean | Promise<boolean> = commands.execute('paint.lock', 1);
  assert.equal(locked, true);
});
