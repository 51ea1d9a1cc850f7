/**
 * The Bind panel and the binding workflow around it: handles (loaded, automatic by the distance or cylinder rule,
 * or drawn with the lasso), harmonic weights computed in the binding worker with progress and Cancel, the solver's
 * report, the weight views (shaded / heat map / dominant bone / handles), saving handles and weights as DMAT, and
 * comparing the handles with a reference file.
 *
 * New weights replace the document's only when a solve completes; until then, and after Cancel or an error, the
 * previous weights stay in place. The replaced weights are kept for one "Revert" step.
 */
import './bind-panel.css';
import * as THREE from 'three';
import type { OpenedFile, RigwrightBridge } from '../../app/ipc-contract.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { HarmonicWeightsResult } from '../../workers/weights/harmonic-weights.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { bindingReport } from '../../workers/weights/binding-report.ts';
import { assignHandles, clearHandles, handleCounts, handleOverlap, handlesToMatrix, type HandleOverlap } from '../../workers/weights/handle-edits.ts';
import { BindingClient } from '../io/binding-client.ts';
import { getIoClient } from '../io/io-client.ts';
import { LassoTool, type LassoCombine, type LassoState } from '../tools/lasso/lasso-tool.ts';
import { lassoSelect } from '../bind/lasso-selection.ts';
import { WeightView, VIEW_LABELS, VIEW_MODES, type ViewMode } from '../view/weight-view.ts';
import { errorMessage, type SceneDocument } from '../document/scene-document.ts';
import { toolButton } from './app-chrome.ts';

export type HandleSource = 'current' | 'distance' | 'cylinder';

export interface BindOptions {
  source: HandleSource;
  laplacian: 'cotan' | 'uniform';
  /** cylinder radius as a fraction of the bounding diagonal */
  radiusFraction: number;
  bindUnhandled: boolean;
}

/** What the panel needs from the app. */
export interface BindingHost {
  readonly bridge: RigwrightBridge;
  /** the viewport element and its canvas */
  readonly container: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  document(): SceneDocument;
  /** #V × 3 vertex positions at the pose on screen */
  posedPositions(): Float64Array;
  readonly camera: THREE.Camera;
  selectedBone(): number;
  selectBone(bone: number): void;
  /** swaps in a document with these weights (everything else unchanged) */
  replaceWeights(weights: DenseMatrix, source: string): void;
  /** loads files through the app's usual path (handles are #V × 1 DMATs) */
  load(files: OpenedFile[]): Promise<void>;
  invalidate(): void;
  /** the handle set or its name changed (the status bar shows them) */
  handlesChanged(): void;
  showError(message: string): void;
}

export interface BindingTestState {
  view: ViewMode;
  isoLines: boolean;
  panelOpen: boolean;
  lasso: LassoState;
  xray: boolean;
  selectedVertexCount: number;
  /** handle vertices per bone */
  handleCounts: number[];
  binding: { running: boolean; stage: string; fraction: number };
  /** the last completed solve's report, or null */
  report: { bonesWithoutHandles: number[]; unhandledComponents: { vertexCount: number; nearestBone: number; firstVertex: number }[]; laplacianUsed: string } | null;
  lastError: string | null;
  overlap: HandleOverlap[] | null;
}

export interface BindingTestHook {
  state(): BindingTestState;
  setView(view: ViewMode): void;
  setPanelOpen(open: boolean): void;
  setLasso(armed: boolean): void;
  /** assigns the selection to the selected bone, as the A key does */
  assignSelection(): void;
  /** starts a solve with these settings; resolves when it completes, is cancelled or fails */
  startBind(options?: Partial<BindOptions>): Promise<void>;
  cancelBind(): void;
  /** #V handle labels as the editor holds them */
  handles(): number[];
}

