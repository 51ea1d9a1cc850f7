/**
 * A named template skeleton fitted inside a mesh from a few markers the user placed on its surface, as online
 * auto-riggers ask: for a humanoid the chin, wrists, elbows, knees and groin; for a quadruped the snout, withers,
 * tail's base and tip and four feet. Each joint is derived from the markers and body proportions, then moved to the middle of
 * the volume along a line through it (the view direction for a humanoid, the up and side directions for a
 * quadruped), so joints sit on the limbs' axes. Only the left side is fitted, from the left markers averaged with
 * the mirrored right ones; the right side is its mirror image across the symmetry plane, so the skeleton is exactly
 * symmetric.
 *
 * Frame: `view` is the direction the front view looks along, `up` the screen's up; side = view × up is the screen's
 * right. The symmetry plane is perpendicular to side, through the middle of the central markers (groin and chin;
 * snout, withers and tail). The left side is the side the `.L` markers are on.
 */
import type { TriangleMesh } from '../formats/types.ts';
import { boundingBox } from '../mesh/bounds.ts';
import { closestPointOnTriangle } from '../paint/closest-point-on-triangle.ts';
import { add, cross, distance, dot, lerp, normalize, scale, sub } from '../math/vec3.ts';
import { rayHits, windingNumber, type Vec3 } from './volume-ray.ts';

export type TemplateKind = 'humanoid' | 'quadruped';

/** Markers or options a fit cannot take; the message names the template and what is wrong. */
export class TemplateFitError extends Error {
  override readonly name = 'TemplateFitError';
}

/** A point the user places on the mesh before fitting. */
export interface TemplateMarker {
  /** the key of its position in fitTemplate's markers, e.g. `wrist.L` */
  id: string;
  /** what the user is asked to place, e.g. `Left wrist` */
  label: string;
}

/** The markers of each template, in the order a user is asked for them. */
export const TEMPLATE_MARKERS: Record<TemplateKind, readonly TemplateMarker[]> = {
  humanoid: [
    { id: 'chin', label: 'Chin' },
    { id: 'wrist.L', label: 'Left wrist' },
    { id: 'wrist.R', label: 'Right wrist' },
    { id: 'elbow.L', label: 'Left elbow' },
    { id: 'elbow.R', label: 'Right elbow' },
    { id: 'knee.L', label: 'Left knee' },
    { id: 'knee.R', label: 'Right knee' },
    { id: 'groin', label: 'Groin' },
  ],
  quadruped: [
    { id: 'snout', label: 'Snout tip' },
    { id: 'withers', label: 'Withers (top of the shoulders)' },
    { id: 'tail', label: 'Tail base' },
    { id: 'tailtip', label: 'Tail tip' },
    { id: 'frontfoot.L', label: 'Left front foot' },
    { id: 'frontfoot.R', label: 'Right front foot' },
    { id: 'backfoot.L', label: 'Left back foot' },
    { id: 'backfoot.R', label: 'Right back foot' },
  ],
};

export interface FitOptions {
  /** humanoid: add five finger chains of three bones to each hand (default false) */
  fingers?: boolean;
  /** the direction the front view looks along; default [0, 0, -1] */
  view?: Vec3;
  /** the screen's up in the front view; default [0, 1, 0] */
  up?: Vec3;
}

export const FIT_DEFAULTS: Required<FitOptions> = { fingers: false, view: [0, 0, -1], up: [0, 1, 0] };

/** A fitted skeleton: joints #J × 3, bones #B × 2 (start joint, end joint, 0-based), one name per bone. */
export interface FittedSkeleton {
  joints: Float64Array;
  bones: Uint32Array;
  names: string[];
}

