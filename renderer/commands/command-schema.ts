/**
 * Argument and result schemas of commands: a small description of what a command takes and gives back, written
 * next to the command in the catalog. One schema serves three readers: the registry checks a script's or a
 * panel's argument against it before the handler runs (with a message that names the command, the field and
 * what was expected), TypeScript derives the argument's type from it (so `execute('skin.method', 'dqs')` is
 * type-checked), and the command reference and the script API's declarations are written from it.
 */

/** What the checks may ask of the scene: its bone and vertex counts, and which mesh an index or name is. */
export interface ArgumentScene {
  boneCount(): number;
  /** without it, a per-vertex argument is checked for its form only (its handler checks the count) */
  vertexCount?(): number;
  /** the mesh's index, @throws Error saying why `value` is not a mesh of the scene */
  meshIndex?(value: number | string): number;
}

export type SchemaNode =
  | { readonly kind: 'none' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'number'; readonly min: number; readonly max: number; readonly integer: boolean }
  | { readonly kind: 'oneOf'; readonly values: readonly (string | number)[] }
  | { readonly kind: 'bone'; readonly noneAllowed: boolean }
  | { readonly kind: 'mesh'; readonly allAllowed: boolean }
  | { readonly kind: 'string'; readonly nonEmpty: boolean }
  | { readonly kind: 'nullable'; readonly inner: Schema }
  | { readonly kind: 'optional'; readonly inner: Schema }
  | { readonly kind: 'union'; readonly options: readonly Schema[] }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Schema>> }
  | { readonly kind: 'numbers'; readonly length: number; readonly item: Schema }
  | { readonly kind: 'each'; readonly per: 'vertex' | 'bone'; readonly item: Schema }
  | { readonly kind: 'vertices' };

/** A list of vertices as a script passes it: an array of indices, or an integer typed array (`rig.scene.handles()`). */
export type VertexList = readonly number[] | Int32Array | Uint32Array;

/**
 * A schema whose values have TypeScript type T (`type` is never set: it only carries T, as a function's result so
 * that inference keeps an optional schema's undefined, which an optional property's own type would drop).
 */
export type Schema<T = unknown> = SchemaNode & { readonly type?: () => T };

/** The TypeScript type of the values a schema accepts. */
export type TypeOf<S> = S extends { readonly type?: () => infer T } ? T : never;

/** Builders of schemas. */
export const arg = {
  none: { kind: 'none' } as Schema<undefined>,
  boolean: { kind: 'boolean' } as Schema<boolean>,
  /** a finite number from `min` to `max` (inclusive) */
  number: (min: number, max: number): Schema<number> => ({ kind: 'number', min, max, integer: false }),
  /** a whole number from `min` to `max` (inclusive) */
  integer: (min: number, max: number = Number.MAX_SAFE_INTEGER): Schema<number> => ({ kind: 'number', min, max, integer: true }),
  oneOf: <const T extends string | number>(values: readonly T[]): Schema<T> => ({ kind: 'oneOf', values }),
  /** a bone of the scene by index; with `noneAllowed`, -1 means no bone */
  bone: (noneAllowed = false): Schema<number> => ({ kind: 'bone', noneAllowed }),
  /** a mesh of the scene by index or name; with `allAllowed`, -1 means all of them */
  mesh: (allAllowed = false): Schema<number | string> => ({ kind: 'mesh', allAllowed }),
  /** a text, or a name (non-empty) */
  string: (nonEmpty = false): Schema<string> => ({ kind: 'string', nonEmpty }),
  nullable: <T>(inner: Schema<T>): Schema<T | null> => ({ kind: 'nullable', inner }),
  /** the argument may be left out (undefined) */
  optional: <T>(inner: Schema<T>): Schema<T | undefined> => ({ kind: 'optional', inner }),
  union: <A, B>(a: Schema<A>, b: Schema<B>): Schema<A | B> => ({ kind: 'union', options: [a, b] }),
  /** an object with exactly these fields; a field whose schema is optional may be left out */
  object: <F extends Record<string, Schema>>(fields: F): Schema<ObjectOf<F>> => ({ kind: 'object', fields }),
  /** an array of exactly `length` numbers, each as `item` says */
  numbers: <N extends number>(length: N, item: Schema<number>): Schema<NumberTuple<N>> => ({ kind: 'numbers', length, item }),
  /** an array of one number per vertex of the scene, each as `item` says */
  perVertex: (item: Schema<number>): Schema<number[]> => ({ kind: 'each', per: 'vertex', item }),
  /** an array of one number per bone of the skeleton, each as `item` says */
  perBone: (item: Schema<number>): Schema<number[]> => ({ kind: 'each', per: 'bone', item }),
  /** some vertices of the scene by index (any number, in any order), as an array or an integer typed array */
  vertices: { kind: 'vertices' } as Schema<VertexList>,
};

