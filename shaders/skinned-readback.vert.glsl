// Writes each skinned vertex position to one texel of a float render target: vertex id goes to pixel
// (id % width, id / width). Drawn as points without an index buffer, so gl_VertexID is the vertex index.
// The includer prepends lbs.glsl, dqs.glsl and skin-select.glsl.

uniform vec2 readbackSize;

varying vec3 vSkinnedPosition;

void main() {
  vec3 skinned = position;
  vec3 unusedNormal = vec3(0.0, 0.0, 1.0);
  skinVertex(gl_VertexID, skinned, unusedNormal);
  vSkinnedPosition = skinned;
  int width = int(readbackSize.x);
  vec2 pixel = vec2(float(gl_VertexID % width), float(gl_VertexID / width)) + 0.5;
  gl_Position = vec4(pixel / readbackSize * 2.0 - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
