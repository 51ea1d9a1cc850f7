/**
 * The views feed themselves from the scene (renderer/view/scene-feed.ts), whatever order the subscribers were made
 * in: a new scene rebuilds the views and frames the camera; an edit of the skeleton rebuilds them and keeps the
 * camera; a new mesh's views get its triangles and a selection of its own length even when the feed subscribed
 * before the meshes and binding controllers that reset them. The views are a recording stand-in (no GPU here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SceneFeed } from '../../renderer/view/scene-feed.ts';
import type { SceneView } from '../../renderer/view/scene-view.ts';
import { MeshesController } from '../../renderer/meshes/meshes-controller.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { demoDocument, twistDemoDocument, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';

function recordingViews(doc: SceneDocument) {
  const log: string[] = [];
  const views = {
    weightView: {
      vertexCount: vertexCountOf(doc),
      setHandles: () => void log.push('handles'),
      setSelection: (selection: Uint8Array) => void log.push(`selection ${selection.length} on ${views.weightView.vertexCount}`),
    },
    skinned: { setInfluences: () => void log.push('influences') },
    rebuild(next: SceneDocument, _influences: unknown, bone: number, selection: Uint8Array) {
      views.weightView.vertexCount = vertexCountOf(next);
      log.push(`rebuild ${vertexCountOf(next)} bone ${bone} selection ${selection.length}`);
    },
    setTriangles: (triangles: Uint32Array) => void log.push(`triangles ${triangles.length / 3}`),
    selectBone: (_: SceneDocument, bone: number) => void log.push(`bone ${bone}`),
  };
  return { views, log };
}

function setup(feedFirst: boolean) {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const { views, log } = recordingViews(store.doc);
  const frames: number[] = [];
  const binding = {
    selection: new Uint8Array(vertexCountOf(store.doc)),
    selectionVersion: 0,
    listeners: [] as (() => void)[],
    onChange(listener: () => void) {
      this.listeners.push(listener);
      return () => undefined;
    },
  };
  let meshes: MeshesController | undefined;
  let bones: BoneSelection | undefined;
  // The controllers, made before or after the feed: their store subscriptions come in that order.
  const makeControllers = () => {
    meshes = new MeshesController(store);
    bones = new BoneSelection(store);
    // A stand-in of the binding controller's reset: a new mesh gets a selection of its own length.
    store.subscribe((change) => {
      if (change.kind === 'document' && change.fields.has('mesh')) {
        binding.selection = new Uint8Array(vertexCountOf(store.doc));
        binding.selectionVersion++;
        for (const listener of binding.listeners) listener();
      }
    });
  };
  // The feed reaches the controllers through these, whenever they are made; their own listeners connect at the end.
  const connections: (() => void)[] = [];
  const makeFeed = () =>
    new SceneFeed(
      {
        store,
        meshes: {
          visibleTriangles: () => meshes!.visibleTriangles(),
          onChange: (listener) => (connections.push(() => meshes!.onChange(listener)), () => undefined),
        },
        binding,
        bones: {
          get bone() {
            return bones!.bone;
          },
          onChange: (listener) => (connections.push(() => bones!.onChange(listener)), () => undefined),
        },
        exportSettings: () => ({ influences: 4, weightComponent: 'float' }),
      },
      {
        views: views as unknown as SceneView,
        deformation: {
          setDocument: () => void log.push('deformation document'),
          setHandles: () => undefined,
          setTriangles: () => undefined,
          setInfluences: () => undefined,
        },
        viewport: { frame: () => void frames.push(1), invalidate: () => undefined },
        markPose: () => undefined,
      },
    );
  if (feedFirst) {
    makeFeed();
    makeControllers();
  } else {
    makeControllers();
    makeFeed();
  }
  for (const connect of connections) connect();
  return { store, log, frames, bones: bones! };
}

for (const feedFirst of [true, false]) {
  test(`the views follow the scene, the feed subscribed ${feedFirst ? 'before' : 'after'} the controllers it reads`, () => {
    const { store, log, frames, bones } = setup(feedFirst);
    bones.select(2);
    log.length = 0;

    // An edit of the skeleton: the views are made afresh, the camera stays, the selected bone is kept.
    const joints = store.doc.skeleton.joints.slice();
    joints[0] += 0.1;
    store.edit('Move joint 0', { skeleton: buildSkeleton({ joints, bones: store.doc.skeleton.bones }, 'demo') });
    const V = vertexCountOf(store.doc);
    assert.deepEqual(log.slice(0, 2), [`rebuild ${V} bone 2 selection ${V}`, 'deformation document']);
    assert.equal(frames.length, 0, 'the camera does not move for a skeleton edit');

    // A new scene of another vertex count: rebuilt with a selection of its own length, all its triangles, framed.
    log.length = 0;
    const twist = twistDemoDocument();
    store.open(twist, 'opened the twist test');
    const W = vertexCountOf(twist);
    assert.notEqual(W, V, 'the twist test has another vertex count (the check is not vacuous)');
    assert.ok(
      log.some((line) => line === `rebuild ${W} bone -1 selection ${W}`),
      `the views were rebuilt for the new mesh with no bone and a selection of its length: ${log.join('; ')}`,
    );
    const mismatched = log.filter((line) => {
      const match = /^selection (\d+) on (\d+)$/.exec(line);
      return match !== null && match[1] !== match[2];
    });
    assert.deepEqual(mismatched, [], 'no selection reached views of another vertex count');

    assert.equal(log.filter((line) => line.startsWith('triangles')).at(-1), `triangles ${twist.mesh.triangles.length / 3}`);
    assert.equal(frames.length, 1, 'a new scene is framed once');
  });
}
