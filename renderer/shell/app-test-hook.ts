/** The test hook (shell/test-hook.ts) of a running app: each entry reads state or runs what the UI can run. */
import type { AutosaveInfo } from '../../app/ipc-contract.ts';
import { WebBridge } from '../io/bridge.ts';
import { isCommandId } from '../commands/command-registry.ts';
import type { ArgumentOf, CommandId } from '../commands/command-catalog.ts';
import type { BrushSettings, PaintCommand } from '../paint/paint-controller.ts';
import { activeKeybindings, displayChord } from '../commands/keybindings.ts';
import { boneCountOf, jointCountOf, triangleCountOf, vertexCountOf } from '../../workers/scene/scene-document.ts';
import { METHOD_LABELS, type SkinMethod } from '../deform/skin-methods.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { BindingController } from '../bind/binding-controller.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { PoseEvaluator } from '../deform/pose-evaluator.ts';
import type { MeshesController } from '../meshes/meshes-controller.ts';
import type { PaintController } from '../paint/paint-controller.ts';
import type { BindPanel } from '../panels/bind-panel.ts';
import type { ExamplesPanel } from '../panels/examples-panel.ts';
import type { MeshesPanel } from '../panels/meshes-panel.ts';
import type { TemplatePanel } from '../panels/template-panel.ts';
import type { TemplateController } from '../skeleton/template-controller.ts';
import type { Timeline } from '../panels/timeline.ts';
import type { PoseSpaceController } from '../posespace/pose-space-controller.ts';
import type { ScriptController } from '../scripting/script-controller.ts';
import type { ScriptOutput } from '../../workers/script/script-host.ts';
import type { ToolManager } from '../tools/tool-manager.ts';
import type { ViewportDeformation } from '../view/deformation-views.ts';
import type { SceneView } from '../view/scene-view.ts';
import type { Viewport } from '../view/viewport.ts';
import type { FrameLoop } from './frame-loop.ts';
import type { UnposedDisplay } from './unposed-display.ts';
import type { UnsavedWork } from './unsaved-work.ts';
import type { ProjectTestHost } from './project-test-hook.ts';
import { pagePosition } from './joint-picking.ts';
import { examplesOf } from '../../workers/scene/scene-document.ts';
import { denseWeights } from '../../workers/scene/bone-data.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import type * as THREE from 'three';
import { projectTestHook } from './project-test-hook.ts';
import { poseTestHook, type PoseTestHost } from './pose-test-hook.ts';
import type {
  BindingTestHook,
  ExamplesTestHook,
  LookTestHook,
  MeshesTestHook,
  PaintState,
  PaintTestHook,
  RigwrightTestHook,
  TemplateTestHook,
  WorkTestHook,
} from './test-hook.ts';

/** What the test hook reads and runs of the app: it changes state only through `commands`. */
export interface TestedApp extends ProjectTestHost, PoseTestHost {
  readonly store: SceneStore;
  readonly history: UndoHistory;
  readonly commands: CommandRegistry;
  readonly frames: FrameLoop;
  readonly timeline: Timeline;
  readonly deformation: ViewportDeformation;
  readonly tools: ToolManager;
  readonly views: SceneView;
  readonly viewport: Viewport;
  readonly bridge: RigwrightBridge;
  readonly binding: BindingController;
  readonly bindPanel: Pick<BindPanel, 'open'>;
  readonly paint: PaintController;
  readonly work: UnsavedWork;
  readonly posespace: PoseSpaceController;
  readonly meshes: MeshesController;
  readonly meshesPanel: Pick<MeshesPanel, 'open'>;
  readonly template: Pick<TemplateController, 'kind' | 'fingers' | 'markers'>;
  readonly templatePanel: Pick<TemplatePanel, 'open'>;
  readonly examplesPanel: Pick<ExamplesPanel, 'open'>;
  readonly unposedDisplay: UnposedDisplay;
  readonly evaluator: PoseEvaluator;
  readonly influenceSetting: number;
  readonly selectedBone: number;
  readonly asExported: boolean;
  renderNow(): void;
  posedPositions(): Float64Array;
  loadTwistDemo(): void;
  readonly scripts: ScriptController;
}

