/**
 * `rigwright weights`: harmonic skinning weights from a mesh, a skeleton and handles (a handle file, or handles
 * chosen automatically by the course's distance or cylinder rule), written as an ASCII DMAT #V × #B. The solver's
 * report — bones without handles, mesh components without handles — goes to stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { boneCylinderHandles, jointDistanceHandles } from '../../workers/weights/automatic-handles.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { bindingReport } from '../../workers/weights/binding-report.ts';
import type { DenseMatrix, TgfSkeleton, TriangleMesh } from '../../workers/formats/types.ts';

interface Streams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Default cylinder radius as a fraction of the mesh's bounding-box diagonal. */
const DEFAULT_RADIUS_FRACTION = 0.05;

export const WEIGHTS_USAGE = `Usage: rigwright weights --mesh M --skeleton S.tgf (--handles H.dmat | --auto-handles [--rule distance|cylinder]
                         [--radius R]) [--laplacian cotan|uniform] [--bind-unhandled] --out W.dmat

Computes harmonic skinning weights (one Laplace solve per bone with the handles as boundary conditions) and
writes them as an ASCII DMAT, #vertices × #bones, rows summing to 1. Bones without handle vertices and parts of
the mesh without any handle are reported on stderr.

  --mesh FILE        mesh, .obj or .off
  --skeleton FILE    TGF skeleton
  --handles FILE     DMAT #vertices × 1: the bone of each handle vertex, -1 for free vertices
  --auto-handles     choose handles automatically instead
  --rule R           distance (vertices near each bone's midpoint, the default) or cylinder (near the bone segment)
  --radius R         cylinder radius in mesh units; default ${DEFAULT_RADIUS_FRACTION} × the bounding-box diagonal
  --laplacian L      cotan (the default) or uniform
  --bind-unhandled   give parts of the mesh without handles weight 1 on the bone with the nearest handles
  --out FILE         output, .dmat
  -h, --help         this help
`;

class WeightsUsageError extends Error {}

function readBytes(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = code === 'ENOENT' ? 'no such file or folder' : code === 'EISDIR' ? 'it is a folder' : error instanceof Error ? error.message : String(error);
    throw new FormatError(file, '', `cannot read the file: ${reason}`);
  }
}

function readKind<K extends 'mesh' | 'skeleton' | 'matrix'>(file: string, kind: K, what: string) {
  const read = readRigFile(file, readBytes(file));
  if (read.kind !== kind) throw new FormatError(file, '', `holds a ${read.kind}, not ${what}`);
  return read as Extract<ReturnType<typeof readRigFile>, { kind: K }>;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        mesh: { type: 'string' },
        skeleton: { type: 'string' },
        handles: { type: 'string' },
        'auto-handles': { type: 'boolean' },
        rule: { type: 'string' },
        radius: { type: 'string' },
        laplacian: { type: 'string' },
        'bind-unhandled': { type: 'boolean' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      throw new WeightsUsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
    }
    throw error;
  }
}

/**
 * Runs `rigwright weights`.
 * @param args  the arguments after `weights`
 * @returns 0 written, 1 bad input (FormatError, thrown for the caller to report), 2 bad command line (usage printed)
 */
export function runWeights(args: string[], { stdout, stderr }: Streams): number {
  try {
    return weights(args, stdout, stderr);
  } catch (error) {
    if (!(error instanceof WeightsUsageError)) throw error;
    stderr.write(`rigwright: ${error.message}\n\n${WEIGHTS_USAGE}`);
    return 2;
  }
}

function weights(args: string[], stdout: Streams['stdout'], stderr: Streams['stderr']): number {
  const values = parse(args);
  if (values.help) {
    stdout.write(WEIGHTS_USAGE);
    return 0;
  }
  const need = (name: 'mesh' | 'skeleton' | 'out'): string => {
    const value = values[name];
    if (value === undefined || value === '') throw new WeightsUsageError(`missing --${name}`);
    return value;
  };
  const meshFile = need('mesh');
  const skeletonFile = need('skeleton');
  const out = need('out');
  if (!/\.dmat$/i.test(out)) throw new WeightsUsageError(`--out must end in .dmat: "${out}"`);
  const auto = values['auto-handles'] === true;
  if (auto === (values.handles !== undefined)) throw new WeightsUsageError('give exactly one of --handles FILE and --auto-handles');
  if (!auto && (values.rule !== undefined || values.radius !== undefined)) throw new WeightsUsageError('--rule and --radius need --auto-handles');
  const rule = values.rule ?? 'distance';
  if (rule !== 'distance' && rule !== 'cylinder') throw new WeightsUsageError(`--rule must be distance or cylinder, not "${rule}"`);
  if (rule !== 'cylinder' && values.radius !== undefined) throw new WeightsUsageError('--radius needs --rule cylinder');
  let radius: number | undefined;
  if (values.radius !== undefined) {
    radius = /^\s*$/.test(values.radius) ? NaN : Number(values.radius);
    if (!(radius > 0 && Number.isFinite(radius))) throw new WeightsUsageError(`--radius must be a positive number, not "${values.radius}"`);
  }
  const laplacian = values.laplacian ?? 'cotan';
  if (laplacian !== 'cotan' && laplacian !== 'uniform') throw new WeightsUsageError(`--laplacian must be cotan or uniform, not "${laplacian}"`);

  const mesh: TriangleMesh = readKind(meshFile, 'mesh', 'a mesh (.obj or .off)').mesh;
  const skeleton: TgfSkeleton = readKind(skeletonFile, 'skeleton', 'a skeleton (.tgf)').skeleton;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.bones.length / 2;
  let handles: Int32Array;
  let handleSource: string;
  if (auto) {
    if (rule === 'distance') {
      handles = jointDistanceHandles(mesh.positions, skeleton);
      handleSource = 'automatic handles (distance rule)';
    } else {
      const r = radius ?? DEFAULT_RADIUS_FRACTION * boundingBox(mesh.positions).diagonal;
      handles = boneCylinderHandles(mesh.positions, skeleton, r);
      handleSource = `automatic handles (cylinder, radius ${formatNumber(r)})`;
    }
  } else {
    const file = values.handles as string;
    const matrix: DenseMatrix = readKind(file, 'matrix', 'handles (.dmat)').matrix;
    handles = handlesFromDmat(matrix, vertexCount, boneCount, file);
    handleSource = file;
  }

  const result = harmonicWeights(mesh.positions, mesh.triangles, handles, boneCount, {
    laplacian,
    unhandledComponents: values['bind-unhandled'] ? 'bind-rigidly' : 'report',
  });
  for (const line of bindingReport(result.bonesWithoutHandles, result.unhandledComponents, values['bind-unhandled'] === true)) {
    stderr.write(`rigwright: warning: ${line}\n`);
  }
  if (result.laplacianUsed !== laplacian) stderr.write('rigwright: warning: the cotangent Laplacian is not positive definite on this mesh; used the uniform one\n');
  try {
    writeFileSync(out, writeDmatAscii({ rows: vertexCount, cols: boneCount, data: result.weights }));
  } catch (error) {
    throw new FormatError(out, '', `cannot write the file: ${error instanceof Error ? error.message : String(error)}`);
  }
  let handled = 0;
  for (const h of handles) if (h >= 0) handled++;
  stdout.write(
    `wrote ${out}: ${vertexCount} vertices × ${boneCount} bones, ${result.laplacianUsed} Laplacian, ${handled} handle vertices from ${handleSource}, ${Math.round(result.timings.totalMs)} ms\n`,
  );
  return 0;
}

function formatNumber(x: number): string {
  return Number(x.toPrecision(4)).toString();
}
