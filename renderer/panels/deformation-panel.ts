/**
 * Deformation controls: a toolbar group (skinning method; a Skin options box with the DQS antipodality and the
 * split-view comparison; the weight-blended method's DQS amount) and a small floating panel that scales the selected
 * bone about its start joint (x, y, z or uniform; reset). Owns no scene state: it reports through DeformationPanelActions and shows what it
 * is told.
 */
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { METHOD_LABELS, METHOD_TERMS, type SkinMethod } from '../deform/skin-methods.ts';
import { element, valueField, type ValueField } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export interface DeformationPanelActions {
  setMethod(method: SkinMethod): void;
  setAntipodality(mode: DualQuaternionAntipodality): void;
  /** null: one view */
  setSplit(method: SkinMethod | null): void;
  setBoneScale(bone: number, scale: [number, number, number]): void;
  /** Sets the weight-blended method's LBS ↔ DQS blend to one value on every vertex (0 = LBS, 1 = DQS). */
  setUniformBlend(value: number): void;
}

export interface DeformationPanelState {
  method: SkinMethod;
  antipodality: DualQuaternionAntipodality;
  splitMethod: SkinMethod | null;
  heatMap: boolean;
  /** #V LBS ↔ DQS blend of the weight-blended method */
  blendWeights: Float32Array;
}

const SCALE_MIN = 0.05;
const SCALE_MAX = 10;

function select<T extends string>(
  label: string,
  title: string,
  options: [T, string][],
  onChange: (value: T) => void,
): { root: HTMLLabelElement; input: HTMLSelectElement } {
  const root = document.createElement('label');
  root.className = 'deform-field';
  root.title = title;
  root.append(`${label} `);
  const input = document.createElement('select');
  for (const [value, text] of options) input.add(new Option(text, value));
  input.addEventListener('change', () => {
    onChange(input.value as T);
    input.blur();
  });
  for (const option of input.options) if (option.value in METHOD_TERMS) option.title = METHOD_TERMS[option.value as SkinMethod];
  root.append(input);
  return { root, input };
}

export class DeformationPanel {
  private readonly method: HTMLSelectElement;
  private readonly antipodality: HTMLSelectElement;
  /** the Skin options button and the box it opens under it (Flip guard, Compare with) */
  private readonly optionsButton: HTMLButtonElement;
  private readonly optionsBox: HTMLElement;
  private readonly split: HTMLSelectElement;
  private readonly splitLabels: HTMLElement;
  private readonly blendField: HTMLLabelElement;
  private readonly blend: HTMLInputElement;
  private readonly blendValue: ValueField;
  /** the blend's lowest and highest value when it varies over the vertices */
  private readonly blendRange: HTMLOutputElement;
  private readonly scalePanel: HTMLElement;
  private readonly scaleTitle: HTMLElement;
  private readonly scaleInputs: HTMLInputElement[];
  private readonly uniform: HTMLInputElement;
  private bone = -1;

