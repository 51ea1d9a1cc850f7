/**
 * Input sanitizer, the scene graph: cameras (one that is not sound is left out with a notice: cameras are not part of
 * a rig), nodes (references, finite transforms, a forest: one parent each and no cycles), skins (distinct joint nodes,
 * inverse bind matrices of floats) and scenes (roots only, each once).
 */
import {
  componentWords,
  isIndex,
  isObject,
  shown,
  withExtensions,
  type Fail,
  type Json,
  type SanitizeContext,
} from './sanitize-context.ts';

/** The cameras as kept. */
export interface SanitizedCameras {
  /** the file's camera count */
  count: number;
  /** each camera's index among those kept, −1 for one left out */
  cameraIndex: Int32Array;
  /** the entries for glTF-Transform */
  outCameras: Json[];
}

/** The nodes as checked. */
export interface SanitizedNodes {
  /** the entries for glTF-Transform */
  outNodes: Json[];
  /** each node's parent, −1 for a root */
  parent: Int32Array;
}

/** Why a camera is not sound, or undefined when it is. */
function cameraProblem(camera: Json): string | undefined {
  const type = camera.type;
  if (type !== 'perspective' && type !== 'orthographic') return `its type ${shown(type)} is not perspective or orthographic`;
  const def = camera[type];
  if (!isObject(def)) return `a ${type} camera needs its ${type} object`;
  const required = type === 'perspective' ? ['yfov', 'znear'] : ['xmag', 'ymag', 'znear', 'zfar'];
  for (const key of [...required, 'zfar', 'aspectRatio']) {
    if (def[key] === undefined ? required.includes(key) : !Number.isFinite(def[key]))
      return `its ${type}.${key} is ${shown(def[key])}, not a finite number`;
  }
  return undefined;
}

/** Keeps the sound cameras; each one left out is reported in a notice. */
export function sanitizeCameras(ctx: SanitizeContext): SanitizedCameras {
  const cameras = ctx.array('cameras');
  const cameraIndex = new Int32Array(cameras.length).fill(-1);
  const outCameras: Json[] = [];
  cameras.forEach((camera, c) => {
    const problem = cameraProblem(camera);
    if (problem) {
      ctx.notices?.push(`camera ${c} is left out: ${problem} (/cameras/${c})`);
      return;
    }
    cameraIndex[c] = outCameras.length;
    outCameras.push(camera);
  });
  return { count: cameras.length, cameraIndex, outCameras };
}

/** One node: references, transforms, children (each given this node as its parent); the entry for glTF-Transform. */
function sanitizeNode(
  ctx: SanitizeContext,
  cameras: SanitizedCameras,
  counts: { meshes: number; skins: number },
  nodes: Json[],
  parent: Int32Array,
  n: number,
): Json {
  const fail: Fail = ctx.fail;
  const node = nodes[n];
  const where = `/nodes/${n}`;
  ctx.optionalIndex(node, 'mesh', counts.meshes, where, 'mesh');
  ctx.optionalIndex(node, 'skin', counts.skins, where, 'skin');
  ctx.numbers(node, 'translation', 3, where);
  ctx.numbers(node, 'rotation', 4, where);
  ctx.numbers(node, 'scale', 3, where);
  ctx.numbers(node, 'matrix', 16, where);
  if (Array.isArray(node.rotation) && !(Math.hypot(...(node.rotation as number[])) > 0))
    fail(`${where}/rotation`, 'a zero quaternion is not a rotation');
  if (node.children !== undefined) {
    if (!Array.isArray(node.children)) fail(`${where}/children`, 'must be an array of node indices');
    (node.children as unknown[]).forEach((child, k) => {
      const c = ctx.index(child, nodes.length, `${where}/children/${k}`, 'node');
      if (c === n) fail(`${where}/children/${k}`, `node ${n} names itself as its child`);
      if (parent[c] >= 0) fail(`${where}/children/${k}`, `node ${c} is already a child of node ${parent[c]} (a node has one parent)`);
      parent[c] = n;
    });
  }
  const { camera, ...rest } = node;
  const kept =
    camera !== undefined && isIndex(camera, cameras.count) && cameras.cameraIndex[camera] >= 0
      ? { ...rest, camera: cameras.cameraIndex[camera] }
      : rest;
  if (camera !== undefined && !isIndex(camera, cameras.count))
    ctx.notices?.push(`node ${n}'s camera ${shown(camera)} is left out: the file has ${cameras.count} cameras (${where}/camera)`);
  return withExtensions(
    kept,
    ctx.keptExtensions(node, where, {
      KHR_lights_punctual: (def, at) => {
        ctx.index(def.light, ctx.lightCount, `${at}/light`, 'light');
      },
      KHR_node_visibility: (def, at) => {
        if (def.visible !== undefined && typeof def.visible !== 'boolean') fail(`${at}/visible`, 'must be true or false');
      },
      KHR_xmp_json_ld: ctx.xmp,
    }),
  );
}

