/**
 * What glTF-Transform's reader leaves out of a Document, carried from the source file into the written one by
 * in-place export (gltf-edit.ts) as raw JSON:
 *
 *   unknown extensions   every `extensions` entry of an extension glTF-Transform does not read, found in the file's
 *                        root, scenes, nodes, meshes and their primitives, materials, images, textures, samplers,
 *                        skins, cameras, animations and accessors, is re-attached at the same place in the written
 *                        JSON and listed in extensionsUsed (and extensionsRequired when it was). Most places keep
 *                        their indices (new nodes and meshes come last; removed animations are mapped). Textures and
 *                        samplers, which the writer renumbers, are found again by their image and sampler settings.
 *                        Accessors are found again by a tag in their extras, put there before writing and taken off
 *                        after; an accessor whose data the export replaced or changed loses its entry, since the
 *                        entry described the old data. Entries on buffer views and buffers are not carried: they
 *                        describe how the file's bytes are laid out, and the writer lays the bytes out afresh.
 *   animation pointers   KHR_animation_pointer channels that the importer left out (any pointer other than a node's
 *                        rotation, translation or scale: material factors, light intensities, morph weights, …) go
 *                        back on the same sampler, found again by a tag in its extras: in their animation when it is
 *                        kept, or in the animation written for a clip made from it (GltfClip.from), into which
 *                        in-place export moves those samplers (pointerSamplers). A pointer whose target is not in the written file is left out
 *                        and reported; an animation left with no channel at all is removed (glTF needs one).
 *
 * Use: `prepareCarry` after the edits and before writing (it tags the Document), then the returned function on the
 * written JSON (`patchGlbJson` for a GLB).
 */
import type { Accessor, AnimationSampler } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { nodeCountOf, otherPointerOf } from './gltf-extensions.ts';
import { gltfJson, parseJsonText } from './gltf-resource-uris.ts';
import { parseGlb, writeGlb } from './gltf/glb.ts';
import type { GltfSource } from './types.ts';

type Json = Record<string, unknown>;

/** The source file's objects as read, before any edit, by their index in the file. */
export interface CarrySources {
  /** the Document's accessors right after reading, in file order */
  accessors: readonly Accessor[];
  /** copies of the arrays of the accessors that carry unknown extensions, taken right after reading */
  accessorArrays: ReadonlyMap<number, ArrayLike<number>>;
  /** each animation's samplers right after reading, in file order (a disposed one is not written) */
  samplers: readonly (readonly AnimationSampler[])[];
  /** copies of a read sampler given to further clips made from its animation (each gets the pointer channels) */
  samplerCopies?: ReadonlyMap<AnimationSampler, readonly AnimationSampler[]>;
  /** source animation index → index in the written file, for the animations kept */
  animationIndex: ReadonlyMap<number, number>;
}

/** Places whose indices the written file keeps (animations through the map of kept ones, accessors by tag). */
const CARRIED_COLLECTIONS = [
  'scenes',
  'nodes',
  'meshes',
  'materials',
  'images',
  'skins',
  'cameras',
  'animations',
  'textures',
  'samplers',
  'accessors',
] as const;
const LAID_OUT_AFRESH = ['bufferViews', 'buffers'] as const;
const READABLE = new Set(ALL_EXTENSIONS.map((extension) => extension.EXTENSION_NAME));
const POINTER = 'KHR_animation_pointer';
/** The extras key that finds a tagged accessor or animation sampler again in the written JSON. */
const TAG = 'rigwrightCarry';

/** The source file's JSON. */
export function sourceJson(source: GltfSource): Json {
  return gltfJson(source.bytes, source.file) as Json;
}

const names = (value: unknown): string[] => (Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []);
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The extensions the file uses that glTF-Transform does not read (the pointer channels are carried apart). */
const unknownExtensions = (json: Json): string[] => names(json.extensionsUsed).filter((name) => !READABLE.has(name) && name !== POINTER);