const STAGE_TEXT: Record<string, string> = {
  handles: 'Choosing handles',
  laplacian: 'Building the Laplacian',
  ordering: 'Ordering (fill-reducing)',
  factorization: 'Factorizing (Cholesky)',
  solve: 'Solving',
  done: 'Finishing',
};

const viewProjection = new THREE.Matrix4();

const DEFAULT_OPTIONS: BindOptions = { source: 'current', laplacian: 'cotan', radiusFraction: 0.04, bindUnhandled: false };

/** CSS twin of rwBoneColor in shaders/handle-colors.glsl, for the swatches. */
export function boneColorCss(bone: number): string {
  const hue = (0.07 + bone * 0.6180339887) % 1;
  const band = bone % 3;
  const saturation = band === 0 ? 0.72 : band === 1 ? 0.5 : 0.85;
  const value = band === 0 ? 0.95 : band === 1 ? 0.85 : 0.72;
  const channel = (offset: number) => {
    const p = Math.abs((((hue + offset) % 1) * 6) - 3);
    const c = Math.min(1, Math.max(0, p - 1));
    return Math.round(255 * value * (1 - saturation + saturation * c));
  };
  return `rgb(${channel(0)}, ${channel(2 / 3)}, ${channel(1 / 3)})`;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}


export class BindingPanel {
  private readonly client = new BindingClient();
  private readonly lasso: LassoTool;
  private view: WeightView | null = null;
  private doc: SceneDocument | null = null;
  private handles: Int32Array = new Int32Array(0);
  private handlesName: string | null = null;
  private selection = new Uint8Array(0);
  private selectedCount = 0;
  private mode: ViewMode = 'shaded';
  private isoLines = true;
  private xray = false;
  private options: BindOptions = { ...DEFAULT_OPTIONS };
  private progress = { running: false, stage: '', fraction: 0 };
  private lastResult: HarmonicWeightsResult | null = null;
  private lastBoundRigidly = false;
  private lastError: string | null = null;
  private overlap: HandleOverlap[] | null = null;
  private overlapName = '';
  private previousWeights: { weights: DenseMatrix; source: string } | null = null;
  private solveStarted = 0;

  private readonly root: HTMLElement;
  private readonly toggleButton: HTMLButtonElement;
  private readonly viewSelect: HTMLSelectElement;
  private readonly isoCheckbox: HTMLInputElement;
  private readonly boneSelect: HTMLSelectElement;
  private readonly lassoButton: HTMLButtonElement;
  private readonly xrayButton: HTMLButtonElement;
  private readonly selectionText: HTMLElement;
  private readonly handleSummary: HTMLElement;
  private readonly sourceRadios = new Map<HandleSource, HTMLInputElement>();
  private readonly radiusSlider: HTMLInputElement;
  private readonly radiusText: HTMLElement;
  private readonly laplacianSelect: HTMLSelectElement;
  private readonly bindUnhandled: HTMLInputElement;
  private readonly computeButton: HTMLButtonElement;
  private readonly revertButton: HTMLButtonElement;
  private readonly progressBox: HTMLElement;
  private readonly progressBar: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly reportBox: HTMLElement;
  private readonly overlapBox: HTMLElement;

