/**
 * The GLB container's reader and writer under the names the export's modules still import them by; the container
 * is gltf/glb.ts and the checks of a file before it is read are gltf/sanitize-input.ts.
 */
export { parseGlb, writeGlb as buildGlb } from './gltf/glb.ts';
