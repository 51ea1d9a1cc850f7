// Binds the skeleton with automatic handles and the uniform Laplacian.
//
// Each bone takes as its handles the vertices within a cylinder around it (radius: a fraction of the mesh's
// bounding-box diagonal), then harmonic weights are solved with the uniform (graph) Laplacian, which copes with
// meshes whose triangles are too thin or badly shaped for the cotangent one. The result is one undo step.
//
// Arguments: the cylinder radius as a fraction of the diagonal (default: the Bind panel's, 0.04 unless the project
// sets another), e.g.
//   rigwright run bind-cylinder-uniform.ts --scene hand.off hand.tgf --save hand.rig.glb -- 0.08

const radiusFraction = args.length > 0 ? Number(args[0]) : undefined;
if (radiusFraction !== undefined && !(radiusFraction >= 0.001 && radiusFraction <= 1))
  throw new Error(`the radius must be a fraction from 0.001 to 1, not "${args[0]}"`);

const before = await rig.scene.summary();
print(`${before.name}: ${before.vertexCount} vertices, ${before.boneCount} bones`);

// The options apply to this computation alone; bind.options would make them the scene's for later ones too.
await rig.bind.compute({ source: 'cylinder', laplacian: 'uniform', ...(radiusFraction !== undefined ? { radiusFraction } : {}) });

const after = await rig.scene.summary();
print(`weights: ${after.weightsSource}; ${after.handleCount} handle vertices`);

// Bones the cylinders missed get no weight: say which, so the radius can be raised.
const handles = await rig.scene.handles();
const bones = await rig.scene.bones();
const perBone = new Array<number>(bones.length).fill(0);
for (const bone of handles) if (bone >= 0) perBone[bone]++;
const missed = bones.filter((bone) => perBone[bone.index] === 0).map((bone) => bone.name);
if (missed.length > 0) console.warn(`no handle vertices for ${missed.join(', ')}: try a larger radius`);
