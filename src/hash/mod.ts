/**
 * Public API of the hash layer: the FNV-1a reference, the JS and WASM line
 * hashers and the backend chooser. `readWasmBytes` (src/hash/wasm-file.ts) is
 * not re-exported here because it needs `node:fs` and this module must stay
 * importable on Workers.
 */

export { fnv1a32, fold8, lineHash, formatHash } from "./fnv.ts";
export { jsHasher, hashLinesJs } from "./js.ts";
export { lineHashBy } from "./one-line.ts";
export { loadWasmHasher, createHasher } from "./loader.ts";
export type { CreateHasherOptions, WasmHasherOptions } from "./loader.ts";
export type { LineHasher, LineHashes } from "./types.ts";
