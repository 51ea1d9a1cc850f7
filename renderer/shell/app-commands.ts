/**
 * Every command's handler, as the shell registers them: each feature's commands live in a module next to its
 * controller (paint/paint-commands.ts, bind/bind-commands.ts, deform/skin-commands.ts,
 * posespace/examples-commands.ts, meshes/meshes-commands.ts, skeleton/skeleton-commands.ts, shell/file-commands.ts,
 * shell/view-commands.ts), each
 * declaring the narrow host it uses; the shell's host is all of them together. The type makes sure every catalog
 * command has a handler.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import type { HandlerOf } from '../commands/command-registry.ts';
import { bindCommands, type BindCommandsHost } from '../bind/bind-commands.ts';
import { skinCommands, type SkinCommandsHost } from '../deform/skin-commands.ts';
import { meshesCommands, type MeshesCommandsHost } from '../meshes/meshes-commands.ts';
import { transferCommands, type TransferCommandsHost } from '../meshes/transfer-commands.ts';
import { bindingSummaryCommands, type BindingSummaryCommandsHost } from '../bind/binding-summary.ts';
import { paintCommands, type PaintCommandsHost } from '../paint/paint-commands.ts';
import { examplesCommands, type ExamplesCommandsHost } from '../posespace/examples-commands.ts';
import { skeletonCommands, type SkeletonCommandsHost } from '../skeleton/skeleton-commands.ts';
import { templateCommands, type TemplateCommandsHost } from '../skeleton/template-commands.ts';
import { keyCommands, type KeyCommandsHost } from '../skeleton/key-commands.ts';
import { poseCommands, type PoseCommandsHost } from '../skeleton/pose-commands.ts';
import { boneListCommands, type BoneListCommandsHost } from '../skeleton/bone-list-commands.ts';
import { skeletonFileCommands, type SkeletonFilesHost } from '../skeleton/skeleton-files.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import type { PoseTool } from '../tools/pose/pose-tool.ts';
import type { SkeletonTool } from '../tools/skeleton/skeleton-tool.ts';
import type { ToolManager } from '../tools/tool-manager.ts';
import { fileCommands, type FileCommandsHost } from './file-commands.ts';
import { viewCommands, type ViewCommandsHost } from './view-commands.ts';
import { firstStepCommands, type FirstStepCommandsHost } from './first-step-commands.ts';
import { preferencesCommands, type PreferencesCommandsHost } from './user-preferences.ts';
import { contextCommands, type ContextCommandsHost } from './context-commands.ts';
import { paletteCommands, type PaletteCommandsHost } from './menu-model.ts';
import { scriptCommands, type ScriptCommandsHost } from './script-commands.ts';
import { weightCommands } from '../scripting/weight-commands.ts';
import { vertexWeightsCommands, type VertexWeightsCommandsHost } from '../paint/vertex-weights.ts';

/** What the paint commands use, as the shell has it: the brush tool is the tool manager's. */
export interface PaintShellHost {
  readonly paint: PaintCommandsHost['paint'];
  readonly tools: Pick<ToolManager, 'active' | 'toggle' | 'tool'>;
}

/** What all the commands use of the app: the feature modules' hosts together. */
export type AppCommandsHost = FileCommandsHost &
  ViewCommandsHost &
  FirstStepCommandsHost &
  SkinCommandsHost &
  BindCommandsHost &
  MeshesCommandsHost &
  TransferCommandsHost &
  BindingSummaryCommandsHost &
  ExamplesCommandsHost &
  Omit<SkeletonCommandsHost, 'skeletonTool'> &
  TemplateCommandsHost &
  KeyCommandsHost &
  BoneListCommandsHost &
  SkeletonFilesHost &
  PaintShellHost &
  PreferencesCommandsHost &
  ContextCommandsHost &
  PaletteCommandsHost &
  ScriptCommandsHost &
  VertexWeightsCommandsHost &
  Omit<PoseCommandsHost, 'poseTool'>;

export function appCommands(app: AppCommandsHost): { [K in CommandId]: HandlerOf<K> } {
  return {
    ...fileCommands(app),
    ...firstStepCommands(app),
    ...viewCommands(app),
    ...contextCommands(app),
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
    ...transferCommands(app),
    ...bindingSummaryCommands(app),
    ...examplesCommands(app),
    ...skeletonCommands({ store: app.store, boneSelection: app.boneSelection, skeletonTool: skeletonToolControl(app.tools) }),
    ...poseCommands({
      store: app.store,
      boneSelection: app.boneSelection,
      poseView: app.poseView,
      shown: () => app.shown(),
      poseViewChanged: () => app.poseViewChanged(),
      poseTool: poseToolControl(app.tools),
    }),
    ...templateCommands(app),
    ...keyCommands(app),
    ...boneListCommands(app),
    ...skeletonFileCommands(app),
    ...preferencesCommands(app),
    ...paletteCommands(app),
    ...scriptCommands(app),
    ...weightCommands(app.store, { maxInfluences: () => app.maxInfluences.value }),
    ...vertexWeightsCommands(app),
  };
}

/** The skeleton tool's switch and chain, as its commands use them. */
function skeletonToolControl(tools: PaintShellHost['tools']): SkeletonCommandsHost['skeletonTool'] {
  return {
    get active() {
      return tools.active.id === 'skeleton';
    },
    toggle: () => tools.toggle('skeleton'),
    endChain: () => tools.tool<SkeletonTool>('skeleton').endChain(),
  };
}

/** The pose tool's switch and settings, as its commands use them. */
function poseToolControl(tools: PaintShellHost['tools']): PoseCommandsHost['poseTool'] {
  const tool = (): PoseTool => tools.tool<PoseTool>('pose');
  return {
    get active() {
      return tools.active.id === 'pose';
    },
    toggle: () => tools.toggle('pose'),
    get space() {
      return tool().space;
    },
    setSpace: (space) => tool().setSpace(space),
    get ik() {
      return tool().ik;
    },
    setIk: (on) => tool().setIk(on),
    get pole() {
      return tool().pole;
    },
    setPole: (pole) => (tool().pole = pole ? [...pole] : null),
    viewDirection: () => tool().host.viewDirection(),
  };
}
