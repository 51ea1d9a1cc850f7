/**
 * glTF 2.0 Appendix C, written out in float64 for the tests, independently of workers/: the samplers (STEP, LINEAR
 * with SLERP along the shorter arc for rotations, CUBICSPLINE Hermite then normalised for rotations), the node
 * graph's world matrices at a time of an animation, and glTF skinning of the first skinned mesh (glTF 2.0 §3.7.3).
 */
import type { Accessor, Document, Node as GltfNode } from '@gltf-transform/core';

export type Vec = number[];

export function slerp(a: Vec, b: Vec, s: number): Vec {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  let bb = b;
  if (d < 0) {
    d = -d;
    bb = b.map((x) => -x);
  }
  if (d > 1 - 1e-12) return normalize(a.map((x, i) => (1 - s) * x + s * bb[i]));
  const theta = Math.acos(d);
  const k0 = Math.sin((1 - s) * theta) / Math.sin(theta);
  const k1 = Math.sin(s * theta) / Math.sin(theta);
  return a.map((x, i) => k0 * x + k1 * bb[i]);
}

export function normalize(q: Vec): Vec {
  const n = Math.hypot(...q);
  return q.map((x) => x / n);
}

export interface Sampler {
  times: number[];
  /** one element per output entry (CUBICSPLINE: in-tangent, value, out-tangent per key) */
  values: Vec[];
  interpolation: string;
}

/** A sampler's value at time t (glTF 2.0 Appendix C). */
export function sampleAt(sampler: Sampler, t: number, rotation: boolean): Vec {
  const { times, values, interpolation } = sampler;
  const cubic = interpolation === 'CUBICSPLINE';
  const value = (k: number): Vec => values[cubic ? 3 * k + 1 : k];
  const n = times.length;
  const done = (v: Vec): Vec => (rotation ? normalize(v) : v);
  if (t <= times[0]) return done(value(0));
  if (t >= times[n - 1]) return done(value(n - 1));
  let k = 0;
  while (times[k + 1] <= t) k++;
  const td = times[k + 1] - times[k];
  const s = (t - times[k]) / td;
  if (interpolation === 'STEP') return done(value(k));
  if (!cubic)
    return rotation ? slerp(normalize(value(k)), normalize(value(k + 1)), s) : value(k).map((x, i) => x + s * (value(k + 1)[i] - x));
  const s2 = s * s;
  const s3 = s2 * s;
  const b0 = values[3 * k + 2];
  const a1 = values[3 * (k + 1)];
  return done(
    value(k).map(
      (v0, i) =>
        (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * td * b0[i] + (-2 * s3 + 3 * s2) * value(k + 1)[i] + (s3 - s2) * td * a1[i],
    ),
  );
}

export type Mat = number[]; // 4×4 column-major

export function trs(t: Vec, q: Vec, s: Vec): Mat {
  const [x, y, z, w] = normalize(q);
  const r = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  const m = new Array<number>(16).fill(0);
  for (let c = 0; c < 3; c++) for (let row = 0; row < 3; row++) m[4 * c + row] = r[row][c] * s[c];
  m[12] = t[0];
  m[13] = t[1];
  m[14] = t[2];
  m[15] = 1;
  return m;
}

export function mul(a: Mat, b: Mat): Mat {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[4 * c + r] += a[4 * k + r] * b[4 * c + k];
  return out;
}

export const scalars = (accessor: Accessor): number[] => Array.from({ length: accessor.getCount() }, (_, i) => accessor.getScalar(i));
export const elements = (accessor: Accessor): Vec[] => Array.from({ length: accessor.getCount() }, (_, i) => accessor.getElement(i, []));

/** The document's world matrices of every node at time t of animation `a` (null: rest), by Appendix C. */
export function worldMatrices(doc: Document, a: number | null, t: number): Map<GltfNode, Mat> {
  const local = new Map<GltfNode, { t: Vec; r: Vec; s: Vec }>();
  for (const node of doc.getRoot().listNodes())
    local.set(node, { t: [...node.getTranslation()], r: [...node.getRotation()], s: [...node.getScale()] });
  const animation = a === null ? null : doc.getRoot().listAnimations()[a];
  for (const channel of animation?.listChannels() ?? []) {
    const sampler = channel.getSampler()!;
    const path = channel.getTargetPath() as 'translation' | 'rotation' | 'scale';
    const data: Sampler = {
      times: scalars(sampler.getInput()!),
      values: elements(sampler.getOutput()!),
      interpolation: sampler.getInterpolation(),
    };
    const value = sampleAt(data, t, path === 'rotation');
    const trsOf = local.get(channel.getTargetNode()!)!;
    if (path === 'translation') trsOf.t = value;
    else if (path === 'rotation') trsOf.r = value;
    else if (path === 'scale') trsOf.s = value;
  }
  const world = new Map<GltfNode, Mat>();
  const visit = (node: GltfNode, parent: Mat | null): void => {
    const { t: tr, r, s } = local.get(node)!;
    const m = parent ? mul(parent, trs(tr, r, s)) : trs(tr, r, s);
    world.set(node, m);
    for (const child of node.listChildren()) visit(child, m);
  };
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  for (const node of scene.listChildren()) visit(node, null);
  return world;
}

/** Distinct key times of animation `a`, sorted. */
export function fileKeyTimes(doc: Document, a: number): number[] {
  const all = doc
    .getRoot()
    .listAnimations()
    [a].listChannels()
    .flatMap((c) => scalars(c.getSampler()!.getInput()!));
  return [...new Set(all)].sort((x, y) => x - y);
}

/** glTF skinning of the document's first skinned mesh at time t, in float64 (Σ w_j G_j IBM_j v). */
export function fileSkinned(doc: Document, a: number | null, t: number): Float64Array {
  const world = worldMatrices(doc, a, t);
  const meshNode = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getMesh() && n.getSkin())!;
  const skin = meshNode.getSkin()!;
  const ibm = elements(skin.getInverseBindMatrices()!);
  const jointMatrices = skin.listJoints().map((joint, j) => mul(world.get(joint)!, ibm[j]));
  const out: number[] = [];
  for (const primitive of meshNode.getMesh()!.listPrimitives()) {
    const position = elements(primitive.getAttribute('POSITION')!);
    const js = elements(primitive.getAttribute('JOINTS_0')!);
    const ws = elements(primitive.getAttribute('WEIGHTS_0')!);
    position.forEach((p, v) => {
      const m = new Array<number>(16).fill(0);
      for (let k = 0; k < 4; k++) for (let e = 0; e < 16; e++) m[e] += ws[v][k] * jointMatrices[js[v][k]][e];
      out.push(
        m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
        m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
        m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
      );
    });
  }
  return Float64Array.from(out);
}

export function invertRigid(m: Mat): Mat {
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[4 * c + r] = m[4 * r + c];
  for (let r = 0; r < 3; r++) out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
  out[15] = 1;
  return out;
}
