/**
 * The command reference and the script API's declaration file are written from the catalog's schemas and
 * workers/script/script-api.ts: every command is in both; the declaration file type-checks with the TypeScript
 * compiler; a script using it correctly compiles (as a file without imports whose top level awaits), one passing a
 * wrong argument (or leaving a required one out) does not; and an editor's completions and hover texts on `rig.`
 * come from it, as monaco's TypeScript service gives them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { COMMANDS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { commandReference } from '../../renderer/commands/command-reference.ts';
import { SCRIPT_CHECK_OPTIONS, argumentName, namedArguments, scriptDeclarations } from '../../renderer/commands/script-declarations.ts';
import { SCRIPT_COMMAND_IDS, SCRIPT_DENIED_COMMANDS } from '../../renderer/commands/script-access.ts';
import { scriptApiDeclarations } from '../../renderer/commands/script-api-source.ts';
import { scriptReference } from '../../renderer/commands/script-reference.ts';

const API_SOURCE = readFileSync(new URL('../../workers/script/script-api.ts', import.meta.url), 'utf8');
const DECLARATIONS = scriptDeclarations(API_SOURCE);

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

/** The in-memory files: the declaration file and one script. */
function sources(script: string): Map<string, string> {
  return new Map([
    ['/rigwright-api.d.ts', DECLARATIONS],
    ['/script.ts', script],
  ]);
}

/** The compiler's diagnostics for a program of the declaration file and one script. */
function diagnostics(script: string): string[] {
  const files = sources(script);
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
  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** A language service over the declaration file and one script, as an editor runs it. */
function languageService(script: string): ts.LanguageService {
  const files = sources(script);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => OPTIONS,
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = files.get(name) ?? ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => '/',
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (name) => files.has(name) || ts.sys.fileExists(name),
    readFile: (name) => files.get(name) ?? ts.sys.readFile(name),
  };
  return ts.createLanguageService(host);
}

/** The completion names offered at the end of `prefix` in a script that is just `prefix`. */
function completionsAfter(prefix: string): string[] {
  const service = languageService(prefix);
  const found = service.getCompletionsAtPosition('/script.ts', prefix.length, {});
  return found ? found.entries.map((entry) => entry.name) : [];
}

test('the declaration file type-checks, and a script using it right compiles with top-level await', () => {
  const script = `
await rig.execute('skin.method', 'dqs');
await rig.execute('bone.scale', { bone: 2, scale: [1, 1.5, 1] });
await rig.execute('skin.split', null);
await rig.execute('playback.bakeClip');
await rig.execute('playback.bakeClip', 30);
const shown: boolean = await rig.execute('view.skeleton');
const locked: boolean = await rig.execute('paint.lock', 3);
await rig.execute('view.frameAll');
await rig.bind.compute({ source: 'cylinder', laplacian: 'uniform' });
await rig.bind.compute();
await rig.paint.prune(0.01);
await rig.paint.prune();
await rig.paint.mirrorToPositive(0);
const clip: number = await rig.clip.new({ name: 'walk' });
await rig.clip.length(24);
const moved: number = await rig.weights.transfer({ from: 1, to: 2, mesh: 'body' });
await rig.weights.set({ bone: 0, value: 0.5, vertices: [1, 2] });
await rig.weights.scale({ bone: 0, factor: 0.5, vertices: await rig.scene.handles() });
const version: string = rig.apiVersion;
const summary = await rig.scene.summary();
const rows = await rig.scene.weights();
const first: number = rows.bones[0] + rows.values[0] + summary.meshes[0].vertexCount;
const hip = await rig.scene.bone('hip');
const head: Vec3 = hip.head;
await rig.scene.setWeights(await rig.scene.denseWeights());
const skinned: Float64Array = await rig.scene.skin({ method: 'dqs', frame: 3 });
const written: string = await rig.files.exportGltf('out.glb', { influences: 4, weightComponent: 'unsigned-byte' });
rig.progress(0.5, 'half way');
print('done', moved, shown, locked, clip, version, first, head, skinned.length, written, args.length);
console.log(args[0]);
console.warn('careful');
console.info('info');
console.debug('debug');
await new Promise((r) => setTimeout(r, 10));
const started: number = performance.now();
const timer: number = setInterval(() => print('tick'), 5);
clearInterval(timer);
clearTimeout(setTimeout(() => undefined));
queueMicrotask(() => print(performance.now() - started));
`;
  assert.deepEqual(diagnostics(script), []);
});