/**
 * Fits a template skeleton inside the mesh from the markers.
 *
 * Humanoid: `hips` (the root, from just above the groin up to the pelvis), `spine.001`…`spine.003`, `neck`, `head`;
 * per side `shoulder`, `upperarm`, `forearm`, `hand` (with fingers: `thumb`, `index`, `middle`, `ring`, `pinky`,
 * each `.01`…`.03`), `pelvis`, `thigh`, `shin`, `foot`, `toe`. Quadruped: `hips` (root, from the belly up to the
 * pelvis), `spine.001`…`spine.003`, `neck`, `head`, `tail.001`…`tail.003` (pelvis to tail base to tip); per side `shoulder`, `upperarm`,
 * `forearm`, `hand` (front leg), `pelvis`, `thigh`, `shin`, `foot` (back leg). Side names end in `.L` / `.R`.
 * @param mesh     positions #V × 3, triangles #F × 3 (closed and wound CCW seen from outside, for joints to be inside)
 * @param kind     the template
 * @param markers  surface points by marker id (TEMPLATE_MARKERS[kind]), in the mesh's units
 * @param options  fingers, view and up (FIT_DEFAULTS)
 * @returns joints #J × 3, bones #B × 2 (each bone starts at its parent's end joint), names #B
 * @throws TemplateFitError naming the missing markers, a marker with a non-finite coordinate, markers off the mesh
 *         (farther than MARKER_SURFACE_TOLERANCE of its size from its surface), a view parallel to up, or a joint the
 *         fit could not put inside the mesh (winding number at most 1/2) with its bone and the markers it came from
 */
export function fitTemplate(
  mesh: TriangleMesh,
  kind: TemplateKind,
  markers: Readonly<Record<string, Vec3>>,
  options: FitOptions = {},
): FittedSkeleton {
  const wanted = TEMPLATE_MARKERS[kind] as readonly TemplateMarker[] | undefined;
  if (!wanted) throw new TemplateFitError(`fitTemplate: unknown template "${String(kind)}" (humanoid or quadruped)`);
  const missing = wanted.filter((m) => !Object.hasOwn(markers, m.id)).map((m) => m.id);
  if (missing.length > 0) throw new TemplateFitError(`fitTemplate ${kind}: missing markers: ${missing.join(', ')}`);
  for (const { id } of wanted) {
    const p = markers[id];
    if (!Array.isArray(p) || p.length !== 3 || !p.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new TemplateFitError(`fitTemplate ${kind}: marker ${id} must be three finite numbers`);
    }
  }
  const off = markersOffMesh(mesh, wanted, markers);
  if (off.length > 0)
    throw new TemplateFitError(
      `fitTemplate ${kind}: ${off.map(({ id, distance }) => `marker ${id} is ${distance.toPrecision(3)} from the mesh's surface`).join(', ')}: ` +
        `a marker sits on the mesh (within ${MARKER_SURFACE_TOLERANCE * 100} % of its size); move ${off.length > 1 ? 'them' : 'it'} onto it`,
    );
  const fingers = options.fingers ?? FIT_DEFAULTS.fingers;
  const view = options.view ?? FIT_DEFAULTS.view;
  const up = options.up ?? FIT_DEFAULTS.up;
  const frame = makeFrame(view, up, kind, markers);
  const fit = new Fit(mesh, frame);
  if (kind === 'humanoid') fitHumanoid(fit, markers, fingers);
  else fitQuadruped(fit, markers);
  fit.keepInside();
  fit.assertInside(kind);
  return fit.mirrored();
}

/** How far from the mesh's surface a marker may be, in units of the mesh's bounding-box diagonal: 1 %. */
export const MARKER_SURFACE_TOLERANCE = 0.01;

/**
 * The markers farther from the mesh's surface than MARKER_SURFACE_TOLERANCE of its size (a marker typed in the wrong
 * units or axes, or left where the mesh is not), with their distances, in the template's order.
 */
function markersOffMesh(
  mesh: TriangleMesh,
  wanted: readonly TemplateMarker[],
  markers: Readonly<Record<string, Vec3>>,
): { id: string; distance: number }[] {
  const { positions, triangles } = mesh;
  const tolerance = MARKER_SURFACE_TOLERANCE * boundingBox(positions).diagonal;
  const barycentric = new Float64Array(3);
  const off: { id: string; distance: number }[] = [];
  for (const { id } of wanted) {
    let nearest = Infinity;
    for (let f = 0; f < triangles.length && nearest > tolerance * tolerance; f += 3)
      nearest = Math.min(
        nearest,
        closestPointOnTriangle(markers[id], 0, positions, triangles[f], triangles[f + 1], triangles[f + 2], barycentric, 0),
      );
    if (nearest > tolerance * tolerance) off.push({ id, distance: Math.sqrt(nearest) });
  }
  return off;
}

