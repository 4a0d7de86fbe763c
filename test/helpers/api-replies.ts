/**
 * The JSON answers of the HTTP API as the tests read them. One interface per
 * family of endpoints; a test reads the fields of the endpoint it called.
 */
import type { RevertConflict, RevertedFile } from "../../src/history/revert.ts";
import type { AuditEntry, FileState } from "../../src/history/types.ts";
import type { CreateOutcome, WorkspaceInfo } from "../../src/http/hosting/registry.ts";
import type { ResultFacts } from "../../src/result.ts";

/** The body of a refused request. */
export interface ApiError {
  readonly error: { readonly code: string; readonly message: string };
}

/** A REST tool answer (POST /v1/tools/NAME), or the refusal of the request itself. */
export interface RestToolReply extends ApiError {
  readonly isError: boolean;
  readonly code?: string;
  readonly content: { readonly type: string; readonly text: string }[];
  readonly facts?: ResultFacts;
}

/** A row of GET /v1/history (the tests read files that existed before and after the change). */
export interface HistoryVersion {
  readonly change: string;
  readonly time: string;
  readonly tool: string;
  readonly principal: string;
  readonly session: string;
  readonly before: FileState;
  readonly after: FileState;
}

/** The answers of /v1/audit, /v1/history and /v1/revert (and their refusals). */
export interface HistoryReply extends ApiError {
  readonly entries: AuditEntry[];
  readonly cursor?: string;
  readonly path: string;
  readonly versions: HistoryVersion[];
  readonly ok: boolean;
  readonly reverted: RevertedFile[];
  readonly conflicts: RevertConflict[];
  /** The id of the revert's own audit entry. */
  readonly change: string;
}

/** PUT /v1/workspaces/{ws}. */
export type CreateReply = WorkspaceInfo & Pick<CreateOutcome, "created" | "imported">;

/** GET /v1/workspaces. */
export interface WorkspaceList {
  readonly workspaces: string[];
}
