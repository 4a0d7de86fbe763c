/**
 * Every error code's metadata in one table: the HTTP status a transport
 * error with that code answers, what it means, and the recovery a tool
 * result appends. Typed `satisfies Record<ErrorCode, …>`, so a new code does
 * not compile until its status and remedy are decided. Tools answer failures
 * with 200 and `isError`; the status is for requests refused before a tool
 * runs (auth, limits, a workspace that cannot be opened).
 */
import type { ErrorCode } from "../../errors.ts";
import { parentPath } from "../../storage/path.ts";

/** Display form of a workspace path ("" is the workspace root). */
export function shownPath(path: string): string {
  return path === "" ? "." : path;
}

function viewCall(path: string): string {
  return `view {"path": ${JSON.stringify(shownPath(path))}}`;
}

export interface CodeInfo {
  /** HTTP status of a transport error with this code. */
  readonly status: number;
  /** What the code means, for docs/errors.md and harness authors. */
  readonly meaning: string;
  /** The headline of a coded error about `path` (shown form), when the code has a standard one. */
  readonly headline?: (path: string) => string;
  /** The recovery sentence for a failure about `path` ("" when the tool's own message says it). */
  readonly remedy: (path: string) => string;
}

const none = () => "";

export const CODE_TABLE = {
  FS_NOT_FOUND: {
    status: 404,
    meaning: "the path does not exist",
    headline: (p) => `\`${p}\` does not exist.`,
    remedy: (p) => ` Check the path: ${viewCall(parentPath(p))} lists what exists there.`,
  },
  FS_NOT_DIRECTORY: {
    status: 400,
    meaning: "a part of the path is a file",
    headline: (p) => `\`${p}\` is not a directory.`,
    remedy: (p) => ` A part of the path is a file, not a directory: ${viewCall(parentPath(p))} shows it.`,
  },
  FS_IS_DIRECTORY: {
    status: 400,
    meaning: "the path is a directory where a file is needed",
    headline: (p) => `\`${p}\` is a directory, not a file.`,
    remedy: (p) => ` To see what is in it: ${viewCall(p)}; then name a file inside it.`,
  },
  FS_NOT_TEXT: { status: 415, meaning: "the file is binary or not UTF-8 (or, to edit and batch_edit, breaks its lines with lone CRs)", remedy: none },
  FS_TOO_LARGE: { status: 413, meaning: "the file is over the size limit", remedy: none },
  FS_INVALID_PATH: {
    status: 400,
    meaning: "the path is malformed or leaves the workspace",
    headline: (p) => `The path \`${p}\` is not a valid workspace path.`,
    remedy: () => ' Use a workspace-relative path with forward slashes (e.g. "src/app.ts"), without ".." above the root, backslashes or control characters.',
  },
  FS_ACCESS_DENIED: {
    status: 403,
    meaning: "the path may not be touched (outside the workspace, or denied by file permissions)",
    headline: (p) => `Access to \`${p}\` is denied.`,
    remedy: () => " This path is outside what this workspace may touch; choose a path inside the workspace.",
  },
  FS_STALE_VERSION: {
    status: 409,
    meaning: "the file changed since this session viewed it",
    headline: (p) => `\`${p}\` changed since you last viewed it`,
    remedy: (p) => ` — re-read the file, then retry: ${viewCall(p)}`,
  },
  FS_NOT_OBSERVED: {
    status: 409,
    meaning: "the file has not been viewed in this session",
    headline: (p) => `\`${p}\` has not been viewed in this session`,
    remedy: (p) => ` — read the file, then retry: ${viewCall(p)}`,
  },
  FS_ALREADY_EXISTS: {
    status: 409,
    meaning: "another writer created the file first",
    headline: (p) => `\`${p}\` already exists.`,
    remedy: (p) => ` Another writer created it first. View it (${viewCall(p)}), then write again to overwrite that version.`,
  },
  FS_IO_ERROR: {
    status: 502,
    meaning: "the storage failed",
    headline: (p) => `Storage error on \`${p}\`.`,
    remedy: () => " The storage failed; retrying the same call once is safe — nothing was changed.",
  },
  EDIT_NO_MATCH: { status: 422, meaning: "old_string matches nowhere", remedy: none },
  EDIT_AMBIGUOUS: { status: 422, meaning: "old_string matches several places, or its match can be read more than one way", remedy: none },
  EDIT_STALE_LINE_ID: { status: 409, meaning: "a line id no longer names that line", remedy: none },
  EDIT_CONFLICT: { status: 409, meaning: "operations of one batch overlap, or a revert met a later change", remedy: none },
  EDIT_NO_CHANGE: { status: 422, meaning: "the edit would change nothing", remedy: none },
  EDIT_DUPLICATED_LINE: { status: 422, meaning: "the edit would repeat the lines beside it", remedy: none },
  INVALID_ARGUMENT: { status: 400, meaning: "the arguments or request are malformed", remedy: none },
  SHELL_FORBIDDEN: { status: 403, meaning: "a shell command does what a file tool should", remedy: none },
  RULE_BLOCKED: { status: 422, meaning: "a loud-failure rule turned the result into a failure", remedy: none },
  UNAUTHORIZED: { status: 401, meaning: "no token, or a wrong or expired one", remedy: none },
  FORBIDDEN: { status: 403, meaning: "the token lacks the scope, or the Host/Origin is refused", remedy: none },
  LIMIT_EXCEEDED: { status: 413, meaning: "a size, count or quota limit", remedy: none },
  TIMEOUT: { status: 504, meaning: "the call ran over its time limit", remedy: none },
  INTERNAL_ERROR: { status: 500, meaning: "a bug or an unexpected failure; nothing was changed", remedy: none },
} as const satisfies Record<ErrorCode, CodeInfo>;

/** The table row of `code`. */
export function codeInfo(code: ErrorCode): CodeInfo {
  return CODE_TABLE[code];
}
