/**
 * The Bind panel (B): the bone and the view, the handles (lasso, x-ray, assign, free, load, save, compare with a
 * reference), and harmonic weights (handle source, Laplacian, parts without handles, weld distance) with progress, Cancel, the
 * solver's report and Undo. It shows the binding controller's state and acts through commands (its options through
 * bind.options); it owns nothing.
 */
import './bind-panel.css';
import type { HandleOverlap } from '../../workers/weights/handle-edits.ts';
import { STALE_BINDING_TEXT, type BindingController, type HandleSource } from '../bind/binding-controller.ts';
import { formatLength } from '../project/length-units.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { ViewMode } from '../view/view-modes.ts';
import {
  commandButton,
  element,
  floatingPanel,
  labelled,
  refreshCommandButtons,
  section,
  slider,
  valueField,
  type Slider,
  type ValueField,
} from './controls.ts';
import { dockPanel } from './panel-dock.ts';
import { countOf } from '../project/plain-number.ts';
import { MAX_INFLUENCE_CHOICES, type MaxInfluences } from '../bind/max-influences.ts';
import { BindingSummarySection, type SummaryRow } from './binding-summary-section.ts';
import { doneLine } from '../bind/done-line.ts';

/** The weld distance field's step, in mesh units: fine enough for meshes in metres and in centimetres alike. */
const WELD_STEP = 0.000001;

/** The binding methods as the panel names them (bind.options' method). */
const METHODS = [
  ['auto', 'automatic (volumetric for several shells, an open mesh or one mostly handles)'],
  ['surface', 'surface (harmonic, from the handles)'],
  ['volumetric', 'volumetric (geodesic voxels, from the bones)'],
] as const;

/** The volumetric grid's resolutions offered (bind.options takes any whole number from 64 to 512). */
const VOXEL_RESOLUTIONS = [64, 128, 256, 512];

export interface BindPanelHost {
  readonly controller: BindingController;
  readonly commands: CommandRegistry;
  document(): SceneDocument;
  selectedBone(): number;
  selectBone(bone: number): void;
  /** #B bone names, by bone index (the file's names, or `bone <index>`) */
  boneNames(): readonly string[];
  /** the views the mesh can show, in the order V cycles them */
  viewModes(): { mode: ViewMode; label: string }[];
  view(): ViewMode;
  setView(mode: ViewMode): void;
  isoLines(): boolean;
  setIsoLines(on: boolean): void;
  /** whether the lasso is the active tool */
  lassoActive(): boolean;
  /** the scene's max influences, and how many vertices of its weights have more */
  readonly maxInfluences: Pick<MaxInfluences, 'value' | 'verticesOver'>;
  /** the binding report's lines (bind/binding-summary.ts), for the Last binding section; absent: no section */
  summary?(): readonly SummaryRow[];
}

/** CSS twin of rwBoneColor in shaders/handle-colors.glsl, for the swatches. */
export function boneColorCss(bone: number): string {
  const hue = (0.07 + bone * 0.6180339887) % 1;
  const band = bone % 3;
  const saturation = band === 0 ? 0.72 : band === 1 ? 0.5 : 0.85;
  const value = band === 0 ? 0.95 : band === 1 ? 0.85 : 0.72;
  const channel = (offset: number) => {
    const p = Math.abs(((hue + offset) % 1) * 6 - 3);
    const c = Math.min(1, Math.max(0, p - 1));
    return Math.round(255 * value * (1 - saturation + saturation * c));
  };
  return `rgb(${channel(0)}, ${channel(2 / 3)}, ${channel(1 / 3)})`;
}

const SOURCES: [HandleSource, string][] = [
  ['current', 'Handles above'],
  ['distance', 'Automatic: distance rule'],
  ['cylinder', 'Automatic: bone cylinders'],
];

