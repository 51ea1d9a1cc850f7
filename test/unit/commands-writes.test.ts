/**
 * The commands that took over the last direct writes (binding options, the export's weight settings, autosave
 * timing, the per-vertex blend map, Prune's threshold and the mirrors' axis): what their arguments accept and
 * refuse, and what their handlers hand on, against values chosen by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, HANDLE_SOURCE_CHOICES, LAPLACIANS } from '../../renderer/commands/command-catalog.ts';
import { checkArgument, typeText, type ArgumentScene } from '../../renderer/commands/command-schema.ts';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { BIND_DEFAULTS, HANDLE_SOURCES, type BindOptions } from '../../renderer/bind/binding-controller.ts';
import { bindCommands, type BindCommandsHost } from '../../renderer/bind/bind-commands.ts';
import { skinCommands, type SkinCommandsHost } from '../../renderer/deform/skin-commands.ts';
import { paintCommands, PRUNE_THRESHOLD, type PaintCommandsHost } from '../../renderer/paint/paint-commands.ts';
import { AUTOSAVE_DELAY_RANGE, AUTOSAVE_MAX_WAIT_RANGE, AUTOSAVE_VERSIONS_RANGE } from '../../renderer/project/autosave.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';

const IDLE = { toolBusy: false, binding: false, bindPanel: true, boneSelected: true, hasSkeleton: true };

/** Checks `value` as the registry would for command `id`. */
function check(id: keyof typeof COMMANDS, value: unknown, scene: ArgumentScene = { boneCount: () => 3 }): void {
  checkArgument(COMMANDS[id].argument ?? { kind: 'none' }, value, id, scene);
}

/** A registry holding `handlers`, every context key idle. */
function registryOf(handlers: object, scene: ArgumentScene = { boneCount: () => 3 }): CommandRegistry {
  const commands = new CommandRegistry(() => IDLE, undefined, scene);
  commands.registerAll(handlers);
  return commands;
}

