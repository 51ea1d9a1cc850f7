/**
 * The viewport's floating panels docked in two columns, one along each side, so that panels open together stack and
 * none covers another (the bone scales under the Examples panel, the help beside a panel). A column is as tall as
 * the viewport; its panels keep their own widths and heights and scroll inside when the column runs out of room.
 * Panels that used to sit at the bottom of the viewport (Pose, Meshes) sit at the bottom of their column, and the
 * notice at the bottom of the right one. The columns let the pointer through where they have no panel.
 */
import './panel-dock.css';
import { element } from './controls.ts';

/** Which column each panel docks in, top to bottom (by the panel's selector); anything else floating goes right. */
const COLUMNS = {
  left: ['#bind-panel', '#template-panel', '#pose-panel', '#meshes-panel'],
  right: ['#help-overlay', '#examples-panel', '#bone-list', '#paint-panel', '.bone-scale-panel', '#messages-panel', '.notice'],
} as const;

/**
 * Moves the panels floating over `viewport` into a left and a right column (made here), in the order of COLUMNS;
 * a floating panel COLUMNS does not name joins the right column before the notice.
 * @returns the two columns
 */
export function dockPanels(viewport: HTMLElement): { left: HTMLElement; right: HTMLElement } {
  const left = element('div', 'panel-column panel-column-left');
  const right = element('div', 'panel-column panel-column-right');
  const place = (column: HTMLElement, selectors: readonly string[]) => {
    for (const selector of selectors)
      for (const panel of viewport.querySelectorAll<HTMLElement>(`:scope > ${selector}`)) column.append(panel);
  };
  place(left, COLUMNS.left);
  place(right, COLUMNS.right);
  const notice = right.querySelector(':scope > .notice');
  for (const panel of viewport.querySelectorAll<HTMLElement>(':scope > .bind-panel')) right.insertBefore(panel, notice);
  viewport.append(left, right);
  return { left, right };
}
