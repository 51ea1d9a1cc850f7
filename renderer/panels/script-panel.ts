/**
 * The Scripting panel: a TypeScript editor (monaco, loaded when the panel first opens: script-editor.ts) for scripts
 * that drive the app through its commands, a toolbar (Run, Stop, Open…, Save, Save as…, Examples ▾, Recent ▾) and a
 * console below with what the run prints, its errors (a click on "line L, column C" puts the cursor there) and a last
 * line saying how it ended and how long it took. While a script runs, Run is greyed, Stop is not, and a bar shows the
 * progress the script reports (`rig.progress`).
 *
 * Scripts are files: Open… and Save go through the app's file bridge (a dialog in the desktop app; the file input and
 * a download on the web page). The page never sees a path, so the recent scripts keep their text as last opened or
 * saved here (in the browser's storage, as the recent projects keep their tokens), and Save writes under the script's
 * name, asking where in the desktop app. Nothing typed is lost: the editor's text, its name and the text last saved
 * are kept in the browser's storage at every change, and come back when the panel is closed and opened or the page
 * reloaded; unsaved changes are marked (•) and asked about before Open, an example or a recent script replaces them.
 *
 * DOM only: the runs are the script controller's, the keys the app's key table (Ctrl/⌘ Enter runs while the editor
 * has the focus: the `scriptEditorFocus` context key; Esc stops a run, the editor focused or not: `scriptRunning`, once
 * monaco has closed a pop-up of its own with it, and the panel's menus and question bar keep their Escape).
 */
import './script-panel.css';
import { SCRIPT_EXAMPLES } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { chordOf, resolveKey } from '../commands/keybindings.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import type { ScriptController } from '../scripting/script-controller.ts';
import type { ScriptOutput } from '../../workers/script/script-host.ts';
import type { ScriptEditor } from './script-editor.ts';
import { editorKeyTurn, type EditorKeyTurn } from './script-editor-keys.ts';
import { commandButton, element, floatingPanel, refreshCommandButtons, toolButton } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

/** Storage key: the editor's script (name, text, the text last opened or saved) as JSON, written at every change. */
const SCRIPT_DRAFT_KEY = 'rigwright.scriptDraft';
/** Storage key: the recent scripts, newest first, as JSON [{ name, text }]. */
const RECENT_SCRIPTS_KEY = 'rigwright.recentScripts';
/** Recent scripts kept. */
const MAX_RECENT_SCRIPTS = 8;
/** Lines the console keeps (the oldest go first). */
const MAX_CONSOLE_LINES = 2000;
/** The name of a script that has none yet. */
const UNTITLED = 'untitled.ts';

/** A script file: its base name and its text. */
export interface ScriptFile {
  name: string;
  text: string;
}

/** What the panel reads and writes files with: the app's bridge (open and save dialogs, or input and download). */
export interface ScriptFiles {
  /** Asks for a script file; null when the user cancels. */
  open(): Promise<ScriptFile | null>;
  /** Writes a script under `name` (the desktop asks where); false when the user cancels. */
  save(file: ScriptFile): Promise<boolean>;
}

/** The part of the browser's Storage the panel keeps its draft and recent scripts in (null where it cannot). */
export type ScriptStorage = Pick<Storage, 'getItem' | 'setItem'>;

export interface ScriptPanelHost {
  readonly commands: CommandRegistry;
  readonly scripts: Pick<ScriptController, 'run' | 'running' | 'progress' | 'onOutput' | 'onRunningChange'>;
  readonly files: ScriptFiles;
  readonly storage: ScriptStorage | null;
  /** the built-in examples' texts, by name (SCRIPT_EXAMPLES), loaded when asked for */
  readonly examples: Readonly<Record<string, () => Promise<string>>>;
  /** the app's context keys now (the editor's keys are looked up in the key table with them) */
  context(): WhenContext;
  /** the panel's state changed (focus, running): the app redraws what depends on it */
  changed(): void;
}

/** The editor's script as kept in the storage. */
interface Draft {
  name: string;
  text: string;
  /** the text as last opened or saved: the script has unsaved changes when it differs */
  saved: string;
}

