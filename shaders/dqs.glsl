// Dual quaternion skinning by dual quaternion linear blending, DLB (Kavan et al. 2008, Eq. 11 and Algorithm 1),
// the same formula as the CPU reference (workers/skinning/dual-quaternion-skinning.ts):
//   b = sum_k w_k (+-q_k),  c0 = b0 / |b0| = (d0, a0),  ce = be / |b0| = (de, ae),
//   v' = v + 2 d0 x (d0 x v + a0 v) + 2 (a0 de - ae d0 + d0 x de)
// i.e. rotation by the cross-product form and translation as the vector part of 2 ce c0*. Normals are rotated
// by c0. A blended real part of exactly zero keeps the vertex (and normal) where the first phase put it.
//
// Antipodality: with DQS_PER_VERTEX_SIGNS 1, Algorithm 2 in the loop (an influence is negated when its real part
// points away from the vertex's first influence, the strongest; weightless slots do not matter); with 0, the
// signs are used as packed, aligned per bone along the skeleton beforehand (Sec. 4.1).
//
// Non-rigid joints (Sec. 4.2), compiled in with DQS_NON_RIGID 1: a first phase moves the rest vertex by the
// linearly blended scale/shear K = I + sum_k w_k (K_k - I); the normal goes through cof(K), keeping its length.
//
// Texture layout (workers/skinning/joint-texture-layout.ts): dqsTexture holds 5 texels per bone from 5b: real
// part, dual part, then the three rows of the first-phase 3x4 [S | c - S c]. The influence texture and the
// mask-and-shift addressing are lbs.glsl's (which the includer puts first).

uniform highp sampler2D dqsTexture;

struct DqsBlend {
  vec4 real;
  vec4 dual;
  // first-phase scale/shear minus the identity, three rows
  vec4 row0;
  vec4 row1;
  vec4 row2;
};

void dqsAccumulate(inout DqsBlend blend, vec4 reference, float boneValue, float weight) {
  int first = 5 * int(boneValue + 0.5);
  vec4 real = lbsFetch(dqsTexture, first);
  vec4 dual = lbsFetch(dqsTexture, first + 1);
#if DQS_PER_VERTEX_SIGNS
  float signedWeight = dot(reference, real) < 0.0 ? -weight : weight;
#else
  float signedWeight = weight;
#endif
  blend.real += signedWeight * real;
  blend.dual += signedWeight * dual;
#if DQS_NON_RIGID
  blend.row0 += weight * (lbsFetch(dqsTexture, first + 2) - vec4(1.0, 0.0, 0.0, 0.0));
  blend.row1 += weight * (lbsFetch(dqsTexture, first + 3) - vec4(0.0, 1.0, 0.0, 0.0));
  blend.row2 += weight * (lbsFetch(dqsTexture, first + 4) - vec4(0.0, 0.0, 1.0, 0.0));
#endif
}

DqsBlend dqsBlend(int vertexIndex) {
  DqsBlend blend = DqsBlend(vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  int start = vertexIndex * LBS_TEXELS_PER_VERTEX;
  // Influences are sorted strongest first, so slot 0 is the CPU reference's "first influence with weight".
  vec4 reference = lbsFetch(dqsTexture, 5 * int(lbsFetch(lbsInfluenceTexture, start).x + 0.5));
  for (int i = 0; i < LBS_TEXELS_PER_VERTEX; i++) {
    vec4 pair = lbsFetch(lbsInfluenceTexture, start + i);
    dqsAccumulate(blend, reference, pair.x, pair.y);
    dqsAccumulate(blend, reference, pair.z, pair.w);
  }
  return blend;
}

vec3 dqsFirstPhase(DqsBlend blend, vec3 v) {
#if DQS_NON_RIGID
  vec4 h = vec4(v, 1.0);
  return v + vec3(dot(blend.row0, h), dot(blend.row1, h), dot(blend.row2, h));
#else
  return v;
#endif
}

vec3 dqsPosition(DqsBlend blend, vec3 rest) {
  vec3 v = dqsFirstPhase(blend, rest);
  float n2 = dot(blend.real, blend.real);
  if (n2 == 0.0) return v;
  float inv = inversesqrt(n2);
  vec3 d = blend.real.xyz * inv;
  float a = blend.real.w * inv;
  vec3 de = blend.dual.xyz * inv;
  float ae = blend.dual.w * inv;
  return v + 2.0 * cross(d, cross(d, v) + a * v) + 2.0 * (a * de - ae * d + cross(d, de));
}

vec3 dqsNormal(DqsBlend blend, vec3 n) {
#if DQS_NON_RIGID
  vec3 r0 = blend.row0.xyz + vec3(1.0, 0.0, 0.0);
  vec3 r1 = blend.row1.xyz + vec3(0.0, 1.0, 0.0);
  vec3 r2 = blend.row2.xyz + vec3(0.0, 0.0, 1.0);
  vec3 m = vec3(dot(cross(r1, r2), n), dot(cross(r2, r0), n), dot(cross(r0, r1), n));
  float len = length(m);
  if (len > 0.0) n = m * (length(n) / len);
#endif
  float n2 = dot(blend.real, blend.real);
  if (n2 == 0.0) return n;
  float inv = inversesqrt(n2);
  vec3 d = blend.real.xyz * inv;
  float a = blend.real.w * inv;
  return n + 2.0 * cross(d, cross(d, n) + a * n);
}
