/**
 * The weight-paint commands: the brush tool, the brush's settings, the whole-mesh paint commands (each one undo
 * step), symmetry and bone locks. What each command is lives in commands/command-catalog.ts.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { BrushSettings, PaintController } from './paint-controller.ts';

/** What the paint commands use of the app. */
export interface PaintCommandsHost {
  readonly paint: Pick<
    PaintController,
    'brush' | 'settings' | 'session' | 'matchJob' | 'run' | 'changed' | 'setSymmetry' | 'cancelMatching' | 'setLocked' | 'floodTitle'
  >;
  /** the brush tool (the shell passes the tool manager's brush) */
  readonly brushTool: {
    readonly active: boolean;
    toggle(): void;
    /** starts resizing the brush (F) */
    resize(): void;
  };
}

export type PaintCommandId =
  | 'tool.brush'
  | 'paint.resizeBrush'
  | 'paint.normalize'
  | 'paint.limit'
  | 'paint.prune'
  | 'paint.smooth'
  | 'paint.flood'
  | 'paint.mirrorToPositive'
  | 'paint.mirrorToNegative'
  | 'paint.brushMode'
  | 'paint.brushRadius'
  | 'paint.brushStrength'
  | 'paint.brushValue'
  | 'paint.brushSpacing'
  | 'paint.brushFalloff'
  | 'paint.throughMesh'
  | 'paint.symmetry'
  | 'paint.cancelMatching'
  | 'paint.lock';

/** What Prune drops below when no threshold is given (the menu's "Prune < 0.01"). */
export const PRUNE_THRESHOLD = 0.01;

export function paintCommands({ paint, brushTool }: PaintCommandsHost): HandlersFor<PaintCommandId> {
  const setBrush = (settings: Partial<BrushSettings>) => {
    Object.assign(paint.brush, settings);
    paint.changed();
  };
  return {
    'tool.brush': { run: () => brushTool.toggle(), checked: () => brushTool.active },
    'paint.resizeBrush': { run: () => brushTool.resize() },
    'paint.normalize': { run: () => paint.run('normalize') },
    'paint.limit': { run: () => paint.run('limit') },
    'paint.prune': { run: (threshold = PRUNE_THRESHOLD) => paint.run('prune', threshold) },
    'paint.smooth': { run: () => paint.run('smooth') },
    // "Flood fill selection" while a selection limits it (its undo step says so too).
    'paint.flood': { run: () => paint.run('flood'), title: () => paint.floodTitle() },
    // Without an axis the controller mirrors across the symmetry axis (x when symmetry is off).
    'paint.mirrorToPositive': { run: (axis) => paint.run('mirror+', undefined, axis) },
    'paint.mirrorToNegative': { run: (axis) => paint.run('mirror-', undefined, axis) },
    'paint.brushMode': {
      run: (mode) => {
        paint.brush.mode = mode;
        paint.changed();
      },
    },
    'paint.brushRadius': {
      run: (radius) => {
        paint.brush.radius = radius;
        paint.changed();
      },
    },
    'paint.brushStrength': { run: (strength) => setBrush({ strength }) },
    'paint.brushValue': { run: (value) => setBrush({ value }) },
    'paint.brushSpacing': { run: (spacing) => setBrush({ spacing }) },
    'paint.brushFalloff': { run: (falloff) => setBrush({ falloff }) },
    'paint.throughMesh': { run: (throughMesh) => setBrush({ throughMesh }) },
    'paint.symmetry': { run: (axis) => paint.setSymmetry(axis) },
    'paint.cancelMatching': {
      run: () => {
        paint.cancelMatching();
        return paint.setSymmetry(paint.session?.symmetry?.axis ?? null);
      },
      canRun: () => paint.matchJob !== null,
      refusal: 'no mirror match is being computed',
    },
    'paint.lock': {
      run: (bone) => {
        paint.setLocked(bone, !paint.settings.locked[bone]);
        return !!paint.settings.locked[bone];
      },
    },
  };
}
