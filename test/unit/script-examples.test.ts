/**
 * The built-in example scripts (renderer/scripting/examples/) type-check against the declaration file scripts are
 * checked against (renderer/scripting/rigwright-api.d.ts) with the options the app and `rigwright run` use
 * (SCRIPT_CHECK_OPTIONS), each as a file of its own; and a slip an artist could make adapting one (a wrong argument
 * type, an unknown method) is an error there, so a passing check means the examples fit the API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { SCRIPT_CHECK_OPTIONS } from '../../renderer/commands/script-declarations.ts';

const SCRIPTING = path.join(import.meta.dirname, '../../renderer/scripting');
const EXAMPLES = path.join(SCRIPTING, 'examples');
const DECLARATIONS = readFileSync(path.join(SCRIPTING, 'rigwright-api.d.ts'), 'utf8');

/** The examples the brief of the scripting panel lists, each an artist can open and adapt. */
const EXPECTED = ['bind-cylinder-uniform.ts', 'export-clips.ts', 'mirror-and-rename.ts', 'prune-and-limit.ts'];

/** SCRIPT_CHECK_OPTIONS as the compiler takes them. */
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  lib: SCRIPT_CHECK_OPTIONS.lib.map((lib) => `lib.${lib}.d.ts`),
  moduleDetection: ts.ModuleDetectionKind.Force,
  strict: SCRIPT_CHECK_OPTIONS.strict,
  noEmit: SCRIPT_CHECK_OPTIONS.noEmit,
  types: [],
};

/** The compiler's diagnostics for the declaration file and one script, in memory, as `file:line:column: message`. */
function diagnostics(script: string): string[] {
  const files = new Map([
    ['/rigwright-api.d.ts', DECLARATIONS],
    ['/script.ts', script],
  ]);
  const host = ts.createCompilerHost(OPTIONS);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.getSourceFile = (name, language) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, language) : getSourceFile(name, language);
  };
  const program = ts.createProgram(['/rigwright-api.d.ts', '/script.ts'], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    const place = where ? `${d.file!.fileName}:${where.line + 1}:${where.character + 1}` : '';
    return `${place}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

const example = (name: string): string => readFileSync(path.join(EXAMPLES, name), 'utf8');

test('script examples: the folder holds the four built-in examples, each starting with a comment that says what it does', () => {
  assert.deepEqual(readdirSync(EXAMPLES).sort(), EXPECTED);
  for (const name of EXPECTED) assert.match(example(name), /^\/\/ \S/, `${name} starts with a line comment saying what it does`);
});

for (const name of EXPECTED) {
  test(`script examples: ${name} type-checks against the declaration file`, () => {
    assert.deepEqual(diagnostics(example(name)), []);
  });
}

test('script examples: an example adapted wrongly does not type-check (a wrong argument type, an unknown method, a wrong option)', () => {
  const cases: [string, string, RegExp][] = [
    ['prune-and-limit.ts', 'await rig.paint.prune(threshold);', /not assignable to parameter of type 'number'/],
    ['bind-cylinder-uniform.ts', "laplacian: 'uniform'", /"cotan" \| "uniform"|'"cotan" \| "uniform"'/],
    ['mirror-and-rename.ts', 'await rig.bone.rename({ bone: bone.index, name });', /Property 'renameAll' does not exist/],
    ['export-clips.ts', '{ clip: clip.name }', /'clips' does not exist/],
  ];
  const broken = [
    'await rig.paint.prune(String(threshold));',
    "laplacian: 'harmonic'",
    'await rig.bone.renameAll({ bone: bone.index, name });',
    '{ clips: clip.name }',
  ];
  cases.forEach(([name, original, expected], i) => {
    const text = example(name);
    assert.ok(text.includes(original), `${name} still holds ${original}`);
    const found = diagnostics(text.replace(original, broken[i]));
    assert.ok(
      found.some((message) => expected.test(message)),
      `${name} with ${broken[i]} is an error matching ${String(expected)}; got ${found.join(' | ') || 'none'}`,
    );
  });
});
