/**
 * Mutations of real files: byte-level ones for every format, token-level ones for the text formats (numbers made
 * huge, negative, non-finite, counts claiming billions), structural ones for glTF (the JSON changed where the
 * readers trust it: counts, offsets, references, node hierarchies, sparse accessors, animation data in the buffers),
 * and for the project file its extension's array references, examples section, kernel and format version.
 * Every mutation is driven by the given random source only, so an input is rebuilt from its seed and index.
 */
import type { Seed } from './corpus.ts';
import type { LineEnds } from './fuzz-worker.ts';

export type Random = () => number;

/** One input made from a seed: bytes, resources for a .gltf, and the mutations applied, for the report. */
export interface FuzzInput {
  name: string;
  bytes: Uint8Array;
  resources?: Record<string, Uint8Array>;
  mutations: string[];
  /** the line ends a text input was rewritten to (every line end, after the other mutations) */
  lineEnds?: LineEnds;
}

const int = (random: Random, n: number): number => Math.floor(random() * n);
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)];

const INTERESTING_NUMBERS = [
  '-1',
  '0',
  '-0',
  '1',
  '4294967296',
  '4294967295',
  '2147483648',
  '1e15',
  '99999999999999999999',
  '1e400',
  '-1e400',
  '1e308',
  '1e-400',
  'nan',
  'NaN',
  '-inf',
  'inf',
  '1.#QNAN',
  '0x10',
  '1.5',
  '9007199254740993',
  '1000000000',
  '-2147483649',
];
const INTERESTING_BYTES = [0x30, 0x39, 0x2d, 0x2e, 0x65, 0x0a, 0x20, 0x23, 0x2f, 0x00, 0xff, 0x0d, 0x09, 0x2b];
const GARBAGE_LINES = ['f 1 2', 'v 1 2', '# x', 'f -5 -99999 3', 'f 0 1 2', 'f 1/ /2 3//4', '3 0 1', '4294967296 0 1 2', 'vt', 'v nan 0 0'];

function flipBytes(bytes: Uint8Array, random: Random, from = 0): string {
  const count = 1 + int(random, 8);
  for (let k = 0; k < count; k++) {
    const at = from + int(random, Math.max(1, bytes.length - from));
    if (at >= bytes.length) continue;
    bytes[at] = random() < 0.5 ? int(random, 256) : pick(random, INTERESTING_BYTES);
  }
  return `flip ${count} bytes`;
}

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Token boundaries [start, end) around a random position (whitespace-separated). */
function randomToken(bytes: Uint8Array, random: Random, limit = bytes.length): [number, number] {
  let at = int(random, Math.max(1, Math.min(limit, bytes.length)));
  while (at < bytes.length && isSpace(bytes[at])) at++;
  let start = at;
  while (start > 0 && !isSpace(bytes[start - 1])) start--;
  let end = at;
  while (end < bytes.length && !isSpace(bytes[end])) end++;
  return [start, end];
}

/** Text mutations (OBJ, OFF, TGF, ASCII DMAT; also the header lines of binary DMAT when `limit` is set). */
function mutateText(bytes: Uint8Array, random: Random, limit?: number): { bytes: Uint8Array; what: string } {
  const kind = int(random, 10);
  switch (kind) {
    case 0: {
      const what = flipBytes(bytes, random);
      return { bytes, what };
    }
    case 1: {
      const at = int(random, bytes.length + 1);
      return { bytes: bytes.slice(0, at), what: `truncate at ${at}` };
    }
    case 2:
    case 3: {
      // A number token replaced; case 3 favours the first tokens (headers and counts).
      const [start, end] = randomToken(bytes, random, kind === 3 ? Math.min(limit ?? 64, 64) : limit);
      const value = pick(random, INTERESTING_NUMBERS);
      return { bytes: concat(bytes.subarray(0, start), ascii(value), bytes.subarray(end)), what: `token at ${start} → ${value}` };
    }
    case 4: {
      const [start, end] = randomToken(bytes, random, limit);
      const length = pick(random, [1000, 100000, 2000000]);
      const fill = pick(random, ['0', '9', 'x']);
      return {
        bytes: concat(bytes.subarray(0, start), ascii(fill.repeat(length)), bytes.subarray(end)),
        what: `token at ${start} → ${length}×'${fill}'`,
      };
    }
    case 5: {
      const a = int(random, bytes.length + 1);
      const b = Math.min(bytes.length, a + int(random, 2000));
      return { bytes: concat(bytes.subarray(0, a), bytes.subarray(b)), what: `delete ${a}..${b}` };
    }
    case 6: {
      const a = int(random, bytes.length + 1);
      const b = Math.min(bytes.length, a + int(random, 2000));
      return { bytes: concat(bytes.subarray(0, b), bytes.subarray(a, b), bytes.subarray(b)), what: `duplicate ${a}..${b}` };
    }
    case 7: {
      let at = int(random, bytes.length + 1);
      while (at < bytes.length && bytes[at] !== 0x0a) at++;
      const line = pick(random, GARBAGE_LINES);
      return {
        bytes: concat(bytes.subarray(0, at + 1), ascii(`${line}\n`), bytes.subarray(at + 1)),
        what: `insert line '${line}' at ${at}`,
      };
    }
    case 8: {
      const [start, end] = randomToken(bytes, random, limit);
      const sign = bytes[start] === 0x2d ? '' : '-';
      return {
        bytes: concat(bytes.subarray(0, start), ascii(sign), bytes.subarray(start, end), bytes.subarray(end)),
        what: `negate token at ${start}`,
      };
    }
    default: {
      const at = int(random, bytes.length + 1);
      const junk = pick(random, ['\u0000', '\uFEFF', 'é', '\r', '\t\t', '//', ' # ', '1e', '-', '.']);
      return { bytes: concat(bytes.subarray(0, at), ascii(junk), bytes.subarray(at)), what: `insert ${JSON.stringify(junk)} at ${at}` };
    }
  }
}

