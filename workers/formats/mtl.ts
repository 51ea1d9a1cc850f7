/**
 * Wavefront material libraries (.mtl), the files an OBJ names with `mtllib` and whose materials its faces pick with
 * `usemtl`. Read here: `newmtl NAME` starts a material; `Kd r [g b]` its diffuse colour; `d alpha` (dissolve: 1
 * opaque) or `Tr transparency` (written by some exporters as 1 − d) its alpha; `map_Kd [options] FILE` its
 * diffuse texture; the PBR extension's `Pm` (metallic) and `Pr` (roughness); `Ns` (specular exponent), `Ka` and
 * `illum`, from which a material without `Pr`/`Pm` gets its roughness and metallic (see mtlPbr); `Ke` and `map_Ke`
 * (emission); `map_Bump`, `bump` or `norm` (a normal map, its `-bm` the strength); `map_d` (an alpha image);
 * `map_Pr`, `map_Pm` (roughness and metallic images). Every other statement (Ks, Ni, refl, …) is accepted and
 * ignored; unknown ones get one warning each.
 *
 * Colour space: MTL does not say. Kd is taken as given, as a linear factor (glTF's baseColorFactor is linear): that is
 * what Blender's OBJ exporter writes (its base colour, which is linear) and what its importer reads back, so a
 * Blender round trip keeps the colour. Texture images are sRGB, as glTF's base colour images are.
 *
 * Map options (`-blendu on`, `-s 2 2 1`, `-o 0.5 0 0`, `-clamp on`, `-mm 0 1`, `-bm 1`, `-imfchan m`, …) are
 * skipped with their arguments, but for a normal map's `-bm`; the ones that change how the image lies on the surface
 * (`-s`, `-o`, `-t`, `-clamp`) are named in a warning, since the look shows the image unscaled, unmoved and repeated.
 * The file name is the rest of the line after the options, so names with spaces work; backslashes (Windows
 * exporters) count as folder separators, and only the base name is kept: dropped files carry no folders.
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
  /** `Pm`, 0 … 1; absent when the material has none */
  metallic?: number;
  /** `Pr`, 0 … 1; absent when the material has none */
  roughness?: number;
  /** `Ns`, the Phong specular exponent (0 … 1000 by convention); absent when the material has none */
  specularExponent?: number;
  /** `Ka` clamped to 0 … 1; absent when the material has none */
  ambient?: [number, number, number];
  /** `illum`, the illumination model number; absent when the material has none */
  illum?: number;
  /** `Ke` clamped to 0 … 1 (linear, as Kd); absent when the material has none */
  emissive?: [number, number, number];
  /** `map_Ke`: the emission image's file name as written */
  emissiveMap?: string;
  /** `map_Bump`, `bump` or `norm`: the normal map's file name as written and its `-bm` strength (1 without it) */
  normalMap?: { file: string; scale: number };
  /** `map_d`: the alpha image's file name as written */
  alphaMap?: string;
  /** `map_Pr`: the roughness image's file name as written */
  roughnessMap?: string;
  /** `map_Pm`: the metallic image's file name as written */
  metallicMap?: string;
}

/** Metallic and roughness for a material, as glTF's pbrMetallicRoughness factors take them. */
export interface MtlPbr {
  metallic: number;
  roughness: number;
}

/**
 * A material's metallic and roughness, by the rules of Blender's OBJ importer (so that a model looks the same when
 * it comes through Blender): `Pr` and `Pm` when given; else roughness 1 − √(Ns / 1000) from `Ns` clamped to 0 … 1000,
 * else 0 for the highlight model (`illum 2`) and 1 otherwise; metallic 0, but for the models with reflection
 * (`illum` 3 … 8) the mean of `Ka` (1 without Ka). Blender 3.4 gives these values for each case (checked by a test). A material that says nothing is a rough non-metal:
 * metallic 0, roughness 1 (never glTF's default metal).
 */
export function mtlPbr(material: MtlMaterial): MtlPbr {
  const illum = material.illum ?? -1;
  const highlight = illum === 2;
  const reflection = illum >= 3 && illum <= 8;
  let roughness: number;
  if (material.roughness !== undefined) roughness = material.roughness;
  else if (material.specularExponent !== undefined)
    roughness = 1 - Math.sqrt(Math.min(1000, Math.max(0, material.specularExponent)) / 1000);
  else roughness = highlight ? 0 : 1;
  let metallic = 0;
  if (material.metallic !== undefined) metallic = material.metallic;
  else if (reflection) metallic = material.ambient ? (material.ambient[0] + material.ambient[1] + material.ambient[2]) / 3 : 1;
  return { metallic, roughness };
}

