/**
 * The declaration file scripts are checked against, and the reference page, written from two sources so that neither
 * can drift from what the app does:
 *
 *  - the declarations of workers/script/script-api.ts that a script sees (the scene, files and progress calls, and
 *    the types they take and give), copied from that file's text with their TSDoc: the caller passes the text (a
 *    Node tool reads the file; the app uses the checked-in output, renderer/scripting/rigwright-api.d.ts);
 *  - the command catalog's schemas: `RigwrightCommands` (each command's argument and result types), `rig.execute`,
 *    and one method per command, grouped by the prefix of its id (`rig.bind.compute(options?)` runs `bind.compute`).
 *
 * The file declares globals (`rig`, `print`, `args`, `console`) and no module: a script is checked as a file with
 * no imports whose top level may `await`, with SCRIPT_CHECK_OPTIONS.
 */
import { SCRIPT_API_VERSION } from '../../workers/script/script-api.ts';
import { COMMANDS, type CommandId } from './command-catalog.ts';
import { describe, typeText, type Schema } from './command-schema.ts';

/**
 * How a script is type-checked against the declaration file (monaco's TypeScript defaults, `rigwright run`, the
 * tests): ES2022 without the DOM (a script runs in a worker without one), and every file a module so that its top
 * level may `await` (`moduleDetection: 'force'`: a declaration file stays global; the script's own top-level names
 * stay its own).
 */
export const SCRIPT_CHECK_OPTIONS = {
  target: 'ES2022',
  module: 'ESNext',
  lib: ['es2022'],
  moduleDetection: 'force',
  strict: true,
  noEmit: true,
} as const;

/**
 * The declarations of script-api.ts a script does not see: what a host answers for the sandbox. Every other exported
 * interface and type of that file goes into the declaration file, so a type added there reaches scripts.
 */
const HOST_ONLY = new Set(['ScriptCalls', 'ScriptCallName']);

/** The global a script reaches the API by, and the interface that types it. */
const GLOBAL = 'rig';
const GLOBAL_TYPE = 'Rigwright';

/** A declaration copied from script-api.ts. */
export interface ApiDeclaration {
  readonly name: string;
  readonly kind: 'interface' | 'type';
  /** its TSDoc comment, as written (empty when it has none) */
  readonly doc: string;
  /** the declaration itself, without `export` and without its comment */
  readonly text: string;
  /** an interface's members, in order */
  readonly members: readonly ApiMember[];
}

/** One member of an interface of script-api.ts. */
export interface ApiMember {
  readonly name: string;
  /** its TSDoc comment, as written, without indentation (empty when it has none) */
  readonly doc: string;
  /** the member's signature, e.g. `bone(name: string): Promise<ScriptBone>;` */
  readonly text: string;
  readonly method: boolean;
}

/**
 * The exported interfaces and types of script-api.ts (written as Prettier formats it: declarations at column 0, an
 * interface closed by `}` alone on a line, members indented by two spaces), host-only ones left out.
 * @throws Error naming the file and the line where a declaration does not end
 */
export function scriptApiDeclarations(source: string): ApiDeclaration[] {
  const lines = source.split(/\r?\n/);
  const found: ApiDeclaration[] = [];
  let doc: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('/**')) {
      doc = [];
      for (; i < lines.length; i++) {
        doc.push(lines[i]);
        if (lines[i].includes('*/')) break;
      }
      continue;
    }
    const head = /^export (interface|type) (\w+)/.exec(line);
    if (!head) {
      doc = [];
      continue;
    }
    const kind = head[1] as 'interface' | 'type';
    const start = i;
    const closes = kind === 'interface' ? (text: string) => text === '}' : (text: string) => text.trimEnd().endsWith(';');
    while (i < lines.length && !closes(lines[i])) i++;
    if (i === lines.length) throw new Error(`script-api.ts: the declaration of ${head[2]} at line ${start + 1} does not end`);
    const body = lines.slice(start, i + 1);
    body[0] = body[0].replace(/^export /, '');
    if (!HOST_ONLY.has(head[2]))
      found.push({
        name: head[2],
        kind,
        doc: doc.join('\n'),
        text: body.join('\n'),
        members: kind === 'interface' ? membersOf(body.slice(1, -1), head[2]) : [],
      });
    doc = [];
  }
  return found;
}

