/**
 * When a history store prunes, and a prune run (./prune.ts plans what it
 * drops): each append is counted, a prune runs once enough was added (or
 * is skipped while the log is surely within its bounds), never two at once,
 * and what planning needs of each entry is kept so a prune reads each entry
 * once.
 */
import { type EntryLog, isEntryId } from "./entry-log.ts";
import { planPrune, type PruneEntry } from "./prune.ts";
import { type AuditEntry, HISTORY_ITEM_BYTES, type HistoryBounds } from "./types.ts";

/** What a prune brings the log down to, as a share of each bound. */
const LOW_WATER = 7 / 8;
/** Due prunes skipped at most in a row while the log is within its bounds (see `held`). */
const FULL_PRUNE_EVERY = 8;
const NO_CHANGES: AuditEntry["changes"] = [];

/** Bytes of `text` in UTF-8, counted without encoding it (an entry's JSON, at every append). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: 4 bytes for its 2 units.
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** What a store's pruning needs and keeps. */
export interface PruneSchedule {
  readonly log: EntryLog;
  readonly bounds: HistoryBounds;
  /** A prune brings the log down to 7/8 of each bound, so the next is due only after an eighth more. */
  readonly target: HistoryBounds;
  /** Prune after this many recorded calls (see StorageHistoryOptions.pruneEvery). */
  readonly pruneEvery: number;
  readonly now: () => number;
  /** Delete the blobs a prune drops. */
  readonly dropBlobs: (hashes: readonly string[]) => Promise<void>;
  // Entries never change once written, so a prune reads each one once and keeps what planning needs:
  // reading the whole log at every prune made each prune cost the log's size (every call adds an entry).
  readonly summaries: Map<string, PruneEntry>;
  // What the log held after the last full prune plus what this store appended since: while it is within
  // every bound, a due prune is skipped (a prune is linear in the log; at every 256 calls that was most of
  // a flood's recording time). Every FULL_PRUNE_EVERY-th is run anyway, for other writers.
  readonly held: { entries: number; logBytes: number; historyBytes: number; oldest: number };
  skipped: number;
  // What was appended since the last prune: calls, log bytes, and what new changes would add to the file history.
  callsSincePrune: number;
  logBytesSincePrune: number;
  historyBytesSincePrune: number;
  // The prune under way, if any: one at a time (appends run concurrently where recording is inline).
  pruning: Promise<void> | undefined;
}

/** A schedule with nothing counted yet. */
export function newPruneSchedule(options: Pick<PruneSchedule, "log" | "bounds" | "pruneEvery" | "now" | "dropBlobs">): PruneSchedule {
  const { bounds } = options;
  return {
    ...options,
    target: {
      ...bounds,
      maxBytes: Math.floor(bounds.maxBytes * LOW_WATER),
      maxEntries: Math.floor(bounds.maxEntries * LOW_WATER),
      maxLogBytes: Math.floor(bounds.maxLogBytes * LOW_WATER),
    },
    summaries: new Map(),
    held: { entries: 0, logBytes: 0, historyBytes: 0, oldest: Number.POSITIVE_INFINITY },
    skipped: 0,
    callsSincePrune: 0,
    logBytesSincePrune: 0,
    historyBytesSincePrune: 0,
    pruning: undefined,
  };
}

/** What planning needs of an entry. A call that changed nothing needs no principal (see ./prune.ts): only its time and size. */
function summaryOf(entry: AuditEntry, size: number): PruneEntry {
  return entry.changes.length
    ? { id: entry.id, time: entry.time, principal: entry.principal, changes: entry.changes, size }
    : { id: entry.id, time: entry.time, principal: "", changes: NO_CHANGES, size };
}

/** Every entry of the log, oldest first, as planning needs it: one listing, and a read of each entry not seen before. */
async function pruneEntries(schedule: PruneSchedule): Promise<PruneEntry[]> {
  const { log, summaries } = schedule;
  const ids = await log.ids();
  // Entries another instance's prune removed leave the cache too.
  const listed = new Set(ids);
  for (const id of summaries.keys()) if (!listed.has(id)) summaries.delete(id);
  const out: PruneEntry[] = [];
  for (const id of ids) {
    let summary = summaries.get(id);
    if (!summary) {
      const json = isEntryId(id) ? await log.read(id) : undefined;
      if (json === undefined) continue;
      summary = summaryOf(JSON.parse(json) as AuditEntry, utf8Bytes(json));
      summaries.set(id, summary);
    }
    out.push(summary);
  }
  return out;
}