/** The indices of the source's accessors that carry an entry of an extension glTF-Transform does not read. */
export function accessorsWithUnknownExtensions(json: Json): number[] {
  const unknown = unknownExtensions(json);
  const accessors = Array.isArray(json.accessors) ? (json.accessors as unknown[]) : [];
  const found: number[] = [];
  accessors.forEach((accessor, i) => {
    if (isRecord(accessor) && isRecord(accessor.extensions) && unknown.some((name) => name in (accessor.extensions as Json))) found.push(i);
  });
  return found;
}

/**
 * Tags the Document for the carry-over and returns the function that puts what it carries into the written JSON.
 * @param json      the source file's JSON (sourceJson)
 * @param sources   the source's objects as read (see CarrySources)
 * @param warnings  receives a sentence for each thing that cannot be carried
 */
export function prepareCarry(json: Json, sources: CarrySources, warnings: string[]): (out: Json) => void {
  const unknown = unknownExtensions(json);
  const required = names(json.extensionsRequired);
  const nodeCount = nodeCountOf(json);
  const found = unknownEntries(json, unknown, warnings);

  // Accessors: tagged when they are still written with the data they had.
  const accessorTags = new Set<number>();
  const replaced: number[] = [];
  for (const a of new Set(found.filter(([collection]) => collection === 'accessors').map(([, index]) => index))) {
    const accessor = sources.accessors[a];
    const before = sources.accessorArrays.get(a);
    if (!accessor || accessor.isDisposed() || !before || !sameArray(accessorValues(accessor), before)) {
      replaced.push(a);
      continue;
    }
    accessor.setExtras({ ...accessor.getExtras(), [TAG]: a });
    accessorTags.add(a);
  }
  if (replaced.length > 0)
    warnings.push(
      `extensions on accessor${replaced.length === 1 ? '' : 's'} ${replaced.join(', ')} are left out: the export replaced ${replaced.length === 1 ? 'its' : 'their'} data`,
    );

  const pointerChannels = tagPointerChannels(json, sources, nodeCount, warnings);

  return (out: Json) => {
    const accessorAt = new Map<number, number>();
    if (Array.isArray(out.accessors)) out.accessors.forEach((accessor, i) => untag(accessor, (tag) => accessorAt.set(Number(tag), i)));
    /** tag → [animation, sampler] in the written file: a kept animation's own, or in each clip made from it */
    const samplerAt = new Map<string, [number, number][]>();
    const outAnimations = Array.isArray(out.animations) ? (out.animations as unknown[]) : [];
    outAnimations.forEach((animation, at) => {
      if (isRecord(animation) && Array.isArray(animation.samplers))
        animation.samplers.forEach((sampler, s) =>
          untag(sampler, (tag) => samplerAt.set(String(tag), [...(samplerAt.get(String(tag)) ?? []), [at, s]])),
        );
    });

    const written = renumbering(json, out);
    if (unknown.length > 0) {
      out.extensionsUsed = [...new Set([...names(out.extensionsUsed), ...unknown])];
      const requiredUnknown = required.filter((name) => unknown.includes(name));
      if (requiredUnknown.length > 0) out.extensionsRequired = [...new Set([...names(out.extensionsRequired), ...requiredUnknown])];
    }
    for (const [collection, index, path, name, value] of found) {
      let target: unknown;
      if (collection === '') target = out;
      else {
        const at =
          collection === 'animations'
            ? sources.animationIndex.get(index)
            : collection === 'accessors'
              ? accessorAt.get(index)
              : collection === 'textures' || collection === 'samplers'
                ? written(collection, index)
                : index;
        const items = out[collection];
        if (at === undefined || !Array.isArray(items)) continue;
        target = items[at];
      }
      let steps = path;
      if (collection === 'animations' && path[0] === 'channels') {
        // The reader took the pointer channels out, so a later channel's index moved down; a pointer channel's own
        // entries come back with the channel itself.
        const moved = channelIndexAfterReading(json, index, Number(path[1]));
        if (moved === null) continue;
        steps = ['channels', String(moved), ...path.slice(2)];
      }
      for (const key of steps) target = isRecord(target) || Array.isArray(target) ? (target as Json)[key] : undefined;
      if (!isRecord(target)) continue;
      target.extensions = { ...(isRecord(target.extensions) ? target.extensions : {}), [name]: value };
    }

    // Pointer channels back on their samplers.
    const leftOut = new Map<number, string[]>();
    let carriedPointers = 0;
    for (const { animation, sampler, channel } of pointerChannels)
      for (const [at, s] of samplerAt.get(`${animation}/${sampler}`) ?? []) {
        const outAnimation = outAnimations[at];
        const pointer = otherPointerOf(channel, nodeCount) ?? '';
        const moved = pointerInWritten(pointer, out, written);
        if (!isRecord(outAnimation) || moved === undefined) {
          leftOut.set(at, [...(leftOut.get(at) ?? []), pointer || '(a channel without a pointer)']);
          continue;
        }
        const copy = structuredClone(channel);
        copy.sampler = s;
        ((copy.target as Json).extensions as Json)[POINTER] = {
          ...(((copy.target as Json).extensions as Json)[POINTER] as Json),
          pointer: moved,
        };
        if (!Array.isArray(outAnimation.channels)) outAnimation.channels = [];
        (outAnimation.channels as unknown[]).push(copy);
        carriedPointers++;
      }
    if (carriedPointers > 0) {
      out.extensionsUsed = [...new Set([...names(out.extensionsUsed), POINTER])];
      if (required.includes(POINTER)) out.extensionsRequired = [...new Set([...names(out.extensionsRequired), POINTER])];
    }
    for (const [at, pointers] of leftOut) {
      const animation = outAnimations[at];
      const name = isRecord(animation) && typeof animation.name === 'string' ? animation.name : `animation ${at}`;
      warnings.push(
        `animation "${name}": ${POINTER} channels ${pointers.join(', ')} are left out: their targets are not in the written file`,
      );
    }
    // glTF needs at least one channel per animation: one left with none (it animated only what was left out) goes.
    if (Array.isArray(out.animations)) {
      const kept = (out.animations as unknown[]).filter(
        (animation) => !isRecord(animation) || (Array.isArray(animation.channels) && animation.channels.length > 0),
      );
      if (kept.length < out.animations.length) {
        const gone = out.animations.length - kept.length;
        warnings.push(
          `${gone === 1 ? '1 animation that was' : `${gone} animations that were`} left with no channel ${gone === 1 ? 'is' : 'are'} removed`,
        );
        if (kept.length > 0) out.animations = kept;
        else delete out.animations;
      }
    }
  };
}