/** The members of an interface body (its lines between the braces). */
function membersOf(body: readonly string[], owner: string): ApiMember[] {
  const members: ApiMember[] = [];
  let doc: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i].replace(/^ {2}/, '');
    if (line.trim() === '') continue;
    if (line.startsWith('/**')) {
      doc = [];
      for (; i < body.length; i++) {
        doc.push(body[i].replace(/^ {2}/, ''));
        if (body[i].includes('*/')) break;
      }
      continue;
    }
    const signature: string[] = [];
    for (; i < body.length; i++) {
      signature.push(body[i].trim());
      if (body[i].trimEnd().endsWith(';')) break;
    }
    const text = signature.join(' ');
    const name = /^(?:readonly\s+)?('[^']+'|\w+)\??\s*([(:<])/.exec(text);
    if (!name) throw new Error(`script-api.ts: a member of ${owner} is not a property or a method: ${text}`);
    members.push({ name: name[1].replaceAll("'", ''), doc: doc.join('\n'), text, method: name[2] !== ':' });
    doc = [];
  }
  return members;
}

/** Why a script may not run a command that opens a scene (a run must be able to go back to the scene it began on). */
const OPENS_A_SCENE =
  "it opens another scene, which clears the undo history and with it the run's own step, so a run that failed afterwards could not go back; scripts open files with rig.files.open";
/** Why a script may not run a command that saves through the app's Save dialog. */
const SAVES_BY_DIALOG = 'it asks for a place in a Save dialog; scripts write files by path with rig.files';

/**
 * The commands scripts may not run, each with why: an id, or a prefix ending in `.*` for all of its commands. What is
 * left of the catalog is SCRIPT_COMMAND_IDS. The reference page lists these with their reasons.
 */
export const SCRIPT_DENIED_COMMANDS: Readonly<Record<string, string>> = {
  'script.*': 'a script does not start, stop, open or save scripts',
  'help.*': 'they show help to the user, who is not at the keyboard for a script',
  'app.preferences': "it opens the Preferences dialog for the user; the app's settings are not the scene's",
  'view.commandPalette': 'it opens the command palette for the user to choose a command',
  'edit.undo':
    'a run is one undo step, and Undo cannot go back inside it (it would fail); a script undoes its own edits by making the opposite edit',
  'edit.redo': 'a run is one undo step: there is nothing inside it to redo',
  'file.openProject': OPENS_A_SCENE,
  'file.open': OPENS_A_SCENE,
  'file.recentFirst': OPENS_A_SCENE,
  'file.recentSecond': OPENS_A_SCENE,
  'file.recentThird': OPENS_A_SCENE,
  'file.recentFourth': OPENS_A_SCENE,
  'file.recentFifth': OPENS_A_SCENE,
  'file.demo': OPENS_A_SCENE,
  'file.twistDemo': OPENS_A_SCENE,
  'file.save': SAVES_BY_DIALOG,
  'file.saveAs': SAVES_BY_DIALOG,
  'file.export': SAVES_BY_DIALOG,
  'file.saveSkeleton': SAVES_BY_DIALOG,
  'file.saveClip': SAVES_BY_DIALOG,
  'file.exportSettings': 'it opens the export settings dialog for the user; rig.files.exportGltf takes the options',
  'file.autosaveSettings': "it opens the autosave settings for the user; they are the app's, not the scene's",
  'file.autosave': "autosave is the app's setting, not the scene's",
};

