/**
 * The Scripting panel's editor: monaco-editor (VS Code's editor) in TypeScript mode, checked against the script API's
 * declaration file, so `rig.` completes, hovers show the API's TSDoc, signature help and type errors work as in
 * VS Code. The panel loads this module with a dynamic import when it first opens: monaco and its workers are a large
 * part of the bundle, and the app's start does not wait for them.
 *
 * Only the editor API, its features and the TypeScript language are taken (monaco's `editor` entry point, the
 * TypeScript tokenizer and language service), not the whole package with its eighty languages and the CSS, HTML and
 * JSON services. The two web workers monaco
 * needs, the editor worker (diffs, word ranges) and the TypeScript worker (the language service), are bundled by
 * Vite (`?worker`) and started from the app's own files, which the Content-Security-Policy allows (worker-src 'self').
 */
import { editor, MarkerSeverity, Uri, type IDisposable } from 'monaco-editor/editor';
// The editor's features (suggest, hover, parameter hints, markers, find, comments…) must be registered before the
// editor is made: they attach to an editor as it is created. The TypeScript language loads the same modules itself.
import 'monaco-editor/features/register.all';
import 'monaco-editor/languages/definitions/typescript/register';
import { ModuleKind, typescriptDefaults, type ScriptTarget } from 'monaco-editor/languages/features/typescript/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import TypeScriptWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker';
import apiDeclarations from '../scripting/rigwright-api.d.ts?raw';

/** TypeScript's ModuleDetectionKind.Force, which monaco's copy of the compiler options leaves untyped. */
const MODULE_DETECTION_FORCE = 3;

/** Where the declaration file sits in the language service's virtual file system. */
const API_DECLARATIONS_PATH = 'file:///rigwright/rigwright-api.d.ts';
/** The script's model: one, whose text changes as scripts are opened. */
const SCRIPT_URI = 'file:///rigwright/script.ts';

let configured = false;

/** Monaco's workers from the app's bundle, and the TypeScript defaults for scripts; once per page. */
function configureMonaco(): void {
  if (configured) return;
  configured = true;
  globalThis.MonacoEnvironment = {
    getWorker: (_moduleId: string, label: string) =>
      label === 'typescript' || label === 'javascript' ? new TypeScriptWorker() : new EditorWorker(),
  };
  // The options scripts are checked with everywhere (SCRIPT_CHECK_OPTIONS, script-declarations.ts): strict, ES2022
  // without DOM types (a script has no DOM), and the script a module of its own so its top level may `await` (the
  // declaration file stays global); module ESNext is what top-level await needs besides.
  typescriptDefaults.setCompilerOptions({
    // TypeScript's ScriptTarget.ES2022 is 9; monaco's copy of the enum stops at ES2020.
    target: 9 as ScriptTarget,
    module: ModuleKind.ESNext,
    moduleDetection: MODULE_DETECTION_FORCE,
    lib: ['es2022'],
    strict: true,
    noEmit: true,
    allowNonTsExtensions: true,
    types: [],
  });
  typescriptDefaults.setDiagnosticsOptions({ noSemanticValidation: false, noSyntaxValidation: false });
  typescriptDefaults.addExtraLib(apiDeclarations, API_DECLARATIONS_PATH);
}

/** A problem the TypeScript checker found in the script, 1-based line and column. */
export interface ScriptProblem {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning' | 'info';
}

export interface ScriptEditorOptions {
  /** the text it starts with */
  text: string;
  /** the text changed (typing, undo, paste) */
  changed(text: string): void;
  /** the editor's text area took or lost the keyboard focus */
  focusChanged(focused: boolean): void;
  /** the theme of the page: 'dark' or 'light' */
  theme: 'dark' | 'light';
}

/** The editor as the panel uses it. */
export interface ScriptEditor {
  readonly text: string;
  /** Replaces the whole text (a script opened): the editor's own undo starts over. */
  setText(text: string): void;
  /** Puts the cursor at a 1-based line and column, scrolls it into view and focuses the editor. */
  revealPosition(line: number, column: number): void;
  focus(): void;
  /** whether the editor has the keyboard focus */
  readonly focused: boolean;
  /** the checker's problems in the script now */
  problems(): ScriptProblem[];
  setTheme(theme: 'dark' | 'light'): void;
  dispose(): void;
}

const SEVERITIES = new Map<MarkerSeverity, ScriptProblem['severity']>([
  [MarkerSeverity.Error, 'error'],
  [MarkerSeverity.Warning, 'warning'],
  [MarkerSeverity.Info, 'info'],
]);

/**
 * Makes the editor in `host` (which it fills; monaco follows the host's size as it changes).
 * @param host  an empty element with a size
 */
export function createScriptEditor(host: HTMLElement, options: ScriptEditorOptions): ScriptEditor {
  configureMonaco();
  const uri = Uri.parse(SCRIPT_URI);
  const model = editor.getModel(uri) ?? editor.createModel(options.text, 'typescript', uri);
  if (model.getValue() !== options.text) model.setValue(options.text);
  const view = editor.create(host, {
    model,
    theme: options.theme === 'light' ? 'vs' : 'vs-dark',
    automaticLayout: true,
    minimap: { enabled: false },
    fontSize: 13,
    lineNumbersMinChars: 3,
    scrollBeyondLastLine: false,
    tabSize: 2,
    fixedOverflowWidgets: true,
    // The plain text area, not the EditContext API: the app's keyboard shortcuts leave a focused text area alone.
    editContext: false,
    accessibilitySupport: 'off',
  });
  const disposables: IDisposable[] = [
    model.onDidChangeContent(() => options.changed(model.getValue())),
    view.onDidFocusEditorText(() => options.focusChanged(true)),
    view.onDidBlurEditorText(() => options.focusChanged(false)),
  ];
  return {
    get text() {
      return model.getValue();
    },
    setText(text) {
      model.setValue(text);
    },
    revealPosition(line, column) {
      view.setPosition({ lineNumber: line, column });
      view.revealPositionInCenter({ lineNumber: line, column });
      view.focus();
    },
    focus() {
      view.focus();
    },
    get focused() {
      return view.hasTextFocus();
    },
    problems() {
      return editor.getModelMarkers({ resource: uri }).map((marker) => ({
        line: marker.startLineNumber,
        column: marker.startColumn,
        message: marker.message,
        severity: SEVERITIES.get(marker.severity) ?? 'info',
      }));
    },
    setTheme(theme) {
      editor.setTheme(theme === 'light' ? 'vs' : 'vs-dark');
    },
    dispose() {
      for (const disposable of disposables) disposable.dispose();
      view.dispose();
    },
  };
}
