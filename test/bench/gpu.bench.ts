/**
 * GPU frame time in headless Chromium (WebGL2 on SwiftShader, i.e. the CPU standing in for a GPU): the built
 * renderer is served, the 131k-vertex tube (make_tube.py 128 1024 32) is loaded through the file input, and
 * each measured frame poses the skeleton, uploads the joint texture, draws the skinned mesh and waits for it
 * with a one-pixel readback. Reference in the same browser: three.js's built-in SkinnedMesh drawing the same
 * tube, influences and poses (gpu-reference-page.ts). Also printed: CPU linear blend skinning of the same tube.
 * BENCH_PAGE_WIDTH / BENCH_PAGE_HEIGHT set the page size (default 1280×800); a 1-pixel-wide page leaves only the
 * vertex work, which isolates the skinning shader from rasterization.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { cacheDir, fmtMs, medianMs, printTable, repoRoot, tube, withAppPage } from './bench-util.ts';

const PORT = 4178;
const FRAMES = 60;

const files = tube(128, 1024, 32);
const viewport = { width: Number(process.env.BENCH_PAGE_WIDTH ?? 1280), height: Number(process.env.BENCH_PAGE_HEIGHT ?? 800) };
await withAppPage(
  path.join(cacheDir, 'gpu-dist'),
  PORT,
  async (page) => {
    const demoMs: number = await page.evaluate((n) => (window as any).__rigwright.measureFrameTime(n), FRAMES);
    const demoVertices: number = await page.evaluate(() => (window as any).__rigwright.state().vertexCount);

    // The tube has no poses file: write one that curls it (4° per bone about x over 16 frames).
    const skeleton = buildSkeleton(readTgf(readFileSync(files.tgf, 'utf8'), 'tube.tgf'), 'tube.tgf');
    const boneCount = skeleton.parents.length;
    const posesFile = files.obj.replace(/\.obj$/, '-curl.dmat');
    const frames = 16;
    const lines = [`3 ${3 * boneCount * frames}`];
    const columns: string[][] = [[], [], []];
    for (let f = 0; f < frames; f++) {
      const a = ((4 * Math.PI) / 180) * (f / (frames - 1));
      for (let b = 0; b < boneCount; b++) {
        const R = [
          [1, 0, 0],
          [0, Math.cos(a), -Math.sin(a)],
          [0, Math.sin(a), Math.cos(a)],
        ];
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) columns[c].push(String(R[r][c]));
      }
    }
    (await import('node:fs')).writeFileSync(posesFile, [...lines, ...columns.flat()].join('\n') + '\n');

    await page.setInputFiles('#file-input', [files.obj, files.tgf, posesFile]);
    await page.waitForFunction(
      () => {
        const s = (window as any).__rigwright.state();
        return s.error !== null || (s.vertexCount === 131072 && s.poseKind === 'matrices');
      },
      undefined,
      { timeout: 120_000 },
    );
    const state = await page.evaluate(() => (window as any).__rigwright.state());
    if (state.error) throw new Error(state.error);
    await page.evaluate(() => (window as any).__rigwright.setInfluences(4));
    const tubeMs: number = await page.evaluate((n) => (window as any).__rigwright.measureFrameTime(n), FRAMES);

    // The same tube, influences and 16 poses for the reference and the CPU figure.
    const { mesh } = readObj(readFileSync(files.obj, 'utf8'), 'tube.obj');
    const influences = influencesFromWeights(boneDistanceWeights(mesh.positions, skeleton), 4);
    const poses = poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(posesFile)), 'curl.dmat'), boneCount, 'curl.dmat');
    const rotations = new Float64Array(boneCount * 9);
    const transforms = new Float64Array(boneCount * 12);
    const frameTransforms: number[][] = [];
    for (let f = 0; f < frames; f++) {
      samplePose(poses, f, rotations);
      forwardKinematics(skeleton, rotations, transforms);
      frameTransforms.push(Array.from(transforms));
    }
    const skinIndex: number[] = [];
    const skinWeight: number[] = [];
    for (let v = 0; v < mesh.positions.length / 3; v++) {
      for (let i = 0; i < 4; i++) {
        const slot = v * influences.stride + i;
        skinIndex.push(i < influences.stride ? influences.bones[slot] : 0);
        skinWeight.push(i < influences.stride ? influences.weights[slot] : 0);
      }
    }
    const bundle = await build({
      entryPoints: [path.join(repoRoot, 'test/bench/gpu-reference-page.ts')],
      bundle: true,
      format: 'iife',
      write: false,
      logLevel: 'error',
    });
    const viewportSize = page.viewportSize()!;
    await page.goto('about:blank');
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    const threeMs: number = await page.evaluate(([input, n]) => (window as any).measureReference(input, n), [
      {
        positions: Array.from(mesh.positions),
        triangles: Array.from(mesh.triangles),
        skinIndex,
        skinWeight,
        frames: frameTransforms,
        boneCount,
        width: viewportSize.width,
        height: viewportSize.height - 80,
      },
      FRAMES,
    ] as const);

    const out = new Float64Array(mesh.positions.length);
    const cpuMs = medianMs(() => linearBlendSkinning(mesh.positions, influences, transforms, out), 15, 3);

    printTable('GPU frame time, headless Chromium (SwiftShader)', [
      {
        case: `demo, ${demoVertices} vertices, 4 influences`,
        ours: fmtMs(demoMs),
        reference: '—',
        ratio: '—',
        note: 'pose + upload + draw + readback wait',
      },
      {
        case: `tube 131072 vertices, 32 bones, 4 influences, ${viewportSize.width}×${viewportSize.height} page`,
        ours: fmtMs(tubeMs),
        reference: `${fmtMs(threeMs)} (three.js SkinnedMesh)`,
        ratio: (tubeMs / threeMs).toFixed(2),
        note: `SwiftShader runs shaders on the CPU; CPU LBS alone ${fmtMs(cpuMs)}`,
      },
    ]);
  },
  viewport,
);
