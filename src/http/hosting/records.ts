/**
 * The registry's records, in the backend's `records` storage (which no
 * workspace can reach): one `<name>.json` per workspace saying whether it is
 * ready, its quota and which creation it is, and a tombstone `<name>.deleted`
 * per deleted name, so the name's next creation knows which signed tokens
 * are older (./tokens.ts).
 */
import { isFsError } from "../../storage/errors.ts";
import { Cond, type ListResult, type Storage, type Version } from "../../storage/types.ts";
import { WORKSPACE_NAME } from "../jwt.ts";
import type { Quota } from "./ledger.ts";

/** The record kept per workspace. */
export interface WorkspaceRecord {
  readonly state: "importing" | "ready";
  readonly quota: Quota;
  readonly created: string;
  /** Random per creation: observation sessions are keyed by it (see ./sessions.ts). */
  readonly incarnation?: string;
  /** When the name was last deleted (ms since the epoch): signed tokens issued then or before are refused (./tokens.ts). */
  readonly tokensIssuedAfter?: number;
}

/** A record as read, with the version a compare-and-swap names. */
export interface FoundRecord {
  readonly record: WorkspaceRecord;
  readonly version: Version;
}

/** Left in the records when a workspace is deleted (`<name>.deleted`), so its next creation knows which tokens are older. */
export interface Tombstone {
  readonly deletedAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const recordPath = (workspace: string) => `${workspace}.json`;
// Not `.json`, so never listed as a workspace; `<name>.deleted.json` (workspace "<name>.deleted") is another file.
const tombstonePath = (workspace: string) => `${workspace}.deleted`;

/** Which creation a record belongs to (records from before incarnations existed: their creation time). */
export function incarnationOf(record: WorkspaceRecord): string {
  return record.incarnation ?? record.created;
}

/** The workspace's record, or undefined when it has none. */
export async function readRecord(records: Storage, workspace: string): Promise<FoundRecord | undefined> {
  try {
    const { bytes, version } = await records.read(recordPath(workspace));
    return { record: JSON.parse(decoder.decode(bytes)) as WorkspaceRecord, version };
  } catch (error) {
    if (isFsError(error) && error.code === "FS_NOT_FOUND") return undefined;
    throw error;
  }
}

export async function writeRecord(records: Storage, workspace: string, record: WorkspaceRecord, condition = Cond.none): Promise<Version> {
  return (await records.write(recordPath(workspace), encoder.encode(JSON.stringify(record)), condition)).version;
}

export function deleteRecord(records: Storage, workspace: string, options?: { ifVersion?: Version }): Promise<void> {
  return records.delete(recordPath(workspace), options);
}

/** The names that have a record (ready or importing). */
export async function listRecords(records: Storage): Promise<string[]> {
  let listing: ListResult;
  try {
    listing = await records.list("");
  } catch (error) {
    if (isFsError(error) && error.code === "FS_NOT_FOUND") return [];
    throw error;
  }
  return listing.entries
    .filter((e) => e.kind === "file" && e.name.endsWith(".json"))
    .map((e) => e.name.slice(0, -".json".length))
    .filter((name) => WORKSPACE_NAME.test(name));
}

export async function readTombstone(records: Storage, workspace: string): Promise<Tombstone | undefined> {
  try {
    return JSON.parse(decoder.decode((await records.read(tombstonePath(workspace))).bytes)) as Tombstone;
  } catch (error) {
    if (isFsError(error) && error.code === "FS_NOT_FOUND") return undefined;
    throw error;
  }
}

export async function writeTombstone(records: Storage, workspace: string, tombstone: Tombstone): Promise<void> {
  await records.write(tombstonePath(workspace), encoder.encode(JSON.stringify(tombstone)), Cond.none);
}

/** `staleToken` of ./registry.ts, read from the record's `tokensIssuedAfter` (or, `orDeleted`, the tombstone of a deleted name). */
export async function staleToken(records: Storage, workspace: string, iat: number | undefined, orDeleted = false): Promise<string | undefined> {
  if (!WORKSPACE_NAME.test(workspace)) return undefined;
  const found = await readRecord(records, workspace);
  const deletedAt = found ? found.record.tokensIssuedAfter : orDeleted ? (await readTombstone(records, workspace))?.deletedAt : undefined;
  if (deletedAt === undefined) return undefined;
  if (iat === undefined) {
    return `workspace ${JSON.stringify(workspace)} was deleted on ${new Date(deletedAt).toISOString()}, and this token has no iat claim, so it cannot be told from a token of the deleted workspace; mint a new token for it (toolwarden token mint sets iat)`;
  }
  // iat to the millisecond (token mint writes it so); whole-second iats from other signers count as their second's start.
  if (Math.round(iat * 1000) > deletedAt) return undefined;
  const again = found ? " and created again" : "";
  return `workspace ${JSON.stringify(workspace)} was deleted${again} on ${new Date(deletedAt).toISOString()}, after this token was issued (iat ${new Date(Math.round(iat * 1000)).toISOString()}): a token of the deleted workspace reaches no later workspace of that name; mint a new token for it`;
}

/** Whether a DELETE is removing this creation of the name now: a tombstone newer than the one it was created after. */
export async function beingDeleted(records: Storage, workspace: string, record: WorkspaceRecord): Promise<boolean> {
  return deletes(await readTombstone(records, workspace), record);
}

/** Whether `tombstone` is of a DELETE of the creation `record` (not of the one before it). */
export function deletes(tombstone: Tombstone | undefined, record: WorkspaceRecord): tombstone is Tombstone {
  return tombstone !== undefined && (record.tokensIssuedAfter === undefined || tombstone.deletedAt > record.tokensIssuedAfter);
}
