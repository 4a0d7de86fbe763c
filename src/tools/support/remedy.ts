/**
 * Model-facing wording for failures. Storage errors are machine-oriented;
 * here, at the tool boundary, each code gains the one correct recovery so
 * the model's next call is obvious. The code itself is never changed.
 */

import { type ErrorCode, isCodedError } from "../../errors.ts";
import { fail, type ToolResult } from "../../result.ts";
import { codeInfo, shownPath } from "./codes.ts";

export { shownPath };

/**
 * The recovery sentence for a code, or "" when the message already says it
 * (the table in ./codes.ts). Wording for the two guarded-mutation codes is
 * pinned: FS_STALE_VERSION ends "— re-read the file, then retry",
 * FS_NOT_OBSERVED "— read the file, then retry", each followed by the exact call.
 */
export function remedyFor(code: ErrorCode, path?: string): string {
  return codeInfo(code).remedy(path ?? "");
}

/**
 * Turn anything thrown below the tool boundary into a result: coded errors
 * keep their code and gain a headline plus the recovery; anything else is
 * INTERNAL_ERROR. The provider's machine message follows in brackets; the
 * chained `cause` (which may hold absolute host paths) never reaches the model.
 */
export function toolError(error: unknown, path?: string): ToolResult {
  if (isCodedError(error)) {
    const where = (error as { path?: string }).path ?? path;
    const headline = where !== undefined ? codeInfo(error.code).headline?.(shownPath(where)) : undefined;
    // The provider's "is a directory: p" says nothing the headline does not.
    const repeats = error.code === "FS_IS_DIRECTORY" && error.message.startsWith("is a directory");
    const text = headline ? (repeats ? headline : `${headline} [${error.message}]`) : error.message;
    return fail(error.code, `${text}${remedyFor(error.code, where)}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return fail("INTERNAL_ERROR", `Internal error: ${message}. Nothing was changed by this call; report it if it repeats.`);
}