// ---- frame -------------------------------------------------------------------------------------------------------

/**
 * Orthonormal axes and the symmetry plane. side points to the fitted (left) side, so that a point's side coordinate
 * is positive on the left whichever way the model faces.
 */
interface Frame {
  /** a point on the symmetry plane */
  centre: Vec3;
  /** unit normal of the symmetry plane, toward the left markers */
  side: Vec3;
  /** unit screen up, perpendicular to view */
  up: Vec3;
  /** unit, toward the viewer (−view) */
  toward: Vec3;
  /** unit, the way the model faces: toward the viewer when its left side is on the screen's right, else away */
  forward: Vec3;
}

const CENTRAL_MARKERS: Record<TemplateKind, readonly string[]> = {
  humanoid: ['groin', 'chin'],
  quadruped: ['snout', 'withers', 'tail', 'tailtip'],
};

function makeFrame(view: Vec3, up: Vec3, kind: TemplateKind, markers: Readonly<Record<string, Vec3>>): Frame {
  const v = normalize(view);
  const u = v && normalize(sub(up, scale(v, dot(up, v))));
  if (!v || !u) throw new TemplateFitError(`fitTemplate: view and up must be finite, non-zero and not parallel`);
  const right = cross(v, u);
  const central = CENTRAL_MARKERS[kind].map((id) => markers[id]);
  const centre = scale(central.reduce(add), 1 / central.length);
  let leftward = 0;
  for (const { id } of TEMPLATE_MARKERS[kind]) {
    if (id.endsWith('.L')) leftward += dot(sub(markers[id], markers[id.slice(0, -2) + '.R']), right);
  }
  const facing = leftward >= 0;
  return { centre, side: facing ? right : scale(right, -1), up: u, toward: scale(v, -1), forward: facing ? scale(v, -1) : v };
}

// ---- fitting state -----------------------------------------------------------------------------------------------

/** How far to step along up, in units of the model's size, when a point's line misses the mesh: up to 5 %. */
const SEARCH_STEP = 0.0025;
const SEARCH_STEPS = 20;

/** Joints and bones of the left and central half as they are fitted; mirrored() makes the whole skeleton. */
class Fit {
  readonly joints: Vec3[] = [];
  readonly central: boolean[] = [];
  readonly bones: [number, number, string][] = [];
  readonly size: number;
  readonly lowest: number;

  constructor(
    readonly mesh: TriangleMesh,
    readonly frame: Frame,
  ) {
    const box = boundingBox(mesh.positions);
    this.size = box.diagonal;
    let lowest = Infinity;
    const P = mesh.positions;
    for (let i = 0; i < P.length; i += 3) lowest = Math.min(lowest, this.coords([P[i], P[i + 1], P[i + 2]])[1]);
    this.lowest = lowest;
  }

  /** side, up and toward coordinates of a point, relative to the frame's centre */
  coords(p: Vec3): Vec3 {
    const d = sub(p, this.frame.centre);
    return [dot(d, this.frame.side), dot(d, this.frame.up), dot(d, this.frame.toward)];
  }

  point(c: Vec3): Vec3 {
    const { centre, side, up, toward } = this.frame;
    return add(add(add(centre, scale(side, c[0])), scale(up, c[1])), scale(toward, c[2]));
  }

  /** the left marker averaged with the mirror image of the right one, as a point */
  leftMarker(markers: Readonly<Record<string, Vec3>>, id: string): Vec3 {
    const l = this.coords(markers[`${id}.L`]);
    const r = this.coords(markers[`${id}.R`]);
    return this.point([(l[0] - r[0]) / 2, (l[1] + r[1]) / 2, (l[2] + r[2]) / 2]);
  }

  /** the point moved onto the symmetry plane */
  onPlane(p: Vec3): Vec3 {
    const c = this.coords(p);
    return this.point([0, c[1], c[2]]);
  }

  /**
   * The middle of the part of the volume that the line through p along each direction in turn crosses at p (or
   * nearest to p); when the first line misses the mesh, the same for p stepped up and down. p unchanged when no line
   * meets the mesh.
   */
  inside(p: Vec3, ...directions: Vec3[]): Vec3 {
    return directions.reduce((q, direction, i) => this.centred(q, direction, 'nearest', i === 0) ?? q, p);
  }