/** Add what one entry holds to `held`. */
function hold(schedule: PruneSchedule, entry: PruneEntry): void {
  const { held } = schedule;
  held.entries++;
  held.oldest = Math.min(held.oldest, Date.parse(entry.time));
  if (entry.changes.length === 0) {
    held.logBytes += entry.size ?? 0;
    return;
  }
  held.historyBytes += (entry.size ?? 0) + HISTORY_ITEM_BYTES;
  for (const change of entry.changes) held.historyBytes += change.after ? change.after.size + HISTORY_ITEM_BYTES : 0;
}

/** Whether the log is surely within every bound (then a due prune can wait). */
function wellWithin(schedule: PruneSchedule): boolean {
  const { held, bounds } = schedule;
  return (
    held.entries <= bounds.maxEntries &&
    held.logBytes <= bounds.maxLogBytes &&
    held.historyBytes <= bounds.maxBytes &&
    schedule.now() - held.oldest <= bounds.maxAgeMs
  );
}

/** Apply the bounds: plan over the whole log, then delete what the plan drops. */
async function runPrune(schedule: PruneSchedule): Promise<void> {
  const entries = await pruneEntries(schedule);
  const plan = planPrune(entries, schedule.target, schedule.now());
  await schedule.log.remove(plan.dropEntries);
  for (const id of plan.dropEntries) schedule.summaries.delete(id);
  Object.assign(schedule.held, { entries: 0, logBytes: 0, historyBytes: 0, oldest: Number.POSITIVE_INFINITY });
  for (const entry of schedule.summaries.values()) hold(schedule, entry);
  // Only blobs that entries name: a blob stored for a call still running is named by no entry yet.
  await schedule.dropBlobs([...plan.dropBlobs]);
}

function resetCounts(schedule: PruneSchedule): void {
  schedule.callsSincePrune = 0;
  schedule.logBytesSincePrune = 0;
  schedule.historyBytesSincePrune = 0;
}

/** The prune under way, or a new one: never two at once. */
function pruneOnce(schedule: PruneSchedule): Promise<void> {
  if (!schedule.pruning) {
    resetCounts(schedule);
    schedule.pruning = runPrune(schedule).finally(() => {
      schedule.pruning = undefined;
    });
  }
  return schedule.pruning;
}

/**
 * Count entry `entry` just appended as `json`; the prune to wait for when that made one due. Not async:
 * every call appends, and most appends have nothing to wait for.
 */
export function countAppended(schedule: PruneSchedule, entry: AuditEntry, json: string): Promise<void> | undefined {
  const { bounds } = schedule;
  // Every call counts, views and failures too: a log that grew by reads alone was never pruned.
  const size = utf8Bytes(json);
  // Planning knows this entry already: a prune reads back only what other processes wrote (a flood of
  // views read back at every prune was tens of MB of garbage per prune).
  const summary = summaryOf(entry, size);
  schedule.summaries.set(entry.id, summary);
  hold(schedule, summary);
  schedule.callsSincePrune++;
  schedule.logBytesSincePrune += size;
  for (const change of entry.changes) schedule.historyBytesSincePrune += change.after ? change.after.size + HISTORY_ITEM_BYTES : 0;
  if (entry.changes.length > 0) schedule.historyBytesSincePrune += size + HISTORY_ITEM_BYTES;
  // A prune lists the log: run it every so many calls, or once what was added could fill an eighth of a bound.
  if (
    schedule.callsSincePrune >= Math.min(schedule.pruneEvery, Math.max(1, bounds.maxEntries / 8)) ||
    schedule.logBytesSincePrune >= bounds.maxLogBytes / 8 ||
    schedule.historyBytesSincePrune >= bounds.maxBytes / 8
  ) {
    if (schedule.skipped < FULL_PRUNE_EVERY && wellWithin(schedule)) {
      schedule.skipped++;
      resetCounts(schedule);
    } else {
      schedule.skipped = 0;
      return pruneOnce(schedule);
    }
  }
  return undefined;
}

/** Apply the bounds now (after the prune under way, if any): see ./prune.ts. */
export async function pruneNow(schedule: PruneSchedule): Promise<void> {
  while (schedule.pruning) await schedule.pruning.catch(() => undefined);
  await pruneOnce(schedule);
}
