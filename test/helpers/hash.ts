/**
 * Shared fixtures of the hash tests: the WASM hasher built from the committed
 * module, and an independent oracle that follows the line rules literally.
 */

import { fnv1a32, fold8 } from "../../src/hash/fnv.ts";
import { loadWasmHasher } from "../../src/hash/loader.ts";
import { readWasmBytes } from "../../src/hash/wasm-file.ts";
import type { LineHasher, LineHashes } from "../../src/hash/types.ts";

/** The WASM hasher instantiated from the committed wasm/fnv.wasm, with the module used for every input size. */
export async function committedWasmHasher(): Promise<LineHasher> {
  return loadWasmHasher(await readWasmBytes(), { jsBelow: 0 });
}

/** Plain arrays of a result, for whole-value comparisons. */
export function plain(r: LineHashes): { count: number; hashes: number[]; starts: number[]; ends: number[] } {
  return { count: r.count, hashes: [...r.hashes], starts: [...r.starts], ends: [...r.ends] };
}

/** Line hashes computed the slow, obvious way: split on "\n", strip one "\r" before it, hash each line. */
export function oracle(bytes: Uint8Array): ReturnType<typeof plain> {
  const out = { count: 0, hashes: [] as number[], starts: [] as number[], ends: [] as number[] };
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start);
    const next = nl === -1 ? bytes.length : nl;
    const end = nl !== -1 && next > start && bytes[next - 1] === 13 ? next - 1 : next;
    out.starts.push(start);
    out.ends.push(end);
    out.hashes.push(fold8(fnv1a32(bytes, start, end)));
    out.count++;
    if (nl === -1) break;
    start = nl + 1;
  }
  return out;
}

/** Lines (as text) of a result, for readable assertions. */
export function linesOf(bytes: Uint8Array, r: LineHashes): string[] {
  const decoder = new TextDecoder();
  return Array.from({ length: r.count }, (_, i) => decoder.decode(bytes.subarray(r.starts[i], r.ends[i])));
}
