/**
 * The declaration file scripts are checked against (renderer/scripting/rigwright-api.d.ts), written from two sources
 * so that neither can drift from what the app does:
 *
 *  - the declarations of workers/script/script-api.ts that a script sees (the scene, files and progress calls, and
 *    the types they take and give), copied from that file's text with their TSDoc (script-api-source.ts): the caller
 *    passes the text (a Node tool reads the file; the app uses the checked-in output);
 *  - the command catalog's schemas: `RigwrightCommands` (each command's argument and result types), `rig.execute`,
 *    and one method per command a script may run (script-access.ts), grouped by the prefix of its id
 *    (`rig.bind.compute(options?)` runs `bind.compute`).
 *
 * The file declares globals (`rig`, `print`, `args`, `console`) and no module: a script is checked as a file with
 * no imports whose top level may `await`, with SCRIPT_CHECK_OPTIONS. The reference page (script-reference.ts) is
 * written from the same sources with the signatures made here.
 */
import { SCRIPT_API_VERSION } from '../../workers/script/script-api.ts';
import { COMMANDS, type CommandId } from './command-catalog.ts';
import { describe, typeText, type Schema } from './command-schema.ts';
import { commandNamespaces, SCRIPT_COMMAND_IDS } from './script-access.ts';
import { scriptApiDeclarations } from './script-api-source.ts';

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

/** The global a script reaches the API by, and the interface that types it. */
export const GLOBAL = 'rig';
const GLOBAL_TYPE = 'Rigwright';

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
export function commandText(id: CommandId): string {
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
