/**
 * glTF's own skinning, evaluated independently of workers/formats/gltf-import.ts for the tests: node world matrices
 * come from glTF-Transform (Node.getWorldMatrix) after setting each animated property to its keyframe value, and
 * every vertex is Σ_i w_i · (globalTransform(joint_i) · inverseBindMatrix_i) · v (glTF 2.0 §3.7.3.3).
 * Also: the Khronos validator with its report printed when it finds anything.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Document, Node as GltfNode } from '@gltf-transform/core';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator') as {
  validateBytes(
    data: Uint8Array,
    options?: { externalResourceFunction?: (uri: string) => Promise<Uint8Array> },
  ): Promise<{
    issues: { numErrors: number; numWarnings: number; messages: { code: string; message: string; severity: number; pointer?: string }[] };
  }>;
};

/**
 * Asserts 0 errors and 0 warnings from the Khronos glTF validator; prints the issues otherwise.
 * @param source for a file exported in place, its source file: a warning the source gets too, with the same code at
 *               the same place (a skinned mesh node below another node, which the export keeps where it is), is the
 *               source's and allowed
 */
export async function assertValidGltf(
  bytes: Uint8Array,
  label: string,
  resources: Record<string, Uint8Array> = {},
  source?: Uint8Array,
): Promise<void> {
  const validate = (data: Uint8Array): ReturnType<typeof validator.validateBytes> =>
    validator.validateBytes(data, {
      externalResourceFunction: async (uri) => {
        const found = resources[decodeURIComponent(uri)];
        if (!found) throw new Error(`no resource ${uri}`);
        return found;
      },
    });
  const report = await validate(bytes);
  const where = (m: { code: string; pointer?: string }): string => `${m.code} ${m.pointer ?? ''}`;
  const sources = source ? new Set((await validate(source)).issues.messages.filter((m) => m.severity === 1).map(where)) : new Set<string>();
  const { numErrors, messages } = report.issues;
  const warnings = messages.filter((m) => m.severity === 1 && !sources.has(where(m))).length;
  const shown = messages
    .filter((m) => m.severity <= 1)
    .slice(0, 20)
    .map((m) => `  ${m.code} ${m.pointer ?? ''}: ${m.message}${sources.has(where(m)) ? " (the source's too)" : ''}`);
  assert.ok(numErrors === 0 && warnings === 0, `${label}: validator found ${numErrors} errors, ${warnings} warnings:\n${shown.join('\n')}`);
}

type Mat4 = number[];

function mul(a: Mat4, b: Mat4): Mat4 {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[4 * c + r] += a[4 * k + r] * b[4 * c + k];
  return out;
}

function slerp(a: number[], b: number[], t: number): number[] {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = d < 0 ? -1 : 1;
  d = Math.abs(d);
  let ka = 1 - t;
  let kb = t;
  if (d < 0.9999999) {
    const theta = Math.acos(d);
    ka = Math.sin((1 - t) * theta) / Math.sin(theta);
    kb = Math.sin(t * theta) / Math.sin(theta);
  }
  const q = a.map((x, i) => ka * x + s * kb * b[i]);
  const n = Math.hypot(...q);
  return q.map((x) => x / n);
}

function sample(times: ArrayLike<number>, values: ArrayLike<number>, width: number, time: number, rotation: boolean): number[] {
  const at = (k: number): number[] => Array.from({ length: width }, (_, c) => values[k * width + c]);
  const n = times.length;
  if (time <= times[0]) return at(0);
  if (time >= times[n - 1]) return at(n - 1);
  let k = 0;
  while (times[k + 1] < time) k++;
  const t = (time - times[k]) / (times[k + 1] - times[k]);
  return rotation ? slerp(at(k), at(k + 1), t) : at(k).map((x, i) => x + t * (at(k + 1)[i] - x));
}

/** The skinned nodes' vertices in scene order, as the importer merges them: depth-first, primitives in order. */
function skinnedNodes(doc: Document): GltfNode[] {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  const found: GltfNode[] = [];
  const visit = (node: GltfNode): void => {
    if (node.getMesh() && node.getSkin()) found.push(node);
    node.listChildren().forEach(visit);
  };
  scene.listChildren().forEach(visit);
  const skin = found[0].getSkin();
  return found.filter((node) => node.getSkin() === skin);
}

