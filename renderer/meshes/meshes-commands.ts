/**
 * The mesh commands: the meshes panel, the active mesh (the one the brush, the lasso and "Bind this mesh" act on),
 * hiding, showing and isolating meshes.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import type { MeshesController } from './meshes-controller.ts';

/** What the mesh commands use of the app. */
export interface MeshesCommandsHost {
  readonly meshes: Pick<
    MeshesController,
    'indexOf' | 'setActive' | 'setHidden' | 'hidden' | 'hideActive' | 'showAll' | 'isolate' | 'isolated'
  >;
  readonly meshesPanel: { readonly open: boolean; setOpen(open: boolean): void };
}

export type MeshesCommandId = 'meshes.panel' | 'meshes.active' | 'meshes.toggle' | 'meshes.hide' | 'meshes.showAll' | 'meshes.isolate';

export function meshesCommands({ meshes, meshesPanel }: MeshesCommandsHost): HandlersFor<MeshesCommandId> {
  return {
    'meshes.panel': { run: () => toggled(!meshesPanel.open, (on) => meshesPanel.setOpen(on)), checked: () => meshesPanel.open },
    'meshes.active': { run: (part) => meshes.setActive(part === -1 ? -1 : meshes.indexOf(part)) },
    'meshes.toggle': {
      run: (part) => {
        const index = meshes.indexOf(part);
        meshes.setHidden(index, !meshes.hidden[index]);
        return !meshes.hidden[index];
      },
    },
    'meshes.hide': { run: () => meshes.hideActive() },
    'meshes.showAll': { run: () => meshes.showAll() },
    'meshes.isolate': { run: () => meshes.isolate(), checked: () => meshes.isolated },
  };
}
