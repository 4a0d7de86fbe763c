/**
 * A plain directory as the {@link Storage} of a history store on local
 * disk (the state directory, outside every workspace). Written by this
 * process alone, with paths the history store makes, so it needs none of
 * the local provider's containment proofs; files are created with `wx`
 * (never replaced) and not flushed: history is a record, not the files.
 */
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { FsError } from "../storage/errors.ts";
import type { ListResult, ReadResult, StatResult, Storage, WriteCondition, WriteResult } from "../storage/types.ts";
import { sha256Hex } from "./store.ts";

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function fsError(error: unknown, path: string): FsError {
  const code = codeOf(error);
  if (code === "ENOENT") return new FsError("FS_NOT_FOUND", `not found: ${path}`, { path, cause: error });
  if (code === "EEXIST") return new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path, cause: error });
  return new FsError("FS_IO_ERROR", `state directory: ${codeOf(error) ?? "error"} on ${path}`, { path, cause: error });
}

/** A storage rooted at `root` (created on first write). */
export function createStateDirStorage(root: string): Storage {
  // Paths come from the history store, but an id that slipped through must never climb out of the root.
  const at = (path: string) => {
    if (path.split("/").some((segment) => segment === ".." || segment === ".")) throw new FsError("FS_INVALID_PATH", `invalid state path: ${path}`, { path });
    return join(root, path);
  };
  return {
    kind: "state",
    async stat(path): Promise<StatResult | null> {
      try {
        const s = await stat(at(path));
        return { path, kind: s.isDirectory() ? "directory" : "file", size: s.isDirectory() ? 0 : s.size, mtimeMs: s.mtimeMs };
      } catch (error) {
        if (codeOf(error) === "ENOENT") return null;
        throw fsError(error, path);
      }
    },
    async read(path): Promise<ReadResult> {
      try {
        const bytes = new Uint8Array(await readFile(at(path)));
        return { bytes, version: await sha256Hex(bytes) };
      } catch (error) {
        throw fsError(error, path);
      }
    },
    async write(path, bytes, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (condition.kind === "ifVersion") throw new FsError("FS_IO_ERROR", "the state directory takes no versioned writes", { path });
      await mkdir(dirname(at(path)), { recursive: true });
      try {
        if (condition.kind === "ifAbsent") {
          const handle = await open(at(path), "wx");
          try {
            await handle.writeFile(bytes);
          } finally {
            await handle.close();
          }
        } else {
          await writeFile(at(path), bytes);
        }
      } catch (error) {
        throw fsError(error, path);
      }
      return { version: await sha256Hex(bytes), created: true };
    },
    async list(path): Promise<ListResult> {
      try {
        const dirents = await readdir(at(path), { withFileTypes: true });
        const entries = dirents
          .filter((d) => d.isFile() || d.isDirectory())
          .map((d) => ({ path: path ? `${path}/${d.name}` : d.name, name: d.name, kind: d.isDirectory() ? ("directory" as const) : ("file" as const), size: 0 }))
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
