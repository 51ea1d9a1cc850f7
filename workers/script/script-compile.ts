/**
 * A script's TypeScript made runnable: the types stripped by sucrase (which keeps every line and column where it
 * was), the body wrapped in an async function so the top level may `await`, and what a script may not do refused
 * before anything runs: `import` and `export` statements, `import(…)` and `require(…)` (everything a script uses is
 * on `rig`). The same in the app and the CLI; the sandboxes (script-runtime.ts) run the result.
 */
import { getFormattedTokens, transform } from 'sucrase';

/** Where and why a script could not run (a syntax error, an import, or an error it threw or rejected with). */
export interface ScriptError {
  message: string;
  /** the script's file as the run was given it */
  file: string;
  /** 1-based line in the script's own source, when known */
  line?: number;
  /** 1-based column, when known */
  column?: number;
}

/** A script ready for a sandbox. */
export interface CompiledScript {
  /** the file name given to the run, as errors name it */
  readonly file: string;
  /**
   * JavaScript: one function expression, its head `(async function () { 'use strict';` on the first line (strict, as
   * a TypeScript module is), the script's body (stripped of types, line for line), and `})` on a line after it.
   * Evaluating it gives the function; calling it runs the script and gives its promise.
   */
  readonly code: string;
  /** lines of `code` before the script's first line: the script's line N is line N + lineOffset of `code` */
  readonly lineOffset: number;
}

/** The message of a script that imports (`import`, `export`, `import(…)`, `require(…)`). */
export const IMPORT_REFUSED = 'scripts cannot import modules: everything they use is on `rig`';

/** The first line of CompiledScript.code (the script's own lines follow it). */
const PROLOGUE = "(async function () { 'use strict';\n";
const EPILOGUE = '\n})';

/** Thrown by compileScript: a ScriptError that is also an Error (its message says file, line and column). */
export class ScriptCompileError extends Error implements ScriptError {
  constructor(
    readonly reason: string,
    readonly file: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${file}${line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ''}` : ''}: ${reason}`);
    this.name = 'ScriptCompileError';
  }

  /** The plain ScriptError (the reason as its message, the place apart). */
  get scriptError(): ScriptError {
    return {
      message: this.reason,
      file: this.file,
      ...(this.line !== undefined ? { line: this.line } : {}),
      ...(this.column !== undefined ? { column: this.column } : {}),
    };
  }
}

/**
 * Compiles a script: TypeScript → JavaScript wrapped as an async function (CompiledScript.code).
 * @param source  the script's TypeScript
 * @param file    its file name (errors name it; a `.js` file is compiled the same way, types being optional)
 * @throws ScriptCompileError naming the file, line and column of a syntax error or of an import
 */
export function compileScript(source: string, file: string): CompiledScript {
  let code: string;
  try {
    code = transform(source, { transforms: ['typescript'] }).code;
  } catch (error) {
    const { message, loc } = error as { message?: unknown; loc?: { line?: unknown; column?: unknown } };
    const line = typeof loc?.line === 'number' ? loc.line : undefined;
    const column = typeof loc?.column === 'number' ? loc.column : undefined;
    // sucrase ends its message with the place, "(3:7)", which the error says apart
    const reason = String(message ?? error).replace(/\s*\(\d+:\d+\)$/, '');
    throw new ScriptCompileError(`syntax error: ${reason}`, file, line, column);
  }
  const imported = firstImport(source);
  if (imported) throw new ScriptCompileError(IMPORT_REFUSED, file, imported.line, imported.column);
  return { file, code: PROLOGUE + code + EPILOGUE, lineOffset: 1 };
}

/** Above this many cells (compiled line × script line) a line is aligned greedily rather than by its longest match. */
const ALIGN_CELLS = 4_000_000;

/**
 * The script's own column of a place in its compiled code. sucrase keeps every line but takes type text out of it
 * (`const a: T = b as U;` → `const a = b ;`), so a column the engine names in the compiled line lies left of the
 * script's. The compiled line is the script's line less its type tokens (sucrase marks them): the two are aligned by
 * their longest common subsequence with the type tokens' characters left out of the script's side (so a `b` or a
 * comma inside `Map<string, number>` is never taken for one that was kept), and the column follows its character
 * there; a character sucrase added maps to the next one it kept.
 * @param source    the script's TypeScript
 * @param compiled  compileScript's result for it
 * @param line      1-based line in the script (the same in both)
 * @param column    1-based column in the compiled line
 * @returns the 1-based column in the script's line (the column itself when the line is not there)
 */
export function sourceColumn(source: string, compiled: Pick<CompiledScript, 'code' | 'lineOffset'>, line: number, column: number): number {
  const from = compiled.code.split('\n')[line - 1 + compiled.lineOffset];
  const to = source.split('\n')[line - 1];
  if (from === undefined || to === undefined || column < 1) return column;
  if (from === to) return column;
  const removed = typeCharacters(source, line, to.length);
  const matched = alignLine(from, to, removed);
  for (let i = Math.min(column - 1, from.length); i < from.length; i++) if (matched[i] >= 0) return matched[i] + 1;
  return to.length + 1;
}

