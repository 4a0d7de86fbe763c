/**
 * Reads the committed wasm/fnv.wasm from disk, for local mode (Bun, Deno,
 * Node). Workers import the module precompiled instead; this file is the only
 * place in src/hash that touches `node:`.
 */

import { readFile } from "node:fs/promises";

/** The bytes of wasm/fnv.wasm, resolved relative to this source file. */
export async function readWasmBytes(): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await readFile(new URL("../../wasm/fnv.wasm", import.meta.url)));
}
