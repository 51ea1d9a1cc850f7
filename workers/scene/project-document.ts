/**
 * The scene document as a project file holds it, and back: the document's stored fields map one to one onto the
 * project's scene section (workers/formats/project-file.ts), including the asset kept whole (parts, look, OBJ
 * corners, the glTF source); derived fields (normals, bounds) are recomputed. The paint locks, a field of the
 * document, are kept in the project's settings (`settings.paint.locked`, #B): they go into the document when it is
 * opened and come back from it when it is saved.
 */
import type { ProjectScene, ProjectSettings } from '../formats/project-file.ts';
import { assertConsistent, boneCountOf, examplesOf, withDerived, type SceneDocument } from './scene-document.ts';

/**
 * The project's scene section of a document (the same arrays, no copies: the writer only reads them).
 * @param weightsPainted  the weights were painted after they were computed or loaded (the status line's ", painted")
 */
export function projectSceneOf(doc: SceneDocument, weightsPainted = false): ProjectScene {
  return {
    name: doc.name,
    meshFiles: [...doc.meshFiles],
    mesh: doc.mesh,
    skeletonFile: doc.skeletonFile,
    skeleton: doc.skeleton,
    boneNames: doc.boneNames ? [...doc.boneNames] : null,
    weights: doc.weights,
    weightsSource: doc.weightsSource,
    ...(weightsPainted ? { weightsPainted: true } : {}),
    poses: doc.poses,
    posesFile: doc.posesFile,
    clips: doc.clips ? [...doc.clips] : [],
    handles: doc.handles,
    handlesFile: doc.handlesFile,
    boneScales: doc.boneScales ?? null,
    warnings: [...doc.warnings],
    ...(doc.bindingStale ? { bindingStale: true } : {}),
    ...(doc.posedBones ? { posedBones: doc.posedBones } : {}),
    examples: examplesOf(doc).map((e) => ({ ...e })),
    ...(doc.parts ? { parts: doc.parts } : {}),
    ...(doc.look ? { look: doc.look } : {}),
    ...(doc.objCorners ? { objCorners: doc.objCorners } : {}),
    ...(doc.gltfSource ? { gltfSource: doc.gltfSource } : {}),
  };
}

/**
 * The project's settings to save with `doc`: `settings` with the document's paint locks (none locked when it has
 * none), the rest as given.
 */
export function projectSettingsOf(doc: SceneDocument, settings: ProjectSettings): ProjectSettings {
  return { ...settings, paint: { ...settings.paint, locked: doc.paintLocks ?? new Uint8Array(boneCountOf(doc)) } };
}

/**
 * The document of a project's scene, checked like every document.
 * @param settings  the project's settings, for the paint locks (a copy; absent from the document when none is
 *                  locked); without them the document has no locks
 * @throws LoadError when the parts do not fit together (the reader has checked each on its own)
 */
export function documentFromProject(scene: ProjectScene, settings?: Pick<ProjectSettings, 'paint'>): SceneDocument {
  const locked = settings?.paint.locked;
  const doc = withDerived({
    name: scene.name,
    meshFiles: scene.meshFiles,
    mesh: scene.mesh,
    skeletonFile: scene.skeletonFile,
    skeleton: scene.skeleton,
    weights: scene.weights,
    weightsSource: scene.weightsSource,
    poses: scene.poses,
    posesFile: scene.posesFile,
    handles: scene.handles,
    handlesFile: scene.handlesFile,
    boneScales: scene.boneScales,
    warnings: scene.warnings,
    ...(scene.boneNames ? { boneNames: scene.boneNames } : {}),
    ...(scene.clips.length > 0 ? { clips: scene.clips } : {}),
    ...(scene.examples.length > 0 ? { examples: scene.examples } : {}),
    ...(scene.parts ? { parts: scene.parts } : {}),
    ...(scene.look ? { look: scene.look } : {}),
    ...(scene.objCorners ? { objCorners: scene.objCorners } : {}),
    ...(scene.gltfSource ? { gltfSource: scene.gltfSource } : {}),
    ...(locked?.some((l) => l !== 0) ? { paintLocks: locked.slice() } : {}),
    ...(scene.bindingStale ? { bindingStale: true } : {}),
    ...(scene.posedBones ? { posedBones: scene.posedBones } : {}),
  });
  assertConsistent(doc);
  return doc;
}
