/**
 * The scene document as a project file holds it, and back: the document's stored fields map one to one onto the
 * project's scene section (workers/formats/project-file.ts), including the asset kept whole (parts, look, OBJ
 * corners, the glTF source); derived fields (normals, bounds) are recomputed.
 */
import type { ProjectScene } from '../formats/project-file.ts';
import { assertConsistent, examplesOf, withDerived, type SceneDocument } from './scene-document.ts';

/** The project's scene section of a document (the same arrays, no copies: the writer only reads them). */
export function projectSceneOf(doc: SceneDocument): ProjectScene {
  return {
    name: doc.name,
    meshFiles: [...doc.meshFiles],
    mesh: doc.mesh,
    skeletonFile: doc.skeletonFile,
    skeleton: doc.skeleton,
    boneNames: doc.boneNames ? [...doc.boneNames] : null,
    weights: doc.weights,
    weightsSource: doc.weightsSource,
    poses: doc.poses,
    posesFile: doc.posesFile,
    clips: doc.clips ? [...doc.clips] : [],
    handles: doc.handles,
    handlesFile: doc.handlesFile,
    boneScales: doc.boneScales ?? null,
    warnings: [...doc.warnings],
    examples: examplesOf(doc).map((e) => ({ ...e })),
    ...(doc.parts ? { parts: doc.parts } : {}),
    ...(doc.look ? { look: doc.look } : {}),
    ...(doc.objCorners ? { objCorners: doc.objCorners } : {}),
    ...(doc.gltfSource ? { gltfSource: doc.gltfSource } : {}),
  };
}

/**
 * The document of a project's scene, checked like every document.
 * @throws LoadError when the parts do not fit together (the reader has checked each on its own)
 */
export function documentFromProject(scene: ProjectScene): SceneDocument {
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
  });
  assertConsistent(doc);
  return doc;
}
