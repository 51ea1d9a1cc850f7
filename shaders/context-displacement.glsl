// Per-vertex context-aware deformation (handout Eq. 7, as workers/posespace/context-skinning.ts computes it): the
// examples' rest-space displacements, weighted by the pose-space weights a_j(P), are added to the rest vertex
// BEFORE the skinning transform,
//   v = T(P, w) (v0 + sum_j a_j delta_j),
// so that at an example's own pose (a_j = 1, the others 0) the skinned vertex is T(P_j) unposed_j = the example.
// Adding after the transform would break that wherever T is not a translation.
//
// Compiled in with SKIN_CONTEXT_EXAMPLES = J > 0 (a constant, so the loop unrolls; changing J recompiles).
// contextDisplacementTexture: RGBA32F in the joint-texture layout of lbs.glsl (lbsFetch's mask-and-shift
// addressing); delta_j of vertex v is texel j * contextVertexCount + v (xyz; w unused), and the change of its normal
// n(unposed_j) - n(rest) is texel (J + j) * contextVertexCount + v. contextWeights: the J a_j. The blended normal
// change turns the rest normal toward the examples' before skinning; it needs no normalization here (the skinning
// and the fragment shader normalize).
// The includer puts lbs.glsl first.

#if SKIN_CONTEXT_EXAMPLES > 0
uniform highp sampler2D contextDisplacementTexture;
uniform int contextVertexCount;
uniform float contextWeights[SKIN_CONTEXT_EXAMPLES];

vec3 contextDisplacement(int vertexIndex) {
  vec3 displacement = vec3(0.0);
  for (int j = 0; j < SKIN_CONTEXT_EXAMPLES; j++) {
    displacement += contextWeights[j] * lbsFetch(contextDisplacementTexture, j * contextVertexCount + vertexIndex).xyz;
  }
  return displacement;
}

vec3 contextNormalChange(int vertexIndex) {
  vec3 change = vec3(0.0);
  for (int j = 0; j < SKIN_CONTEXT_EXAMPLES; j++) {
    change += contextWeights[j] * lbsFetch(contextDisplacementTexture, (SKIN_CONTEXT_EXAMPLES + j) * contextVertexCount + vertexIndex).xyz;
  }
  return change;
}
#endif