  constructor(private readonly host: BindingHost) {
    this.lasso = new LassoTool(host.container, host.canvas, (polygon, combine) => this.applyLasso(polygon, combine), () => this.refresh());

    const toolbar = document.getElementById('toolbar');
    const group = element('div', 'tool-group');
    this.toggleButton = toolButton(group, 'Bind', 'Handles and harmonic weights (B)', () => this.setOpen(this.root.hidden));
    this.viewSelect = element('select', 'view-select');
    this.viewSelect.title = 'View (V cycles)';
    for (const mode of VIEW_MODES) this.viewSelect.add(new Option(VIEW_LABELS[mode], mode));
    this.viewSelect.addEventListener('change', () => {
      this.setView(this.viewSelect.value as ViewMode);
      this.viewSelect.blur();
    });
    group.append(this.viewSelect);
    toolbar?.insertBefore(group, toolbar.querySelector('.scene-name'));

    this.root = element('aside', 'bind-panel');
    this.root.id = 'bind-panel';
    this.root.hidden = true;
    this.root.setAttribute('aria-label', 'Bind');
    const header = element('header', 'bind-header');
    header.append(element('h2', undefined, 'Bind'));
    toolButton(header, '×', 'Close (B)', () => this.setOpen(false), 'icon-button');
    this.root.append(header);

    // Bone and view
    const boneSection = this.section('Bone');
    this.boneSelect = element('select', 'bone-select');
    this.boneSelect.addEventListener('change', () => {
      this.host.selectBone(Number(this.boneSelect.value));
      this.boneSelect.blur();
    });
    boneSection.append(this.boneSelect);
    const isoLabel = element('label', 'check');
    this.isoCheckbox = element('input');
    this.isoCheckbox.type = 'checkbox';
    this.isoCheckbox.checked = this.isoLines;
    this.isoCheckbox.addEventListener('change', () => this.setIsoLines(this.isoCheckbox.checked));
    isoLabel.append(this.isoCheckbox, ' iso-lines every 0.1 (I)');
    boneSection.append(isoLabel);

    // Handles
    const handleSection = this.section('Handles');
    this.handleSummary = element('p', 'dim');
    const tools = element('div', 'row');
    this.lassoButton = toolButton(tools, 'Lasso', 'Draw a lasso to select vertices (L); Shift adds, Ctrl/⌘ removes, Esc cancels', () => this.setLasso(this.lasso.state === 'off'));
    this.xrayButton = toolButton(tools, 'X-ray', 'Select hidden vertices too (X)', () => this.setXray(!this.xray));
    toolButton(tools, 'Assign', 'Make the selection handles of the selected bone (A)', () => this.assignSelection());
    toolButton(tools, 'Clear', 'Free the selected vertices (Delete)', () => this.clearSelection());
    this.selectionText = element('p', 'dim');
    const files = element('div', 'row');
    toolButton(files, 'Load…', 'Open a handle file (#V × 1 DMAT)', () => void this.openHandles());
    toolButton(files, 'Save…', 'Save the handles as DMAT (#V × 1)', () => void this.saveHandles());
    toolButton(files, 'Compare…', 'Overlap with a reference handle file, per bone', () => void this.compareHandles());
    this.overlapBox = element('div', 'overlap');
    handleSection.append(this.handleSummary, tools, this.selectionText, files, this.overlapBox);

    // Compute
    const computeSection = this.section('Harmonic weights');
    const sources: [HandleSource, string][] = [
      ['current', 'Handles above'],
      ['distance', 'Automatic: distance rule'],
      ['cylinder', 'Automatic: bone cylinders'],
    ];
    for (const [source, label] of sources) {
      const row = element('label', 'check');
      const radio = element('input');
      radio.type = 'radio';
      radio.name = 'handle-source';
      radio.value = source;
      radio.checked = source === this.options.source;
      radio.addEventListener('change', () => {
        this.options.source = source;
        this.refresh();
      });
      this.sourceRadios.set(source, radio);
      row.append(radio, ` ${label}`);
      computeSection.append(row);
    }
    const radiusRow = element('label', 'slider-row');
    this.radiusSlider = element('input');
    this.radiusSlider.type = 'range';
    this.radiusSlider.min = '0.005';
    this.radiusSlider.max = '0.15';
    this.radiusSlider.step = '0.005';
    this.radiusSlider.value = String(this.options.radiusFraction);
    this.radiusSlider.addEventListener('input', () => {
      this.options.radiusFraction = Number(this.radiusSlider.value);
      this.refresh();
    });
    this.radiusText = element('span', 'dim');
    radiusRow.append('radius ', this.radiusSlider, this.radiusText);
    computeSection.append(radiusRow);
    const laplacianRow = element('label', 'slider-row');
    this.laplacianSelect = element('select');
    this.laplacianSelect.add(new Option('cotangent', 'cotan'));
    this.laplacianSelect.add(new Option('uniform', 'uniform'));
    this.laplacianSelect.addEventListener('change', () => {
      this.options.laplacian = this.laplacianSelect.value as 'cotan' | 'uniform';
      this.laplacianSelect.blur();
    });
    laplacianRow.append('Laplacian ', this.laplacianSelect);
    computeSection.append(laplacianRow);
    const unhandledRow = element('label', 'check');
    this.bindUnhandled = element('input');
    this.bindUnhandled.type = 'checkbox';
    this.bindUnhandled.addEventListener('change', () => (this.options.bindUnhandled = this.bindUnhandled.checked));
    unhandledRow.append(this.bindUnhandled, ' bind parts without handles rigidly to the nearest bone');
    computeSection.append(unhandledRow);
    const actions = element('div', 'row');
    this.computeButton = toolButton(actions, 'Compute weights', 'Harmonic weights from the handles', () => void this.startBind(), 'tool-button primary');
    this.revertButton = toolButton(actions, 'Revert', 'Back to the weights before the last computation', () => this.revert());
    toolButton(actions, 'Save weights…', 'Save the weights as DMAT (#V × #B)', () => void this.saveWeights());
    this.progressBox = element('div', 'bind-progress');
    this.progressBox.hidden = true;
    const track = element('div', 'progress-track');
    this.progressBar = element('div', 'progress-fill');
    track.append(this.progressBar);
    this.progressText = element('span', 'progress-text');
    const cancel = toolButton(this.progressBox, 'Cancel', 'Stop the computation; the current weights stay', () => this.cancelBind());
    cancel.classList.add('cancel');
    this.progressBox.prepend(track, this.progressText);
    this.reportBox = element('div', 'bind-report');
    computeSection.append(actions, this.progressBox, this.reportBox);

    host.container.append(this.root);
    this.installKeyboard();
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** The weight views of the current mesh (null before the first attach). */
  get weightView(): WeightView | null {
    return this.view;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    this.toggleButton.setAttribute('aria-pressed', String(open));
    if (!open) this.setLasso(false);
  }

  /** Called after every document swap with the new mesh view. */
  attach(doc: SceneDocument, mesh: THREE.Mesh<THREE.BufferGeometry, THREE.Material>): void {
    const previous = this.doc;
    this.doc = doc;
    const vertexCount = doc.mesh.positions.length / 3;
    const rigChanged = !previous || previous.mesh !== doc.mesh || previous.skeleton !== doc.skeleton;
    if (rigChanged || doc.handles !== previous.handles) {
      this.handles = doc.handles ? doc.handles.slice() : new Int32Array(vertexCount).fill(-1);
      this.handlesName = doc.handlesFile;
    }
    if (rigChanged) {
      this.selection = new Uint8Array(vertexCount);
      this.selectedCount = 0;
      this.lastResult = null;
      this.overlap = null;
      this.previousWeights = null;
      this.client.cancel();
      this.progress = { running: false, stage: '', fraction: 0 };
    }
    this.view = new WeightView(mesh);
    this.view.setMode(this.mode);
    this.view.setIsoLines(this.isoLines);
    this.view.setHandles(this.handles);
    this.view.setSelection(this.selection);
    this.view.setDominant(doc.weights);
    this.view.setBoneWeights(doc.weights, this.host.selectedBone());
    this.rebuildBoneList();
    this.refresh();
  }

  onBoneSelected(bone: number): void {
    if (this.doc) this.view?.setBoneWeights(this.doc.weights, bone);
    this.boneSelect.value = String(bone);
    this.boneSelect.style.borderLeftColor = bone >= 0 ? boneColorCss(bone) : '';
    this.host.invalidate();
  }

  setView(mode: ViewMode): void {
    this.mode = mode;
    this.view?.setMode(mode);
    this.viewSelect.value = mode;
    if (mode === 'heatmap' && this.host.selectedBone() < 0 && this.doc && this.doc.skeleton.parents.length > 0) this.host.selectBone(0);
    this.refresh();
    this.host.invalidate();
  }

  setIsoLines(on: boolean): void {
    this.isoLines = on;
    this.isoCheckbox.checked = on;
    this.view?.setIsoLines(on);
    this.host.invalidate();
  }

  setLasso(armed: boolean): void {
    this.lasso.setArmed(armed);
    if (armed && this.mode === 'shaded') this.setView('handles');
    this.refresh();
  }

  setXray(on: boolean): void {
    this.xray = on;
    this.refresh();
  }

  assignSelection(): void {
    const bone = this.host.selectedBone();
    if (bone < 0) {
      this.host.showError('Select a bone first (click a joint or pick it in the Bind panel), then assign the selection to it.');
      return;
    }
    if (this.selectedCount === 0) return;
    this.editHandles(assignHandles(this.handles, this.selection, bone));
  }

  clearSelection(): void {
    if (this.selectedCount === 0) return;
    this.editHandles(clearHandles(this.handles, this.selection));
  }

  /**
   * Computes harmonic weights with the panel's settings (overridden by `overrides`) and swaps them in on success.
   * Never rejects: errors are shown in the panel, Cancel leaves everything as it was.
   */
  async startBind(overrides: Partial<BindOptions> = {}): Promise<void> {
    const doc = this.doc;
    if (!doc || this.client.running) return;
    const options = { ...this.options, ...overrides };
    this.lastError = null;
    this.solveStarted = performance.now();
    this.setProgress(true, 'handles', 0);
    try {
      let handles = this.handles;
      let handleName = this.handlesName ?? 'drawn handles';
      if (options.source !== 'current') {
        const rule = options.source === 'distance' ? ({ rule: 'distance' } as const) : ({ rule: 'cylinder', radius: options.radiusFraction * doc.diagonal } as const);
        handles = await this.client.automaticHandles(doc.mesh.positions, doc.skeleton, rule);
        handleName = options.source === 'distance' ? 'automatic, distance rule' : `automatic, cylinders r = ${formatLength(rule.rule === 'cylinder' ? rule.radius : 0)}`;
        this.handlesName = handleName;
        this.setHandles(handles);
      }
      if (!handles.some((h) => h >= 0)) throw new Error('There are no handle vertices: draw some with the lasso, load a handle file or choose automatic handles.');
      const boneCount = doc.skeleton.parents.length;
      const result = await this.client.harmonicWeights(
        {
          positions: doc.mesh.positions,
          triangles: doc.mesh.triangles,
          handles,
          boneCount,
          options: { laplacian: options.laplacian, unhandledComponents: options.bindUnhandled ? 'bind-rigidly' : 'report' },
        },
        // Progress messages posted just before a cancel can still arrive after it.
        (stage, fraction) => {
          if (this.client.running) this.setProgress(true, stage, fraction);
        },
      );
      if (this.doc !== doc) return;
      this.lastResult = result;
      this.lastBoundRigidly = options.bindUnhandled;
      this.previousWeights = { weights: doc.weights, source: doc.weightsSource };
      const seconds = (performance.now() - this.solveStarted) / 1000;
      this.host.replaceWeights(
        { rows: doc.mesh.positions.length / 3, cols: boneCount, data: result.weights },
        `harmonic (${result.laplacianUsed}, ${handleName}, ${seconds.toFixed(seconds < 10 ? 1 : 0)} s)`,
      );
      if (this.mode !== 'dominant') this.setView('heatmap');
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) {
        this.lastError = errorMessage(error);
        this.host.showError(`Binding failed: ${this.lastError}`);
      }
    } finally {
      this.setProgress(false, '', 0);
    }
  }

