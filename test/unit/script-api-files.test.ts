/**
 * The script API's declaration file and reference page are checked in as `npm run generate:script-api` writes them
 * from workers/script/script-api.ts and the command catalog: a change to either that is not regenerated fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DECLARATION_FILE, REFERENCE_PAGE, scriptApiFiles } from '../generate-script-api.ts';

test('the declaration file and the reference page are up to date (else: npm run generate:script-api)', async () => {
  const files = await scriptApiFiles();
  assert.deepEqual([...files.keys()].sort(), [DECLARATION_FILE, REFERENCE_PAGE].sort());
  for (const [file, expected] of files) {
    const name = path.basename(file);
    assert.ok(existsSync(file), `${name} is missing: run npm run generate:script-api`);
    const actual = readFileSync(file, 'utf8');
    if (actual === expected) continue;
    const lines = actual.split('\n');
    const wanted = expected.split('\n');
    const at = wanted.findIndex((line, i) => line !== lines[i]);
    assert.fail(
      `${name} is stale at line ${at + 1} (has ${JSON.stringify(lines[at] ?? '')}, should have ${JSON.stringify(wanted[at] ?? '')}): run npm run generate:script-api`,
    );
  }
});