/** The object type of an object schema's fields: those that accept undefined are optional keys. */
type ObjectOf<F extends Record<string, Schema>> = Flatten<
  { [K in keyof F as undefined extends TypeOf<F[K]> ? never : K]: TypeOf<F[K]> } & {
    [K in keyof F as undefined extends TypeOf<F[K]> ? K : never]?: TypeOf<F[K]>;
  }
>;
type Flatten<T> = { [K in keyof T]: T[K] };

/** Arrays of 2, 3 or 4 numbers as tuples; other lengths as number[]. */
export type NumberTuple<N extends number> = N extends 2
  ? [number, number]
  : N extends 3
    ? [number, number, number]
    : N extends 4
      ? [number, number, number, number]
      : number[];

/**
 * Checks a command's argument against its schema.
 * @param command  the command's id, for the message
 * @throws Error `<command>: <argument or field> must be <what the schema expects>, got <value>` at the first part
 *         that does not fit, e.g. `bone.scale: scale[1] must be a number from 0.05 to 10, got "x"`
 */
export function checkArgument(schema: Schema, value: unknown, command: string, scene?: ArgumentScene): void {
  check(schema, value, '', command, scene);
}

/** @param field  the part of the argument being checked: '' (the whole), 'scale', 'scale[1]' */
function check(schema: Schema, value: unknown, field: string, command: string, scene: ArgumentScene | undefined): void {
  const where = `${command}: ${field || 'argument'}`;
  const fail = (expected: string): never => {
    throw new Error(`${where} must be ${expected}, got ${shown(value)}`);
  };
  switch (schema.kind) {
    case 'none':
      if (value !== undefined) fail('left out (the command takes no argument)');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail('true or false');
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < schema.min || value > schema.max) fail(describe(schema));
      if (schema.integer && !Number.isInteger(value)) fail(describe(schema));
      return;
    case 'oneOf':
      if (!schema.values.includes(value as string | number)) fail(describe(schema));
      return;
    case 'bone': {
      const count = scene?.boneCount();
      const low = schema.noneAllowed ? -1 : 0;
      if (!Number.isInteger(value) || (value as number) < low || (count !== undefined && (value as number) >= count))
        fail(count === undefined ? describe(schema) : `a bone from ${low} to ${count - 1}${schema.noneAllowed ? ' (-1: none)' : ''}`);
      return;
    }
    case 'mesh':
      if (schema.allAllowed && value === -1) return;
      if (typeof value !== 'number' && typeof value !== 'string') fail(describe(schema));
      if (scene?.meshIndex) {
        try {
          scene.meshIndex(value as number | string);
        } catch (error) {
          throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
      return;
    case 'string':
      if (typeof value !== 'string' || (schema.nonEmpty && value.trim() === '')) fail(describe(schema));
      return;
    case 'nullable':
      if (value !== null) check(schema.inner, value, field, command, scene);
      return;
    case 'optional':
      if (value !== undefined) check(schema.inner, value, field, command, scene);
      return;
    case 'union':
      for (const option of schema.options) {
        try {
          check(option, value, field, command, scene);
          return;
        } catch {
          // not this option; the message names them all
        }
      }
      fail(describe(schema));
      return;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(describe(schema));
      const record = value as Record<string, unknown>;
      for (const [name, inner] of Object.entries(schema.fields))
        check(inner, record[name], field ? `${field}.${name}` : name, command, scene);
      const extra = Object.keys(record).find((name) => !Object.hasOwn(schema.fields, name));
      if (extra !== undefined) throw new Error(`${where}: ${extra} is not a field (fields: ${Object.keys(schema.fields).join(', ')})`);
      return;
    }
    case 'numbers': {
      if (!Array.isArray(value) || value.length !== schema.length) fail(describe(schema));
      checkItems(schema.item, value as unknown[], field, command, scene);
      return;
    }
    case 'each': {
      const count = schema.per === 'vertex' ? scene?.vertexCount?.() : scene?.boneCount();
      if (!Array.isArray(value) || (count !== undefined && value.length !== count))
        fail(
          count === undefined
            ? describe(schema)
            : `an array of ${count} numbers (one per ${schema.per}), each ${describe(schema.item).replace(/^an? /, '')}`,
        );
      checkItems(schema.item, value as unknown[], field, command, scene);
      return;
    }
    case 'vertices': {
      const integers = value instanceof Int32Array || value instanceof Uint32Array;
      if (!Array.isArray(value) && !integers) fail(describe(schema));
      const count = scene?.vertexCount?.();
      const list = value as ArrayLike<unknown>;
      for (let i = 0; i < list.length; i++) {
        const v = list[i];
        if (Number.isInteger(v) && (v as number) >= 0 && (count === undefined || (v as number) < count)) continue;
        throw new Error(
          `${command}: ${field || 'argument'}[${i}] must be ${count === undefined ? 'a vertex index' : `a vertex from 0 to ${count - 1}`}, got ${shown(v)}`,
        );
      }
      return;
    }
  }
}