/**
 * Runs a command with an argument the hook's caller typed loosely (a method name as a string): the registry checks
 * it against the command's schema and throws saying what was expected.
 */
function runner(app: TestedApp): (id: CommandId, argument: unknown) => unknown {
  return (id, argument) => (app.commands.execute as (id: CommandId, argument: unknown) => unknown)(id, argument);
}

export function appTestHook(app: TestedApp): RigwrightTestHook {
  const { store, frames, timeline, deformation, history, tools } = app;
  const run = runner(app);
  // Every command that ran, from any source (a key, a button, a menu, the palette, another command), in order.
  const commandsRun: CommandId[] = [];
  app.commands.onExecuted((id) => commandsRun.push(id));
  return {
    ready: () => frames.firstFrame,
    commandsRun: () => [...commandsRun],
    command: (id, argument) => {
      if (!isCommandId(id)) throw new Error(`unknown command ${id}`);
      return app.commands.invoke(id, argument).ran;
    },
    examples: examplesHook(app),
    look: lookHook(app),
    meshes: meshesHook(app),
    template: templateHook(app),
    history: () => ({ undo: history.undoLabels(), redo: history.redoCount, bytes: history.bytes }),
    tool: () => ({ id: tools.active.id, state: tools.active.state }),
    skeleton: () => {
      const { skeleton } = store.doc;
      return {
        joints: Array.from(skeleton.joints),
        bones: Array.from(skeleton.bones),
        parents: Array.from(skeleton.parents),
        names: [...boneNamesOf(store.doc)],
      };
    },
    snapshot: () => {
      const doc = store.doc;
      return {
        weights: Array.from(denseWeights(doc.weights)),
        weightsSource: doc.weightsSource,
        handles: doc.handles ? Array.from(doc.handles) : null,
        handlesFile: doc.handlesFile,
        boneScales: doc.boneScales ? Array.from(doc.boneScales) : null,
        posesFile: doc.posesFile,
      };
    },
    menu: () => (app.bridge instanceof WebBridge ? app.bridge.lastMenu : null),
    keyTable: () => activeKeybindings().map((b) => displayChord(b.key)),
    state: () => {
      const doc = store.doc;
      return {
        sceneName: doc.name,
        meshFiles: [...doc.meshFiles],
        vertexCount: vertexCountOf(doc),
        triangleCount: triangleCountOf(doc),
        boneCount: boneCountOf(doc),
        jointCount: jointCountOf(doc),
        time: timeline.time,
        duration: timeline.duration,
        seconds: timeline.times ? timeline.secondsAt(timeline.time) : null,
        keyTimes: timeline.times ? Array.from(timeline.times) : null,
        poseKind: app.evaluator.kind,
        playing: timeline.playing,
        influences: app.influenceSetting,
        weightsSource: doc.weightsSource,
        selectedBone: app.selectedBone,
        error: app.error,
        framesRendered: frames.framesRendered,
        method: deformation.method,
        antipodality: deformation.antipodality,
        splitMethod: deformation.splitMethod,
        heatMap: deformation.heatMap,
        asExported: app.asExported,
        clips: (doc.clips ?? []).map((c) => c.name),
        clipName: doc.posesFile,
      };
    },
    pause: () => void app.commands.execute('playback.playing', false),
    play: () => void app.commands.execute('playback.playing', true),
    setTime: (time) => void app.commands.execute('playback.seek', time),
    setInfluences: (k) => void run('view.influences', k),
    gpuPositions: async () => {
      if (frames.dirty) app.renderNow();
      await deformation.settled();
      return Array.from(app.views.skinned.readSkinnedPositions(app.viewport.renderer));
    },
    cpuPositions: () => Array.from(app.posedPositions()),
    gpuSplitPositions: async () => {
      if (frames.dirty) app.renderNow();
      await deformation.settled();
      const positions = deformation.readSplitPositions(app.viewport.renderer);
      return positions ? Array.from(positions) : null;
    },
    cpuPositionsOf: (method) => {
      if (!(method in METHOD_LABELS)) throw new Error(`unknown skinning method ${method}`);
      frames.ensurePose();
      return Array.from(deformation.cpuReference(method as SkinMethod, app.evaluator));
    },
    // The setters run the commands a panel or a script runs (a bad argument throws naming the command), then draw.
    setMethod: (method) => {
      void run('skin.method', method);
      app.renderNow();
    },
    setAntipodality: (mode) => {
      void app.commands.execute('skin.antipodality', mode);
      app.renderNow();
    },
    setSplit: (method) => {
      void run('skin.split', method);
      app.renderNow();
    },
    setHeatMap: (on) => {
      if (deformation.heatMap !== on) void app.commands.execute('skin.heatMap');
      app.renderNow();
    },
    setBoneScale: (bone, scale) => void app.commands.execute('bone.scale', { bone, scale }),
    setBlendWeights: (blend) => void (typeof blend === 'number' ? app.commands.execute('skin.blend', blend) : run('skin.blendMap', blend)),
    loadTwistDemo: () => void app.commands.execute('file.twistDemo'),
    setAsExported: (on, settings) => {
      if (settings?.influences !== undefined)
        void app.commands.execute('bind.maxInfluences', settings.influences as ArgumentOf<'bind.maxInfluences'>);
      if (settings) void app.commands.execute('file.exportSettings', { weightComponent: settings.weightComponent });
      if (app.asExported !== on) void app.commands.execute('view.asExported');
      app.renderNow();
    },
    selectClip: (index) => void app.commands.execute('playback.clip', index),
    binding: bindingHook(app),
    paint: paintHook(app),
    project: projectTestHook(app),
    pose: poseTestHook(app),
    work: workHook(app),
    settled: () => deformation.settled(),
    perFaceThreads: () => deformation.perFaceThreads(),
    perFaceKernels: () => deformation.perFaceKernels(),
    perFaceExamplesShared: () => deformation.perFaceExamplesShared(),
    jointScreenPosition: (joint) => {
      frames.ensurePose();
      return pagePosition(app.viewport, app.evaluator.joints, joint);
    },
    boundingDiagonal: () => store.doc.diagonal,
    holdDraws: (on) => {
      frames.drawsHeld = on;
      app.viewport.invalidate();
    },
    runScript: async (source, file = 'script.ts') => {
      const output: ScriptOutput[] = [];
      const stopListening = app.scripts.onOutput((line) => output.push({ ...line }));
      try {
        return { result: await app.scripts.run(source, file), output };
      } finally {
        stopListening();
      }
    },
    stopScript: () => app.scripts.stop(),
    setScriptTimeLimit: (seconds) => {
      app.scripts.timeLimitSeconds = seconds;
    },
    scriptState: () => ({ running: app.scripts.running, status: app.scripts.statusText }),
    measureFrameTime: (count) => {
      timeline.pause();
      const gl = app.viewport.renderer.getContext();
      const pixel = new Uint8Array(4);
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const start = performance.now();
        timeline.seek((timeline.duration * (i % 16)) / 15);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    },
  };
}

