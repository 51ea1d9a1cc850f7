/**
 * The app's parts and how each reaches the rest: the paint and binding controllers, the tools, and the panels,
 * each built with a host made of the app's public actions. Only the shell builds things; the parts know the host
 * interfaces they declare, not the app.
 */
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { BindingController } from '../bind/binding-controller.ts';
import { BindingClient } from '../io/binding-client.ts';
import { getIoClient } from '../io/io-client.ts';
import { PaintController } from '../paint/paint-controller.ts';
import { AppChrome } from '../panels/app-chrome.ts';
import { BindPanel } from '../panels/bind-panel.ts';
import { DeformationPanel } from '../panels/deformation-panel.ts';
import { ExportDialog } from '../panels/export-dialog.ts';
import { ClipMenu, type ClipMenuState } from '../panels/clip-menu.ts';
import { Notice } from '../panels/notice.ts';
import { PaintPanel } from '../panels/paint-panel.ts';
import { TemplatePanel } from '../panels/template-panel.ts';
import { BrushTool } from '../tools/brush/brush-tool.ts';
import { LassoTool } from '../tools/lasso/lasso-tool.ts';
import { SelectTool } from '../tools/select/select-tool.ts';
import { PoseTool } from '../tools/pose/pose-tool.ts';
import { SkeletonTool } from '../tools/skeleton/skeleton-tool.ts';
import { PoseGizmo } from '../view/pose-gizmo.ts';
import { PosePanel } from '../panels/pose-panel.ts';
import { reachedPose, withBonePosed, type ShownPose } from '../skeleton/pose-commands.ts';
import { boneRotationIn, eulerXyzToMatrix, matrixToEulerXyz, relativeRotationFrom } from '../../workers/rig/bone-rotations.ts';
import type { PosedBones } from '../../workers/scene/scene-document.ts';
import type { PoseView } from '../deform/pose-evaluator.ts';
import { ToolManager } from '../tools/tool-manager.ts';
import type { ToolPointer } from '../tools/tool.ts';
import { PosespaceClient } from '../io/posespace-client.ts';
import { ExamplesPanel } from '../panels/examples-panel.ts';
import { ScriptPanel, type ScriptFiles, type ScriptPanelHost } from '../panels/script-panel.ts';
import { baseName } from '../../workers/formats/file-name.ts';
import { MeshesPanel } from '../panels/meshes-panel.ts';
import { VertexWeightsPanel } from '../panels/vertex-weights-panel.ts';
import { selectedVertices, tableOf, type CopiedWeights } from '../paint/vertex-weights.ts';
import { BoneList } from '../panels/bone-list.ts';
import { HeatMapLegend } from '../panels/heat-map-legend.ts';
import { HeatMapLegendFeed } from './heat-map-legend-feed.ts';
import type { LastTransfer } from '../meshes/last-transfer.ts';
import type { SummaryLine } from '../bind/binding-summary.ts';
import { ExamplesController } from '../posespace/examples-controller.ts';
import { PoseSpaceController } from '../posespace/pose-space-controller.ts';
import { keyMarkActions } from '../skeleton/key-commands.ts';
import { BrushRing } from '../view/brush-ring.ts';
import { VIEW_LABELS, VIEW_MODES } from '../view/view-modes.ts';
import { exportGltf, type ExportHost } from './file-commands.ts';
import { SCRIPT_FILE_EXTENSIONS, type RigwrightBridge } from '../../app/ipc-contract.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { isKeyedClip, keyMarksOf, shownClipIndex } from '../../workers/scene/clip-edits.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import type { MaxInfluences } from '../bind/max-influences.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import type { PoseEvaluator } from '../deform/pose-evaluator.ts';
import type { MeshesController } from '../meshes/meshes-controller.ts';
import type { TemplateController } from '../skeleton/template-controller.ts';
import type { Timeline } from '../panels/timeline.ts';
import type { SceneView } from '../view/scene-view.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { Viewport } from '../view/viewport.ts';
import type { ViewportDeformation } from '../view/deformation-views.ts';
import type { FileLoading } from './file-loading.ts';
import type { FrameLoop } from './frame-loop.ts';
import type { ProjectFiles } from './project-files.ts';