/** What readMtl returns. */
export interface MtlFile {
  materials: MtlMaterial[];
  /** non-fatal observations, each naming the line (`line 4: ...`) */
  warnings: string[];
}

/** Statements of the format that carry nothing the look uses (in lower case: statements are matched ignoring case). */
const IGNORED_STATEMENTS = new Set([
  'ks',
  'tf',
  'ni',
  'sharpness',
  'map_ka',
  'map_ks',
  'map_ns',
  'map_aat',
  'disp',
  'decal',
  'refl',
  'ps',
  'pc',
  'pcr',
  'aniso',
  'anisor',
  'map_ps',
  'map_refl',
]);

/** The image statements read besides map_Kd, by lower-case keyword: the field of MtlMaterial each sets. */
const IMAGE_STATEMENTS: Record<string, 'emissiveMap' | 'normalMap' | 'alphaMap' | 'roughnessMap' | 'metallicMap'> = {
  map_ke: 'emissiveMap',
  map_bump: 'normalMap',
  bump: 'normalMap',
  norm: 'normalMap',
  map_d: 'alphaMap',
  map_pr: 'roughnessMap',
  map_pm: 'metallicMap',
};

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
 * @throws FormatError naming the line for: `newmtl` without a name; `Kd`, `Ka`, `Ke`, `d`, `Tr`, `Pm`, `Pr`, `Ns` or
 *   `illum` without a value or with a non-numeric, NaN or infinite one; a colour with two values; an image statement
 *   (`map_Kd`, `map_Ke`, `map_Bump`, `bump`, `norm`, `map_d`, `map_Pr`, `map_Pm`) without a file name, or an option
 *   without its arguments
 */
export function readMtl(text: string, file: string): MtlFile {
  const reader = new MtlReader(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, file);
  reader.readStatements();
  return reader.result();
}

/** Reads one .mtl file's statements: the materials so far, and a method per kind of statement. */
class MtlReader {
  private readonly scanner: TextScanner;
  private readonly materials: MtlMaterial[] = [];
  private readonly byName = new Map<string, MtlMaterial>();
  /** the statement (d or Tr) that set each material's alpha, for materials that have both */
  private readonly alphaStatement = new Map<MtlMaterial, { statement: string; alpha: number; line: number }>();
  private readonly warnings: string[] = [];
  private readonly unknown = new Set<string>();
  private current: MtlMaterial | null = null;
  private orphanWarned = false;

  constructor(text: string, file: string) {
    this.scanner = new TextScanner(text, file);
  }

