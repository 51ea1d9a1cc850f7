/**
 * The skinning commands: the method (and the M key's cycle), the dual quaternion signs, the split view, the
 * weight-blended amount (one for every vertex, or one per vertex) and the distortion heat map.
 */
import { vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
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
  /** one blend for every vertex, or one per vertex */
  setBlendWeights(blend: number | readonly number[]): void;
  readonly store: { readonly doc: SceneDocument };
}

export type SkinCommandId =
  'skin.nextMethod' | 'skin.heatMap' | 'skin.method' | 'skin.antipodality' | 'skin.split' | 'skin.blend' | 'skin.blendMap';

export function skinCommands(app: SkinCommandsHost): HandlersFor<SkinCommandId> {
  const { deformation } = app;
  return {
    'skin.nextMethod': { run: () => deformation.cycleMethod() },
    'skin.heatMap': { run: () => toggled(!deformation.heatMap, (on) => deformation.setHeatMap(on)), checked: () => deformation.heatMap },
    'skin.method': { run: (method) => deformation.setMethod(method) },
    'skin.antipodality': { run: (mode) => deformation.setAntipodality(mode) },
    'skin.split': { run: (method) => deformation.setSplit(method) },
    'skin.blend': { run: (value) => app.setBlendWeights(value) },
    'skin.blendMap': {
      run: (values) => {
        // The registry checks the count only where its scene tells it; a wrong count never reaches the skinning.
        const count = vertexCountOf(app.store.doc);
        if (values.length !== count)
          throw new Error(`skin.blendMap: argument must be an array of ${count} numbers (one per vertex), got ${values.length}`);
        app.setBlendWeights(values);
      },
    },
  };
}
