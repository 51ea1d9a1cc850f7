/**
 * Wavefront material libraries (.mtl), the files an OBJ names with `mtllib` and whose materials its faces pick with
 * `usemtl`. Read here: `newmtl NAME` starts a material; `Kd r [g b]` its diffuse colour; `d alpha` (dissolve: 1
 * opaque) or `Tr transparency` (written by some exporters as 1 − d) its alpha; `map_Kd [options] FILE` its
 * diffuse texture. Every other statement (Ka, Ks, Ke, Ns, Ni, illum, map_Bump, bump, refl, …) is accepted and
 * ignored; unknown ones get one warning each.
 *
 * Colour space: MTL does not say. Kd is taken as given, as a linear factor (glTF's baseColorFactor is linear): that is
 * what Blender's OBJ exporter writes (its base colour, which is linear) and what its importer reads back, so a
 * Blender round trip keeps the colour. Texture images are sRGB, as glTF's base colour images are.
 *
 * map_Kd options (`-blendu on`, `-s 2 2 1`, `-o 0.5 0 0`, `-clamp on`, `-mm 0 1`, `-bm 1`, `-imfchan m`, …) are
 * skipped with their arguments; the ones that change how the image lies on the surface (`-s`, `-o`, `-t`, `-clamp`)
 * are named in a warning, since the look shows the image unscaled, unmoved and repeated. The file name is the rest
 * of the line after the options, so names with spaces work; backslashes (Windows exporters) count as folder
 * separators, and only the base name is kept: dropped files carry no folders.
 */
import { TextScanner, describeNonFinite, excerpt } from './text-scanner.ts';

/** One material of a .mtl file. */
export interface MtlMaterial {
  name: string;
  /** the line of its `newmtl` */
  line: number;
  /** `Kd` clamped to 0 … 1, or null when the material has none (glTF's default then: white) */
  diffuse: [number, number, number] | null;
  /** from `d` (or 1 − `Tr`), 0 … 1; 1 when neither is given */
  alpha: number;
  /** the `map_Kd` image's file name as written (folders included), or null */
  diffuseMap: string | null;
}

/** What readMtl returns. */
export interface MtlFile {
  materials: MtlMaterial[];
  /** non-fatal observations, each naming the line (`line 4: ...`) */
  warnings: string[];
}

/** Statements of the format that carry nothing the look uses (in lower case: statements are matched ignoring case). */
const IGNORED_STATEMENTS = new Set([
  'ka',
  'ks',
  'ke',
  'tf',
  'ns',
  'ni',
  'illum',
  'sharpness',
  'map_ka',
  'map_ks',
  'map_ke',
  'map_ns',
  'map_d',
  'map_aat',
  'map_bump',
  'bump',
  'disp',
  'decal',
  'refl',
  'norm',
  'pr',
  'pm',
  'ps',
  'pc',
  'pcr',
  'aniso',
  'anisor',
  'map_pr',
  'map_pm',
  'map_ps',
  'map_refl',
]);

/** map_Kd options and how many arguments each takes (the most; -o, -s, -t take 1 to 3 numbers). */
const MAP_OPTIONS: Record<string, { min: number; max: number; numeric: boolean; changesPlacement: boolean }> = {
  '-blendu': { min: 1, max: 1, numeric: false, changesPlacement: false },
  '-blendv': { min: 1, max: 1, numeric: false, changesPlacement: false },
  '-cc': { min: 1, max: 1, numeric: false, changesPlacement: false },
  '-clamp': { min: 1, max: 1, numeric: false, changesPlacement: true },
  '-imfchan': { min: 1, max: 1, numeric: false, changesPlacement: false },
  '-type': { min: 1, max: 1, numeric: false, changesPlacement: false },
  '-mm': { min: 2, max: 2, numeric: true, changesPlacement: false },
  '-bm': { min: 1, max: 1, numeric: true, changesPlacement: false },
  '-boost': { min: 1, max: 1, numeric: true, changesPlacement: false },
  '-texres': { min: 1, max: 1, numeric: true, changesPlacement: false },
  '-o': { min: 1, max: 3, numeric: true, changesPlacement: true },
  '-s': { min: 1, max: 3, numeric: true, changesPlacement: true },
  '-t': { min: 1, max: 3, numeric: true, changesPlacement: true },
};