  cancelBind(): void {
    this.client.cancel();
  }

  testHook(): BindingTestHook {
    return {
      state: () => ({
        view: this.mode,
        isoLines: this.isoLines,
        panelOpen: this.open,
        lasso: this.lasso.state,
        xray: this.xray,
        selectedVertexCount: this.selectedCount,
        handleCounts: handleCounts(this.handles, this.doc?.skeleton.parents.length ?? 0),
        binding: { ...this.progress },
        report: this.lastResult
          ? {
              bonesWithoutHandles: [...this.lastResult.bonesWithoutHandles],
              unhandledComponents: this.lastResult.unhandledComponents.map((c) => ({ ...c })),
              laplacianUsed: this.lastResult.laplacianUsed,
            }
          : null,
        lastError: this.lastError,
        overlap: this.overlap,
      }),
      setView: (view) => this.setView(view),
      setPanelOpen: (open) => this.setOpen(open),
      setLasso: (armed) => this.setLasso(armed),
      assignSelection: () => this.assignSelection(),
      startBind: (options) => this.startBind(options),
      cancelBind: () => this.cancelBind(),
      handles: () => Array.from(this.handles),
    };
  }

  private section(title: string): HTMLElement {
    const node = element('section', 'bind-section');
    node.append(element('h3', undefined, title));
    this.root.append(node);
    return node;
  }

