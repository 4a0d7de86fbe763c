/**
 * Per-line FNV-1a hashes of a whole UTF-8 buffer in one call (AssemblyScript,
 * compiled with `--runtime stub`: raw linear memory, no GC, no imports).
 * Must agree byte for byte with src/hash/fnv.ts and src/hash/js.ts.
 *
 * Calling protocol (one boundary crossing for the work itself):
 *   1. `prepare(len)` grows memory for `len` input bytes and returns the
 *      pointer to write them at (0 when memory cannot grow).
 *   2. The host copies the bytes there and calls `hashLines(len, base)`,
 *      which returns the line count (or -1 when memory cannot grow). `base`
 *      is added to every offset written: a host that hashes a large input
 *      piece by piece (whole lines each) passes the piece's offset in it.
 *   3. `startsPtr()`, `endsPtr()`, `hashesPtr()` then locate three arrays of
 *      `count` entries, back to back: u32 line start offsets, u32 content-end
 *      offsets (before "\r\n" / "\n"), and u8 folded hashes. They stay valid
 *      until the next `prepare`; the host hands them out as views of this
 *      memory, not copies (src/hash/loader.ts, the `LineHashes` lifetime).
 *
 * Memory layout, from `__heap_base` (16-aligned):
 *   [scratch 64 KiB][input len + SLACK][starts u32 x count][ends u32 x count][hashes u8 x count]
 * Outputs are sized by the real line count (counted first), so memory stays
 * near 1.2x the input for source code (wasm memory never shrinks; Workers
 * have 128 MB).
 *
 * Speed: FNV-1a is a serial chain (xor then multiply per byte), so one line
 * runs at about 1 byte per multiply latency. The fast path therefore splits
 * the file into 16 chunks of whole lines and hashes them at once in four
 * i32x4 states, one lane per chunk (4 bytes per lane gathered with
 * load32_lane), each lane resetting to the offset basis right after a "\n"
 * (branch-free via bitselect) and snapshotting its state every step into a
 * small ring. After each block of steps, the bytes the lanes just read (still
 * in L1) are scanned for "\n" and every line's hash is picked from the ring,
 * so the input is read from memory twice in all: a branch-free count of the
 * lines per chunk (which sizes the outputs exactly), then the hashing pass.
 * Measured numbers: wasm/README.md.
 */

const BASIS: u32 = 0x811c9dc5;
const PRIME: u32 = 0x01000193;
/** PRIME^-1 mod 2^32: undoes the last step when a "\r" turns out to be part of "\r\n". */
const PRIME_INV: u32 = 0x359c449b;

/** Parallel lanes: four i32x4 states. */
const LANES: usize = 16;
/** Bytes past the input that the vector loads may read. */
const SLACK: usize = 64;
/** Scratch region before the input: constants, lane table, snapshot ring. */
const SCRATCH: usize = 65536;
/** Steps per snapshot block (64 bytes of snapshot per step: 16 lanes x u32); the ring stays in L1. */
const BLOCK: usize = 512;
/** Below this size one lane hashes everything: the 16-lane setup costs more than it saves. */
const MIN_LANES_LEN: u32 = 4096;
/**
 * A lane in the shared loop hashes ~1/16 of what the single-lane loop does
 * per unit of time, so the loop runs only when at least this many chunks are
 * long enough to share it (a minified file, one long line, stays single-lane).
 */
const MIN_BUSY_LANES: u32 = 6;

// Scratch layout (offsets from align16(__heap_base)).
/** Vector constants, read through memory so V8 keeps them in registers instead of rebuilding them per use. */
const K_CONST: usize = 0;
/** Lane table, u32 x LANES per column. */
const T_CHUNK: usize = 64; // chunk start (absolute byte offset)
const T_END: usize = T_CHUNK + LANES * 4; // chunk end
const T_OUT: usize = T_END + LANES * 4; // next output index
const T_LINE: usize = T_OUT + LANES * 4; // start offset of the line being hashed
const T_RUN: usize = T_LINE + LANES * 4; // bytes the lane hashes in the shared steps (0: single-lane only)
/** Ring of lane states; slot -1 (the last one of the previous block) sits just before it. */
const RING: usize = 512;
/** Steps of the "\n" bytes one lane found in one block (u32 x (BLOCK + 64)). */
const LIST: usize = RING + BLOCK * 64;

