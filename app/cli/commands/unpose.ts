/** `rigwright unpose`: an example shape taken back to the rest pose (course handout Sec. 8.1.1 and 8.2.1). */
import { writeObj } from '../../../workers/formats/obj.ts';
import { dualQuatsFromRigidMatrices } from '../../../workers/math/dual-quaternion.ts';
import { forwardKinematics } from '../../../workers/rig/forward-kinematics.ts';
import { alignDualQuaternionSigns } from '../../../workers/skinning/align-dual-quaternion-signs.ts';
import { DUAL_QUATERNION_SKINNING_DEFAULTS } from '../../../workers/skinning/dual-quaternion-skinning.ts';
import { INFLUENCE_DEFAULTS, influencesFromWeights } from '../../../workers/skinning/influences.ts';
import { UNPOSE_DEFAULTS, unposeExample } from '../../../workers/posespace/unpose.ts';
import { outputExtension, readBoundRig, required, skinningOptions, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { describeSingular, readExample } from '../example-input.ts';
import { readPerFaceSetup, unposeExamplePerFace } from '../per-face-input.ts';

export const unposeCommand: CliCommand = {
  name: 'unpose',
  summary: 'an example shape taken back to the rest pose (per-vertex LBS or DQS, or per-face)',
  usage: `Usage: rigwright unpose --mesh M.obj --skeleton S.tgf --weights W.dmat --example E.obj --example-pose E.dmat
                        [--method lbs|dqs|perface] [--handles H.dmat] [--influences K]
                        [--antipodality per-vertex|per-bone] --out U.obj

Writes the unposed example S̄: each vertex of the example taken back through the inverse of the transform the
skinning method gives it at the example's pose, so that posing S̄ at that pose returns the example. Its
difference to the rest mesh is the example's displacement (what context skinning adds before skinning).

  --mesh FILE          rest mesh, .obj or .off
  --skeleton FILE      TGF skeleton
  --weights FILE       DMAT skinning weights, #vertices × #bones
  --example FILE       the example shape: the rest mesh's vertices and triangles, sculpted at its pose
  --example-pose FILE  DMAT pose of the example: one frame of B relative rotations (3·B × 3) or 4B × 1 quaternions
  --method M           lbs: inverse of each vertex's blended LBS matrix (the default); vertices whose blended
                       matrix is near-singular (condition number > ${UNPOSE_DEFAULTS.maxCondition}) keep the rest position and are reported
                       dqs: inverse of each vertex's blended dual quaternion (a rigid motion, inverted exactly)
                       perface: each triangle rotated back by its face's blended rotation, Poisson-stitched,
                       then refined until per-face skinning of S̄ at the pose returns the example
  --handles FILE       DMAT handles, #vertices × 1 (bone index or -1); required by perface
  --antipodality A     dqs signs: per-vertex or per-bone; default ${DUAL_QUATERNION_SKINNING_DEFAULTS.antipodality}
  --influences K       keep the K largest weights per vertex, renormalized; 0 or "all" keeps all; default ${INFLUENCE_DEFAULTS.maxInfluences}
  --out FILE           output, .obj
  -h, --help           this help
`,
  options: {
    mesh: 'string',
    skeleton: 'string',
    weights: 'string',
    example: 'string',
    'example-pose': 'string',
    method: 'string',
    handles: 'string',
    antipodality: 'string',
    influences: 'string',
    out: 'string',
  },
  allowPositionals: false,

  run(line, { stdout, stderr }) {
    const { values } = line;
    const meshFile = required(line, 'mesh');
    const skeletonFile = required(line, 'skeleton');
    const weightsFile = required(line, 'weights');
    const exampleFile = required(line, 'example');
    const poseFile = required(line, 'example-pose');
    const out = required(line, 'out');
    outputExtension(out, ['obj']);
    const { method, antipodality, maxInfluences } = skinningOptions(values);
    if (method !== 'perface' && values.handles !== undefined) throw new UsageError('--handles applies to --method perface only');

    const { mesh, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
    const example = readExample(exampleFile, poseFile, mesh, boneCount);
    const influences = influencesFromWeights(weights, maxInfluences);
    const transforms = new Float64Array(12 * boneCount);
    forwardKinematics(skeleton, example.pose, transforms);
    if (method === 'perface') {
      const setup = readPerFaceSetup(values.handles!, mesh, skeleton, influences, boneCount);
      const { unposed, residual, refinements } = unposeExamplePerFace(setup, skeleton, example, stderr);
      writeFile(out, writeObj({ positions: unposed, triangles: mesh.triangles }));
      stdout.write(
        `wrote ${out}: ${vertexCount} vertices unposed by perface (${setup.fixedVertices.length} fixed vertices), ${refinements} refinement steps, residual ${residual.toExponential(2)} of the size\n`,
      );
      return 0;
    }
    let boneDualQuaternions: Float64Array | null = null;
    if (method === 'dqs' && antipodality === 'per-bone') {
      boneDualQuaternions = new Float64Array(8 * boneCount);
      dualQuatsFromRigidMatrices(transforms, boneDualQuaternions);
      alignDualQuaternionSigns(skeleton.parents, skeleton.order, boneDualQuaternions);
    }
    const result = unposeExample(mesh.positions, example.positions, influences, transforms, { method, antipodality, boneDualQuaternions });
    if (result.singularVertices.length > 0)
      stderr.write(`rigwright: warning: ${exampleFile}: ${describeSingular(result.singularVertices)}\n`);
    let largest = 0;
    for (let i = 0; i < result.displacements.length; i += 3) {
      largest = Math.max(largest, Math.hypot(result.displacements[i], result.displacements[i + 1], result.displacements[i + 2]));
    }
    writeFile(out, writeObj({ positions: result.unposed, triangles: mesh.triangles }));
    stdout.write(
      `wrote ${out}: ${vertexCount} vertices unposed by ${method}, largest displacement ${largest.toPrecision(4)}, ${result.singularVertices.length} near-singular\n`,
    );
    return 0;
  },
};
