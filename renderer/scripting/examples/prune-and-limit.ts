// Cleans the weights up for a game engine: drops tiny weights, then keeps at most 4 bones per vertex.
//
// Prune sets every unlocked weight below the threshold to 0 and renormalizes the vertex's weights; Limit keeps each
// vertex's 4 largest (locked bones are kept as they are). Both are the Paint menu's commands, so the result is the
// same as clicking them, and the whole run is one undo step.
//
// Arguments: the threshold (default 0.01) and the influences kept (default 4), e.g.
//   rigwright run prune-and-limit.ts --project body.rig.glb --save body.rig.glb -- 0.02 4

const threshold = args.length > 0 ? Number(args[0]) : 0.01;
const influences = args.length > 1 ? Number(args[1]) : 4;
if (!(threshold >= 0 && threshold <= 1)) throw new Error(`the threshold must be in [0, 1], not "${args[0]}"`);
if (![1, 2, 3, 4, 5, 6, 7, 8].includes(influences)) throw new Error(`the influences must be 1 … 8, not "${args[1]}"`);

/** How many (vertex, bone) weights are not zero. */
async function nonZeroWeights(): Promise<number> {
  const { values } = await rig.scene.weights();
  let count = 0;
  for (const value of values) if (value !== 0) count++;
  return count;
}

const before = await nonZeroWeights();
await rig.paint.prune(threshold);
// The scene's max influences: computed weights, painting and the glTF export keep it from now on.
await rig.bind.maxInfluences(influences as 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8);
await rig.paint.limit();
const after = await nonZeroWeights();
print(`non-zero weights: ${before} → ${after} (pruned below ${threshold}, at most ${influences} per vertex)`);