/** Whether SCRIPT_DENIED_COMMANDS refuses a command: by its id, or by its prefix's `.*` entry. */
export function scriptDeniedReason(id: string): string | undefined {
  return SCRIPT_DENIED_COMMANDS[id] ?? SCRIPT_DENIED_COMMANDS[`${id.slice(0, id.indexOf('.'))}.*`];
}

/**
 * The commands a script may run, in catalog order: all but SCRIPT_DENIED_COMMANDS. The app's runner and
 * `rigwright run` offer exactly these, and the declaration file declares exactly these.
 */
export const SCRIPT_COMMAND_IDS: readonly CommandId[] = (Object.keys(COMMANDS) as CommandId[]).filter(
  (id) => scriptDeniedReason(id) === undefined,
);

/** The commands a script may run grouped by the prefix of their id (`bind.compute` → `bind`), in catalog order. */
export function commandNamespaces(): Map<string, CommandId[]> {
  const groups = new Map<string, CommandId[]>();
  for (const id of SCRIPT_COMMAND_IDS) {
    const dot = id.indexOf('.');
    const prefix = id.slice(0, dot);
    const list = groups.get(prefix) ?? [];
    list.push(id);
    groups.set(prefix, list);
  }
  return groups;
}

/** `paint.prune` → `prune`: a command's method name in its namespace. */
const methodName = (id: CommandId): string => id.slice(id.indexOf('.') + 1);

/** A method name as a member of an interface (`new` would declare a constructor there, so it is quoted). */
const memberKey = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) && name !== 'new' ? name : JSON.stringify(name));

/** The interface of a namespace's methods: `bind` → `RigwrightBindCommands`. */
const namespaceType = (prefix: string): string => `${GLOBAL_TYPE}${prefix[0].toUpperCase()}${prefix.slice(1)}Commands`;

/**
 * Names of the argument of commands whose kind alone names it poorly (a number that is a threshold, a choice that is
 * an axis); every other argument is named by its schema's kind (argumentName).
 */
const ARGUMENT_NAMES: Partial<Record<CommandId, string>> = {
  'paint.prune': 'threshold',
  'paint.mirrorToPositive': 'axis',
  'paint.mirrorToNegative': 'axis',
  'paint.symmetry': 'axis',
  'skin.method': 'method',
  'skin.blend': 'blend',
  'bind.maxInfluences': 'influences',
  'playback.seek': 'time',
  'playback.bakeClip': 'framesPerSecond',
  'clip.length': 'frames',
  'paint.sampleWeights': 'vertex',
  'examples.pose': 'pose',
  'examples.kernel': 'kernel',
  'examples.map': 'map',
};

/** The argument names of ARGUMENT_NAMES, for the test that keeps that table to commands that take an argument. */
export const namedArguments = (): readonly CommandId[] => Object.keys(ARGUMENT_NAMES) as CommandId[];

/** The parameter name a command's method declares for its argument. */
export function argumentName(id: CommandId): string {
  const named = ARGUMENT_NAMES[id];
  if (named) return named;
  let schema = COMMANDS[id].argument;
  while (schema && (schema.kind === 'optional' || schema.kind === 'nullable')) schema = schema.inner;
  switch (schema?.kind) {
    case 'object':
      return 'options';
    case 'boolean':
      return 'on';
    case 'bone':
      return 'bone';
    case 'mesh':
      return 'mesh';
    case 'string':
      return 'name';
    case 'each':
      return 'values';
    case 'vertices':
      return 'vertices';
    case 'numbers':
      return 'vector';
    case 'oneOf':
      return 'choice';
    default:
      return 'value';
  }
}

/**
 * A schema's type text with each field of an object carrying what it takes as TSDoc, so an editor's completion and
 * hover inside an argument's object say it (`source?: … ` — "one of "current", "distance", "cylinder", or left out").
 */
