/** A dense matrix, row-major: entry (r, c) is `data[r * cols + c]`. */
export interface DenseMatrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** A triangle mesh. positions: #V × 3 Float64Array (x, y, z per vertex); triangles: #F × 3 Uint32Array, 0-based, CCW. */
export interface TriangleMesh {
  positions: Float64Array;
  triangles: Uint32Array;
}

/** What a mesh reader found besides the triangles, for `rigwright info` and the UI status line. */
export interface MeshFileReport {
  /** polygons with more than three corners that were fan-triangulated */
  polygonsTriangulated: number;
  /** number of `vt` / `vn` records seen (OBJ only; 0 otherwise) */
  texcoords: number;
  normals: number;
  /** non-fatal observations, each naming the place (`line 40: ...`) */
  warnings: string[];
}

/** A TGF skeleton as read: joints #J × 3, bones #B × 2 (start joint, end joint), both 0-based, in file order. */
export interface TgfSkeleton {
  joints: Float64Array;
  bones: Uint32Array;
}

/**
 * One mesh of a scene — a glTF mesh node's primitive, an OBJ object or group, a mesh file — as a contiguous range of
 * the scene's vertices and triangles. The meshes of a scene share one vertex list, so weights, painting, binding and
 * skinning run over all of them at once; a tool can still act on one of them.
 */
export interface MeshPart {
  /** unique in the scene: the node, object, group or file name */
  name: string;
  vertexStart: number;
  vertexCount: number;
  triangleStart: number;
  triangleCount: number;
  /** index into SurfaceLook.materials; -1: the default material (with materialRanges: the one most triangles use) */
  material: number;
  /**
   * The part's triangles as consecutive runs, each with its own material (an OBJ object whose materials share
   * vertices, so they cannot be parts of their own); the runs cover the part's triangles in order. Absent: every
   * triangle of the part has `material`.
   */
  materialRanges?: readonly MaterialRange[];
  /** where it came from in the glTF file the scene was imported from; null for other formats */
  source: { node: number; mesh: number; primitive: number } | null;
  /**
   * false: the file had it without a skin; it stays unskinned on export until it is bound. Its weight rows say how it
   * moves: all zero, it is static (at rest in every pose); all on its nearest ancestor joint's bone, it follows that
   * joint rigidly (a fresh export writes it below the joint node; see partBinding in gltf/fresh-parts.ts)
   */
  skinned: boolean;
}

/** A run of a part's triangles drawn and exported with one material (see MeshPart.materialRanges). */
export interface MaterialRange {
  triangleCount: number;
  /** index into SurfaceLook.materials; -1: the default material */
  material: number;
}

/** A material as the viewport and the export need it: the base colour, from a factor and an optional image. */
export interface MaterialLook {
  name: string;
  /** linear RGBA base colour factor (glTF pbrMetallicRoughness.baseColorFactor) */
  baseColor: [number, number, number, number];
  /** the base colour image as stored in the file (PNG, JPEG, …), or null */
  baseColorTexture: { bytes: Uint8Array; mimeType: string } | null;
  doubleSided: boolean;
  /** glTF alphaMode (absent: 'OPAQUE'): OPAQUE ignores alpha, MASK keeps texels with alpha ≥ alphaCutoff, BLEND blends */
  alphaMode?: 'OPAQUE' | 'MASK' | 'BLEND';
  /** glTF alphaCutoff, used by MASK (absent: 0.5); alpha = baseColor[3] × the texel's alpha */
  alphaCutoff?: number;
  /**
   * KHR_texture_transform on the base colour texture (absent: none): uv' = T(offset) · R(rotation) · S(scale) · uv,
   * rotation in radians about the uv origin (the image's top left), counter-clockwise as glTF defines it
   */
  textureTransform?: TextureTransform;
  /** the base colour texture's sampler (absent: REPEAT both ways, filters left to the viewer) */
  sampler?: TextureSampler;
  /**
   * glTF pbrMetallicRoughness.metallicFactor, 0 … 1 (absent: 0, a non-metal; a fresh export writes the value, never
   * leaving glTF's default 1)
   */
  metallic?: number;
  /** glTF pbrMetallicRoughness.roughnessFactor, 0 … 1 (absent: 1, fully rough; written by a fresh export) */
  roughness?: number;
  /** linear RGB emissive factor, 0 … 1 (absent: [0, 0, 0]; with an emissive texture, the factor it is multiplied by) */
  emissive?: [number, number, number];
  /** the emissive image (sRGB) as stored in the file (absent: none) */
  emissiveTexture?: LookImage;
  /** the tangent-space normal map as stored in the file and its scale (glTF normalTexture.scale) (absent: none) */
  normalTexture?: LookImage & { scale: number };
}

/** An image of a material as stored in its file (PNG, JPEG, …). */
export interface LookImage {
  bytes: Uint8Array;
  mimeType: string;
}

/** KHR_texture_transform's offset, rotation (radians) and scale. */
export interface TextureTransform {
  offset: [number, number];
  rotation: number;
  scale: [number, number];
}

/** A glTF sampler: wrap modes 33071 CLAMP_TO_EDGE, 33648 MIRRORED_REPEAT, 10497 REPEAT; WebGL filter enums or null. */
export interface TextureSampler {
  wrapS: number;
  wrapT: number;
  magFilter: number | null;
  minFilter: number | null;
}

/** How the asset looks: texture coordinates per vertex and the materials the meshes use. */
export interface SurfaceLook {
  /**
   * #V × 2 texture coordinates (glTF: origin top left, v down), or null: per mesh the set its base colour texture
   * reads (TEXCOORD_n, n from the texture info or its KHR_texture_transform texCoord), TEXCOORD_0 otherwise
   */
  uvs: Float32Array | null;
  materials: MaterialLook[];
}

/**
 * OBJ texture coordinates and normals as written: every `vt` and `vn` record and which one each triangle corner
 * uses. Kept per corner because OBJ indexes them apart from positions; the rig's vertices stay the `v` records.
 */
export interface ObjCorners {
  /** #vt × 2 */
  texcoords: Float64Array;
  /** #vn × 3 */
  normals: Float64Array;
  /** #F × 3 index into texcoords per triangle corner, -1 where the face gave none */
  cornerTexcoords: Int32Array;
  /** #F × 3 index into normals per triangle corner, -1 where the face gave none */
  cornerNormals: Int32Array;
}

/**
 * The glTF file a scene was imported from, kept whole: export writes this document back with only what the user
 * changed replaced (skins, weights, inverse bind matrices, edited or new clips, new morph targets).
 */
export interface GltfSource {
  /** the .glb or .gltf file name */
  file: string;
  bytes: Uint8Array;
  /** the external files the .gltf names, by URI as written */
  resources: Record<string, Uint8Array>;
  /** #B: each bone's joint node, as an index into the file's nodes */
  jointNodes: Int32Array;
}
