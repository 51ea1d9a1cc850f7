/**
 * The Examples panel (G): the scene's example shapes — name (editable), the pose each was sculpted in, hide/show,
 * remove — with a bar per example showing its pose-space weight a_j at the frame shown; adding examples and the
 * pose given to meshes that come without a pose file; the RBF kernel; unposing progress with Cancel. It shows the
 * examples and pose-space controllers' state and acts through commands; it owns nothing.
 */
import './examples-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { ExamplesController } from '../posespace/examples-controller.ts';
import { CONTEXT_BASE_LABELS, type PoseSpaceController } from '../posespace/pose-space-controller.ts';
import { commandButton, element, floatingPanel, labelled, refreshCommandButtons, section } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export interface ExamplesPanelHost {
  readonly commands: CommandRegistry;
  readonly examples: ExamplesController;
  readonly posespace: PoseSpaceController;
  document(): SceneDocument;
  /** per-face unposing in the deform worker: the fraction done, or null when none runs */
  perFaceUnposing(): number | null;
  /** the example heat map shown and what it shows, in words */
  exampleMap(): { mode: string; note: string };
}

/** One colour per example, in list order: its weight bar and its curve on the timeline. */
export function exampleColor(index: number): string {
  return `hsl(${(index * 137.5 + 28) % 360}, 75%, 62%)`;
}

type RbfKernel = PoseSpaceController['kernel'];

/** Each kernel's option label and its part of the list's tooltip (r: the pose distance). */
/** The example maps' terms from the paper, for the note's tooltip (the note itself is in plain words). */
const EXAMPLE_MAP_TERMS: Partial<Record<string, string>> = {
  displacement:
    'The correction applied now: |Σ_j a_j δ_j| per vertex, the examples’ displacements δ_j weighted by a_j (Eq. 7), through the method’s base skinning; full colour at the largest |δ_j| of any example',
  error: 'The distance of each vertex to the example sculpted at this pose; full colour at 0.1% of the bounding-box diagonal',
};

const KERNEL_TEXT: Record<RbfKernel, { label: string; title: string }> = {
  gaussian: {
    label: 'smooth (Gaussian)',
    title: 'Gaussian exp(−(r/σ)²) with σ = the mean distance from each example to its nearest other',
  },
  linear: { label: 'straight (linear φ = r)', title: 'linear φ = r, no width' },
};

/** The Kernel list's tooltip: the kernels offered, and only those. */
function kernelTitle(kernels: readonly RbfKernel[]): string {
  return `How an example’s influence falls off as the pose moves away from it, a radial basis function (RBF kernel) of the pose distance r: ${kernels.map((k) => KERNEL_TEXT[k].title).join('; ')}`;
}

export class ExamplesPanel {
  readonly root: HTMLElement;
  private readonly toolbarGroup: HTMLElement;
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly poseSelect: HTMLSelectElement;
  private readonly frameInput: HTMLInputElement;
  private readonly kernelSelect: HTMLSelectElement;
  private readonly progressBox: HTMLElement;
  private readonly progressBar: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly problem: HTMLElement;
  private readonly mapSelect: HTMLSelectElement;
  private readonly mapNote: HTMLElement;
  /** the examples the rows were built for (rebuilt when the list changes) */
  private listed: SceneDocument['examples'] | null = null;
  private bars: { name: string; bar: HTMLElement; value: HTMLElement }[] = [];

