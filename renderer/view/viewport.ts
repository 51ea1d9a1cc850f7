/**
 * The 3D view: WebGL2 renderer, perspective camera with orbit/pan/zoom, lights, a ground grid, resize handling
 * and screen-space projection for picking. It renders only when asked (`invalidate`), so an idle paused scene
 * costs nothing.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const scratchVector = new THREE.Vector3();

interface ViewportColors {
  background: number;
  /** the grid's lines through its centre */
  centerLines: number;
  lines: number;
}

/** The viewport's colours in each theme (sRGB hex); the light one stays mid grey so weight colours read on it. */
const VIEWPORT_COLORS = {
  dark: { background: 0x1b1e24, centerLines: 0x3a414d, lines: 0x2a2f38 },
  light: { background: 0xb6bbc3, centerLines: 0x8e949e, lines: 0xa0a6af },
} as const satisfies Record<string, ViewportColors>;

export class Viewport {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(40, 1, 0.01, 100);
  readonly controls: OrbitControls;
  private grid: THREE.GridHelper | null = null;
  /** where the grid was last placed (centre, radius, floor), to draw it again in another theme's colours */
  private gridPlace: { center: THREE.Vector3; radius: number; floor: number } | null = null;
  private colors: ViewportColors = VIEWPORT_COLORS.dark;
  /**
   * Draws the frame instead of the plain full-canvas render when it returns true (the split view of
   * renderer/view/deformation-views.ts); sizes are the canvas's CSS size, as WebGLRenderer.setViewport takes.
   */
  renderHook: ((renderer: THREE.WebGLRenderer, scene: THREE.Scene, camera: THREE.PerspectiveCamera) => boolean) | null = null;
  private dirty = true;
  private readonly resizeObserver: ResizeObserver;

  constructor(private readonly container: HTMLElement) {
    this.renderer = new THREE.WebGLRenderer({ antialias: true, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.renderer.setClearColor(this.colors.background, 1);
    this.renderer.domElement.classList.add('viewport-canvas');
    container.prepend(this.renderer.domElement);

    this.scene.add(new THREE.HemisphereLight(0xdfe8ff, 0x2a2622, 1.6));
    // A key light riding with the camera keeps the side the artist looks at lit while orbiting.
    const key = new THREE.DirectionalLight(0xffffff, 1.7);
    key.position.set(0.6, 0.9, 0.4);
    key.target.position.set(0, 0, -1);
    this.camera.add(key, key.target);
    this.scene.add(this.camera);

    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener('change', () => this.invalidate());

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.resize();
  }

  get maxTextureSize(): number {
    return this.renderer.capabilities.maxTextureSize;
  }

  invalidate(): void {
    this.dirty = true;
  }

  /** Renders if anything changed since the last render; returns whether it did. */
  renderIfNeeded(): boolean {
    if (!this.dirty) return false;
    this.render();
    return true;
  }

  render(): void {
    this.dirty = false;
    if (this.renderHook?.(this.renderer, this.scene, this.camera)) return;
    this.renderer.render(this.scene, this.camera);
  }

  /**
   * Fits the camera to a bounding box, keeping the current viewing direction, and places the ground grid
   * under it. Near and far planes follow the scene's size so any unit works.
   */
  frame(min: readonly number[], max: readonly number[]): void {
    const center = new THREE.Vector3((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
    const radius = Math.max(1e-6, 0.5 * Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]));
    const fov = THREE.MathUtils.degToRad(this.camera.fov);
    const fit = Math.min(fov, 2 * Math.atan(Math.tan(fov / 2) * this.camera.aspect));
    const distance = (radius / Math.sin(fit / 2)) * 0.92;
    const direction = this.camera.position.clone().sub(this.controls.target);
    if (direction.lengthSq() === 0) direction.set(0.35, 0.3, 1);
    direction.normalize();
    this.camera.position.copy(center).addScaledVector(direction, distance);
    this.camera.near = distance / 100;
    this.camera.far = distance * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
    this.placeGrid(center, radius, min[1]);
    this.invalidate();
  }

  /**
   * Looks along `view` (a world direction; the front view is [0, 0, -1]) at a bounding box, fitted as `frame` fits it.
   * The camera's up stays the world's +y.
   */
  lookAlong(view: readonly [number, number, number], min: readonly number[], max: readonly number[]): void {
    scratchVector.set(view[0], view[1], view[2]).normalize();
    this.camera.position.copy(this.controls.target).sub(scratchVector);
    this.frame(min, max);
  }

  /** The background and grid in the page's theme (a preference); the page's CSS follows the theme on its own. */
  setTheme(theme: keyof typeof VIEWPORT_COLORS): void {
    this.colors = VIEWPORT_COLORS[theme];
    this.renderer.setClearColor(this.colors.background, 1);
    if (this.gridPlace) this.placeGrid(this.gridPlace.center, this.gridPlace.radius, this.gridPlace.floor);
    this.invalidate();
  }

  private placeGrid(center: THREE.Vector3, radius: number, floor: number): void {
    if (this.grid) {
      this.scene.remove(this.grid);
      this.grid.geometry.dispose();
      (this.grid.material as THREE.Material).dispose();
    }
    this.gridPlace = { center: center.clone(), radius, floor };
    const size = radius * 4;
    this.grid = new THREE.GridHelper(size, 20, this.colors.centerLines, this.colors.lines);
    this.grid.position.set(center.x, floor, center.z);
    this.scene.add(this.grid);
  }

  /**
   * Projects a world point to CSS pixels in the page.
   * @returns out, with z the normalized device depth (outside [-1, 1] when clipped)
   */
  projectToPage(x: number, y: number, z: number, out: { x: number; y: number; z: number }): { x: number; y: number; z: number } {
    scratchVector.set(x, y, z).project(this.camera);
    const rect = this.renderer.domElement.getBoundingClientRect();
    out.x = rect.left + ((scratchVector.x + 1) / 2) * rect.width;
    out.y = rect.top + ((1 - scratchVector.y) / 2) * rect.height;
    out.z = scratchVector.z;
    return out;
  }

  /**
   * The view ray through a page point (CSS pixels): from the camera through the point, its direction of unit length.
   * @returns origin and direction, world units
   */
  rayThrough(pageX: number, pageY: number): { origin: [number, number, number]; direction: [number, number, number] } {
    const rect = this.renderer.domElement.getBoundingClientRect();
    this.camera.updateMatrixWorld();
    scratchVector.set(((pageX - rect.left) / rect.width) * 2 - 1, 1 - ((pageY - rect.top) / rect.height) * 2, 0.5).unproject(this.camera);
    const origin = this.camera.position;
    scratchVector.sub(origin).normalize();
    return { origin: [origin.x, origin.y, origin.z], direction: [scratchVector.x, scratchVector.y, scratchVector.z] };
  }

  /** The camera's view direction and up in the world, unit vectors. */
  viewAxes(): { view: [number, number, number]; up: [number, number, number] } {
    this.camera.updateMatrixWorld();
    const e = this.camera.matrixWorld.elements;
    const view = scratchVector.set(-e[8], -e[9], -e[10]).normalize();
    const v: [number, number, number] = [view.x, view.y, view.z];
    const up = scratchVector.set(e[4], e[5], e[6]).normalize();
    return { view: v, up: [up.x, up.y, up.z] };
  }

  private resize(): void {
    const width = Math.max(1, this.container.clientWidth);
    const height = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    // Redraw now, not at the next frame: a resized canvas is blank until then.
    this.render();
  }
}
