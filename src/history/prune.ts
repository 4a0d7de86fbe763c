/**
 * What a workspace's history drops (pure). Three bounds, in this order:
 *
 * 1. Age: entries older than `maxAgeMs` go, with every version only they name.
 * 2. The file history (`maxBytes`): the entries of calls that changed files and the versions
 *    they name, kept as groups. An entry's group is the entry and the versions it made (its
 *    `after`s, and the `before`s no recorded change made: bytes from outside the tools), and it
 *    counts against the principal that made the change. Per path, the latest run of changes by
 *    one principal started from a version someone else left (another principal, or nobody the
 *    log knows of): that version, with the run's first and last entries (what undoing the run
 *    needs), is a protected group of that version's owner. Every item counts its bytes (an
 *    entry's JSON) plus HISTORY_ITEM_BYTES. The bound is split max-min fairly between owners:
 *    one needing less than an equal share keeps all it needs, and the rest is split equally
 *    among the others. Within its share an owner's groups are taken protected first, then
 *    newest first; a group that does not fit is skipped, never a reason to drop what is older.
 * 3. The log (`maxEntries`, `maxLogBytes`): every other entry (calls that changed nothing,
 *    changes whose group was not kept) is kept newest first until either bound; older ones go.
 *
 * So one principal's churn (a huge version, or many) spends its own share only: it cannot push
 * out the versions others wrote, nor the entries that undo its overwrite of another's work; and
 * calls that change nothing, however many, push out only other such entries.
 */
import { type AuditEntry, type FileState, HISTORY_ITEM_BYTES, type HistoryBounds, historyBounds } from "./types.ts";

/** What planning reads of an entry. */
export type PruneEntry = Pick<AuditEntry, "id" | "time" | "principal" | "changes"> & {
  /** Bytes the entry takes in the log (its JSON); when absent, those of `JSON.stringify(entry)`. */
  readonly size?: number;
};

export interface PrunePlan {
  /** Entry ids to delete (past the age bound, or past the log's bounds), oldest first. */
  readonly dropEntries: string[];
  /** Blobs the entries name that no kept version needs. */
  readonly dropBlobs: Set<string>;
  /** Blobs kept. */
  readonly keepBlobs: Set<string>;
}

/** The owner of versions no recorded change made; a principal's key always starts with "p:". */
const NOBODY = "?";
const ownerOf = (principal: string) => `p:${principal}`;
const encoder = new TextEncoder();

/** Max-min fair shares of `budget` for these demands: ascending, each takes the least of its demand and an equal part of what is left. */
export function fairShares(demands: ReadonlyMap<string, number>, budget: number): Map<string, number> {
  const shares = new Map<string, number>();
  let left = Math.max(0, budget);
  let owners = demands.size;
  for (const [owner, demand] of [...demands].sort((a, b) => a[1] - b[1])) {
    const share = Math.min(demand, left / owners);
    shares.set(owner, share);
    left -= share;
    owners--;
  }
  return shares;
}

/** A run of changes to one path by one principal, up to the latest change of the path. */
interface Run {
  readonly principal: string;
  /** Indices (in the live entries) of its first and last entries. */
  readonly first: number;
  last: number;
  /** The item of the version the run started from (-1: none, the path was created), and whose it is. */
  readonly from: number;
  readonly owner: string;
}

