/**
 * The skinning commands: the method (and the M key's cycle), the dual quaternion signs, the split view, the
 * weight-blended amount and the distortion heat map.
 */
import type { ArgumentOf } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';

/** What the skinning commands use of the app. */
export interface SkinCommandsHost {
  readonly deformation: {
    readonly heatMap: boolean;
    cycleMethod(): void;
    setHeatMap(on: boolean): void;
    setMethod(method: ArgumentOf<'skin.method'>): void;
    setAntipodality(mode: ArgumentOf<'skin.antipodality'>): void;
    setSplit(method: ArgumentOf<'skin.split'>): void;
  };
  setBlendWeights(blend: number): void;
}

export type SkinCommandId = 'skin.nextMethod' | 'skin.heatMap' | 'skin.method' | 'skin.antipodality' | 'skin.split' | 'skin.blend';

export function skinCommands(app: SkinCommandsHost): HandlersFor<SkinCommandId> {
  const { deformation } = app;
  return {
    'skin.nextMethod': { run: () => deformation.cycleMethod() },
    'skin.heatMap': { run: () => toggled(!deformation.heatMap, (on) => deformation.setHeatMap(on)), checked: () => deformation.heatMap },
    'skin.method': { run: (method) => deformation.setMethod(method) },
    'skin.antipodality': { run: (mode) => deformation.setAntipodality(mode) },
    'skin.split': { run: (method) => deformation.setSplit(method) },
    'skin.blend': { run: (value) => app.setBlendWeights(value) },
  };
}
