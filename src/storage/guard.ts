/**
 * The storage boundary: every path is normalised exactly once here, and a
 * refused path (or malformed argument) never reaches the provider.
 */
import { CodedError } from "../errors.ts";
import { checkListOptions } from "./listing.ts";
import { normalizeWorkspacePath } from "./path.ts";
import type { ListOptions, ReadOptions, ScanFileOptions, Storage, Version, WriteCondition } from "./types.ts";

function checkCondition(condition: WriteCondition): void {
  const kind = (condition as { kind?: unknown } | null)?.kind;
  if (kind === "none" || kind === "ifAbsent") return;
  if (kind === "ifVersion") {
    const { version, bytes } = condition as { version?: unknown; bytes?: unknown };
    if (bytes !== undefined && !(bytes instanceof Uint8Array)) {
      throw new CodedError("INVALID_ARGUMENT", "ifVersion condition bytes must be a Uint8Array");
    }
    if (typeof version === "string" && version !== "") return;
    throw new CodedError("INVALID_ARGUMENT", "ifVersion condition needs a non-empty version string");
  }
  throw new CodedError("INVALID_ARGUMENT", `unknown write condition: ${String(kind)}`);
}

/**
 * The top-level name kept for toolwarden's own state inside a workspace
 * (its history on object stores). No call through the guard reaches it,
 * and listings leave it out.
 */
export const RESERVED_SEGMENT = ".toolwarden";

function isReserved(normalized: string): boolean {
  return normalized === RESERVED_SEGMENT || normalized.startsWith(`${RESERVED_SEGMENT}/`);
}

/** Normalise a path and refuse the reserved name. */
function guardedPath(path: string): string {
  const normalized = normalizeWorkspacePath(path);
  if (isReserved(normalized)) {
    throw new CodedError("FS_INVALID_PATH", `invalid path: ${RESERVED_SEGMENT}/ is reserved for the workspace's history`);
  }
  return normalized;
}

/** {@link guardedPath} of `path`, or nothing when the guard refuses it. */
function guardedOrNone(path: string): string[] {
  try {
    return [guardedPath(path)];
  } catch {
    return [];
  }
}

function checkVersionOption(options: { ifVersion?: Version } | undefined): void {
  const version = options?.ifVersion;
  if (version !== undefined && (typeof version !== "string" || version === "")) {
    throw new CodedError("INVALID_ARGUMENT", "ifVersion must be a non-empty version string");
  }
}

/**
 * Wrap a provider so that each call normalises its path with
 * `normalizeWorkspacePath` (rejecting FS_INVALID_PATH before the provider is
 * called) and checks its other arguments (INVALID_ARGUMENT). The provider
 * only ever sees normalised paths.
 */
export function guardStorage(inner: Storage): Storage {
  // Present only when the provider has it: callers test for the method to choose how to read.
  const streaming = inner.readStream ? { readStream: async (path: string) => inner.readStream!(guardedPath(path)) } : {};
  const scanning = inner.scanFile ? { scanFile: async <T>(path: string, options: ScanFileOptions<T>) => inner.scanFile!(guardedPath(path), options) } : {};
  const ending = inner.endScan ? { endScan: () => inner.endScan!() } : {};
  // A hint: a path the guard refuses is left out (its scan is refused as any call would be).
  const ahead = inner.scanAhead ? { scanAhead: (paths: readonly string[]) => inner.scanAhead!(paths.flatMap(guardedOrNone)) } : {};
  return {
    kind: inner.kind,
    ...(inner.root === undefined ? {} : { root: inner.root }),
    ...streaming,
    ...scanning,
    ...ending,
    ...ahead,
    async stat(path: string) {
      return inner.stat(guardedPath(path));
    },
    async read(path: string, options?: ReadOptions) {
      const normalized = guardedPath(path);
      const max = options?.maxBytes;
      if (max !== undefined && !(Number.isSafeInteger(max) && max >= 0)) {
        throw new CodedError("INVALID_ARGUMENT", `read maxBytes must be a whole number of bytes, 0 or more (got ${max})`);
      }
      return inner.read(normalized, options);
    },
    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }) {
      const normalized = guardedPath(path);
      if (!(bytes instanceof Uint8Array)) throw new CodedError("INVALID_ARGUMENT", "write bytes must be a Uint8Array");
      checkCondition(condition);
      return inner.write(normalized, bytes, condition);
    },
    async list(path: string, options?: ListOptions) {
      const normalized = guardedPath(path);
      checkListOptions(options);
      const listing = await inner.list(normalized, options);
      if (normalized !== "") return listing;
      return { ...listing, entries: listing.entries.filter((entry) => !isReserved(entry.path)) };
    },
    async delete(path: string, options?: { ifVersion?: Version }) {
      const normalized = guardedPath(path);
      checkVersionOption(options);
      return inner.delete(normalized, options);
    },
  };
}
