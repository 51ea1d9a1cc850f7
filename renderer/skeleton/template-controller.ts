/**
 * The template rig as state and workflow, without DOM: which template (humanoid or quadruped, fingers or not), and
 * where each of its markers sits on the rest mesh. A marker is a surface point: where the view ray through its dot
 * first hits the mesh. Defaults are placed by proportion of the mesh's bounding box (a front view looking along −z,
 * y up, the character's left on +x), so a user only adjusts them. Fitting hands the markers, and the view they were
 * placed in, to the template fit (workers/rig/template-rig.ts) and makes its skeleton the scene's in one store edit
 * (workers/rig/skeleton-build.ts).
 * The markers are not part of the scene: moving one is no undo step; the fit is.
 */
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { rayHits, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { fitTemplate, TEMPLATE_MARKERS } from '../../workers/rig/template-rig.ts';
import { replaceSkeleton } from '../../workers/rig/skeleton-build.ts';
import type { BoneEdit } from '../../workers/rig/bone-edits.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { BoneSelection } from './bone-selection.ts';
import { TEMPLATE_KINDS, type TemplateKind } from './template-kinds.ts';

export { TEMPLATE_KINDS, type TemplateKind };

/** The front view: the direction it looks along and its up, the view the markers start in. */
export const TEMPLATE_VIEW: Vec3 = [0, 0, -1];
export const TEMPLATE_UP: Vec3 = [0, 1, 0];

/** A view within this angle of a world axis counts as looking along it (a camera nudged while orbiting). */
const SNAP_COSINE = Math.cos((15 * Math.PI) / 180);

/**
 * Where each marker starts, as a fraction of the bounding box seen from the front: u across (−1 the box's −x side,
 * +1 its +x side: the character's left, facing the viewer), v up (0 its bottom, 1 its top), and the side its ray
 * comes from: the front (along −z), or the back (along +z) for what the front of a quadruped hides. A humanoid in a
 * T-pose and a quadruped facing the viewer are assumed; a marker missing here starts at the middle.
 */
export const MARKER_DEFAULTS: Readonly<Record<TemplateKind, Readonly<Record<string, readonly [number, number, 'front' | 'back']>>>> = {
  humanoid: {
    chin: [0, 0.87, 'front'],
    'wrist.L': [0.77, 0.81, 'front'],
    'wrist.R': [-0.77, 0.81, 'front'],
    'elbow.L': [0.49, 0.81, 'front'],
    'elbow.R': [-0.49, 0.81, 'front'],
    'knee.L': [0.12, 0.29, 'front'],
    'knee.R': [-0.12, 0.29, 'front'],
    groin: [0, 0.5, 'front'],
  },
  quadruped: {
    snout: [0, 0.7, 'front'],
    withers: [0, 0.92, 'front'],
    tail: [0, 0.75, 'back'],
    tailtip: [0, 0.45, 'back'],
    'frontfoot.L': [0.35, 0.03, 'front'],
    'frontfoot.R': [-0.35, 0.03, 'front'],
    'backfoot.L': [0.35, 0.03, 'back'],
    'backfoot.R': [-0.35, 0.03, 'back'],
  },
};

/** A fit the markers cannot give; the message names the marker and says why. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

/** One marker as the panel shows it. */
export interface TemplateMarker {
  id: string;
  label: string;
  /** the surface point it sits on (world units), or null while it is off the mesh */
  point: Vec3 | null;
}

export interface TemplateHost {
  readonly store: SceneStore;
  /** the view ray through a page point (CSS px): its origin and direction, world units */
  rayAt(pageX: number, pageY: number): { origin: Vec3; direction: Vec3 };
  /** the camera's view direction and up now, unit vectors */
  cameraAxes(): { view: Vec3; up: Vec3 };
  /** the selected bone: a fit replaces every bone, so it goes to none, and back with undo */
  readonly selection: Pick<BoneSelection, 'bone' | 'restore'>;
}

/** A unit direction, or the world axis it is within 15° of. */
export function snappedAxis(direction: Vec3): Vec3 {
  for (let k = 0; k < 3; k++) {
    if (Math.abs(direction[k]) >= SNAP_COSINE) {
      const axis: [number, number, number] = [0, 0, 0];
      axis[k] = Math.sign(direction[k]);
      return axis;
    }
  }
  return direction;
}

/** The first point where a ray hits the mesh, or null when it misses. */
export function firstSurfacePoint(mesh: TriangleMesh, origin: Vec3, direction: Vec3): Vec3 | null {
  const [hit] = rayHits(mesh, origin, direction);
  if (!hit) return null;
  return [origin[0] + hit.t * direction[0], origin[1] + hit.t * direction[1], origin[2] + hit.t * direction[2]];
}

/**
 * Where a marker starts on a mesh: the surface under its box proportion, seen along −z (from the back: along +z).
 * When the ray there misses (between the legs, beside a thin arm), the vertex nearest to it across the view is taken.
 * @param mesh  positions #V × 3, triangles #F × 3
 */
export function defaultMarkerPoint(mesh: TriangleMesh, kind: TemplateKind, id: string): Vec3 {
  const { min, max, diagonal } = boundingBox(mesh.positions);
  const [u, v, from] = MARKER_DEFAULTS[kind][id] ?? [0, 0.5, 'front'];
  const x = (min[0] + max[0]) / 2 + (u * (max[0] - min[0])) / 2;
  const y = min[1] + v * (max[1] - min[1]);
  const facing = from === 'front' ? 1 : -1;
  const origin: Vec3 = [x, y, from === 'front' ? max[2] + diagonal : min[2] - diagonal];
  const hit = firstSurfacePoint(mesh, origin, [0, 0, -facing]);
  if (hit) return hit;
  const P = mesh.positions;
  let best = 0;
  let bestDistance = Infinity;
  for (let i = 0; i < P.length; i += 3) {
    const d = (P[i] - x) ** 2 + (P[i + 1] - y) ** 2;
    // Of vertices as near across the view, the one nearest the viewer is what the viewer sees.
    if (d < bestDistance || (d === bestDistance && facing * (P[i + 2] - P[3 * best + 2]) > 0)) {
      best = i / 3;
      bestDistance = d;
    }
  }
  return [P[3 * best], P[3 * best + 1], P[3 * best + 2]];
}

export class TemplateController {
  kind: TemplateKind = 'humanoid';
  fingers = false;
  /**
   * The view the markers were placed in, as the fit takes it: the camera's at the latest drop (snapped to a world axis
   * within 15°), the front view until then
   */
  view: { view: Vec3; up: Vec3 } = { view: TEMPLATE_VIEW, up: TEMPLATE_UP };
  /** marker id → surface point (null: off the mesh), for the mesh `placedOn` */
  private points = new Map<string, Vec3 | null>();
  private placedOn: TriangleMesh | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly host: TemplateHost) {
    // A new mesh puts the markers back at its defaults; a skeleton edit (the fit itself) keeps them where they are.
    host.store.subscribe((change) => {
      if (change.kind === 'document' && host.store.doc.mesh !== this.placedOn) {
        this.placedOn = null;
        this.changed();
      }
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The template's markers in its order, each where it sits on the scene's mesh. */
  markers(): TemplateMarker[] {
    this.placeDefaultsIfNew();
    return TEMPLATE_MARKERS[this.kind].map(({ id, label }) => ({ id, label, point: this.points.get(id) ?? null }));
  }

  /** Another template: its markers start at their defaults. */
  setKind(kind: TemplateKind): void {
    if (kind === this.kind) return;
    this.kind = kind;
    this.placedOn = null;
    this.changed();
  }

  setFingers(on: boolean): void {
    this.fingers = on;
    this.changed();
  }

  /** Every marker back at its default on the scene's mesh. */
  resetMarkers(): void {
    this.placedOn = null;
    this.changed();
  }

  /**
   * A marker's dot dropped at a page point: it sits where the view ray there first hits the rest mesh, or off the
   * mesh (null) when the ray misses.
   * @returns the surface point, or null
   */
  dropMarker(id: string, pageX: number, pageY: number): Vec3 | null {
    this.checkMarker(id);
    const { origin, direction } = this.host.rayAt(pageX, pageY);
    const point = firstSurfacePoint(this.host.store.doc.mesh, origin, direction);
    this.points.set(id, point);
    const camera = this.host.cameraAxes();
    this.view = { view: snappedAxis(camera.view), up: snappedAxis(camera.up) };
    this.changed();
    return point;
  }

  /** Puts a marker on a surface point given as is (a script that knows where it goes). */
  setMarker(id: string, point: Vec3): void {
    this.checkMarker(id);
    this.points.set(id, [point[0], point[1], point[2]]);
    this.changed();
  }

  /**
   * The store edit that gives the scene the template fitted to the markers (with provisional weights).
   * @throws TemplateError naming the markers that are off the mesh; whatever the fit refuses, with its reason
   */
  fitEdit(): BoneEdit {
    const doc = this.host.store.doc;
    const markers: Record<string, Vec3> = {};
    const off: string[] = [];
    for (const { id, label, point } of this.markers()) {
      if (point) markers[id] = point;
      else off.push(label);
    }
    if (off.length > 0)
      throw new TemplateError(
        `template.fit: marker${off.length > 1 ? 's' : ''} ${off.join(', ')} ${off.length > 1 ? 'are' : 'is'} off the mesh; drag ${off.length > 1 ? 'them' : 'it'} onto the mesh`,
      );
    const rig = fitTemplate(doc.mesh, this.kind, markers, { fingers: this.fingers, ...this.view });
    const label = `Fit the ${this.kind} template${this.fingers ? ' with fingers' : ''}`;
    return replaceSkeleton(doc, rig, `${this.kind} template`, label);
  }

  /**
   * Fits the template: one store edit, one undo step. A selected bone is one the fit removes: the selection goes to
   * none in the same step (before the skeleton changes, as skeleton-commands.ts moves it), and comes back with undo.
   * @throws TemplateError as fitEdit does
   */
  fit(): void {
    const { store, selection } = this.host;
    const edit = this.fitEdit();
    const before = selection.bone;
    if (before < 0) {
      store.edit(edit.label, edit.fields);
      return;
    }
    store.history.group(edit.label, () => {
      selection.restore(-1);
      store.history.push({ label: edit.label, bytes: 0, undo: () => selection.restore(before), redo: () => selection.restore(-1) });
      store.edit(edit.label, edit.fields);
    });
  }

  /** Checks that the template has the marker, with the markers on the scene's mesh (a new one: at its defaults). */
  private checkMarker(id: string): void {
    this.placeDefaultsIfNew();
    if (!TEMPLATE_MARKERS[this.kind].some((m) => m.id === id))
      throw new TemplateError(
        `template marker ${JSON.stringify(id)}: the ${this.kind} template has no such marker (it has ${TEMPLATE_MARKERS[this.kind].map((m) => m.id).join(', ')})`,
      );
  }

  private placeDefaultsIfNew(): void {
    const mesh = this.host.store.doc.mesh;
    if (this.placedOn === mesh) return;
    this.placedOn = mesh;
    this.view = { view: TEMPLATE_VIEW, up: TEMPLATE_UP };
    this.points = new Map(TEMPLATE_MARKERS[this.kind].map(({ id }) => [id, defaultMarkerPoint(mesh, this.kind, id)]));
  }
}
