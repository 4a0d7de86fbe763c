import type { ToolResult } from "../../result.ts";
import { normalizeWorkspacePath } from "../../storage/path.ts";
import { toolError } from "./remedy.ts";

/**
 * Normalise a path argument once, at the tool boundary, so observation keys
 * and messages use the same form the storage guard will. A refused path is
 * a model-facing FS_INVALID_PATH result.
 */
export function argPath(input: string): { ok: true; path: string } | { ok: false; result: ToolResult } {
  try {
    return { ok: true, path: normalizeWorkspacePath(input) };
  } catch (error) {
    return { ok: false, result: toolError(error, input) };
  }
}
