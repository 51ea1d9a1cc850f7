/**
 * Input sanitizer, animations: samplers name accessors and an interpolation glTF knows; channels name a sampler of
 * their animation and a target with a path glTF knows (KHR_animation_pointer channels are checked before, by
 * gltf-extensions.ts).
 */
import { isObject, shown, withExtensions, type Fail, type Json, type SanitizeContext } from './sanitize-context.ts';

const INTERPOLATIONS = new Set(['LINEAR', 'STEP', 'CUBICSPLINE']);
const PATHS = new Set(['translation', 'rotation', 'scale', 'weights']);

/**
 * Checks every animation's samplers and channels.
 * @param ctx            the asset being sanitized
 * @param accessorCount  how many accessors the file has
 * @param nodeCount      how many nodes the file has
 * @returns the entries for glTF-Transform
 */
export function sanitizeAnimations(ctx: SanitizeContext, accessorCount: number, nodeCount: number): Json[] {
  const fail: Fail = ctx.fail;
  return ctx.array('animations').map((animation, a): Json => {
    const where = `/animations/${a}`;
    const samplers = animation.samplers;
    if (!Array.isArray(samplers)) fail(`${where}/samplers`, 'missing: an animation needs an array of samplers');
    ctx.tooLong(samplers as unknown[], `${where}/samplers`);
    (samplers as unknown[]).forEach((sampler, s) => {
      const at = `${where}/samplers/${s}`;
      if (!isObject(sampler)) fail(at, 'must be an object');
      const def = sampler;
      ctx.index(def.input, accessorCount, `${at}/input`, 'accessor');
      ctx.index(def.output, accessorCount, `${at}/output`, 'accessor');
      if (def.interpolation !== undefined && !INTERPOLATIONS.has(def.interpolation as string))
        fail(`${at}/interpolation`, `${shown(def.interpolation)} is not LINEAR, STEP or CUBICSPLINE`);
    });
    const channels = animation.channels;
    if (!Array.isArray(channels)) fail(`${where}/channels`, 'missing: an animation needs an array of channels');
    ctx.tooLong(channels as unknown[], `${where}/channels`);
    (channels as unknown[]).forEach((channel, c) => {
      const at = `${where}/channels/${c}`;
      if (!isObject(channel)) fail(at, 'must be an object');
      const def = channel;
      ctx.index(def.sampler, (samplers as unknown[]).length, `${at}/sampler`, 'sampler');
      if (!isObject(def.target)) fail(`${at}/target`, 'missing: a channel needs a target');
      const target = def.target;
      if (!PATHS.has(target.path as string))
        fail(`${at}/target/path`, `${shown(target.path)} is not translation, rotation, scale or weights`);
      ctx.optionalIndex(target, 'node', nodeCount, `${at}/target`, 'node');
    });
    return withExtensions(animation, ctx.keptExtensions(animation, where, { KHR_xmp_json_ld: ctx.xmp }));
  });
}