let inputPtr: usize = 0;
let startsP: usize = 0;
let endsP: usize = 0;
let hashesP: usize = 0;

@inline function align16(x: usize): usize {
  return (x + 15) & ~(<usize>15);
}

/** Grow memory so that bytes below `limit` are addressable. */
function ensure(limit: u64): bool {
  if (limit > 0xffff_0000) return false;
  const have = <u64>memory.size() << 16;
  if (limit <= have) return true;
  return memory.grow(<i32>((limit - have + 0xffff) >>> 16)) >= 0;
}

/** Make room for `len` input bytes; returns where to write them, or 0. */
export function prepare(len: u32): usize {
  inputPtr = align16(__heap_base) + SCRATCH;
  if (!ensure(<u64>inputPtr + <u64>len + <u64>SLACK)) return 0;
  startsP = endsP = hashesP = 0;
  return inputPtr;
}

/** Start offsets of the lines of the last `hashLines` call. */
export function startsPtr(): usize {
  return startsP;
}

/** Content-end offsets of the lines of the last `hashLines` call. */
export function endsPtr(): usize {
  return endsP;
}

/** 8-bit hashes of the lines of the last `hashLines` call. */
export function hashesPtr(): usize {
  return hashesP;
}

/** Added to every offset `emit` writes (see the protocol). */
let offsetBase: u32 = 0;

/** Hash every line of the `len` bytes written at `prepare(len)`, offsets plus `base`; returns the line count or -1. */
export function hashLines(len: u32, base: u32): i32 {
  offsetBase = base;
  const scratch = align16(__heap_base);
  const count = splitChunks(scratch, len);
  startsP = align16(inputPtr + <usize>len + SLACK);
  endsP = startsP + (<usize>count << 2);
  hashesP = endsP + (<usize>count << 2);
  if (!ensure(<u64>hashesP + <u64>count + 16)) return -1;
  hashChunks(scratch, len);
  return count;
}

@inline function fold8(h: u32): u32 {
  const h16 = (h >>> 16) ^ (h & 0xffff);
  return ((h16 >>> 8) ^ h16) & 0xff;
}

/** Number of "\n" bytes in [p, end). */
function countNewlines(p: usize, end: usize): u32 {
  const nl = i8x16.splat(10);
  let n: u32 = 0;
  for (; p + 64 <= end; p += 64) {
    const m =
      <u64>i8x16.bitmask(i8x16.eq(v128.load(p), nl)) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 16), nl)) << 16) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 32), nl)) << 32) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 48), nl)) << 48);
    n += <u32>popcnt<u64>(m);
  }
  for (; p < end; p++) n += <u32>(load<u8>(p) == 10);
  return n;
}

/**
 * Cut the input into LANES chunks of whole lines of about equal size (a chunk
 * is empty when one long line spans its share), count each chunk's lines and
 * fill the lane table; returns the total line count.
 */
function splitChunks(scratch: usize, len: u32): i32 {
  const base = inputPtr;
  const lanes: u32 = len < MIN_LANES_LEN ? 1 : <u32>LANES;
  let at: u32 = 0;
  let out: u32 = 0;
  for (let j: u32 = 0; j < <u32>LANES; j++) {
    const t = (<usize>j << 2);
    let end = len;
    if (j + 1 < lanes) {
      // the first line start at or after this chunk's share of the bytes
      end = max<u32>(at, <u32>((<u64>len * (j + 1)) / lanes));
      while (end < len && load<u8>(base + <usize>end - 1) != 10) end++;
    }
    if (j >= lanes) end = at;
    store<u32>(scratch + t, at, T_CHUNK);
    store<u32>(scratch + t, end, T_END);
    store<u32>(scratch + t, out, T_OUT);
    store<u32>(scratch + t, at, T_LINE);
    out += countNewlines(base + <usize>at, base + <usize>end);
    at = end;
  }
  // a last line without "\n"
  if (len > 0 && load<u8>(base + <usize>len - 1) != 10) out++;
  return <i32>out;
}

