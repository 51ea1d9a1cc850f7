/**
 * Side names of bones: which side of a character a bone name says, its name on the other side, and a name given a
 * side. Recognised, in this order: side tokens between separators (`.` `_` `-` `:` `|` space) or the ends — `.L`/`.R`,
 * `_l`/`_r`, `L_`/`l_` prefixes, `Left`/`left`/`LEFT` words (`left_arm`, `Leg Left`); then camel-case `Left`/`Right`
 * (`LeftArm`, `mixamorig:RightHand`, `armLeft`); then a capital `L`/`R` glued to a lowercase letter at the end
 * (`thighL`) or to a capital at the start (`LArm`). +x is the character's left (`.L`), as in Blender.
 */

export type Side = 'L' | 'R';

/** How withSide writes a side: `arm.L`, `arm_L`, `arm_l`, `L_arm`, `l_arm`, `LeftArm`, `left_arm`. */
export type SideStyle = '.L' | '_L' | '_l' | 'L_' | 'l_' | 'Left' | 'left_';

const TOKEN_SWAP: Record<string, string> = {
  L: 'R',
  R: 'L',
  l: 'r',
  r: 'l',
  Left: 'Right',
  Right: 'Left',
  left: 'right',
  right: 'left',
  LEFT: 'RIGHT',
  RIGHT: 'LEFT',
};
const TOKEN = /(^|[._\-\s:|])(L|R|l|r|Left|Right|left|right|LEFT|RIGHT)(?=$|[._\-\s:|0-9])/g;
const CAMEL_WORD = /(Left|Right)(?=[A-Z0-9_.]|$)/g;
const GLUED_SUFFIX = /^(.*[a-z])([LR])$/;
const GLUED_PREFIX = /^([LR])([A-Z].*)$/;

/** The first side marker of a name (by the rules above) and the name with every marker of that rule swapped. */
function sideMarker(name: string): { side: Side; mirrored: string } | null {
  const sideOf = (marker: string): Side => (marker[0].toUpperCase() === 'L' ? 'L' : 'R');
  const token = new RegExp(TOKEN.source).exec(name);
  if (token)
    return { side: sideOf(token[2]), mirrored: name.replace(TOKEN, (_, before: string, side: string) => before + TOKEN_SWAP[side]) };
  const camel = new RegExp(CAMEL_WORD.source).exec(name);
  if (camel) return { side: sideOf(camel[1]), mirrored: name.replace(CAMEL_WORD, (side: string) => TOKEN_SWAP[side]) };
  const suffix = GLUED_SUFFIX.exec(name);
  if (suffix) return { side: sideOf(suffix[2]), mirrored: suffix[1] + TOKEN_SWAP[suffix[2]] };
  const prefix = GLUED_PREFIX.exec(name);
  if (prefix) return { side: sideOf(prefix[1]), mirrored: TOKEN_SWAP[prefix[1]] + prefix[2] };
  return null;
}

/**
 * The name on the other side (`arm.L` → `arm.R`, `arm_l` → `arm_r`, `LeftArm` → `RightArm`, `L_arm` → `R_arm`,
 * `left_arm` → `right_arm`), or null when the name has no side.
 */
export function mirroredName(name: string): string | null {
  return sideMarker(name)?.mirrored ?? null;
}

/** Which side a name says (its first side marker), or null. */
export function sideOfName(name: string): Side | null {
  return sideMarker(name)?.side ?? null;
}

/** How a name writes its side (the first marker), or null when it has none or writes it another way (`thighL`). */
export function sideStyleOf(name: string): SideStyle | null {
  if (/[.](L|R)$/.test(name)) return '.L';
  if (/_(L|R)$/.test(name)) return '_L';
  if (/_(l|r)$/.test(name)) return '_l';
  if (/^(L|R)_/.test(name)) return 'L_';
  if (/^(l|r)_/.test(name)) return 'l_';
  if (/(^|[:_.])(Left|Right)[A-Z0-9]/.test(name)) return 'Left';
  if (/^(left|right)_/.test(name)) return 'left_';
  return null;
}

/**
 * `name` with side `side`: a name that already says a side keeps it, or is mirrored when it says the other; one
 * without gets the side in `style`.
 * @param style  default `.L` (`arm` → `arm.L`); `Left` capitalises the name (`arm` → `LeftArm`)
 */
export function withSide(name: string, side: Side, style: SideStyle = '.L'): string {
  const said = sideMarker(name);
  if (said) return said.side === side ? name : said.mirrored;
  const upper = side;
  const lower = side.toLowerCase();
  const word = side === 'L' ? 'Left' : 'Right';
  switch (style) {
    case '.L':
      return `${name}.${upper}`;
    case '_L':
      return `${name}_${upper}`;
    case '_l':
      return `${name}_${lower}`;
    case 'L_':
      return `${upper}_${name}`;
    case 'l_':
      return `${lower}_${name}`;
    case 'Left':
      return `${word}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    case 'left_':
      return `${word.toLowerCase()}_${name}`;
  }
}
