/**
 * Model-facing wording for failures. Storage errors are machine-oriented;
 * here, at the tool boundary, each code gains the one correct recovery so
 * the model's next call is obvious. The code itself is never changed.
 */

import { type ErrorCode, isCodedError } from "../../errors.ts";
import { fail, type ToolResult } from "../../result.ts";
import { parentPath } from "../../storage/path.ts";

/** Display form of a workspace path ("" is the workspace root). */
export function shownPath(path: string): string {
  return path === "" ? "." : path;
}

function viewCall(path: string): string {
  return `view {"path": ${JSON.stringify(shownPath(path))}}`;
}

/**
 * The recovery sentence for a code, or "" when the message already says it.
 * Wording for the two guarded-mutation codes is pinned: FS_STALE_VERSION ends
 * "— re-read the file, then retry", FS_NOT_OBSERVED "— read the file, then
 * retry", each followed by the exact call.
 */
export function remedyFor(code: ErrorCode, path?: string): string {
  const p = path ?? "";
  switch (code) {
    case "FS_STALE_VERSION":
      return ` — re-read the file, then retry: ${viewCall(p)}`;
    case "FS_NOT_OBSERVED":
      return ` — read the file, then retry: ${viewCall(p)}`;
    case "FS_NOT_FOUND":
      return ` Check the path: ${viewCall(parentPath(p))} lists what exists there.`;
    case "FS_NOT_DIRECTORY":
      return ` A part of the path is a file, not a directory: ${viewCall(parentPath(p))} shows it.`;
    case "FS_IS_DIRECTORY":
      return ` It is a directory: ${viewCall(p)} lists its entries; name a file inside it instead.`;
    case "FS_INVALID_PATH":
      return " Use a workspace-relative path with forward slashes (e.g. \"src/app.ts\"), without \"..\" above the root, backslashes or control characters.";
    case "FS_ACCESS_DENIED":
      return " This path is outside what this workspace may touch; choose a path inside the workspace.";
    case "FS_ALREADY_EXISTS":
      return ` Another writer created it first. View it (${viewCall(p)}), then write again to overwrite that version.`;
    case "FS_IO_ERROR":
      return " The storage failed; retrying the same call once is safe — nothing was changed.";
    default:
      return "";
  }
}

/**
 * FS_ACCESS_DENIED from the operating system's file permissions (EACCES,
 * EPERM): the path is inside the workspace, but the server's user may not
 * do this there. Retrying will not help; another path or a permission
 * change by the user will.
 */
function permissionDenied(where: string, message: string): string {
  return (
    `Permission denied on \`${where}\` [${message}]. The path is inside the workspace, but the file ` +
    "permissions do not let the server's user do this; nothing was changed. Retrying will not help: " +
    "choose another path, or ask the user to change the permissions."
  );
}

const HEADLINES: Partial<Record<ErrorCode, (p: string) => string>> = {
  FS_NOT_FOUND: (p) => `\`${p}\` does not exist.`,
  FS_NOT_DIRECTORY: (p) => `\`${p}\` is not a directory.`,
  FS_IS_DIRECTORY: (p) => `\`${p}\` is a directory, not a file.`,
  FS_INVALID_PATH: (p) => `The path \`${p}\` is not a valid workspace path.`,
  FS_ACCESS_DENIED: (p) => `Access to \`${p}\` is denied.`,
  FS_STALE_VERSION: (p) => `\`${p}\` changed since you last viewed it`,
  FS_NOT_OBSERVED: (p) => `\`${p}\` has not been viewed in this session`,
  FS_ALREADY_EXISTS: (p) => `\`${p}\` already exists.`,
  FS_IO_ERROR: (p) => `Storage error on \`${p}\`.`,
};

/**
 * Turn anything thrown below the tool boundary into a result: coded errors
 * keep their code and gain a headline plus the recovery; anything else is
 * INTERNAL_ERROR. The provider's machine message follows in brackets; the
 * chained `cause` (which may hold absolute host paths) never reaches the model.
 */
export function toolError(error: unknown, path?: string): ToolResult {
  if (isCodedError(error)) {
    const where = (error as { path?: string }).path ?? path;
    if (error.code === "FS_ACCESS_DENIED" && (error as { permission?: boolean }).permission) {
      return fail(error.code, permissionDenied(shownPath(where ?? ""), error.message));
    }
    const headline = where !== undefined ? HEADLINES[error.code]?.(shownPath(where)) : undefined;
    const text = headline ? `${headline} [${error.message}]` : error.message;
    return fail(error.code, `${text}${remedyFor(error.code, where)}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return fail("INTERNAL_ERROR", `Internal error: ${message}. Nothing was changed by this call; report it if it repeats.`);
}