/** Which characters of a script's line belong to type tokens (1 each), from sucrase's token listing. */
function typeCharacters(source: string, line: number, length: number): Uint8Array {
  const removed = new Uint8Array(length);
  const rows = getFormattedTokens(source, { transforms: ['typescript'] }).split('\n');
  // The listing is a table: a token's isType flag stands under the header's "isType".
  const flag = rows[0]?.indexOf('isType') ?? -1;
  if (flag < 0) return removed;
  for (const row of rows) {
    const match = /^(\d+):(\d+)-(\d+):(\d+)\s/.exec(row);
    if (!match || Number(match[1]) !== line || row.slice(flag, flag + 6) !== 'isType') continue;
    const end = Number(match[3]) === line ? Number(match[4]) - 1 : length;
    removed.fill(1, Number(match[2]) - 1, Math.min(end, length));
  }
  return removed;
}

/**
 * For each character of `from`, the index in `to` it aligns with, or -1 (`from` is `to` with the characters marked in
 * `removed` taken out, and perhaps a few spaces changed).
 */
function alignLine(from: string, to: string, removed: Uint8Array): Int32Array {
  const n = from.length;
  const m = to.length;
  const matched = new Int32Array(n).fill(-1);
  const same = (i: number, j: number) => removed[j] === 0 && from[i] === to[j];
  if ((n + 1) * (m + 1) > ALIGN_CELLS) {
    // A very long line: each kept character is the next equal one of the script's line.
    for (let i = 0, j = 0; i < n && j < m; j++) if (same(i, j)) matched[i++] = j;
    return matched;
  }
  // longest[i * (m + 1) + j]: the longest common subsequence of from[i…] and to[j…]
  const width = m + 1;
  const longest = new Int32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      longest[i * width + j] = same(i, j)
        ? longest[(i + 1) * width + j + 1] + 1
        : Math.max(longest[(i + 1) * width + j], longest[i * width + j + 1]);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (same(i, j)) matched[i++] = j++;
    else if (longest[i * width + j + 1] === longest[i * width + j]) j++;
    else i++;
  }
  return matched;
}

/**
 * The first `import` or `export` keyword, or call of `require`, in a script, from sucrase's own tokens (so strings,
 * comments and template literals are told apart from code): its 1-based line and column, or null.
 */
function firstImport(source: string): { line: number; column: number } | null {
  // The token listing is long (a table row per token): a script without the words needs none.
  if (!/\b(import|export|require)\b/.test(source)) return null;
  // One token a line: "line:column-line:column  label  raw …" (a line not in that shape continues a token's raw text).
  const tokens: { line: number; column: number; label: string; raw: string }[] = [];
  for (const text of getFormattedTokens(source, { transforms: ['typescript'] }).split('\n')) {
    const match = /^(\d+):(\d+)-\d+:\d+\s+(\S+)\s+(\S*)/.exec(text);
    if (match) tokens.push({ line: Number(match[1]), column: Number(match[2]), label: match[3], raw: match[4] });
  }
  for (let i = 0; i < tokens.length; i++) {
    const { label, raw } = tokens[i];
    if (label === 'import' || label === 'export') return tokens[i];
    const member = i > 0 && (tokens[i - 1].label === '.' || tokens[i - 1].label === '?.');
    if (label === 'name' && raw === 'require' && !member && tokens[i + 1]?.label === '(') return tokens[i];
  }
  return null;
}

/**
 * The runtime (script-runtime.ts) as JavaScript a sandbox evaluates ahead of the script: its text with the types
 * stripped, as one expression whose value is the module's exports (`installScriptRuntime`, `startWorkerRuntime`, …).
 * The Node sandbox evaluates it in the script's vm context; the browser sandbox puts it first in the worker's code.
 * @param runtimeSource  the text of workers/script/script-runtime.ts (read from disk, or imported `?raw`)
 */
export function scriptRuntimeCode(runtimeSource: string): string {
  const { code } = transform(runtimeSource, { transforms: ['typescript', 'imports'] });
  return `(function (exports) {\n${code}\nreturn exports;\n})({})`;
}

/**
 * The code of a browser sandbox's worker for a compiled script: the runtime (ending with the call that starts it and
 * tells it where the script's lines are), then `self.<slot> = (async function () { …`, the script's own lines, so
 * the script's line N is line N + scriptLineOffset of the worker's code.
 * @param runtimeCode  scriptRuntimeCode's result
 * @param script       the compiled script
 * @param slot         the global the runtime takes the script's function from (SCRIPT_SLOT of script-runtime.ts)
 */
export function sandboxWorkerCode(
  runtimeCode: string,
  script: Pick<CompiledScript, 'code' | 'lineOffset'>,
  slot: string,
): { text: string; scriptLineOffset: number } {
  const start = (offset: number) => `${runtimeCode}.startWorkerRuntime(self, ${offset});\n`;
  // The offset's digits do not change the number of lines, so they are counted with any number in its place.
  const scriptLineOffset = lineBreaks(start(0)) + script.lineOffset;
  return { text: `${start(scriptLineOffset)}self.${slot} = ${script.code};\n`, scriptLineOffset };
}

/** How many line breaks a text has. */
function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