/** Record line `i`: [start, e) with hash state h. */
@inline function emit(i: u32, start: u32, e: u32, h: u32): void {
  store<u32>(startsP + (<usize>i << 2), start + offsetBase);
  store<u32>(endsP + (<usize>i << 2), e + offsetBase);
  store<u8>(hashesP + <usize>i, fold8(h));
}

/**
 * Single-lane hashing of lane j's bytes [from, chunk end) with state `h`, for
 * what is left after the shared steps (or all of a small input, or a chunk
 * too short to share them).
 */
function finishLane(scratch: usize, j: usize, from: u32, h: u32, len: u32): void {
  const base = inputPtr;
  const t = j << 2;
  const end = load<u32>(scratch + t, T_END);
  let i = load<u32>(scratch + t, T_OUT);
  let start = load<u32>(scratch + t, T_LINE);
  for (let p = from; p < end; p++) {
    const b = <u32>load<u8>(base + <usize>p);
    if (b == 10) {
      let e = p;
      if (e > start && load<u8>(base + <usize>e - 1) == 13) {
        e--;
        h = (h * PRIME_INV) ^ 13; // the "\r" was hashed as read: take it back out
      }
      emit(i++, start, e, h);
      start = p + 1;
      h = BASIS;
    } else {
      h = (h ^ b) * PRIME;
    }
  }
  // only the last chunk can end without "\n"
  if (end == len && start < len) emit(i, start, len, h);
}

/**
 * The lanes advance one byte each per step for `steps` = the shortest chunk
 * that shares the loop (see MIN_BUSY_LANES); an idle lane (an empty or short
 * chunk) reads the start of the input and is never read back. Then each lane
 * finishes its chunk single-lane.
 */
