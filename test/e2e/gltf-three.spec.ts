/**
 * Our exported GLB as three.js sees it: GLTFLoader loads it in Chromium, an AnimationMixer poses the clip, and
 * SkinnedMesh.applyBoneTransform gives the posed vertices, which must equal our CPU forward kinematics + linear
 * blend skinning. The page is self-contained: a small module bundled here with esbuild from node_modules/three and
 * the GLB are both served by `page.route` on a made-up origin, so the test needs neither the app build nor a network.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { dataFile, repoRoot } from './app-driver.ts';

const ORIGIN = 'http://gltf-three.test';

/** Runs in the page: loads the GLB and returns three's posed positions (world space) at each time of the clip. */
const PAGE_MODULE = `
import { AnimationMixer, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
window.poseWithThree = async (url, clipName, times) => {
  const gltf = await new GLTFLoader().loadAsync(url);
  let mesh = null;
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) mesh = o; });
  const clip = gltf.animations.find((a) => a.name === clipName);
  const mixer = new AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  const position = mesh.geometry.attributes.position;
  const v = new Vector3();
  const frames = [];
  for (const time of times) {
    mixer.setTime(time);
    gltf.scene.updateMatrixWorld(true);
    const out = new Array(position.count * 3);
    for (let i = 0; i < position.count; i++) {
      v.fromBufferAttribute(position, i);
      mesh.applyBoneTransform(i, v);
      v.applyMatrix4(mesh.matrixWorld);
      out[3 * i] = v.x; out[3 * i + 1] = v.y; out[3 * i + 2] = v.z;
    }
    frames.push(out);
  }
  return { names: gltf.animations.map((a) => a.name), bones: mesh.skeleton.bones.length, frames };
};
`;

test('three.js GLTFLoader poses our exported arm like our CPU linear blend skinning', async ({ page }) => {
  const mesh = readObj(readFileSync(dataFile('libigl', 'arm.obj'), 'utf8'), 'arm.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('libigl', 'arm.tgf'), 'utf8'), 'arm.tgf'), 'arm.tgf');
  const weights = readDmat(readFileSync(dataFile('libigl', 'arm-weights.dmat')), 'arm-weights.dmat');
  const boneCount = skeleton.parents.length;
  const frameCount = 10;
  const rotations = new Float64Array(9 * boneCount * frameCount);
  for (let f = 0; f < frameCount; f++) {
    for (let b = 0; b < boneCount; b++) {
      const a = 0.6 * Math.sin(0.7 * f + b);
      rotations.set([Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0, 0, 0, 1], 9 * (f * boneCount + b));
    }
  }
  const poses: PoseSequence = { kind: 'matrices', boneCount, frameCount, rotations };
  const glb = await exportGltf({ mesh, skeleton, weights, clips: [{ name: 'wave', poses }], name: 'arm' }, 'arm.glb');

  const bundle = await build({
    stdin: { contents: PAGE_MODULE, resolveDir: repoRoot, loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/arm.glb') return route.fulfill({ body: Buffer.from(glb.bytes), contentType: 'model/gltf-binary' });
    if (url.pathname === '/page.js') return route.fulfill({ body: bundle.outputFiles[0].text, contentType: 'text/javascript' });
    return route.fulfill({ body: '<!doctype html><script type="module" src="/page.js"></script>', contentType: 'text/html' });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => typeof (window as unknown as { poseWithThree?: unknown }).poseWithThree === 'function');

  const frames = [0, 4, 9];
  const three = await page.evaluate(
    ({ url, times }) =>
      (
        window as unknown as {
          poseWithThree(u: string, c: string, t: number[]): Promise<{ names: string[]; bones: number; frames: number[][] }>;
        }
      ).poseWithThree(url, 'wave', times),
    { url: `${ORIGIN}/arm.glb`, times: frames.map((f) => f / 30) },
  );
  expect(three.names).toEqual(['wave']);
  expect(three.bones).toBe(boneCount);

  const diagonal = boundingBox(mesh.positions).diagonal;
  const influences = influencesFromWeights(weights, 4);
  const frameRotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const expected = new Float64Array(mesh.positions.length);
  frames.forEach((f, i) => {
    samplePose(poses, f, frameRotations);
    forwardKinematics(skeleton, frameRotations, transforms);
    linearBlendSkinning(mesh.positions, influences, transforms, expected);
    const got = three.frames[i];
    expect(got.length).toBe(expected.length);
    let worst = 0;
    for (let k = 0; k < got.length; k += 3)
      worst = Math.max(worst, Math.hypot(got[k] - expected[k], got[k + 1] - expected[k + 1], got[k + 2] - expected[k + 2]));
    expect(worst / diagonal, `frame ${f}`).toBeLessThan(1e-4);
  });
});
