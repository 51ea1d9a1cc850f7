/**
 * What the source says, said as the source says it. glTF-Transform's writer spells some values its own way: it writes
 * defaults the source left out (a sampler's "LINEAR", a primitive's mode 4), leaves out defaults the source wrote (an
 * emissive factor of [0, 0, 0], a material's other defaults), writes accessor bounds (min, max) for positions only and
 * buffer view targets by use. None of that changes what the file means, but a no-op export should not change the file
 * either: for the objects the export kept (same index in source and output), such values are put back as the source has them, and an accessor the export did not touch gets the
 * source's bounds and its buffer view's target, name and extras back (found again by a tag in its extras, put there
 * before writing and taken off after).
 */
import type { Accessor } from '@gltf-transform/core';

type Json = Record<string, unknown>;

/** The extras key that finds a source accessor again in the written JSON. */
const TAG = 'rigwrightSource';

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/**
 * Tags the source's accessors that are still in the Document (as read), so that restoreSpelling finds them.
 * @param accessors  the Document's accessors right after reading, in file order
 */
export function tagSourceAccessors(accessors: readonly Accessor[]): void {
  accessors.forEach((accessor, index) => {
    if (accessor.isDisposed()) return;
    accessor.setExtras({ ...accessor.getExtras(), [TAG]: index });
  });
}

/**
 * Puts the source's spelling back into the written JSON (see the module comment) and takes the tags off.
 * @param json        the written JSON, changed in place
 * @param sourceJson  the source's JSON
 */
export function restoreSpelling(json: Json, sourceJson: Json): void {
  const sourceAccessors = list(sourceJson.accessors);
  for (const accessor of list(json.accessors)) {
    const extras = accessor.extras;
    if (!isRecord(extras) || typeof extras[TAG] !== 'number') continue;
    const source = sourceAccessors[extras[TAG]];
    const { [TAG]: _tag, ...rest } = extras;
    if (Object.keys(rest).length > 0) accessor.extras = rest;
    else delete accessor.extras;
    if (!source) continue;
    for (const key of ['min', 'max'] as const) {
      if (source[key] !== undefined) accessor[key] = source[key];
      else delete accessor[key];
    }
    restoreView(list(json.bufferViews)[accessor.bufferView as number], list(sourceJson.bufferViews)[source.bufferView as number]);
  }
  list(json.animations).forEach((animation, a) => {
    const sourceSamplers = list(list(sourceJson.animations)[a]?.samplers);
    list(animation.samplers).forEach((sampler, s) => {
      if (sourceSamplers[s] && sourceSamplers[s].interpolation === undefined && sampler.interpolation === 'LINEAR')
        delete sampler.interpolation;
    });
  });
  list(json.meshes).forEach((mesh, m) => {
    const sourcePrimitives = list(list(sourceJson.meshes)[m]?.primitives);
    list(mesh.primitives).forEach((primitive, p) => {
      if (sourcePrimitives[p] && sourcePrimitives[p].mode === undefined && primitive.mode === 4) delete primitive.mode;
    });
  });
  list(json.materials).forEach((material, m) => {
    const source = list(sourceJson.materials)[m];
    if (source && source.name === material.name) restoreDefaults(material, source);
  });
  list(json.samplers).forEach((sampler, k) => {
    const source = list(sourceJson.samplers)[k];
    for (const key of ['wrapS', 'wrapT'] as const) if (source && source[key] === undefined && sampler[key] === REPEAT) delete sampler[key];
  });
}

/**
 * A written buffer view holding a kept accessor's data takes its source view's target hint (glTF-Transform writes
 * ARRAY_BUFFER or ELEMENT_ARRAY_BUFFER by use, where the source may have none), name and extras.
 */
function restoreView(view: Json | undefined, source: Json | undefined): void {
  if (!view || !source) return;
  if (source.target !== undefined) view.target = source.target;
  else delete view.target;
  for (const key of ['name', 'extras'] as const) if (source[key] !== undefined) view[key] = source[key];
}

/** glTF's REPEAT wrap mode, a sampler's default. */
const REPEAT = 10497;

/** Material values that are glTF's defaults (glTF 2.0 §5.19, §5.20, §5.22): a writer may leave them out. */
const MATERIAL_DEFAULTS: Record<string, unknown> = {
  baseColorFactor: [1, 1, 1, 1],
  metallicFactor: 1,
  roughnessFactor: 1,
  emissiveFactor: [0, 0, 0],
  alphaMode: 'OPAQUE',
  alphaCutoff: 0.5,
  doubleSided: false,
  texCoord: 0,
  scale: 1,
  strength: 1,
};

/** Puts back, at every depth, the defaults `source` writes and `out` leaves out. */
function restoreDefaults(out: Json, source: Json): void {
  for (const [key, value] of Object.entries(source)) {
    if (key === 'extensions' || key === 'extras') continue;
    const written = out[key];
    if (written === undefined && key in MATERIAL_DEFAULTS && JSON.stringify(value) === JSON.stringify(MATERIAL_DEFAULTS[key]))
      out[key] = value;
    else if (isRecord(value) && isRecord(written)) restoreDefaults(written, value);
  }
}
