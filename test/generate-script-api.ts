/**
 * Writes the script API's declaration file and reference page from workers/script/script-api.ts and the command
 * catalog (renderer/commands/script-declarations.ts and script-reference.ts make their text; the declaration file is
 * formatted as the rest of the tree is):
 *
 *   npm run generate:script-api
 *
 * test/unit/script-api-files.test.ts fails while the checked-in files differ from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';
import { scriptDeclarations } from '../renderer/commands/script-declarations.ts';
import { scriptReference } from '../renderer/commands/script-reference.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The contract the declarations are copied from. */
export const SCRIPT_API_SOURCE = path.join(ROOT, 'workers/script/script-api.ts');
/** The declaration file scripts are checked against (monaco loads it; `rigwright run` checks with it). */
export const DECLARATION_FILE = path.join(ROOT, 'renderer/scripting/rigwright-api.d.ts');
/** The reference page. */
export const REFERENCE_PAGE = path.join(ROOT, 'renderer/scripting/script-api.md');

/** What the two files should hold now, by path. */
export async function scriptApiFiles(): Promise<Map<string, string>> {
  const source = readFileSync(SCRIPT_API_SOURCE, 'utf8');
  const options = await prettier.resolveConfig(DECLARATION_FILE);
  const declarations = await prettier.format(scriptDeclarations(source), { ...options, filepath: DECLARATION_FILE });
  return new Map([
    [DECLARATION_FILE, declarations],
    [REFERENCE_PAGE, scriptReference(source)],
  ]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [file, text] of await scriptApiFiles()) {
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(ROOT, file)}`);
  }
}
