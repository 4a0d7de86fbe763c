/**
 * A plain directory as the {@link Storage} of a history store on local
 * disk (the state directory, outside every workspace). Written by this
 * process alone, with paths the history store makes, so it needs none of
 * the local provider's containment proofs; files are created with `wx`
 * (never replaced) and not flushed: history is a record, not the files.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { open, readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { FsError } from "../storage/errors.ts";
import type { ListResult, ReadResult, StatResult, Storage, WriteCondition, WriteResult } from "../storage/types.ts";
import { nodeErrorCode as codeOf } from "../storage/local/node-errors.ts";

/** Hex SHA-256, computed in place: an async digest costs a round trip per call, and every call appends an entry. */
export function sha256Sync(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function fsError(error: unknown, path: string): FsError {
  const code = codeOf(error);
  if (code === "ENOENT") return new FsError("FS_NOT_FOUND", `not found: ${path}`, { path, cause: error });
  if (code === "EEXIST") return new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path, cause: error });
  return new FsError("FS_IO_ERROR", `state directory: ${codeOf(error) ?? "error"} on ${path}`, { path, cause: error });
}

/** Writes up to this size are made with blocking calls (see `write`). */
const SYNC_WRITE_BYTES = 1024 * 1024;

/** A storage rooted at `root` (created on first write). */
export function createStateDirStorage(root: string): Storage {
  // Paths come from the history store, but an id that slipped through must never climb out of the root.
  const at = (path: string) => {
    if (path.split("/").some((segment) => segment === ".." || segment === ".")) throw new FsError("FS_INVALID_PATH", `invalid state path: ${path}`, { path });
    return join(root, path);
  };
  // Directories made by this process: each append would otherwise repeat a recursive mkdir.
  const made = new Set<string>();
  return {
    kind: "state",
    async stat(path): Promise<StatResult | null> {
      try {
        // Blocking: one stat per blob stored, and an async call is a thread-pool round trip (slow on Deno).
        const s = statSync(at(path));
        return { path, kind: s.isDirectory() ? "directory" : "file", size: s.isDirectory() ? 0 : s.size, mtimeMs: s.mtimeMs };
      } catch (error) {
        if (codeOf(error) === "ENOENT") return null;
        throw fsError(error, path);
      }
    },
    async read(path): Promise<ReadResult> {
      try {
        const bytes = new Uint8Array(await readFile(at(path)));
        return { bytes, version: sha256Sync(bytes) };
      } catch (error) {
        throw fsError(error, path);
      }
    },
    async write(path, bytes, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (condition.kind === "ifVersion") throw new FsError("FS_IO_ERROR", "the state directory takes no versioned writes", { path });
      const dir = dirname(at(path));
      // Blocking I/O, as local storage does for small files: an entry is a few hundred bytes, every
      // call appends one, and each async call is a thread-pool round trip (several per file).
      const put = async () => {
        if (bytes.byteLength > SYNC_WRITE_BYTES) {
          // A large blob (a whole file) is written without holding up the event loop.
          const handle = await open(at(path), condition.kind === "ifAbsent" ? "wx" : "w", 0o644);
          try {
            await handle.writeFile(bytes);
          } finally {
            await handle.close();
          }
          return;
        }
        const fd = openSync(at(path), condition.kind === "ifAbsent" ? "wx" : "w", 0o644);
        try {
          for (let done = 0; done < bytes.byteLength; ) done += writeSync(fd, bytes, done);
        } finally {
          closeSync(fd);
        }
      };
      try {
        if (!made.has(dir)) {
          mkdirSync(dir, { recursive: true });
          made.add(dir);
        }
        try {
          await put();
        } catch (error) {
          // The directory was removed behind our back (an operator cleaning up): make it again, once.
          if (codeOf(error) !== "ENOENT") throw error;
          mkdirSync(dir, { recursive: true });
          await put();
        }
      } catch (error) {
        throw fsError(error, path);
      }
      // Hashed only if asked: the history store names blobs by their hash already and never reads this
      // (a SHA-256 of every recorded file version, ~28 us for 49 KB, was spent for nothing).
      let version: string | undefined;
      return {
        get version() {
          return (version ??= sha256Sync(bytes));
        },
        created: true,
      };
    },
    async list(path): Promise<ListResult> {
      try {
        const dirents = await readdir(at(path), { withFileTypes: true });
        const entries = dirents
          .filter((d) => d.isFile() || d.isDirectory())
          .map((d) => ({
            path: path ? `${path}/${d.name}` : d.name,
            name: d.name,
            kind: d.isDirectory() ? ("directory" as const) : ("file" as const),
            size: 0,
          }))
          .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        return { entries, truncated: false };
      } catch (error) {
        throw fsError(error, path);
      }
    },
    async delete(path) {
      await rm(at(path), { force: true });
    },
  };
}