  /**
   * @param toolbar    the page toolbar: the Examples button joins its skinning group
   * @param container  the viewport element the panel floats over
   */
  constructor(
    toolbar: HTMLElement,
    container: HTMLElement,
    private readonly host: ExamplesPanelHost,
  ) {
    const { commands } = host;
    // Beside the skinning controls (the context methods are there), not a group of its own: the toolbar is full.
    const group = toolbar.querySelector<HTMLElement>('.deform-group') ?? toolbar;
    this.toolbarGroup = group;
    this.root = floatingPanel('examples-panel', 'bind-panel examples-panel', 'Examples', commands, 'examples.panel');

    const shapes = section(this.root, 'Example shapes');
    this.empty = element('p', 'dim', 'None yet: add meshes sculpted from the rest mesh, each with its pose (eg0.obj with eg0.dmat).');
    this.list = element('ul', 'example-list');
    const add = element('div', 'row');
    commandButton(add, commands, 'examples.add', { label: 'Add…' });
    shapes.append(this.empty, this.list, add);

    this.poseSelect = element('select', 'example-pose-select');
    this.poseSelect.add(new Option('the pose shown', 'viewport'));
    this.poseSelect.add(new Option('frame', 'frame'));
    this.frameInput = element('input', 'example-frame');
    this.frameInput.type = 'number';
    this.frameInput.min = '0';
    this.frameInput.step = '1';
    this.frameInput.value = '0';
    const choosePose = () => {
      const frame = Number(this.frameInput.value);
      void commands.invoke('examples.pose', this.poseSelect.value === 'viewport' ? 'viewport' : frame);
      this.refresh();
    };
    this.poseSelect.addEventListener('change', () => {
      choosePose();
      this.poseSelect.blur();
    });
    this.frameInput.addEventListener('change', choosePose);
    labelled(shapes, 'Pose of a mesh without one ', this.poseSelect).append(this.frameInput);

    const weights = section(this.root, 'Pose-space weights');
    this.kernelSelect = element('select', 'kernel-select');
    for (const kernel of host.posespace.kernels) this.kernelSelect.add(new Option(KERNEL_TEXT[kernel].label, kernel));
    this.kernelSelect.addEventListener('change', () => {
      void commands.invoke('examples.kernel', this.kernelSelect.value);
      this.kernelSelect.blur();
    });
    this.kernelSelect.title = kernelTitle(host.posespace.kernels);
    labelled(weights, 'Falloff between poses ', this.kernelSelect);
    const bars = element(
      'p',
      'dim',
      'Bars: how much each example counts at the frame shown (they add up to 1). The “+ examples” methods under Skin use them.',
    );
    bars.title = 'Each bar is the example’s pose-space weight a_j (Eq. 8), a radial basis function (RBF) of the distance between poses';
    weights.append(bars);
    this.problem = element('p', 'example-problem');
    this.problem.hidden = true;
    weights.append(this.problem);

    const see = section(this.root, 'See it');
    const row = element('div', 'row');
    commandButton(row, commands, 'examples.showUnposed', { label: 'Unposed' });
    commandButton(row, commands, 'examples.nextUnposed', { label: 'Next three' });
    see.append(row);
    this.mapSelect = element('select', 'example-map-select');
    this.mapSelect.title =
      'Colour the mesh by the correction the examples apply now (the displacement |Σ a_j δ_j|, Eq. 7), or by the distance to an example at its own pose';
    for (const [value, text] of [
      ['off', 'off'],
      ['displacement', 'correction applied now'],
      ['error', 'distance to the example at its pose'],
    ])
      this.mapSelect.add(new Option(text, value));
    this.mapSelect.addEventListener('change', () => {
      void commands.invoke('examples.map', this.mapSelect.value);
      this.mapSelect.blur();
    });
    labelled(see, 'Heat map ', this.mapSelect);
    this.mapNote = element('p', 'dim example-map-note');
    see.append(this.mapNote);

    this.progressBox = element('div', 'example-progress');
    this.progressBar = element('div', 'progress-fill');
    const track = element('div', 'progress-track');
    track.append(this.progressBar);
    this.progressText = element('span', 'dim');
    this.progressBox.append(track, this.progressText);
    commandButton(this.progressBox, commands, 'examples.cancelUnpose', { label: 'Cancel' });
    this.root.append(this.progressBox);
    dockPanel(container, this.root, 'examples');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    this.refresh();
  }