export function documentedType(schema: Schema): string {
  switch (schema.kind) {
    case 'object':
      // Each field's comment on a line of its own, as Prettier leaves a TSDoc comment before a property.
      return `{\n${Object.entries(schema.fields)
        .map(
          ([name, field]) =>
            `/** ${describe(field).replaceAll('*/', '*\\/')} */\n${name}${field.kind === 'optional' ? '?' : ''}: ${documentedType(field)};`,
        )
        .join('\n')}\n}`;
    case 'optional':
      return `${documentedType(schema.inner)} | undefined`;
    case 'nullable':
      return `${documentedType(schema.inner)} | null`;
    case 'union':
      return schema.options.map(documentedType).join(' | ');
    default:
      return typeText(schema);
  }
}

/**
 * A command's method signature in its namespace, e.g. `compute(options?: { … }): Promise<void>`.
 * @param documented  object fields with their TSDoc (documentedType), for the declaration file; one line without
 */
export function commandSignature(id: CommandId, documented = false): string {
  const { argument, result } = COMMANDS[id];
  const returns = `Promise<${result ? typeText(result) : 'void'}>`;
  if (!argument || argument.kind === 'none') return `${memberKey(methodName(id))}(): ${returns}`;
  const optional = argument.kind === 'optional';
  const type = (documented ? documentedType : typeText)(optional ? (argument as { inner: Schema }).inner : argument);
  return `${memberKey(methodName(id))}(${argumentName(id)}${optional ? '?' : ''}: ${type}): ${returns}`;
}

/** What a command does, in words: its label, and its description where that says more. */
function commandText(id: CommandId): string {
  const { label, description } = COMMANDS[id];
  return description && description !== label ? `${label}: ${description}` : label;
}

/** A TSDoc comment of these lines at this indentation (an end of comment inside the text is escaped, so it cannot end it early). */
function tsdoc(lines: readonly string[], indent: string): string {
  const safe = lines.map((line) => line.replaceAll('*/', '*\\/'));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */`;
  return [`${indent}/**`, ...safe.map((line) => `${indent} * ${line}`), `${indent} */`].join('\n');
}

