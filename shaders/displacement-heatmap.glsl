// Sequential heat map for magnitudes (the examples' displacement |sum_j a_j delta_j|, or the distance to an example
// at its own pose), in the style of distortion-heatmap.glsl: the attribute skinDistortion holds t in [0, 1]
// (0 = none, 1 = the map's full scale, saturating), coloured neutral grey → yellow → red, so an untouched surface
// reads as the plain shaded mesh and the largest values stand out.

vec3 magnitudeColor(float t) {
  float s = clamp(t, 0.0, 1.0);
  vec3 neutral = vec3(0.865, 0.865, 0.865);
  vec3 middle = vec3(0.980, 0.780, 0.250);
  vec3 high = vec3(0.706, 0.016, 0.150);
  // A square root start, like the distortion map: small values are visible without tinting everything.
  float u = sqrt(s);
  return u < 0.5 ? mix(neutral, middle, 2.0 * u) : mix(middle, high, 2.0 * u - 1.0);
}
