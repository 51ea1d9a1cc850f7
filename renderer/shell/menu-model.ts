import type { MenuModel, RigwrightBridge } from '../../app/ipc-contract.ts';
import { COMMANDS, type CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { acceleratorOf } from '../commands/keybindings.ts';
import { buildMenuModel, type MenuCommandState } from '../commands/menus.ts';

/** The desktop menus now: every catalog command that names a menu, with its title, enabled state, check and key. */
export function menuModel(commands: CommandRegistry): MenuModel {
  const states: MenuCommandState[] = [];
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    const menu = COMMANDS[id].menu;
    if (!menu) continue;
    if (COMMANDS[id].hideWhenDisabled && !commands.isEnabled(id)) continue;
    const checked = commands.isChecked(id);
    const accelerator = acceleratorOf(id);
    states.push({
      id,
      menu,
      title: commands.titleOf(id),
      enabled: commands.isEnabled(id),
      ...(checked !== undefined ? { checked } : {}),
      ...(accelerator ? { accelerator } : {}),
    });
  }
  return buildMenuModel(states);
}

/** The desktop menus as last sent to the desktop shell; sent again only when something they show changed. */
export class DesktopMenu {
  private sent = '';

  constructor(
    private readonly commands: CommandRegistry,
    private readonly bridge: Pick<RigwrightBridge, 'setMenu'>,
  ) {}

  update(): void {
    const model = menuModel(this.commands);
    const serialized = JSON.stringify(model);
    if (serialized === this.sent) return;
    this.sent = serialized;
    this.bridge.setMenu(model);
  }
}