  /** The middle of the longest part of the volume along the line through p (the torso, not an arm in front of it). */
  deepest(p: Vec3, direction: Vec3): Vec3 {
    return this.centred(p, direction, 'longest', true) ?? p;
  }

  private centred(p: Vec3, direction: Vec3, choice: PartChoice, search: boolean): Vec3 | null {
    let centred = centreAlong(this.mesh, p, direction, this.size, choice);
    for (let k = 1; !centred && search && k <= SEARCH_STEPS; k++) {
      for (const sign of [-1, 1]) {
        centred ??= centreAlong(this.mesh, add(p, scale(this.frame.up, sign * k * SEARCH_STEP * this.size)), direction, this.size, choice);
      }
    }
    return centred;
  }

  /** the distance from p to where the volume ends along the direction (p inside), or 0 */
  reach(p: Vec3, direction: Vec3): number {
    const part = partAlong(this.mesh, p, direction, this.size);
    return part ? Math.max(0, part[1]) : 0;
  }

  /** the part of the volume around p along the direction: [start, end] in units of the direction, p at 0; or null */
  part(p: Vec3, direction: Vec3): [number, number] | null {
    return partAlong(this.mesh, p, direction, this.size);
  }

  joint(p: Vec3, central = false): number {
    this.joints.push(central ? this.onPlane(p) : p);
    this.central.push(central);
    return this.joints.length - 1;
  }

  bone(start: number, end: number, name: string): void {
    this.bones.push([start, end, name]);
  }

  /**
   * Pulls each bone's end joint toward its start joint, in tenths of the bone (onto the start at worst: a finger
   * beyond a mitten hand), until it and its mirror image are both inside the mesh (winding number above 1/2), where
   * the mesh is not quite symmetric, a marker sat on the surface or a proportion overshot a thin part (a finger, the
   * top of the head); parents first, so a child starts from its parent's final end. A joint that no tenth brings
   * inside (its start is outside too) stays where it was, for assertInside to report.
   */
  keepInside(): void {
    for (const [start, end] of this.bones) {
      const from = this.joints[start];
      const to = this.joints[end];
      for (let k = 10; k >= 0; k--) {
        const p = lerp(from, to, k / 10);
        const c = this.coords(p);
        if (this.isInside(p) && this.isInside(this.point([-c[0], c[1], c[2]]))) {
          this.joints[end] = p;
          break;
        }
      }
    }
  }

  /**
   * Throws when a joint (the root's start included) or its mirror image is outside the mesh (winding number at most
   * 1/2), naming the bone it ends (or starts, for the root) and the markers it was placed from.
   */
  assertInside(kind: TemplateKind): void {
    this.joints.forEach((p, j) => {
      const c = this.coords(p);
      // A central joint is its own mirror image; the side is then not part of the bone's name.
      const images = [{ point: p, side: '.L' }];
      if (!this.central[j]) images.push({ point: this.point([-c[0], c[1], c[2]]), side: '.R' });
      for (const { point, side } of images) {
        const winding = windingNumber(this.mesh, point);
        if (winding > 0.5) continue;
        const ending = this.bones.find(([, end]) => end === j);
        const [, end, name] = ending ?? this.bones.find(([start]) => start === j)!;
        const bone = `${name}${this.central[end] ? '' : side}`;
        const sources = markersPlacing(kind, name, ending === undefined);
        throw new TemplateFitError(
          `fitTemplate ${kind}: the ${ending ? 'end' : 'start'} of bone ${bone} lies outside the mesh (winding number ` +
            `${winding.toFixed(2).replace(/^-(0\.00)$/, '$1')}); it is placed from marker${sources.length > 1 ? 's' : ''} ` +
            `${sources.join(', ')}: check that ${sources.length > 1 ? 'they sit' : 'it sits'} where the template asks, seen in ` +
            `the view the markers were placed in`,
        );
      }
    });
  }

  private isInside(p: Vec3): boolean {
    return windingNumber(this.mesh, p) > 0.5;
  }

