/**
 * The Weight paint panel (shown while the brush is the active tool): brush settings, symmetry with the mirror
 * match's progress and Cancel, the influence limit, the whole-mesh commands with Undo and Redo, and the bone list
 * with locks. It shows the paint controller's state and changes it through commands and the controller's setters;
 * it owns no state of its own.
 */
import './paint-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { BrushMode, PaintController } from '../paint/paint-controller.ts';
import { commandButton, element, floatingPanel, labelled, refreshCommandButtons, section, slider, toolButton } from './controls.ts';
import { dockPanel } from './panel-dock.ts';
import { countOf } from '../project/plain-number.ts';

export interface PaintPanelHost {
  readonly controller: PaintController;
  readonly commands: CommandRegistry;
  document(): SceneDocument;
  selectedBone(): number;
  selectBone(bone: number): void;
  /** #B bone names, by bone index (the file's names, or `bone <index>`) */
  boneNames(): readonly string[];
  /** whether the brush is being resized (F) */
  resizing(): boolean;
  undoCount(): number;
}

/** The brush modes with their tooltips (what each does to the selected bone's weights). */
const MODES: readonly [BrushMode, string][] = [
  ['add', 'Add: each dab adds the strength'],
  ['subtract', 'Subtract: each dab takes the strength away'],
  ['set', 'Set: each dab moves the weight toward the set value'],
  ['smooth', 'Smooth: each vertex moves toward the mean of its neighbours'],
  [
    'blur',
    'Blur: the brush area moves toward its mean weight (Gaussian-weighted around the centre); Flood fill blurs each vertex toward its neighbours',
  ],
  ['relax', 'Relax: smooths like Smooth but keeps the total weight under the brush, so the weight does not shrink'],
  ['gradient', 'Gradient: drag from where the set value should be to where the weight should reach 0'],
  ['sample', 'Sample: a click picks up the weight under the brush as the set value'],
];

export class PaintPanel {
  private readonly root: HTMLElement;
  private readonly boneList: HTMLElement;
  private readonly info: HTMLElement;
  private readonly sliders: (HTMLInputElement & { sync(): void })[] = [];
  private readonly modeButtons: HTMLButtonElement[] = [];
  private readonly falloff: HTMLSelectElement;
  private readonly through: HTMLInputElement;
  private readonly symmetry: HTMLSelectElement;
  /** the scene's max influences, which strokes keep (set in the Bind panel) */
  private readonly limit: HTMLElement;
  private readonly matchingRow: HTMLElement;
  private readonly matchingText: HTMLElement;
  private readonly matchingBar: HTMLProgressElement;
  private readonly mirrorButtons: HTMLButtonElement[];
  /** what Flood fill fills: the selection's vertex count, or the whole mesh */
  private readonly floodScope: HTMLElement;

  constructor(
    container: HTMLElement,
    private readonly host: PaintPanelHost,
  ) {
    const { controller, commands } = host;
    const brush = controller.brush;
    this.root = floatingPanel('paint-panel', 'bind-panel paint-panel', 'Weight paint', commands, 'tool.brush');

    const brushSection = section(this.root, 'Brush');
    const modes = element('div', 'row paint-modes');
    for (const [mode, tooltip] of MODES) {
      const button = toolButton(modes, mode[0].toUpperCase() + mode.slice(1), tooltip, () => void commands.invoke('paint.brushMode', mode));
      button.dataset.mode = mode;
      this.modeButtons.push(button);
    }
    brushSection.append(modes);
    const SLIDER_COMMANDS = {
      radius: 'paint.brushRadius',
      strength: 'paint.brushStrength',
      value: 'paint.brushValue',
      spacing: 'paint.brushSpacing',
    } as const;
    const add = (label: string, min: number, max: number, step: number, key: keyof typeof SLIDER_COMMANDS) => {
      const input = slider(
        min,
        max,
        step,
        () => brush[key],
        (x) => void commands.invoke(SLIDER_COMMANDS[key], x),
      );
      this.sliders.push(input);
      labelled(brushSection, label, input);
    };
    add('radius px ', 2, 200, 1, 'radius');
    add('strength ', 0, 1, 0.01, 'strength');
    add('set value ', 0, 1, 0.01, 'value');
    add('spacing ', 0.05, 1, 0.05, 'spacing');
    this.falloff = element('select', 'paint-falloff');
    for (const f of ['smooth', 'linear', 'constant']) this.falloff.add(new Option(f, f));
    this.falloff.addEventListener('change', () => {
      commands.invoke('paint.brushFalloff', this.falloff.value);
      this.falloff.blur();
    });
    labelled(brushSection, 'falloff ', this.falloff);
    this.through = element('input', 'paint-through');
    this.through.type = 'checkbox';
    this.through.addEventListener('change', () => void commands.invoke('paint.throughMesh', this.through.checked));
    labelled(brushSection, 'through the mesh ', this.through);
    this.symmetry = element('select', 'paint-symmetry');
    for (const [label, value] of [
      ['off', ''],
      ['x', '0'],
      ['y', '1'],
      ['z', '2'],
    ])
      this.symmetry.add(new Option(label, value));
    this.symmetry.addEventListener('change', () => {
      commands.invoke('paint.symmetry', this.symmetry.value === '' ? null : Number(this.symmetry.value));
      this.symmetry.blur();
    });
    labelled(brushSection, 'symmetry ', this.symmetry);
    this.matchingRow = element('div', 'row paint-matching');
    this.matchingRow.hidden = true;
    this.matchingText = element('span');
    this.matchingBar = element('progress');
    this.matchingBar.max = 1;
    this.matchingRow.append(this.matchingText, this.matchingBar);
    commandButton(this.matchingRow, commands, 'paint.cancelMatching', { label: 'Cancel' });
    brushSection.append(this.matchingRow);
    this.limit = element('p', 'dim paint-limit');
    this.limit.title = 'Strokes and Limit total keep at most this many bones per vertex; set it in the Bind panel (Max influences)';
    brushSection.append(this.limit);

    const whole = section(this.root, 'Whole mesh');
    const row = element('div', 'row');
    for (const id of ['paint.normalize', 'paint.limit', 'paint.prune', 'paint.smooth'] as const) commandButton(row, commands, id);
    // Flood fill's title says whether a selection limits it, and this note beside it how many vertices it fills.
    commandButton(row, commands, 'paint.flood', { showTitle: true });
    this.floodScope = element('span', 'dim paint-flood-scope');
    this.floodScope.title = 'Flood fill fills the selected vertices (select them with the lasso) or, with none selected, the whole mesh';
    row.append(this.floodScope);
    this.mirrorButtons = [commandButton(row, commands, 'paint.mirrorToPositive'), commandButton(row, commands, 'paint.mirrorToNegative')];
    const history = element('div', 'row');
    commandButton(history, commands, 'edit.undo', { showTitle: true });
    commandButton(history, commands, 'edit.redo', { showTitle: true });
    whole.append(row, history);

    const bones = section(this.root, 'Bones (click a name to paint it)');
    this.boneList = element('div', 'paint-bones');
    bones.append(this.boneList);
    this.info = element('p', 'dim');
    this.root.append(this.info);
    dockPanel(container, this.root, 'paint');
  }

