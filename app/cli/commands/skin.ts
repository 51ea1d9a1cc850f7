/** `rigwright skin`: the mesh deformed by a skeleton's pose, by linear blend, dual quaternion or per-face skinning. */
import { writeObj } from '../../../workers/formats/obj.ts';
import { dualQuatsFromRigidMatrices } from '../../../workers/math/dual-quaternion.ts';
import { alignDualQuaternionSigns } from '../../../workers/skinning/align-dual-quaternion-signs.ts';
import { DUAL_QUATERNION_SKINNING_DEFAULTS, dualQuaternionSkinning } from '../../../workers/skinning/dual-quaternion-skinning.ts';
import { INFLUENCE_DEFAULTS, influencesFromWeights } from '../../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../../workers/skinning/linear-blend-skinning.ts';
import { perFaceSkinning } from '../../../workers/skinning/per-face-skinning.ts';
import { perFaceContextSkinning } from '../../../workers/posespace/per-face-context.ts';
import { perFaceTwoCoreThread } from '../per-face-thread.ts';
import { samplePose } from '../../../workers/rig/pose-sequence.ts';
import { contextDualQuaternionSkinning, contextLinearBlendSkinning } from '../../../workers/posespace/context-skinning.ts';
import { poseSpaceWeights } from '../../../workers/posespace/pose-space-weights.ts';
import { outputExtension, readBoundRig, required, skinningOptions, UsageError, writeFile, type CliCommand } from '../cli-support.ts';
import { describeTime, poseTime, poseTransforms, readPoses } from '../pose-input.ts';
import { exampleDisplacements, exampleOptionsHelp, examplesInterpolator, rbfOption, readExamples } from '../example-input.ts';
import { PER_FACE_BLEND_HELP, perFaceBlendOption, perFaceExamplesOf, readPerFaceSetup } from '../per-face-input.ts';

/** Influences kept per vertex unless --influences says otherwise: the four a GPU skinning shader usually takes. */

