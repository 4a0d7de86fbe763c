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
  hashLines(len: number, base: number): number;
  startsPtr(): number;
  endsPtr(): number;
  hashesPtr(): number;
}

/**
 * Inputs above this go to the JS hasher: a piece is as long as its longest
 * line (a 256 MiB file of one line is one piece), and the module needs about
 * 1.25x a piece (up to 10x for empty lines) in a 4 GiB address space.
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

/**
 * Inputs over twice this are hashed in pieces of about this many bytes (cut
 * after a "\n"): the copy into wasm memory and the module's two reads of a
 * piece then stay in cache instead of streaming a large input through
 * memory three times, and wasm memory stays near one piece instead of
 * growing to the largest input (Workers have 128 MB). The results are
 * copied into columns the hasher keeps (9 bytes per line, warm memory).
 * Measured against the whole input in one call, same process, interleaved
 * (median of 9, MB/s): 100 MB 1854 -> 1961 (Node), 1868 -> 1930 (Deno) with
 * 1 MiB pieces, 1891 -> 1995 / 1867 -> 1917 with 2 MiB; 8 MiB pieces gave
 * no gain; 10 MB unchanged (ratio 0.99-1.01).
 */
const DEFAULT_PIECE_BYTES = 1024 * 1024;

/** Result columns of a hasher that works in pieces: reused from call to call, grown when short. */
interface PieceColumns {
  starts: Uint32Array;
  ends: Uint32Array;
  hashes: Uint8Array;
}

/** Columns with room for `need` lines, keeping the first `keep` entries. */
function roomFor(out: PieceColumns, need: number, keep: number): PieceColumns {
  if (out.hashes.length >= need) return out;
  const capacity = Math.max(need, out.hashes.length * 2);
  const grown = { starts: new Uint32Array(capacity), ends: new Uint32Array(capacity), hashes: new Uint8Array(capacity) };
  grown.starts.set(out.starts.subarray(0, keep));
  grown.ends.set(out.ends.subarray(0, keep));
  grown.hashes.set(out.hashes.subarray(0, keep));
  return grown;
}

/** One call of the module on `bytes` (one piece or the whole input), offsets plus `base`; -1 when memory is short. */
function hashPiece(x: FnvExports, bytes: Uint8Array, base: number): number {
  const at = x.prepare(bytes.length);
  if (at === 0) return -1;
  // memory.buffer must be read after prepare: growing memory detaches the old buffer
  new Uint8Array(x.memory.buffer, at, bytes.length).set(bytes);
  return x.hashLines(bytes.length, base);
}

/** The end of the piece that starts at `at`: just after the last "\n" within `size` bytes, else after the next one. */
function pieceEnd(bytes: Uint8Array, at: number, size: number): number {
  const n = bytes.length;
  if (n - at <= size) return n;
  const last = bytes.lastIndexOf(0x0a, at + size - 1);
  if (last >= at) return last + 1;
  const next = bytes.indexOf(0x0a, at + size);
  return next === -1 ? n : next + 1;
}

/** The module's line hasher over reused memory; see {@link loadWasmHasher}. */
function wasmHashLines(x: FnvExports, pieceBytes: number): (bytes: Uint8Array) => LineHashes {
  let out: PieceColumns = { starts: new Uint32Array(0), ends: new Uint32Array(0), hashes: new Uint8Array(0) };
  return (bytes) => {
    const n = bytes.length;
    if (n > MAX_WASM_INPUT) return jsHasher.hashLines(bytes);
    if (n <= 2 * pieceBytes) {
      const count = hashPiece(x, bytes, 0);
      return count < 0 ? jsHasher.hashLines(bytes) : resultViews(x, count);
    }
    // Pieces: each piece's results are copied into columns kept for the next call (9 bytes per line, warm memory).
    out = roomFor(out, (n >>> 5) + 16, 0);
    let count = 0;
    for (let at = 0; at < n; ) {
      const end = pieceEnd(bytes, at, pieceBytes);
      const c = hashPiece(x, bytes.subarray(at, end), at);
      if (c < 0) return jsHasher.hashLines(bytes);
      out = roomFor(out, count + c, count);
      const buffer = x.memory.buffer;
      out.starts.set(new Uint32Array(buffer, x.startsPtr(), c), count);
      out.ends.set(new Uint32Array(buffer, x.endsPtr(), c), count);
      out.hashes.set(new Uint8Array(buffer, x.hashesPtr(), c), count);
      count += c;
      at = end;
    }
    return { count, starts: out.starts.subarray(0, count), ends: out.ends.subarray(0, count), hashes: out.hashes.subarray(0, count) };
  };
}