export class ScriptPanel {
  readonly root: HTMLElement;
  private readonly nameLabel: HTMLElement;
  private readonly progressRow: HTMLElement;
  private readonly progressBar: HTMLProgressElement;
  private readonly progressText: HTMLElement;
  private readonly question: HTMLElement;
  private readonly editorHost: HTMLElement;
  private readonly output: HTMLElement;
  private readonly examplesMenu: DropMenu;
  private readonly recentMenu: DropMenu;
  private draft: Draft;
  private editor: ScriptEditor | null = null;
  private editorLoading: Promise<ScriptEditor | null> | null = null;
  private editorHasFocus = false;

  /** @param container  the viewport element the panel docks over */
  constructor(
    container: HTMLElement,
    private readonly host: ScriptPanelHost,
  ) {
    const { commands } = host;
    this.draft = readDraft(host.storage);
    this.root = floatingPanel('script-panel', 'bind-panel script-panel', 'Scripting', commands, 'script.panel');
    const bar = element('div', 'row script-toolbar');
    commandButton(bar, commands, 'script.run', { label: 'Run', className: 'tool-button primary' });
    commandButton(bar, commands, 'script.stop', { label: 'Stop' });
    commandButton(bar, commands, 'script.open', { label: 'Open…' });
    commandButton(bar, commands, 'script.save', { label: 'Save' });
    commandButton(bar, commands, 'script.saveAs', { label: 'Save as…' });
    this.examplesMenu = new DropMenu(bar, 'Examples ▾', 'Built-in example scripts to run or adapt', () =>
      SCRIPT_EXAMPLES.map((name) => ({ label: `${name}.ts`, run: () => void commands.invoke('script.example', name) })),
    );
    this.recentMenu = new DropMenu(bar, 'Recent ▾', 'Scripts opened or saved here lately, as they were then', () =>
      readRecent(host.storage).map((file) => ({ label: file.name, run: () => void this.openRecent(file) })),
    );
    this.nameLabel = element('span', 'script-name');
    bar.append(this.nameLabel);
    this.progressRow = element('div', 'script-progress');
    this.progressBar = element('progress');
    this.progressBar.max = 1;
    this.progressBar.setAttribute('aria-label', 'Script progress');
    this.progressText = element('span', 'dim');
    this.progressRow.append(this.progressBar, this.progressText);
    this.progressRow.hidden = true;
    this.question = element('div', 'script-question');
    this.question.hidden = true;
    this.editorHost = element('div', 'script-editor', 'Loading the editor…');
    this.output = element('div', 'script-console');
    this.output.setAttribute('role', 'log');
    this.output.setAttribute('aria-label', 'Script output');
    this.root.append(bar, this.progressRow, this.question, this.editorHost, this.output);
    // The app's key listener leaves a focused text area alone: the editor's keys (Ctrl/⌘ Enter) go to the key table
    // before monaco sees them, a running script's (Esc stops it) once monaco has left them (script-editor-keys.ts).
    this.root.addEventListener('keydown', (event) => this.editorKey(event, 'beforeEditor'), { capture: true });
    this.root.addEventListener('keydown', (event) => this.editorKey(event, 'afterEditor'));
    host.scripts.onOutput((line) => this.print(line));
    host.scripts.onRunningChange((running) => {
      if (running) this.output.replaceChildren();
      this.refresh();
      host.changed();
    });
    new MutationObserver(() => this.editor?.setTheme(pageTheme())).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['data-theme'],
    });
    dockPanel(container, this.root, 'script');
    this.showName();
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** whether the script editor has the keyboard focus (the `scriptEditorFocus` context key) */
  get editorFocused(): boolean {
    return this.editorHasFocus;
  }

  /** the editor's script: its name and text */
  get script(): ScriptFile {
    return { name: this.draft.name, text: this.draft.text };
  }

  /** whether the editor's text differs from the text last opened or saved */
  get unsaved(): boolean {
    return this.draft.text !== this.draft.saved;
  }

  /** Shows or hides the panel; the editor is loaded the first time it shows. */
  setOpen(open: boolean): void {
    this.root.hidden = !open;
    if (open) void this.loadEditor();
    else this.closeMenus();
    this.refresh();
  }

  /** The editor, loaded (monaco and its workers) on first use; null when it could not load (the console says why). */
  loadEditor(): Promise<ScriptEditor | null> {
    this.editorLoading ??= import('./script-editor.ts').then(
      ({ createScriptEditor }) => {
        this.editorHost.replaceChildren();
        this.editor = createScriptEditor(this.editorHost, {
          text: this.draft.text,
          theme: pageTheme(),
          changed: (text) => this.edited(text),
          focusChanged: (focused) => {
            this.editorHasFocus = focused;
            this.host.changed();
          },
        });
        return this.editor;
      },
      (error: unknown) => {
        this.editorHost.textContent = 'The editor could not load.';
        this.print({ kind: 'error', text: `The script editor could not load: ${error instanceof Error ? error.message : String(error)}` });
        return null;
      },
    );
    return this.editorLoading;
  }

  /** Runs the editor's script (the panel opens to show its output); resolves when the run has ended. */
  async run(): Promise<void> {
    if (!this.open) this.setOpen(true);
    const { name, text } = this.draft;
    await this.host.scripts.run(text, name);
  }

  /** Open…: a script file replaces the editor's text, once its unsaved changes may go. */
  async openFile(): Promise<void> {
    if (!(await this.mayReplace())) return;
    const file = await this.host.files.open();
    if (file) this.show(file, true);
  }

  /** Save: writes the script under its name (Save as… for a script never named). @returns whether it was written */
  async save(): Promise<boolean> {
    if (this.draft.name === UNTITLED && this.draft.saved === '') return this.saveAs();
    return this.write(this.draft.name);
  }

  /** Save as…: asks for a name in the panel, then writes under it. @returns whether it was written */
  async saveAs(): Promise<boolean> {
    const name = await this.askName(this.draft.name);
    return name !== null && this.write(name);
  }

  /**
   * Opens a built-in example (SCRIPT_EXAMPLES) in the editor, once unsaved changes may go.
   * @throws Error naming the example when the app has none of that name
   */
  async openExample(name: string): Promise<void> {
    const load = this.host.examples[name];
    if (!load) throw new Error(`script.example: there is no example "${name}" (examples: ${Object.keys(this.host.examples).join(', ')})`);
    const text = await load();
    if (!(await this.mayReplace())) return;
    if (!this.open) this.setOpen(true);
    this.show({ name: `${name}.ts`, text }, false);
  }

  refresh(): void {
    refreshCommandButtons(this.root, this.host.commands);
    const running = this.host.scripts.running;
    this.progressRow.hidden = !running;
    const progress = this.host.scripts.progress;
    if (progress) this.progressBar.value = progress.fraction;
    else this.progressBar.removeAttribute('value');
    this.progressText.textContent = running ? (progress?.message ?? 'Running…') : '';
  }

  private async openRecent(file: ScriptFile): Promise<void> {
    if (!(await this.mayReplace())) return;
    this.show(file, true);
  }

  /** Puts a script in the editor as opened (its text is the saved one); a file is remembered as recent. */
  private show(file: ScriptFile, recent: boolean): void {
    this.draft = { name: file.name, text: file.text, saved: file.text };
    this.keepDraft();
    if (recent) this.remember(file);
    this.editor?.setText(file.text);
    this.showName();
  }

  private async write(name: string): Promise<boolean> {
    const file = { name, text: this.draft.text };
    if (!(await this.host.files.save(file))) return false;
    this.draft = { name, text: file.text, saved: file.text };
    this.keepDraft();
    this.remember(file);
    this.showName();
    return true;
  }

  private edited(text: string): void {
    this.draft = { ...this.draft, text };
    this.keepDraft();
    this.showName();
  }

  private showName(): void {
    const unsaved = this.unsaved;
    this.nameLabel.textContent = unsaved ? `${this.draft.name} •` : this.draft.name;
    this.nameLabel.title = unsaved ? `${this.draft.name}: changes not saved to its file` : this.draft.name;
  }

  private keepDraft(): void {
    try {
      this.host.storage?.setItem(SCRIPT_DRAFT_KEY, JSON.stringify(this.draft));
    } catch (error) {
      // A full storage must not lose what is typed quietly: the console says the draft is no longer kept.
      this.print({ kind: 'error', text: `The script's draft could not be kept in the browser's storage: ${String(error)}` });
    }
  }

  private remember(file: ScriptFile): void {
    const list = [file, ...readRecent(this.host.storage).filter((other) => other.name !== file.name)].slice(0, MAX_RECENT_SCRIPTS);
    try {
      this.host.storage?.setItem(RECENT_SCRIPTS_KEY, JSON.stringify(list));
    } catch {
      // The recent list is a convenience: a full storage leaves it as it was.
    }
  }

  /** Whether the editor's text may be replaced: at once when it is saved, else as the user answers (Save, Discard). */
  private async mayReplace(): Promise<boolean> {
    if (!this.unsaved) return true;
    const answer = await this.ask(`${this.draft.name} has changes that are not saved.`, ['Save', 'Discard', 'Cancel']);
    if (answer === 'Save') return this.save();
    return answer === 'Discard';
  }

  /** A question in a bar over the editor; resolves with the button pressed ('Cancel' when it is dismissed). */
  private ask(text: string, answers: readonly string[], field?: HTMLInputElement): Promise<string> {
    return new Promise((resolve) => {
      const answered = (answer: string) => {
        this.question.hidden = true;
        this.question.replaceChildren();
        resolve(answer);
      };
      this.question.replaceChildren(element('span', undefined, text));
      if (field) this.question.append(field);
      // Escape on the question's buttons is the question's (it cancels the question, not a running script): the
      // window's key table leaves it (data-own-keys), as it leaves the name field's.
      for (const answer of answers) toolButton(this.question, answer, answer, () => answered(answer)).dataset.ownKeys = 'Escape';
      this.question.onkeydown = (event) => {
        if (event.key === 'Escape') answered('Cancel');
        if (event.key === 'Enter' && field) answered(answers[0]);
      };
      this.question.hidden = false;
      (field ?? this.question.querySelector('button'))?.focus();
    });
  }

  /** Asks for a file name (.ts or .js); null when cancelled. */
  private async askName(suggested: string): Promise<string | null> {
    const field = element('input', 'script-name-field');
    field.value = suggested;
    field.setAttribute('aria-label', 'Script file name');
    for (;;) {
      const answer = await this.ask('Save as', ['Save', 'Cancel'], field);
      if (answer !== 'Save') return null;
      const name = scriptFileName(field.value);
      if (name) return name;
      this.print({ kind: 'error', text: `Save as: "${field.value}" is not a file name (letters, no / or \\)` });
    }
  }

  /**
   * Hands a key pressed in the focused editor to the key table at `turn`: before monaco (capture phase), or after it
   * (bubble phase, which a key monaco handles does not reach: monaco stops it, as Esc closing its completion list;
   * monaco's text area prevents the default of every Esc, so that is no sign). Everything else is the editor's own
   * (typing, its undo).
   */
  private editorKey(event: KeyboardEvent, turn: Exclude<EditorKeyTurn, null>): void {
    if (!this.editorHasFocus || event.isComposing) return;
    if (turn === 'beforeEditor' && event.defaultPrevented) return;
    const chord = chordOf(event);
    if (!chord) return;
    const binding = resolveKey(chord, { ...this.host.context(), scriptEditorFocus: true });
    if (!binding || editorKeyTurn(event, binding) !== turn) return;
    event.preventDefault();
    event.stopPropagation();
    this.host.commands.invoke(binding.command);
  }

  private print(line: ScriptOutput): void {
    if (line.kind === 'progress') {
      this.refresh();
      return;
    }
    const row = element('div', `script-line script-${line.kind}`);
    if (line.line !== undefined) {
      const place = line.column !== undefined ? `line ${line.line}, column ${line.column}` : `line ${line.line}`;
      const link = element('button', 'script-place', place);
      link.type = 'button';
      link.title = 'Put the cursor there';
      const { line: at, column } = line;
      link.addEventListener('click', () => void this.loadEditor().then((editor) => editor?.revealPosition(at, column ?? 1)));
      row.append(link, ' ');
    }
    row.append(line.text);
    this.output.append(row);
    while (this.output.childElementCount > MAX_CONSOLE_LINES) this.output.firstElementChild?.remove();
    this.output.scrollTop = this.output.scrollHeight;
  }

  private closeMenus(): void {
    this.examplesMenu.close();
    this.recentMenu.close();
  }
}