  get visible(): boolean {
    return !this.root.hidden;
  }

  setVisible(visible: boolean): void {
    this.root.hidden = !visible;
    this.refresh();
  }

  /** Redraws the panel from the controller's state. */
  refresh(): void {
    if (this.root.hidden) return;
    const { controller, commands } = this.host;
    const brush = controller.brush;
    const session = controller.session;
    for (const input of this.sliders) input.sync();
    for (const button of this.modeButtons) button.setAttribute('aria-pressed', String(button.dataset.mode === brush.mode));
    this.falloff.value = brush.falloff;
    this.through.checked = brush.throughMesh;
    this.symmetry.value = controller.wantedSymmetry === null ? '' : String(controller.wantedSymmetry);
    this.limit.textContent = `Max influences ${controller.settings.maxInfluences} (Bind panel)`;
    const job = controller.matchJob;
    this.matchingRow.hidden = !job;
    if (job) {
      this.matchingText.textContent = `Matching mirror vertices across ${'xyz'[job.axis]} = 0… ${Math.round(100 * job.fraction)}%`;
      this.matchingBar.value = job.fraction;
    }
    const axis = 'xyz'[session?.symmetry?.axis ?? 0];
    this.mirrorButtons.forEach((button, i) => {
      const [from, to] = i === 0 ? ['−', '+'] : ['+', '−'];
      button.textContent = `Mirror ${from}${axis} → ${to}${axis}`;
      button.title = `Copy the ${from}${axis} side onto the ${to}${axis} side, bones swapped with their mirrored pairs`;
    });
    refreshCommandButtons(this.root, commands);
    const selected = controller.floodSelectionCount();
    this.floodScope.textContent = selected > 0 ? `${countOf(selected, 'vertex', 'vertices')} selected` : 'whole mesh';
    this.refreshBones();
    const unmatched = session?.symmetry
      ? ` · ${countOf(session.symmetry.map.unmatched.length, 'vertex', 'vertices')} without a mirror match`
      : '';
    this.info.textContent =
      (controller.message ? `${controller.message} · ` : '') +
      `${this.host.resizing() ? 'resizing: move, click to confirm, Esc cancels · ' : ''}radius ${Math.round(brush.radius)} px · ${countOf(this.host.undoCount(), 'undo step')}${unmatched}`;
  }

  private refreshBones(): void {
    const { controller } = this.host;
    const doc = this.host.document();
    const selected = this.host.selectedBone();
    const pairs = controller.session?.symmetry?.bonePairs;
    const locked = controller.settings.locked;
    const names = this.host.boneNames();
    this.boneList.replaceChildren(
      ...Array.from({ length: doc.skeleton.parents.length }, (_, b) => {
        const row = element('div', 'paint-bone');
        row.setAttribute('aria-selected', String(b === selected));
        const name = toolButton(
          row,
          `${names[b]}${pairs ? `  ↔ ${pairs[b] < 0 ? '—' : names[pairs[b]]}` : ''}`,
          'Paint this bone',
          () => this.host.selectBone(b),
          'paint-bone-name',
        );
        const isLocked = !!locked[b];
        const lock = toolButton(
          null,
          isLocked ? 'locked' : 'lock',
          isLocked ? 'Unlock: painting may change this bone' : 'Lock: painting and commands keep this bone',
          () => void this.host.commands.invoke('paint.lock', b),
          'paint-lock',
        );
        lock.setAttribute('aria-pressed', String(isLocked));
        row.prepend(lock);
        row.append(name);
        return row;
      }),
    );
  }
}