export class BindPanel {
  private readonly root: HTMLElement;
  private readonly viewSelect: HTMLSelectElement;
  private readonly isoCheckbox: HTMLInputElement;
  private readonly boneSelect: HTMLSelectElement;
  private readonly selectionText: HTMLElement;
  private readonly handleSummary: HTMLElement;
  private readonly sourceRadios = new Map<HandleSource, HTMLInputElement>();
  private readonly radiusSlider: Slider;
  private readonly radiusText: HTMLElement;
  private readonly laplacianSelect: HTMLSelectElement;
  private readonly bindUnhandled: HTMLInputElement;
  private readonly weldField: ValueField;
  private readonly methodSelect: HTMLSelectElement;
  private readonly resolutionSelect: HTMLSelectElement;
  private readonly falloffField: ValueField;
  private readonly maxInfluencesSelect: HTMLSelectElement;
  private readonly maxInfluencesNote: HTMLElement;
  private readonly maxInfluencesText: HTMLElement;
  /** what Compute weights will replace: drawn handles, when a rule is the handle source */
  private readonly replaceNote: HTMLElement;
  private readonly progressBox: HTMLElement;
  private readonly progressBar: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly reportBox: HTMLElement;
  /** the last Compute's shells by method, the welded vertices and the last transfer, each line with Select */
  private readonly summarySection: BindingSummarySection;
  private readonly overlapBox: HTMLElement;
  /** the bone list is rebuilt only when what it lists changes */
  private boneListKey = '';

