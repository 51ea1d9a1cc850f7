/** Project contents for tests of the project file: a scene's required fields, the rest at their plain values. */
import {
  defaultProjectSettings,
  PROJECT_FORMAT_VERSION,
  type ProjectContents,
  type ProjectScene,
} from '../../workers/formats/project-file.ts';

/**
 * @param scene  the scene's name, mesh, skeleton and weights, and any other field to set
 * @returns contents with nothing else in the scene (no poses, clips, handles, examples) and the default settings
 */
export function projectContents(
  scene: Pick<ProjectScene, 'name' | 'mesh' | 'skeleton' | 'weights'> & Partial<ProjectScene>,
): ProjectContents {
  return {
    formatVersion: PROJECT_FORMAT_VERSION,
    scene: {
      meshFiles: [scene.name],
      skeletonFile: scene.name,
      boneNames: null,
      weightsSource: 'painted',
      poses: null,
      posesFile: null,
      clips: [],
      handles: null,
      handlesFile: null,
      boneScales: null,
      warnings: [],
      examples: [],
      ...scene,
    },
    settings: defaultProjectSettings(scene.mesh.positions.length / 3, scene.skeleton.parents.length),
  };
}
