/**
 * `rigwright weights`: skinning weights from a mesh, a skeleton and handles (a handle file, or handles chosen
 * automatically by the course's distance or cylinder rule), written as an ASCII DMAT #V × #B: harmonic weights over
 * the surface, or volumetric weights from the bones through the solid the mesh encloses, chosen by --method as the
 * app's Compute weights chooses, each row limited to the app's Max influences (--max-influences, 4 by default) as that
 * bind limits it. The solve runs on the welded mesh (vertices at one position are one). The report —
 * which method bound which shell, bones without handles, mesh components without handles — goes to stderr.
 */
import { writeDmatAscii } from '../../../workers/formats/dmat.ts';
import { FormatError } from '../../../workers/formats/format-error.ts';
import { handlesFromDmat } from '../../../workers/formats/weights-file.ts';
import { boundingBox } from '../../../workers/mesh/bounds.ts';
import { AUTOMATIC_HANDLES_DEFAULTS, type AutomaticHandleRule } from '../../../workers/weights/automatic-handles.ts';
import { bindMesh } from '../../../workers/weights/bind-mesh.ts';
import { bindingReport } from '../../../workers/weights/binding-report.ts';
import { HARMONIC_WEIGHTS_DEFAULTS } from '../../../workers/weights/harmonic-weights.ts';
import { limitInfluences, MAX_INFLUENCE_CHOICES, MAX_INFLUENCES_DEFAULT } from '../../../workers/weights/limit-influences.ts';
import { BINDING_METHODS, RIGID_HANDLE_FRACTION, shellReport, type BindingMethod } from '../../../workers/weights/binding-method.ts';
import {
  VOLUMETRIC_FALLOFF_RANGE,
  VOLUMETRIC_MAX_INFLUENCES,
  VOLUMETRIC_WEIGHTS_DEFAULTS,
  VOXEL_RESOLUTION_RANGE,
} from '../../../workers/weights/volumetric-weights.ts';
import {
  formatNumber,
  outputExtension,
  parseNumber,
  readMatrix,
  readMesh,
  readTgfSkeleton,
  required,
  UsageError,
  writeFile,
  type CliCommand,
} from '../cli-support.ts';