  constructor(
    toolbar: HTMLElement,
    viewport: HTMLElement,
    private readonly actions: DeformationPanelActions,
  ) {
    const group = document.createElement('div');
    group.className = 'tool-group deform-group';
    const methods = (Object.keys(METHOD_LABELS) as SkinMethod[]).map((m): [SkinMethod, string] => [m, METHOD_LABELS[m]]);
    const method = select('Skin', 'Skinning method (M cycles linear blend → dual quaternion → per-face)', methods, (m) =>
      actions.setMethod(m),
    );
    this.method = method.input;
    this.method.id = 'skinning-method';
    const signs = select<DualQuaternionAntipodality>(
      'Flip guard',
      'How dual quaternion skinning keeps a joint from flipping the long way round: per vertex, or per bone along the skeleton, which flips past 180° (dual quaternion antipodality, Kavan 2008 Alg. 2 and Sec. 4.1)',
      [
        ['per-vertex', 'per vertex'],
        ['per-bone', 'along the skeleton'],
      ],
      (a) => actions.setAntipodality(a),
    );
    this.antipodality = signs.input;
    const split = select<SkinMethod | 'off'>(
      'Compare with',
      'Split view: a second method on the right half, same camera and pose',
      [['off', 'nothing'], ...methods],
      (m) => actions.setSplit(m === 'off' ? null : m),
    );
    this.split = split.input;
    this.blendField = document.createElement('label');
    this.blendField.className = 'deform-field blend-field';
    this.blendField.title =
      'Weight blended: how much dual quaternion against linear blend, on every vertex (0 = linear blend, LBS; 1 = dual quaternion, DQS)';
    // 'Blend' on the toolbar (one row at 1280 px), its whole name for the slider's accessible name and the README.
    this.blendField.append('Blend ');
    this.blend = document.createElement('input');
    this.blend.type = 'range';
    this.blend.min = '0';
    this.blend.max = '1';
    this.blend.step = '0.05';
    this.blend.id = 'blend-amount';
    this.blend.setAttribute('aria-label', 'Dual quaternion amount');
    this.blendValue = valueField(0, 1, 0.05, (value) => actions.setUniformBlend(value));
    this.blendValue.input.setAttribute('aria-label', 'Dual quaternion amount value');
    this.blendRange = document.createElement('output');
    this.blend.addEventListener('input', () => actions.setUniformBlend(Number(this.blend.value)));
    this.blend.addEventListener('change', () => this.blend.blur());
    this.blendField.append(this.blend, this.blendValue.root, this.blendRange);
    this.blendField.hidden = true;
    // Flip guard and Compare with in a box under a button beside Skin, as a header's popover keeps the toolbar to
    // one row; the split view shows its two methods' names over the viewport while it is on.
    this.optionsButton = element('button', 'tool-button deform-options-button', '⋯');
    this.optionsButton.type = 'button';
    this.optionsButton.title = 'Skin options: Flip guard, Compare with (split view)';
    this.optionsButton.setAttribute('aria-label', 'Skin options');
    this.optionsButton.setAttribute('aria-haspopup', 'true');
    this.optionsButton.setAttribute('aria-expanded', 'false');
    this.optionsBox = element('div', 'deform-options');
    this.optionsBox.setAttribute('role', 'group');
    this.optionsBox.setAttribute('aria-label', 'Skin options');
    this.optionsBox.hidden = true;
    this.optionsBox.append(signs.root, split.root);
    this.optionsButton.addEventListener('click', () => this.showOptions(this.optionsBox.hidden));
    // Escape closes the open box first (a choice in it gives the keys back to the app, so the window hears it).
    window.addEventListener(
      'keydown',
      (event) => {
        if (event.key !== 'Escape' || this.optionsBox.hidden) return;
        event.stopPropagation();
        const inside = this.optionsBox.contains(document.activeElement);
        this.showOptions(false);
        if (inside) this.optionsButton.focus();
      },
      { capture: true },
    );
    // A press anywhere else closes the box (and goes on to what it was on).
    window.addEventListener(
      'pointerdown',
      (event) => {
        const target = event.target as Node | null;
        if (this.optionsBox.hidden || this.optionsBox.contains(target) || this.optionsButton.contains(target)) return;
        this.showOptions(false);
      },
      { capture: true },
    );
    group.append(method.root, this.optionsButton, this.optionsBox, this.blendField);
    this.splitLabels = document.createElement('div');
    this.splitLabels.className = 'split-labels';
    this.splitLabels.hidden = true;
    viewport.querySelector('canvas')?.after(this.splitLabels);
    const anchor = toolbar.querySelector('.scene-name');
    toolbar.insertBefore(group, anchor);

    this.scalePanel = document.createElement('section');
    this.scalePanel.className = 'bone-scale-panel';
    this.scalePanel.hidden = true;
    this.scaleTitle = document.createElement('h3');
    const grid = document.createElement('div');
    grid.className = 'bone-scale-grid';
    this.scaleInputs = ['x', 'y', 'z'].map((axis, i) => {
      const label = document.createElement('label');
      label.textContent = axis;
      const input = document.createElement('input');
      input.type = 'number';
      input.step = '0.05';
      input.min = String(SCALE_MIN);
      input.max = String(SCALE_MAX);
      input.value = '1';
      input.className = `bone-scale-${axis}`;
      input.addEventListener('input', () => this.onScaleInput(i));
      label.append(input);
      grid.append(label);
      return input;
    });
    const uniformLabel = document.createElement('label');
    uniformLabel.className = 'bone-scale-uniform';
    this.uniform = document.createElement('input');
    this.uniform.type = 'checkbox';
    this.uniform.checked = true;
    uniformLabel.append(this.uniform, ' uniform');
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'tool-button';
    reset.textContent = 'Reset';
    reset.addEventListener('click', () => {
      for (const input of this.scaleInputs) input.value = '1';
      this.emitScale();
      reset.blur();
    });
    const note = document.createElement('p');
    note.textContent = 'About the bone’s start joint, in scene axes. Children follow its end but keep their size.';
    const row = document.createElement('div');
    row.className = 'bone-scale-row';
    row.append(uniformLabel, reset);
    this.scalePanel.append(this.scaleTitle, grid, row, note);
    dockPanel(viewport, this.scalePanel, 'boneScale');
  }