  /** Every statement of the file, by its keyword (matched ignoring case). */
  readStatements(): void {
    const { scanner } = this;
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
        case 'newmtl':
          this.readNewMaterial();
          break;
        case 'kd':
        case 'ka':
        case 'ke':
          this.readColourStatement(keyword, statement);
          break;
        case 'pm':
        case 'pr':
        case 'ns':
        case 'illum':
          this.readScalarStatement(keyword, statement);
          break;
        case 'd':
        case 'tr':
          this.readAlphaStatement(keyword, statement);
          break;
        case 'map_kd':
        case 'map_ke':
        case 'map_bump':
        case 'bump':
        case 'norm':
        case 'map_d':
        case 'map_pr':
        case 'map_pm':
          this.readImageStatement(keyword, statement);
          break;
        default:
          this.otherStatement(keyword, statement);
      }
      scanner.nextLine();
    }
  }

  /** The materials, with a warning when there are none. */
  result(): MtlFile {
    if (this.materials.length === 0) this.warnings.push("no materials: the file has no 'newmtl' lines");
    return { materials: this.materials, warnings: this.warnings };
  }

  /** `newmtl NAME`: starts a material (a name defined before: the first is kept, with a warning). */
  private readNewMaterial(): void {
    const { scanner } = this;
    const name = scanner.restOfLine();
    if (!name) scanner.failShort("'newmtl' has no material name");
    const material: MtlMaterial = { name, line: scanner.line, diffuse: null, alpha: 1, diffuseMap: null };
    const earlier = this.byName.get(name);
    if (earlier) {
      this.warnings.push(
        `line ${scanner.line}: material '${excerpt(name)}' is defined again (first on line ${earlier.line}); the first is used`,
      );
    } else {
      this.byName.set(name, material);
      this.materials.push(material);
    }
    this.current = material;
  }

  /** `Kd`, `Ka`, `Ke` (statement: the keyword in lower case): the diffuse, ambient or emissive colour. */
  private readColourStatement(keyword: string, statement: 'kd' | 'ka' | 'ke'): void {
    const label = statement === 'kd' ? 'Kd' : statement === 'ka' ? 'Ka' : 'Ke';
    const colour = this.readColour(label);
    const material = colour && this.target(keyword);
    if (!material || !colour) return;
    if (statement === 'kd') material.diffuse = colour;
    else if (statement === 'ka') material.ambient = colour;
    else material.emissive = colour;
  }

  /** `Pm`, `Pr` (clamped to 0 … 1), `Ns`, `illum`: one number each. */
  private readScalarStatement(keyword: string, statement: 'pm' | 'pr' | 'ns' | 'illum'): void {
    const { scanner } = this;
    if (statement === 'pm' || statement === 'pr') {
      const label = statement === 'pm' ? 'metallic (Pm)' : 'roughness (Pr)';
      if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no value, needs one number`);
      const value = this.unit(this.finite(label), label);
      const material = this.target(keyword);
      if (material && statement === 'pm') material.metallic = value;
      else if (material) material.roughness = value;
    } else if (statement === 'ns') {
      if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no value, needs one number`);
      const value = this.finite('specular exponent (Ns)');
      const material = this.target(keyword);
      if (material) material.specularExponent = value;
    } else {
      if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no value, needs a model number 0 … 10`);
      const value = this.finite('illum');
      const material = this.target(keyword);
      if (material) material.illum = value;
    }
  }

  /** `d alpha` (with an optional `-halo`) or `Tr transparency`: the alpha; d wins where a material has both. */
  private readAlphaStatement(keyword: string, statement: 'd' | 'tr'): void {
    const { scanner } = this;
    if (statement === 'd' && scanner.hasToken() && scanner.peekToken() === '-halo') {
      scanner.pos += 5;
      this.warnings.push(`line ${scanner.line}: 'd -halo' (alpha by viewing angle) is read as a plain alpha`);
    }
    if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no value, needs one number`);
    const value = this.finite(statement === 'd' ? 'dissolve (d)' : 'transparency (Tr)');
    const material = this.target(keyword);
    if (!material) return;
    const alpha = this.unit(statement === 'd' ? value : 1 - value, statement === 'd' ? 'dissolve (d)' : 'alpha (1 − Tr)');
    // Some exporters write Tr as an opacity: when a material has both, d is the alpha.
    const earlier = this.alphaStatement.get(material);
    if (earlier && earlier.statement !== statement && Math.abs(earlier.alpha - alpha) > 1e-6)
      this.warnings.push(
        `line ${scanner.line}: material '${excerpt(material.name)}' has d and Tr that disagree (alpha ${statement === 'd' ? `${alpha} from d, ${earlier.alpha} from Tr on line ${earlier.line}` : `${earlier.alpha} from d on line ${earlier.line}, ${alpha} from Tr`}); d is used`,
      );
    if (statement === 'tr' && earlier?.statement === 'd') return;
    material.alpha = alpha;
    this.alphaStatement.set(material, { statement, alpha, line: scanner.line });
  }

  /** `map_Kd` and the other image statements (IMAGE_STATEMENTS): the image's file name (and a normal map's `-bm`). */
  private readImageStatement(keyword: string, statement: string): void {
    const map = this.readMap(keyword);
    const material = this.target(keyword);
    if (!material) return;
    if (statement === 'map_kd') {
      material.diffuseMap = map.file;
      return;
    }
    const field = IMAGE_STATEMENTS[statement];
    if (field === 'normalMap') material.normalMap = { file: map.file, scale: map.bumpScale };
    else material[field] = map.file;
  }

  /** A statement not read: ignored, or an unknown one (one warning each, up to MAX_UNKNOWN_WARNINGS). */
  private otherStatement(keyword: string, statement: string): void {
    const { unknown } = this;
    if (!IGNORED_STATEMENTS.has(statement) && !unknown.has(keyword) && unknown.size < MAX_UNKNOWN_WARNINGS) {
      unknown.add(keyword);
      this.warnings.push(`line ${this.scanner.line}: unknown statement '${excerpt(keyword)}' ignored`);
    }
  }

  /** The next number, named `what` in the error when it is not finite. */
  private finite(what: string): number {
    const value = this.scanner.number(what);
    if (!Number.isFinite(value)) this.scanner.fail(`${what} ${describeNonFinite(value)}`);
    return value;
  }

  /** value clamped to 0 … 1, with a warning when it was outside. */
  private unit(value: number, what: string): number {
    if (value >= 0 && value <= 1) return value;
    const clamped = Math.min(1, Math.max(0, value));
    this.warnings.push(`line ${this.scanner.line}: ${what} ${value} is outside 0 … 1; ${clamped} is used`);
    return clamped;
  }

  /** the material a property statement applies to; null (with one warning) before any newmtl */
  private target(keyword: string): MtlMaterial | null {
    if (this.current) return this.current;
    if (!this.orphanWarned) this.warnings.push(`line ${this.scanner.line}: '${keyword}' comes before any 'newmtl'; it is ignored`);
    this.orphanWarned = true;
    return null;
  }

  /** `Kd`, `Ka`, `Ke`: r [g b] clamped to 0 … 1 (one value is grey); null for the spectral and xyz forms (a warning) */
  private readColour(label: string): [number, number, number] | null {
    const { scanner } = this;
    if (!scanner.hasToken()) scanner.failShort(`'${label}' has no colour, needs r g b`);
    const token = scanner.peekToken();
    if (token === 'spectral' || token === 'xyz') {
      this.warnings.push(`line ${scanner.line}: '${label} ${token}' colours are not read; the material keeps its other colour or white`);
      return null;
    }
    const r = this.finite(`${label} red`);
    const values = [r];
    while (values.length < 3 && scanner.hasToken()) values.push(this.finite(`${label} ${values.length === 1 ? 'green' : 'blue'}`));
    if (values.length === 2) scanner.failShort(`'${label}' has 2 values, needs r g b (or one value for grey)`);
    if (scanner.hasToken()) scanner.fail(`'${label}' has more than 3 values ('${excerpt(scanner.peekToken())}')`);
    const [red, green, blue] = values.length === 1 ? [r, r, r] : values;
    if (!this.current) return [red, green, blue];
    return [this.unit(red, `${label} red`), this.unit(green, `${label} green`), this.unit(blue, `${label} blue`)];
  }

  /** An image statement's options and file name; a warning names the placement options the look does not show. */
  private readMap(keyword: string): { file: string; bumpScale: number } {
    const { scanner } = this;
    const skipped: string[] = [];
    let bumpScale = 1;
    for (;;) {
      if (!scanner.hasToken()) scanner.failShort(`'${keyword}' has no image file name`);
      const option = scanner.peekToken();
      const spec = MAP_OPTIONS[option];
      if (!spec) break;
      scanner.pos += option.length;
      let count = 0;
      while (count < spec.max && scanner.hasToken()) {
        const argument = scanner.peekToken();
        if (spec.numeric && !NUMBER_TOKEN.test(argument)) break;
        if (spec.numeric) {
          const value = this.finite(`${keyword} ${option} value`);
          if (option === '-bm') bumpScale = value;
        } else scanner.pos += argument.length;
        count++;
      }
      if (count < spec.min) scanner.failShort(`${keyword} option '${option}' needs ${spec.min} value${spec.min === 1 ? '' : 's'}`);
      if (spec.changesPlacement) skipped.push(option);
    }
    const file = scanner.restOfLine();
    if (this.current && skipped.length > 0)
      this.warnings.push(
        `line ${scanner.line}: ${keyword} option${skipped.length === 1 ? '' : 's'} ${skipped.join(', ')} ${skipped.length === 1 ? 'is' : 'are'} not shown: the image lies unscaled, unmoved and repeated`,
      );
    return { file, bumpScale };
  }
}

/** A material as `writeMtl` writes it. */
export interface MtlWriteMaterial {
  name: string;
  /** diffuse colour, linear (as read back by readMtl) */
  diffuse: readonly [number, number, number];
  alpha: number;
  /** the diffuse texture's file name, next to the library, or null */
  diffuseMap: string | null;
  /** written as `Pm` when given */
  metallic?: number;
  /** written as `Pr` when given */
  roughness?: number;
}

/**
 * A material library readMtl reads back: `newmtl`, `Kd`, `d` below 1, `map_Kd`, and `Pm`, `Pr` when given, numbers with the fewest digits
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
    if (material.metallic !== undefined) lines.push(`Pm ${String(material.metallic)}`);
    if (material.roughness !== undefined) lines.push(`Pr ${String(material.roughness)}`);
    lines.push('');
  }
  return lines.join('\n');
}