export const weightsCommand: CliCommand = {
  name: 'weights',
  summary: 'skinning weights: harmonic from handles (given or automatic), or volumetric from the bones',
  usage: `Usage: rigwright weights --mesh M --skeleton S.tgf (--handles H.dmat | --auto-handles [--rule distance|cylinder]
                         [--radius R]) [--laplacian cotan|uniform] [--bind-unhandled] [--weld-tolerance D]
                         [--method auto|surface|volumetric] [--voxel-resolution N] [--falloff P]
                         [--max-influences K] --out W.dmat

Computes skinning weights and writes them as an ASCII DMAT, #vertices × #bones, rows summing to 1. The surface
method solves harmonic weights (one Laplace solve per bone with the handles as boundary conditions); the
volumetric method binds through the solid the mesh encloses (geodesic voxel binding: every shell, open or
closed, gets weights; no handles needed). Both run on the welded mesh: vertices at the same position (split at
UV seams, normal creases, or every corner of a flat-shaded mesh) are one vertex and get the same weights, so
seams never tear; the file's vertices stay as they are. Which method bound which shell, bones without handle
vertices and parts of the mesh without any handle are reported on stderr.

  --mesh FILE        mesh, .obj or .off
  --skeleton FILE    TGF skeleton
  --handles FILE     DMAT #vertices × 1: the bone of each handle vertex, -1 for free vertices
  --auto-handles     choose handles automatically instead
  --rule R           distance (vertices near each bone's midpoint, the default) or cylinder (near the bone segment)
  --radius R         cylinder radius in mesh units; default ${AUTOMATIC_HANDLES_DEFAULTS.radiusFraction} × the bounding-box diagonal
  --laplacian L      cotan or uniform; default ${HARMONIC_WEIGHTS_DEFAULTS.laplacian}
  --bind-unhandled   give parts of the mesh without handles weight 1 on the bone with the nearest handles
  --weld-tolerance D weld vertices up to D apart, in mesh units, as well; default ${HARMONIC_WEIGHTS_DEFAULTS.weldTolerance} (exactly coincident ones)
  --method M         auto (the default: volumetric for a mesh of several shells or with a boundary, or whose
                     automatic handles take over ${100 * RIGID_HANDLE_FRACTION}% of the vertices; surface for another closed connected
                     one), surface or volumetric; volumetric needs no handles
  --voxel-resolution N  the volumetric grid's voxels along the longest side, ${VOXEL_RESOLUTION_RANGE[0]}–${VOXEL_RESOLUTION_RANGE[1]}; default ${VOLUMETRIC_WEIGHTS_DEFAULTS.resolution}
  --falloff P        volumetric weights ∝ geodesic distance^−P, ${VOLUMETRIC_FALLOFF_RANGE[0]}–${VOLUMETRIC_FALLOFF_RANGE[1]}; default ${VOLUMETRIC_WEIGHTS_DEFAULTS.falloff}
  --max-influences K the most bones weighing on a vertex, ${MAX_INFLUENCE_CHOICES[0]}–${MAX_INFLUENCE_CHOICES[MAX_INFLUENCE_CHOICES.length - 1]}; default ${MAX_INFLUENCES_DEFAULT}, as the app's
                     Max influences: either method's rows are limited as the app's Compute weights limits
                     them (the smallest weights dropped, the rest scaled to sum to 1); 0 keeps every bone
                     of the surface solve (the volumetric binding keeps at most ${VOLUMETRIC_MAX_INFLUENCES})
  --out FILE         output, .dmat
  -h, --help         this help
`,
  options: {
    mesh: 'string',
    skeleton: 'string',
    handles: 'string',
    'auto-handles': 'boolean',
    rule: 'string',
    radius: 'string',
    laplacian: 'string',
    'bind-unhandled': 'boolean',
    'weld-tolerance': 'string',
    method: 'string',
    'voxel-resolution': 'string',
    falloff: 'string',
    'max-influences': 'string',
    out: 'string',
  },
  allowPositionals: false,

  run(line, { stdout, stderr }) {
    const { values, flags } = line;
    const meshFile = required(line, 'mesh');
    const skeletonFile = required(line, 'skeleton');
    const out = required(line, 'out');
    outputExtension(out, ['dmat']);
    const method = (values.method ?? 'auto') as BindingMethod;
    if (!(BINDING_METHODS as readonly string[]).includes(method))
      throw new UsageError(`--method must be ${BINDING_METHODS.join(', ')}, not "${values.method}"`);
    const auto = flags.has('auto-handles');
    if (auto && values.handles !== undefined) throw new UsageError('give exactly one of --handles FILE and --auto-handles');
    if (!auto && values.handles === undefined && method !== 'volumetric')
      throw new UsageError('give exactly one of --handles FILE and --auto-handles (--method volumetric needs neither)');
    if (!auto && (values.rule !== undefined || values.radius !== undefined))
      throw new UsageError('--rule and --radius need --auto-handles');
    const rule = values.rule ?? 'distance';
    if (rule !== 'distance' && rule !== 'cylinder') throw new UsageError(`--rule must be distance or cylinder, not "${rule}"`);
    if (rule !== 'cylinder' && values.radius !== undefined) throw new UsageError('--radius needs --rule cylinder');
    let radius: number | undefined;
    if (values.radius !== undefined) {
      radius = parseNumber(values.radius);
      if (!(radius > 0 && Number.isFinite(radius))) throw new UsageError(`--radius must be a positive number, not "${values.radius}"`);
    }
    const laplacian = values.laplacian ?? HARMONIC_WEIGHTS_DEFAULTS.laplacian;
    if (laplacian !== 'cotan' && laplacian !== 'uniform') throw new UsageError(`--laplacian must be cotan or uniform, not "${laplacian}"`);
    const bindUnhandled = flags.has('bind-unhandled');
    let weldTolerance = HARMONIC_WEIGHTS_DEFAULTS.weldTolerance;
    if (values['weld-tolerance'] !== undefined) {
      weldTolerance = parseNumber(values['weld-tolerance']);
      if (!(weldTolerance >= 0 && Number.isFinite(weldTolerance)))
        throw new UsageError(`--weld-tolerance must be a distance ≥ 0, not "${values['weld-tolerance']}"`);
    }
    const resolution =
      values['voxel-resolution'] === undefined ? VOLUMETRIC_WEIGHTS_DEFAULTS.resolution : parseNumber(values['voxel-resolution']);
    const [lowest, highest] = VOXEL_RESOLUTION_RANGE;
    if (!(Number.isInteger(resolution) && resolution >= lowest && resolution <= highest))
      throw new UsageError(`--voxel-resolution must be a whole number from ${lowest} to ${highest}, not "${values['voxel-resolution']}"`);
    const falloff = values.falloff === undefined ? VOLUMETRIC_WEIGHTS_DEFAULTS.falloff : parseNumber(values.falloff);
    const [gentlest, steepest] = VOLUMETRIC_FALLOFF_RANGE;
    if (!(falloff >= gentlest && falloff <= steepest))
      throw new UsageError(`--falloff must be a number from ${gentlest} to ${steepest}, not "${values.falloff}"`);
    const maxInfluences = values['max-influences'] === undefined ? MAX_INFLUENCES_DEFAULT : parseNumber(values['max-influences']);
    if (!(maxInfluences === 0 || (MAX_INFLUENCE_CHOICES as readonly number[]).includes(maxInfluences)))
      throw new UsageError(
        `--max-influences must be a whole number from ${MAX_INFLUENCE_CHOICES[0]} to ${MAX_INFLUENCE_CHOICES[MAX_INFLUENCE_CHOICES.length - 1]}, or 0 for no limit, not "${values['max-influences']}"`,
      );

    const mesh = readMesh(meshFile);
    const skeleton = readTgfSkeleton(skeletonFile);
    const vertexCount = mesh.positions.length / 3;
    const boneCount = skeleton.bones.length / 2;
    // Rows limited to K non-zero weights as the app's bind limits them (MaxInfluences.limit: no bone locked).
    const limited = (data: Float64Array): Float64Array =>
      maxInfluences === 0 ? data : limitInfluences({ rows: vertexCount, cols: boneCount, data }, maxInfluences, null).weights.data;
    // The handles the surface solve starts from: a rule's (placed in the bind, on its weld), a file's, or none for a
    // volumetric bind.
    let handles: Int32Array = new Int32Array(vertexCount).fill(-1);
    let handleSource = 'no handles';
    let rulePlaced: AutomaticHandleRule | null = null;
    if (auto) {
      const r = radius ?? AUTOMATIC_HANDLES_DEFAULTS.radiusFraction * boundingBox(mesh.positions).diagonal;
      rulePlaced = rule === 'distance' ? { rule: 'distance' } : { rule: 'cylinder', radius: r };
      handleSource =
        rule === 'distance' ? 'automatic handles (distance rule)' : `automatic handles (cylinder, radius ${formatNumber(r, 4)})`;
    } else if (values.handles !== undefined) {
      const file = values.handles;
      handles = handlesFromDmat(readMatrix(file, 'handles'), vertexCount, boneCount, file);
      handleSource = file;
    }
    // One bind as the app's Compute weights runs it (bindMesh): one weld, the shells, the automatic handles ('auto'
    // binds volumetrically where they would take most of the mesh), the method and the solve, with the app's options.
    const bound = bindMesh(mesh.positions, mesh.triangles, skeleton, {
      method,
      handles,
      rule: rulePlaced,
      boneCount,
      weldTolerance,
      harmonic: { laplacian, unhandledComponents: bindUnhandled ? 'bind-rigidly' : 'report' },
      volumetric: { resolution, falloff, maxInfluences: maxInfluences === 0 ? VOLUMETRIC_MAX_INFLUENCES : maxInfluences },
    });
    // Why auto went volumetric (a surface bind that goes as asked has nothing to report).
    if (bound.reason && bound.method === 'volumetric') stderr.write(`rigwright: ${bound.reason}\n`);
    if (bound.volumetric) {
      const result = bound.volumetric;
      for (const line of shellReport(bound.shells, bound.method)) stderr.write(`rigwright: ${line}\n`);
      if (result.verticesFromNearestVoxel > 0)
        stderr.write(
          `rigwright: ${result.verticesFromNearestVoxel} vertices in shells no bone reaches took their weights from the nearest voxels bones reach\n`,
        );
      if (result.bonesOutsideSolid.length > 0)
        stderr.write(
          `rigwright: warning: bones ${result.bonesOutsideSolid.join(', ')} lie outside the mesh: bound from the nearest voxels\n`,
        );
      if (result.bonesLeftOut.length > 0)
        stderr.write(
          `rigwright: bones ${result.bonesLeftOut.join(', ')} left out (weight 0): mostly outside the mesh, they carry their children\n`,
        );
      writeFile(out, writeDmatAscii({ rows: vertexCount, cols: boneCount, data: limited(result.weights) }));
      const { nx, ny, nz } = result.grid;
      stdout.write(
        `wrote ${out}: ${vertexCount} vertices × ${boneCount} bones, volumetric (${nx}×${ny}×${nz} voxels, ${result.solidVoxels} solid, falloff ${falloff}), ${Math.round(result.timings.totalMs)} ms\n`,
      );
      return 0;
    }
    const result = bound.surface;
    if (!result)
      throw new FormatError(
        values.handles ?? meshFile,
        '',
        `no handle vertex (${handleSource}): nothing to solve the surface weights from`,
      );
    handles = bound.handles;
    for (const report of bindingReport(
      result.bonesWithoutHandles,
      result.unhandledComponents,
      bindUnhandled,
      undefined,
      result.handleConflicts,
    )) {
      stderr.write(`rigwright: warning: ${report}\n`);
    }
    if (result.laplacianUsed !== laplacian)
      stderr.write('rigwright: warning: the cotangent Laplacian is not positive definite on this mesh; used the uniform one\n');
    writeFile(out, writeDmatAscii({ rows: vertexCount, cols: boneCount, data: limited(result.weights) }));
    let handled = 0;
    for (const h of handles) if (h >= 0) handled++;
    const welded = result.weldedVertexCount < vertexCount ? ` (welded into ${result.weldedVertexCount})` : '';
    stdout.write(
      `wrote ${out}: ${vertexCount} vertices${welded} × ${boneCount} bones, ${result.laplacianUsed} Laplacian, ${handled} handle vertices from ${handleSource}, ${Math.round(result.timings.totalMs)} ms\n`,
    );
    return 0;
  },
};
