// The skinned position, unchanged: the render target is RGBA32F and blending is off.

varying vec3 vSkinnedPosition;

void main() {
  gl_FragColor = vec4(vSkinnedPosition, 1.0);
}
