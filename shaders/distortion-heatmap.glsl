// Per-vertex distortion heat map: the attribute skinDistortion is log2 of the one-ring's area against the rest
// pose (renderer/distortion.ts), 0 where the area is unchanged. A diverging blue–white–red map (Moreland 2009's
// "cool to warm" end points): blue = shrink, white = same, red = grow; ±1 (half or double the area) saturates.

vec3 distortionColor(float logAreaRatio) {
  float t = clamp(logAreaRatio, -1.0, 1.0);
  vec3 neutral = vec3(0.865, 0.865, 0.865);
  vec3 shrink = vec3(0.230, 0.299, 0.754);
  vec3 grow = vec3(0.706, 0.016, 0.150);
  // A smooth start keeps small changes readable without making the whole mesh look tinted.
  float s = sqrt(abs(t));
  return t < 0.0 ? mix(neutral, shrink, s) : mix(neutral, grow, s);
}