/**
 * Checks the nodes (sanitizeNode) and that their hierarchy has no cycle.
 * @param ctx      the asset being sanitized
 * @param nodes    the file's nodes (ctx.array('nodes'))
 * @param cameras  the cameras as kept
 * @param counts   how many meshes and skins the file has
 */
export function sanitizeNodes(
  ctx: SanitizeContext,
  nodes: Json[],
  cameras: SanitizedCameras,
  counts: { meshes: number; skins: number },
): SanitizedNodes {
  const parent = new Int32Array(nodes.length).fill(-1);
  const outNodes = nodes.map((_, n) => sanitizeNode(ctx, cameras, counts, nodes, parent, n));
  // With one parent each, a cycle is a walk up that never reaches a root.
  const state = new Uint8Array(nodes.length); // 0 unknown, 1 on the current walk, 2 reaches a root
  for (let n = 0; n < nodes.length; n++) {
    let at = n;
    while (at >= 0 && state[at] === 0) {
      state[at] = 1;
      at = parent[at];
    }
    if (at >= 0 && state[at] === 1) ctx.fail(`/nodes/${at}/children`, `the node hierarchy has a cycle through node ${at}`);
    for (let k = n; k >= 0 && state[k] === 1; k = parent[k]) state[k] = 2;
  }
  return { outNodes, parent };
}

/**
 * Checks the skins: a non-empty list of distinct joint nodes, inverse bind matrices of floats (glTF 2.0 §5.26: no
 * extension quantizes them), the skeleton node.
 * @param skins      the file's skins (ctx.array('skins'))
 * @param accessors  the accessors as checked
 * @param nodeCount  how many nodes the file has
 * @returns the skins, as written
 */
export function sanitizeSkins(ctx: SanitizeContext, skins: Json[], accessors: Json[], nodeCount: number): Json[] {
  const fail: Fail = ctx.fail;
  skins.forEach((skin, s) => {
    const where = `/skins/${s}`;
    if (!Array.isArray(skin.joints) || skin.joints.length === 0) fail(`${where}/joints`, 'missing: a skin needs an array of joint nodes');
    const seen = new Set<number>();
    (skin.joints as unknown[]).forEach((joint, j) => {
      const n = ctx.index(joint, nodeCount, `${where}/joints/${j}`, 'node');
      if (seen.has(n)) fail(`${where}/joints/${j}`, `node ${n} is listed twice as a joint`);
      seen.add(n);
    });
    ctx.optionalIndex(skin, 'inverseBindMatrices', accessors.length, where, 'accessor');
    if (skin.inverseBindMatrices !== undefined) {
      const ibm = accessors[skin.inverseBindMatrices as number];
      if (ibm.componentType !== 5126 || ibm.normalized === true)
        fail(
          `${where}/inverseBindMatrices`,
          `the inverse bind matrices hold ${componentWords(`${ibm.componentType as number}${ibm.normalized === true ? 'n' : ''}`)} (accessor ${skin.inverseBindMatrices as number}); glTF allows floats only`,
        );
    }
    ctx.optionalIndex(skin, 'skeleton', nodeCount, where, 'node');
  });
  return skins;
}

/**
 * Checks the scenes (their nodes are roots, each listed once) and the default scene's index.
 * @param parent  each node's parent (sanitizeNodes)
 * @returns the entries for glTF-Transform
 */
export function sanitizeScenes(ctx: SanitizeContext, parent: Int32Array): Json[] {
  const fail: Fail = ctx.fail;
  const scenes = ctx.array('scenes');
  const outScenes = scenes.map((scene, s): Json => {
    const where = `/scenes/${s}`;
    const kept = withExtensions(scene, ctx.keptExtensions(scene, where, { KHR_xmp_json_ld: ctx.xmp }));
    if (scene.nodes === undefined) return kept;
    if (!Array.isArray(scene.nodes)) fail(`${where}/nodes`, 'must be an array of node indices');
    const seen = new Set<number>();
    (scene.nodes as unknown[]).forEach((node, k) => {
      const n = ctx.index(node, parent.length, `${where}/nodes/${k}`, 'node');
      if (parent[n] >= 0) fail(`${where}/nodes/${k}`, `node ${n} is a child of node ${parent[n]}, not a root`);
      if (seen.has(n)) fail(`${where}/nodes/${k}`, `node ${n} is listed twice`);
      seen.add(n);
    });
    return kept;
  });
  if (ctx.root.scene !== undefined) ctx.index(ctx.root.scene, scenes.length, '/scene', 'scene');
  return outScenes;
}
