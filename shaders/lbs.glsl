// Linear blend skinning in the vertex shader, the same formula as the CPU reference
// (workers/skinning/linear-blend-skinning.ts; Magnenat-Thalmann et al. 1988, course notes Eq. 3):
//   v' = v + sum_k w_k ((A_k - I) v + t_k)
// written around the identity so that the rest pose returns the rest mesh exactly and missing weight leaves a
// vertex in place. Normals use the cofactor matrix of the blended linear part L = I + sum_k w_k (A_k - I),
// which is det(L) L^-T: correct under non-uniform blends and never singular where L is invertible.
//
// Texture layout (workers/skinning/joint-texture-layout.ts): both textures are RGBA32F, 2^LBS_TEXTURE_WIDTH_LOG2
// texels per row, linear texel index i at (i % width, i / width), computed with a mask and a shift because integer
// division is slow on software rasterizers.
//   lbsJointTexture: bone b occupies texels 3b, 3b+1, 3b+2 = rows 0, 1, 2 of its 3x4 affine [A | t].
//   lbsInfluenceTexture: vertex v occupies LBS_TEXELS_PER_VERTEX texels from v * LBS_TEXELS_PER_VERTEX, each holding
//   (bone_a, weight_a, bone_b, weight_b); unused slots have weight 0.
// The includer defines LBS_TEXTURE_WIDTH_LOG2 and LBS_TEXELS_PER_VERTEX (a constant, so the loop unrolls).

uniform highp sampler2D lbsJointTexture;
uniform highp sampler2D lbsInfluenceTexture;

// The blended affine map minus the identity, as three rows (x, y, z | translation).
struct LbsBlend {
  vec4 row0;
  vec4 row1;
  vec4 row2;
};

vec4 lbsFetch(highp sampler2D tex, int linearIndex) {
  return texelFetch(tex, ivec2(linearIndex & ((1 << LBS_TEXTURE_WIDTH_LOG2) - 1), linearIndex >> LBS_TEXTURE_WIDTH_LOG2), 0);
}

// Unused slots (bone 0, weight 0) are accumulated too: a branch per slot costs more than the fetches it saves.
void lbsAccumulate(inout LbsBlend blend, float boneValue, float weight) {
  int first = 3 * int(boneValue + 0.5);
  blend.row0 += weight * (lbsFetch(lbsJointTexture, first) - vec4(1.0, 0.0, 0.0, 0.0));
  blend.row1 += weight * (lbsFetch(lbsJointTexture, first + 1) - vec4(0.0, 1.0, 0.0, 0.0));
  blend.row2 += weight * (lbsFetch(lbsJointTexture, first + 2) - vec4(0.0, 0.0, 1.0, 0.0));
}

// Sum of w_k [A_k - I | t_k] over the influences of one vertex (gl_VertexID for indexed and array draws).
LbsBlend lbsBlend(int vertexIndex) {
  LbsBlend blend = LbsBlend(vec4(0.0), vec4(0.0), vec4(0.0));
  int start = vertexIndex * LBS_TEXELS_PER_VERTEX;
  for (int i = 0; i < LBS_TEXELS_PER_VERTEX; i++) {
    vec4 pair = lbsFetch(lbsInfluenceTexture, start + i);
    lbsAccumulate(blend, pair.x, pair.y);
    lbsAccumulate(blend, pair.z, pair.w);
  }
  return blend;
}

vec3 lbsPosition(LbsBlend blend, vec3 v) {
  vec4 h = vec4(v, 1.0);
  return v + vec3(dot(blend.row0, h), dot(blend.row1, h), dot(blend.row2, h));
}

vec3 lbsNormal(LbsBlend blend, vec3 n) {
  vec3 a = blend.row0.xyz + vec3(1.0, 0.0, 0.0);
  vec3 b = blend.row1.xyz + vec3(0.0, 1.0, 0.0);
  vec3 c = blend.row2.xyz + vec3(0.0, 0.0, 1.0);
  // Rows of cof(L) are b x c, c x a, a x b when a, b, c are the rows of L.
  vec3 m = vec3(dot(cross(b, c), n), dot(cross(c, a), n), dot(cross(a, b), n));
  float len = length(m);
  return len > 0.0 ? m / len : n;
}