/**
 * Big enough for the module's 16-lane path to run more than one 512-step
 * block per lane (> 16 x 512 bytes), with every line-ending case.
 */
function selfTestText(): Uint8Array {
  const endings = ["\n", "\r\n", "\r", ""];
  let text = "";
  for (let i = 0; text.length < 20_000; i++) text += `${"\u00e9".repeat(i % 7)}${i}${endings[i % 4]}${i % 9 === 0 ? "\n" : ""}`;
  return new TextEncoder().encode(text);
}

/**
 * A wrong or stale module must never hash silently: compare with the JS
 * reference once whole and once in small pieces (a module that ignores the
 * offset base would misplace every piece after the first).
 */
function selfTest(x: FnvExports): void {
  const bytes = selfTestText();
  const want = jsHasher.hashLines(bytes);
  const wanted = { count: want.count, hashes: want.hashes.slice(), starts: want.starts.slice(), ends: want.ends.slice() };
  for (const pieceBytes of [DEFAULT_PIECE_BYTES, 4096]) {
    const got = wasmHashLines(x, pieceBytes)(bytes);
    const same =
      got.count === wanted.count && wanted.hashes.every((h, i) => got.hashes[i] === h && got.starts[i] === wanted.starts[i] && got.ends[i] === wanted.ends[i]);
    if (!same) throw new Error("fnv.wasm disagrees with the JS reference hasher");
  }
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
  /** Inputs over twice this many bytes are hashed in pieces of about this size, cut after a "\n" (default 1 MiB). */
  pieceBytes?: number;
}

/**
 * Instantiate the WASM hasher from a precompiled module (Workers) or raw
 * bytes (Bun, Deno, Node). Rejects when the module cannot be compiled or
 * instantiated, lacks the expected exports, or fails a self-test against the
 * JS reference. Tiny inputs (see `jsBelow`) and inputs the module cannot
 * hold (memory exhausted, > 256 MiB) are hashed by the JS loop instead, so
 * this backend is never slower than JS and never fails on size. Large
 * inputs are hashed in pieces (see `pieceBytes`), so wasm memory stays near
 * one piece plus its results.
 */
export async function loadWasmHasher(source: WebAssembly.Module | BufferSource, options: WasmHasherOptions = {}): Promise<LineHasher> {
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const instance = await WebAssembly.instantiate(module, {});
  const x = asFnvExports(instance.exports);
  selfTest(x);
  const jsBelow = options.jsBelow ?? DEFAULT_JS_BELOW;
  const pieceBytes = Math.max(1, Math.floor(options.pieceBytes ?? DEFAULT_PIECE_BYTES));
  const hashLines = wasmHashLines(x, pieceBytes);
  return {
    backend: "wasm",
    hashLines: (bytes) => (bytes.length < jsBelow ? jsHasher.hashLines(bytes) : hashLines(bytes)),
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
 * 1,10,100`, end to end through `hashLines`, median MB/s JS vs WASM, quiet
 * 2-core VM): Bun 452 vs 2341 (1 MB), 475 vs 2159 (10 MB), 382 vs 2074
 * (100 MB); Deno 226 vs 2342, 216 vs 1987, 193 vs 1893; workerd 98 vs 2465,
 * 97 vs 2051, 88 vs 1923; Node 379 vs 2357, 397 vs 2011, 307 vs 1947. On
 * Bun, the runtime where a plain JS loop is strongest, the module still
 * wins 4.5-5.4x; only inputs under 256 bytes are about as fast or faster in
 * JS there, and the WASM hasher routes
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