  /** The central joints once, every side joint and bone twice: as fitted (`.L`) and mirrored (`.R`). */
  mirrored(): FittedSkeleton {
    const index = new Int32Array(this.joints.length);
    const mirrorIndex = new Int32Array(this.joints.length);
    const out: number[] = [];
    this.joints.forEach((p, j) => {
      index[j] = out.length / 3;
      out.push(...p);
    });
    this.joints.forEach((p, j) => {
      if (this.central[j]) {
        mirrorIndex[j] = index[j];
        return;
      }
      const c = this.coords(p);
      mirrorIndex[j] = out.length / 3;
      out.push(...this.point([-c[0], c[1], c[2]]));
    });
    const bones: number[] = [];
    const names: string[] = [];
    for (const [start, end, name] of this.bones) {
      bones.push(index[start], index[end]);
      names.push(this.central[end] ? name : `${name}.L`);
    }
    for (const [start, end, name] of this.bones) {
      if (this.central[end]) continue;
      bones.push(mirrorIndex[start], mirrorIndex[end]);
      names.push(`${name}.R`);
    }
    return { joints: Float64Array.from(out), bones: Uint32Array.from(bones), names };
  }
}

// ---- which markers place which joint ------------------------------------------------------------------------------

/**
 * The markers each bone's end joint is placed from (directly, or through a length or direction they give), by the
 * bone's name without its `.NNN` / `.0N` number; `start` for the root's start joint. Side markers are named without
 * their side: both sides' markers place a side joint (the left averaged with the mirrored right).
 */
const PLACING_MARKERS: Record<TemplateKind, Readonly<Record<string, readonly string[]>>> = {
  humanoid: {
    start: ['groin'],
    hips: ['groin', 'chin'],
    spine: ['groin', 'chin'],
    neck: ['chin'],
    head: ['chin'],
    shoulder: ['elbow', 'wrist'],
    upperarm: ['elbow'],
    forearm: ['wrist'],
    hand: ['wrist', 'elbow'],
    thumb: ['wrist', 'elbow'],
    index: ['wrist', 'elbow'],
    middle: ['wrist', 'elbow'],
    ring: ['wrist', 'elbow'],
    pinky: ['wrist', 'elbow'],
    pelvis: ['groin', 'chin', 'knee'],
    thigh: ['knee'],
    shin: ['knee', 'groin'],
    foot: ['knee'],
    toe: ['knee'],
  },
  quadruped: {
    start: ['tail', 'withers'],
    hips: ['tail', 'withers'],
    spine: ['tail', 'withers'],
    neck: ['withers', 'snout'],
    head: ['snout', 'withers'],
    tail: ['tail', 'tailtip'],
    shoulder: ['withers', 'frontfoot'],
    upperarm: ['withers', 'frontfoot'],
    forearm: ['withers', 'frontfoot'],
    hand: ['withers', 'frontfoot'],
    pelvis: ['tail', 'withers', 'backfoot'],
    thigh: ['tail', 'withers', 'backfoot'],
    shin: ['tail', 'withers', 'backfoot'],
    foot: ['tail', 'withers', 'backfoot'],
  },
};

/** The marker ids that place the end (or with `start`, the start) of the bone named `name` (fitted, without side). */
function markersPlacing(kind: TemplateKind, name: string, start: boolean): string[] {
  const ids = new Set(TEMPLATE_MARKERS[kind].map((m) => m.id));
  const bases = PLACING_MARKERS[kind][start ? 'start' : name.split('.')[0]] ?? [];
  return bases.flatMap((base) => (ids.has(base) ? [base] : [`${base}.L`, `${base}.R`]));
}

// ---- humanoid ----------------------------------------------------------------------------------------------------

/** Finger joints in units of the hand's length: along the hand from the wrist, and across it toward the thumb. */
const FINGERS: readonly { name: string; joints: readonly (readonly [number, number])[] }[] = [
  {
    name: 'thumb',
    joints: [
      [0.25, 0.2],
      [0.42, 0.3],
      [0.58, 0.36],
    ],
  },
  {
    name: 'index',
    joints: [
      [0.5, 0.1],
      [0.7, 0.11],
      [0.9, 0.12],
    ],
  },
  {
    name: 'middle',
    joints: [
      [0.52, 0],
      [0.73, 0],
      [0.94, 0],
    ],
  },
  {
    name: 'ring',
    joints: [
      [0.5, -0.09],
      [0.7, -0.1],
      [0.9, -0.11],
    ],
  },
  {
    name: 'pinky',
    joints: [
      [0.46, -0.17],
      [0.62, -0.19],
      [0.78, -0.2],
    ],
  },
];

