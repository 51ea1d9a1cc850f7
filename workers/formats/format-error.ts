/**
 * The one error type every reader throws on bad input. Its message always names the file, the place
 * (line, or entry) and the reason, e.g. `hand.off: line 12: face has 2 vertex indices, needs at least 3`.
 * Callers (UI, CLI) show `message` as it is.
 */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  /**
   * @param file   file name as the user knows it (no directories needed)
   * @param where  place in the file: `line 12`, `row 3 column 2`, `bone 4`, or '' when the whole file is at fault
   * @param reason what is wrong, in words an artist understands
   */
  constructor(
    readonly file: string,
    readonly where: string,
    readonly reason: string,
  ) {
    super(where ? `${file}: ${where}: ${reason}` : `${file}: ${reason}`);
  }
}