/** An unknown extension's entry: [collection or '', index, path inside the object, extension name, value]. */
type UnknownEntry = [string, number, string[], string, unknown];

/**
 * The entries of the extensions `unknown` in the source's root and CARRIED_COLLECTIONS; those on buffers and buffer
 * views are left out, with a notice.
 */
function unknownEntries(json: Json, unknown: readonly string[], warnings: string[]): UnknownEntry[] {
  const found: UnknownEntry[] = [];
  const walk = (value: unknown, collection: string, index: number, path: string[]): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, collection, index, [...path, String(i)]));
      return;
    }
    if (!isRecord(value)) return;
    const extensions = value.extensions;
    if (isRecord(extensions))
      for (const name of unknown) if (name in extensions) found.push([collection, index, path, name, extensions[name]]);
    for (const [key, child] of Object.entries(value))
      if (key !== 'extensions' && key !== 'extras') walk(child, collection, index, [...path, key]);
  };
  if (unknown.length > 0) {
    if (isRecord(json.extensions))
      for (const name of unknown) if (name in json.extensions) found.push(['', 0, [], name, json.extensions[name]]);
    for (const collection of CARRIED_COLLECTIONS) {
      const items = json[collection];
      if (Array.isArray(items)) items.forEach((item, i) => walk(item, collection, i, []));
    }
    const laidOut = LAID_OUT_AFRESH.filter((collection) => {
      const before = found.length;
      const items = json[collection];
      if (Array.isArray(items)) items.forEach((item, i) => walk(item, collection, i, []));
      const hit = found.length > before;
      found.length = before;
      return hit;
    });
    if (laidOut.length > 0)
      warnings.push(
        `extensions ${unknown.join(', ')} on ${laidOut.join(' and ')} are left out: they describe how the file's bytes are laid out, and the export lays them out afresh`,
      );
  }
  return found;
}