export const skinCommand: CliCommand = {
  name: 'skin',
  summary: 'the posed mesh (linear blend, dual quaternion or per-face skinning)',
  usage: `Usage: rigwright skin --mesh M.obj --skeleton S.tgf --weights W.dmat --poses P.dmat [--translations T.dmat]
                      [--frame N | --t T] --method lbs|dqs|perface [--influences K] [--handles H.dmat]
                      [--antipodality per-vertex|per-bone] [--examples E1.obj:E1.dmat,… [--rbf KERNEL]
                      [--per-face-blend eq9|eq10]] [--threads 1|2] --out posed.obj

Writes the mesh deformed by the skeleton's pose, same vertices in the same order and the same triangles.
With --examples, context-aware skinning (course handout Sec. 8.1): every example is unposed through the method
(lbs or dqs), and its rest-space displacement, weighted by the RBF pose-space weight a_j of the pose, is added to
the rest mesh before skinning, so that at an example's own pose the result is that example. With perface (Sec. 8.2)
every example is unposed per face, and its per-face transformations, weighted by a_j, multiply each face's blended
rotation before stitching.

  --mesh FILE        mesh, .obj or .off
  --skeleton FILE    TGF skeleton
  --weights FILE     DMAT skinning weights, #vertices × #bones
  --poses FILE       DMAT pose file for this skeleton, or libigl's animation of absolute bone transforms (12·B × L)
  --translations FILE  DMAT start-joint translations for those poses, B·L × 3 (as rigwright import writes)
  --frame N          frame of a rotation-matrix pose file (3·B·L × 3), 0-based; default: the last frame
  --t T              SLERP parameter in [0, 1] from the rest pose to a quaternion pose (4B × 1); default: 1
  --method M         lbs: linear blend skinning (the default)
                     dqs: dual quaternion skinning (Kavan et al. 2008, Alg. 1)
                     perface: per-face rotations blended in log-quaternion space, Poisson-stitched; the root
                     bones' handle vertices (--handles) stay fixed to their bone
  --handles FILE     DMAT handles, #vertices × 1 (bone index or -1); required by perface
  --threads N        perface without --examples: 2 solves a large mesh's frame (30,000 free vertices or more) on
                     two threads, to the same result up to round-off; 1 (the default) keeps it on one: the second
                     thread's setup (0.3 s at 73k vertices, 0.45 s at 295k) costs more than it saves on one frame
  --antipodality A   dqs signs: per-vertex (Alg. 2) or per-bone (aligned along the skeleton); default ${DUAL_QUATERNION_SKINNING_DEFAULTS.antipodality}
  --influences K     keep the K largest weights per vertex, renormalized; 0 or "all" keeps all; default ${INFLUENCE_DEFAULTS.maxInfluences}
  ${exampleOptionsHelp(21)}
  ${PER_FACE_BLEND_HELP}
  --out FILE         output, .obj
  -h, --help         this help
`,
  options: {
    mesh: 'string',
    skeleton: 'string',
    weights: 'string',
    poses: 'string',
    translations: 'string',
    frame: 'string',
    t: 'string',
    method: 'string',
    influences: 'string',
    handles: 'string',
    antipodality: 'string',
    examples: 'string',
    rbf: 'string',
    'per-face-blend': 'string',
    threads: 'string',
    out: 'string',
  },
  allowPositionals: false,

  async run(line, { stdout, stderr }) {
    const { values } = line;
    const meshFile = required(line, 'mesh');
    const skeletonFile = required(line, 'skeleton');
    const weightsFile = required(line, 'weights');
    const posesFile = required(line, 'poses');
    const out = required(line, 'out');
    outputExtension(out, ['obj']);
    const { method, antipodality, maxInfluences } = skinningOptions(values);
    if (values.frame !== undefined && values.t !== undefined) throw new UsageError('give either --frame or --t, not both');
    if (values.rbf !== undefined && values.examples === undefined) throw new UsageError('--rbf applies with --examples only');
    const kernel = rbfOption(values.rbf);
    if (values['per-face-blend'] !== undefined && (method !== 'perface' || values.examples === undefined)) {
      throw new UsageError('--per-face-blend applies with --method perface and --examples only');
    }
    const blend = perFaceBlendOption(values['per-face-blend']);
    if (values.threads !== undefined && (method !== 'perface' || values.examples !== undefined)) {
      throw new UsageError('--threads applies with --method perface without --examples only');
    }
    if (values.threads !== undefined && values.threads !== '1' && values.threads !== '2') {
      throw new UsageError(`--threads must be 1 or 2, got "${values.threads}"`);
    }

    const { mesh, skeleton, vertexCount, boneCount, weights } = readBoundRig(meshFile, skeletonFile, weightsFile, stderr);
    const seq = readPoses(posesFile, values.translations, boneCount, undefined, {
      skeleton,
      warn: (warning) => stderr.write(`rigwright: warning: ${warning}\n`),
    });
    const at = poseTime(seq, posesFile, values.frame, values.t);

    const transforms = poseTransforms(skeleton, seq, at.time);
    const influences = influencesFromWeights(weights, maxInfluences);
    const posed = new Float64Array(mesh.positions.length);
    let detail = '';
    const examples = values.examples === undefined ? [] : readExamples(values.examples, mesh, boneCount);
    const exampleWeights = new Float64Array(examples.length);
    if (examples.length > 0) {
      const rotations = new Float64Array(9 * boneCount);
      samplePose(seq, at.time, rotations);
      poseSpaceWeights(examplesInterpolator(examples, boneCount, kernel), rotations, exampleWeights);
      detail = `, context from ${examples.map((e, j) => `${e.name} ${(Math.round(exampleWeights[j] * 1e4) / 1e4 + 0).toFixed(4)}`).join(', ')} (${kernel} RBF)`;
    }
    if (method === 'lbs') {
      if (examples.length > 0) {
        const displacements = exampleDisplacements(mesh.positions, examples, skeleton, influences, method, antipodality, stderr);
        contextLinearBlendSkinning(mesh.positions, displacements, exampleWeights, influences, transforms, posed);
      } else {
        linearBlendSkinning(mesh.positions, influences, transforms, posed);
      }
    } else if (method === 'dqs') {
      const dq = new Float64Array(8 * boneCount);
      dualQuatsFromRigidMatrices(transforms, dq);
      if (antipodality === 'per-bone') alignDualQuaternionSigns(skeleton.parents, skeleton.order, dq);
      if (examples.length > 0) {
        const displacements = exampleDisplacements(mesh.positions, examples, skeleton, influences, method, antipodality, stderr);
        contextDualQuaternionSkinning(mesh.positions, displacements, exampleWeights, influences, dq, posed, { antipodality });
      } else {
        dualQuaternionSkinning(mesh.positions, influences, dq, posed, { antipodality });
      }
      detail = ` (${antipodality} signs)${detail}`;
    } else {
      const setup = readPerFaceSetup(values.handles!, mesh, skeleton, influences, boneCount);
      if (examples.length > 0) {
        const perFace = perFaceExamplesOf(setup, skeleton, examples, stderr);
        perFaceContextSkinning(setup, perFace, exampleWeights, blend, transforms, posed);
        detail = ` (${setup.fixedVertices.length} fixed vertices)${detail}, ${blend === 'eq9' ? 'Eq. 9' : 'Eq. 10'} blend`;
      } else {
        const twoCore = values.threads === '2' ? await perFaceTwoCoreThread(setup) : null;
        if (twoCore === null) {
          perFaceSkinning(setup, transforms, posed);
        } else {
          try {
            twoCore.frame(transforms, posed);
          } finally {
            twoCore.dispose();
          }
        }
        detail = ` (${setup.fixedVertices.length} fixed vertices${twoCore === null ? '' : ', two threads'})`;
      }
    }
    writeFile(out, writeObj({ positions: posed, triangles: mesh.triangles }));
    stdout.write(
      `wrote ${out}: ${vertexCount} vertices, ${mesh.triangles.length / 3} triangles, ${method}${detail} with up to ${influences.stride} influences per vertex at ${describeTime(at)}\n`,
    );
    return 0;
  },
};