/** Binary DMAT: header lines as text, or the doubles (non-finite, huge, flipped), or the length. */
function mutateBinaryDmat(bytes: Uint8Array, random: Random): { bytes: Uint8Array; what: string } {
  let headerEnd = bytes.indexOf(0x0a);
  headerEnd = bytes.indexOf(0x0a, headerEnd + 1) + 1;
  const kind = int(random, 5);
  if (kind === 0) return mutateText(bytes, random, headerEnd);
  if (kind === 1) {
    const lines = [
      `0 0\n${pick(random, INTERESTING_NUMBERS)} ${pick(random, INTERESTING_NUMBERS)}\n`,
      `0 0\n1 4294967296\n`,
      `0 0\n`,
      `0 0\n3`,
    ];
    const header = pick(random, lines);
    return { bytes: concat(ascii(header), bytes.subarray(headerEnd)), what: `header → ${JSON.stringify(header)}` };
  }
  if (kind === 2) {
    const count = Math.floor((bytes.length - headerEnd) / 8);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const value = pick(random, [NaN, Infinity, -Infinity, 1e308, -1e308, 5e-324, -0]);
    const k = int(random, Math.max(1, count));
    if (headerEnd + 8 * k + 8 <= bytes.length) view.setFloat64(headerEnd + 8 * k, value, true);
    return { bytes, what: `value ${k} → ${value}` };
  }
  if (kind === 3) {
    const what = flipBytes(bytes, random, headerEnd);
    return { bytes, what };
  }
  const at = headerEnd + int(random, bytes.length - headerEnd + 9);
  return at <= bytes.length
    ? { bytes: bytes.slice(0, at), what: `truncate at ${at}` }
    : { bytes: concat(bytes, new Uint8Array(at - bytes.length)), what: `append ${at - bytes.length} bytes` };
}

// ---- glTF ----

type Json = Record<string, unknown>;
type JsonArray = Json[];

/** A glTF asset taken apart: the JSON and its buffers (GLB binary chunk or named resources). */
interface Asset {
  json: Json;
  /** buffer index → bytes (a copy, free to change) */
  buffers: Map<number, Uint8Array>;
  /**
   * How the GLB container is written wrong or unusually: a chunk length past the end, too short or odd; a header length
   * too short for the JSON chunk; chunk 1 of an unknown type (no binary chunk then); an unknown chunk after the binary
   * one; the JSON chunk without its padding (the binary chunk then starts unaligned).
   */
  glbContainer?: 'past-end' | 'short' | 'odd' | 'header-short' | 'bin-type' | 'extra-chunk' | 'unpadded';
}

const list = (json: Json, key: string): JsonArray => (Array.isArray(json[key]) ? (json[key] as JsonArray) : []);

/** Where element `i` of accessor `a` starts: buffer index and byte offset in it, or null. */
function elementAt(asset: Asset, a: number, i: number): { buffer: Uint8Array; offset: number; size: number } | null {
  const accessor = list(asset.json, 'accessors')[a];
  if (!accessor || typeof accessor.bufferView !== 'number') return null;
  const view = list(asset.json, 'bufferViews')[accessor.bufferView];
  if (!view || typeof view.buffer !== 'number') return null;
  const buffer = asset.buffers.get(view.buffer);
  if (!buffer) return null;
  const components = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[accessor.type as string] ?? 1;
  const componentSize =
    ({ 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 } as Record<number, number>)[accessor.componentType as number] ?? 4;
  const size = components * componentSize;
  const stride = typeof view.byteStride === 'number' ? view.byteStride : size;
  const offset = ((view.byteOffset as number) ?? 0) + ((accessor.byteOffset as number) ?? 0) + i * stride;
  // An earlier mutation may have made an offset or the count negative: no element there.
  if (offset < 0 || offset + size > buffer.length) return null;
  return { buffer, offset, size };
}

function writeFloats(asset: Asset, a: number, i: number, values: number[]): boolean {
  const at = elementAt(asset, a, i);
  if (!at || list(asset.json, 'accessors')[a].componentType !== 5126) return false;
  const view = new DataView(at.buffer.buffer, at.buffer.byteOffset, at.buffer.byteLength);
  for (let k = 0; k < values.length && 4 * k < at.size; k++) view.setFloat32(at.offset + 4 * k, values[k], true);
  return true;
}