/** The TSDoc of a command's method: what it does, its argument, its result, and when it runs. */
function commandDoc(id: CommandId): string[] {
  const { argument, result, enabledWhen } = COMMANDS[id];
  const lines = [commandText(id), '', `Runs the command \`${id}\`${enabledWhen ? ` (when \`${enabledWhen}\`)` : ''}.`];
  if (argument && argument.kind !== 'none') lines.push(`@param ${argumentName(id)}  ${describe(argument)}`);
  if (result) lines.push(`@returns ${describe(result)}`);
  return lines;
}

/** The TypeScript text of the declaration file (before formatting; see renderer/scripting/rigwright-api.d.ts). */
export function scriptDeclarations(apiSource: string): string {
  const declarations = scriptApiDeclarations(apiSource);
  const globals = declarations.find((d) => d.name === 'ScriptGlobals');
  if (!globals) throw new Error('script-api.ts declares no ScriptGlobals: the declaration file has nothing to give `rig`');
  const namespaces = commandNamespaces();
  const taken = new Set(['execute', ...globals.members.map((m) => m.name)]);
  for (const prefix of namespaces.keys())
    if (taken.has(prefix)) throw new Error(`commands ${prefix}.* would hide rig.${prefix} of ScriptGlobals: rename the prefix`);

  const out: string[] = [
    tsdoc(
      [
        `Rigwright script API ${SCRIPT_API_VERSION}: the globals a script sees (\`${GLOBAL}\`, \`print\`, \`args\`, \`console\`).`,
        '',
        'Generated by `npm run generate:script-api` from workers/script/script-api.ts and the command catalog',
        '(renderer/commands/command-catalog.ts); do not edit: a unit test fails when this file is stale.',
        'A script is checked against it as a file with no imports whose top level may `await`',
        '(lib es2022, moduleDetection force: see SCRIPT_CHECK_OPTIONS in renderer/commands/script-declarations.ts).',
      ],
      '',
    ),
    '',
  ];
  for (const declaration of declarations) out.push(...(declaration.doc ? [declaration.doc] : []), declaration.text, '');

  const ids = SCRIPT_COMMAND_IDS;
  out.push('/** Every command a script can run: its argument and its result. */', 'interface RigwrightCommands {');
  for (const id of ids) {
    const { argument, result } = COMMANDS[id];
    out.push(
      tsdoc([commandText(id)], '  '),
      `  ${JSON.stringify(id)}: { argument: ${documentedType(argument ?? { kind: 'none' })}; result: ${result ? typeText(result) : 'void'} };`,
    );
  }
  out.push(
    '}',
    '',
    '/** A command id of the catalog. */',
    'type RigwrightCommandId = keyof RigwrightCommands;',
    '',
    '/** The arguments after a command id: none, an optional one, or a required one. */',
    "type RigwrightArguments<K extends RigwrightCommandId> = undefined extends RigwrightCommands[K]['argument']",
    "  ? [argument?: RigwrightCommands[K]['argument']]",
    "  : [argument: RigwrightCommands[K]['argument']];",
    '',
  );

  for (const [prefix, list] of namespaces) {
    out.push(`/** The commands \`${prefix}.*\`: \`${GLOBAL}.${prefix}.<name>(argument)\` runs \`${prefix}.<name>\`. */`);
    out.push(`interface ${namespaceType(prefix)} {`);
    for (const id of list) out.push(tsdoc(commandDoc(id), '  '), `  ${commandSignature(id, true)};`);
    out.push('}', '');
  }

  out.push(
    tsdoc(
      [
        'The script API: the scene, files and progress (ScriptGlobals), every command by its id (`execute`), and the',
        `commands again as methods, one namespace per prefix of their ids (\`${GLOBAL}.bind.compute(options)\`).`,
        'Every call returns a promise: the scene lives in the app (or the command-line tool), not in the script.',
      ],
      '',
    ),
    `interface ${GLOBAL_TYPE} extends ScriptGlobals {`,
    tsdoc(
      [
        'Runs a command by its id, as a menu or key does; rejects with the reason when it cannot run now or its argument',
        'does not fit (the message names the command and the field).',
        '@returns the command’s result',
      ],
      '  ',
    ),
    "  execute<K extends RigwrightCommandId>(id: K, ...argument: RigwrightArguments<K>): Promise<RigwrightCommands[K]['result']>;",
  );
  for (const prefix of namespaces.keys()) {
    out.push(`  /** The commands \`${prefix}.*\`. */`, `  readonly ${prefix}: ${namespaceType(prefix)};`);
  }
  out.push(
    '}',
    '',
    `/** The script API (${GLOBAL_TYPE}). */`,
    `declare const ${GLOBAL}: ${GLOBAL_TYPE};`,
    '',
    '/** Writes the values to the script console, separated by spaces. */',
    'declare function print(...values: unknown[]): void;',
    '',
    '/** The arguments the script was run with (`rigwright run script.ts -- a b` gives ["a", "b"]; none in the app). */',
    'declare const args: readonly string[];',
    '',
    '/** The script console: log, info and debug as print does, warn and error marked so. */',
    'interface Console {',
    '  log(...values: unknown[]): void;',
    '  info(...values: unknown[]): void;',
    '  debug(...values: unknown[]): void;',
    '  warn(...values: unknown[]): void;',
    '  error(...values: unknown[]): void;',
    '}',
    // `var`, as the DOM and Node libraries declare it, so an editor that also loads one of them merges the two.
    'declare var console: Console;',
    '',
    // The timers a worker has (the Node sandbox makes the same over its host's clock); declared as the DOM library
    // declares them, so that an editor loading it too merges the two.
    '/**',
    " * Calls `callback` with `args` once, after `ms` milliseconds (0 when left out). A run ends when the script's top",
    ' * level does, with timers still waiting or not: await them (`await new Promise((r) => setTimeout(r, 10))`).',
    ' * @returns the timer, for clearTimeout',
    ' */',
    'declare function setTimeout(callback: (...args: any[]) => void, ms?: number, ...args: any[]): number;',
    '/**',
    ' * Calls `callback` with `args` every `ms` milliseconds until clearInterval (or the run ends).',
    ' * @returns the timer, for clearInterval',
    ' */',
    'declare function setInterval(callback: (...args: any[]) => void, ms?: number, ...args: any[]): number;',
    '/** Cancels a setTimeout that has not run yet (an unknown or spent timer: nothing happens). */',
    'declare function clearTimeout(timer: number | undefined): void;',
    '/** Stops a setInterval. */',
    'declare function clearInterval(timer: number | undefined): void;',
    '/** Calls `callback` at the end of the current synchronous stretch, before any timer. */',
    'declare function queueMicrotask(callback: () => void): void;',
    '',
    "/** The script's clock. */",
    'interface Performance {',
    "  /** milliseconds (fractional) since the script's worker started, for timing its steps */",
    '  now(): number;',
    '}',
    'declare var performance: Performance;',
    '',
  );
  return out.join('\n');
}