function bindingHook(app: TestedApp): BindingTestHook {
  const binding = app.binding;
  return {
    state: () => {
      const last = binding.lastResult;
      const surface = last?.method === 'surface' ? last.result : null;
      return {
        view: app.views.viewMode,
        isoLines: app.views.isoLines,
        panelOpen: app.bindPanel.open,
        lasso: app.tools.active.id === 'lasso' ? (app.tools.active.state as 'idle' | 'drawing') : 'off',
        xray: binding.xray,
        selectedVertexCount: binding.selectedCount,
        handleCounts: binding.handleCounts(),
        binding: { ...binding.progress },
        // The volumetric binding uses no handles and no Laplacian.
        report: last && {
          method: last.method,
          bonesWithoutHandles: surface ? [...surface.bonesWithoutHandles] : [],
          unhandledComponents: surface ? surface.unhandledComponents.map((c) => ({ ...c })) : [],
          laplacianUsed: surface ? surface.laplacianUsed : null,
        },
        lastError: binding.lastError,
        overlap: binding.overlap?.rows ?? null,
        source: binding.options.source,
      };
    },
    setView: (view) => void app.commands.execute('view.mode', view),
    setPanelOpen: (open) => {
      if (app.bindPanel.open !== open) void app.commands.execute('bind.panel');
    },
    // The lasso is armed from the Bind panel (tool.lasso runs while it is open); putting it down goes back to select.
    setLasso: (armed) => {
      if ((app.tools.active.id === 'lasso') !== armed) void app.commands.execute('tool.lasso');
    },
    assignSelection: () => void app.commands.invoke('bind.assign'),
    startBind: async (options) => {
      await app.commands.execute('bind.compute', options);
    },
    cancelBind: () => void app.commands.invoke('bind.cancel'),
    handles: () => Array.from(binding.handles),
  };
}