/** Plan a prune of `entries` (any order; planned oldest first by id) at time `nowMs`. */
export function planPrune(entries: readonly PruneEntry[], bounds: Partial<HistoryBounds>, nowMs: number): PrunePlan {
  const b = historyBounds(bounds);
  const cutoff = nowMs - b.maxAgeMs;
  // Times the store writes (toISOString) compare as text, without a parse per entry; others are parsed.
  const cutoffText = Number.isFinite(cutoff) && Math.abs(cutoff) < 8.64e15 ? new Date(cutoff).toISOString() : undefined;
  const old = (time: string) =>
    cutoffText !== undefined && time.length === 24 && cutoffText.length === 24 && time.endsWith("Z") ? time < cutoffText : Date.parse(time) < cutoff;
  const sorted = [...entries].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const dropEntries: string[] = [];
  const live: PruneEntry[] = [];
  for (const entry of sorted) {
    if (old(entry.time)) dropEntries.push(entry.id);
    else live.push(entry);
  }
  const sizes = live.map((entry) => entry.size ?? encoder.encode(JSON.stringify(entry)).length);

  // 2. The file history. Items are numbers: entry i of `live` is item i, blobs follow.
  const cost: number[] = sizes.map((size) => size + HISTORY_ITEM_BYTES);
  const blobs: string[] = [];
  const blobIndex = new Map<string, number>();
  const blobItem = (state: FileState) => {
    let item = blobIndex.get(state.blob);
    if (item === undefined) {
      item = cost.length;
      blobIndex.set(state.blob, item);
      blobs.push(state.blob);
      cost.push(state.size + HISTORY_ITEM_BYTES);
    }
    return item;
  };
  const ordinary = new Map<string, number[][]>();
  const runs = new Map<string, Run>();
  // Per path, who changed it last and what it left.
  const last = new Map<string, { principal: string; blob: string | null }>();
  live.forEach((entry, i) => {
    if (entry.changes.length === 0) return;
    const items = [i];
    for (const change of entry.changes) {
      const prev = last.get(change.path);
      let owner = NOBODY;
      let from = -1;
      if (change.before) {
        from = blobItem(change.before);
        if (prev !== undefined && prev.blob === change.before.blob) owner = ownerOf(prev.principal);
        // Bytes no recorded change left (an import, a shell command, an editor): the changing principal's to keep.
        else items.push(from);
      }
      if (change.after) items.push(blobItem(change.after));
      const run = runs.get(change.path);
      if (run && run.principal === entry.principal) run.last = i;
      else runs.set(change.path, { principal: entry.principal, first: i, last: i, from, owner });
      last.set(change.path, { principal: entry.principal, blob: change.after?.blob ?? null });
    }
    const key = ownerOf(entry.principal);
    const list = ordinary.get(key);
    if (list) list.push(items);
    else ordinary.set(key, [items]);
  });
  // A run starts where another principal (or nobody the log knows) left the path: what undoing it needs is that owner's to keep.
  const groups = new Map<string, number[][]>();
  for (const run of [...runs.values()].filter((r) => r.from !== -1).sort((x, y) => y.first - x.first)) {
    const list = groups.get(run.owner);
    const group = [run.from, run.first, run.last];
    if (list) list.push(group);
    else groups.set(run.owner, [group]);
  }
  for (const [owner, list] of ordinary) {
    const protectedGroups = groups.get(owner) ?? [];
    groups.set(owner, protectedGroups.concat(list.reverse()));
  }

  // Per item, the last owner (by number) that counted it: each owner counts an item once.
  const seen = new Int32Array(cost.length).fill(-1);
  const demands = new Map<string, number>();
  let ownerNumber = 0;
  for (const [owner, list] of groups) {
    let demand = 0;
    for (const group of list) {
      for (const item of group) {
        if (seen[item] === ownerNumber) continue;
        seen[item] = ownerNumber;
        demand += cost[item]!;
      }
    }
    demands.set(owner, demand);
    ownerNumber++;
  }
  const shares = fairShares(demands, b.maxBytes);
  const kept = new Uint8Array(cost.length);
  const charged = new Int32Array(cost.length).fill(-1);
  ownerNumber = 0;
  for (const [owner, list] of groups) {
    const share = shares.get(owner)!;
    let used = 0;
    for (const group of list) {
      let add = 0;
      // An item twice in one group (a run of one entry) counts once: mark it while adding, then undo the marks.
      for (const item of group) {
        if (charged[item] === ownerNumber || charged[item] === -2 - ownerNumber) continue;
        charged[item] = -2 - ownerNumber;
        add += cost[item]!;
      }
      const fits = used + add <= share;
      for (const item of group) {
        if (charged[item] !== -2 - ownerNumber) continue;
        charged[item] = fits ? ownerNumber : -1;
        if (fits) kept[item] = 1;
      }
      if (fits) used += add;
    }
    ownerNumber++;
  }

  // 3. The log: the rest, newest first, until either bound.
  let count = 0;
  let bytes = 0;
  let full = false;
  for (let i = live.length - 1; i >= 0; i--) {
    if (kept[i]) continue;
    const size = sizes[i]!;
    if (!full && count < b.maxEntries && bytes + size <= b.maxLogBytes) {
      count++;
      bytes += size;
    } else {
      full = true;
      dropEntries.push(live[i]!.id);
    }
  }

  const keepBlobs = new Set<string>();
  blobs.forEach((blob, k) => {
    if (kept[live.length + k]) keepBlobs.add(blob);
  });
  const dropBlobs = new Set<string>();
  for (const entry of sorted) {
    for (const change of entry.changes) {
      for (const state of [change.before, change.after]) if (state && !keepBlobs.has(state.blob)) dropBlobs.add(state.blob);
    }
  }
  return { dropEntries: dropEntries.sort(), dropBlobs, keepBlobs };
}
