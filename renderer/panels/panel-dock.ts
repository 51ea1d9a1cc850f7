/**
 * The viewport's floating panels docked in two columns, one along each side, so that panels open together stack and
 * none covers another (the bone scales under the Examples panel, the help beside a panel). A column is as tall as
 * the viewport; its panels keep their own widths and heights and scroll inside when the column runs out of room.
 * Panels that used to sit at the bottom of the viewport (Pose, Meshes) sit at the bottom of their column, and the
 * notice at the bottom of the right one. The columns let the pointer through where they have no panel.
 *
 * Each panel docks itself where it is made (dockPanel), naming its slot: a panel made at any time, before or after
 * the others, takes its place in its column, and one that names no slot cannot be docked by mistake elsewhere.
 */
import './panel-dock.css';
import { element } from './controls.ts';

/** The docked panels: their column, top to bottom, and whether they sit at the column's foot. */
const SLOTS = {
  bind: { side: 'left', rank: 0, foot: false },
  vertexWeights: { side: 'left', rank: 0.5, foot: false },
  template: { side: 'left', rank: 1, foot: false },
  pose: { side: 'left', rank: 2, foot: true },
  meshes: { side: 'left', rank: 3, foot: true },
  help: { side: 'right', rank: 0, foot: false },
  examples: { side: 'right', rank: 1, foot: false },
  bones: { side: 'right', rank: 2, foot: false },
  paint: { side: 'right', rank: 3, foot: false },
  boneScale: { side: 'right', rank: 4, foot: false },
  messages: { side: 'right', rank: 5, foot: false },
  script: { side: 'right', rank: 6, foot: false },
  notice: { side: 'right', rank: 7, foot: true },
} as const satisfies Record<string, { side: 'left' | 'right'; rank: number; foot: boolean }>;

/** Where a panel docks. */
export type DockSlot = keyof typeof SLOTS;

/** The two columns of `viewport`, made at the first panel docked in it. */
function columnsOf(viewport: HTMLElement): { left: HTMLElement; right: HTMLElement } {
  let left = viewport.querySelector<HTMLElement>(':scope > .panel-column-left');
  let right = viewport.querySelector<HTMLElement>(':scope > .panel-column-right');
  if (!left || !right) {
    left = element('div', 'panel-column panel-column-left');
    right = element('div', 'panel-column panel-column-right');
    viewport.append(left, right);
  }
  return { left, right };
}

/**
 * Docks `panel` over `viewport` in its slot's column, above every panel of a later slot (whatever order they were
 * made in). Panels call it where they are made, in place of appending themselves to the viewport.
 * @param viewport  the element the columns cover (the viewport's container)
 * @param panel     the panel's root element (moved into the column)
 * @param slot      which panel it is
 */
export function dockPanel(viewport: HTMLElement, panel: HTMLElement, slot: DockSlot): void {
  const { side, rank, foot } = SLOTS[slot];
  const column = columnsOf(viewport)[side];
  panel.classList.add('docked-panel');
  panel.classList.toggle('dock-foot', foot);
  panel.dataset.dockSlot = slot;
  const after = [...column.children].find(
    (child) =>
      child instanceof HTMLElement && child.dataset.dockSlot !== undefined && SLOTS[child.dataset.dockSlot as DockSlot].rank > rank,
  );
  column.insertBefore(panel, after ?? null);
}
