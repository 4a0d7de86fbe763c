/**
 * Translation of Node-style filesystem errors (node:fs on Node, Bun and Deno)
 * into storage codes. Messages name only the workspace-relative path: the
 * original error, which carries absolute host paths, is chained as `cause`
 * and must not be shown to agents.
 */
import { FsError, type FsErrorCode } from "../errors.ts";

const CODES: Record<string, FsErrorCode> = {
  ENOENT: "FS_NOT_FOUND",
  ENOTDIR: "FS_NOT_DIRECTORY",
  EISDIR: "FS_IS_DIRECTORY",
  EACCES: "FS_ACCESS_DENIED",
  EPERM: "FS_ACCESS_DENIED",
  // A symlink met where O_NOFOLLOW forbids one, or a symlink loop.
  ELOOP: "FS_ACCESS_DENIED",
  // Only reachable when the root's own path is long: our limits keep names short.
  ENAMETOOLONG: "FS_INVALID_PATH",
};

/** The `code` property of a Node-style error ("ENOENT"), if any. */
export function nodeErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Map a Node-style error to an {@link FsError} (FS_IO_ERROR when unknown), chaining it as `cause`. */
export function fsErrorFromNode(error: unknown, operation: string, path: string): FsError {
  if (error instanceof FsError) return error;
  const nodeCode = nodeErrorCode(error) ?? "UNKNOWN";
  const code = CODES[nodeCode] ?? "FS_IO_ERROR";
  if (nodeCode === "EACCES" || nodeCode === "EPERM") {
    // The operating system's file permissions, not the workspace boundary: say which.
    return new FsError(code, `permission denied (${operation}, ${nodeCode}): ${path}`, { cause: error, path, permission: true });
  }
  return new FsError(code, `${operation} failed (${nodeCode}): ${path}`, { cause: error, path });
}
