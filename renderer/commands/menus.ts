/**
 * The desktop menus, made from the command catalog and the keybinding table: one entry per command that names a
 * menu, in catalog order, with its current title, enabled state, check mark and key. The renderer sends this model
 * to the desktop shell (app/ipc-contract.ts MenuModel), which builds the native menu from it.
 */
import type { MenuModel } from '../../app/ipc-contract.ts';
import { MENUS, type CommandId, type MenuName } from './command-catalog.ts';

// The menu names live in the catalog (each command names its menu there); they are offered here too.
export { MENUS, type MenuName };

export interface MenuCommandState {
  id: CommandId;
  menu: MenuName;
  title: string;
  enabled: boolean;
  checked?: boolean;
  /** Electron accelerator of the command's first key binding, e.g. 'CmdOrCtrl+Z' */
  accelerator?: string;
}

/** Groups the commands' states into menus, in menu-bar order; empty menus are left out. */
export function buildMenuModel(commands: readonly MenuCommandState[]): MenuModel {
  return MENUS.flatMap((menu) => {
    const items = commands
      .filter((c) => c.menu === menu)
      .map((c) => ({
        command: c.id,
        label: c.title,
        enabled: c.enabled,
        ...(c.checked !== undefined ? { checked: c.checked } : {}),
        ...(c.accelerator ? { accelerator: c.accelerator } : {}),
      }));
    return items.length > 0 ? [{ label: menu, items }] : [];
  });
}