function hashChunks(scratch: usize, len: u32): void {
  const base = inputPtr;
  // chunks shorter than 1/64 of the input (cut short by long lines) would
  // cap the shared steps; they are hashed single-lane instead
  const minRun = max<u32>(len >>> 6, 1);
  let steps: u32 = 0xffffffff;
  let busy: u32 = 0;
  for (let j: usize = 0; j < LANES; j++) {
    const size = load<u32>(scratch + (j << 2), T_END) - load<u32>(scratch + (j << 2), T_CHUNK);
    if (size >= minRun) {
      steps = min<u32>(steps, size);
      busy++;
    }
  }
  if (len < MIN_LANES_LEN || busy < MIN_BUSY_LANES) steps = 0;
  for (let j: usize = 0; j < LANES; j++) {
    const size = load<u32>(scratch + (j << 2), T_END) - load<u32>(scratch + (j << 2), T_CHUNK);
    store<u32>(scratch + (j << 2), size >= minRun ? steps : 0, T_RUN);
  }
  const ring = scratch + RING;

  v128.store(scratch + K_CONST, i32x4.splat(0xff));
  v128.store(scratch + K_CONST, i32x4.splat(BASIS), 16);
  v128.store(scratch + K_CONST, i32x4.splat(PRIME), 32);
  v128.store(scratch + K_CONST, i32x4.splat(10), 48);
  const M = v128.load(scratch + K_CONST);
  const B = v128.load(scratch + K_CONST, 16);
  const P = v128.load(scratch + K_CONST, 32);
  const NL = v128.load(scratch + K_CONST, 48);
  const Z = i32x4.splat(0);

  const p0 = lanePtr(scratch, 0);
  const p1 = lanePtr(scratch, 1);
  const p2 = lanePtr(scratch, 2);
  const p3 = lanePtr(scratch, 3);
  const p4 = lanePtr(scratch, 4);
  const p5 = lanePtr(scratch, 5);
  const p6 = lanePtr(scratch, 6);
  const p7 = lanePtr(scratch, 7);
  const p8 = lanePtr(scratch, 8);
  const p9 = lanePtr(scratch, 9);
  const p10 = lanePtr(scratch, 10);
  const p11 = lanePtr(scratch, 11);
  const p12 = lanePtr(scratch, 12);
  const p13 = lanePtr(scratch, 13);
  const p14 = lanePtr(scratch, 14);
  const p15 = lanePtr(scratch, 15);
  let a = B;
  let b = B;
  let c = B;
  let d = B;
  for (let k0: usize = 0; k0 < <usize>steps; k0 += BLOCK) {
    const kEnd = min<usize>(k0 + BLOCK, <usize>steps);
    let slot = ring;
    let k = k0;
    for (const kEnd4 = k0 + ((kEnd - k0) & ~(<usize>3)); k < kEnd4; k += 4) {
      // 4 bytes per lane: i32 lane l of a0 holds steps k..k+3 of lane l
      const a0 = quad(p0, p1, p2, p3, k);
      const b0 = quad(p4, p5, p6, p7, k);
      const c0 = quad(p8, p9, p10, p11, k);
      const d0 = quad(p12, p13, p14, p15, k);
      snap(slot, a, b, c, d, 0);
      a = adv(a, v128.and(a0, M), B, P, NL); b = adv(b, v128.and(b0, M), B, P, NL);
      c = adv(c, v128.and(c0, M), B, P, NL); d = adv(d, v128.and(d0, M), B, P, NL);
      snap(slot, a, b, c, d, 64);
      a = adv(a, byteAt(a0, 8, M), B, P, NL); b = adv(b, byteAt(b0, 8, M), B, P, NL);
      c = adv(c, byteAt(c0, 8, M), B, P, NL); d = adv(d, byteAt(d0, 8, M), B, P, NL);
      snap(slot, a, b, c, d, 128);
      a = adv(a, byteAt(a0, 16, M), B, P, NL); b = adv(b, byteAt(b0, 16, M), B, P, NL);
      c = adv(c, byteAt(c0, 16, M), B, P, NL); d = adv(d, byteAt(d0, 16, M), B, P, NL);
      snap(slot, a, b, c, d, 192);
      a = adv(a, i32x4.shr_u(a0, 24), B, P, NL); b = adv(b, i32x4.shr_u(b0, 24), B, P, NL);
      c = adv(c, i32x4.shr_u(c0, 24), B, P, NL); d = adv(d, i32x4.shr_u(d0, 24), B, P, NL);
      slot += 256;
    }
    for (; k < kEnd; k++) {
      snap(slot, a, b, c, d, 0);
      a = adv(a, byte4(p0, p1, p2, p3, k, Z), B, P, NL);
      b = adv(b, byte4(p4, p5, p6, p7, k, Z), B, P, NL);
      c = adv(c, byte4(p8, p9, p10, p11, k, Z), B, P, NL);
      d = adv(d, byte4(p12, p13, p14, p15, k, Z), B, P, NL);
      slot += 64;
    }
    for (let j: usize = 0; j < LANES; j++) readBack(scratch, j, k0, kEnd);
    // keep the block's last snapshot as slot -1 for a "\r\n" split across blocks
    const last = ring + ((kEnd - k0 - 1) << 6);
    v128.store(ring - 64, v128.load(last));
    v128.store(ring - 48, v128.load(last, 16));
    v128.store(ring - 32, v128.load(last, 32));
    v128.store(ring - 16, v128.load(last, 48));
  }

  snap(ring, a, b, c, d, 0);
  for (let j: usize = 0; j < LANES; j++) {
    const run = load<u32>(scratch + (j << 2), T_RUN);
    const h = run > 0 ? load<u32>(ring + (j << 2)) : BASIS;
    finishLane(scratch, j, load<u32>(scratch + (j << 2), T_CHUNK) + run, h, len);
  }
}

/**
 * Record every line of lane j whose "\n" fell in steps [k0, kEnd): scan
 * those bytes (just read, still in L1) for "\n" into a list of steps, then
 * take each line's hash from the ring (the state before its "\n", or before
 * its "\r"). Listing first keeps the per-line loop free of data-dependent
 * branches: each 64-byte piece writes four positions unconditionally and
 * advances by its real count (a fifth "\n" in one piece takes a short loop).
 */