test('a script with a wrong argument, a missing one, a wrong result type or a page global does not type-check', () => {
  const wrong = [
    "await rig.execute('skin.method', 'dq');",
    "await rig.execute('bone.scale', { bone: 2, scale: [1, '1.5', 1] });",
    "await rig.execute('bone.scale', { bone: 2, scale: [1, 1] });",
    "await rig.execute('skin.blend');",
    "await rig.execute('view.frameAll', 1);",
    "const n: number = await rig.execute('view.skeleton');",
    "await rig.execute('no.such');",
    "await rig.bind.compute({ source: 'cylinders' });",
    "await rig.bind.compute({ laplacian: 'cotangent' });",
    "await rig.bind.compute({ sources: 'cylinder' });",
    "await rig.paint.prune('0.01');",
    'await rig.skin.method();',
    "await rig.skin.method('dq');",
    'await rig.no.such();',
    'await rig.scene.bone(3);',
    'await rig.weights.transfer({ from: 1 });',
    "await rig.weights.set({ bone: 'arm', value: 0.5 });",
    'await rig.weights.add({ bone: 0, value: 0.1, vertices: new Float64Array(2) });',
    'const w: Float32Array = await rig.scene.denseWeights();',
    'rig.scene = rig.scene;',
    'args.push("x");',
    'document.title = "x";',
    "await fetch('http://127.0.0.1');",
    "await rig.execute('edit.undo');",
    "await rig.execute('file.open');",
    'await rig.file.demo();',
    'await rig.help.keys();',
    "setTimeout('print(1)', 10);",
    'performance.mark("x");',
  ];
  for (const line of wrong) {
    const found = diagnostics(`${line}\n`);
    assert.ok(found.length > 0 && found.every((d) => d.startsWith('/script.ts')), `${line} is refused in the script: ${found.join('; ')}`);
  }
});

