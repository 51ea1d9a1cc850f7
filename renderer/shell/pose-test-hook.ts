/**
 * The test hook's window into posing (`window.__rigwright.pose`): the pose tool's state, the bones posed by hand, the
 * pose on screen, and where the gizmo's rings are on the page, so a test drags them with the real mouse.
 */
import { worldRotations } from '../../workers/rig/bone-rotations.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { PoseEvaluator, PoseView } from '../deform/pose-evaluator.ts';
import type { PoseTool } from '../tools/pose/pose-tool.ts';
import type { ToolManager } from '../tools/tool-manager.ts';
import type { Viewport } from '../view/viewport.ts';

/** What the pose hook reads of the app. */
export interface PoseTestHost {
  readonly store: SceneStore;
  readonly tools: ToolManager;
  readonly viewport: Viewport;
  readonly poseView: PoseView;
  /** the pose on screen, brought up to date */
  shown(): PoseEvaluator;
}

export interface PoseTestHook {
  state(): {
    /** whether the pose tool is the active tool, and its state */
    active: boolean;
    toolState: string;
    space: string;
    ik: boolean;
    rest: boolean;
    /** #B flags of the bones posed by hand, or null */
    posed: number[] | null;
    /** #B × 9 their rotations, or null */
    rotations: number[] | null;
    gizmo: { visible: boolean; axis: string | null };
  };
  /** #B × 9 relative rotations on screen */
  shownRotations(): number[];
  /** #B × 9 world rotations on screen (Q_b = Q_parent · R_b) */
  worldRotations(): number[];
  /** #J × 3 posed joints on screen */
  joints(): number[];
  /** the world direction of a gizmo axis (0, 1, 2) in the space shown */
  gizmoAxis(axis: number): number[];
  /** the page point (CSS px) of a point on a gizmo ring: `angle` radians around the axis's ring */
  ringPoint(axis: number, angle: number): { x: number; y: number };
}

export function poseTestHook(app: PoseTestHost): PoseTestHook {
  const tool = (): PoseTool => app.tools.tool<PoseTool>('pose');
  const projected = { x: 0, y: 0, z: 0 };
  return {
    state: () => {
      const posed = app.store.doc.posedBones;
      const { gizmo } = tool().host;
      return {
        active: app.tools.active.id === 'pose',
        toolState: tool().state,
        space: tool().space,
        ik: tool().ik,
        rest: app.poseView.rest,
        posed: posed ? Array.from(posed.bones) : null,
        rotations: posed ? Array.from(posed.rotations) : null,
        gizmo: { visible: gizmo.visible, axis: gizmo.axis },
      };
    },
    shownRotations: () => Array.from(app.shown().rotations),
    worldRotations: () => {
      const shown = app.shown();
      const out = new Float64Array(shown.rotations.length);
      worldRotations(app.store.doc.skeleton, shown.rotations, out);
      return Array.from(out);
    },
    joints: () => Array.from(app.shown().joints),
    gizmoAxis: (axis) => tool().host.gizmo.axisDirection(axis),
    ringPoint: (axis, angle) => {
      app.shown();
      const [x, y, z] = tool().host.gizmo.ringPoint(axis, angle);
      app.viewport.projectToPage(x, y, z, projected);
      return { x: projected.x, y: projected.y };
    },
  };
}
