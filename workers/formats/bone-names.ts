/**
 * The names file that goes with a TGF skeleton: `body.tgf` ⇄ `body.names`, UTF-8 text, one bone name per line in the
 * TGF's bone order (its edge lines' order), a blank line at the end allowed. TGF itself has no place for names, so a
 * skeleton saved as TGF keeps them here, and a TGF loaded without one has the default names `bone <index>`.
 *
 * A name is the whole line as written (spaces inside and around it kept), so names read back exactly as they were
 * saved; it cannot be empty or blank, contain a line break, start with a byte-order mark (boneNameProblem), or be
 * another bone's name.
 */
import { baseName } from './file-name.ts';
import { FormatError } from './format-error.ts';
import { excerpt } from './text-scanner.ts';

/** The extension of a names file, without the dot. */
export const BONE_NAMES_EXTENSION = 'names';

const BYTE_ORDER_MARK = '\ufeff';

/**
 * What keeps a string from being a bone name, or null when nothing does: the one rule every place that takes a name
 * follows (a rename, a new bone, a names file, a skeleton from joints, a fitted template), so a name accepted
 * anywhere can be saved in a names file and read back the same. A name cannot be empty or blank, hold a line break
 * (a names file has one name per line) or start with a byte-order mark (a names file's reader drops one); spaces
 * inside and around it are kept. Whether another bone has it already is the caller's to check.
 * @returns the reason, a sentence starting `a bone name cannot`, or null
 */
export function boneNameProblem(name: string): string | null {
  if (name.trim() === '') return 'a bone name cannot be empty or blank';
  if (/[\r\n]/.test(name)) return 'a bone name cannot hold a line break';
  if (name.startsWith(BYTE_ORDER_MARK)) return 'a bone name cannot start with a byte-order mark';
  return null;
}

/**
 * The names file of a TGF, in the same folder: `a/body.tgf` → `a/body.names` (a name without `.tgf` gets `.names`
 * appended: `a/body` → `a/body.names`). The extension is matched in any case (`BODY.TGF` → `BODY.names`).
 * @param tgfName the TGF's path or name, with `/` or `\` separators
 */
export function boneNamesFileFor(tgfName: string): string {
  const base = baseName(tgfName);
  const folder = tgfName.slice(0, tgfName.length - base.length);
  const stem = /\.tgf$/i.test(base) && base.length > 4 ? base.slice(0, -4) : base;
  return `${folder}${stem}.${BONE_NAMES_EXTENSION}`;
}

/**
 * Reads a names file. Lines end at `\n`, `\r\n` or a lone `\r`; a leading byte-order mark is dropped; blank lines at
 * the end are allowed (an editor's last line break), blank lines among the names are not.
 * @param text      the file's text (decoded as UTF-8)
 * @param file      file name for error messages
 * @param boneCount #B, the skeleton's bone count the file must name
 * @returns #B names, by bone index (the TGF's edge order)
 * @throws FormatError naming the file, the line and the reason when a name is empty or blank, a name is repeated,
 *         or the file has fewer or more names than the skeleton has bones
 */
export function parseBoneNames(text: string, file: string, boneCount: number): string[] {
  const names = linesWithoutTrailingBlanks(text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text);
  const lineOf = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const problem = boneNameProblem(name);
    if (problem !== null) {
      const blank = name.trim() === '' ? ' (a names file has one name per line, without blank lines)' : '';
      throw new FormatError(file, `line ${i + 1}`, `bone ${i}: ${problem}${blank}`);
    }
    const earlier = lineOf.get(name);
    if (earlier !== undefined) {
      throw new FormatError(
        file,
        `line ${i + 1}`,
        `the name '${excerpt(name)}' is already bone ${earlier - 1}'s (line ${earlier}): bone names must differ`,
      );
    }
    lineOf.set(name, i + 1);
  }
  if (names.length !== boneCount) {
    const where = names.length < boneCount ? `line ${names.length + 1}` : `line ${boneCount + 1}`;
    throw new FormatError(
      file,
      where,
      `the file names ${names.length} bones, but the skeleton has ${boneCount} (one name per line, in bone order)`,
    );
  }
  return names;
}

/**
 * Writes a names file: one name per line, in bone order, with a line break after the last.
 * @param names #B bone names, by bone index
 * @returns the file text (to be saved as UTF-8)
 * @throws RangeError when a name is no bone name (boneNameProblem) or repeats an earlier one: such a file would not
 *         read back as the same names
 */
export function formatBoneNames(names: readonly string[]): string {
  const seen = new Map<string, number>();
  names.forEach((name, bone) => {
    const problem = boneNameProblem(name);
    if (problem !== null) throw new RangeError(`bone ${bone}'s name '${excerpt(name)}': ${problem}`);
    const earlier = seen.get(name);
    if (earlier !== undefined) throw new RangeError(`bones ${earlier} and ${bone} are both named '${excerpt(name)}'`);
    seen.set(name, bone);
  });
  return names.map((name) => `${name}\n`).join('');
}

/**
 * The lines of a text (ending at `\n`, `\r\n` or a lone `\r`) without the blank lines at its end (an editor's last
 * line break, trailing empty lines).
 */
export function linesWithoutTrailingBlanks(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  let count = lines.length;
  while (count > 0 && lines[count - 1].trim() === '') count--;
  return lines.slice(0, count);
}