/** Every item of an array, holes included (a sparse array's hole is undefined, which no number schema takes). */
function checkItems(item: Schema, values: readonly unknown[], field: string, command: string, scene: ArgumentScene | undefined): void {
  for (let i = 0; i < values.length; i++) check(item, values[i], `${field || 'argument'}[${i}]`, command, scene);
}

/** What a schema expects, in words: 'a number from 0 to 1', 'one of "lbs", "dqs"'. */
export function describe(schema: Schema): string {
  switch (schema.kind) {
    case 'none':
      return 'nothing';
    case 'boolean':
      return 'true or false';
    case 'number': {
      const noun = schema.integer ? 'a whole number' : 'a number';
      if (schema.max === Number.MAX_SAFE_INTEGER || schema.max === Infinity) return `${noun} from ${schema.min} up`;
      return `${noun} from ${schema.min} to ${schema.max}`;
    }
    case 'oneOf':
      return `one of ${schema.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'bone':
      return schema.noneAllowed ? 'a bone index (-1: none)' : 'a bone index';
    case 'mesh':
      return schema.allAllowed ? 'a mesh index or name (-1: all)' : 'a mesh index or name';
    case 'string':
      return schema.nonEmpty ? 'a name (not empty)' : 'a text';
    case 'nullable':
      return `${describe(schema.inner)} or null`;
    case 'optional':
      return `${describe(schema.inner)}, or left out`;
    case 'union':
      return schema.options.map(describe).join(', or ');
    case 'object':
      return `an object { ${Object.entries(schema.fields)
        .map(([name, field]) => `${name}: ${describe(field)}`)
        .join('; ')} }`;
    case 'numbers':
      return `an array of ${schema.length} numbers, each ${describe(schema.item).replace(/^an? /, '')}`;
    case 'each':
      return `an array of one number per ${schema.per}, each ${describe(schema.item).replace(/^an? /, '')}`;
    case 'vertices':
      return 'an array of vertex indices';
  }
}

/** The TypeScript type text of a schema's values, for the script API's declarations. */
export function typeText(schema: Schema): string {
  switch (schema.kind) {
    case 'none':
      return 'undefined';
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bone':
      return 'number';
    case 'oneOf':
      return schema.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'mesh':
      return 'number | string';
    case 'string':
      return 'string';
    case 'nullable':
      return `${typeText(schema.inner)} | null`;
    case 'optional':
      return `${typeText(schema.inner)} | undefined`;
    case 'union':
      return schema.options.map(typeText).join(' | ');
    case 'object':
      return `{ ${Object.entries(schema.fields)
        .map(([name, field]) => `${name}${field.kind === 'optional' ? '?' : ''}: ${typeText(field)}`)
        .join('; ')} }`;
    case 'numbers':
      return schema.length <= 4 ? `[${Array.from({ length: schema.length }, () => 'number').join(', ')}]` : 'number[]';
    case 'each':
      return 'number[]';
    case 'vertices':
      return 'readonly number[] | Int32Array | Uint32Array';
  }
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // a cycle or a bigint: named by its type below
  }
  // Functions and symbols have no JSON text.
  text ??= `a ${typeof value}`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
