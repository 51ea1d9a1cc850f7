/**
 * The part of the `draco3dgltf` package (Google's Draco build for glTF, CommonJS, no types of its own) that the
 * glTF reader and writer use. The modules are Emscripten builds; their objects are handed to glTF-Transform as the
 * `draco3d.decoder` and `draco3d.encoder` dependencies and never called here.
 */
declare module 'draco3dgltf' {
  interface DracoModuleOptions {
    /** where the .wasm file is, given its bare name (browsers and workers: there is no file system to look in) */
    locateFile?: (name: string, scriptDirectory: string) => string;
    /** the .wasm file's bytes, instead of loading it */
    wasmBinary?: ArrayBuffer | Uint8Array;
  }
  export function createDecoderModule(options?: DracoModuleOptions): Promise<unknown>;
  export function createEncoderModule(options?: DracoModuleOptions): Promise<unknown>;
  const draco: { createDecoderModule: typeof createDecoderModule; createEncoderModule: typeof createEncoderModule };
  export default draco;
}