/**
 * Proportions, in units of the groin-to-chin height T: the hips bone runs from 0.05 T to 0.2 T above the groin,
 * the hip joints 0.15 T above it and at most 0.13 T to the side (no farther out than the knees); the neck starts 0.1 T below the chin and the head
 * 0.05 T above it and reaches at most 0.3 T higher. The upper arm is 1.1 times the forearm; the ankle is 12 % of the
 * knee's height above the soles, the foot's bones at 6 % of it.
 */
function fitHumanoid(fit: Fit, markers: Readonly<Record<string, Vec3>>, fingers: boolean): void {
  const { up, toward } = fit.frame;
  const view = scale(toward, -1);
  const groin = fit.onPlane(markers.groin);
  const chin = fit.onPlane(markers.chin);
  const torso = fit.coords(chin)[1] - fit.coords(groin)[1];
  if (!(torso > 0)) throw new TemplateFitError('fitTemplate humanoid: the chin marker must be above the groin marker');
  const above = (p: Vec3, fraction: number): Vec3 => add(p, scale(up, fraction * torso));
  const centralInside = (p: Vec3): Vec3 => fit.onPlane(fit.deepest(p, view));

  const root = fit.joint(centralInside(above(groin, 0.05)), true);
  const pelvisPoint = centralInside(above(groin, 0.2));
  const pelvis = fit.joint(pelvisPoint, true);
  fit.bone(root, pelvis, 'hips');
  const neckBasePoint = centralInside(above(chin, -0.1));
  let previous = pelvis;
  for (const [k, name] of ['spine.001', 'spine.002', 'spine.003'].entries()) {
    const next = k === 2 ? fit.joint(neckBasePoint, true) : fit.joint(centralInside(lerp(pelvisPoint, neckBasePoint, (k + 1) / 3)), true);
    fit.bone(previous, next, name);
    previous = next;
  }
  const neckBase = previous;
  const headBasePoint = fit.onPlane(fit.inside(above(chin, 0.05), view));
  const headBase = fit.joint(headBasePoint, true);
  fit.bone(neckBase, headBase, 'neck');
  const headTop = fit.joint(add(headBasePoint, scale(up, Math.min(0.3 * torso, 0.8 * fit.reach(headBasePoint, up)))), true);
  fit.bone(headBase, headTop, 'head');

  // arm
  const elbowPoint = fit.inside(fit.leftMarker(markers, 'elbow'), view);
  const wristPoint = fit.inside(fit.leftMarker(markers, 'wrist'), view);
  const forearmLength = distance(elbowPoint, wristPoint);
  const along = normalize(sub(wristPoint, elbowPoint)) ?? fit.frame.side;
  const shoulderPoint = fit.inside(sub(elbowPoint, scale(along, 1.1 * forearmLength)), view);
  const shoulder = fit.joint(shoulderPoint);
  fit.bone(neckBase, shoulder, 'shoulder');
  const elbow = fit.joint(elbowPoint);
  fit.bone(shoulder, elbow, 'upperarm');
  const wrist = fit.joint(wristPoint);
  fit.bone(elbow, wrist, 'forearm');
  const handLength = Math.min(0.97 * fit.reach(wristPoint, along), 0.75 * forearmLength);
  const thumbward = normalize(sub(toward, scale(along, dot(toward, along)))) ?? up;
  const palmNormal = cross(along, thumbward);
  const handPoint = (a: number, b: number): Vec3 => add(wristPoint, add(scale(along, a * handLength), scale(thumbward, b * handLength)));
  if (fingers) {
    const palm = fit.joint(handPoint(0.2, 0));
    fit.bone(wrist, palm, 'hand');
    for (const finger of FINGERS) {
      let from = palm;
      finger.joints.forEach(([a, b], k) => {
        const next = fit.joint(fit.inside(handPoint(a, b), palmNormal));
        fit.bone(from, next, `${finger.name}.0${k + 1}`);
        from = next;
      });
    }
  } else {
    fit.bone(wrist, fit.joint(handPoint(0.5, 0)), 'hand');
  }

  // leg
  const kneePoint = fit.inside(fit.leftMarker(markers, 'knee'), view);
  const knee = fit.coords(kneePoint);
  const groinHeight = fit.coords(groin)[1];
  const hipPoint = fit.inside(fit.point([Math.min(0.13 * torso, knee[0]), groinHeight + 0.15 * torso, fit.coords(pelvisPoint)[2]]), view);
  const hip = fit.joint(hipPoint);
  fit.bone(pelvis, hip, 'pelvis');
  fit.bone(hip, fit.joint(kneePoint), 'thigh');
  const kneeJoint = fit.joints.length - 1;
  const kneeAboveSole = knee[1] - fit.lowest;
  const legDown = normalize(sub(kneePoint, hipPoint)) ?? scale(up, -1);
  const descent = -dot(legDown, up);
  const ankleDrop = kneeAboveSole * (1 - 0.12);
  const ankleGuess = descent > 0.3 ? add(kneePoint, scale(legDown, ankleDrop / descent)) : add(kneePoint, scale(up, -ankleDrop));
  const anklePoint = fit.inside(ankleGuess, fit.frame.side, view);
  const ankle = fit.joint(anklePoint);
  fit.bone(kneeJoint, ankle, 'shin');
  // the foot: the line toward the viewer at 6 % of the knee's height above the soles runs from heel to toes
  const ankleCoords = fit.coords(anklePoint);
  const footLine = fit.point([ankleCoords[0], fit.lowest + 0.06 * kneeAboveSole, ankleCoords[2]]);
  const footPart = fit.part(footLine, toward);
  const { forward } = fit.frame;
  let ball: Vec3, toeTip: Vec3;
  if (footPart) {
    const footCentre = footLine;
    const [heel, toes] = dot(forward, toward) > 0 ? [footPart[0], footPart[1]] : [-footPart[1], -footPart[0]];
    const length = toes - heel;
    // over the sole, in the middle of the foot's thickness but no higher than 5 % of the knee's height (where the leg
    // stands on it, the volume above goes on up the leg)
    const overSole = (q: Vec3): Vec3 => {
      const part = fit.part(q, up);
      return part ? add(q, scale(up, part[0] + Math.min((part[1] - part[0]) / 2, 0.05 * kneeAboveSole))) : q;
    };
    ball = overSole(add(footCentre, scale(forward, heel + 0.7 * length)));
    toeTip = overSole(add(footCentre, scale(forward, heel + 0.9 * length)));
  } else {
    ball = fit.inside(add(anklePoint, scale(up, -0.5 * (ankleCoords[1] - fit.lowest))), view);
    toeTip = ball;
  }
  const ballJoint = fit.joint(ball);
  fit.bone(ankle, ballJoint, 'foot');
  fit.bone(ballJoint, fit.joint(toeTip), 'toe');
}