/** The command that sets each brush setting (the test hook's setBrush runs them). */
const BRUSH_COMMANDS: Readonly<Partial<Record<keyof BrushSettings, CommandId>>> = {
  mode: 'paint.brushMode',
  radius: 'paint.brushRadius',
  strength: 'paint.brushStrength',
  value: 'paint.brushValue',
  spacing: 'paint.brushSpacing',
  falloff: 'paint.brushFalloff',
  throughMesh: 'paint.throughMesh',
};

/** The command of each whole-mesh paint command the hook's `command` takes. */
const PAINT_COMMANDS = {
  normalize: 'paint.normalize',
  limit: 'paint.limit',
  prune: 'paint.prune',
  smooth: 'paint.smooth',
  flood: 'paint.flood',
  'mirror+': 'paint.mirrorToPositive',
  'mirror-': 'paint.mirrorToNegative',
} as const satisfies Record<PaintCommand, CommandId>;

function paintHook(app: TestedApp): PaintTestHook {
  const { paint, tools, history } = app;
  const brush = () => tools.tool<BrushTool>('brush');
  return {
    setPaintMode: (on) => {
      if ((tools.active.id === 'brush') !== on) void app.commands.execute('tool.brush');
    },
    setBrush: (settings) => {
      for (const [key, value] of Object.entries(settings) as [keyof typeof settings, unknown][]) {
        const command = BRUSH_COMMANDS[key];
        if (command) void (app.commands.execute as (id: CommandId, argument: unknown) => unknown)(command, value);
        // Settings without a command of their own (none today) would be refused here rather than written around it.
        else throw new Error(`setBrush: ${key} has no command`);
      }
    },
    setSymmetry: async (axis) => {
      await app.commands.execute('paint.symmetry', axis);
    },
    matching: () => (paint.matchJob ? { axis: paint.matchJob.axis, fraction: paint.matchJob.fraction } : null),
    cancelMatching: () => void app.commands.execute('paint.cancelMatching'),
    selectBone: (bone) => void app.commands.execute('bone.select', bone),
    setLocked: (bone, locked) => {
      if (!!paint.settings.locked[bone] !== locked) void app.commands.execute('paint.lock', bone);
    },
    state: () => {
      const session = paint.session;
      return {
        state: (tools.active.id === 'brush' ? tools.active.state : 'off') as PaintState,
        brush: { ...paint.brush },
        undoSteps: history.undoCount,
        redoSteps: history.redoCount,
        bonePairs: session?.symmetry ? Array.from(session.symmetry.bonePairs) : null,
        unmatched: session?.symmetry ? session.symmetry.map.unmatched.length : 0,
      };
    },
    weightsSnapshot: () => Array.from(denseWeights(app.store.doc.weights)),
    strokeWorldPositions: () => paint.lastStroke.slice(),
    posedPositions: () => {
      paint.flush();
      return Array.from(app.posedPositions());
    },
    surfacePositions: () => Array.from(brush().surfacePositions()),
    cameraPosition: () => app.viewport.camera.position.toArray(),
    undo: () => void app.commands.invoke('edit.undo'),
    redo: () => void app.commands.invoke('edit.redo'),
    takeTimes: () => ({ dabs: paint.times.dabs.splice(0), flushes: paint.times.flushes.splice(0), hovers: paint.times.hovers.splice(0) }),
    command: async (name, threshold, axis) => {
      const command = PAINT_COMMANDS[name];
      if (command === 'paint.prune') await app.commands.execute(command, threshold);
      else if (command === 'paint.mirrorToPositive' || command === 'paint.mirrorToNegative') await app.commands.execute(command, axis);
      else await app.commands.execute(command);
    },
  };
}