function readBack(scratch: usize, j: usize, k0: usize, kEnd: usize): void {
  const t = j << 2;
  const chunk = load<u32>(scratch + t, T_CHUNK);
  if (load<u32>(scratch + t, T_RUN) == 0) return;
  const from = inputPtr + <usize>chunk + k0;
  const n = kEnd - k0;
  const nl = i8x16.splat(10);
  const list = scratch + LIST;
  let w = list;
  for (let q: usize = 0; q < n; q += 64) {
    const p = from + q;
    let m =
      <u64>i8x16.bitmask(i8x16.eq(v128.load(p), nl)) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 16), nl)) << 16) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 32), nl)) << 32) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 48), nl)) << 48);
    // bytes past this block belong to later steps
    if (n - q < 64) m &= (<u64>1 << <u64>(n - q)) - 1;
    const c = <usize>popcnt<u64>(m);
    const qq = <u32>q;
    store<u32>(w, qq + <u32>ctz<u64>(m));
    m &= m - 1;
    store<u32>(w, qq + <u32>ctz<u64>(m), 4);
    m &= m - 1;
    store<u32>(w, qq + <u32>ctz<u64>(m), 8);
    m &= m - 1;
    store<u32>(w, qq + <u32>ctz<u64>(m), 12);
    if (c > 4) {
      let x = w + 16;
      for (m &= m - 1; m; m &= m - 1) {
        store<u32>(x, qq + <u32>ctz<u64>(m));
        x += 4;
      }
    }
    w += c << 2;
  }
  const ring = scratch + RING + t;
  const base = inputPtr;
  let i = load<u32>(scratch + t, T_OUT);
  let start = load<u32>(scratch + t, T_LINE);
  for (let r = list; r < w; r += 4) {
    const step = <usize>load<u32>(r);
    const newline = chunk + <u32>(k0 + step);
    let e = newline;
    let slot = ring + (step << 6);
    if (e > start && load<u8>(base + <usize>e - 1) == 13) {
      e--;
      slot -= 64;
    }
    emit(i++, start, e, load<u32>(slot));
    start = newline + 1;
  }
  store<u32>(scratch + t, i, T_OUT);
  store<u32>(scratch + t, start, T_LINE);
}

/** Where lane j reads: its chunk, or the input start for an idle lane (never read back). */
@inline function lanePtr(scratch: usize, j: usize): usize {
  const idle = load<u32>(scratch + (j << 2), T_RUN) == 0;
  return inputPtr + <usize>(idle ? 0 : load<u32>(scratch + (j << 2), T_CHUNK));
}

/** One FNV-1a step per lane; a lane that just read "\n" restarts at the offset basis. */
@inline function adv(h: v128, x: v128, B: v128, P: v128, NL: v128): v128 {
  return v128.bitselect(B, i32x4.mul(v128.xor(h, x), P), i32x4.eq(x, NL));
}

/** 4 bytes at step k of four lanes, one lane per i32. */
@inline function quad(p: usize, q: usize, r: usize, s: usize, k: usize): v128 {
  let x = v128.load32_zero(p + k);
  x = v128.load32_lane(q + k, x, 1);
  x = v128.load32_lane(r + k, x, 2);
  return v128.load32_lane(s + k, x, 3);
}

/** Byte `shift / 8` of each i32 lane. */
@inline function byteAt(x: v128, shift: i32, m: v128): v128 {
  return v128.and(i32x4.shr_u(x, shift), m);
}

/** The byte at step k of four lanes, one per i32 lane. */
@inline function byte4(p: usize, q: usize, r: usize, s: usize, k: usize, z: v128): v128 {
  let x = v128.load8_lane(p + k, z, 0);
  x = v128.load8_lane(q + k, x, 4);
  x = v128.load8_lane(r + k, x, 8);
  return v128.load8_lane(s + k, x, 12);
}

/** Store the 16 lane states at slot + off. */
@inline function snap(slot: usize, a: v128, b: v128, c: v128, d: v128, off: usize): void {
  v128.store(slot + off, a);
  v128.store(slot + off, b, 16);
  v128.store(slot + off, c, 32);
  v128.store(slot + off, d, 48);
}
