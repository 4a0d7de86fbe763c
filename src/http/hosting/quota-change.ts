/**
 * Changing a workspace's quota: a PUT with quota parameters replaces it
 * (a compare-and-swap on the record, retried against concurrent PUTs), and
 * a workspace-bound admin token may only keep or lower it.
 */
import { CodedError } from "../../errors.ts";
import { FsError, isFsError } from "../../storage/errors.ts";
import { Cond, type Storage } from "../../storage/types.ts";
import type { Quota } from "./ledger.ts";
import { type FoundRecord, incarnationOf, readRecord, type WorkspaceRecord, writeRecord } from "./records.ts";

/** Tries of a quota update that keeps losing its compare-and-swap to other PUTs before it gives up. */
const QUOTA_CAS_ATTEMPTS = 20;

/** Refuse a quota above `limit` (what a workspace-bound admin token may not do). */
export function checkNotRaised(workspace: string, limit: Quota, asked: Quota, what: string): void {
  const raised = (["maxBytes", "maxFiles"] as const).filter((key) => asked[key] > limit[key]);
  if (raised.length === 0) return;
  const detail = raised.map((key) => `${key} ${asked[key]} > ${limit[key]}`).join(", ");
  throw new CodedError(
    "FORBIDDEN",
    `Raising workspace ${workspace}'s quota above ${what} (${detail}) needs a global admin token (ws "*"); ` +
      "this token is bound to the workspace and may only keep or lower it. Ask the platform operator, or PUT without those parameters.",
  );
}

/** Replace an existing workspace's quota; a compare-and-swap lost to another PUT is retried on the newer record. */
export async function updateQuota(records: Storage, workspace: string, found: FoundRecord, quota: Partial<Quota>, mayRaise: boolean): Promise<WorkspaceRecord> {
  for (let attempt = 1; ; attempt++) {
    const record = { ...found.record, quota: { ...found.record.quota, ...quota } };
    if (!mayRaise) checkNotRaised(workspace, found.record.quota, record.quota, "its current quota");
    try {
      await writeRecord(records, workspace, record, Cond.ifVersion(found.version));
      return record;
    } catch (error) {
      if (!isFsError(error) || error.code !== "FS_STALE_VERSION") throw error;
    }
    const again = await readRecord(records, workspace);
    if (again?.record.state !== "ready" || incarnationOf(again.record) !== incarnationOf(found.record)) {
      throw new FsError(
        "FS_NOT_FOUND",
        `workspace ${workspace} was deleted while its quota was being changed; PUT /v1/workspaces/${workspace} creates it again`,
      );
    }
    if (attempt >= QUOTA_CAS_ATTEMPTS) {
      throw new FsError(
        "FS_STALE_VERSION",
        `other requests kept changing workspace ${workspace}'s quota at the same time (${attempt} attempts); GET /v1/workspaces/${workspace} and PUT it again`,
      );
    }
    found = again;
  }
}