  /**
   * @param toolbar    the page toolbar: the Bind button and the view picker join it
   * @param container  the viewport element the panel floats over
   */
  constructor(
    toolbar: HTMLElement,
    container: HTMLElement,
    private readonly host: BindPanelHost,
  ) {
    const { controller, commands } = host;
    const options = controller.options;
    const group = element('div', 'tool-group');
    this.viewSelect = element('select', 'view-select');
    this.viewSelect.title = 'View (V cycles)';
    for (const { mode, label } of host.viewModes()) this.viewSelect.add(new Option(label, mode));
    this.viewSelect.addEventListener('change', () => {
      host.setView(this.viewSelect.value as ViewMode);
      this.viewSelect.blur();
    });
    group.append(this.viewSelect);
    toolbar.insertBefore(group, toolbar.querySelector('.scene-name'));

    this.root = floatingPanel('bind-panel', 'bind-panel', 'Bind', commands, 'bind.panel');

    const boneSection = section(this.root, 'Bone');
    this.boneSelect = element('select', 'bone-select');
    this.boneSelect.addEventListener('change', () => {
      host.selectBone(Number(this.boneSelect.value));
      this.boneSelect.blur();
    });
    boneSection.append(this.boneSelect);
    this.isoCheckbox = element('input');
    this.isoCheckbox.type = 'checkbox';
    this.isoCheckbox.addEventListener('change', () => host.setIsoLines(this.isoCheckbox.checked));
    const isoLabel = element('label', 'check');
    isoLabel.append(this.isoCheckbox, ' iso-lines every 0.1 (I)');
    boneSection.append(isoLabel);

    const handleSection = section(this.root, 'Handles');
    this.handleSummary = element('p', 'dim');
    const tools = element('div', 'row');
    commandButton(tools, commands, 'tool.lasso', { label: 'Lasso' });
    commandButton(tools, commands, 'bind.xray', { label: 'X-ray' });
    commandButton(tools, commands, 'bind.assign', { label: 'Assign' });
    commandButton(tools, commands, 'bind.clear', { label: 'Clear' });
    this.selectionText = element('p', 'dim');
    const files = element('div', 'row');
    commandButton(files, commands, 'bind.loadHandles', { label: 'Load…' });
    commandButton(files, commands, 'bind.saveHandles', { label: 'Save…' });
    commandButton(files, commands, 'bind.compareHandles', { label: 'Compare…' });
    this.overlapBox = element('div', 'overlap');
    handleSection.append(this.handleSummary, tools, this.selectionText, files, this.overlapBox);

    const computeSection = section(this.root, 'Harmonic weights');
    for (const [source, label] of SOURCES) {
      const radio = element('input');
      radio.type = 'radio';
      radio.name = 'handle-source';
      radio.value = source;
      radio.addEventListener('change', () => void commands.invoke('bind.options', { source }));
      this.sourceRadios.set(source, radio);
      const row = element('label', 'check');
      row.append(radio, ` ${label}`);
      computeSection.append(row);
    }
    this.radiusSlider = slider(
      0.005,
      0.15,
      0.005,
      () => this.host.controller.options.radiusFraction,
      (radiusFraction) => void commands.invoke('bind.options', { radiusFraction }),
    );
    this.radiusSlider.title = 'Automatic handles’ cylinder radius, as a fraction of the mesh’s bounding-box diagonal';
    this.radiusText = element('span', 'dim');
    labelled(computeSection, 'radius ', this.radiusSlider).append(this.radiusText);
    this.laplacianSelect = element('select');
    this.laplacianSelect.add(new Option('surface-aware (cotangent)', 'cotan'));
    this.laplacianSelect.add(new Option('even (uniform)', 'uniform'));
    this.laplacianSelect.title =
      'How the weights spread over the surface: surface-aware follows the triangles’ shapes, even treats every edge alike (the Laplacian of the harmonic solve: cotangent or uniform; Jacobson 2011)';
    this.laplacianSelect.value = options.laplacian;
    this.laplacianSelect.addEventListener('change', () => {
      void commands.invoke('bind.options', { laplacian: this.laplacianSelect.value });
      this.laplacianSelect.blur();
    });
    labelled(computeSection, 'Smoothness ', this.laplacianSelect);
    this.bindUnhandled = element('input');
    this.bindUnhandled.type = 'checkbox';
    this.bindUnhandled.checked = options.bindUnhandled;
    this.bindUnhandled.addEventListener(
      'change',
      () => void commands.invoke('bind.options', { bindUnhandled: this.bindUnhandled.checked }),
    );
    const unhandledRow = element('label', 'check');
    unhandledRow.append(this.bindUnhandled, ' bind parts without handles rigidly to the nearest bone');
    computeSection.append(unhandledRow);
    this.weldField = valueField(
      0,
      Number.MAX_SAFE_INTEGER,
      WELD_STEP,
      (weldTolerance) => void commands.invoke('bind.options', { weldTolerance }),
    );
    this.weldField.input.setAttribute('aria-label', 'Weld within');
    this.weldField.input.title =
      'Vertices this close (in mesh units) are one vertex for the weights and get the same weights, so a mesh split at UV seams or normal creases moves as one surface; 0 joins only vertices at the same position. The mesh itself keeps its vertices.';
    labelled(computeSection, 'Weld within ', this.weldField.root).append(element('span', 'dim', ' mesh units (0: same position)'));
    this.methodSelect = element('select', 'bind-method');
    for (const [method, label] of METHODS) this.methodSelect.add(new Option(label, method));
    this.methodSelect.setAttribute('aria-label', 'Binding method');
    this.methodSelect.title =
      'Surface: harmonic weights over the surface from the handles, exact on a closed connected mesh. Volumetric: weights from the bones through the solid the mesh encloses (geodesic voxel binding, Dionne and de Lasa 2013), so every shell — eyes, teeth, clothing, open or intersecting parts — gets weights, with no handles. Automatic picks volumetric for a mesh of several shells or with a boundary, or one whose automatic handles would take over half its vertices (whole cross-sections inside the handles: bones short against the mesh’s thickness, or limbs thinner than the cylinders), which the surface solve would bind mostly rigidly.';
    this.methodSelect.addEventListener('change', () => {
      void commands.invoke('bind.options', { method: this.methodSelect.value });
      this.methodSelect.blur();
    });
    labelled(computeSection, 'Method ', this.methodSelect);
    this.resolutionSelect = element('select', 'voxel-resolution');
    for (const resolution of VOXEL_RESOLUTIONS) this.resolutionSelect.add(new Option(String(resolution), String(resolution)));
    this.resolutionSelect.setAttribute('aria-label', 'Voxel resolution');
    this.resolutionSelect.title =
      'Voxels along the mesh’s longest side for the volumetric method: more resolves thin parts and narrow gaps better, and takes longer (memory grows with the cube)';
    this.resolutionSelect.addEventListener('change', () => {
      void commands.invoke('bind.options', { voxelResolution: Number(this.resolutionSelect.value) });
      this.resolutionSelect.blur();
    });
    labelled(computeSection, 'Voxels ', this.resolutionSelect).append(element('span', 'dim', ' along the longest side'));
    this.falloffField = valueField(1, 16, 0.5, (falloff) => void commands.invoke('bind.options', { falloff }));
    this.falloffField.input.setAttribute('aria-label', 'Falloff');
    this.falloffField.input.title =
      'How fast a bone’s influence falls off with the distance through the solid (weights ∝ distance^−falloff): higher keeps each part on its own bone and blends only near the joints';
    labelled(computeSection, 'Falloff ', this.falloffField.root).append(element('span', 'dim', ' (volumetric)'));
    this.maxInfluencesSelect = element('select', 'max-influences');
    this.maxInfluencesSelect.title =
      'The most bones per vertex (as Maya’s max influences, maintained): computed weights, paint strokes, the view and the glTF export keep it; lowering it limits the weights (one undo step), raising it limits nothing';
    for (const count of MAX_INFLUENCE_CHOICES) this.maxInfluencesSelect.add(new Option(String(count), String(count)));
    this.maxInfluencesSelect.addEventListener('change', () => {
      void commands.invoke('bind.maxInfluences', Number(this.maxInfluencesSelect.value));
      this.maxInfluencesSelect.blur();
    });
    labelled(computeSection, 'Max influences ', this.maxInfluencesSelect).append(element('span', 'dim', ' bones per vertex'));
    this.maxInfluencesNote = element('p', 'warn max-influences-note');
    this.maxInfluencesText = element('span', 'max-influences-text');
    this.maxInfluencesNote.append(this.maxInfluencesText, ' ');
    commandButton(this.maxInfluencesNote, commands, 'bind.limitInfluences', { label: 'Limit now' });
    this.replaceNote = element('p', 'warn replace-note');
    computeSection.append(this.maxInfluencesNote, this.replaceNote);
    const actions = element('div', 'row');
    commandButton(actions, commands, 'bind.compute', { className: 'tool-button primary' });
    commandButton(actions, commands, 'edit.undo', { showTitle: true });
    commandButton(actions, commands, 'bind.saveWeights');
    this.progressBox = element('div', 'bind-progress');
    this.progressBox.hidden = true;
    const track = element('div', 'progress-track');
    this.progressBar = element('div', 'progress-fill');
    track.append(this.progressBar);
    this.progressText = element('span', 'progress-text');
    this.progressBox.append(track, this.progressText);
    commandButton(this.progressBox, commands, 'bind.cancel', { label: 'Cancel', className: 'tool-button cancel' });
    this.reportBox = element('div', 'bind-report');
    computeSection.append(actions, this.progressBox, this.reportBox);
    this.summarySection = new BindingSummarySection(computeSection, commands);
    dockPanel(container, this.root, 'bind');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    this.refresh();
  }