function workHook(app: TestedApp): WorkTestHook {
  const { work } = app;
  const version = (info: AutosaveInfo | null | undefined) =>
    info
      ? {
          id: info.id,
          name: info.name,
          savedAt: info.savedAt,
          vertexCount: info.vertexCount,
          boneCount: info.boneCount,
          editCount: info.editCount,
        }
      : null;
  return {
    started: () => work.started,
    state: () => ({
      session: work.session,
      unsaved: app.project.session.dirty,
      written: work.autosave.written,
      writing: work.autosave.writing,
      latest: version(work.autosave.latest),
      settings: { ...work.settings },
      offered: version(work.selected),
      offeredVersions: work.recoverable?.versions.map((v) => v.id) ?? [],
      damaged: [...(work.recoverable?.damaged.keys() ?? [])],
      off: work.autosave.offReason,
      promptShown: work.prompt.isOpen,
      saveDialogOpen: document.querySelector<HTMLDialogElement>('#save-changes-dialog')?.open ?? false,
      pauseMs: work.pauseMs,
      snapshot: work.autosave.snapshotStats && { ...work.autosave.snapshotStats },
    }),
    setAutosave: (options) => void app.commands.execute('file.autosave', options),
    flush: () => work.autosave.flush(),
    mayDiscard: () => work.guard.mayDiscard(),
    stored: async () => {
      const listing = await work.storage.list();
      return { versions: listing.versions.map((v) => ({ id: v.id, session: v.session })), marked: listing.marked };
    },
    scene: () => {
      const doc = app.store.doc;
      const poses = doc.poses;
      return {
        name: doc.name,
        positions: Array.from(doc.mesh.positions),
        triangles: Array.from(doc.mesh.triangles),
        joints: Array.from(doc.skeleton.joints),
        bones: Array.from(doc.skeleton.bones),
        weights: Array.from(denseWeights(doc.weights)),
        handles: doc.handles ? Array.from(doc.handles) : null,
        boneScales: doc.boneScales ? Array.from(doc.boneScales) : null,
        poses: poses ? Array.from(poses.kind === 'matrices' ? poses.rotations : poses.final) : null,
        translations: poses?.kind === 'matrices' && poses.translations ? Array.from(poses.translations) : null,
        posesFile: doc.posesFile,
        weightsSource: doc.weightsSource,
        history: app.history.undoLabels(),
      };
    },
  };
}

function examplesHook(app: TestedApp): ExamplesTestHook {
  const find = (name: string) => {
    const example = examplesOf(app.store.doc).find((e) => e.name === name);
    if (!example) throw new Error(`no example ${name}`);
    return example;
  };
  return {
    state: () => {
      const { posespace } = app;
      return {
        panelOpen: app.examplesPanel.open,
        examples: examplesOf(app.store.doc).map(({ name, file, poseSource, hidden }) => ({ name, file, poseSource, hidden })),
        weights: Array.from(posespace.weights),
        kernel: posespace.kernel,
        unposing: { ...posespace.progress },
        cancelled: posespace.cancelled,
        rbfError: posespace.rbfError,
        unposedShown: app.unposedDisplay.shown ? [...app.unposedDisplay.row.shown] : [],
        exampleMap: { mode: app.deformation.exampleMap, note: app.deformation.exampleMapNote },
      };
    },
    unposed: () => app.posespace.idle(),
    positions: (name) => Array.from(find(name).positions),
    pose: (name) => Array.from(find(name).pose),
  };
}

/**
 * Draws a frame now and reads the whole drawing buffer (RGBA, rows bottom up), in one read before the browser
 * presents (and may clear) it.
 */
function drawnFrame(app: TestedApp): { frame: Uint8Array; width: number; height: number } {
  app.renderNow();
  const gl = app.viewport.renderer.getContext();
  const { drawingBufferWidth: width, drawingBufferHeight: height } = gl;
  const frame = new Uint8Array(4 * width * height);
  gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, frame);
  return { frame, width, height };
}

