/**
 * The Pose panel, shown while the pose tool is active: the selected bone, its rotation as X/Y/Z degrees in the axes
 * the gizmo uses (the bone's own or the world's), editable (Enter applies the three numbers as one undo step) except
 * while the rest pose is shown (the numbers would be the rest pose's, not the pose's), the IK pole (set toward the
 * view, or cleared), and the pose tool's switches and resets as command buttons. It shows the host's state and acts
 * through it; it owns nothing.
 */
import './pose-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { childElement, commandButton, element, floatingPanel, labelled, refreshCommandButtons, section } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export type PanelAngles = [number, number, number];

export interface PosePanelHost {
  readonly commands: CommandRegistry;
  /** the selected bone's name, or null for none */
  boneName(): string | null;
  /** 'local' (the bone's own axes) or 'global' (the world's) */
  space(): string;
  /** the selected bone's rotation in the space shown, X/Y/Z degrees (Euler order XYZ), or null without a bone */
  angles(): PanelAngles | null;
  /** sets the selected bone's rotation to X/Y/Z degrees in the space shown: one undo step */
  setAngles(degrees: PanelAngles): void;
  /** the IK pole in words: a point, or the bend plane kept */
  pole(): string;
  /** whether the rest pose is shown (a view: the pose is kept, and the numbers are not its) */
  restShown(): boolean;
}

const AXES = ['X', 'Y', 'Z'] as const;

export class PosePanel {
  readonly root: HTMLElement;
  private readonly bone: HTMLElement;
  private readonly spaceNote: HTMLElement;
  private readonly poleNote: HTMLElement;
  private readonly inputs: HTMLInputElement[];

  /** @param container  the viewport element the panel floats over */
  constructor(
    container: HTMLElement,
    private readonly host: PosePanelHost,
  ) {
    const { commands } = host;
    this.root = floatingPanel('pose-panel', 'bind-panel pose-panel', 'Pose', commands, 'tool.pose');
    const bone = section(this.root, 'Bone');
    this.bone = childElement('div', 'pose-bone', bone);
    const rotation = section(this.root, 'Rotation');
    this.spaceNote = childElement('div', 'dim pose-space-note', rotation);
    this.inputs = AXES.map((axis) => {
      const input = element('input', 'pose-angle');
      input.type = 'number';
      input.step = '1';
      input.dataset.axis = axis;
      input.title = `${axis} angle in degrees; Enter applies the three angles`;
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          this.apply();
        } else if (event.key === 'Escape') {
          input.blur();
          this.refresh();
        }
      });
      labelled(rotation, `${axis} °`, input, 'slider-row pose-angle-row');
      return input;
    });
    const switches = element('div', 'row');
    commandButton(switches, commands, 'pose.space', { label: 'Local / global' });
    commandButton(switches, commands, 'pose.ikMode', { label: 'IK' });
    commandButton(switches, commands, 'pose.rest', { label: 'Rest' });
    const resets = element('div', 'row');
    commandButton(resets, commands, 'pose.reset', { label: 'Reset bone' });
    commandButton(resets, commands, 'pose.resetAll', { label: 'Reset all' });
    commandButton(resets, commands, 'pose.copy', { label: 'Copy' });
    commandButton(resets, commands, 'pose.pasteMirrored', { label: 'Paste mirrored' });
    this.poleNote = element('div', 'dim pose-pole-note');
    const pole = element('div', 'row');
    commandButton(pole, commands, 'pose.poleFromView', { label: 'Pole toward view' });
    commandButton(pole, commands, 'pose.pole', { label: 'Clear pole' });
    this.root.append(switches, this.poleNote, pole, resets);
    dockPanel(container, this.root, 'pose');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setVisible(visible: boolean): void {
    this.root.hidden = !visible;
    this.refresh();
  }

  /** The three angles as typed, applied as one step (a field left empty counts as 0). */
  private apply(): void {
    const degrees = this.inputs.map((input) => Number(input.value || '0')) as PanelAngles;
    if (!degrees.every(Number.isFinite)) return;
    this.host.setAngles(degrees);
    this.refresh();
  }

  refresh(): void {
    if (this.root.hidden) return;
    const { host } = this;
    const name = host.boneName();
    this.bone.textContent = name ?? 'Click a joint to pick its bone';
    const rest = host.restShown();
    this.spaceNote.textContent = rest
      ? 'The rest pose is shown: turn Rest off to see and set the pose’s numbers'
      : host.space() === 'local'
        ? 'In the bone’s own axes (relative to its parent)'
        : 'In the world’s axes';
    this.poleNote.textContent = `IK pole: ${host.pole()}`;
    const angles = rest ? null : host.angles();
    const editing = this.inputs.some((input) => input === document.activeElement);
    this.inputs.forEach((input, k) => {
      input.disabled = angles === null;
      if (!editing) input.value = angles === null ? '' : String(Math.round(angles[k] * 1000) / 1000);
    });
    refreshCommandButtons(this.root, host.commands);
  }
}
