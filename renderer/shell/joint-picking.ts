import type { Viewport } from '../view/viewport.ts';

/** Smallest pick radius around a joint, in CSS px, so tiny joints stay clickable. */
const MIN_PICK_RADIUS = 8;

const projected = { x: 0, y: 0, z: 0 };

/**
 * The joint drawn under a page point: the nearest on screen within its drawn radius, then the nearest to the
 * camera among those about as near on screen.
 * @param joints       #J × 3 posed joint positions
 * @param jointRadius  the overlay's joint sphere radius, world units
 * @returns the joint index, or -1
 */
export function jointAt(viewport: Viewport, joints: Float64Array, jointRadius: number, pageX: number, pageY: number): number {
  const camera = viewport.camera;
  const rect = viewport.renderer.domElement.getBoundingClientRect();
  const pixelsPerUnitAtOne = rect.height / 2 / Math.tan((camera.fov * Math.PI) / 360);
  let best = -1;
  let bestDistance = Infinity;
  let bestDepth = Infinity;
  for (let j = 0; j < joints.length / 3; j++) {
    const x = joints[3 * j],
      y = joints[3 * j + 1],
      z = joints[3 * j + 2];
    viewport.projectToPage(x, y, z, projected);
    if (projected.z < -1 || projected.z > 1) continue;
    const depth = Math.hypot(x - camera.position.x, y - camera.position.y, z - camera.position.z);
    const radius = Math.max(MIN_PICK_RADIUS, (jointRadius * pixelsPerUnitAtOne) / depth);
    const distance = Math.hypot(projected.x - pageX, projected.y - pageY);
    if (distance > radius) continue;
    if (distance < bestDistance - 0.5 || (Math.abs(distance - bestDistance) <= 0.5 && depth < bestDepth)) {
      best = j;
      bestDistance = distance;
      bestDepth = depth;
    }
  }
  return best;
}

/** A point's page position (CSS px), for tests that click joints. */
export function pagePosition(viewport: Viewport, joints: Float64Array, joint: number): { x: number; y: number } {
  viewport.projectToPage(joints[3 * joint], joints[3 * joint + 1], joints[3 * joint + 2], projected);
  return { x: projected.x, y: projected.y };
}