/**
 * What the parts are built from: the app's scene, views and actions. The parts made here (paint, binding, tools…)
 * are read back from it by their callbacks, once the app has them.
 */
export interface AppPartsHost extends ExportHost {
  readonly store: SceneStore;
  readonly history: UndoHistory;
  readonly commands: CommandRegistry;
  readonly viewport: Viewport;
  readonly timeline: Timeline;
  readonly bridge: RigwrightBridge;
  readonly frames: FrameLoop;
  readonly views: SceneView;
  readonly deformation: ViewportDeformation;
  readonly meshes: MeshesController;
  /** the last weight transfer's outcome per vertex (the Transfer view's legend, the binding report) */
  readonly lastTransfer: LastTransfer;
  /** the binding report's lines (the Bind panel's Last binding section) */
  readonly bindingSummary: () => SummaryLine[];
  readonly files: FileLoading;
  readonly project: ProjectFiles;
  readonly evaluator: PoseEvaluator;
  readonly influences: Influences;
  readonly influenceSetting: number;
  readonly asExported: boolean;
  readonly selectedBone: number;
  readonly paint: PaintController;
  readonly binding: BindingController;
  /** the scene's max influences (computed weights are limited to it) */
  readonly maxInfluences: MaxInfluences;
  readonly posespace: PoseSpaceController;
  readonly examples: ExamplesController;
  readonly template: TemplateController;
  readonly tools: ToolManager;
  readonly bindPanel: BindPanel;
  readonly notice: Notice;
  context(): WhenContext;
  refreshChrome(): void;
  setError(message: string | null): void;
  setView(mode: ViewMode): void;
  setInfluences(count: number): void;
  showExportSettings(): void;
  selectBone(bone: number): void;
  /** the bone of the joint drawn under a page point, or -1 */
  jointBoneAt(pageX: number, pageY: number): number;
  /** a right click in the viewport at a page point: the menu for what is drawn there */
  openContextMenu(pageX: number, pageY: number): void;
  /** the vertex drawn under a page point (nearest the surface point hit), or -1 */
  vertexAt(pageX: number, pageY: number): number;
  /** the row of weights Copy kept for Paste */
  readonly copiedWeights: CopiedWeights;
  /** #V × 3 positions at the pose and method on screen */
  posedPositions(): Float64Array;
  /** the pose on screen, brought up to date (the evaluator's buffers) */
  shown(): ShownPose & { readonly joints: Float64Array };
  /** shows `posed` over the document while a pose gesture drags (null: the document's posed bones again) */
  showLive(posed: PosedBones | null): void;
  /** the joint drawn under a page point, or -1 */
  jointAt(pageX: number, pageY: number): number;
  /** the rest toggle and a pose gesture's live bones */
  readonly poseView: PoseView;
  /** the rest toggle changed: evaluate and draw again */
  poseViewChanged(): void;
  padInfluences(stride: number): void;
}

/** A panel that shows the app's state: redrawn, once per task, after anything changed. */
export interface ShownPanel {
  refresh(): void;
}

/** The clip menu's view of the scene: the clips, the one shown, its length and key marks when it can be keyed. */
function clipMenuState(doc: SceneDocument, bone: number): ClipMenuState {
  const names = (doc.clips ?? []).map((clip) => clip.name);
  const shown = shownClipIndex(doc);
  return {
    names,
    shown,
    other: shown < 0 && doc.poses ? (doc.posesFile ?? 'poses') : null,
    frames: isKeyedClip(doc.poses) ? doc.poses.frameCount : null,
    marks: keyMarksOf(doc, bone),
  };
}

export function paintController(app: AppPartsHost): PaintController {
  return new PaintController({
    store: app.store,
    matcher: new BindingClient(),
    selectedBone: () => app.selectedBone,
    weightsChanged: () => app.frames.markWeights(),
    weightsSettled: () => {
      app.deformation.influencesEdited();
      app.posespace.influencesEdited();
      app.frames.markWeights();
    },
    schedule: (callback) => requestAnimationFrame(callback),
    vertexMask: () => app.meshes.vertexMask(),
    vertexSelection: () => app.binding.selection,
    views: {
      influences: () => app.influences,
      padInfluences: (stride) => app.padInfluences(stride),
      skinned: () => app.views.skinned,
      weightView: () => app.views.weightView,
    },
  });
}