  /** Redraws the panel from the controllers' state (the rows only when the examples changed). */
  refresh(): void {
    const { examples, posespace, commands } = this.host;
    refreshCommandButtons(this.toolbarGroup, commands);
    if (this.root.hidden) return;
    const doc = this.host.document();
    if (doc.examples !== this.listed) this.rebuildList(doc);
    const choice = examples.poseChoice;
    this.poseSelect.value = choice.kind;
    this.frameInput.hidden = choice.kind !== 'frame';
    if (choice.kind === 'frame' && document.activeElement !== this.frameInput) this.frameInput.value = String(choice.frame);
    this.kernelSelect.value = posespace.kernel;
    const map = this.host.exampleMap();
    this.mapSelect.value = map.mode;
    this.mapNote.hidden = map.mode === 'off';
    this.mapNote.textContent = map.note;
    this.mapNote.title = EXAMPLE_MAP_TERMS[map.mode] ?? '';
    this.problem.hidden = posespace.rbfError === null;
    this.problem.textContent = posespace.rbfError ?? '';
    const progress = posespace.progress;
    const perFace = this.host.perFaceUnposing();
    this.progressBox.hidden = !progress.running && perFace === null;
    if (progress.running) {
      this.progressBar.style.width = `${(100 * progress.fraction).toFixed(1)}%`;
      this.progressText.textContent = `Unposing ${progress.example} (${CONTEXT_BASE_LABELS[progress.base]}) ${Math.round(100 * progress.fraction)}%`;
    } else if (perFace !== null) {
      this.progressBar.style.width = `${(100 * perFace).toFixed(1)}%`;
      this.progressText.textContent = `Unposing the examples per face ${Math.round(100 * perFace)}%`;
    }
    refreshCommandButtons(this.root, commands);
    this.refreshWeights();
  }

  /** The bars: a_j of each shown example at the pose just evaluated (hidden examples show none). Cheap; every frame. */
  refreshWeights(): void {
    if (this.root.hidden) return;
    const { posespace } = this.host;
    const active = posespace.active;
    const weights = posespace.weights;
    for (const { name, bar, value } of this.bars) {
      const j = active.findIndex((e) => e.name === name);
      const a = j >= 0 && j < weights.length ? weights[j] : null;
      bar.style.width = a === null ? '0%' : `${(100 * Math.min(1, Math.max(0, a))).toFixed(2)}%`;
      bar.dataset.value = a === null ? '' : String(a);
      value.textContent = a === null ? '–' : (Math.abs(a) < 0.005 ? 0 : a).toFixed(2);
    }
  }

  private rebuildList(doc: SceneDocument): void {
    this.listed = doc.examples;
    const { commands } = this.host;
    const examples = doc.examples ?? [];
    this.empty.hidden = examples.length > 0;
    this.bars = [];
    this.list.replaceChildren(
      ...examples.map((example) => {
        const row = element('li', example.hidden ? 'example-row hidden-example' : 'example-row');
        row.dataset.example = example.name;
        const visible = element('input', 'example-visible');
        visible.type = 'checkbox';
        visible.checked = !example.hidden;
        visible.title = 'Shown examples take part in the deformation';
        visible.addEventListener('change', () => void commands.invoke('examples.toggle', example.name));
        const name = element('input', 'example-name');
        name.value = example.name;
        name.title = `${example.file}, posed by ${example.poseSource}`;
        name.addEventListener('change', () => {
          void commands.invoke('examples.rename', { name: example.name, newName: name.value });
          name.blur();
        });
        const remove = element('button', 'icon-button example-remove', '×');
        remove.type = 'button';
        remove.title = `Remove ${example.name}`;
        remove.addEventListener('click', () => void commands.invoke('examples.remove', example.name));
        const track = element('div', 'weight-track');
        const bar = element('div', 'weight-bar');
        const shownIndex = examples.filter((e) => !e.hidden).indexOf(example);
        bar.style.background = shownIndex >= 0 ? exampleColor(shownIndex) : '';
        track.append(bar);
        const value = element('span', 'weight-value');
        this.bars.push({ name: example.name, bar, value });
        const source = element('div', 'dim example-source', `pose: ${example.poseSource}`);
        const top = element('div', 'example-top');
        top.append(visible, name, remove);
        const weight = element('div', 'example-weight');
        weight.append(track, value);
        row.append(top, source, weight);
        return row;
      }),
    );
  }
}
