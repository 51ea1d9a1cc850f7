/**
 * The desktop build is locked down by Electron's fuses: electron-builder.yml sets each one, under the key
 * electron-builder's own configuration schema (node_modules/app-builder-lib/scheme.json) knows, so a misspelt key
 * or fuse (which electron-builder would refuse, or which would leave a fuse at its default) fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { repoRoot } from './shared-data.ts';

/** The fuses the packaged app must have, as the Electron fuses documentation names them. */
const EXPECTED_FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  grantFileProtocolExtraPrivileges: false,
  enableCookieEncryption: true,
};

/** The parts of a JSON schema this test reads. */
interface Schema {
  type?: string;
  $ref?: string;
  anyOf?: Schema[];
  additionalProperties?: boolean;
  properties?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
}

const config = load(readFileSync(path.join(repoRoot, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>;
const scheme = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as Schema;

/** The object schema a property's `anyOf` refers to (`#/definitions/Name`), or the property's own schema. */
function objectSchema(property: Schema): Schema {
  const ref = (property.anyOf ?? [property]).find((option) => option.$ref !== undefined)?.$ref;
  if (ref === undefined) return property;
  const name = /^#\/definitions\/(.+)$/.exec(ref)?.[1];
  assert.ok(name !== undefined && scheme.definitions?.[name], `the schema defines ${ref}`);
  return scheme.definitions[name];
}

test('every top-level key of electron-builder.yml is one electron-builder accepts', () => {
  assert.equal(scheme.additionalProperties, false, 'the schema refuses unknown keys (so the check below is the one the builder makes)');
  for (const key of Object.keys(config)) assert.ok(scheme.properties?.[key], `electron-builder.yml: "${key}" is not a configuration key`);
});

test('electronFuses sets each fuse of the locked-down build, every one a fuse the schema knows', () => {
  const fuses = config.electronFuses as Record<string, unknown> | undefined;
  assert.deepEqual(fuses, EXPECTED_FUSES, 'electron-builder.yml electronFuses');
  const fuseSchema = objectSchema(scheme.properties!.electronFuses);
  assert.equal(fuseSchema.additionalProperties, false, 'the fuse options refuse unknown names');
  for (const [name, value] of Object.entries(fuses)) {
    assert.equal(fuseSchema.properties?.[name]?.type, 'boolean', `"${name}" is a fuse electron-builder knows, set by a boolean`);
    assert.equal(typeof value, 'boolean', `${name} is true or false`);
  }
  assert.equal(config.asar, true, 'onlyLoadAppFromAsar and the integrity check need the app packed in app.asar');
});
