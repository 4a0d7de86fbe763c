/**
 * Per-line FNV-1a hashes of a whole UTF-8 buffer in one call (AssemblyScript,
 * compiled with `--runtime stub`: raw linear memory, no GC, no imports).
 * Must agree byte for byte with src/hash/fnv.ts and src/hash/js.ts.
 *
 * Calling protocol (one boundary crossing for the work itself):
 *   1. `prepare(len)` grows memory for `len` input bytes and returns the
 *      pointer to write them at (0 when memory cannot grow).
 *   2. The host copies the bytes there and calls `hashLines(len)`, which
 *      returns the line count (or -1 when memory cannot grow).
 *   3. `startsPtr()`, `endsPtr()`, `hashesPtr()` then locate three arrays of
 *      `count` entries: u32 line start offsets, u32 content-end offsets
 *      (before "\r\n" / "\n"), and u8 folded hashes. They stay valid until the
 *      next `prepare`; the host copies them out.
 *
 * Memory layout, from `__heap_base` (16-aligned):
 *   [scratch 64 KiB][input len + SLACK][starts u32 x (count+1)][ends u32 x count][hashes u8 x count]
 * starts[count] is a sentinel: the offset where a line after the last one
 * would start (len, or len + 1 when the last line has no "\n"). Outputs are
 * sized by the real line count, so memory stays near 1.25x the input for
 * source code (wasm memory never shrinks; Workers have 128 MB).
 *
 * Speed: FNV-1a is a serial chain (xor then multiply per byte), so one line
 * runs at about 1 byte per multiply latency. The fast path therefore hashes
 * 8 parts of the file at once: two i32x4 states, each lane walking its own
 * chunk of whole lines, resetting to the offset basis right after each "\n"
 * (branch-free via bitselect) and snapshotting its state every step into a
 * small ring from which the per-line hashes are read back. Bytes are gathered
 * 8 at a time per lane (v128.load64_lane) and regrouped by two shuffles so
 * each i32 lane holds 4 bytes of its own chunk; this beat 8 load8_lane per
 * step by 8% (Node), 21% (Deno), 17% (Bun). Newlines are found first by a
 * SIMD scan (i8x16.eq + bitmask, 64 bytes per iteration), which also sizes
 * the outputs exactly.
 */

const BASIS: u32 = 0x811c9dc5;
const PRIME: u32 = 0x01000193;
/** PRIME^-1 mod 2^32: undoes the last step when a "\r" turns out to be part of "\r\n". */
const PRIME_INV: u32 = 0x359c449b;

/** Bytes past the input that the 64-byte scan may read. */
const SLACK: usize = 64;
/** Scratch region before the input: snapshot ring + lane table. */
const SCRATCH: usize = 65536;
/** Steps per snapshot block (32 bytes of snapshot per step: 8 lanes x u32). */
const BLOCK: usize = 1024;
/** Below this size the 8-lane setup costs more than it saves. */
const MIN_LANES_LEN: u32 = 4096;

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
  if (!ensure(<u64>inputPtr + <u64>len + <u64>SLACK + 256)) return 0;
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

/** Hash every line of the `len` bytes written at `prepare(len)`; returns the line count or -1. */
export function hashLines(len: u32): i32 {
  const count = scanLines(len);
  if (count < 0 || !placeOutputs(count)) return -1;
  if (len < MIN_LANES_LEN) hashRange(0, count, len);
  else hashEightLanes(count, len);
  return count;
}

@inline function fold8(h: u32): u32 {
  const h16 = (h >>> 16) ^ (h & 0xffff);
  return ((h16 >>> 8) ^ h16) & 0xff;
}

@inline function hashBytes(h: u32, p: usize, end: usize): u32 {
  for (; p < end; p++) h = (h ^ <u32>load<u8>(p)) * PRIME;
  return h;
}

/** Content end of a line starting at `start` whose successor starts at `next`. */
@inline function lineEnd(start: u32, next: u32, len: u32): u32 {
  let e = next - 1;
  // only a real "\n" (e < len) has a terminator "\r"; a trailing lone "\r" stays in the line
  if (e < len && e > start && load<u8>(inputPtr + <usize>e - 1) == 13) e--;
  return e;
}

/** Write starts[0..count] (plus the sentinel) after the input; returns count or -1. */
function scanLines(len: u32): i32 {
  const base = inputPtr;
  const end = base + <usize>len;
  let out = align16(end + SLACK);
  startsP = out;
  let limit = <usize>(<u64>memory.size() << 16);
  if (out + 256 > limit) {
    if (!ensure(<u64>out + 256)) return -1;
    limit = <usize>(<u64>memory.size() << 16);
  }
  store<u32>(out, 0);
  out += 4;
  const nl = i8x16.splat(10);
  for (let p = base; p < end; p += 64) {
    // a 64-byte block adds at most 64 entries (256 bytes)
    if (out + 256 > limit) {
      if (!ensure(<u64>out + 256 + <u64>((end - p) >>> 3))) return -1;
      limit = <usize>(<u64>memory.size() << 16);
    }
    let m: u64 =
      <u64>i8x16.bitmask(i8x16.eq(v128.load(p), nl)) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 16), nl)) << 16) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 32), nl)) << 32) |
      (<u64>i8x16.bitmask(i8x16.eq(v128.load(p, 48), nl)) << 48);
    const next = <u32>(p - base) + 1;
    while (m) {
      store<u32>(out, next + <u32>ctz<u64>(m));
      out += 4;
      m &= m - 1;
    }
  }
  // the last block may have read stale bytes past the input: drop what it found there
  while (load<u32>(out - 4) > len) out -= 4;
  let count = <i32>((out - startsP) >>> 2) - 1;
  if (load<u32>(out - 4) < len) {
    // a last line without "\n": sentinel as if a "\n" sat at len
    store<u32>(out, len + 1);
    count++;
  }
  return count;
}

