/**
 * openat(2) called directly, where the runtime offers it (Bun's FFI on
 * Linux x64 and arm64). It is the lookup `/proc/self/fd/N/name` makes
 * (./dirfd.ts): the entry `name` of the directory open as N. It just skips
 * the walk through procfs, which took half of a search's time
 * (docs/performance.md).
 *
 * Optional and fail-safe: with another runtime, another libc, FFI refused,
 * or a self-check that does not hold, there is none and callers open through
 * /proc. A call answers a descriptor or -1 for any failure; the caller then
 * takes its careful way, which words the refusal.
 */
import { constants, closeSync, fstatSync } from "node:fs";

/** Open the entry `name` (one path segment) of the directory open as `dirFd`: a descriptor, or -1. */
export type OpenAt = (dirFd: number, name: string, flags: number) => number;

/** libc's openat: a NUL-terminated name, flags and mode; a descriptor or -1. */
type Native = (dirFd: number, name: Uint8Array, flags: number, mode: number) => number;

/** O_CLOEXEC on Linux x64 and arm64 (node:fs does not export it; libuv adds it to every open). */
export const O_CLOEXEC = 0o2000000;
/** Longest name passed (NAME_MAX is 255 bytes; this leaves room for the NUL). */
const MAX_NAME_BYTES = 1024;

/** A segment that names an entry of the directory itself, and nothing else. */
export function plainSegment(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");
}

type FfiModule = {
  dlopen(path: string, symbols: Record<string, { args: string[]; returns: string }>): { symbols: Record<string, (...args: unknown[]) => number> };
};

/** The libc `openat`, when Bun's FFI can reach it; undefined otherwise. */
async function bunOpenAt(): Promise<Native | undefined> {
  if (typeof (globalThis as { Bun?: unknown }).Bun === "undefined") return undefined;
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return undefined;
  try {
    // A computed specifier: other runtimes and the type checker never resolve it.
    const specifier = "bun:ffi";
    const ffi = (await import(specifier)) as FfiModule;
    const lib = ffi.dlopen("libc.so.6", { openat: { args: ["i32", "ptr", "i32", "i32"], returns: "i32" } });
    return lib.symbols.openat as Native;
  } catch {
    return undefined;
  }
}

/** Whether {@link openAtNow} may answer (tests turn it off to compare with /proc). */
export const openAtSwitch = { enabled: true };
let loaded: OpenAt | undefined;
let loading: Promise<void> | undefined;

/** The process's {@link OpenAt}, once {@link loadOpenAt} found one; undefined before, without one, or switched off. */
export function openAtNow(): OpenAt | undefined {
  return openAtSwitch.enabled ? loaded : undefined;
}

/**
 * Find this process's {@link OpenAt} (once), checked against the directory
 * open as `dirFd`: its "." opened through it must be that directory (same
 * device and inode). Without one, or when the check fails, there is none.
 */
export function loadOpenAt(dirFd: number): Promise<void> {
  loading ??= (async () => {
    const native = await bunOpenAt();
    if (native !== undefined && selfCheck(native, dirFd)) loaded = wrap(native);
  })();
  return loading;
}

/** The native call behind a guard: one plain segment, NUL-terminated, close-on-exec. */
function wrap(native: Native): OpenAt {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(MAX_NAME_BYTES + 1);
  return (fd, name, flags) => {
    if (!plainSegment(name)) return -1;
    const { read, written } = encoder.encodeInto(name, buffer.subarray(0, MAX_NAME_BYTES));
    if (read !== name.length) return -1;
    buffer[written] = 0;
    return native(fd, buffer, flags | O_CLOEXEC, 0);
  };
}

function selfCheck(native: Native, dirFd: number): boolean {
  try {
    const through = native(dirFd, new TextEncoder().encode(".\0"), constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | O_CLOEXEC, 0);
    if (through < 0) return false;
    try {
      const a = fstatSync(through);
      const b = fstatSync(dirFd);
      return a.ino === b.ino && a.dev === b.dev && a.isDirectory();
    } finally {
      closeSync(through);
    }
  } catch {
    return false;
  }
}
