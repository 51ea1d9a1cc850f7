// One entry point for the skinning methods, chosen at compile time by SKIN_METHOD (see renderer/skinned-mesh.ts):
//   0  linear blend skinning (lbs.glsl)
//   1  dual quaternion skinning (dqs.glsl)
//   2  weight blended: per-vertex lerp of the LBS and DQS results by the attribute skinBlend (0 = LBS, 1 = DQS),
//      normals lerped then renormalized — the same as workers/skinning/weight-blended-skinning.ts
//   3  streamed: the position and normal attributes already hold the posed mesh (per-face skinning, solved on
//      the CPU), so the vertex passes through unchanged
// With SKIN_CONTEXT_EXAMPLES > 0 (context-displacement.glsl) the examples' weighted displacements move the rest
// vertex first, for every method but streamed: v = T(P, w) (v0 + sum_j a_j delta_j).
// The includer puts lbs.glsl, dqs.glsl and context-displacement.glsl first.

#if SKIN_METHOD == 2
attribute float skinBlend;
#endif

void skinVertex(int vertexIndex, inout vec3 position, inout vec3 normal) {
#if SKIN_CONTEXT_EXAMPLES > 0 && SKIN_METHOD != 3
  position += contextDisplacement(vertexIndex);
  normal += contextNormalChange(vertexIndex);
#endif
#if SKIN_METHOD == 0
  LbsBlend lbs = lbsBlend(vertexIndex);
  normal = lbsNormal(lbs, normal);
  position = lbsPosition(lbs, position);
#elif SKIN_METHOD == 1
  DqsBlend dqs = dqsBlend(vertexIndex);
  normal = dqsNormal(dqs, normal);
  position = dqsPosition(dqs, position);
#elif SKIN_METHOD == 2
  LbsBlend lbs = lbsBlend(vertexIndex);
  DqsBlend dqs = dqsBlend(vertexIndex);
  vec3 n = mix(lbsNormal(lbs, normal), dqsNormal(dqs, normal), skinBlend);
  float len = length(n);
  normal = len > 0.0 ? n / len : normal;
  position = mix(lbsPosition(lbs, position), dqsPosition(dqs, position), skinBlend);
#endif
}