  /** Redraws the panel and the toolbar's view picker from the state. */
  refresh(): void {
    const { controller, commands } = this.host;
    this.viewSelect.value = this.host.view();
    refreshCommandButtons(this.viewSelect.parentElement!, commands);
    if (this.root.hidden) return;
    const doc = this.host.document();
    const counts = controller.handleCounts();
    this.refreshBones(doc, counts);
    this.isoCheckbox.checked = this.host.isoLines();
    const total = counts.reduce((a, b) => a + b, 0);
    const without = counts.flatMap((c, b) => (c === 0 ? [b] : []));
    const name = controller.handlesName;
    const names = this.host.boneNames();
    this.handleSummary.textContent =
      `${total} handle vertices${name ? ` (${name})` : ''}` +
      (without.length > 0 && without.length < counts.length ? ` · no handles on ${without.map((b) => names[b]).join(', ')}` : '') +
      (total === 0 ? ' · draw them with the lasso, load a file or use automatic handles' : '');
    this.selectionText.textContent = this.host.lassoActive()
      ? `${countOf(controller.selectedCount, 'vertex', 'vertices')} selected · drag to lasso${controller.xray ? ' (x-ray: hidden vertices too)' : ' (visible vertices)'} · Shift adds · Ctrl/⌘ removes`
      : `${countOf(controller.selectedCount, 'vertex', 'vertices')} selected · L: lasso`;
    const options = controller.options;
    this.radiusText.textContent = ` ${formatLength(options.radiusFraction * doc.diagonal)}`;
    this.radiusSlider.disabled = options.source !== 'cylinder';
    this.radiusSlider.valueField.input.disabled = this.radiusSlider.disabled;
    for (const [source, radio] of this.sourceRadios) radio.checked = source === options.source;
    this.radiusSlider.sync();
    this.laplacianSelect.value = options.laplacian;
    this.bindUnhandled.checked = options.bindUnhandled;
    this.weldField.show(options.weldTolerance);
    this.methodSelect.value = options.method;
    if (!VOXEL_RESOLUTIONS.includes(options.voxelResolution)) {
      // A script or a project may set any resolution in range: the list shows it too.
      const value = String(options.voxelResolution);
      if (![...this.resolutionSelect.options].some((o) => o.value === value)) this.resolutionSelect.add(new Option(value, value));
    }
    this.resolutionSelect.value = String(options.voxelResolution);
    this.resolutionSelect.disabled = options.method === 'surface';
    this.falloffField.show(options.falloff);
    this.falloffField.input.disabled = options.method === 'surface';
    this.refreshMaxInfluences();
    // Compute (the whole scene) replaces the handles drawn or loaded, not those a rule wrote (handleVerticesReplaced).
    const replaced = options.source === 'current' ? 0 : controller.handleVerticesReplaced(null);
    this.replaceNote.hidden = replaced === 0;
    if (replaced > 0)
      this.replaceNote.textContent = `Compute replaces the ${countOf(replaced, 'handle vertex', 'handle vertices')} above (${name ?? 'drawn handles'}) with automatic ones; Undo brings them back.`;
    const { running, fraction } = controller.progress;
    this.progressBox.hidden = !running;
    this.progressBar.style.width = `${Math.round(100 * fraction)}%`;
    if (running) this.progressText.textContent = controller.progressText();
    refreshCommandButtons(this.root, commands);
    this.renderReport(doc);
    this.renderOverlap(controller.overlap);
  }

