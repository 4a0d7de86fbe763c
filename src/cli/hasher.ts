/** The line hasher of local mode. */
import { createHasher, type LineHasher } from "../hash/mod.ts";
import { readWasmBytes } from "../hash/wasm-file.ts";

/** WASM when wasm/fnv.wasm loads, else the JS reference (never fails: both hash alike). */
export async function loadHasher(): Promise<LineHasher> {
  const wasm = await readWasmBytes().catch(() => undefined);
  return createHasher(wasm === undefined ? {} : { wasm });
}
