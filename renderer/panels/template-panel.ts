/**
 * The Template panel (Shift T): choose a humanoid or quadruped template, with finger chains or not, look at the mesh
 * from the front, drag the markers onto it, and fit — alone, or with harmonic weights from automatic handles. The
 * markers are labelled dots over the viewport that follow the camera; a dot dragged and let go puts its marker where
 * the view ray there first meets the rest mesh (a dot let go beside the mesh is off it, and shown so). The panel shows
 * the template controller's state and acts through commands; the dots' drops go to the controller, as the lasso's
 * polygon does (they move no part of the scene).
 */
import './template-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { TemplateController, TemplateKind, TemplateMarker } from '../skeleton/template-controller.ts';
import { commandButton, element, floatingPanel, refreshCommandButtons, section } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export interface TemplatePanelHost {
  readonly commands: CommandRegistry;
  readonly template: Pick<TemplateController, 'kind' | 'fingers' | 'markers' | 'dropMarker'>;
  /** a world point's page position (CSS px), and whether it is in front of the camera */
  pagePosition(point: readonly [number, number, number]): { x: number; y: number; visible: boolean };
}

const KINDS: [TemplateKind, string][] = [
  ['humanoid', 'Humanoid'],
  ['quadruped', 'Quadruped'],
];

export class TemplatePanel {
  readonly root: HTMLElement;
  private readonly toolbarGroup: HTMLElement;
  private readonly kindRadios = new Map<TemplateKind, HTMLInputElement>();
  private readonly fingers: HTMLInputElement;
  /** which markers are off the mesh, or that none is */
  private readonly status: HTMLElement;
  /** the dots over the viewport, one per marker */
  private readonly layer: HTMLElement;
  private readonly dots = new Map<string, HTMLElement>();
  /** where a dot let go off the mesh stays (page px), since its marker has no point to follow */
  private readonly offAt = new Map<string, { x: number; y: number }>();
  /** the template the dots and rows were built for */
  private builtFor = '';
  private dragging: { id: string; dx: number; dy: number } | null = null;

  /**
   * @param toolbar    the page toolbar: the Template button joins its tool group
   * @param container  the viewport element the panel and the dots float over
   */
  constructor(
    toolbar: HTMLElement,
    private readonly container: HTMLElement,
    private readonly host: TemplatePanelHost,
  ) {
    const { commands } = host;
    this.toolbarGroup = toolbar.querySelector<HTMLElement>('.rig-group') ?? toolbar;

    this.root = floatingPanel('template-panel', 'bind-panel template-panel', 'Template', commands, 'template.panel');
    const kindSection = section(this.root, 'Template');
    for (const [kind, label] of KINDS) {
      const radio = element('input');
      radio.type = 'radio';
      radio.name = 'template-kind';
      radio.value = kind;
      radio.addEventListener('change', () => void commands.invoke('template.options', { kind }));
      this.kindRadios.set(kind, radio);
      const row = element('label', 'check');
      row.append(radio, ` ${label}`);
      kindSection.append(row);
    }
    this.fingers = element('input');
    this.fingers.type = 'checkbox';
    this.fingers.addEventListener('change', () => void commands.invoke('template.options', { fingers: this.fingers.checked }));
    const fingerRow = element('label', 'check');
    fingerRow.append(this.fingers, ' finger chains');
    kindSection.append(fingerRow);

    const markerSection = section(this.root, 'Markers');
    markerSection.append(element('p', 'dim', 'Drag each dot onto its place: it sits where it first meets the rest mesh.'));
    const viewRow = element('div', 'row');
    commandButton(viewRow, commands, 'template.frontView');
    commandButton(viewRow, commands, 'pose.rest', { label: 'Rest pose' });
    commandButton(viewRow, commands, 'template.resetMarkers', { label: 'Reset markers' });
    this.status = element('p', 'template-status');
    markerSection.append(viewRow, this.status);

    const fitSection = section(this.root, 'Fit');
    const fitRow = element('div', 'row');
    commandButton(fitRow, commands, 'template.fit', { label: 'Fit', className: 'tool-button primary' });
    commandButton(fitRow, commands, 'template.fitAndBind', { label: 'Fit and bind' });
    commandButton(fitRow, commands, 'edit.undo', { showTitle: true });
    fitSection.append(fitRow, element('p', 'dim', 'Fit and bind: then harmonic weights from automatic handles (two undo steps).'));

    this.layer = element('div', 'template-dots');
    this.layer.hidden = true;
    dockPanel(container, this.root, 'template');
    container.append(this.layer);
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    this.layer.hidden = !open;
    this.refresh();
  }