/**
 * A TSDoc comment as one line of prose for a table cell: its text, then each tag (`@param fraction  0 … 1` →
 * `fraction: 0 … 1`), separated by semicolons.
 */
export function docProse(doc: string): string {
  const lines = doc
    .replace(/^\s*\/\*\*/, '')
    .replace(/\*\/\s*$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trim());
  const parts: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    const tag = /^@(\w+)\s*(.*)$/.exec(line);
    if (!tag) {
      if (parts.length === 0) parts.push(line);
      else parts[parts.length - 1] += ` ${line}`;
      continue;
    }
    const [, name, rest] = tag;
    if (name === 'param') {
      const param = /^(\w+)\s+(.*)$/.exec(rest);
      parts.push(param ? `${param[1]}: ${param[2]}` : rest);
    } else if (name === 'returns') parts.push(`returns ${rest}`);
    else if (name === 'throws') parts.push(`throws ${rest.replace(/^Error\s+/, '')}`);
    else parts.push(`${name} ${rest}`);
  }
  // One sentence: a part's own full stop gives way to the separator; a tag written inside the text reads as a word.
  return parts.map((part) => part.replace(/\.$/, '').replace(/ @(returns|throws) /g, ' $1 ')).join('; ');
}

/** A TSDoc comment as a paragraph of the page: its prose, ended by a full stop. */
const paragraph = (doc: string): string => {
  const text = docProse(doc);
  return text === '' || /[.!?]$/.test(text) ? text : `${text}.`;
};

/** Text for one cell of a markdown table. */
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A member's signature as a script calls it: `rig.scene.bone(name: string): Promise<ScriptBone>`. */
const callText = (owner: string, member: ApiMember): string => `${owner}.${member.text.replace(/^readonly\s+/, '').replace(/;$/, '')}`;

/**
 * The reference page (renderer/scripting/script-api.md): the globals, every call of `rig` (ScriptGlobals and the
 * interfaces its members are), the types, and every command as its method, with argument, result and description,
 * all from the same TSDoc and schemas as the declaration file.
 */
