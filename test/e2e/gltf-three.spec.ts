/**
 * Our exported GLB as three.js sees it: GLTFLoader loads it in Chromium, an AnimationMixer poses the clip, and
 * SkinnedMesh.applyBoneTransform gives the posed vertices, which must equal our CPU forward kinematics + linear
 * blend skinning. The page is self-contained: a small module bundled here with esbuild from node_modules/three and
 * the GLB are both served by `page.route` on a made-up origin, so the test needs neither the app build nor a network.
 * CesiumMan edited in place (one bone's weights halved onto its parent) loads textured: its material's map is the
 * file's image, its UVs the file's bit for bit, and three poses it like glTF's skinning of the file evaluated in Node.
 */
import { test, expect, type Page } from '@playwright/test';
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
import { WebIO } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { gltfPosedPositions } from '../unit/gltf-skinning-reference.ts';

const ORIGIN = 'http://gltf-three.test';

/** Runs in the page: loads the GLB and returns three's posed positions (world space) at each time of the clip. */
const PAGE_MODULE = `
import { AnimationMixer, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
window.poseWithThree = async (url, clipName, times) => {
  const gltf = await new GLTFLoader().loadAsync(url);
  let mesh = null;
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) mesh = o; });
  const clip = typeof clipName === 'number' ? gltf.animations[clipName] : gltf.animations.find((a) => a.name === clipName);
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
  const map = mesh.material.map;
  const uv = mesh.geometry.attributes.uv;
  return {
    names: gltf.animations.map((a) => a.name),
    bones: mesh.skeleton.bones.length,
    frames,
    map: map ? { width: map.image.width, height: map.image.height } : null,
    uvs: uv ? Array.from({ length: 2 * uv.count }, (_, i) => (i % 2 ? uv.getY(i >> 1) : uv.getX(i >> 1))) : null,
  };
};
`;

/** What the page reports of a loaded asset. */
interface ThreeView {
  names: string[];
  bones: number;
  frames: number[][];
  map: { width: number; height: number } | null;
  uvs: number[] | null;
}

/** Serves the page module and the given files (path → bytes) on ORIGIN, and opens the page. */
async function servePage(page: Page, files: Record<string, Uint8Array>): Promise<void> {
  const bundle = await build({
    stdin: { contents: PAGE_MODULE, resolveDir: repoRoot, loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = new URL(route.request().url());
    const file = files[url.pathname];
    if (file) return route.fulfill({ body: Buffer.from(file), contentType: 'model/gltf-binary' });
    if (url.pathname === '/page.js') return route.fulfill({ body: bundle.outputFiles[0].text, contentType: 'text/javascript' });
    return route.fulfill({ body: '<!doctype html><script type="module" src="/page.js"></script>', contentType: 'text/html' });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => typeof (window as unknown as { poseWithThree?: unknown }).poseWithThree === 'function');
}

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

  await servePage(page, { '/arm.glb': glb.bytes });

  const frames = [0, 4, 9];
  const three = await page.evaluate(
    ({ url, times }) =>
      (
        window as unknown as {
          poseWithThree(u: string, c: string, t: number[]): Promise<ThreeView>;
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

test("three.js GLTFLoader shows CesiumMan edited in place textured, with the file's UVs, and poses it as glTF says", async ({ page }) => {
  const bytes = new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const B = rig.weights.cols;
  const bone = 5;
  const parent = rig.skeleton.parents[bone];
  const data = rig.weights.data.slice();
  for (let v = 0; v < rig.weights.rows; v++) {
    const w = data[v * B + bone];
    data[v * B + bone] = w / 2;
    data[v * B + parent] += w / 2;
  }
  const edited = await exportGltfInPlace(
    {
      source: rig.gltfSource,
      mesh: rig.mesh,
      skeleton: rig.skeleton,
      weights: { ...rig.weights, data },
      boneNames: rig.boneNames,
      clips: rig.clips,
      parts: rig.parts,
    },
    'CesiumMan-edited.glb',
  );
  await servePage(page, { '/cesium.glb': edited.bytes });
  const poses = rig.clips[0].poses;
  // Three of the clip's own key times.
  const times = poses.kind === 'matrices' && poses.times ? [0, 10, 30].map((k) => poses.times![k]) : [0];
  const three = await page.evaluate(
    ({ url, clip, at }) =>
      (window as unknown as { poseWithThree(u: string, c: number, t: number[]): Promise<ThreeView> }).poseWithThree(url, clip, at),
    { url: `${ORIGIN}/cesium.glb`, clip: 0, at: times },
  );
  const io = new WebIO();
  const original = await io.readBinary(bytes);
  const written = await io.readBinary(edited.bytes);
  const image = original.getRoot().listTextures()[0];
  const size = image.getSize()!;
  expect(three.map).toEqual({ width: size[0], height: size[1] });
  const fileUvs = original.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('TEXCOORD_0')!.getArray()!;
  expect(three.uvs).toEqual(Array.from(fileUvs));
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  times.forEach((time, i) => {
    const expected = gltfPosedPositions(written, 0, time);
    const got = three.frames[i];
    expect(got.length).toBe(expected.length);
    let worst = 0;
    for (let k = 0; k < got.length; k += 3)
      worst = Math.max(worst, Math.hypot(got[k] - expected[k], got[k + 1] - expected[k + 1], got[k + 2] - expected[k + 2]));
    expect(worst / diagonal, `${time} s`).toBeLessThan(1e-5);
  });
});