  /** Redraws the panel, the markers' status and the dots from the state. */
  refresh(): void {
    const { commands, template } = this.host;
    refreshCommandButtons(this.toolbarGroup, commands);
    if (this.root.hidden) return;
    for (const [kind, radio] of this.kindRadios) radio.checked = kind === template.kind;
    this.fingers.checked = template.fingers;
    const markers = template.markers();
    const key = `${template.kind}|${markers.map((m) => m.id).join(',')}`;
    if (key !== this.builtFor) this.build(markers, key);
    const off = markers.filter((m) => m.point === null).map((m) => m.label);
    this.status.classList.toggle('off', off.length > 0);
    this.status.textContent = off.length > 0 ? `Off the mesh: ${off.join(', ')}` : `All ${markers.length} markers on the mesh`;
    this.placeDots(markers);
    refreshCommandButtons(this.root, commands);
  }

  /** Puts every dot over its marker's point as the camera sees it now (the camera moved, the canvas resized). */
  placeDots(markers: readonly TemplateMarker[] = this.host.template.markers()): void {
    if (this.layer.hidden) return;
    const rect = this.container.getBoundingClientRect();
    for (const { id, point } of markers) {
      const dot = this.dots.get(id);
      if (!dot || this.dragging?.id === id) continue;
      const at = point ? this.host.pagePosition(point) : { ...(this.offAt.get(id) ?? { x: rect.left, y: rect.top }), visible: true };
      if (point) this.offAt.delete(id);
      dot.hidden = !at.visible;
      dot.classList.toggle('off', point === null);
      dot.style.left = `${at.x - rect.left}px`;
      dot.style.top = `${at.y - rect.top}px`;
    }
  }

  private build(markers: readonly TemplateMarker[], key: string): void {
    this.builtFor = key;
    this.offAt.clear();
    this.layer.replaceChildren();
    this.dots.clear();
    for (const { id, label } of markers) {
      const dot = element('div', 'template-dot');
      dot.dataset.marker = id;
      // A right-side marker is on the viewer's left in a front view: its label goes to that side, clear of its twin.
      dot.classList.toggle('label-left', id.endsWith('.R'));
      dot.title = `${label}: drag onto the mesh`;
      dot.append(element('span', 'template-dot-label', label));
      dot.addEventListener('pointerdown', (event) => this.grab(event, id, dot));
      dot.addEventListener('pointermove', (event) => this.drag(event, dot));
      dot.addEventListener('pointerup', (event) => this.drop(event, id));
      dot.addEventListener('pointercancel', () => {
        this.dragging = null;
        this.placeDots();
      });
      this.layer.append(dot);
      this.dots.set(id, dot);
    }
  }

  /** A press on a dot takes it; the offset from its centre is kept, so the dot does not jump under the pointer. */
  private grab(event: PointerEvent, id: string, dot: HTMLElement): void {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    dot.setPointerCapture(event.pointerId);
    const rect = this.container.getBoundingClientRect();
    const x = rect.left + parseFloat(dot.style.left || '0');
    const y = rect.top + parseFloat(dot.style.top || '0');
    this.dragging = { id, dx: event.clientX - x, dy: event.clientY - y };
    dot.classList.add('dragging');
  }

  private drag(event: PointerEvent, dot: HTMLElement): void {
    const dragging = this.dragging;
    if (!dragging || dot.dataset.marker !== dragging.id) return;
    const rect = this.container.getBoundingClientRect();
    dot.style.left = `${event.clientX - dragging.dx - rect.left}px`;
    dot.style.top = `${event.clientY - dragging.dy - rect.top}px`;
  }

  private drop(event: PointerEvent, id: string): void {
    const dragging = this.dragging;
    if (!dragging || dragging.id !== id) return;
    this.dragging = null;
    this.dots.get(id)?.classList.remove('dragging');
    const x = event.clientX - dragging.dx;
    const y = event.clientY - dragging.dy;
    this.offAt.set(id, { x, y });
    this.host.template.dropMarker(id, x, y);
  }
}