test('bind.options takes any of its five fields, each checked, and nothing else', () => {
  check('bind.options', {});
  check('bind.options', { source: 'cylinder', radiusFraction: 0.05, laplacian: 'uniform', bindUnhandled: false, weldTolerance: 0.001 });
  assert.throws(() => check('bind.options', { source: 'nearest' }), {
    message: 'bind.options: source must be one of "current", "distance", "cylinder", got "nearest"',
  });
  assert.throws(() => check('bind.options', { radiusFraction: 0 }), /bind\.options: radiusFraction must be a number from 0\.001 to 1/);
  assert.throws(() => check('bind.options', { laplacian: 'cotangent' }), /bind\.options: laplacian must be one of "cotan", "uniform"/);
  assert.throws(() => check('bind.options', { bindUnhandled: 'yes' }), /bind\.options: bindUnhandled must be true or false/);
  assert.throws(() => check('bind.options', { weldTolerance: -0.1 }), /bind\.options: weldTolerance must be a number from 0/);
  assert.throws(() => check('bind.options', { radius: 0.1 }), /bind\.options: argument: radius is not a field/);
  assert.throws(() => check('bind.options', 'cylinder'), /bind\.options: argument must be an object/);
  // The catalog's choices are the controller's.
  assert.deepEqual([...HANDLE_SOURCE_CHOICES], [...HANDLE_SOURCES]);
  assert.ok((LAPLACIANS as readonly string[]).includes(BIND_DEFAULTS.laplacian), 'the default Laplacian is one the command offers');
  // Scripts see the fields as optional.
  assert.match(
    typeText(COMMANDS['bind.options'].argument!),
    /^\{ source\?: "current" \| "distance" \| "cylinder" \| undefined; radiusFraction\?: number/,
  );
});

test('bind.options changes only the fields it is given, and "bind them rigidly" goes through it before computing', async () => {
  const options: Required<BindOptions> = {
    source: 'current',
    laplacian: 'cotan',
    radiusFraction: 0.04,
    bindUnhandled: false,
    weldTolerance: 0,
    method: 'auto',
    voxelResolution: 128,
    falloff: 8,
  };
  const started: Required<BindOptions>[] = [];
  const binding = {
    options,
    startBind: async () => void started.push({ ...options }),
  } as unknown as BindCommandsHost['binding'];
  const host = { binding, meshes: { activePart: null } } as unknown as BindCommandsHost;
  const commands = registryOf(bindCommands(host));
  void commands.execute('bind.options', { source: 'cylinder', radiusFraction: 0.1 });
  assert.deepEqual(options, {
    source: 'cylinder',
    laplacian: 'cotan',
    radiusFraction: 0.1,
    bindUnhandled: false,
    weldTolerance: 0,
    method: 'auto',
    voxelResolution: 128,
    falloff: 8,
  });
  void commands.execute('bind.options', { laplacian: 'uniform' });
  assert.deepEqual(options, {
    source: 'cylinder',
    laplacian: 'uniform',
    radiusFraction: 0.1,
    bindUnhandled: false,
    weldTolerance: 0,
    method: 'auto',
    voxelResolution: 128,
    falloff: 8,
  });
  assert.throws(() => commands.execute('bind.options', { source: 'cylinder', radiusFraction: 2 }), /radiusFraction/);
  assert.equal(options.radiusFraction, 0.1, 'a refused argument changes nothing, not even its good fields');
  await commands.execute('bind.computeRigid');
  void commands.execute('bind.options', { weldTolerance: 0.002 });
  assert.equal(options.weldTolerance, 0.002);
  void commands.execute('bind.options', { method: 'volumetric', voxelResolution: 256, falloff: 4 });
  assert.deepEqual([options.method, options.voxelResolution, options.falloff], ['volumetric', 256, 4]);
  assert.throws(() => commands.execute('bind.options', { voxelResolution: 1024 }), /voxelResolution/);
  assert.throws(() => check('bind.options', { method: 'heat' }), /method must be one of "auto", "surface", "volumetric"/);
  void commands.execute('bind.options', { method: 'auto', voxelResolution: 128, falloff: 8 });
  assert.deepEqual(started, [
    {
      source: 'cylinder',
      laplacian: 'uniform',
      radiusFraction: 0.1,
      bindUnhandled: true,
      weldTolerance: 0,
      method: 'auto',
      voxelResolution: 128,
      falloff: 8,
    },
  ]);
  assert.equal(options.bindUnhandled, true, 'the option stays on, as the panel shows it');
});

test('file.exportSettings and file.autosave: optional fields, the export’s choices and the autosave dialog’s ranges', () => {
  check('file.exportSettings', { weightComponent: 'unsigned-short' });
  check('file.exportSettings', {});
  // The export's influences are the scene's max influences, set by bind.maxInfluences alone.
  assert.throws(() => check('file.exportSettings', { influences: 8 }), /file\.exportSettings: argument: influences is not a field/);
  check('bind.maxInfluences', 6);
  assert.throws(() => check('bind.maxInfluences', 0), /bind\.maxInfluences: argument must be one of 1, 2, 3, 4, 5, 6, 7, 8/);
  assert.throws(
    () => check('file.exportSettings', { weightComponent: 'half' }),
    /weightComponent must be one of "float", "unsigned-short", "unsigned-byte"/,
  );

  check('file.autosave', { delaySeconds: 0 });
  check('file.autosave', {
    delaySeconds: AUTOSAVE_DELAY_RANGE.max,
    maxWaitSeconds: AUTOSAVE_MAX_WAIT_RANGE.min,
    versions: AUTOSAVE_VERSIONS_RANGE.max,
  });
  assert.throws(() => check('file.autosave', { delaySeconds: -1 }), /file\.autosave: delaySeconds must be a number from 0 to 3600/);
  assert.throws(() => check('file.autosave', { maxWaitSeconds: 0 }), /file\.autosave: maxWaitSeconds must be a number from 1 to 3600/);
  assert.throws(() => check('file.autosave', { versions: 2.5 }), /file\.autosave: versions must be a whole number from 1 to 50/);
  assert.throws(() => check('file.autosave', { versions: 51 }), /versions/);
});

test('skin.blendMap takes one value 0 … 1 per vertex: the registry checks the count where the scene tells it, the handler always', () => {
  const three = { boneCount: () => 2, vertexCount: () => 3 };
  check('skin.blendMap', [0, 0.5, 1], three);
  assert.throws(() => check('skin.blendMap', [0, 0.5], three), {
    message: 'skin.blendMap: argument must be an array of 3 numbers (one per vertex), each number from 0 to 1, got [0,0.5]',
  });
  assert.throws(() => check('skin.blendMap', [0, 1.5, 1], three), /skin\.blendMap: argument\[1\] must be a number from 0 to 1, got 1\.5/);
  assert.throws(() => check('skin.blendMap', 0.5, three), /skin\.blendMap: argument must be an array/);
  // A scene that does not tell its vertex count: the form only.
  check('skin.blendMap', [0.25]);

  const blends: unknown[] = [];
  const host = {
    deformation: {},
    setBlendWeights: (blend: number | readonly number[]) => void blends.push(blend),
    store: { doc: { mesh: { positions: new Float64Array(9) } } as unknown as SceneDocument },
  } as unknown as SkinCommandsHost;
  const commands = registryOf(skinCommands(host));
  void commands.execute('skin.blendMap', [0, 0.5, 1]);
  assert.throws(() => commands.execute('skin.blendMap', [0.5, 0.5]), {
    message: 'skin.blendMap: argument must be an array of 3 numbers (one per vertex), got 2',
  });
  void commands.execute('skin.blend', 0.25);
  assert.deepEqual(blends, [[0, 0.5, 1], 0.25], 'the short map never reached the skinning');
});

test('paint.prune takes its threshold and the mirrors their axis; left out, the menu’s defaults', async () => {
  check('paint.prune', undefined);
  check('paint.prune', 0.2);
  assert.throws(() => check('paint.prune', -0.1), /paint\.prune: argument must be a number from 0 to 1, got -0\.1/);
  check('paint.mirrorToPositive', 2);
  assert.throws(() => check('paint.mirrorToNegative', 3), /paint\.mirrorToNegative: argument must be one of 0, 1, 2, got 3/);

  const runs: unknown[][] = [];
  const host = {
    paint: { run: async (...args: unknown[]) => void runs.push(args) },
    brushTool: { active: false, toggle: () => undefined, resize: () => undefined },
  } as unknown as PaintCommandsHost;
  const commands = registryOf(paintCommands(host));
  await commands.execute('paint.prune');
  await commands.execute('paint.prune', 0.2);
  await commands.execute('paint.mirrorToPositive', 1);
  await commands.execute('paint.mirrorToNegative');
  assert.deepEqual(runs, [
    ['prune', PRUNE_THRESHOLD],
    ['prune', 0.2],
    ['mirror+', undefined, 1],
    // The controller's own default then: the symmetry axis, or x.
    ['mirror-', undefined, undefined],
  ]);
  assert.equal(PRUNE_THRESHOLD, 0.01, 'the menu says "Prune < 0.01"');
});

test('bind.compute takes a field given as undefined as not given: the option keeps its value for the run', async () => {
  const overrides: BindOptions[] = [];
  const binding = {
    options: { ...BIND_DEFAULTS },
    startBind: async (given: BindOptions) => void overrides.push(given),
  } as unknown as BindCommandsHost['binding'];
  const commands = registryOf(bindCommands({ binding, meshes: { activePart: null } } as unknown as BindCommandsHost));
  await commands.execute('bind.compute', { source: 'cylinder', radiusFraction: undefined, laplacian: 'uniform' });
  await commands.execute('bind.compute');
  assert.deepEqual(overrides, [{ source: 'cylinder', laplacian: 'uniform' }, {}]);
  assert.ok(!('radiusFraction' in overrides[0]), 'an undefined radius is not passed on to override the option');
});

test('bind.compute rejects with the error the bind failed with (a script awaiting it fails), and resolves when it bound', async () => {
  const binding = {
    options: { ...BIND_DEFAULTS },
    lastError: null as string | null,
    startBind: async () => {
      binding.lastError = 'There are no handle vertices';
    },
  };
  const commands = registryOf(bindCommands({ binding, meshes: { activePart: null } } as unknown as BindCommandsHost));
  await assert.rejects(Promise.resolve(commands.execute('bind.compute')), { message: 'Binding failed: There are no handle vertices' });
  await assert.rejects(Promise.resolve(commands.execute('bind.computeRigid')), /Binding failed/);
  binding.startBind = async () => {
    binding.lastError = null;
  };
  await commands.execute('bind.compute');
});