export function bindingController(app: AppPartsHost, canvas: HTMLCanvasElement): BindingController {
  const viewport = app.viewport;
  return new BindingController({
    store: app.store,
    client: new BindingClient(),
    io: getIoClient(),
    bridge: app.bridge,
    posedPositions: () => app.posedPositions(),
    viewProjection: () => {
      const camera = viewport.camera;
      camera.updateMatrixWorld();
      const rect = canvas.getBoundingClientRect();
      return {
        elements: camera.projectionMatrix.clone().multiply(camera.matrixWorldInverse).elements,
        width: rect.width,
        height: rect.height,
      };
    },
    selectedBone: () => app.selectedBone,
    load: (files) => app.files.load(files),
    showError: (message) => app.setError(message),
    computed: () => {
      if (app.views.viewMode !== 'dominant') app.setView('heatmap');
    },
    vertexMask: () => app.meshes.vertexMask(),
    shownTriangles: () => app.meshes.visibleTriangles(),
    limitWeights: (weights) => app.maxInfluences.limit(weights),
    maxInfluences: () => app.maxInfluences.value,
    notify: (title, items, actions) => app.notice.show(title, items, actions),
  });
}

/** The examples (edited through the store) and the pose-space state the context methods ride on. */
export function poseSpaceControllers(app: AppPartsHost): { examples: ExamplesController; posespace: PoseSpaceController } {
  const examples = new ExamplesController({
    store: app.store,
    shownPose: () => {
      app.frames.ensurePose();
      const { kind, time } = app.timeline;
      const label = kind === 'matrices' ? `frame ${Math.round(time)}` : kind === 'quaternions' ? `t ${time.toFixed(3)}` : 'rest pose';
      return { rotations: app.evaluator.rotations, label };
    },
    openFiles: (options) => app.files.openFiles(options),
  });
  const posespace = new PoseSpaceController({
    document: () => app.store.doc,
    influences: () => app.influences,
    antipodality: () => app.deformation.antipodality,
    unposer: new PosespaceClient(),
    notice: (title, items, error) => app.notice.show(title, items, [], { error }),
    changed: () => {
      app.frames.markPose();
      app.refreshChrome();
    },
    progressed: () => app.refreshChrome(),
  });
  return { examples, posespace };
}

export function toolManager(app: AppPartsHost, container: HTMLElement, canvas: HTMLCanvasElement): ToolManager {
  const viewport = app.viewport;
  const brush = new BrushTool({
    controller: app.paint,
    store: app.store,
    camera: viewport.camera,
    ring: new BrushRing(viewport.scene),
    posedPositions: () => app.posedPositions(),
    posedPositionsAt: (vertices, count, out) => {
      app.frames.ensurePose();
      return app.deformation.cpuReferenceAt(app.deformation.method, app.evaluator, vertices, count, out);
    },
    selectedBone: () => app.selectedBone,
    selectBone: (bone) => app.selectBone(bone),
    jointBoneAt: (x, y) => app.jointBoneAt(x, y),
    redraw: () => app.viewport.invalidate(),
    showWeightMap: () => {
      app.bindPanel.setOpen(false);
      app.setView('heatmap');
    },
    vertexMask: () => app.meshes.vertexMask(),
    shownTriangles: () => app.meshes.visibleTriangles(),
  });
  const contextMenu = (pointer: ToolPointer) => app.openContextMenu(pointer.clientX, pointer.clientY);
  return new ToolManager({ container, canvas, commands: app.commands, context: () => app.context(), contextMenu }, [
    new SelectTool({ pickBoneAt: (x, y) => void app.commands.invoke('bone.select', app.jointBoneAt(x, y)) }),
    new LassoTool(
      {
        lassoed: (polygon, combine) => app.binding.lassoed(polygon, combine),
        clicked: (x, y, combine) => app.binding.clickVertex(app.vertexAt(x, y), combine),
      },
      container,
      canvas,
    ),
    brush,
    poseTool(app),
    skeletonTool(app, canvas),
  ]);
}

