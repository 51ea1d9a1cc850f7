/**
 * Every command's handler, as the shell registers them: each feature's commands live in a module next to its
 * controller (paint/paint-commands.ts, bind/bind-commands.ts, deform/skin-commands.ts,
 * posespace/examples-commands.ts, meshes/meshes-commands.ts, shell/file-commands.ts, shell/view-commands.ts), each
 * taking only what its handlers use of the app. The type makes sure every catalog command has a handler.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import type { HandlerOf } from '../commands/command-registry.ts';
import { bindCommands } from '../bind/bind-commands.ts';
import { skinCommands } from '../deform/skin-commands.ts';
import { meshesCommands } from '../meshes/meshes-commands.ts';
import { paintCommands } from '../paint/paint-commands.ts';
import { examplesCommands } from '../posespace/examples-commands.ts';
import { skeletonCommands } from '../skeleton/skeleton-commands.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import type { App } from './app.ts';
import { fileCommands } from './file-commands.ts';
import { viewCommands } from './view-commands.ts';

export function appCommands(app: App): { [K in CommandId]: HandlerOf<K> } {
  return {
    ...fileCommands(app),
    ...viewCommands(app),
    ...skinCommands(app),
    ...bindCommands(app),
    ...paintCommands({
      paint: app.paint,
      brushTool: {
        get active() {
          return app.tools.active.id === 'brush';
        },
        toggle: () => app.tools.toggle('brush'),
        resize: () => app.tools.tool<BrushTool>('brush').transition('resizing'),
      },
    }),
    ...meshesCommands(app),
    ...examplesCommands(app),
    ...skeletonCommands(app),
  };
}
