/**
 * A plain directory as the {@link Storage} of a history store on local
 * disk (the state directory, outside every workspace). Written by this
 * process alone, with paths the history store makes, so it needs none of
 * the local provider's containment proofs; files are created with `wx`
 * (never replaced) and not flushed: history is a record, not the files.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { FsError } from "../storage/errors.ts";
import type { ListResult, ReadResult, StatResult, Storage, WriteCondition, WriteResult } from "../storage/types.ts";

/** Hex SHA-256, computed in place: an async digest costs a round trip per call, and every call appends an entry. */
function sha256Sync(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

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
  const at = (path: string) => join(root, path);
  // Directories made by this process: each append would otherwise repeat a recursive mkdir.
  const made = new Set<string>();
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
        return { bytes, version: sha256Sync(bytes) };
      } catch (error) {
        throw fsError(error, path);
      }
    },
    async write(path, bytes, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (condition.kind === "ifVersion") throw new FsError("FS_IO_ERROR", "the state directory takes no versioned writes", { path });
      const dir = dirname(at(path));
      const put = async () => {
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
      };
      try {
        if (!made.has(dir)) {
          await mkdir(dir, { recursive: true });
          made.add(dir);
        }
        try {
          await put();
        } catch (error) {
          // The directory was removed behind our back (an operator cleaning up): make it again, once.
          if (codeOf(error) !== "ENOENT") throw error;
          await mkdir(dir, { recursive: true });
          await put();
        }
      } catch (error) {
        throw fsError(error, path);
      }
      return { version: sha256Sync(bytes), created: true };
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