test('completions after rig. and its namespaces, and hover texts, come from the declaration file', () => {
  const top = completionsAfter('rig.');
  for (const name of ['execute', 'apiVersion', 'scene', 'files', 'progress', 'bind', 'paint', 'skin', 'bone', 'clip'])
    assert.ok(top.includes(name), `rig. offers ${name}: ${top.join(', ')}`);
  const bind = completionsAfter('rig.bind.');
  for (const name of ['compute', 'options', 'maxInfluences', 'limitInfluences'])
    assert.ok(bind.includes(name), `rig.bind. offers ${name}: ${bind.join(', ')}`);
  const scene = completionsAfter('rig.scene.');
  for (const name of ['summary', 'bones', 'bone', 'weights', 'denseWeights', 'setWeights', 'handles', 'skin'])
    assert.ok(scene.includes(name), `rig.scene. offers ${name}: ${scene.join(', ')}`);
  const inside = 'await rig.bind.compute({ ';
  const fields = languageService(inside).getCompletionsAtPosition('/script.ts', inside.length, {});
  const names = fields?.entries.map((entry) => entry.name) ?? [];
  for (const name of ['source', 'radiusFraction', 'laplacian', 'bindUnhandled'])
    assert.ok(names.includes(name), `rig.bind.compute({ offers ${name}: ${names.join(', ')}`);
  const details = languageService(inside).getCompletionEntryDetails(
    '/script.ts',
    inside.length,
    'laplacian',
    {},
    undefined,
    undefined,
    undefined,
  );
  assert.equal(
    ts.displayPartsToString(details?.documentation),
    'one of "cotan", "uniform", or left out',
    'a field of an argument is documented with what it takes',
  );
  const ids = completionsAfter("rig.execute('");
  for (const id of ['bind.compute', 'paint.prune']) assert.ok(ids.includes(id), `rig.execute(' offers ${id}`);

  const script = 'await rig.bind.compute({});\nawait rig.scene.bone("x");\n';
  const service = languageService(script);
  const hover = (word: string): string => {
    const info = service.getQuickInfoAtPosition('/script.ts', script.indexOf(word) + 1);
    const tags = (info?.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`);
    return [ts.displayPartsToString(info?.displayParts), ts.displayPartsToString(info?.documentation), ...tags].join('\n');
  };
  const compute = hover('compute');
  assert.match(compute, /compute\(options\?: \{\s+source\?: "current" \| "distance" \| "cylinder"/, 'the signature shows the options');
  assert.ok(compute.includes(COMMANDS['bind.compute'].label), `the hover shows the label: ${compute}`);
  assert.match(hover('bone('), /the closest names/, 'the hover of scene.bone shows its TSDoc from script-api.ts');
  const help = service.getSignatureHelpItems('/script.ts', script.indexOf('{}') + 1, undefined);
  assert.equal(help?.items[0]?.parameters[0]?.name, 'options', 'signature help names the argument');
});

test('every declaration a script sees is copied from script-api.ts with its TSDoc; the host-only calls are not', () => {
  const names = scriptApiDeclarations(API_SOURCE).map((d) => d.name);
  for (const name of ['Vec3', 'ScriptMesh', 'ScriptBone', 'ScriptClip', 'SceneSummary', 'WeightRows', 'SkinOptions', 'ExportOptions'])
    assert.ok(names.includes(name), `${name} is declared`);
  for (const name of ['SceneApi', 'FilesApi', 'ScriptGlobals']) assert.ok(names.includes(name), `${name} is declared`);
  assert.ok(!names.includes('ScriptCalls') && !DECLARATIONS.includes('ScriptCalls'), 'the host-only ScriptCalls stays out');
  assert.ok(DECLARATIONS.includes("/** the parent bone's index, -1 for a root */\n  readonly parent: number;"), 'member TSDoc is kept');
  assert.match(DECLARATIONS, /^\/\*\*\n \* Rigwright script API 1\.1:/, 'the header states the API version');
  assert.throws(() => scriptApiDeclarations('export interface Open {\n  a: number;\n'), /Open at line 1 does not end/);
});

test('every call the declaration file gives rig.scene and rig.files is one the hosts answer (ScriptCalls)', () => {
  const calls = /^export interface ScriptCalls \{\n([\s\S]*?)^\}/m.exec(API_SOURCE)?.[1] ?? '';
  const declarations = scriptApiDeclarations(API_SOURCE);
  for (const [owner, name] of [
    ['scene', 'SceneApi'],
    ['files', 'FilesApi'],
  ]) {
    const methods = declarations.find((d) => d.name === name)?.members ?? [];
    assert.ok(methods.length > 0, `${name} has calls`);
    for (const method of methods)
      assert.ok(calls.includes(`'${owner}.${method.name}'(`), `rig.${owner}.${method.name} is a ScriptCalls entry`);
  }
});

test('every command a script may run is a method of its namespace, named and typed from its schema; the script commands are not', () => {
  for (const id of SCRIPT_COMMAND_IDS) {
    assert.ok(DECLARATIONS.includes(`"${id}": {`), `${id} is in RigwrightCommands`);
    assert.ok(DECLARATIONS.includes(`Runs the command \`${id}\``), `${id} has a method`);
  }
  const scriptCommands = (Object.keys(COMMANDS) as CommandId[]).filter((id) => id.startsWith('script.'));
  assert.ok(scriptCommands.length > 0, 'the catalog has script commands to leave out');
  for (const id of scriptCommands) {
    assert.ok(!SCRIPT_COMMAND_IDS.includes(id), `${id} is not offered to scripts`);
    assert.ok(!DECLARATIONS.includes(`"${id}": {`), `${id} is not declared`);
  }
  assert.ok(!/^\s*readonly script:/m.test(DECLARATIONS), 'there is no rig.script namespace');
  assert.ok(DECLARATIONS.includes('prune(threshold?: number): Promise<void>;'), 'paint.prune takes an optional threshold');
  assert.ok(
    DECLARATIONS.includes(
      '"new"(options?: {\n/** a name (not empty), or left out */\nname?: string | undefined;\n/** a whole number from 1 to 108000, or left out */\nframes?: number | undefined;\n}): Promise<number>;',
    ),
    'clip.new is a method',
  );
  for (const id of namedArguments()) assert.ok(COMMANDS[id].argument, `${id} has an argument to name (${argumentName(id)})`);
});

test('the reference page lists every call of rig and every command with its argument, result and description', () => {
  const page = scriptReference(API_SOURCE);
  assert.match(page, /^# Rigwright script API 1\.1\n/, 'the title states the version');
  for (const call of [
    'rig.scene.summary(): Promise<SceneSummary>',
    'rig.scene.bone(name: string): Promise<ScriptBone>',
    'rig.files.exportGltf(',
  ])
    assert.ok(page.includes(`| \`${call}`), `${call} is listed`);
  assert.ok(
    page.includes('progress(fraction: number, message?: string): void` | Reports how far the script has got'),
    'progress is described',
  );
  assert.ok(page.includes('fraction: 0 … 1'), 'the @param text is in the page');
  for (const id of SCRIPT_COMMAND_IDS) {
    const [prefix, name] = id.split('.');
    assert.ok(page.includes(`| \`rig.${prefix}.${name}(`), `${id} has a row`);
  }
  assert.ok(
    page.includes(
      '| `rig.paint.prune(threshold?: number): Promise<void>` | Prune < 0.01: Drop weights below a threshold (argument: 0 … 1; 0.01 when left out) | a number from 0 to 1, or left out | — | `!toolBusy` |',
    ),
    'the prune row has its argument, result and condition',
  );
});

test('the command reference has a row per command with its argument, result and condition in words', () => {
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
});

test('scripts are offered every command but a stated list, each entry with its reason and each matching commands', () => {
  const ids = Object.keys(COMMANDS) as CommandId[];
  // What the list must keep from scripts, each for a reason it states: commands that open a scene (the run's undo
  // step would be emptied), Undo and Redo (a run is one step), and those that only talk to the user.
  const mustDeny = [
    'edit.undo',
    'edit.redo',
    'app.preferences',
    'view.commandPalette',
    ...ids.filter((id) => id.startsWith('file.') || id.startsWith('help.') || id.startsWith('script.')),
  ];
  assert.ok(mustDeny.includes('file.open') && mustDeny.includes('help.keys'), 'the catalog has file.* and help.* commands');
  for (const id of mustDeny) {
    assert.ok(!SCRIPT_COMMAND_IDS.includes(id as CommandId), `${id} is not offered to scripts`);
    assert.ok(!DECLARATIONS.includes(`"${id}": {`), `${id} is not declared`);
  }
  for (const id of ids)
    if (!mustDeny.includes(id)) assert.ok(SCRIPT_COMMAND_IDS.includes(id), `${id} is offered to scripts (not in the list)`);
  const page = scriptReference(API_SOURCE);
  for (const [entry, why] of Object.entries(SCRIPT_DENIED_COMMANDS)) {
    assert.ok(why.length > 20, `${entry} says why: ${why}`);
    const matches = entry.endsWith('.*') ? ids.filter((id) => id.startsWith(entry.slice(0, -1))) : ids.filter((id) => id === entry);
    assert.ok(matches.length > 0, `${entry} names commands of the catalog`);
    assert.ok(page.includes(`| \`${entry}\` | ${why.replaceAll('|', '\\|')} |`), `the reference page lists ${entry} with its reason`);
  }
  assert.ok(!/^\s*readonly (file|help|edit|app):/m.test(DECLARATIONS), 'no namespace is left with only denied commands');
});