  /** An edit by hand (the handles no longer are the file's or the rule's); it consumes the selection. */
  private editHandles(handles: Int32Array): void {
    if (this.handlesName && !this.handlesName.endsWith(', edited')) this.handlesName += ', edited';
    this.selection.fill(0);
    this.selectedCount = 0;
    this.view?.setSelection(this.selection);
    this.setHandles(handles);
  }

  private setHandles(handles: Int32Array): void {
    this.handles = handles;
    this.view?.setHandles(handles);
    this.rebuildBoneList();
    this.refresh();
    this.host.invalidate();
    this.host.handlesChanged();
  }

  /** The handle set being edited: how many vertices are handles, and where it came from (null: drawn here). */
  handleCount(): { count: number; name: string | null } {
    let count = 0;
    for (const bone of this.handles) if (bone >= 0) count++;
    return { count, name: this.handlesName };
  }

  private applyLasso(polygon: number[], combine: LassoCombine): void {
    const doc = this.doc;
    if (!doc) return;
    const rect = this.host.canvas.getBoundingClientRect();
    this.host.camera.updateMatrixWorld();
    const inside = lassoSelect({
      positions: this.host.posedPositions(),
      triangles: doc.mesh.triangles,
      viewProjection: viewProjection.multiplyMatrices(this.host.camera.projectionMatrix, this.host.camera.matrixWorldInverse).elements,
      width: rect.width,
      height: rect.height,
      polygon,
      xray: this.xray,
      diagonal: doc.diagonal,
    });
    const selection = this.selection;
    let count = 0;
    for (let v = 0; v < selection.length; v++) {
      if (combine === 'replace') selection[v] = inside[v];
      else if (combine === 'add') selection[v] |= inside[v];
      else if (inside[v]) selection[v] = 0;
      count += selection[v];
    }
    this.selectedCount = count;
    this.view?.setSelection(selection);
    this.refresh();
    this.host.invalidate();
  }