/** The skeleton tool: joints placed inside the rest mesh by view rays; each bone edit one bone command. */
function skeletonTool(app: AppPartsHost, canvas: HTMLCanvasElement): SkeletonTool {
  const page = (x: number, y: number): [number, number] => {
    const rect = canvas.getBoundingClientRect();
    return [x + rect.left, y + rect.top];
  };
  return new SkeletonTool({
    doc: () => app.store.doc,
    rayThrough: (x, y) => app.viewport.rayThrough(...page(x, y)),
    viewDirection: () => app.viewport.viewAxes().view,
    showRest: (on) => {
      const before = app.poseView.rest;
      if (on !== before) {
        app.poseView.rest = on;
        app.poseViewChanged();
      }
      return before;
    },
    jointAt: (x, y) => app.jointAt(...page(x, y)),
    insertBone: ({ parent, tip, head }) =>
      app.commands.execute('bone.insert', { parent, tip: [...tip], ...(head ? { head: [...head] } : {}) }) as number,
    moveJoint: (joint, position) => void app.commands.execute('bone.moveJoint', { joint, position: [...position] }),
    reparentBone: (bone, parent) => void app.commands.execute('bone.reparent', { bone, parent }),
    selectBone: (bone) => void app.commands.execute('bone.select', bone),
    showGuides: (guides) => {
      app.views.overlay.showGuides(guides);
      app.viewport.invalidate();
    },
    tell: (message) => app.setError(message),
  });
}

/** The pose tool: the rotation gizmo on the selected bone, IK on its end joint; each drag one pose command. */
function poseTool(app: AppPartsHost): PoseTool {
  return new PoseTool({
    gizmo: new PoseGizmo(app.viewport.scene, app.viewport.camera),
    selectedBone: () => app.selectedBone,
    restShown: () => app.poseView.rest,
    pickBoneAt: (x, y) => void app.commands.invoke('bone.select', app.jointBoneAt(x, y)),
    jointAt: (x, y) => app.jointAt(x, y),
    rayThrough: (x, y) => app.viewport.rayThrough(x, y),
    viewDirection: () => app.viewport.viewAxes().view,
    skeleton: () => app.store.doc.skeleton,
    onSkeletonChange: (listener) =>
      void app.store.subscribe((change) => {
        if (change.kind === 'document' && change.previous.skeleton !== app.store.doc.skeleton) listener();
      }),
    shown: () => app.shown(),
    evaluated: () => app.evaluator,
    live: (posed) => app.showLive(posed),
    withBone: (bone, rotation) => withBonePosed(app.store.doc, bone, rotation),
    reached: (bone, target, pole, from) =>
      app.store.doc.skeleton.parents[bone] < 0 ? null : reachedPose(app.store.doc, from, bone, target, pole).posedBones,
    rotate: (bone, rotation) => void app.commands.invoke('pose.rotate', { bone, rotation: [...rotation] }),
    reach: (bone, target, pole) =>
      void app.commands.invoke('pose.ik', {
        bone,
        target: [target[0], target[1], target[2]],
        ...(pole ? { pole: [pole[0], pole[1], pole[2]] as [number, number, number] } : {}),
      }),
    redraw: () => app.viewport.invalidate(),
  });
}

/** The Pose panel: the selected bone's rotation in the pose tool's space, as X/Y/Z degrees. */
function posePanel(app: AppPartsHost, container: HTMLElement): PosePanel {
  const tool = (): PoseTool => app.tools.tool<PoseTool>('pose');
  const scratch = new Float64Array(9);
  return new PosePanel(container, {
    commands: app.commands,
    boneName: () => (app.selectedBone >= 0 ? boneNamesOf(app.store.doc)[app.selectedBone] : null),
    space: () => tool().space,
    pole: () => {
      const { pole } = tool();
      return pole ? `through (${pole.map((v) => v.toFixed(3)).join(', ')})` : 'the bend plane the limb has';
    },
    restShown: () => app.poseView.rest,
    angles: () => {
      const bone = app.selectedBone;
      if (bone < 0) return null;
      boneRotationIn(app.store.doc.skeleton, app.shown().rotations, bone, tool().space, scratch);
      const [x, y, z] = matrixToEulerXyz(scratch);
      return [(x * 180) / Math.PI, (y * 180) / Math.PI, (z * 180) / Math.PI];
    },
    setAngles: (degrees) => {
      const bone = app.selectedBone;
      if (bone < 0) return;
      eulerXyzToMatrix(
        degrees.map((d) => (d * Math.PI) / 180),
        scratch,
      );
      const rotation = new Float64Array(9);
      relativeRotationFrom(app.store.doc.skeleton, app.shown().rotations, bone, tool().space, scratch, rotation);
      void app.commands.invoke('pose.rotate', { bone, rotation: [...rotation] });
    },
  });
}