  /** Opens or closes the Skin options box (Flip guard, Compare with) under its toolbar button. */
  showOptions(open: boolean): void {
    this.optionsBox.hidden = !open;
    this.optionsButton.setAttribute('aria-expanded', String(open));
    this.optionsButton.setAttribute('aria-pressed', String(open));
  }

  show(state: DeformationPanelState): void {
    this.method.value = state.method;
    this.antipodality.value = state.antipodality;
    this.split.value = state.splitMethod ?? 'off';
    this.splitLabels.hidden = state.splitMethod === null;
    if (state.splitMethod !== null) {
      this.splitLabels.replaceChildren(
        ...[state.method, state.splitMethod].map((m) => {
          const label = document.createElement('span');
          label.textContent = METHOD_LABELS[m];
          return label;
        }),
      );
    }
    this.blendField.hidden = state.method !== 'blend' && state.splitMethod !== 'blend';
    if (!this.blendField.hidden) {
      const blend = state.blendWeights;
      let lowest = Infinity;
      let highest = -Infinity;
      for (let i = 0; i < blend.length; i++) {
        lowest = Math.min(lowest, blend[i]);
        highest = Math.max(highest, blend[i]);
      }
      const uniform = blend.length === 0 || lowest === highest;
      const shown = uniform ? (blend[0] ?? 0) : (lowest + highest) / 2;
      if (document.activeElement !== this.blend) this.blend.value = String(shown);
      this.blendValue.show(shown);
      this.blendRange.value = uniform ? '' : `varies: ${lowest.toFixed(2)} to ${highest.toFixed(2)}`;
    }
  }

  /**
   * @param scale  the bone's current scale, when a bone is selected
   * @param name   the bone's name, as every panel shows it
   */
  showBone(bone: number, scale: ArrayLike<number> | null, name = `bone ${bone}`): void {
    this.bone = bone;
    this.scalePanel.hidden = bone < 0 || scale === null;
    if (bone < 0 || scale === null) return;
    this.scaleTitle.textContent = `Scale of ${name}`;
    this.scaleInputs.forEach((input, i) => (input.value = String(Number(scale[i].toFixed(4)))));
  }

  private onScaleInput(changed: number): void {
    const value = Number(this.scaleInputs[changed].value);
    if (!(value >= SCALE_MIN && value <= SCALE_MAX)) return;
    if (this.uniform.checked) for (const input of this.scaleInputs) if (input !== this.scaleInputs[changed]) input.value = String(value);
    this.emitScale();
  }

  private emitScale(): void {
    if (this.bone < 0) return;
    const values = this.scaleInputs.map((input) => Number(input.value));
    if (!values.every((v) => v >= SCALE_MIN && v <= SCALE_MAX)) return;
    this.actions.setBoneScale(this.bone, [values[0], values[1], values[2]]);
  }
}
