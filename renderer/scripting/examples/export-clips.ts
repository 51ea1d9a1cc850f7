// Exports every clip of the scene to its own GLB: NAME-CLIP.glb, one animation each, for engines that want a file
// per animation.
//
// Each file is the whole skinned asset with that one clip, written as File → Export glTF… writes it (the scene's
// max influences, float weights). Paths are relative to the working folder; writing elsewhere needs
// `--allow-write` headless.
//
// Arguments: the folder to write into (default the working folder), e.g.
//   rigwright run export-clips.ts --scene Fox.glb -- clips

const folder = args[0] ?? '.';
const summary = await rig.scene.summary();
if (summary.clips.length === 0) throw new Error(`${summary.name} has no clips to export`);
const base = summary.name.replace(/(\.rig)?\.[^.]+$/, '');

let done = 0;
for (const clip of summary.clips) {
  // A clip's name may hold characters a file name cannot, or be a pose file's name (walk.dmat).
  const file = `${folder}/${base}-${clip.name.replace(/\.(dmat|glb|gltf)$/i, '').replace(/[^\w.-]+/g, '_')}.glb`;
  const written = await rig.files.exportGltf(file, { clip: clip.name });
  print(`${written}: ${clip.name}, ${clip.frameCount} frames`);
  done++;
  rig.progress(done / summary.clips.length, clip.name);
}
