/**
 * Reads the committed wasm/fnv.wasm for local mode (Bun, Deno, Node).
 * Workers import the module precompiled instead; this file is the only
 * place in src/hash that touches `node:`.
 */

import { readFile } from "node:fs/promises";

/** Name of the module among a single executable's embedded files (`bun build --compile ... wasm/fnv.wasm`). */
const EMBEDDED_NAME = "fnv.wasm";

/**
 * The bytes of wasm/fnv.wasm: embedded in a `bun build --compile`
 * executable, else read relative to this file. The published package's
 * bundle sits at dist/bin/toolwarden.js, two levels below the package root
 * like this source file, so the same relative path finds the shipped
 * wasm/fnv.wasm from either.
 */
export async function readWasmBytes(): Promise<Uint8Array<ArrayBuffer>> {
  const embedded = (globalThis as { Bun?: { embeddedFiles?: readonly Blob[] } }).Bun?.embeddedFiles?.find(
    (file) => (file as Blob & { name?: string }).name === EMBEDDED_NAME,
  );
  if (embedded) return new Uint8Array(await embedded.arrayBuffer());
  return new Uint8Array(await readFile(new URL("../../wasm/fnv.wasm", import.meta.url)));
}