/** Every leaf of the JSON with its parent and key. */
function leaves(json: unknown, out: { parent: Json | unknown[]; key: string | number; path: string }[] = [], path = ''): typeof out {
  if (Array.isArray(json))
    json.forEach((v, i) =>
      typeof v === 'object' && v !== null ? leaves(v, out, `${path}/${i}`) : out.push({ parent: json, key: i, path: `${path}/${i}` }),
    );
  else if (typeof json === 'object' && json !== null)
    for (const [k, v] of Object.entries(json)) {
      if (typeof v === 'object' && v !== null) leaves(v, out, `${path}/${k}`);
      else out.push({ parent: json as Json, key: k, path: `${path}/${k}` });
    }
  return out;
}

const REFERENCE_KEYS = new Set([
  'bufferView',
  'buffer',
  'indices',
  'POSITION',
  'NORMAL',
  'JOINTS_0',
  'WEIGHTS_0',
  'TEXCOORD_0',
  'input',
  'output',
  'sampler',
  'node',
  'mesh',
  'skin',
  'camera',
  'source',
  'skeleton',
  'inverseBindMatrices',
  'scene',
  'material',
  'index',
]);
const INTERESTING_JSON: unknown[] = [-1, 0, 1, 2, 3, 1e8, 4294967295, 2 ** 31, 1e300, 0.5, null, 'x', [], {}, true, -0.5, 1e9];

