/**
 * The menus and the command palette as the registry has them now: the model the desktop's native menu and the web
 * page's menu bar are drawn from, and the palette's list of every command.
 */
import type { MenuModel, RigwrightBridge } from '../../app/ipc-contract.ts';
import { COMMANDS, needsArgument, type CommandId } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { acceleratorOf, displayKeys } from '../commands/keybindings.ts';
import { buildMenuModel, type MenuCommandState, type PaletteEntry } from '../commands/menus.ts';

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

/**
 * The menus as last sent to the desktop shell (and, in the web page, to its menu bar); sent again only when something
 * they show changed.
 */
export class DesktopMenu {
  private sent = '';

  /** @param show  also given each new model: the web page's menu bar (panels/menu-bar.ts MenuBar.show) */
  constructor(
    private readonly commands: CommandRegistry,
    private readonly bridge: Pick<RigwrightBridge, 'setMenu'>,
    private readonly show?: (model: MenuModel) => void,
  ) {}

  update(): void {
    const model = menuModel(this.commands);
    const serialized = JSON.stringify(model);
    if (serialized === this.sent) return;
    this.sent = serialized;
    this.bridge.setMenu(model);
    this.show?.(model);
  }
}

/**
 * Every catalog command as the command palette lists it, in catalog order: its title, menu and keys now, and whether
 * choosing it runs it. A command that takes an argument is listed, not run: its note says where the mouse sets it
 * (its catalog `noMenu`); one that cannot run now says why (the registry's refusal).
 */
export function paletteEntries(commands: CommandRegistry): PaletteEntry[] {
  const entries: PaletteEntry[] = [];
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    const info = COMMANDS[id];
    if (info.hideWhenDisabled && !commands.isEnabled(id)) continue;
    const takesArgument = needsArgument(id);
    const refusal = takesArgument ? null : commands.refusal(id);
    entries.push({
      id,
      title: commands.titleOf(id),
      menu: info.menu ?? null,
      keys: displayKeys(id),
      enabled: !takesArgument && refusal === null,
      note: takesArgument ? (info.noMenu ?? 'takes an argument, which a script gives') : refusal,
    });
  }
  return entries;
}

/** The command that opens the palette. */
export type PaletteCommandId = 'view.commandPalette';

/** What the palette's command uses of the app. */
export interface PaletteCommandsHost {
  readonly palette: { open(): void };
}

export function paletteCommands(app: PaletteCommandsHost): HandlersFor<PaletteCommandId> {
  return { 'view.commandPalette': { run: () => app.palette.open() } };
}