/** Place ends and hashes after starts and grow memory for them. */
function placeOutputs(count: i32): bool {
  endsP = align16(startsP + ((<usize>count + 1) << 2));
  hashesP = endsP + (<usize>count << 2);
  return ensure(<u64>hashesP + <u64>count + 16);
}

/** Single-lane hashing of lines [from, to). */
function hashRange(from: i32, to: i32, len: u32): void {
  const base = inputPtr;
  for (let i = from; i < to; i++) {
    const at = startsP + (<usize>i << 2);
    const s = load<u32>(at);
    const e = lineEnd(s, load<u32>(at, 4), len);
    store<u32>(endsP + (<usize>i << 2), e);
    store<u8>(hashesP + <usize>i, fold8(hashBytes(BASIS, base + <usize>s, base + <usize>e)));
  }
}

/** First line index whose start offset is >= value. */
function lowerBound(count: i32, value: u32): i32 {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<u32>(startsP + (<usize>mid << 2)) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The fast path. Lane j owns lines [first_j, first_{j+1}) starting at byte
 * chunk_j; all lanes advance one byte per step for `steps` = the shortest
 * chunk, then each lane finishes its own chunk single-lane.
 *
 * Lane table (u32 x 8 each, at `table`): +0 chunk start, +32 next line to
 * read back, +64 line limit.
 */
function hashEightLanes(count: i32, len: u32): void {
  const base = inputPtr;
  const ring = align16(__heap_base) + 32; // slot -1 lives at ring - 32
  const table = ring + BLOCK * 32;
  const eighth = len >>> 3;
  let steps: u32 = 0xffffffff;
  let prevChunk: u32 = 0;
  for (let j: u32 = 0; j < 8; j++) {
    const first = j == 0 ? 0 : lowerBound(count, eighth * j);
    const chunk = j == 0 ? 0 : min<u32>(load<u32>(startsP + (<usize>first << 2)), len);
    store<u32>(table + (<usize>j << 2), chunk);
    store<u32>(table + (<usize>j << 2), <u32>first, 32);
    if (j > 0) {
      store<u32>(table + (<usize>(j - 1) << 2), <u32>first, 64);
      steps = min<u32>(steps, chunk - prevChunk);
    }
    prevChunk = chunk;
  }
  store<u32>(table + 28, <u32>count, 64);
  steps = min<u32>(steps, len - prevChunk);

  const p0 = base + <usize>load<u32>(table, 0);
  const p1 = base + <usize>load<u32>(table, 4);
  const p2 = base + <usize>load<u32>(table, 8);
  const p3 = base + <usize>load<u32>(table, 12);
  const p4 = base + <usize>load<u32>(table, 16);
  const p5 = base + <usize>load<u32>(table, 20);
  const p6 = base + <usize>load<u32>(table, 24);
  const p7 = base + <usize>load<u32>(table, 28);
  const P = i32x4.splat(PRIME);
  const B = i32x4.splat(BASIS);
  const NL = i32x4.splat(10);
  const Z = i32x4.splat(0);
  const M = i32x4.splat(0xff);
  let a = B;
  let b = B;
  for (let k0: usize = 0; k0 < <usize>steps; k0 += BLOCK) {
    const kEnd = min<usize>(k0 + BLOCK, <usize>steps);
    let slot = ring;
    let k = k0;
    for (const kEnd8 = k0 + ((kEnd - k0) & ~(<usize>7)); k < kEnd8; k += 8) {
      // gather 8 bytes per lane, then regroup so each i32 lane holds 4 bytes of one line-lane
      let v01 = v128.load64_zero(p0 + k);
      v01 = v128.load64_lane(p1 + k, v01, 1);
      let v23 = v128.load64_zero(p2 + k);
      v23 = v128.load64_lane(p3 + k, v23, 1);
      let v45 = v128.load64_zero(p4 + k);
      v45 = v128.load64_lane(p5 + k, v45, 1);
      let v67 = v128.load64_zero(p6 + k);
      v67 = v128.load64_lane(p7 + k, v67, 1);
      const a0 = i8x16.shuffle(v01, v23, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
      const a1 = i8x16.shuffle(v01, v23, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
      const b0 = i8x16.shuffle(v45, v67, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
      const b1 = i8x16.shuffle(v45, v67, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
      v128.store(slot, a); v128.store(slot, b, 16);
      a = adv(a, v128.and(a0, M)); b = adv(b, v128.and(b0, M));
      v128.store(slot, a, 32); v128.store(slot, b, 48);
      a = adv(a, v128.and(i32x4.shr_u(a0, 8), M)); b = adv(b, v128.and(i32x4.shr_u(b0, 8), M));
      v128.store(slot, a, 64); v128.store(slot, b, 80);
      a = adv(a, v128.and(i32x4.shr_u(a0, 16), M)); b = adv(b, v128.and(i32x4.shr_u(b0, 16), M));
      v128.store(slot, a, 96); v128.store(slot, b, 112);
      a = adv(a, i32x4.shr_u(a0, 24)); b = adv(b, i32x4.shr_u(b0, 24));
      v128.store(slot, a, 128); v128.store(slot, b, 144);
      a = adv(a, v128.and(a1, M)); b = adv(b, v128.and(b1, M));
      v128.store(slot, a, 160); v128.store(slot, b, 176);
      a = adv(a, v128.and(i32x4.shr_u(a1, 8), M)); b = adv(b, v128.and(i32x4.shr_u(b1, 8), M));
      v128.store(slot, a, 192); v128.store(slot, b, 208);
      a = adv(a, v128.and(i32x4.shr_u(a1, 16), M)); b = adv(b, v128.and(i32x4.shr_u(b1, 16), M));
      v128.store(slot, a, 224); v128.store(slot, b, 240);
      a = adv(a, i32x4.shr_u(a1, 24)); b = adv(b, i32x4.shr_u(b1, 24));
      slot += 256;
    }
    for (; k < kEnd; k++) {
      let x = v128.load8_lane(p0 + k, Z, 0);
      x = v128.load8_lane(p1 + k, x, 4);
      x = v128.load8_lane(p2 + k, x, 8);
      x = v128.load8_lane(p3 + k, x, 12);
      let y = v128.load8_lane(p4 + k, Z, 0);
      y = v128.load8_lane(p5 + k, y, 4);
      y = v128.load8_lane(p6 + k, y, 8);
      y = v128.load8_lane(p7 + k, y, 12);
      v128.store(slot, a);
      v128.store(slot, b, 16);
      slot += 32;
      a = adv(a, x);
      b = adv(b, y);
    }
    readBackBlock(k0, kEnd, ring, table);
    // keep the block's last snapshot as slot -1 for a "\r\n" split across blocks
    const last = ring + ((kEnd - k0 - 1) << 5);
    v128.store(ring - 32, v128.load(last));
    v128.store(ring - 16, v128.load(last, 16));
  }

  v128.store(ring, a);
  v128.store(ring, b, 16);
  for (let j: usize = 0; j < 8; j++) {
    const i = <i32>load<u32>(table + (j << 2), 32);
    const limit = <i32>load<u32>(table + (j << 2), 64);
    if (i >= limit) continue;
    // line i is partly hashed: lane state covers [start, chunk + steps)
    const at = startsP + (<usize>i << 2);
    const e = lineEnd(load<u32>(at), load<u32>(at, 4), len);
    const pos = load<u32>(table + (j << 2)) + steps;
    let h = load<u32>(ring + (j << 2));
    if (pos <= e) h = hashBytes(h, base + <usize>pos, base + <usize>e);
    else h = (h * PRIME_INV) ^ 13; // the lane already consumed the "\r" of "\r\n"
    store<u32>(endsP + (<usize>i << 2), e);
    store<u8>(hashesP + <usize>i, fold8(h));
    hashRange(i + 1, limit, len);
  }
}

/** One FNV-1a step per lane; a lane that just read "\n" restarts at the offset basis. */
@inline function adv(h: v128, x: v128): v128 {
  return v128.bitselect(i32x4.splat(BASIS), i32x4.mul(v128.xor(h, x), i32x4.splat(PRIME)), i32x4.eq(x, i32x4.splat(10)));
}

/** Read back the hash of every line whose "\n" fell in steps [k0, kEnd). */
function readBackBlock(k0: usize, kEnd: usize, ring: usize, table: usize): void {
  const base = inputPtr;
  for (let j: usize = 0; j < 8; j++) {
    const chunk = load<u32>(table + (j << 2));
    const limit = load<u32>(table + (j << 2), 64);
    const blockEnd = chunk + <u32>kEnd;
    let i = load<u32>(table + (j << 2), 32);
    while (i < limit) {
      const at = startsP + (<usize>i << 2);
      const start = load<u32>(at);
      const newline = load<u32>(at, 4) - 1;
      if (newline >= blockEnd) break;
      let e = newline;
      let snap = ring + ((<usize>(newline - chunk) - k0) << 5) + (j << 2);
      if (e > start && load<u8>(base + <usize>e - 1) == 13) {
        e--;
        snap -= 32;
      }
      store<u32>(endsP + (<usize>i << 2), e);
      store<u8>(hashesP + <usize>i, fold8(load<u32>(snap)));
      i++;
    }
    store<u32>(table + (j << 2), i, 32);
  }
}
