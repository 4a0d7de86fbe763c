/**
 * The file tools a host serves: `view` (read) and the guarded mutations
 * `write`, `edit` and `batch_edit`. Runtime-neutral (no `node:` imports), so
 * Workers can serve them too.
 */

import type { ToolDef } from "./types.ts";
import { batchEditTool } from "./batch-edit/run.ts";
import { editTool } from "./edit/run.ts";
import { viewTool } from "./view/run.ts";
import { writeTool } from "./write/run.ts";

export { batchEditTool, editTool, viewTool, writeTool };

/** Every file tool, in the order clients list them. */
export const fileTools: ToolDef[] = [viewTool, writeTool, editTool, batchEditTool];
