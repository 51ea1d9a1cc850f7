/**
 * The command reference and the script API's declarations are written from the catalog's schemas: every command
 * is in both; the declarations type-check with the TypeScript compiler, a script using them correctly compiles and
 * one passing a wrong argument type (or leaving a required one out) does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { COMMANDS } from '../../renderer/commands/command-catalog.ts';
import { commandReference, scriptDeclarations } from '../../renderer/commands/command-reference.ts';

/** The compiler's diagnostics for an in-memory program of the declarations and one script. */
function diagnostics(script: string): string[] {
  const files = new Map([
    ['/rigwright.d.ts', scriptDeclarations()],
    ['/script.ts', script],
  ]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.getSourceFile = (name, language) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, language) : getSourceFile(name, language);
  };
  const program = ts.createProgram(['/rigwright.d.ts', '/script.ts'], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const HEADER = "import type { RigwrightScript } from './rigwright';\ndeclare const rig: RigwrightScript;\n";

test('the declarations type-check, and a script using them right compiles', () => {
  const script = `${HEADER}
export async function main(): Promise<void> {
  await rig.execute('skin.method', 'dqs');
  await rig.execute('bone.scale', { bone: 2, scale: [1, 1.5, 1] });
  await rig.execute('skin.split', null);
  await rig.execute('playback.bakeClip');
  await rig.execute('playback.bakeClip', 30);
  const shown: boolean = await rig.execute('view.skeleton');
  const locked: boolean = await rig.execute('paint.lock', 3);
  await rig.execute('edit.undo');
  void shown;
  void locked;
}
`;
  assert.deepEqual(diagnostics(script), []);
});

test('a script with a wrong argument type, a missing argument or a wrong result type does not type-check', () => {
  const wrong = [
    "await rig.execute('skin.method', 'dq');",
    "await rig.execute('bone.scale', { bone: 2, scale: [1, '1.5', 1] });",
    "await rig.execute('bone.scale', { bone: 2, scale: [1, 1] });",
    "await rig.execute('skin.blend');",
    "await rig.execute('view.frameAll', 1);",
    "const n: number = await rig.execute('view.skeleton');",
    "await rig.execute('no.such');",
  ];
  for (const line of wrong) {
    const found = diagnostics(`${HEADER}export async function main(): Promise<void> {\n  ${line}\n}\n`);
    assert.ok(found.length > 0 && found.every((d) => d.startsWith('/script.ts')), `${line} is refused in the script: ${found.join('; ')}`);
  }
});

test('the reference has a row per command with its argument, result and condition in words', () => {
  const text = commandReference();
  const rows = text.trimEnd().split('\n');
  assert.equal(rows.length, Object.keys(COMMANDS).length + 2);
  const scale = rows.find((row) => row.startsWith('| `bone.scale` |'));
  assert.equal(
    scale,
    '| `bone.scale` | Scale the bone: About its start joint (argument: { bone, scale: [x, y, z] }) | an object { bone: a bone index; scale: an array of 3 numbers, each number from 0.05 to 10 } | — | `!toolBusy` |',
  );
  const skeleton = rows.find((row) => row.startsWith('| `view.skeleton` |'));
  assert.equal(skeleton, '| `view.skeleton` | Show skeleton | — | true or false | always |');
  for (const id of Object.keys(COMMANDS)) assert.ok(scriptDeclarations().includes(`"${id}": {`), `${id} is declared`);
});