  private setProgress(running: boolean, stage: string, fraction: number): void {
    this.progress = { running, stage, fraction };
    this.progressBox.hidden = !running;
    this.computeButton.disabled = running;
    this.progressBar.style.width = `${Math.round(100 * fraction)}%`;
    let text = STAGE_TEXT[stage] ?? stage;
    if (stage === 'solve' && this.doc) {
      const active = handleCounts(this.handles, this.doc.skeleton.parents.length).filter((c) => c > 0).length;
      const done = Math.round(((fraction - 0.5) / 0.5) * active);
      text = `Solving: bone ${Math.min(active, done + 1)} of ${active}`;
      if (done >= active) text = 'Solved';
    }
    this.progressText.textContent = `${text} · ${((performance.now() - this.solveStarted) / 1000).toFixed(1)} s`;
    if (!running) this.refresh();
  }

  private revert(): void {
    const previous = this.previousWeights;
    if (!previous) return;
    this.previousWeights = null;
    this.lastResult = null;
    this.host.replaceWeights(previous.weights, previous.source);
  }

  private rebuildBoneList(): void {
    const doc = this.doc;
    if (!doc) return;
    const counts = handleCounts(this.handles, doc.skeleton.parents.length);
    const selected = this.host.selectedBone();
    this.boneSelect.replaceChildren(new Option('— no bone —', '-1'));
    for (let b = 0; b < counts.length; b++) {
      const [start, end] = doc.skeleton.bones.subarray(2 * b, 2 * b + 2);
      const option = new Option(`bone ${b} · joint ${start} → ${end} · ${counts[b]} handles`, String(b));
      option.style.color = boneColorCss(b);
      this.boneSelect.add(option);
    }
    this.boneSelect.value = String(selected);
    this.boneSelect.style.borderLeftColor = selected >= 0 ? boneColorCss(selected) : '';
  }