const MAX_UNKNOWN_WARNINGS = 20;
/**
 * A decimal number token (`2`, `-0.5`, `.5`, `1e-3`). Each character can be matched in one way only (digits, then an
 * optional `.` with its digits), so a mismatch is found in time linear in the token: the form with `\d+\.?\d*` split
 * a run of digits in every possible way before failing, quadratic in its length (60,000 digits took 35 s).
 */
const NUMBER_TOKEN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a .mtl file.
 * @param text  the file's text
 * @param file  its name, for messages
 * @returns the materials in file order (a name defined twice: the first one, with a warning) and warnings (clamped
 *   colours, map_Kd options not shown, statements before any `newmtl`, unknown statements)
 * @throws FormatError naming the line for: `newmtl` without a name; `Kd`, `d` or `Tr` without a value or with a
 *   non-numeric, NaN or infinite one; `Kd` with two values; `map_Kd` without a file name, or an option without
 *   its arguments
 */
export function readMtl(text: string, file: string): MtlFile {
  const scanner = new TextScanner(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, file);
  const materials: MtlMaterial[] = [];
  const byName = new Map<string, MtlMaterial>();
  /** the statement (d or Tr) that set each material's alpha, for materials that have both */
  const alphaStatement = new Map<MtlMaterial, { statement: string; alpha: number; line: number }>();
  const warnings: string[] = [];
  const unknown = new Set<string>();
  let current: MtlMaterial | null = null;
  let orphanWarned = false;

  const finite = (what: string): number => {
    const value = scanner.number(what);
    if (!Number.isFinite(value)) scanner.fail(`${what} ${describeNonFinite(value)}`);
    return value;
  };
  const unit = (value: number, what: string): number => {
    if (value >= 0 && value <= 1) return value;
    const clamped = Math.min(1, Math.max(0, value));
    warnings.push(`line ${scanner.line}: ${what} ${value} is outside 0 … 1; ${clamped} is used`);
    return clamped;
  };
  /** the material a property statement applies to; null (with one warning) before any newmtl */
  const target = (keyword: string): MtlMaterial | null => {
    if (current) return current;
    if (!orphanWarned) warnings.push(`line ${scanner.line}: '${keyword}' comes before any 'newmtl'; it is ignored`);
    orphanWarned = true;
    return null;
  };

  while (!scanner.atEnd()) {
    if (!scanner.hasToken() || scanner.peek() === 35 /* # */) {
      scanner.nextLine();
      continue;
    }
    const keyword = scanner.peekToken();
    scanner.pos += keyword.length;
    // Exporters differ in case (`map_kd`, `KD`): statements are matched ignoring it.
    const statement = keyword.toLowerCase();
    switch (statement) {
      case 'newmtl': {
        const name = scanner.restOfLine();
        if (!name) scanner.failShort("'newmtl' has no material name");
        const material: MtlMaterial = { name, line: scanner.line, diffuse: null, alpha: 1, diffuseMap: null };
        const earlier = byName.get(name);
        if (earlier) {
          warnings.push(
            `line ${scanner.line}: material '${excerpt(name)}' is defined again (first on line ${earlier.line}); the first is used`,
          );
        } else {
          byName.set(name, material);
          materials.push(material);
        }
        current = material;
        break;
      }
      case 'kd': {
        if (!scanner.hasToken()) scanner.failShort("'Kd' has no colour, needs r g b");
        const token = scanner.peekToken();
        if (token === 'spectral' || token === 'xyz') {
          warnings.push(`line ${scanner.line}: 'Kd ${token}' colours are not read; the material keeps its other colour or white`);
          break;
        }
        const r = finite('Kd red');
        const values = [r];
        while (values.length < 3 && scanner.hasToken()) values.push(finite(`Kd ${values.length === 1 ? 'green' : 'blue'}`));
        if (values.length === 2) scanner.failShort("'Kd' has 2 values, needs r g b (or one value for grey)");
        if (scanner.hasToken()) scanner.fail(`'Kd' has more than 3 values ('${excerpt(scanner.peekToken())}')`);
        const [red, green, blue] = values.length === 1 ? [r, r, r] : values;
        const material = target(keyword);
        if (material) material.diffuse = [unit(red, 'Kd red'), unit(green, 'Kd green'), unit(blue, 'Kd blue')];
        break;
      }
      case 'd':
      case 'tr': {
        if (statement === 'd' && scanner.hasToken() && scanner.peekToken() === '-halo') {
          scanner.pos += 5;
          warnings.push(`line ${scanner.line}: 'd -halo' (alpha by viewing angle) is read as a plain alpha`);
        }
        if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no value, needs one number`);
        const value = finite(statement === 'd' ? 'dissolve (d)' : 'transparency (Tr)');
        const material = target(keyword);
        if (!material) break;
        const alpha = unit(statement === 'd' ? value : 1 - value, statement === 'd' ? 'dissolve (d)' : 'alpha (1 − Tr)');
        // Some exporters write Tr as an opacity: when a material has both, d is the alpha.
        const earlier = alphaStatement.get(material);
        if (earlier && earlier.statement !== statement && Math.abs(earlier.alpha - alpha) > 1e-6)
          warnings.push(
            `line ${scanner.line}: material '${excerpt(material.name)}' has d and Tr that disagree (alpha ${statement === 'd' ? `${alpha} from d, ${earlier.alpha} from Tr on line ${earlier.line}` : `${earlier.alpha} from d on line ${earlier.line}, ${alpha} from Tr`}); d is used`,
          );
        if (statement === 'tr' && earlier?.statement === 'd') break;
        material.alpha = alpha;
        alphaStatement.set(material, { statement, alpha, line: scanner.line });
        break;
      }
      case 'map_kd': {
        const skipped: string[] = [];
        for (;;) {
          if (!scanner.hasToken()) scanner.failShort("'map_Kd' has no image file name");
          const option = scanner.peekToken();
          const spec = MAP_OPTIONS[option];
          if (!spec) break;
          scanner.pos += option.length;
          let count = 0;
          while (count < spec.max && scanner.hasToken()) {
            const argument = scanner.peekToken();
            if (spec.numeric && !NUMBER_TOKEN.test(argument)) break;
            if (spec.numeric) finite(`map_Kd ${option} value`);
            else scanner.pos += argument.length;
            count++;
          }
          if (count < spec.min) scanner.failShort(`map_Kd option '${option}' needs ${spec.min} value${spec.min === 1 ? '' : 's'}`);
          if (spec.changesPlacement) skipped.push(option);
        }
        const name = scanner.restOfLine();
        const material = target(keyword);
        if (material) {
          material.diffuseMap = name;
          if (skipped.length > 0)
            warnings.push(
              `line ${scanner.line}: map_Kd option${skipped.length === 1 ? '' : 's'} ${skipped.join(', ')} ${skipped.length === 1 ? 'is' : 'are'} not shown: the image lies unscaled, unmoved and repeated`,
            );
        }
        break;
      }
      default:
        if (!IGNORED_STATEMENTS.has(statement) && !unknown.has(keyword) && unknown.size < MAX_UNKNOWN_WARNINGS) {
          unknown.add(keyword);
          warnings.push(`line ${scanner.line}: unknown statement '${excerpt(keyword)}' ignored`);
        }
    }
    scanner.nextLine();
  }
  if (materials.length === 0) warnings.push("no materials: the file has no 'newmtl' lines");
  return { materials, warnings };
}

/** A material as `writeMtl` writes it. */
export interface MtlWriteMaterial {
  name: string;
  /** diffuse colour, linear (as read back by readMtl) */
  diffuse: readonly [number, number, number];
  alpha: number;
  /** the diffuse texture's file name, next to the library, or null */
  diffuseMap: string | null;
}

/**
 * A material library readMtl reads back: `newmtl`, `Kd`, `d` below 1 and `map_Kd`, numbers with the fewest digits
 * that read back to the same doubles. Names are written as given (the rest of the line: spaces are kept; line
 * breaks are not part of a name and become spaces).
 */
export function writeMtl(materials: readonly MtlWriteMaterial[]): string {
  const lines: string[] = [];
  for (const material of materials) {
    lines.push(`newmtl ${material.name.replace(/[\r\n]+/g, ' ')}`);
    lines.push(`Kd ${material.diffuse.map((c) => String(c)).join(' ')}`);
    if (material.alpha < 1) lines.push(`d ${String(material.alpha)}`);
    if (material.diffuseMap) lines.push(`map_Kd ${material.diffuseMap}`);
    lines.push('');
  }
  return lines.join('\n');
}