/** A pointer channel to carry: the source's animation and sampler index and the channel's JSON. */
interface PointerChannel {
  animation: number;
  sampler: number;
  channel: Json;
}

/**
 * The pointer channels the importer left out, of the animations kept; their samplers (and copies) are tagged. A
 * channel whose sampler is not written is reported.
 */
function tagPointerChannels(json: Json, sources: CarrySources, nodeCount: number, warnings: string[]): PointerChannel[] {
  const pointerChannels: PointerChannel[] = [];
  const animations = Array.isArray(json.animations) ? (json.animations as unknown[]) : [];
  animations.forEach((animation, a) => {
    if (!isRecord(animation) || !Array.isArray(animation.channels)) return;
    const pointers = (animation.channels as unknown[]).filter((channel): channel is Json => otherPointerOf(channel, nodeCount) !== null);
    const gone: string[] = [];
    for (const channel of pointers) {
      const sampler = sources.samplers[a]?.[channel.sampler as number];
      const copies = (sampler && sources.samplerCopies?.get(sampler)) ?? [];
      const live = [sampler, ...copies].filter((s): s is AnimationSampler => s !== undefined && !s.isDisposed());
      if (live.length === 0) {
        gone.push(otherPointerOf(channel, nodeCount) || '?');
        continue;
      }
      for (const s of live) s.setExtras({ ...s.getExtras(), [TAG]: `${a}/${String(channel.sampler)}` });
      pointerChannels.push({ animation: a, sampler: channel.sampler as number, channel });
    }
    if (gone.length > 0) {
      const name = typeof animation.name === 'string' && animation.name ? animation.name : `animation ${a}`;
      warnings.push(
        `animation "${name}" is not written as it was (its clip was edited or removed) and no clip was made from it, so its ${POINTER} channels (${gone.join(', ')}) go with it`,
      );
    }
  });
  return pointerChannels;
}

/** The samplers (by index) of the source's animation `a` that its pointer channels other than node TRS use. */
export function pointerSamplers(json: Json, a: number): number[] {
  const animation = Array.isArray(json.animations) ? (json.animations as unknown[])[a] : undefined;
  if (!isRecord(animation) || !Array.isArray(animation.channels)) return [];
  const found = new Set<number>();
  const nodeCount = nodeCountOf(json);
  for (const channel of animation.channels as unknown[])
    if (otherPointerOf(channel, nodeCount) !== null && isRecord(channel) && typeof channel.sampler === 'number') found.add(channel.sampler);
  return [...found];
}

/** A channel's index once the reader has taken out the pointer channels it does not pose with; null for one of those. */
function channelIndexAfterReading(json: Json, a: number, i: number): number | null {
  const animation = Array.isArray(json.animations) ? (json.animations as unknown[])[a] : undefined;
  const channels = isRecord(animation) && Array.isArray(animation.channels) ? (animation.channels as unknown[]) : [];
  const nodeCount = nodeCountOf(json);
  if (otherPointerOf(channels[i], nodeCount) !== null) return null;
  return i - channels.slice(0, i).filter((channel) => otherPointerOf(channel, nodeCount) !== null).length;
}