/** The built-in example scripts' texts by name (scripting/examples/<name>.ts), each loaded when first asked for. */
const EXAMPLE_SCRIPTS: Record<string, () => Promise<string>> = Object.fromEntries(
  Object.entries(import.meta.glob<string>('../scripting/examples/*.ts', { query: '?raw', import: 'default' })).map(([path, load]) => [
    baseName(path).replace(/\.ts$/, ''),
    load,
  ]),
);

/** Script files through the app's bridge: the open dialog (or file input) for .ts and .js, and Save's dialog (or download). */
function bridgeScriptFiles(bridge: RigwrightBridge): ScriptFiles {
  return {
    open: async () => {
      const [file] = await bridge.openFiles({ title: 'Open a script', extensions: [...SCRIPT_FILE_EXTENSIONS] });
      if (!file) return null;
      if (!/\.(ts|js)$/i.test(file.name)) throw new Error(`script.open: ${file.name} is not a script (a .ts or .js file)`);
      return { name: file.name, text: new TextDecoder().decode(file.bytes) };
    },
    save: ({ name, text }) => bridge.saveFile({ suggestedName: name, bytes: new TextEncoder().encode(text) }),
  };
}

/** The page's localStorage, or null where the page may not use it. */
function pageStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The Scripting panel, made once the app's script runner is: scripts run by the app's controller, their files through
 * the bridge, the built-in examples, and the editor's keys looked up with the app's context.
 */
export function scriptPanel(
  app: Pick<AppPartsHost, 'commands' | 'bridge' | 'context' | 'refreshChrome'> & { readonly scripts: ScriptPanelHost['scripts'] },
  container: HTMLElement,
): ScriptPanel {
  return new ScriptPanel(container, {
    commands: app.commands,
    scripts: app.scripts,
    files: bridgeScriptFiles(app.bridge),
    storage: pageStorage(),
    examples: EXAMPLE_SCRIPTS,
    context: () => app.context(),
    changed: () => app.refreshChrome(),
  });
}