const PNG_SIGNATURE = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]);
const percentEncoded = (bytes: Uint8Array): string => Array.from(bytes, (b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/**
 * Resource URIs, made from the resource's own bytes (as base64) where they need them: a missing file; paths that
 * leave the asset's folder (parent steps, absolute and drive paths, a UNC share, percent-encoded dots and slashes,
 * another scheme), which a reader must refuse naming the URI; and data: URIs — the bytes themselves (sound), base64
 * with `=` inside, not base64, too short, percent-encoded, without a comma, plain (not base64) and megabytes long.
 */
const RESOURCE_URIS: ((base64: string, bytes: Uint8Array) => string)[] = [
  () => 'missing.bin',
  () => '../x.bin',
  () => 'textures/../../x.bin',
  () => '../../../../../../etc/passwd',
  () => '/etc/hostname',
  () => '%2e%2e/x.bin',
  () => '..%2Fx.bin',
  () => '%252e%252e/x.bin',
  () => 'C:\\x',
  () => 'C:/Windows/win.ini',
  () => '..\\x.bin',
  () => '\\\\server\\share\\x.bin',
  () => 'file:///etc/passwd',
  (base64) => `data:application/octet-stream;base64,${base64}`,
  (base64) => `data:application/octet-stream;base64,${base64.slice(0, 4)}=${base64.slice(4)}`,
  (base64) => `data:application/octet-stream;base64,${base64.slice(0, 8)}==${base64.slice(8)}`,
  () => 'data:application/octet-stream;base64,@@@',
  () => 'data:application/octet-stream;base64,AAAA',
  (base64) => `data:application/octet-stream;base64,${encodeURIComponent(base64)}`,
  (base64) => `data:application/octet-stream;base64${base64}`,
  (_, bytes) => `data:application/octet-stream,${percentEncoded(bytes.subarray(0, 4096))}`,
  () => `data:application/octet-stream;base64,${'QUJD'.repeat(1 << 19)}`,
  () => `data:${'x'.repeat(1 << 20)}`,
];

/** What a structural glTF mutation works on: the asset, its JSON's lists, and the input's random source. */
interface GltfMutation {
  asset: Asset;
  json: Json;
  accessors: JsonArray;
  nodes: JsonArray;
  skins: JsonArray;
  animations: JsonArray;
  views: JsonArray;
  random: Random;
}

/**
 * The structural mutations of a glTF asset, each returning its description; mutateGltf draws one by its index, so
 * their order is part of every input's recipe (new ones go last).
 */
const GLTF_MUTATIONS: readonly ((m: GltfMutation) => string)[] = [
  ({ json, random }) => {
    const all = leaves(json);
    const leaf = pick(random, all);
    if (!leaf) return 'nothing';
    if (random() < 0.15 && !Array.isArray(leaf.parent)) {
      delete leaf.parent[leaf.key];
      return `delete ${leaf.path}`;
    }
    const value = pick(random, INTERESTING_JSON);
    (leaf.parent as Record<string | number, unknown>)[leaf.key] = value;
    return `${leaf.path} → ${JSON.stringify(value)}`;
  },
  ({ json, random }) => {
    const refs = leaves(json).filter(
      (l) =>
        (typeof l.key === 'string' && REFERENCE_KEYS.has(l.key)) ||
        (typeof l.key === 'number' && /\/(children|joints|nodes)\/\d+$/.test(l.path)),
    );
    const leaf = pick(random, refs);
    if (!leaf) return 'nothing';
    const value = pick(random, [-1, 1e9, 2.5, (leaf.parent as Record<string | number, number>)[leaf.key] + 1 + int(random, 100)]);
    (leaf.parent as Record<string | number, unknown>)[leaf.key] = value;
    return `${leaf.path} → ${value}`;
  },
  ({ accessors, random }) => {
    const a = int(random, accessors.length);
    if (!accessors[a]) return 'nothing';
    const count = pick(random, [1e8, 1e9, 4294967295, 2 ** 31, (accessors[a].count as number) + 1, (accessors[a].count as number) * 2]);
    accessors[a].count = count;
    return `/accessors/${a}/count → ${count}`;
  },
  ({ accessors, views, random }) => {
    const a = int(random, accessors.length);
    const v = int(random, views.length);
    if (!accessors[a]) return 'nothing';
    const count = pick(random, [1e8, 3e8, 1e9, 4, (accessors[a].count as number) + 1]);
    accessors[a].sparse = {
      count,
      indices: { bufferView: v, componentType: pick(random, [5121, 5123, 5125]) },
      values: { bufferView: v },
    };
    if (random() < 0.5) accessors[a].count = Math.max(count, 1e8);
    return `/accessors/${a}/sparse with count ${count}`;
  },
  ({ nodes, random }) => {
    // A child that names an ancestor (or itself): a cycle.
    const parents = nodes.map((n, i) => [n, i] as const).filter(([n]) => Array.isArray(n.children) && (n.children as unknown[]).length > 0);
    const [node, i] = pick(random, parents) ?? [];
    if (!node) return 'nothing';
    const child = pick(random, node.children as number[]);
    const target = nodes[child] ?? node;
    target.children = [...((target.children as number[]) ?? []), random() < 0.3 ? child : i];
    return `cycle: node ${child} gets child ${i}`;
  },
  ({ nodes, skins, random }) => {
    const skin = pick(random, skins);
    if (!skin || !Array.isArray(skin.joints)) return 'nothing';
    const j = int(random, (skin.joints as number[]).length);
    (skin.joints as number[])[j] = pick(random, [nodes.length, nodes.length + 7, -1, (skin.joints as number[])[0]]);
    return `skin joint ${j} → ${(skin.joints as number[])[j]}`;
  },
  ({ nodes, random }) => {
    const n = int(random, nodes.length);
    if (!nodes[n]) return 'nothing';
    const [key, value] = pick(random, [
      ['translation', [1, 2, 3, 4]],
      ['translation', [1, 2]],
      ['rotation', [0, 0, 1]],
      ['rotation', [0, 0, 0, 0]],
      ['rotation', [0, 0, 0, 1, 5]],
      ['scale', [1, 1]],
      ['scale', [0, 0, 0]],
      ['matrix', new Array(15).fill(1)],
      ['translation', [1e308, 1e308, 1e308]],
      ['rotation', [1e200, 1e200, 0, 1]],
    ] as [string, number[]][]);
    nodes[n][key] = value;
    return `/nodes/${n}/${key} → ${JSON.stringify(value)}`;
  },
  ({ json, accessors }) => {
    for (const mesh of list(json, 'meshes'))
      for (const primitive of (mesh.primitives as JsonArray) ?? []) {
        const a = (primitive.attributes as Json | undefined)?.JOINTS_0;
        if (typeof a === 'number' && accessors[a]) accessors[a].normalized = true;
      }
    return 'JOINTS_0 normalized';
  },
  ({ asset, accessors, animations, random }) => {
    // Last key time of an animation input.
    const animation = pick(random, animations);
    const sampler = animation && pick(random, list(animation, 'samplers'));
    if (!sampler || typeof sampler.input !== 'number' || !accessors[sampler.input]) return 'nothing';
    const input = sampler.input;
    const value = pick(random, [1e5, 1e6, 1e9, NaN, -1, Infinity, 3.4e38]);
    const last = (accessors[input].count as number) - 1;
    writeFloats(asset, input, last, [value]);
    if (Array.isArray(accessors[input].max)) accessors[input].max = [Number.isFinite(value) ? value : 0];
    return `/accessors/${input} last key time → ${value}`;
  },
  ({ asset, accessors, animations, random }) => {
    const animation = pick(random, animations);
    const sampler = animation && pick(random, list(animation, 'samplers'));
    if (!sampler || typeof sampler.output !== 'number' || !accessors[sampler.output]) return 'nothing';
    const output = sampler.output;
    const value = pick(random, [
      [NaN, 0, 0, 1],
      [0, 0, 0, 0],
      [Infinity, 0, 0, 1],
      [3e38, 3e38, 3e38, 3e38],
      [1e-30, 0, 0, 0],
      [-1, 1, 1, 1],
    ]);
    const k = int(random, accessors[output].count as number);
    writeFloats(asset, output, k, value);
    return `/accessors/${output} element ${k} → ${value.join(' ')}`;
  },
  ({ accessors, random }) => {
    const a = int(random, accessors.length);
    if (!accessors[a]) return 'nothing';
    const value = pick(random, [1e9, 4294967295, 3, 1, 2 ** 31]);
    accessors[a].byteOffset = value;
    return `/accessors/${a}/byteOffset → ${value}`;
  },
  ({ views, random }) => {
    const v = int(random, views.length);
    if (!views[v]) return 'nothing';
    const key = pick(random, ['byteLength', 'byteOffset', 'byteStride']);
    const value = pick(random, [1e9, 4294967295, 3, 0, 1000, 2 ** 31, 256, (views[v].byteLength as number) + 4]);
    views[v][key] = value;
    return `/bufferViews/${v}/${key} → ${value}`;
  },
  ({ json, random }) => {
    const buffers = list(json, 'buffers');
    if (!buffers[0]) return 'nothing';
    const value = pick(random, [1e9, 4294967295, 0, (buffers[0].byteLength as number) + 100]);
    buffers[0].byteLength = value;
    return `/buffers/0/byteLength → ${value}`;
  },
  ({ asset, random }) => {
    asset.glbContainer = pick(random, ['past-end', 'short', 'odd', 'header-short', 'bin-type', 'extra-chunk', 'unpadded'] as const);
    return `GLB container ${asset.glbContainer}`;
  },
  ({ accessors, random }) => {
    const a = int(random, accessors.length);
    if (!accessors[a]) return 'nothing';
    if (random() < 0.5) {
      const componentType = pick(random, [5120, 5121, 5122, 5123, 5125, 5126, 5130, 0]);
      accessors[a].componentType = componentType;
      return `/accessors/${a}/componentType → ${componentType}`;
    }
    const type = pick(random, ['SCALAR', 'VEC2', 'VEC3', 'VEC4', 'MAT2', 'MAT3', 'MAT4', 'VEC5']);
    accessors[a].type = type;
    return `/accessors/${a}/type → ${type}`;
  },
  ({ asset, accessors, random }) => {
    const a = int(random, accessors.length);
    if (!accessors[a]) return 'nothing';
    const value = pick(random, [NaN, Infinity, -Infinity, 3e38, -1, 2, 1e-45]);
    const k = int(random, accessors[a].count as number);
    writeFloats(asset, a, k, new Array<number>(16).fill(value));
    return `/accessors/${a} element ${k} → ${value}`;
  },
  ({ asset, accessors, skins, random }) => {
    const skin = pick(random, skins);
    if (!skin || typeof skin.inverseBindMatrices !== 'number') return 'nothing';
    const k = int(random, (accessors[skin.inverseBindMatrices]?.count as number) ?? 1);
    writeFloats(asset, skin.inverseBindMatrices, k, new Array<number>(16).fill(0));
    return `inverse bind matrix ${k} zero`;
  },
  ({ json, skins, animations, random }) => {
    const target = pick(random, [
      () => delete json.asset,
      () => ((json.asset as Json).version = '1.0'),
      () => skins[0] && delete skins[0].joints,
      () => delete json.accessors,
      () => (json.nodes = 5),
      () => (json.scenes = [{ nodes: 'a' }]),
      () => animations[0] && (list(animations[0], 'samplers')[0] = {}),
      () => animations[0] && (list(animations[0], 'channels')[0] = { sampler: 0 }),
      () => (json.cameras = [{ type: 'perspective' }]),
      () => (json.extensionsRequired = ['KHR_draco_mesh_compression']),
      () => (json.images = [{}]),
      () => (json.textures = [{ source: 9 }]),
      () => (json.materials = [{ pbrMetallicRoughness: { baseColorTexture: { index: 4 } } }]),
    ]);
    target();
    return `structure ${target.toString().slice(6, 60)}`;
  },
  ({ animations, random }) => {
    const animation = pick(random, animations);
    const sampler = animation && pick(random, list(animation, 'samplers'));
    if (!sampler) return 'nothing';
    sampler.interpolation = pick(random, ['CUBICSPLINE', 'STEP', 'LINEAR', 'SMOOTH', 7]);
    return `interpolation → ${String(sampler.interpolation)}`;
  },
  ({ asset, json, random }) => {
    // A buffer's or an image's URI: a file the asset lacks, paths out of its folder, data: URIs of every kind.
    const images = list(json, 'images');
    const onImage = images.length > 0 && random() < 0.3;
    const targets = onImage ? images : list(json, 'buffers');
    const k = int(random, targets.length);
    if (!targets[k]) return 'nothing';
    const own = onImage ? PNG_SIGNATURE : (asset.buffers.get(k) ?? new Uint8Array(0));
    const uri = pick(random, RESOURCE_URIS)(Buffer.from(own).toString('base64'), own);
    targets[k].uri = uri;
    if (onImage) delete targets[k].bufferView;
    return `/${onImage ? 'images' : 'buffers'}/${k}/uri → ${uri.length > 80 ? `${uri.slice(0, 60)}… (${uri.length} characters)` : uri}`;
  },
  ({ skins, random }) => {
    const skin = pick(random, skins);
    if (!skin || !Array.isArray(skin.joints) || (skin.joints as number[]).length < 2) return 'nothing';
    (skin.joints as number[])[1] = (skin.joints as number[])[0];
    return 'skin with a repeated joint';
  },
  ({ json, nodes, random }) => {
    // A node listed as a scene root while it is also someone's child.
    const scenes = list(json, 'scenes');
    if (!scenes[0] || nodes.length === 0) return 'nothing';
    const n = int(random, nodes.length);
    scenes[0].nodes = [...((scenes[0].nodes as number[]) ?? []), n];
    return `/scenes/0/nodes gets node ${n}`;
  },
];

/** One structural mutation of a glTF asset; returns its description. */
function mutateGltf(asset: Asset, random: Random): string {
  const { json } = asset;
  const m: GltfMutation = {
    asset,
    json,
    accessors: list(json, 'accessors'),
    nodes: list(json, 'nodes'),
    skins: list(json, 'skins'),
    animations: list(json, 'animations'),
    views: list(json, 'bufferViews'),
    random,
  };
  return GLTF_MUTATIONS[int(random, GLTF_MUTATIONS.length)](m);
}

// ---- project file ----

/** An array reference of the project extension: `{ bufferView, type, length }`. */
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRef = (value: unknown): value is Json => isObject(value) && 'bufferView' in value && 'length' in value;

/** Every array reference of the project extension with its path, the examples' ones included. */
function projectRefs(json: unknown, path: string, out: { ref: Json; path: string }[] = []): typeof out {
  if (isRef(json)) out.push({ ref: json, path });
  else if (typeof json === 'object' && json !== null)
    for (const [k, v] of Object.entries(json)) projectRefs(v, Array.isArray(json) ? `${path}[${k}]` : `${path}.${k}`, out);
  return out;
}

/**
 * One mutation of the project extension, aimed at what the generic glTF mutations rarely reach: the examples
 * section (an example's positions and pose references, its length, type, hidden flag and name, duplicate names,
 * the list itself), array references elsewhere, the pose-space kernel and the format version.
 */
function mutateProject(asset: Asset, random: Random): string {
  const extensions = asset.json.extensions as Json | undefined;
  const ext = extensions?.RIGWRIGHT_project;
  if (!isObject(ext)) return 'nothing';
  const examples = Array.isArray(ext.examples) ? (ext.examples as JsonArray) : [];
  const views = list(asset.json, 'bufferViews');
  const e = int(random, examples.length);
  const example = isObject(examples[e]) ? examples[e] : undefined;
  const other: Json = isObject(examples[(e + 1) % examples.length]) ? examples[(e + 1) % examples.length] : {};
  const at = `examples[${e}]`;
  const kind = int(random, 12);
  switch (kind) {
    case 0:
    case 1: {
      // An example's positions or pose reference: another view, one that does not exist, a wrong length or type.
      if (!example) return 'nothing';
      const key = pick(random, ['positions', 'pose']);
      const ref = example[key] as Json | undefined;
      if (!isRef(ref)) return 'nothing';
      const field = pick(random, ['bufferView', 'length', 'type', 'missing']);
      if (field === 'missing') {
        delete ref[pick(random, ['bufferView', 'length', 'type'])];
        return `${at}.${key}: a field deleted`;
      }
      const length = ref.length as number;
      const value =
        field === 'bufferView'
          ? pick(random, [-1, views.length, 1e9, 0.5, 'x', int(random, views.length), (ref.bufferView as number) - 1])
          : field === 'length'
            ? pick(random, [
                0,
                -3,
                length + 1,
                length - 1,
                length + 3,
                length - 3,
                length + 9,
                length - 9,
                2 * length,
                1e9,
                2 ** 32,
                1.5,
                null,
              ])
            : pick(random, ['float32', 'uint8', 'int32', 'uint32', 'float16', 7, null]);
      ref[field] = value;
      return `${at}.${key}.${field} → ${JSON.stringify(value)}`;
    }
    case 2: {
      // Two examples sharing one buffer view (still sound), or an example's view shortened under it.
      if (!example || !isRef(example.positions) || !isRef(example.pose)) return 'nothing';
      if (random() < 0.5 && isRef(other.positions)) {
        example.positions.bufferView = other.positions.bufferView;
        return `${at}.positions shares the view of the next example`;
      }
      const view = views[example.pose.bufferView as number];
      if (!view) return 'nothing';
      view.byteLength = pick(random, [0, 8, (view.byteLength as number) - 8, (view.byteLength as number) + 8]);
      return `${at}.pose view byteLength → ${String(view.byteLength)}`;
    }
    case 3: {
      if (!example) return 'nothing';
      const value = pick(random, ['yes', 1, 0, null, 'true', [], undefined]);
      if (value === undefined) delete example.hidden;
      else example.hidden = value;
      return `${at}.hidden → ${JSON.stringify(value) ?? 'deleted'}`;
    }
    case 4: {
      // Names: a duplicate (exact, or of another example), missing, of the wrong type, empty, very long.
      if (!example) return 'nothing';
      const value = pick(random, [other.name, 42, null, '', 'x'.repeat(5000), '\u0000', undefined]);
      if (value === undefined) delete example.name;
      else example.name = value;
      return `${at}.name → ${value === undefined ? 'deleted' : JSON.stringify(value).slice(0, 40)}`;
    }
    case 5: {
      // An example repeated (same name, same data), or one of many copies.
      if (!example) return 'nothing';
      const copies = pick(random, [1, 2, 50]);
      for (let k = 0; k < copies; k++) examples.push(random() < 0.5 ? example : { ...example, name: `${String(example.name)}-${k}` });
      return `${at} repeated ${copies} times`;
    }
    case 6: {
      // The other fields of an example, or the example itself.
      if (!example) return 'nothing';
      const key = pick(random, ['file', 'poseSource', 'positions', 'pose', 'self']);
      const value = pick(random, [null, 3, [], {}, 'x', undefined]);
      if (key === 'self') {
        examples[e] = value as Json;
        return `${at} → ${JSON.stringify(value) ?? 'undefined'}`;
      }
      if (value === undefined) delete example[key];
      else example[key] = value;
      return `${at}.${key} → ${JSON.stringify(value) ?? 'deleted'}`;
    }
    case 7: {
      const value = pick(random, [null, {}, 'x', 3, [null], [[]], undefined]);
      if (value === undefined) delete ext.examples;
      else ext.examples = value;
      return `examples → ${JSON.stringify(value) ?? 'deleted'}`;
    }
    case 8: {
      // A number in an example's positions or pose, or in a pose sequence's rotations or quaternions (the clips,
      // the scene's poses): non-finite, huge, or finite but leaving a rotation no rotation.
      const refs = projectRefs(ext, 'RIGWRIGHT_project').filter(
        (r) => r.ref.type === 'float64' && /(examples\[\d+\]\.(positions|pose)|\.rotations|\.final)$/.test(r.path),
      );
      const target = pick(random, refs);
      const buffer = asset.buffers.get(0);
      if (!target || !buffer) return 'nothing';
      const view = views[target.ref.bufferView as number];
      if (!view) return 'nothing';
      const k = int(random, target.ref.length as number);
      const offset = ((view.byteOffset as number) ?? 0) + 8 * k;
      const value = pick(random, [NaN, Infinity, -Infinity, 1e308, -0, 5e-324, 0.5, 2, -1, 1.01, 1.0001]);
      if (offset + 8 > buffer.length) return 'nothing';
      new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength).setFloat64(offset, value, true);
      return `${target.path}[${k}] → ${value}`;
    }
    case 9: {
      // Any array reference of the extension: counts, offsets, types, missing fields.
      const refs = projectRefs(ext, 'RIGWRIGHT_project');
      const target = pick(random, refs);
      if (!target) return 'nothing';
      const field = pick(random, ['bufferView', 'length', 'type']);
      const length = target.ref.length as number;
      const value = pick(random, [-1, 0, length + 1, length - 1, 2 * length, 1e9, 'float64', 'uint32', 'int8', null, undefined]);
      if (value === undefined) delete target.ref[field];
      else target.ref[field] = value;
      return `${target.path}.${field} → ${JSON.stringify(value) ?? 'deleted'}`;
    }
    case 10: {
      const settings = ext.settings;
      if (!isObject(settings)) return 'nothing';
      const value = pick(random, [42, null, 'multiquadric', 'unknown', {}, undefined]);
      const whole = random() < 0.2 || !isObject(settings.posespace);
      if (whole) settings.posespace = value;
      else (settings.posespace as Json).kernel = value;
      return `settings.posespace${whole ? '' : '.kernel'} → ${JSON.stringify(value) ?? 'deleted'}`;
    }
    default: {
      // The format version: older (examples then dropped by the migration), newer, not a version.
      const value = pick(random, [1, 2, 3, 0, -1, 1.5, '2', null]);
      ext.formatVersion = value;
      return `formatVersion → ${JSON.stringify(value)}`;
    }
  }
}

const pad = (bytes: Uint8Array, fill: number): Uint8Array => {
  const out = new Uint8Array(Math.ceil(bytes.length / 4) * 4).fill(fill);
  out.set(bytes);
  return out;
};

function encodeGlb(asset: Asset): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(asset.json));
  const jsonChunk = asset.glbContainer === 'unpadded' ? text : pad(text, 0x20);
  const bin = asset.buffers.get(0);
  const binChunk = bin && !list(asset.json, 'buffers')[0]?.uri ? pad(bin, 0) : null;
  const extra = asset.glbContainer === 'extra-chunk' ? 12 : 0;
  const total = 12 + 8 + jsonChunk.length + (binChunk ? 8 + binChunk.length : 0) + extra;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonChunk.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(jsonChunk, 20);
  if (binChunk) {
    const at = 20 + jsonChunk.length;
    view.setUint32(at, binChunk.length, true);
    view.setUint32(at + 4, asset.glbContainer === 'bin-type' ? 0x41544144 : 0x004e4942, true);
    out.set(binChunk, at + 8);
    if (asset.glbContainer === 'past-end') view.setUint32(at, binChunk.length + 4096, true);
    if (asset.glbContainer === 'short') view.setUint32(at, 3, true);
  }
  if (extra > 0) {
    view.setUint32(total - 12, 4, true);
    view.setUint32(total - 8, 0x41525458, true); // 'XTRA'
  }
  if (asset.glbContainer === 'odd') view.setUint32(12, jsonChunk.length + 1, true);
  if (asset.glbContainer === 'past-end' && !binChunk) view.setUint32(12, 1e9, true);
  if (asset.glbContainer === 'header-short') view.setUint32(8, 16, true);
  return out;
}