// ---- quadruped ---------------------------------------------------------------------------------------------------

/**
 * The spine, neck, head and tail are centred along up; the legs along the side and then the horizontal axis across
 * them, below the hip or shoulder joint, which stays where the proportions put it (inside the body).
 * Proportions: the pelvis 20 % of the way from the tail base to the withers; the head starts 60 % of the way from the
 * withers to the snout; hip and shoulder joints a quarter of the way down from the spine to the feet, at 80 % of the
 * feet's distance from the symmetry plane; knees and elbows 45 %, ankles and wrists 80 % of the way to the feet.
 */
function fitQuadruped(fit: Fit, markers: Readonly<Record<string, Vec3>>): void {
  const { up, side } = fit.frame;
  const spineInside = (p: Vec3): Vec3 => fit.onPlane(fit.inside(fit.onPlane(p), up));
  const tailBase = spineInside(markers.tail);
  const withers = spineInside(markers.withers);
  const snout = fit.onPlane(markers.snout);
  const pelvisPoint = spineInside(lerp(tailBase, withers, 0.2));
  const belly = fit.part(pelvisPoint, up);
  const root = fit.joint(belly ? add(pelvisPoint, scale(up, belly[0] / 2)) : pelvisPoint, true);
  const pelvis = fit.joint(pelvisPoint, true);
  fit.bone(root, pelvis, 'hips');
  let previous = pelvis;
  for (const [k, name] of ['spine.001', 'spine.002', 'spine.003'].entries()) {
    const next = fit.joint(k === 2 ? withers : spineInside(lerp(pelvisPoint, withers, (k + 1) / 3)), true);
    fit.bone(previous, next, name);
    previous = next;
  }
  const chest = previous;
  const headBasePoint = spineInside(lerp(withers, snout, 0.6));
  const headBase = fit.joint(headBasePoint, true);
  fit.bone(chest, headBase, 'neck');
  fit.bone(headBase, fit.joint(spineInside(lerp(snout, headBasePoint, 0.15)), true), 'head');
  const tailTip = fit.onPlane(markers.tailtip);
  let tailJoint = pelvis;
  for (const [k, p] of [tailBase, spineInside(lerp(tailBase, tailTip, 0.5)), spineInside(lerp(tailTip, tailBase, 0.1))].entries()) {
    const next = fit.joint(p, true);
    fit.bone(tailJoint, next, `tail.00${k + 1}`);
    tailJoint = next;
  }

  const across = cross(side, up);
  const legInside = (p: Vec3): Vec3 => fit.inside(p, side, across);
  const leg = (from: number, fromPoint: Vec3, foot: Vec3, names: readonly string[]): void => {
    const f = fit.coords(foot);
    const s = fit.coords(fromPoint);
    const top = fit.point([0.8 * f[0], s[1] + 0.25 * (f[1] - s[1]), f[2]]);
    const points = [top, ...[lerp(top, foot, 0.45), lerp(top, foot, 0.8), lerp(foot, top, 0.05)].map(legInside)];
    let previousJoint = from;
    points.forEach((p, k) => {
      const next = fit.joint(p);
      fit.bone(previousJoint, next, names[k]);
      previousJoint = next;
    });
  };
  leg(chest, withers, fit.leftMarker(markers, 'frontfoot'), ['shoulder', 'upperarm', 'forearm', 'hand']);
  leg(pelvis, pelvisPoint, fit.leftMarker(markers, 'backfoot'), ['pelvis', 'thigh', 'shin', 'foot']);
}

