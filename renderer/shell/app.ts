/**
 * The wiring: one scene store with its undo history, one command registry, one tool manager, and the views,
 * controllers and panels around them. The store is the only way the scene changes; this class subscribes to it
 * and brings the views up to date, so state flows one way: command → history/store → views. The render loop
 * allocates nothing: time advances, the pose is evaluated into preallocated buffers, the joint texture is
 * re-uploaded, and a frame is drawn only when something changed.
 */
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import { INFLUENCE_DEFAULTS, influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { BindingController } from '../bind/binding-controller.ts';
import { CommandRegistry, isCommandId } from '../commands/command-registry.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import { DeformationController } from '../deform/deformation-controller.ts';
import { SkinnedDeformationViews, type ViewportDeformation } from '../view/deformation-views.ts';
import type { PoseEvaluator } from '../deform/pose-evaluator.ts';
import { BoneSelection } from '../skeleton/bone-selection.ts';
import { PosePlayback } from '../skeleton/pose-playback.ts';
import {
  boneCountOf,
  demoDocument,
  demoToRigDocument,
  errorMessage,
  twistDemoDocument,
  vertexCountOf,
  type SceneDocument,
} from '../../workers/scene/scene-document.ts';
import { SceneStore, type SceneChange } from '../../workers/scene/scene-store.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { UndoHistory, type HistoryEvent } from '../../workers/scene/undo-history.ts';
import { WebBridge } from '../io/bridge.ts';
import type { PaintController } from '../paint/paint-controller.ts';
import type { AppChrome, StatusField } from '../panels/app-chrome.ts';
import type { BindPanel } from '../panels/bind-panel.ts';
import type { DeformationPanel } from '../panels/deformation-panel.ts';
import { exampleColor, type ExamplesPanel } from '../panels/examples-panel.ts';
import type { ExamplesController } from '../posespace/examples-controller.ts';
import type { PoseSpaceController } from '../posespace/pose-space-controller.ts';
import type { ExportDialog } from '../panels/export-dialog.ts';
import type { Notice } from '../panels/notice.ts';
import type { PaintPanel } from '../panels/paint-panel.ts';
import type { Timeline } from '../panels/timeline.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import type { PoseTool } from '../tools/pose/pose-tool.ts';
import type { PosePanel } from '../panels/pose-panel.ts';
import type { PoseView } from '../deform/pose-evaluator.ts';
import type { PosedBones } from '../../workers/scene/scene-document.ts';
import type { ToolManager } from '../tools/tool-manager.ts';
import { boneForJoint } from '../view/skeleton-overlay.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { Viewport } from '../view/viewport.ts';
import { SceneView } from '../view/scene-view.ts';
import { MeshesController } from '../meshes/meshes-controller.ts';
import { SceneFeed } from '../view/scene-feed.ts';
import type { MeshesPanel } from '../panels/meshes-panel.ts';
import type { BoneList } from '../panels/bone-list.ts';
import type { TemplatePanel } from '../panels/template-panel.ts';
import { TEMPLATE_VIEW, TemplateController } from '../skeleton/template-controller.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { appCommands } from './app-commands.ts';
import { installFirstStep, type FirstStep } from './first-step-commands.ts';
import { MaxInfluences } from '../bind/max-influences.ts';
import {
  bindingController,
  createPanels,
  paintController,
  poseSpaceControllers,
  scriptPanel,
  toolManager,
  type ShownPanel,
} from './app-parts.ts';
import type { ScriptPanel } from '../panels/script-panel.ts';
import type { VertexWeightsPanel } from '../panels/vertex-weights-panel.ts';
import { CopiedWeights } from '../paint/vertex-weights.ts';
import type { HeatMapLegendFeed } from './heat-map-legend-feed.ts';
import { onWorkerCrash, type WorkerCrash } from '../io/worker-supervisor.ts';
import { FileLoading } from './file-loading.ts';
import { FrameLoop } from './frame-loop.ts';
import { ProjectFiles } from './project-files.ts';
import { UnposedDisplay } from './unposed-display.ts';
import { UnsavedWork } from './unsaved-work.ts';
import { jointAt } from './joint-picking.ts';
import { ContextMenus } from './context-menus.ts';
import { DesktopMenu, paletteEntries } from './menu-model.ts';
import { MenuBar } from '../panels/menu-bar.ts';
import { CommandPalette } from '../panels/command-palette.ts';
import { statusParts } from './status-line.ts';
import { overlayFields, resetSceneBoundState } from './scene-bound-state.ts';
import { SettingsStore } from '../project/settings-store.ts';
import { exportSettingsSection, viewSettingsSection } from './view-settings.ts';
import { UserPreferences } from './user-preferences.ts';
import { appScripts } from './app-scripts.ts';
import type { ScriptController } from '../scripting/script-controller.ts';
import { TransferClient } from '../io/transfer-client.ts';
import { LastTransfer } from '../meshes/last-transfer.ts';
import { bindingSummaryOf, type SummaryLine } from '../bind/binding-summary.ts';

export class App {
  readonly history = new UndoHistory();
  /** the session's settings saved with the project, a section per feature */
  readonly settings = new SettingsStore();
  readonly store: SceneStore;
  readonly commands: CommandRegistry;
  readonly tools: ToolManager;
  readonly paint: PaintController;
  readonly binding: BindingController;
  /** the scene's max influences: computed weights, painting, the view and the export keep it */
  readonly maxInfluences: MaxInfluences;
  readonly deformation: ViewportDeformation;
  readonly chrome: AppChrome;
  /** the start hint over the viewport and the toolbar tour */
  readonly firstStep: FirstStep;
  readonly bindPanel: BindPanel;
  private readonly paintPanel: PaintPanel;
  private readonly posePanel: PosePanel;
  readonly exportDialog: ExportDialog;
  readonly notice: Notice;
  private readonly deformationPanel: DeformationPanel;
  readonly examples: ExamplesController;
  readonly posespace: PoseSpaceController;
  readonly examplesPanel: ExamplesPanel;
  /** which mesh the tools act on, which are shown */
  readonly meshes: MeshesController;
  /** the weight transfer worker (weights.transferFromMesh) */
  readonly transferClient = new TransferClient();
  /** each vertex's outcome in the last weight transfer (the Transfer view, the binding report) */
  readonly lastTransfer: LastTransfer;
  /** the binding report's lines: the last Compute's shells by method, the welded vertices, the last transfer */
  readonly bindingSummary: () => SummaryLine[];
  readonly meshesPanel: MeshesPanel;
  readonly boneList: BoneList;
  /** the selected vertices' weights: a table to type in, copy and paste */
  readonly vertexWeightsPanel: VertexWeightsPanel;
  /** the row of weights the Vertex weights panel's Copy kept for Paste */
  readonly copiedWeights = new CopiedWeights();
  /** the template rig's markers and fit, and its panel */
  readonly template: TemplateController;
  readonly templatePanel: TemplatePanel;
  /** the legend of the heat map on screen */
  private readonly heatMapLegend: HeatMapLegendFeed;
  readonly unposedDisplay: UnposedDisplay;
  /** the pose shown and the timeline it plays on */
  private readonly playback: PosePlayback;
  readonly boneSelection: BoneSelection;
  readonly views: SceneView;
  /** what the viewport draws, kept up with the scene: the views, the deformation, the influences */
  private readonly feed: SceneFeed;
  error: string | null = null;
  readonly frames: FrameLoop;
  readonly files = new FileLoading(this);
  /** the project file: open, save, recent files, the page title */
  readonly project: ProjectFiles;
  /** autosave, crash recovery and the question before unsaved changes go */
  readonly work: UnsavedWork;
  /** the user's preferences (saved per user, not with the project) and their page */
  readonly preferences: UserPreferences;
  /** scripts run on the scene: the scripting panel's runner, its busy state and time limit */
  readonly scripts: ScriptController;
  /** the script editor, its files and its console */
  readonly scriptPanel: ScriptPanel;
  /** the weights painting has changed (the status line says so) */
  private paintedWeights: DenseMatrix | null = null;
  private readonly menu: DesktopMenu;
  /** the web page's menu bar (the desktop has its native menu, from the same model); null in the desktop app */
  readonly menuBar: MenuBar | null;
  /** every command by name (Ctrl/⌘ Shift P) */
  readonly palette: CommandPalette;
  /** the right-click menus of the viewport and the lists */
  readonly contextMenus: ContextMenus;
  /** the panels redrawn with the chrome */
  private readonly shownPanels: readonly ShownPanel[];
  /** a chrome redraw is queued for the end of this task */
  private chromePending = false;

  constructor(
    readonly viewport: Viewport,
    readonly timeline: Timeline,
    readonly bridge: RigwrightBridge,
  ) {
    this.store = new SceneStore(demoDocument(), this.history);
    this.meshes = new MeshesController(this.store);
    this.lastTransfer = new LastTransfer(this.store);
    const doc = this.store.doc;
    this.commands = new CommandRegistry(
      () => this.context(),
      (_, error) => this.setError(errorMessage(error)),
      // Bone and mesh arguments are checked against the scene shown now.
      {
        boneCount: () => boneCountOf(this.store.doc),
        vertexCount: () => vertexCountOf(this.store.doc),
        meshIndex: (value) => this.meshes.indexOf(value),
      },
    );
    const influences = influencesFromWeights(doc.weights, INFLUENCE_DEFAULTS.maxInfluences);
    this.boneSelection = new BoneSelection(this.store);
    this.playback = new PosePlayback(this.store, timeline, () => this.frames?.markPose());
    this.views = new SceneView(viewport.scene, doc, influences, this.selectedBone, new Uint8Array(vertexCountOf(doc)), () =>
      this.viewport.invalidate(),
    );
    const container = viewport.renderer.domElement.parentElement!;
    const canvas = viewport.renderer.domElement;
    const deformationViews = new SkinnedDeformationViews(viewport, doc, influences, this.views.skinned);
    this.deformation = new DeformationController(deformationViews, doc, influences, () => {
      this.viewport.invalidate();
      this.refreshDeformationChrome();
    });
    this.frames = new FrameLoop({
      viewport,
      timeline,
      deformation: this.deformation,
      evaluator: () => this.playback.evaluator,
      overlay: () => this.views.overlay,
      posed: () => {
        this.tools?.tool<BrushTool>('brush').poseChanged();
        this.tools?.tool<PoseTool>('pose').refresh(this.tools.active.id === 'pose');
        this.examplesPanel?.refreshWeights();
        this.heatMapLegend?.refresh();
      },
    });
    ({ examples: this.examples, posespace: this.posespace } = poseSpaceControllers(this));
    this.deformation.context = this.posespace;
    this.paint = paintController(this);
    this.maxInfluences = new MaxInfluences({
      store: this.store,
      paintSettings: () => this.paint.settings,
      changed: () => this.followMaxInfluences(),
    });
    this.binding = bindingController(this, canvas);
    this.bindingSummary = bindingSummaryOf(this);
    this.template = new TemplateController({
      store: this.store,
      rayAt: (x, y) => viewport.rayThrough(x, y),
      cameraAxes: () => viewport.viewAxes(),
      selection: this.boneSelection,
    });
    this.tools = toolManager(this, container, canvas);
    const panels = createPanels(this, container);
    this.chrome = panels.chrome;
    this.deformationPanel = panels.deformationPanel;
    this.bindPanel = panels.bindPanel;
    this.paintPanel = panels.paintPanel;
    this.posePanel = panels.posePanel;
    this.notice = panels.notice;
    this.exportDialog = panels.exportDialog;
    this.examplesPanel = panels.examplesPanel;
    this.meshesPanel = panels.meshesPanel;
    this.boneList = panels.boneList;
    this.vertexWeightsPanel = panels.vertexWeightsPanel;
    this.templatePanel = panels.templatePanel;
    this.heatMapLegend = panels.heatMapLegend;
    this.unposedDisplay = new UnposedDisplay(this);
    this.contextMenus = new ContextMenus(this, canvas);
    this.shownPanels = [...panels.shown, this.unposedDisplay, this.heatMapLegend];
    this.feed = new SceneFeed(
      {
        store: this.store,
        meshes: this.meshes,
        binding: this.binding,
        bones: this.boneSelection,
        exportSettings: () => this.exportDialog.settings,
      },
      { views: this.views, deformation: this.deformation, viewport, markPose: () => this.frames.markPose() },
    );

    this.settings.register('skin', this.deformation.settings.section);
    this.settings.register('paint', this.paint.settingsSection);
    this.settings.register('binding', this.binding.settingsSection);
    this.settings.register('posespace', this.posespace.settingsSection);
    this.settings.register('export', exportSettingsSection(this.exportDialog.settings));
    this.settings.register('view', viewSettingsSection(this));
    this.project = new ProjectFiles(this);
    this.work = new UnsavedWork(this);
    this.preferences = new UserPreferences(this);
    this.scripts = appScripts(this);
    this.scriptPanel = scriptPanel(this, container);
    this.palette = new CommandPalette(
      () => paletteEntries(this.commands),
      (command) => this.runMenuCommand(command),
    );
    this.firstStep = installFirstStep(container, this.commands, this.store);
    this.commands.registerAll(appCommands(this));
    this.menuBar =
      bridge instanceof WebBridge ? new MenuBar(document.getElementById('app')!, (command) => this.runMenuCommand(command)) : null;
    this.menu = new DesktopMenu(this.commands, bridge, (model) => this.menuBar?.show(model));

    // The views feed themselves (SceneFeed); the app keeps its chrome — panels, status, menus — up to date.
    this.store.subscribe((change) => this.sceneChanged(change));
    this.feed.onRebuilt((rebuilt, newMesh) => newMesh && this.showLookOf(rebuilt));
    this.boneSelection.onChange(() => {
      this.tools.tool<PoseTool>('pose').refresh(this.tools.active.id === 'pose');
      this.paint.changed();
      this.refreshChrome();
    });
    this.history.subscribe((event) => this.historyChanged(event));
    this.binding.onChange(() => this.refreshChrome());
    this.tools.onChange(() => this.toolChanged());
    this.paint.onChange(() => this.refreshChrome());
    this.meshes.onChange(() => this.refreshChrome());
    this.lastTransfer.onChange(() => {
      this.views.setTransferStatus(this.lastTransfer.record?.status ?? null);
      this.viewport.invalidate();
      this.refreshChrome();
    });
    this.template.onChange(() => this.refreshChrome());
    this.commands.onExecuted(() => this.refreshChrome());
    onWorkerCrash((crash) => this.workerCrashed(crash));
    this.notice.onChange(() => this.refreshChrome());
    bridge.onMenuCommand((command) => this.runMenuCommand(command));
    if (bridge instanceof WebBridge) bridge.onUnrequestedFiles((files) => void this.files.load(files));
    this.frameAll();
    this.followMaxInfluences();
    this.preferences.start();
    this.refreshChrome();
    this.frames.start();
  }

  /** The context keys the when-clauses read. */
  context(): WhenContext {
    return {
      ...this.tools?.context(),
      bindPanel: this.bindPanel?.open ?? false,
      unposedShown: this.unposedDisplay?.shown ?? false,
      boneSelected: this.selectedBone >= 0,
      binding: this.binding?.progress.running ?? false,
      meshActive: (this.meshes?.active ?? -1) >= 0,
      hasSkeleton: boneCountOf(this.store.doc) > 0,
      meshHidden: this.meshes?.hidden.some(Boolean) ?? false,
      helpOpen: this.chrome?.helpOpen ?? false,
      platform: this.bridge.platform,
      // A running script holds the scene: the user's edits wait as during a gesture; its own command calls run.
      ...(this.scripts?.contextKeys(this.tools?.active.busy ?? false) ?? { scriptRunning: false }),
      scriptEditorFocus: this.scriptPanel?.editorFocused ?? false,
    };
  }

  /** A menu click (desktop or web) or a palette choice: the same command a key or button runs (an id the catalog lacks is ignored). */
  private runMenuCommand(command: string): void {
    if (!isCommandId(command)) return;
    this.commands.invoke(command);
  }

  // --- scene changes ----------------------------------------------------------------------------------------

  private sceneChanged(change: SceneChange): void {
    if (change.kind === 'weight-rows') {
      this.paintedWeights = this.store.doc.weights;
      this.refreshChrome();
      return;
    }
    if (change.fields.has('parts') && this.meshes.list.length > 1) this.meshesPanel.setOpen(true);
    // A new scene starts with the default limit (the paint settings reset it).
    if (change.newScene) this.followMaxInfluences();
    if (change.newScene) resetSceneBoundState(this);
    this.refreshChrome();
  }

  /**
   * A new mesh opens in the Look view when it has a look (the asset as the artist knows it), and leaves the Look view
   * when it has none; problems showing the look (an image that does not decode) are noticed once its images are in.
   */
  private showLookOf(doc: SceneDocument): void {
    if (doc.look) this.setView('look');
    else if (this.views.viewMode === 'look') this.setView('shaded');
    const skinned = this.views.skinned;
    void skinned.lookReady.then(() => {
      if (skinned === this.views.skinned && skinned.lookProblems.length > 0)
        this.notice.show(`${doc.name}: the look is shown in part`, [...skinned.lookProblems]);
    });
  }

  /** A worker died: the calls it ran have failed (their callers say so too); the scene, the page's, is unchanged. */
  private workerCrashed(crash: WorkerCrash): void {
    const work = crash.work.length > 0 ? crash.work.join(', ') : 'A background task';
    this.notice.show(
      `${work} failed: the ${crash.worker} stopped`,
      [`Reason: ${crash.reason}.`, 'The scene and its undo history are unchanged; the worker starts again for the next task.'],
      [],
      { error: true },
    );
    this.refreshChrome();
  }

  private historyChanged(event: HistoryEvent): void {
    // The history starts over for a new scene: the previous scene's notice goes (the messages list keeps it).
    if (event.kind === 'cleared') this.notice.sceneOpened();
    if (event.kind === 'dropped')
      this.notice.show(
        `Undo history: the ${event.count} oldest step${event.count > 1 ? 's' : ''} no longer fit in its ${this.history.maxBytes / 2 ** 20} MiB and were dropped`,
        [],
      );
    if (event.kind === 'cleared' && event.count > 0)
      this.notice.show(
        `New scene (${event.reason}): the undo history starts over; its ${event.count} step${event.count > 1 ? 's were' : ' was'} dropped`,
        [],
      );
    this.refreshChrome();
  }

  private toolChanged(): void {
    const tool = this.tools.active.id;
    this.paintPanel.setVisible(tool === 'brush');
    this.posePanel.setVisible(tool === 'pose');
    if (tool === 'lasso' && (this.views.viewMode === 'shaded' || this.views.viewMode === 'look')) this.setView('handles');
    this.refreshChrome();
  }

  // --- actions (the commands' handlers call these) ----------------------------------------------------------

  /** largest weights kept per vertex on screen (0 = all) */
  get influenceSetting(): number {
    return this.feed.influenceSetting;
  }

  /** the influences the viewport skins with now */
  get influences(): Influences {
    return this.feed.influences;
  }

  /** "As exported" preview: LBS with the export's strongest influences, quantized as the file stores them */
  get asExported(): boolean {
    return this.feed.asExported;
  }

  /** whether the scene's weights were painted since they were computed or loaded (saved with the project) */
  get weightsPainted(): boolean {
    return this.paintedWeights === this.store.doc.weights;
  }

  /** A project says its weights were painted: the status line says so again. */
  markWeightsPainted(): void {
    this.paintedWeights = this.store.doc.weights;
    this.refreshChrome();
  }

  setInfluences(count: number): void {
    this.feed.setInfluenceSetting(count);
    this.refreshChrome();
    this.renderNow();
  }

  padInfluences(stride: number): void {
    if (this.asExported) this.setAsExported(false);
    this.feed.padInfluences(stride);
  }

  /**
   * The scene's max influences was set, undone, restored with a project or reset by a new scene: the viewport skins
   * with it and the export stores it (the paint panel and the Bind panel show it).
   */
  followMaxInfluences(): void {
    const count = this.maxInfluences.value;
    if (this.exportDialog.settings.influences !== count) this.exportDialog.applySettings({ influences: count });
    if (this.feed.influenceSetting !== count) this.setInfluences(count);
    this.paint.changed();
  }

  /** The weight-blended method's per-vertex LBS ↔ DQS blend: one value for every vertex, or #V values. */
  setBlendWeights(blend: number | ArrayLike<number>): void {
    const n = vertexCountOf(this.store.doc);
    this.deformation.setBlendWeights(typeof blend === 'number' ? new Float32Array(n).fill(blend) : Float32Array.from(blend));
    this.frames.markPose();
    this.refreshDeformationChrome();
    this.renderNow();
  }

  /** the selected bone, or -1 for none */
  get selectedBone(): number {
    return this.boneSelection.bone;
  }

  /** the pose shown (its buffers are the scene's bones') */
  get evaluator(): PoseEvaluator {
    return this.playback.evaluator;
  }

  selectBone(bone: number): void {
    this.boneSelection.select(bone);
  }

  setView(mode: ViewMode): void {
    this.views.setMode(mode);
    this.deformation.setLook(mode === 'look');
    if (mode === 'heatmap' && this.selectedBone < 0 && boneCountOf(this.store.doc) > 0) this.selectBone(0);
    this.refreshChrome();
    this.viewport.invalidate();
  }

  setIsoLines(on: boolean): void {
    this.views.setIsoLines(on);
    this.refreshChrome();
    this.viewport.invalidate();
  }

  setError(message: string | null): void {
    this.error = message;
    if (message === null) this.chrome.hideError();
    else {
      this.chrome.showError(message);
      console.error(message);
    }
  }

  frameAll(): void {
    this.feed.frameAll();
  }

  /** The camera looks along −z at the whole mesh: the front view the template's markers are placed in. */
  frontView(): void {
    const { min, max } = boundingBox(this.store.doc.mesh.positions);
    this.viewport.lookAlong(TEMPLATE_VIEW, min, max);
  }

  /** A right click in the viewport at a page point: the menu for what is drawn there. */
  openContextMenu(pageX: number, pageY: number): void {
    this.contextMenus.atViewport(pageX, pageY);
  }

  /** The vertex drawn under a page point (nearest the surface point the view ray hits first), or -1. */
  vertexAt(pageX: number, pageY: number): number {
    return this.contextMenus.vertexAt(pageX, pageY);
  }

  /** Whether the Vertex weights panel is open (bind.selectByWeight then leaves the Bind panel as it is). */
  vertexWeightsPanelOpen(): boolean {
    return this.vertexWeightsPanel.open;
  }

  /** The vertex under the pointer while it is over the viewport, or -1. */
  vertexUnderPointer(): number {
    return this.contextMenus.vertexUnderPointer();
  }

  /** The next left click in the viewport picks a vertex for `picked` instead of acting; Escape or another press: `cancelled`. */
  pickVertex(picked: (vertex: number) => void, cancelled: () => void): void {
    this.contextMenus.pickVertex(picked, cancelled);
  }

  /** The bone of the joint drawn under a page point, or -1. */
  jointBoneAt(pageX: number, pageY: number): number {
    const joint = this.jointAt(pageX, pageY);
    return joint < 0 ? -1 : boneForJoint(this.store.doc.skeleton.bones, joint);
  }

  /**
   * The joint drawn under a page point, or -1. Every joint pick comes here: the pose is brought up to date first (a
   * bone or pose edit makes a new evaluator, posed only at the next frame; a click may come before it).
   */
  jointAt(pageX: number, pageY: number): number {
    const overlay = this.views.overlay;
    if (!overlay.visible) return -1;
    this.frames.ensurePose();
    return jointAt(this.viewport, this.evaluator.joints, overlay.jointRadius, pageX, pageY);
  }

  /** the rest toggle and a pose gesture's live bones (pose-evaluator.ts PoseView) */
  get poseView(): PoseView {
    return this.playback.view;
  }

  /** The pose on screen, brought up to date: the evaluator, whose buffers hold it. */
  shown(): PoseEvaluator {
    this.frames.ensurePose();
    return this.evaluator;
  }

  /** Shows `posed` over the document while a pose gesture drags (null: the document's posed bones again). */
  showLive(posed: PosedBones | null): void {
    this.playback.view.live = posed;
    this.frames.markPose();
  }

  /** The rest toggle changed, or a pose edit turned it off: evaluate and draw again. */
  poseViewChanged(): void {
    this.frames.markPose();
    this.refreshChrome();
  }

  /** #V × 3 positions at the pose and method on screen (CPU reference). */
  posedPositions(): Float64Array {
    this.frames.ensurePose();
    return this.deformation.cpuReference(this.deformation.method, this.evaluator);
  }

  /** The influences the viewport skins with: the influence setting, or the export's stored ones when previewing it. */
  influencesFor(weights: DenseMatrix): Influences {
    return this.feed.influencesFor(weights);
  }

  /** On: linear blend with the export's stored influences; leaving linear blend (M, or View → Next skinning method) turns it off. */
  setAsExported(on: boolean): void {
    if (on) this.deformation.setMethod('lbs');
    this.feed.setAsExported(on);
    this.showExportSettings();
    this.refreshChrome();
    this.renderNow();
  }

  /** The export settings changed: the menus and the palette show the As exported preview's state again. */
  showExportSettings(): void {
    this.refreshChrome();
  }

  /** Opens the twist test (a tube, two bones, the second twisting past 180°) as a new scene, once unsaved work may go. */
  loadTwistDemo(): Promise<void> | void {
    return this.openGuarded(twistDemoDocument, 'opened the twist test');
  }

  /**
   * Start from the demo: the demo's mesh, skeleton and clip as a new scene, unbound (no handles, provisional
   * weights: demoToRigDocument), ready to bind; once unsaved work may go.
   */
  loadDemo(): Promise<void> | void {
    return this.openGuarded(demoToRigDocument, 'started from the demo');
  }

  /**
   * Opens a built-in scene as a new one, clearing the last error: at once when nothing is unsaved, otherwise once the
   * save-changes question is answered (nothing happens when the artist keeps the work).
   */
  private openGuarded(make: () => SceneDocument, reason: string): Promise<void> | void {
    const open = () => {
      this.setError(null);
      this.store.open(make(), reason);
      this.renderNow();
    };
    const { guard } = this.work;
    if (!guard.unsaved) return open();
    return guard.mayDiscard().then((discard) => {
      if (discard) open();
    });
  }

  setWireframe(on: boolean): void {
    this.views.setWireframe(on);
    this.viewport.invalidate();
  }

  setSkeletonVisible(on: boolean): void {
    this.views.overlay.visible = on;
    this.viewport.invalidate();
  }

  /** Shows or hides the Bind panel; closing it puts the lasso down. */
  setBindPanel(open: boolean): void {
    this.bindPanel.setOpen(open);
    if (!open && this.tools.active.id === 'lasso') this.tools.activate('select');
  }

  renderNow(): void {
    this.frames.renderNow();
  }

  /** Called by the timeline after a seek: show the new time at once. */
  onSeek(): void {
    this.frames.applyPose();
    this.renderNow();
  }

  /**
   * Toolbar, status line, panels and desktop menus show the state now. One change usually arrives as several
   * events in one task (a stroke's end is a history step, a weights edit and a tool state change), so they are
   * redrawn once, after the task.
   */
  refreshChrome(): void {
    if (this.chromePending) return;
    this.chromePending = true;
    queueMicrotask(() => {
      this.chromePending = false;
      this.redrawChrome();
    });
  }

  private redrawChrome(): void {
    this.chrome.setSceneName(this.store.doc.name);
    this.project.showTitle();
    this.chrome.setStatus(this.status(), this.tools.active.hint());
    this.chrome.refreshCommands();
    for (const panel of this.shownPanels) panel.refresh();
    this.scriptPanel.refresh();
    this.refreshCurves();
    this.refreshDeformationChrome();
    this.menu.update();
  }

  /** The status line's fields now. */
  private status(): StatusField[] {
    const doc = this.store.doc;
    return statusParts({
      doc,
      loadingNames: this.files.loading,
      painted: this.paintedWeights === doc.weights,
      influenceSetting: this.influenceSetting,
      influenceStride: this.influences.stride,
      handles: this.binding.handleCount(),
      selectedBone: this.selectedBone,
      scaled: this.evaluator.scaled,
      undoLabel: this.history.undoLabel,
      meshes: {
        count: this.meshes.list.length,
        active: this.meshes.activePart?.name ?? null,
        hidden: this.meshes.hidden.filter(Boolean).length,
      },
      overlays: overlayFields(this),
      messages: this.notice.records.length,
      script: this.scripts.statusText,
    });
  }

  /** The examples' weights along the sequence, over the timeline's slider. */
  private refreshCurves(): void {
    const curves = this.posespace.curves();
    this.timeline.setCurves(curves && { ...curves, colors: curves.names.map((_, j) => exampleColor(j)) });
  }

  private refreshDeformationChrome(): void {
    const d = this.deformation;
    if (this.asExported && d.method !== 'lbs') this.setAsExported(false);
    this.deformationPanel?.show(d);
    this.examplesPanel?.refresh();
    this.heatMapLegend?.refresh();
    const scale = this.selectedBone >= 0 ? this.evaluator.boneScales.subarray(3 * this.selectedBone, 3 * this.selectedBone + 3) : null;
    this.deformationPanel?.showBone(this.selectedBone, scale, boneNamesOf(this.store.doc)[this.selectedBone]);
    const error = d.perFaceError;
    if (error && this.error !== error) this.setError(error);
  }
}
