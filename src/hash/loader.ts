/**
 * Instantiates the WASM line hasher (wasm/fnv.wasm) and chooses a backend.
 * No `node:` imports: this file is on the Cloudflare Workers path, where the
 * module arrives precompiled (compiling bytes at run time is forbidden there).
 */

import { jsHasher } from "./js.ts";
import type { LineHasher, LineHashes } from "./types.ts";

/** What wasm/fnv.ts exports; see the protocol comment at its top. */
interface FnvExports {
  readonly memory: WebAssembly.Memory;
  prepare(len: number): number;
  hashLines(len: number): number;
  startsPtr(): number;
  endsPtr(): number;
  hashesPtr(): number;
}

/**
 * Inputs above this go to the JS hasher: the module needs about 1.25x (up to
 * 10x for a file of empty lines) the input in a 4 GiB address space.
 */
const MAX_WASM_INPUT = 256 * 1024 * 1024;

function asFnvExports(exports: WebAssembly.Exports): FnvExports {
  const names = ["prepare", "hashLines", "startsPtr", "endsPtr", "hashesPtr"];
  for (const name of names) {
    if (typeof exports[name] !== "function") throw new Error(`fnv.wasm lacks export ${name}`);
  }
  if (!(exports.memory instanceof WebAssembly.Memory)) throw new Error("fnv.wasm lacks its memory export");
  return exports as unknown as FnvExports;
}

/**
 * The module's outputs as views of its memory, not copies: they stay valid
 * until the next call (see `LineHashes`), which reuses and may grow (and so
 * detach) that memory. Copying them out into fresh memory was most of the
 * end-to-end time on V8 (a 1.7 MB ArrayBuffer.slice for 10 MB of source took
 * 1-18 ms in page faults against ~4.5 ms of hashing).
 */
function resultViews(x: FnvExports, count: number): LineHashes {
  const buffer = x.memory.buffer;
  return {
    count,
    starts: new Uint32Array(buffer, x.startsPtr(), count),
    ends: new Uint32Array(buffer, x.endsPtr(), count),
    hashes: new Uint8Array(buffer, x.hashesPtr(), count),
  };
}

function wasmHashLines(x: FnvExports, bytes: Uint8Array): LineHashes {
  if (bytes.length > MAX_WASM_INPUT) return jsHasher.hashLines(bytes);
  const at = x.prepare(bytes.length);
  if (at === 0) return jsHasher.hashLines(bytes);
  // memory.buffer must be read after prepare: growing memory detaches the old buffer
  new Uint8Array(x.memory.buffer, at, bytes.length).set(bytes);
  const count = x.hashLines(bytes.length);
  if (count < 0) return jsHasher.hashLines(bytes);
  return resultViews(x, count);
}

/**
 * Big enough for the module's 16-lane path to run more than one 512-step
 * block per lane (> 16 x 512 bytes), with every line-ending case.
 */
function selfTestText(): Uint8Array {
  const endings = ["\n", "\r\n", "\r", ""];
  let text = "";
  for (let i = 0; text.length < 20_000; i++) text += `${"\u00e9".repeat(i % 7)}${i}` + endings[i % 4] + (i % 9 === 0 ? "\n" : "");
  return new TextEncoder().encode(text);
}

/** A wrong or stale module must never hash silently: compare with the JS reference once. */
function selfTest(x: FnvExports): void {
  const bytes = selfTestText();
  const got = wasmHashLines(x, bytes);
  const want = jsHasher.hashLines(bytes);
  const same =
    got.count === want.count &&
    want.hashes.every((h, i) => got.hashes[i] === h && got.starts[i] === want.starts[i] && got.ends[i] === want.ends[i]);
  if (!same) throw new Error("fnv.wasm disagrees with the JS reference hasher");
}

/**
 * Below this many bytes the JS loop can win: the fixed cost of a call (copy
 * in, views out) outweighs the faster loop. Measured WASM/JS speed ratio
 * with results as views (bench/hash/suite.ts text, jsBelow 0): Bun 0.4-0.6
 * at 64 B, 1.0 at 128 B, 1.1 at 256 B, 1.4 at 512 B, 1.55 at 1 KiB; Node
 * and Deno 1.0 at 64 B, 1.8-2.3 at 256 B. The crossover is Bun's; on V8 the
 * tiny inputs this routes to JS cost microseconds either way.
 */
const DEFAULT_JS_BELOW = 256;

/** Options of {@link loadWasmHasher}. */
export interface WasmHasherOptions {
  /** Inputs shorter than this many bytes are hashed by the JS loop (default 256; 0 = always the module). */
  jsBelow?: number;
}

/**
 * Instantiate the WASM hasher from a precompiled module (Workers) or raw
 * bytes (Bun, Deno, Node). Rejects when the module cannot be compiled or
 * instantiated, lacks the expected exports, or fails a self-test against the
 * JS reference. Tiny inputs (see `jsBelow`) and inputs the module cannot
 * hold (memory exhausted, > 256 MiB) are hashed by the JS loop instead, so
 * this backend is never slower than JS and never fails on size.
 */
export async function loadWasmHasher(
  source: WebAssembly.Module | BufferSource,
  options: WasmHasherOptions = {},
): Promise<LineHasher> {
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const instance = await WebAssembly.instantiate(module, {});
  const x = asFnvExports(instance.exports);
  selfTest(x);
  const jsBelow = options.jsBelow ?? DEFAULT_JS_BELOW;
  return {
    backend: "wasm",
    hashLines: (bytes) => (bytes.length < jsBelow ? jsHasher.hashLines(bytes) : wasmHashLines(x, bytes)),
  };
}

/** Options of {@link createHasher}. */
export interface CreateHasherOptions {
  /** The compiled wasm/fnv.wasm, or its bytes. Without it the JS backend is used. */
  wasm?: WebAssembly.Module | BufferSource;
  /** Backend choice; "auto" (default) picks the faster one for this runtime. */
  prefer?: "js" | "wasm" | "auto";
}

/**
 * The line hasher to use. Never rejects: when WASM is unavailable, not
 * given, or fails to load, this returns {@link jsHasher}.
 *
 * "auto" means WASM whenever it loads, on every runtime, because that is what
 * measuring each runtime showed (`bun bench/hash/run.ts --quick --sizes
 * 1,10,100`, end to end through `hashLines` with results as views, median
 * MB/s JS vs WASM, shared 2-core VM at load ~4): Bun 294 vs 1902 (1 MB),
 * 340 vs 1989 (10 MB), 283 vs 1687 (100 MB); Deno 171 vs 1616, 163 vs 1618,
 * 123 vs 1424; workerd 48 vs 1441, 68 vs 1429, 52 vs 1124; Node 186 vs 1594,
 * 336 vs 1851, 185 vs 1217. On Bun, the runtime where a plain JS loop is
 * strongest, the module still wins 5.8-6.5x; only inputs under 256 bytes
 * are about as fast or faster in JS there, and the WASM hasher routes
 * those to JS itself (`jsBelow`). Table and method: wasm/README.md.
 */
export async function createHasher(options: CreateHasherOptions = {}): Promise<LineHasher> {
  const prefer = options.prefer ?? "auto";
  if (prefer === "js" || options.wasm === undefined || typeof WebAssembly === "undefined") return jsHasher;
  try {
    return await loadWasmHasher(options.wasm);
  } catch {
    return jsHasher;
  }
}