export function createPanels(app: AppPartsHost, container: HTMLElement) {
  const toolbar = document.getElementById('toolbar')!;
  const chrome = new AppChrome(app.commands, {
    dropFiles: (files) => app.files.dropFiles(files),
    dismissError: () => app.setError(null),
  });
  const deformationPanel = new DeformationPanel(toolbar, container, {
    setMethod: (m) => void app.commands.invoke('skin.method', m),
    setAntipodality: (a) => void app.commands.invoke('skin.antipodality', a),
    setSplit: (m) => void app.commands.invoke('skin.split', m),
    setBoneScale: (bone, scale) => void app.commands.invoke('bone.scale', { bone, scale }),
    setUniformBlend: (value) => void app.commands.invoke('skin.blend', value),
  });
  const bindPanel = new BindPanel(toolbar, container, {
    controller: app.binding,
    commands: app.commands,
    document: () => app.store.doc,
    selectedBone: () => app.selectedBone,
    selectBone: (bone) => void app.commands.invoke('bone.select', bone),
    boneNames: () => boneNamesOf(app.store.doc),
    viewModes: () => VIEW_MODES.map((mode) => ({ mode, label: VIEW_LABELS[mode] })),
    view: () => app.views.viewMode,
    setView: (mode) => void app.commands.invoke('view.mode', mode),
    isoLines: () => app.views.isoLines,
    setIsoLines: (on) => void (on !== app.views.isoLines && app.commands.invoke('view.isoLines')),
    lassoActive: () => app.tools.active.id === 'lasso',
    summary: () => app.bindingSummary().map(({ text, count }) => ({ text, count })),
    maxInfluences: app.maxInfluences,
  });
  const paintPanel = new PaintPanel(container, {
    controller: app.paint,
    commands: app.commands,
    document: () => app.store.doc,
    selectedBone: () => app.selectedBone,
    selectBone: (bone) => void app.commands.invoke('bone.select', bone),
    boneNames: () => boneNamesOf(app.store.doc),
    resizing: () => app.tools.active.state === 'resizing',
    undoCount: () => app.history.undoCount,
  });
  const notice = new Notice(container, () => app.store.doc.name);
  const exportDialog = new ExportDialog(
    {
      format: GLTF_EXPORT_DEFAULTS.format,
      influences: GLTF_EXPORT_DEFAULTS.influences,
      weightComponent: GLTF_EXPORT_DEFAULTS.weightComponent,
    },
    (choice) => exportGltf(app, choice),
    () => {
      app.showExportSettings();
      if (app.asExported) app.setInfluences(app.influenceSetting);
    },
  );
  const clipMenu = new ClipMenu(document.getElementById('timeline')!, {
    commands: app.commands,
    timeline: app.timeline,
    state: () => clipMenuState(app.store.doc, app.selectedBone),
  });
  app.timeline.setKeyActions(keyMarkActions(app.commands));
  const examplesPanel = new ExamplesPanel(toolbar, container, {
    commands: app.commands,
    examples: app.examples,
    posespace: app.posespace,
    document: () => app.store.doc,
    exampleMap: () => ({ mode: app.deformation.exampleMap, note: app.deformation.exampleMapNote }),
    perFaceUnposing: () => app.deformation.perFaceUnposing,
  });
  const meshesPanel = new MeshesPanel(toolbar, container, { commands: app.commands, meshes: app.meshes });
  const boneList = new BoneList(toolbar, container, {
    commands: app.commands,
    document: () => app.store.doc,
    boneNames: () => boneNamesOf(app.store.doc),
    selectedBone: () => app.selectedBone,
  });
  const projected = { x: 0, y: 0, z: 0 };
  const templatePanel = new TemplatePanel(toolbar, container, {
    commands: app.commands,
    template: app.template,
    pagePosition: ([x, y, z]) => {
      // The camera may have moved since the last draw (the front view, an orbit): project with where it is now.
      app.viewport.camera.updateMatrixWorld();
      app.viewport.projectToPage(x, y, z, projected);
      return { x: projected.x, y: projected.y, visible: projected.z >= -1 && projected.z <= 1 };
    },
  });
  // The marker dots follow the camera as it orbits.
  app.viewport.controls.addEventListener('change', () => templatePanel.placeDots());
  // The panels that show the app's state redraw in one loop (App.redrawChrome): a new panel is added here.
  const posePanelShown = posePanel(app, container);
  const heatMapLegend = new HeatMapLegendFeed(
    new HeatMapLegend(container),
    () => ({
      doc: app.store.doc,
      viewMode: app.views.viewMode,
      selectedBone: app.selectedBone,
      deformation: app.deformation,
      transfer: app.lastTransfer.record,
    }),
    app.store,
  );
  const vertexWeightsPanel = new VertexWeightsPanel(container, {
    commands: app.commands,
    table: () => tableOf(app.store.doc, app.binding.selection, app.binding.clickedVertex),
    selectedVertices: () => selectedVertices(app.binding.selection),
    copiedVertex: () => (app.copiedWeights.rowFor(app.store.doc) ? app.copiedWeights.vertex : -1),
    boneNames: () => boneNamesOf(app.store.doc),
    selectedBone: () => app.selectedBone,
  });
  const shown: ShownPanel[] = [
    clipMenu,
    bindPanel,
    paintPanel,
    examplesPanel,
    meshesPanel,
    boneList,
    templatePanel,
    posePanelShown,
    vertexWeightsPanel,
  ];
  return {
    chrome,
    deformationPanel,
    bindPanel,
    paintPanel,
    notice,
    exportDialog,
    examplesPanel,
    meshesPanel,
    boneList,
    templatePanel,
    posePanel: posePanelShown,
    vertexWeightsPanel,
    heatMapLegend,
    shown,
  };
}
