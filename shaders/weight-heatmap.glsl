// Weight heat map helpers: the colour map itself (rwViridis) is generated from renderer/view/colour-maps.ts, which
// the legend samples too. Optional iso-lines every 0.1 of weight, one screen pixel wide whatever the zoom: the
// distance to the nearest multiple of 0.1 is divided by the weight's screen-space rate of change (fwidth).

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