  private refresh(): void {
    const doc = this.doc;
    if (!doc) return;
    this.viewSelect.value = this.mode;
    this.lassoButton.setAttribute('aria-pressed', String(this.lasso.state !== 'off'));
    this.xrayButton.setAttribute('aria-pressed', String(this.xray));
    const counts = handleCounts(this.handles, doc.skeleton.parents.length);
    const total = counts.reduce((a, b) => a + b, 0);
    const without = counts.flatMap((c, b) => (c === 0 ? [b] : []));
    this.handleSummary.textContent =
      `${total} handle vertices${this.handlesName ? ` (${this.handlesName})` : ''}` +
      (without.length > 0 && without.length < counts.length ? ` · no handles on bone${without.length > 1 ? 's' : ''} ${without.join(', ')}` : '') +
      (total === 0 ? ' · draw them with the lasso, load a file or use automatic handles' : '');
    this.selectionText.textContent =
      this.lasso.state === 'off'
        ? `${this.selectedCount} vertices selected · L: lasso`
        : `${this.selectedCount} vertices selected · drag to lasso${this.xray ? ' (x-ray: hidden vertices too)' : ' (visible vertices)'} · Shift adds · Ctrl/⌘ removes`;
    this.radiusText.textContent = ` ${formatLength(this.options.radiusFraction * doc.diagonal)}`;
    this.radiusSlider.disabled = this.options.source !== 'cylinder';
    this.revertButton.disabled = this.previousWeights === null;
    for (const [source, radio] of this.sourceRadios) radio.checked = source === this.options.source;
    this.boneSelect.value = String(this.host.selectedBone());
    this.renderReport();
    this.renderOverlap();
  }

  private renderReport(): void {
    const result = this.lastResult;
    const lines = result ? bindingReport(result.bonesWithoutHandles, result.unhandledComponents, this.lastBoundRigidly) : [];
    this.reportBox.replaceChildren();
    if (!result) {
      if (this.doc) this.reportBox.append(element('p', 'dim', `Current weights: ${this.doc.weightsSource}.`));
      return;
    }
    const summary = element('p', 'ok', `Done in ${(result.timings.totalMs / 1000).toFixed(2)} s · ${result.laplacianUsed} Laplacian`);
    this.reportBox.append(summary);
    for (const line of lines) this.reportBox.append(element('p', 'warn', `⚠ ${line}`));
    if (result.unhandledComponents.length > 0 && !this.lastBoundRigidly) {
      toolButton(this.reportBox, 'Bind them rigidly and recompute', 'Parts without handles follow their nearest bone', () => {
        this.options.bindUnhandled = true;
        this.bindUnhandled.checked = true;
        void this.startBind();
      });
    }
  }

