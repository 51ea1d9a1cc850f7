/**
 * The wiring of the user's preferences (project/preferences.ts): read from the page's local storage at start, they
 * set the theme (the root element's data-theme, which style.css's variables follow, and the viewport's colours), the
 * units lengths are shown in, the keybinding table in use (the user's keys: the key listener, help, tooltips, menus
 * and palette read it), and what every new scene starts with — its max influences (which the view and the export
 * follow) and the brush; a project opened afterwards restores its own settings over them. Warnings from reading them
 * are listed in a notice. The page is the preferences panel (app.preferences).
 */
import type { CommandRegistry, HandlerOf } from '../commands/command-registry.ts';
import { KEYBINDINGS, useKeybindings } from '../commands/keybindings.ts';
import { KEYS_PREFERENCE, userKeybindings, type KeyOverrides } from '../commands/user-keymap.ts';
import { PreferenceStore, type Preference, type PreferenceStorage } from '../project/preferences.ts';
import { showLengthsIn } from '../project/length-units.ts';
import { PreferencesPanel, type AutosaveFields } from '../panels/preferences-panel.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** What the preferences need of the app. */
export interface UserPreferencesHost {
  readonly store: Pick<SceneStore, 'subscribe'>;
  readonly commands: Pick<CommandRegistry, 'execute' | 'invoke'>;
  readonly work: { readonly autosave: { readonly options: AutosaveFields } };
  readonly notice: { show(title: string, items: readonly string[]): void };
  /** the 3D view, whose background and grid follow the theme */
  readonly viewport: { setTheme(theme: 'dark' | 'light'): void };
  /** the scene's max influences, which the view and the export follow (bind/max-influences.ts) */
  readonly maxInfluences: { startWith(count: number): void };
  refreshChrome(): void;
}

/** The page's local storage, or null where it cannot be used (the preferences then hold for the page only). */
function pageStorage(): PreferenceStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export class UserPreferences {
  readonly store: PreferenceStore;
  /** the user's keys, a preference of their own (commands/user-keymap.ts) */
  readonly keys: Preference<KeyOverrides>;
  readonly panel: PreferencesPanel;

  constructor(private readonly host: UserPreferencesHost) {
    this.store = new PreferenceStore(pageStorage(), (message) => console.warn(message));
    const { core } = this.store;
    this.applyTheme();
    core.theme.subscribe(() => this.applyTheme());
    showLengthsIn(core.lengthUnits.get());
    core.lengthUnits.subscribe((units) => {
      showLengthsIn(units);
      host.refreshChrome();
    });
    this.keys = this.store.register(KEYS_PREFERENCE);
    this.applyKeys();
    this.keys.subscribe(() => this.applyKeys());
    host.store.subscribe((change) => {
      if (change.kind === 'document' && change.newScene) this.applyNewSceneDefaults();
    });
    this.panel = new PreferencesPanel({
      preferences: this.store,
      keys: this.keys,
      autosave: () => ({ ...host.work.autosave.options }),
      setAutosave: (settings) => host.commands.invoke('file.autosave', settings),
    });
  }

  /** Starts the scene shown at start-up with the defaults, and lists what reading the preferences noticed. */
  start(): void {
    this.applyNewSceneDefaults();
    if (this.store.warnings.length > 0) this.host.notice.show('Some preferences could not be read', this.store.warnings);
  }

  /** The max influences and brush of a new scene (a project's own settings, restored after, win). */
  private applyNewSceneDefaults(): void {
    const { core } = this.store;
    this.host.maxInfluences.startWith(core.maxInfluences.get());
    const brush = core.brush.get();
    const { commands } = this.host;
    void commands.execute('paint.brushMode', brush.mode);
    void commands.execute('paint.brushRadius', brush.radius);
    void commands.execute('paint.brushStrength', brush.strength);
    void commands.execute('paint.brushFalloff', brush.falloff);
  }

  private applyTheme(): void {
    const theme = this.store.core.theme.get();
    document.documentElement.dataset.theme = theme;
    this.host.viewport.setTheme(theme);
  }

  /** The table in use follows the user's keys; buttons' tooltips and the menus show them (the chrome's refresh). */
  private applyKeys(): void {
    const keys = this.keys.get();
    useKeybindings(Object.keys(keys).length > 0 ? userKeybindings(keys) : KEYBINDINGS);
    this.host.refreshChrome();
  }
}

/** What the preferences command uses of the app. */
export interface PreferencesCommandsHost {
  readonly preferences: UserPreferences;
}

/** The command that opens the preferences page. */
export function preferencesCommands(app: PreferencesCommandsHost): { 'app.preferences': HandlerOf<'app.preferences'> } {
  return { 'app.preferences': { run: () => app.preferences.panel.show() } };
}
