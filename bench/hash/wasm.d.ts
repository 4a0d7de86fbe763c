/** workerd hands a `.wasm` import over as a compiled module (bench/hash/worker.ts). */
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
