/**
 * File-descriptor I/O for local storage: blocking calls for small content,
 * the thread pool for large content and for flushes.
 *
 * Why blocking calls at all: an async node:fs call is a round trip through
 * the runtime's thread pool, which on the benchmark machine costs far more
 * than the syscall it wraps when the page cache answers (Bun: lstat 17 µs
 * async vs 3 µs blocking; open, fstat, read and close of a 50 KB file 278 µs
 * vs ~15 µs). Content up to {@link SYNC_IO_BYTES} is copied in a blocking
 * call (well under a millisecond); larger content and fdatasync, which
 * waits for the disk, go through the pool so one large file or slow disk
 * does not stall every other request.
 */
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import { setImmediate } from "node:timers";
import type { Version } from "../types.ts";

/** Content up to this many bytes is read, written and hashed with blocking calls. */
export const SYNC_IO_BYTES = 1024 * 1024;

/**
 * Bytes read past the expected end to confirm it is the end (a read of 0)
 * or to find the file grew since its size was taken. Small: a large probe
 * per read costs more than reading a small file.
 */
const PROBE_BYTES = 4096;

/** Below this size a buffer comes from the garbage-collected heap (see {@link scratch}). */
const SMALL_BUFFER_BYTES = 16 * 1024;

/**
 * A buffer of `size` bytes that owns its ArrayBuffer. Large ones are not
 * zero-filled (callers overwrite every byte they hand out): zero-filled
 * large memory is fresh pages, and the first touch of each page costs more
 * than reading a small file (~110 us vs ~10 us for 50 KB on the benchmark
 * machine). Small ones are ordinary arrays: a malloc'd buffer costs the
 * garbage collector more than zeroing a few KiB (a search reading 49,000
 * small files spent 9% of its time allocating them).
 */
function scratch(size: number): Uint8Array {
  if (size < SMALL_BUFFER_BYTES) return new Uint8Array(size);
  const buffer = Buffer.allocUnsafeSlow(size);
  // A plain Uint8Array: Buffer's slice() shares memory where Uint8Array's copies.
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function readAsync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

function writeAsync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.write(fd, buffer, offset, length, position, (error, written) => (error ? reject(error) : resolve(written))));
}

/**
 * Every byte of the open file `fd`, from offset 0 to its end. `sizeHint`
 * (from fstat) sizes the buffer; a file that grew or shrank since is still
 * read exactly to its end. The result owns its whole ArrayBuffer.
 */
export async function readAll(fd: number, sizeHint: number): Promise<Uint8Array> {
  const blocking = sizeHint <= SYNC_IO_BYTES;
  const readAt = (buffer: Uint8Array, offset: number, length: number, position: number) =>
    blocking ? fs.readSync(fd, buffer, offset, length, position) : readAsync(fd, buffer, offset, length, position);
  let buffer = scratch(sizeHint);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      const probe = scratch(PROBE_BYTES);
      const n = await readAt(probe, 0, probe.length, filled);
      if (n === 0) return buffer;
      const grown = scratch(Math.max(buffer.length * 2, filled + n));
      grown.set(buffer);
      grown.set(probe.subarray(0, n), filled);
      buffer = grown;
      filled += n;
      continue;
    }
    const n = await readAt(buffer, filled, buffer.length - filled, filled);
    if (n === 0) return filled === buffer.length ? buffer : buffer.slice(0, filled);
    filled += n;
  }
}

/** Write all of `bytes` to the open file `fd` from offset 0. */
export async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  const blocking = bytes.length <= SYNC_IO_BYTES;
  let done = 0;
  while (done < bytes.length) {
    const left = bytes.length - done;
    done += blocking ? fs.writeSync(fd, bytes, done, left, done) : await writeAsync(fd, bytes, done, left, done);
  }
}

/** fdatasync(fd) on the thread pool: it waits for the disk. */
export function dataSync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * The content version of `bytes`, equal to `contentVersion` (first 128
 * bits of SHA-256, hex), computed in a blocking call when small. Large
 * content is hashed in slices of {@link SYNC_IO_BYTES}, paced like other
 * blocking work: Web Crypto's digest copies its input (a 5 MB edit held
 * two extra copies of the file while its old and new bytes were hashed).
 */
export function localVersion(bytes: Uint8Array): Version | Promise<Version> {
  if (bytes.length > SYNC_IO_BYTES) return hashInSlices(bytes);
  return createHash("sha256").update(bytes).digest("hex").slice(0, 32);
}

async function hashInSlices(bytes: Uint8Array): Promise<Version> {
  const hash = createHash("sha256");
  for (let at = 0; at < bytes.length; at += SYNC_IO_BYTES) {
    await pace();
    hash.update(bytes.subarray(at, at + SYNC_IO_BYTES));
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Whether the open file `fd` holds exactly `expected`, from offset 0 to
 * its end, read in slices into one scratch buffer: the compare-and-swap
 * check of a large file keeps no second copy of it.
 */
export async function contentEquals(fd: number, expected: Uint8Array): Promise<boolean> {
  const blocking = expected.length <= SYNC_IO_BYTES;
  // One byte more than the file when it is small: the read that finds the end is then the second.
  const slice = scratch(Math.min(expected.length + 1, SYNC_IO_BYTES));
  let position = 0;
  for (;;) {
    if (!blocking) await pace();
    const n = blocking ? fs.readSync(fd, slice, 0, slice.length, position) : await readAsync(fd, slice, 0, slice.length, position);
    if (n === 0) return position === expected.length;
    if (position + n > expected.length || !sameBytes(slice.subarray(0, n), expected.subarray(position, position + n))) return false;
    position += n;
  }
}

/** Byte-for-byte equality (a native memcmp). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

/** Longest stretch of back-to-back blocking calls (ms) before other work gets a turn. */
const MAX_BLOCKING_MS = 4;
/** A pause this long between calls means the event loop already had its turn (or was idle). */
const TURN_GAP_MS = 1;

/**
 * A pacer: a function that gives the event loop a turn when blocking calls
 * have run back to back for {@link MAX_BLOCKING_MS} by `now` (milliseconds;
 * injected so tests can drive it without wall-clock timing), and otherwise
 * returns undefined (await of undefined costs nothing).
 */
export function createPacer(now: () => number = () => performance.now()): () => Promise<void> | undefined {
  let stretchStart = 0;
  let lastCall = 0;
  return () => {
    const at = now();
    if (at - lastCall > TURN_GAP_MS) stretchStart = at;
    lastCall = at;
    if (at - stretchStart < MAX_BLOCKING_MS) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        stretchStart = lastCall = now();
        resolve();
      }),
    );
  };
}

/**
 * Give the event loop a turn when blocking calls have run back to back for
 * {@link MAX_BLOCKING_MS}; otherwise nothing. Blocking calls are short, but
 * a walk of 50,000 entries or a search reading them all would otherwise
 * hold every other request of the server for seconds: async calls used to
 * yield on every syscall. Call it before each unit of blocking work.
 */
export const pace: () => Promise<void> | undefined = createPacer();