export function scriptReference(apiSource: string): string {
  const declarations = scriptApiDeclarations(apiSource);
  const byName = new Map(declarations.map((d) => [d.name, d]));
  const globals = byName.get('ScriptGlobals');
  if (!globals) throw new Error('script-api.ts declares no ScriptGlobals');
  const out: string[] = [
    `# Rigwright script API ${SCRIPT_API_VERSION}`,
    '',
    'Generated by `npm run generate:script-api` from workers/script/script-api.ts and the command catalog',
    '(renderer/commands/command-catalog.ts), as renderer/scripting/rigwright-api.d.ts is; do not edit by hand.',
    '',
    'A script is a TypeScript file without imports whose top level may `await`. It sees these globals:',
    '',
    `- \`${GLOBAL}\`: the API below: the scene, files and progress, and every command as \`${GLOBAL}.execute(id, argument)\` and`,
    `  as a method of its id's prefix (\`${GLOBAL}.bind.compute({ source: 'cylinder' })\` runs \`bind.compute\`);`,
    '- `print(...values)` and `console.log`, `console.info`, `console.debug`, `console.warn`, `console.error`: write to',
    '  the script console;',
    '- `args`: the arguments the script was run with (`rigwright run script.ts -- a b`);',
    '- `setTimeout`, `setInterval`, `clearTimeout`, `clearInterval`, `queueMicrotask` and `performance.now()`, as in a',
    "  worker (a run ends when the script's top level does: await what you wait for).",
    '',
    'Every call returns a promise. A call that cannot run rejects with an Error whose message says why.',
    '',
    `## ${GLOBAL}`,
    '',
    paragraph(globals.doc),
    '',
    '| call | what it does |',
    '| --- | --- |',
  ];
  const sections: [string, ApiDeclaration][] = [];
  for (const member of globals.members) {
    const type = /:\s*(\w+);$/.exec(member.text)?.[1];
    const inner = type ? byName.get(type) : undefined;
    if (inner && inner.kind === 'interface' && inner.members.some((m) => m.method)) sections.push([`${GLOBAL}.${member.name}`, inner]);
    out.push(`| \`${cell(callText(GLOBAL, member))}\` | ${cell(docProse(member.doc) || (inner ? docProse(inner.doc) : ''))} |`);
  }
  out.push(
    `| \`${GLOBAL}.execute(id, argument?)\` | Runs a command by its id (the commands below), as a menu or key does; rejects with the reason when it cannot run now or its argument does not fit |`,
    '',
  );
  for (const [owner, declaration] of sections) {
    out.push(`## ${owner}`, '', paragraph(declaration.doc), '', '| call | what it does |', '| --- | --- |');
    for (const member of declaration.members) out.push(`| \`${cell(callText(owner, member))}\` | ${cell(docProse(member.doc))} |`);
    out.push('');
  }

  out.push('## Types', '');
  for (const declaration of declarations) {
    if (declaration.name === 'ScriptGlobals' || sections.some(([, d]) => d === declaration)) continue;
    out.push(`### ${declaration.name}`, '', paragraph(declaration.doc), '', '```ts', declaration.text, '```', '');
  }

  out.push(
    '## Commands',
    '',
    `Each command is a method of \`${GLOBAL}.<prefix>\` and runs as \`${GLOBAL}.execute('<prefix>.<name>', argument)\` does: the`,
    'argument is checked first (the message names the command and the field), and a command that cannot run now',
    '(“runs when” does not hold) is refused with the reason.',
    '',
  );
  for (const [prefix, ids] of commandNamespaces()) {
    out.push(`### ${GLOBAL}.${prefix}`, '', '| call | what it does | argument | result | runs when |', '| --- | --- | --- | --- | --- |');
    for (const id of ids) {
      const { argument, result, enabledWhen } = COMMANDS[id];
      const cells = [
        `\`${GLOBAL}.${prefix}.${commandSignature(id).replace(/^"new"/, 'new')}\``,
        commandText(id),
        argument && argument.kind !== 'none' ? describe(argument) : '—',
        result ? describe(result) : '—',
        enabledWhen ? `\`${enabledWhen}\`` : 'always',
      ];
      out.push(`| ${cells.map(cell).join(' | ')} |`);
    }
    out.push('');
  }
  out.push(
    '## Commands scripts do not run',
    '',
    `\`${GLOBAL}.execute\` refuses these (\`<prefix>.*\`: every command of the prefix), and no namespace declares them.`,
    '',
    '| command | why |',
    '| --- | --- |',
  );
  for (const [id, why] of Object.entries(SCRIPT_DENIED_COMMANDS)) out.push(`| \`${id}\` | ${cell(why)} |`);
  out.push('');
  return out.join('\n');
}