/** A button that drops a list of choices below it (Examples ▾, Recent ▾); a press elsewhere or Escape closes it. */
class DropMenu {
  private readonly list: HTMLElement;
  private readonly button: HTMLButtonElement;

  constructor(
    parent: HTMLElement,
    label: string,
    title: string,
    private readonly items: () => { label: string; run: () => void }[],
  ) {
    const wrap = element('span', 'script-drop');
    this.button = toolButton(wrap, label, title, () => (this.list.hidden ? this.show() : this.close()));
    this.button.setAttribute('aria-haspopup', 'menu');
    this.button.setAttribute('aria-expanded', 'false');
    this.list = element('div', 'script-drop-list');
    this.list.setAttribute('role', 'menu');
    this.list.setAttribute('aria-label', label.replace(' ▾', ''));
    this.list.hidden = true;
    // Escape on the open menu's items or its button is the menu's (it closes the menu, not a running script): the
    // window's key table leaves it (data-own-keys).
    wrap.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || this.list.hidden) return;
      this.close();
      this.button.focus();
    });
    wrap.append(this.list);
    parent.append(wrap);
    window.addEventListener('pointerdown', (event) => {
      if (!this.list.hidden && !(event.target instanceof Node && wrap.contains(event.target))) this.close();
    });
  }

  show(): void {
    const items = this.items();
    this.list.replaceChildren(
      ...(items.length > 0
        ? items.map(({ label, run }) => {
            const item = element('button', 'script-drop-item', label);
            item.type = 'button';
            item.setAttribute('role', 'menuitem');
            item.dataset.ownKeys = 'Escape';
            item.addEventListener('click', () => {
              this.close();
              run();
            });
            return item;
          })
        : [element('div', 'dim script-drop-empty', 'None yet')]),
    );
    this.list.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.button.dataset.ownKeys = 'Escape';
    this.list.querySelector('button')?.focus();
  }

  close(): void {
    this.list.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    delete this.button.dataset.ownKeys;
  }
}