function parseGlb(bytes: Uint8Array): Asset {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))) as Json;
  const at = 20 + jsonLength;
  const buffers = new Map<number, Uint8Array>();
  if (at + 8 <= bytes.length) buffers.set(0, bytes.slice(at + 8, at + 8 + view.getUint32(at, true)));
  return { json, buffers };
}

/** Makes one input from a seed. */
export function mutate(seed: Seed, random: Random): FuzzInput {
  const mutations: string[] = [];
  const rounds = 1 + int(random, 3);
  if (seed.format === 'glb' || seed.format === 'gltf' || seed.format === 'project') {
    if (random() < 0.2) {
      // Byte level on the whole file (and a resource).
      let bytes = seed.bytes.slice();
      const resources = seed.resources ? { ...seed.resources } : undefined;
      for (let r = 0; r < rounds; r++) {
        if (random() < 0.3) {
          const at = int(random, bytes.length + 1);
          bytes = bytes.slice(0, at);
          mutations.push(`truncate at ${at}`);
        } else if (resources && random() < 0.5) {
          const uri = pick(random, Object.keys(resources));
          const data = resources[uri].slice();
          if (random() < 0.5) {
            resources[uri] = data.slice(0, int(random, data.length));
            mutations.push(`${uri} truncated to ${resources[uri].length}`);
          } else {
            mutations.push(`${uri}: ${flipBytes(data, random)}`);
            resources[uri] = data;
          }
        } else {
          mutations.push(flipBytes(bytes, random));
        }
      }
      return { name: seed.name, bytes, resources, mutations };
    }
    let asset: Asset;
    if (seed.format !== 'gltf') {
      asset = parseGlb(seed.bytes);
    } else {
      const json = JSON.parse(new TextDecoder().decode(seed.bytes)) as Json;
      const buffers = new Map<number, Uint8Array>();
      list(json, 'buffers').forEach((b, i) => {
        const data = typeof b.uri === 'string' ? seed.resources?.[b.uri] : undefined;
        if (data) buffers.set(i, data.slice());
      });
      asset = { json, buffers };
    }
    for (let r = 0; r < rounds; r++)
      mutations.push(seed.format === 'project' && random() < 0.6 ? `project ${mutateProject(asset, random)}` : mutateGltf(asset, random));
    if (seed.format !== 'gltf') return { name: seed.name, bytes: encodeGlb(asset), mutations };
    const resources: Record<string, Uint8Array> = { ...seed.resources };
    list(seed.format === 'gltf' ? (JSON.parse(new TextDecoder().decode(seed.bytes)) as Json) : {}, 'buffers').forEach((b, i) => {
      const data = asset.buffers.get(i);
      if (typeof b.uri === 'string' && data) resources[b.uri] = data;
    });
    return { name: seed.name, bytes: new TextEncoder().encode(JSON.stringify(asset.json)), resources, mutations };
  }
  let bytes: Uint8Array = seed.bytes.slice();
  for (let r = 0; r < rounds; r++) {
    const { bytes: next, what } = seed.format === 'dmat-binary' ? mutateBinaryDmat(bytes, random) : mutateText(bytes, random);
    bytes = next;
    mutations.push(what);
  }
  // Drawn after the other mutations, so that they are the same with or without it.
  if (seed.format !== 'dmat-binary' && random() < 0.25) {
    const lineEnds: LineEnds = random() < 0.5 ? '\r' : '\r\n';
    mutations.push(`line ends → ${JSON.stringify(lineEnds)}`);
    return { name: seed.name, bytes: withLineEnds(bytes, lineEnds), mutations, lineEnds };
  }
  return { name: seed.name, bytes, mutations };
}

/**
 * The text with every line end (`\r\n`, a lone `\r` or `\n`) written as `ends`: the same lines whatever the ends
 * were. `withLineEnds(bytes, '\n')` of a text with `\r` or `\r\n` ends is the text as most files have it.
 */
export function withLineEnds(bytes: Uint8Array, ends: LineEnds | '\n'): Uint8Array {
  const end = ascii(ends);
  const out = new Uint8Array(bytes.length * end.length);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x0d || c === 0x0a) {
      if (c === 0x0d && bytes[i + 1] === 0x0a) i++;
      out.set(end, o);
      o += end.length;
    } else {
      out[o++] = c;
    }
  }
  return out.slice(0, o);
}