function lookHook(app: TestedApp): LookTestHook {
  return {
    state: () => {
      const skinned = app.views.skinned;
      const look = app.store.doc.look;
      return {
        view: app.views.viewMode,
        shown: skinned.lookShown,
        hasUvs: skinned.mesh.geometry.getAttribute('uv') !== undefined,
        materials: (look?.materials ?? []).map((m, i) => ({
          name: m.name,
          baseColor: [...m.baseColor],
          textured: skinned.materials[i + 1]?.map != null,
          doubleSided: m.doubleSided,
        })),
        groups: skinned.mesh.geometry.groups.map(({ start, count, materialIndex }) => ({
          start,
          count,
          materialIndex: materialIndex ?? 0,
        })),
        problems: [...skinned.lookProblems],
      };
    },
    ready: async () => {
      await app.views.skinned.lookReady;
      await app.deformation.lookReady();
    },
    uvs: () => {
      const uvs = app.store.doc.look?.uvs;
      return uvs ? Array.from(uvs) : null;
    },
    pixels: (points) => {
      const { frame, width, height } = drawnFrame(app);
      const rect = app.viewport.renderer.domElement.getBoundingClientRect();
      const at = points.map(({ x, y }) => [
        Math.min(width - 1, Math.max(0, Math.floor(((x - rect.left) * width) / rect.width))),
        Math.min(height - 1, Math.max(0, height - 1 - Math.floor(((y - rect.top) * height) / rect.height))),
      ]);
      return at.map(([px, py]) => Array.from(frame.subarray(4 * (py * width + px), 4 * (py * width + px) + 4)));
    },
    camera: () => {
      const camera = app.viewport.camera;
      camera.updateMatrixWorld();
      const rect = app.viewport.renderer.domElement.getBoundingClientRect();
      return {
        viewProjection: camera.projectionMatrix.clone().multiply(camera.matrixWorldInverse).elements,
        left: rect.left,
        top: rect.top,
        width: rect.width,
        height: rect.height,
      };
    },
  };
}

function templateHook(app: TestedApp): TemplateTestHook {
  const projected = { x: 0, y: 0, z: 0 };
  return {
    state: () => ({
      panelOpen: app.templatePanel.open,
      kind: app.template.kind,
      fingers: app.template.fingers,
      markers: app.template.markers().map(({ id, label, point }) => ({ id, label, point: point ? [...point] : null })),
      bones: [...boneNamesOf(app.store.doc)],
    }),
    pagePosition: ([x, y, z]) => {
      app.viewport.projectToPage(x, y, z, projected);
      return { x: projected.x, y: projected.y };
    },
  };
}

function meshesHook(app: TestedApp): MeshesTestHook {
  return {
    state: () => ({
      parts: app.meshes.list.map(({ name, vertexStart, vertexCount, triangleStart, triangleCount }) => ({
        name,
        vertexStart,
        vertexCount,
        triangleStart,
        triangleCount,
      })),
      active: app.meshes.active,
      hidden: [...app.meshes.hidden],
      panelOpen: app.meshesPanel.open,
    }),
    drawnTriangles: (view) => {
      const row = app.unposedDisplay.shown ? (app.unposedDisplay.row.group.children[0] as THREE.Mesh | undefined) : undefined;
      const shown = view === 'split' ? app.deformation.splitView?.mesh : view === 'unposed' ? row : app.views.skinned.mesh;
      if (!shown) return null;
      const index = shown.geometry.index!.array;
      let drawn = 0;
      for (let i = 0; i < index.length; i += 3) if (index[i] !== index[i + 1] || index[i] !== index[i + 2]) drawn++;
      return drawn;
    },
    coveredPixels: () => {
      const pixels = drawnFrame(app).frame;
      // The clear colour 0x1b1e24.
      let covered = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i] !== 0x1b || pixels[i + 1] !== 0x1e || pixels[i + 2] !== 0x24) covered++;
      return covered;
    },
  };
}
