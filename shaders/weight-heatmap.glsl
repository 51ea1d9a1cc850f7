// Weight heat map: the viridis colour map (perceptually uniform, readable by colour-blind viewers and in grey),
// as piecewise-linear interpolation between its values at t = 0, 1/8, …, 1 (sRGB). Optional iso-lines every
// 0.1 of weight, one screen pixel wide whatever the zoom: the distance to the nearest multiple of 0.1 is divided
// by the weight's screen-space rate of change (fwidth).
vec3 rwViridis(float t) {
  const vec3 c0 = vec3(0.267, 0.005, 0.329);
  const vec3 c1 = vec3(0.279, 0.176, 0.483);
  const vec3 c2 = vec3(0.231, 0.322, 0.545);
  const vec3 c3 = vec3(0.173, 0.448, 0.557);
  const vec3 c4 = vec3(0.128, 0.567, 0.551);
  const vec3 c5 = vec3(0.157, 0.683, 0.502);
  const vec3 c6 = vec3(0.369, 0.789, 0.383);
  const vec3 c7 = vec3(0.678, 0.864, 0.190);
  const vec3 c8 = vec3(0.993, 0.906, 0.144);
  float x = clamp(t, 0.0, 1.0) * 8.0;
  float i = min(floor(x), 7.0);
  float f = x - i;
  if (i < 0.5) return mix(c0, c1, f);
  if (i < 1.5) return mix(c1, c2, f);
  if (i < 2.5) return mix(c2, c3, f);
  if (i < 3.5) return mix(c3, c4, f);
  if (i < 4.5) return mix(c4, c5, f);
  if (i < 5.5) return mix(c5, c6, f);
  if (i < 6.5) return mix(c6, c7, f);
  return mix(c7, c8, f);
}

// 1 on an iso-line of `value` at multiples of `spacing`, fading to 0 one pixel away.
float rwIsoLine(float value, float spacing) {
  float scaled = value / spacing;
  float distanceToLine = abs(fract(scaled + 0.5) - 0.5);
  float width = max(fwidth(scaled), 1e-6);
  return 1.0 - smoothstep(0.5, 1.5, distanceToLine / width);
}

vec3 rwSrgbToLinear(vec3 c) {
  return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}
