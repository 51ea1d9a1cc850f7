// One colour per bone, for handle vertices and the dominant-bone view. Hues step by the golden ratio so that
// bones with neighbouring indices (often neighbouring on the body) get far-apart hues; saturation and value
// alternate in three bands so that bones 3, 6, 9… with similar hues still differ. Returned in sRGB.
vec3 rwHsvToRgb(vec3 c) {
  vec3 p = abs(fract(c.xxx + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0);
  return c.z * mix(vec3(1.0), clamp(p - 1.0, 0.0, 1.0), c.y);
}

vec3 rwBoneColor(float bone) {
  float hue = fract(0.07 + bone * 0.6180339887);
  float band = mod(bone, 3.0);
  float saturation = band < 0.5 ? 0.72 : (band < 1.5 ? 0.5 : 0.85);
  float value = band < 0.5 ? 0.95 : (band < 1.5 ? 0.85 : 0.72);
  return rwHsvToRgb(vec3(hue, saturation, value));
}

// Free (non-handle) vertices: a neutral grey close to the shaded material, so the handles stand out.
const vec3 RW_FREE_COLOR = vec3(0.46, 0.48, 0.52);