/** The page's theme (the root element's data-theme, which the preferences set). */
function pageTheme(): 'dark' | 'light' {
  return document.documentElement.dataset.theme === 'light' ? 'light' : 'dark';
}

/** A file name typed for Save as…, with .ts added when it has neither .ts nor .js; null when it is no file name. */
function scriptFileName(typed: string): string | null {
  const name = typed.trim();
  if (name === '' || /[\\/:\0]/.test(name) || name === '.' || name === '..') return null;
  return /\.(ts|js)$/i.test(name) ? name : `${name}.ts`;
}

function readDraft(storage: ScriptStorage | null): Draft {
  const empty = { name: UNTITLED, text: '', saved: '' };
  try {
    const value: unknown = JSON.parse(storage?.getItem(SCRIPT_DRAFT_KEY) ?? 'null');
    if (typeof value !== 'object' || value === null) return empty;
    const { name, text, saved } = value as Record<string, unknown>;
    if (typeof name !== 'string' || typeof text !== 'string') return empty;
    return { name, text, saved: typeof saved === 'string' ? saved : '' };
  } catch {
    return empty;
  }
}

function readRecent(storage: ScriptStorage | null): ScriptFile[] {
  try {
    const value: unknown = JSON.parse(storage?.getItem(RECENT_SCRIPTS_KEY) ?? '[]');
    if (!Array.isArray(value)) return [];
    return value.filter(
      (file): file is ScriptFile =>
        typeof file === 'object' &&
        file !== null &&
        typeof (file as ScriptFile).name === 'string' &&
        typeof (file as ScriptFile).text === 'string',
    );
  } catch {
    return [];
  }
}