/**
 * Sets every animated node property of animation `animationIndex` (null: none) to its value at `time` seconds
 * (LINEAR and STEP; rotations by SLERP).
 * @returns a function that restores the document's node transforms
 */
export function applyAnimation(doc: Document, animationIndex: number | null, time: number): () => void {
  const saved = new Map<GltfNode, { t: number[]; r: number[]; s: number[] }>();
  for (const node of doc.getRoot().listNodes())
    saved.set(node, { t: [...node.getTranslation()], r: [...node.getRotation()], s: [...node.getScale()] });
  const animation = animationIndex === null ? null : doc.getRoot().listAnimations()[animationIndex];
  if (animationIndex !== null) assert.ok(animation, `no animation ${animationIndex}`);
  for (const channel of animation?.listChannels() ?? []) {
    const node = channel.getTargetNode();
    const sampler = channel.getSampler();
    const path = channel.getTargetPath();
    if (!node || !sampler) continue;
    assert.notEqual(sampler.getInterpolation(), 'CUBICSPLINE', 'reference evaluates LINEAR and STEP only');
    const times = Array.from(sampler.getInput()!.getArray() as ArrayLike<number>);
    const output = sampler.getOutput()!;
    const width = output.getElementSize();
    const values: number[] = [];
    for (let i = 0; i < output.getCount(); i++) values.push(...output.getElement(i, []));
    const value =
      sampler.getInterpolation() === 'STEP'
        ? sample(times, values, width, Math.max(...times.filter((t) => t <= time), times[0]), false)
        : sample(times, values, width, time, path === 'rotation');
    if (path === 'rotation') node.setRotation(value as [number, number, number, number]);
    if (path === 'translation') node.setTranslation(value as [number, number, number]);
    if (path === 'scale') node.setScale(value as [number, number, number]);
  }
  return () => {
    for (const [node, trs] of saved)
      node
        .setTranslation(trs.t as [number, number, number])
        .setRotation(trs.r as [number, number, number, number])
        .setScale(trs.s as [number, number, number]);
  };
}

/** A node's world position at `time` seconds of animation `animationIndex`, every channel applied. */
export function gltfNodeWorldPosition(doc: Document, animationIndex: number, time: number, node: GltfNode): [number, number, number] {
  const restore = applyAnimation(doc, animationIndex, time);
  const position = node.getWorldTranslation();
  restore();
  return [position[0], position[1], position[2]];
}

/**
 * Posed vertex positions of a glTF document (#V × 3, world space) at `time` seconds of animation `animationIndex`
 * (null: the rest pose), every channel applied. The document's node transforms are restored afterwards.
 */
export function gltfPosedPositions(doc: Document, animationIndex: number | null, time: number): Float64Array {
  const restore = applyAnimation(doc, animationIndex, time);
  const out: number[] = [];
  for (const meshNode of skinnedNodes(doc)) {
    const skin = meshNode.getSkin()!;
    const joints = skin.listJoints();
    const ibm = skin.getInverseBindMatrices();
    const jointMatrices = joints.map((joint, j) =>
      mul(Array.from(joint.getWorldMatrix()), ibm ? ibm.getElement(j, []) : [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),
    );
    for (const primitive of meshNode.getMesh()!.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')!;
      for (let v = 0; v < position.getCount(); v++) {
        const p = position.getElement(v, []);
        const m = new Array<number>(16).fill(0);
        for (let set = 0; primitive.getAttribute(`JOINTS_${set}`); set++) {
          const js = primitive.getAttribute(`JOINTS_${set}`)!.getElement(v, []);
          const ws = primitive.getAttribute(`WEIGHTS_${set}`)!.getElement(v, []);
          for (let k = 0; k < 4; k++) for (let e = 0; e < 16; e++) m[e] += ws[k] * jointMatrices[js[k]][e];
        }
        out.push(
          m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
          m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
        );
      }
    }
  }
  restore();
  return Float64Array.from(out);
}

/** Largest distance between corresponding points of two #V × 3 arrays. */
export function maxDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, 'point counts differ');
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) worst = Math.max(worst, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return worst;
}
