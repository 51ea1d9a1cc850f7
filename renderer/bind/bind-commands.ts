/**
 * The binding commands: the bind panel and the lasso, handles (assign, free, load, save, compare), the options of
 * the harmonic weight computation, the scene's max influences, and the computation itself (all meshes, the active mesh alone, or with parts
 * without handles bound rigidly).
 */
import type { ArgumentOf } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import type { BindingController, BindOptions } from './binding-controller.ts';
import type { MaxInfluences } from './max-influences.ts';

/** What the binding commands use of the app. */
export interface BindCommandsHost {
  readonly binding: Pick<
    BindingController,
    | 'xray'
    | 'setXray'
    | 'selectedCount'
    | 'assignSelection'
    | 'clearSelection'
    | 'openHandles'
    | 'saveHandles'
    | 'compareHandles'
    | 'startBind'
    | 'cancelBind'
    | 'saveWeights'
    | 'options'
    | 'lastError'
  >;
  readonly maxInfluences: Pick<MaxInfluences, 'set' | 'limitNow' | 'verticesOver' | 'value'>;
  readonly bindPanel: { readonly open: boolean };
  setBindPanel(open: boolean): void;
  readonly tools: { readonly active: { readonly id: string }; toggle(id: 'lasso'): void };
  readonly meshes: { readonly activePart: MeshPart | null };
}

export type BindCommandId =
  | 'bind.panel'
  | 'tool.lasso'
  | 'bind.xray'
  | 'bind.assign'
  | 'bind.clear'
  | 'bind.loadHandles'
  | 'bind.saveHandles'
  | 'bind.compareHandles'
  | 'bind.compute'
  | 'bind.cancel'
  | 'bind.saveWeights'
  | 'bind.options'
  | 'bind.maxInfluences'
  | 'bind.limitInfluences'
  | 'bind.computeRigid'
  | 'bind.computePart';

const NO_SELECTION = 'no vertices are selected';

/** The fields that have a value: `{ radiusFraction: undefined }` says nothing about the radius. */
function givenFields<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export function bindCommands(app: BindCommandsHost): HandlersFor<BindCommandId> {
  const { binding, tools } = app;
  /**
   * Runs a Compute and rejects with its error, which the controller has already shown the artist, so that a script's
   * `await rig.bind.compute()` fails where the bind failed (the banner keeps the one message). A cancelled bind resolves.
   */
  const bind = async (options: BindOptions, part: MeshPart | null = null): Promise<void> => {
    await binding.startBind(options, part);
    if (binding.lastError) throw new Error(`Binding failed: ${binding.lastError}`);
  };
  /** The one place the binding options change (the panel's controls and "bind them rigidly" both come here). */
  const setOptions = ({
    source,
    radiusFraction,
    laplacian,
    bindUnhandled,
    weldTolerance,
    method,
    voxelResolution,
    falloff,
  }: ArgumentOf<'bind.options'>) => {
    const options = binding.options;
    if (source !== undefined) options.source = source;
    if (radiusFraction !== undefined) options.radiusFraction = radiusFraction;
    if (laplacian !== undefined) options.laplacian = laplacian;
    if (bindUnhandled !== undefined) options.bindUnhandled = bindUnhandled;
    if (weldTolerance !== undefined) options.weldTolerance = weldTolerance;
    if (method !== undefined) options.method = method;
    if (voxelResolution !== undefined) options.voxelResolution = voxelResolution;
    if (falloff !== undefined) options.falloff = falloff;
  };
  return {
    'bind.panel': { run: () => toggled(!app.bindPanel.open, (on) => app.setBindPanel(on)), checked: () => app.bindPanel.open },
    'tool.lasso': { run: () => tools.toggle('lasso'), checked: () => tools.active.id === 'lasso' },
    'bind.xray': { run: () => toggled(!binding.xray, (on) => binding.setXray(on)), checked: () => binding.xray },
    'bind.assign': { run: () => binding.assignSelection(), canRun: () => binding.selectedCount > 0, refusal: NO_SELECTION },
    'bind.clear': { run: () => binding.clearSelection(), canRun: () => binding.selectedCount > 0, refusal: NO_SELECTION },
    'bind.loadHandles': { run: () => binding.openHandles() },
    'bind.saveHandles': { run: () => binding.saveHandles() },
    'bind.compareHandles': { run: () => binding.compareHandles() },
    // A field a script passes as undefined keeps the option (`{ ...options, ...overrides }` would wipe it out).
    'bind.compute': { run: (overrides) => bind(givenFields(overrides ?? {})) },
    'bind.cancel': { run: () => binding.cancelBind() },
    'bind.saveWeights': { run: () => binding.saveWeights() },
    'bind.options': { run: (options) => setOptions(options) },
    'bind.maxInfluences': { run: (count) => app.maxInfluences.set(count) },
    'bind.limitInfluences': {
      run: () => void app.maxInfluences.limitNow(),
      canRun: () => app.maxInfluences.verticesOver() > 0,
      refusal: () => `no vertex has more than ${app.maxInfluences.value} influences`,
    },
    'bind.computeRigid': {
      run: () => {
        setOptions({ bindUnhandled: true });
        return bind({});
      },
    },
    'bind.computePart': {
      run: () => bind({}, app.meshes.activePart),
      canRun: () => app.meshes.activePart !== null,
      refusal: 'the active mesh has no part of its own',
    },
  };
}