/** Takes the carry tag off a written object's extras (and the extras off when nothing else is in them). */
function untag(item: unknown, found: (tag: unknown) => void): void {
  if (!isRecord(item) || !isRecord(item.extras) || !(TAG in item.extras)) return;
  found(item.extras[TAG]);
  delete item.extras[TAG];
  if (Object.keys(item.extras).length === 0) delete item.extras;
}

/** An accessor's values, element by element (the stored values; normalized integers as stored fractions). */
export function accessorValues(accessor: Accessor): number[] {
  const values: number[] = [];
  const element: number[] = [];
  for (let i = 0; i < accessor.getCount(); i++) values.push(...accessor.getElement(i, element));
  return values;
}

function sameArray(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/**
 * Where textures and samplers went: the writer keeps images in order but writes one sampler per distinct setting
 * and one texture per distinct image and sampler, so those are found again by what they say.
 */
function renumbering(json: Json, out: Json): (collection: 'textures' | 'samplers', index: number) => number | undefined {
  const samplerKey = (sampler: unknown): string => {
    const o = isRecord(sampler) ? sampler : {};
    return JSON.stringify([o.magFilter ?? null, o.minFilter ?? null, o.wrapS ?? 10497, o.wrapT ?? 10497]);
  };
  const textureKey = (file: Json, texture: unknown): string => {
    const o = isRecord(texture) ? texture : {};
    const samplers = Array.isArray(file.samplers) ? file.samplers : [];
    return JSON.stringify([o.source ?? null, samplerKey(typeof o.sampler === 'number' ? samplers[o.sampler] : undefined)]);
  };
  return (collection, index) => {
    const before = json[collection];
    const after = out[collection];
    if (!Array.isArray(before) || !Array.isArray(after)) return undefined;
    const key = collection === 'samplers' ? samplerKey : (item: unknown) => textureKey(json, item);
    const outKey = collection === 'samplers' ? samplerKey : (item: unknown) => textureKey(out, item);
    const at = after.findIndex((item) => outKey(item) === key(before[index]));
    return at >= 0 ? at : undefined;
  };
}

/**
 * The pointer as it reads in the written file (textures and samplers renumbered), or undefined when the object it
 * points into is not there. The last step may be absent (a property at its default value is not written).
 */
function pointerInWritten(
  pointer: string,
  out: Json,
  written: (collection: 'textures' | 'samplers', index: number) => number | undefined,
): string | undefined {
  if (!pointer.startsWith('/')) return undefined;
  const steps = pointer
    .slice(1)
    .split('/')
    .map((step) => step.replace(/~1/g, '/').replace(/~0/g, '~'));
  if ((steps[0] === 'textures' || steps[0] === 'samplers') && steps.length > 1) {
    const at = written(steps[0], Number(steps[1]));
    if (at === undefined) return undefined;
    steps[1] = String(at);
  }
  if (['accessors', 'bufferViews', 'buffers', 'animations'].includes(steps[0])) return undefined;
  let at: unknown = out;
  for (const step of steps.slice(0, -1)) {
    if (Array.isArray(at)) at = /^\d+$/.test(step) ? at[Number(step)] : undefined;
    else at = isRecord(at) ? at[step] : undefined;
    if (at === undefined) return undefined;
  }
  if (!isRecord(at) && !Array.isArray(at)) return undefined;
  return '/' + steps.map((step) => step.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** A GLB with its JSON chunk changed by `edit` (the binary chunk stays as written); `file` names it in errors. */
export function patchGlbJson(glb: Uint8Array, edit: (json: Json) => void, file: string): Uint8Array {
  const { jsonBytes, bin } = parseGlb(glb, file);
  const json = parseJsonText(jsonBytes, file, true) as Json;
  const before = JSON.stringify(json);
  edit(json);
  return JSON.stringify(json) === before ? glb : writeGlb(json, bin ?? new Uint8Array(0));
}