  private renderOverlap(): void {
    this.overlapBox.replaceChildren();
    if (!this.overlap) return;
    const table = element('table');
    const head = element('tr');
    for (const title of ['bone', 'ours', 'ref', '∩ / ∪']) head.append(element('th', undefined, title));
    table.append(head);
    for (const row of this.overlap) {
      if (row.union === 0) continue;
      const tr = element('tr');
      const bone = element('td');
      const swatch = element('span', 'swatch');
      swatch.style.background = boneColorCss(row.bone);
      bone.append(swatch, String(row.bone));
      const score = element('td', row.jaccard >= 0.9 ? 'ok' : row.jaccard >= 0.5 ? '' : 'warn', row.jaccard.toFixed(2));
      tr.append(bone, element('td', undefined, String(row.ours)), element('td', undefined, String(row.reference)), score);
      table.append(tr);
    }
    this.overlapBox.append(element('p', 'dim', `Overlap with ${this.overlapName}`), table);
  }

  private async openHandles(): Promise<void> {
    const files = await this.host.bridge.openFiles({ title: 'Open a handle file', extensions: ['dmat'] });
    if (files.length > 0) await this.host.load(files);
  }

  private async saveHandles(): Promise<void> {
    await this.save('handles.dmat', writeDmatAscii(handlesToMatrix(this.handles)));
  }

  private async saveWeights(): Promise<void> {
    if (!this.doc) return;
    await this.save('weights.dmat', writeDmatAscii(this.doc.weights));
  }

  private async save(name: string, text: string): Promise<void> {
    try {
      await this.host.bridge.saveFile({ suggestedName: name, bytes: new TextEncoder().encode(text) });
    } catch (error) {
      this.host.showError(`Could not save ${name}: ${errorMessage(error)}`);
    }
  }

  private async compareHandles(): Promise<void> {
    const doc = this.doc;
    if (!doc) return;
    try {
      const [file] = await this.host.bridge.openFiles({ title: 'Open a reference handle file', extensions: ['dmat'] });
      if (!file) return;
      const io = getIoClient();
      const read = await io.readRigFile(file.name, file.bytes);
      if (read.kind !== 'matrix') throw new Error(`${file.name}: not a DMAT matrix`);
      const reference = await io.handlesFromDmat(read.matrix, doc.mesh.positions.length / 3, doc.skeleton.parents.length, file.name);
      this.overlap = handleOverlap(this.handles, reference, doc.skeleton.parents.length);
      this.overlapName = file.name;
      this.refresh();
    } catch (error) {
      this.host.showError(errorMessage(error));
    }
  }

  private installKeyboard(): void {
    window.addEventListener('keydown', (event) => {
      const target = event.target as HTMLElement | null;
      if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
      if (event.key === 'Escape') {
        this.lasso.cancel();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key.toLowerCase();
      // Handle editing (lasso, x-ray, assign, clear) acts only while the panel shows what it changes.
      if (this.root.hidden && ['l', 'x', 'a', 'delete', 'backspace'].includes(key)) return;
      switch (key) {
        case 'b':
          this.setOpen(this.root.hidden);
          break;
        case 'v':
          this.setView(VIEW_MODES[(VIEW_MODES.indexOf(this.mode) + 1) % VIEW_MODES.length]);
          break;
        case 'i':
          this.setIsoLines(!this.isoLines);
          break;
        case 'l':
          this.setLasso(this.lasso.state === 'off');
          break;
        case 'x':
          this.setXray(!this.xray);
          break;
        case 'a':
          this.assignSelection();
          break;
        case 'delete':
        case 'backspace':
          this.clearSelection();
          break;
        default:
          return;
      }
      event.preventDefault();
    });
  }
}

function formatLength(x: number): string {
  return Number(x.toPrecision(3)).toString();
}
