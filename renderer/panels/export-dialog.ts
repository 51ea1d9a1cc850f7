/**
 * The glTF export dialog: file format, what happens to the influences, weight storage, compression, the current pose sequence as a clip,
 * and the current skinning method baked as vertex animation — with the bake's size shown before anything is
 * written (vertexAnimationCost). It only gathers choices; the caller runs the export and reports the outcome.
 * Influences and weight storage outlive the dialog (the "as exported" preview shows them, a project saves them):
 * the influences are the scene's max influences, which the dialog states with what the export does to weights over
 * it; the weight storage is asked for through the command its opener hands it, and shows what `applySettings` sets.
 */
import type { GltfCompression } from '../../workers/formats/gltf-extensions.ts';
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';
import type { VertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import { formatCount } from '../project/plain-number.ts';
import './export-dialog.css';
import { childElement as el } from './controls.ts';

/** What the user chose. */
export interface ExportChoice {
  /** base name with extension .glb or .gltf */
  fileName: string;
  format: 'glb' | 'gltf';
  /** the scene's max influences (1 … 8): four or fewer write one joint set, more write two */
  influences: number;
  weightComponent: GltfWeightComponent;
  /** geometry compression, written as a required extension */
  compression: GltfCompression;
  includeClip: boolean;
  bake: boolean;
}

/** The scene facts the dialog shows. */
export interface ExportContext {
  /** suggested file name without extension */
  baseName: string;
  vertexCount: number;
  /** the current pose sequence's clip name, or null in the rest pose */
  clipName: string | null;
  /** how many clips the export writes with the animation included (the scene's clips and the shown sequence) */
  clipCount: number;
  /** keyframes a bake of the current sequence writes (bakeFrameCount) */
  bakeFrames: number;
  /** the skinning method shown, e.g. 'Dual quaternion' */
  methodLabel: string;
  /** null when the method bakes; else why it cannot */
  bakeProblem: string | null;
  /** what baking the sequence would add to the file (vertexAnimationCost) */
  bakeCost: VertexAnimationCost;
  /** what the export does with the influences (exportInfluenceNote: the limit, the vertices over it, the joint sets) */
  influenceNote: string;
  /** the joint sets the export writes: two where a vertex keeps more than four, min(K, most influences) > 4 */
  jointSets: 1 | 2;
}

/** The export's stored influences (the scene's max influences), which the "as exported" preview mirrors. */
export interface ExportedWeightSettings {
  influences: number;
  weightComponent: GltfWeightComponent;
}

const WEIGHT_COMPONENTS: [GltfWeightComponent, string][] = [
  ['float', 'Float (32-bit)'],
  ['unsigned-short', 'Unsigned short (16-bit)'],
  ['unsigned-byte', 'Unsigned byte (8-bit)'],
];

/** 1 234 B, 12.3 KB, 4.56 MB (powers of 1000, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toPrecision(3)} ${units[unit]}`;
}

function radioRow<T extends string>(parent: HTMLElement, name: string, choices: [T, string, string][]): Map<T, HTMLInputElement> {
  const row = el('div', 'export-segmented', parent);
  row.setAttribute('role', 'radiogroup');
  const inputs = new Map<T, HTMLInputElement>();
  for (const [value, label, hint] of choices) {
    const option = el('label', 'export-segment', row);
    const input = el('input', '', option);
    input.type = 'radio';
    input.name = name;
    input.value = value;
    el('span', 'export-segment-label', option, label);
    el('span', 'export-segment-hint', option, hint);
    inputs.set(value, input);
  }
  return inputs;
}

function field(parent: HTMLElement, label: string): HTMLElement {
  const row = el('div', 'export-field', parent);
  el('div', 'export-field-label', row, label);
  return el('div', 'export-field-body', row);
}

/** The export's defaults (GLTF_EXPORT_DEFAULTS), handed in by whoever opens the dialog. */
export interface ExportDefaults extends ExportedWeightSettings {
  format: 'glb' | 'gltf';
}

export class ExportDialog {
  readonly settings: ExportedWeightSettings;
  private readonly dialog: HTMLDialogElement;
  private readonly nameInput: HTMLInputElement;
  private readonly extension: HTMLSpanElement;
  private readonly formats: Map<'glb' | 'gltf', HTMLInputElement>;
  private readonly influenceNote: HTMLElement;
  private readonly influenceWarning: HTMLElement;
  private readonly compressionNote: HTMLElement;
  private readonly componentSelect: HTMLSelectElement;
  private readonly compressions: Map<GltfCompression, HTMLInputElement>;
  private readonly clipInput: HTMLInputElement;
  private readonly clipLabel: HTMLElement;
  private readonly bakeInput: HTMLInputElement;
  private readonly bakeLabel: HTMLElement;
  private readonly bakeCost: HTMLElement;
  private readonly message: HTMLElement;
  private readonly exportButton: HTMLButtonElement;
  private context: ExportContext | null = null;
  /** asks for a new weight storage (the opener's command); applySettings is what it ends in */
  private changeSettings: ((settings: Pick<ExportedWeightSettings, 'weightComponent'>) => void) | null = null;
  private format: 'glb' | 'gltf';
  private compression: GltfCompression = 'none';

  /**
   * @param defaults          the choices the dialog starts with
   * @param run               runs the export with the choice; resolves when written, rejects with a message
   * @param onSettingsChange  influences or weight storage changed (the "as exported" preview follows)
   */
  constructor(
    defaults: ExportDefaults,
    private readonly run: (choice: ExportChoice) => Promise<void>,
    private readonly onSettingsChange: (settings: ExportedWeightSettings) => void,
  ) {
    this.settings = { influences: defaults.influences, weightComponent: defaults.weightComponent };
    this.format = defaults.format;
    this.dialog = el('dialog', 'export-dialog');
    this.dialog.setAttribute('aria-labelledby', 'export-dialog-title');
    const form = el('form', 'export-form', this.dialog);
    form.method = 'dialog';
    const header = el('header', 'export-header', form);
    const title = el('h2', '', header, 'Export glTF');
    title.id = 'export-dialog-title';
    el('p', 'export-subtitle', header, 'A skinned mesh with its skeleton, weights and animation, for any glTF 2.0 engine.');

    const body = el('div', 'export-body', form);
    const nameBody = field(body, 'File name');
    const nameBox = el('div', 'export-name', nameBody);
    this.nameInput = el('input', '', nameBox);
    this.nameInput.type = 'text';
    this.nameInput.spellcheck = false;
    this.nameInput.setAttribute('aria-label', 'File name');
    this.extension = el('span', 'export-extension', nameBox);

    this.formats = radioRow(field(body, 'Format'), 'export-format', [
      ['glb', 'GLB', 'one binary file'],
      ['gltf', 'glTF + bin', 'JSON and a .bin buffer'],
    ]);
    const influences = field(body, 'Influences');
    this.influenceNote = el('p', 'export-note export-influences', influences);
    this.influenceNote.title = 'Max influences is set in the Bind panel (Rig → Bind panel)';
    this.influenceWarning = el(
      'p',
      'export-note export-warning',
      body,
      'Many viewers read only the first set of four and skin with part of the weight.',
    );

    const storage = field(body, 'Weight storage');
    this.componentSelect = el('select', 'export-select', storage);
    this.componentSelect.setAttribute('aria-label', 'Weight storage');
    for (const [value, label] of WEIGHT_COMPONENTS) this.componentSelect.add(new Option(label, value));

    this.compressions = radioRow(field(body, 'Compression'), 'export-compression', [
      ['none', 'None', 'every reader opens it'],
      ['draco', 'Draco', 'smallest; positions to 14 bits'],
      ['meshopt', 'Meshopt', 'lossless here; fast to decode'],
    ]);
    this.compressionNote = el(
      'p',
      'export-note export-warning',
      body,
      'Written as a required extension: a reader without its decoder cannot open the file.',
    );

    const animation = field(body, 'Animation');
    const clipRow = el('label', 'export-check', animation);
    this.clipInput = el('input', '', clipRow);
    this.clipInput.type = 'checkbox';
    this.clipInput.name = 'include-clip';
    this.clipLabel = el('span', '', clipRow);
    const bakeRow = el('label', 'export-check', animation);
    this.bakeInput = el('input', '', bakeRow);
    this.bakeInput.type = 'checkbox';
    this.bakeInput.name = 'bake';
    this.bakeLabel = el('span', '', bakeRow);
    this.bakeCost = el('p', 'export-note export-cost', animation);

    this.message = el('p', 'export-message', form);
    this.message.setAttribute('role', 'status');
    const footer = el('footer', 'export-footer', form);
    const cancel = el('button', 'tool-button', footer, 'Cancel');
    cancel.type = 'button';
    cancel.addEventListener('click', () => this.close());
    this.exportButton = el('button', 'tool-button export-primary', footer, 'Export');
    this.exportButton.type = 'submit';

    for (const input of this.formats.values()) input.addEventListener('change', () => this.refresh());
    this.componentSelect.addEventListener('change', () => this.settingsChanged());
    for (const input of this.compressions.values()) input.addEventListener('change', () => this.refresh());
    this.bakeInput.addEventListener('change', () => this.refresh());
    this.clipInput.addEventListener('change', () => this.refresh());
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    // Focus left on a closed dialog's button (Cancel, Escape, Export) would keep the shortcuts from the keyboard.
    // Escape (cancel) blurs at once: the close event comes a task later, and a key pressed in between would
    // still go to the name field.
    this.dialog.addEventListener('cancel', () => this.releaseFocus());
    this.dialog.addEventListener('close', () => this.releaseFocus());
    document.body.append(this.dialog);
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  /**
   * @param changeSettings  what a change of weight storage in the dialog runs (the export settings command, which
   *                        calls applySettings)
   */
  open(context: ExportContext, changeSettings: (settings: Pick<ExportedWeightSettings, 'weightComponent'>) => void): void {
    this.context = context;
    this.changeSettings = changeSettings;
    this.nameInput.value = context.baseName;
    this.formats.get(this.format)!.checked = true;
    this.showSettings();
    this.compressions.get(this.compression)!.checked = true;
    this.clipInput.disabled = context.clipName === null;
    this.clipInput.checked = context.clipName !== null;
    this.bakeInput.disabled = context.bakeProblem !== null || context.clipName === null;
    this.bakeInput.checked = false;
    this.message.textContent = '';
    this.message.className = 'export-message';
    this.exportButton.disabled = false;
    this.refresh();
    if (!this.dialog.open) this.dialog.showModal();
    this.exportButton.focus();
  }

  close(): void {
    this.releaseFocus();
    if (this.dialog.open) this.dialog.close();
  }

  private releaseFocus(): void {
    if (document.activeElement instanceof HTMLElement && this.dialog.contains(document.activeElement)) document.activeElement.blur();
  }

  /** The export's influences and weight storage become these (fields left out stay); the preview follows. */
  applySettings(settings: Partial<ExportedWeightSettings>): void {
    if (settings.influences !== undefined) this.settings.influences = settings.influences;
    if (settings.weightComponent !== undefined) this.settings.weightComponent = settings.weightComponent;
    this.showSettings();
    this.onSettingsChange(this.settings);
    this.refresh();
  }

  private showSettings(): void {
    this.componentSelect.value = this.settings.weightComponent;
  }

  /** The user changed the weight storage: asked for through the command; a refused change shows the settings back. */
  private settingsChanged(): void {
    this.changeSettings?.({ weightComponent: this.componentSelect.value as GltfWeightComponent });
    this.showSettings();
    this.refresh();
  }

  private refresh(): void {
    const context = this.context;
    if (!context) return;
    this.format = this.formats.get('gltf')!.checked ? 'gltf' : 'glb';
    this.extension.textContent = this.format === 'glb' ? '.glb' : '.gltf + .bin';
    this.influenceNote.textContent = context.influenceNote;
    this.influenceWarning.hidden = context.jointSets === 1;
    for (const [value, input] of this.compressions) if (input.checked) this.compression = value;
    this.compressionNote.hidden = this.compression === 'none';
    this.clipLabel.textContent =
      context.clipName === null
        ? 'Include the pose sequence (the scene is in its rest pose)'
        : context.clipCount > 1
          ? `Include the ${context.clipCount} clips (“${context.clipName}” shown)`
          : `Include the pose sequence as clip “${context.clipName}”`;
    this.bakeLabel.textContent = `Bake ${context.methodLabel.toLowerCase()} skinning as vertex animation (one morph target per keyframe)`;
    if (context.bakeProblem !== null) {
      this.bakeCost.textContent = context.bakeProblem;
    } else if (context.clipName === null) {
      this.bakeCost.textContent = 'Nothing to bake in the rest pose.';
    } else {
      const cost = context.bakeCost;
      this.bakeCost.textContent = `${this.bakeInput.checked ? 'Adds' : 'Would add'} ${formatBytes(cost.totalBytes)}: ${formatCount(context.bakeFrames)} targets × ${formatCount(context.vertexCount)} vertices (${formatBytes(cost.targetBytes)}), keyframes ${formatBytes(cost.animationBytes)}.`;
    }
    this.bakeCost.classList.toggle('export-cost-active', this.bakeInput.checked);
  }

  private async submit(): Promise<void> {
    const base = this.nameInput.value.trim().replace(/\.(glb|gltf)$/i, '');
    if (base === '' || /[\\/:*?"<>|]/.test(base)) {
      this.showMessage('Choose a file name without \\ / : * ? " < > |.', true);
      return;
    }
    const choice: ExportChoice = {
      fileName: `${base}.${this.format}`,
      format: this.format,
      influences: this.settings.influences,
      weightComponent: this.settings.weightComponent,
      compression: this.compression,
      includeClip: this.clipInput.checked && !this.clipInput.disabled,
      bake: this.bakeInput.checked && !this.bakeInput.disabled,
    };
    this.exportButton.disabled = true;
    this.showMessage('Exporting…', false);
    try {
      await this.run(choice);
      this.close();
    } catch (error) {
      this.showMessage(error instanceof Error ? error.message : String(error), true);
    } finally {
      this.exportButton.disabled = false;
    }
  }

  private showMessage(text: string, isError: boolean): void {
    this.message.textContent = text;
    this.message.className = isError ? 'export-message export-error' : 'export-message';
  }
}