  private refreshMaxInfluences(): void {
    const limit = this.host.maxInfluences;
    const value = limit.value;
    this.maxInfluencesSelect.value = String(value);
    const over = limit.verticesOver();
    this.maxInfluencesNote.hidden = over === 0;
    if (over > 0)
      this.maxInfluencesText.textContent = `${countOf(over, 'vertex has', 'vertices have')} more than ${value} (weights from before or from a file): the view and the export use the ${value} largest; Limit now keeps those in the weights.`;
  }

  private refreshBones(doc: SceneDocument, counts: number[]): void {
    const selected = this.host.selectedBone();
    const names = this.host.boneNames();
    const key = `${counts.join(',')}|${doc.skeleton.bones.length}|${names.join('\n')}`;
    if (key !== this.boneListKey) {
      this.boneListKey = key;
      this.boneSelect.replaceChildren(new Option('— no bone —', '-1'));
      for (let b = 0; b < counts.length; b++) {
        const [start, end] = doc.skeleton.bones.subarray(2 * b, 2 * b + 2);
        const option = new Option(`${names[b]} · joint ${start} → ${end} · ${countOf(counts[b], 'handle')}`, String(b));
        option.style.color = boneColorCss(b);
        this.boneSelect.add(option);
      }
    }
    this.boneSelect.value = String(selected);
    this.boneSelect.style.borderLeftColor = selected >= 0 ? boneColorCss(selected) : '';
  }

  private renderReport(doc: SceneDocument): void {
    const { controller } = this.host;
    const last = controller.lastResult;
    this.summarySection.show(this.host.summary?.() ?? []);
    this.reportBox.replaceChildren();
    if (doc.bindingStale) this.reportBox.append(element('p', 'warn bind-stale', `⚠ ${STALE_BINDING_TEXT}.`));
    if (!last) {
      this.reportBox.append(element('p', 'dim', `Current weights: ${doc.weightsSource}.`));
      return;
    }
    this.reportBox.append(element('p', 'ok', doneLine(last, controller.handleCounts().length)));
    for (const line of controller.reportLines()) this.reportBox.append(element('p', 'warn', `⚠ ${line}`));
    if (last.method === 'surface' && last.result.unhandledComponents.length > 0 && !last.boundRigidly) {
      commandButton(this.reportBox, this.host.commands, 'bind.computeRigid', { label: 'Bind them rigidly and recompute' });
    }
  }

  private renderOverlap(overlap: { rows: HandleOverlap[]; name: string } | null): void {
    this.overlapBox.replaceChildren();
    if (!overlap) return;
    const table = element('table');
    const head = element('tr');
    for (const title of ['bone', 'ours', 'ref', '∩ / ∪']) head.append(element('th', undefined, title));
    table.append(head);
    for (const row of overlap.rows) {
      if (row.union === 0) continue;
      const tr = element('tr');
      const bone = element('td');
      const swatch = element('span', 'swatch');
      swatch.style.background = boneColorCss(row.bone);
      bone.append(swatch, this.host.boneNames()[row.bone] ?? String(row.bone));
      const score = element('td', row.jaccard >= 0.9 ? 'ok' : row.jaccard >= 0.5 ? '' : 'warn', row.jaccard.toFixed(2));
      tr.append(bone, element('td', undefined, String(row.ours)), element('td', undefined, String(row.reference)), score);
      table.append(tr);
    }
    this.overlapBox.append(element('p', 'dim', `Overlap with ${overlap.name}`), table);
  }
}