// ---- lines through the volume ------------------------------------------------------------------------------------

/** Which part of the volume along a line: the one containing the point (or nearest to it), or the longest. */
type PartChoice = 'nearest' | 'longest';

/**
 * A part of the volume along the line p + t·direction (unit direction): the one that contains p, or else the one
 * nearest to it; or the longest. Hits from far behind p are counted as in volumeMidpoint (one level in for the first
 * hit's orientation, one out for the other), each part running from a hit at depth 0 → 1 to the hit back to 0; an
 * unclosed rest pairs its hits in order. Returns [start, end] relative to p, or null when the line misses the mesh.
 */
function partAlong(mesh: TriangleMesh, p: Vec3, direction: Vec3, size: number, choice: PartChoice = 'nearest'): [number, number] | null {
  const unit = normalize(direction);
  if (!unit) return null;
  const back = 2 * size + Math.hypot(...p);
  const hits = rayHits(mesh, sub(p, scale(unit, back)), unit);
  if (hits.length === 0) return null;
  const parts: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (const h of hits) {
    if (depth === 0) start = h.t;
    depth += h.entering === hits[0].entering ? 1 : -1;
    if (depth === 0) parts.push([start - back, h.t - back]);
    if (depth < 0) break;
  }
  if (depth !== 0) {
    const rest = hits.slice(hits.findIndex((h) => h.t >= start));
    for (let k = 0; k < rest.length; k += 2) parts.push([rest[k].t - back, (rest[k + 1] ?? rest[k]).t - back]);
  }
  let best: [number, number] | null = null;
  let bestGap = Infinity;
  for (const part of parts) {
    const gap = choice === 'longest' ? part[0] - part[1] : part[0] > 0 ? part[0] : part[1] < 0 ? -part[1] : 0;
    if (gap < bestGap) [best, bestGap] = [part, gap];
  }
  return best;
}

function centreAlong(mesh: TriangleMesh, p: Vec3, direction: Vec3, size: number, choice: PartChoice = 'nearest'): Vec3 | null {
  const unit = normalize(direction);
  const part = unit && partAlong(mesh, p, unit, size, choice);
  return part && unit ? add(p, scale(unit, (part[0] + part[1]) / 2)) : null;
}
