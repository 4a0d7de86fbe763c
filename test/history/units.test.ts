/** The pure parts of history: what a revert restores, what a prune drops, which entries a query matches. */
import { describe, expect, test } from "bun:test";
import { auditEntryOf, createStorageHistory, matchesQuery, pageLimit, planPrune, planRevert } from "../../src/history/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { auditEntry, fileState, newEntry } from "../helpers/audit-entry.ts";

const s = fileState;
const entry = auditEntry;

describe("planRevert", () => {
  test("per path: the state before the earliest change, expected as after the latest, whatever order the entries come in", () => {
    const e1 = entry("001", [{ path: "a", before: s("a0"), after: s("a1") }]);
    const e2 = entry("002", [
      { path: "a", before: s("a1"), after: s("a2") },
      { path: "b", before: null, after: s("b1") },
    ]);
    expect(planRevert([e2, e1])).toEqual([
      { path: "a", restore: s("a0"), expect: s("a2") },
      { path: "b", restore: null, expect: s("b1") },
    ]);
  });

  test("a file that ends as it began needs no step (changed back, or created then deleted)", () => {
    const e1 = entry("001", [
      { path: "a", before: s("a0"), after: s("a1") },
      { path: "t", before: null, after: s("t1") },
    ]);
    const e2 = entry("002", [
      { path: "a", before: s("a1"), after: s("a0") },
      { path: "t", before: s("t1"), after: null },
    ]);
    expect(planRevert([e1, e2])).toEqual([]);
  });
});

describe("planPrune", () => {
  const day = 24 * 3600 * 1000;
  const now = Date.parse("2026-12-31T00:00:00Z");

  test("newest versions are kept first until the byte bound; every older one is dropped", () => {
    const entries = [
      entry("001", [{ path: "a", before: s("x0", 40), after: s("x1", 40) }], { time: "2026-12-30T00:00:00Z" }),
      entry("002", [{ path: "a", before: s("x1", 40), after: s("x2", 40) }], { time: "2026-12-30T01:00:00Z" }),
      entry("003", [{ path: "a", before: s("x2", 40), after: s("x3", 40) }], { time: "2026-12-30T02:00:00Z" }),
    ];
    const plan = planPrune(entries, { maxBytes: 100, maxAgeMs: 30 * day }, now);
    expect([...plan.keepBlobs]).toEqual(["x3", "x2"]);
    expect([...plan.dropBlobs].sort()).toEqual(["x0", "x1"]);
    expect(plan.dropEntries).toEqual([]);
  });

  test("entries older than the age bound go, with versions no kept entry needs", () => {
    const entries = [
      entry("001", [{ path: "a", before: s("old", 1), after: s("shared", 1) }], { time: "2026-11-01T00:00:00Z" }),
      entry("002", [{ path: "a", before: s("shared", 1), after: s("new", 1) }], { time: "2026-12-30T00:00:00Z" }),
    ];
    const plan = planPrune(entries, { maxBytes: 1e9, maxAgeMs: 7 * day }, now);
    expect(plan.dropEntries).toEqual(["001"]);
    expect([...plan.dropBlobs]).toEqual(["old"]);
    expect(plan.keepBlobs.has("shared")).toBe(true);
  });
});

describe("queries", () => {
  const e = entry("005", [{ path: "src/a.ts", before: s("1"), after: s("2") }], { paths: ["src/a.ts"], session: "agent-1" });
  test("filters by session, path (named or changed), time and changes only", () => {
    expect(matchesQuery(e, { session: "agent-1", path: "src/a.ts", changesOnly: true, since: "2026-12-01T09:00:00Z" })).toBe(true);
    expect(matchesQuery(e, { session: "agent-2" })).toBe(false);
    expect(matchesQuery(e, { path: "src/b.ts" })).toBe(false);
    expect(matchesQuery(e, { since: "2026-12-01T11:00:00Z" })).toBe(false);
    expect(matchesQuery({ ...e, changes: [] }, { changesOnly: true })).toBe(false);
  });
  test("page sizes stay within 1..1000, default 100", () => {
    expect([pageLimit(undefined), pageLimit(0), pageLimit(5.7), pageLimit(1e9)]).toEqual([100, 1, 5, 1000]);
  });
  test("an entry names the call's path, and every path it changed", () => {
    const built = auditEntryOf({
      principal: "p",
      session: "s",
      tool: "write",
      args: { path: "a" },
      changes: [{ path: "b", before: null, after: s("b") }],
      bytes: 3,
      ms: 1.234,
      time: new Date(0),
    });
    expect(built.paths).toEqual(["a", "b"]);
    expect(built.code).toBe("OK");
    expect(built.ms).toBe(1.23);
  });
});

describe("the store's bound", () => {
  test("drops the oldest versions first: their content is gone, the newest stays readable", async () => {
    const raw = createMemoryStorage();
    const history = createStorageHistory(raw, { bounds: { maxBytes: 64, maxAgeMs: 1e12 }, pruneEvery: 1 });
    const blobs: string[] = [];
    for (let i = 0; i < 6; i++) blobs.push(await history.putBlob(new TextEncoder().encode(`version ${i} `.padEnd(20, "."))));
    for (let i = 1; i < 6; i++) {
      await history.append(
        newEntry([{ path: "a", before: { version: `v${i - 1}`, blob: blobs[i - 1]!, size: 20 }, after: { version: `v${i}`, blob: blobs[i]!, size: 20 } }]),
      );
    }
    // 64 bytes hold three 20-byte versions: 5, 4, 3. Versions 0..2 are gone.
    const kept = await Promise.all(blobs.map(async (b) => (await history.getBlob(b)) !== undefined));
    expect(kept).toEqual([false, false, false, true, true, true]);
    expect((await history.query({})).entries.length).toBe(5);
  });

  test("entries of one process sort in the order they were appended, even within one millisecond", async () => {
    const history = createStorageHistory(createMemoryStorage(), { now: () => 1_000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await history.append(newEntry([], new Date(1000), { tool: `t${i}` }))).id);
    expect((await history.query({})).entries.map((e) => e.tool)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("the store's prune reads each entry once", () => {
  /** A memory storage that counts reads of audit entries. */
  function counting() {
    const raw = createMemoryStorage();
    let entryReads = 0;
    const storage = {
      ...raw,
      read: (path: string, options?: Parameters<typeof raw.read>[1]) => {
        if (path.startsWith("audit/")) entryReads++;
        return raw.read(path, options);
      },
    };
    return { raw, storage, reads: () => entryReads };
  }
  const entryAt = (i: number, blob: string) => newEntry([{ path: "a", before: null, after: { version: `v${i}`, blob, size: 20 } }], new Date(1_000 + i));

  test("a later prune reads only the entries added since, and still drops by the bound over all of them", async () => {
    const { storage, reads } = counting();
    let clock = 2_000;
    const history = createStorageHistory(storage, { bounds: { maxBytes: 1_000_000, maxAgeMs: 5_000 }, pruneEvery: 1_000_000, now: () => clock });
    const blob = await history.putBlob(new TextEncoder().encode("x".repeat(20)));
    for (let i = 0; i < 10; i++) await history.append(entryAt(i, blob));
    await history.prune();
    expect(reads()).toBe(10);
    for (let i = 10; i < 13; i++) await history.append(entryAt(i, blob));
    await history.prune();
    expect(reads()).toBe(13);
    expect((await history.query({})).entries.length).toBe(13);
    const afterQuery = reads();
    // Every entry is from about 1 s; past 6.013 s they are all older than the 5 s bound, with no new read.
    clock = 1_000 + 13 + 5_001;
    await history.prune();
    expect(reads()).toBe(afterQuery);
    expect((await history.query({})).entries).toEqual([]);
  });

  test("entries another instance adds are read, and ones it removes are forgotten", async () => {
    const { raw, storage, reads } = counting();
    const history = createStorageHistory(storage, { bounds: { maxBytes: 1_000_000, maxAgeMs: 1e12 }, pruneEvery: 1_000_000, now: () => 50_000 });
    const other = createStorageHistory(raw, { now: () => 60_000 });
    const blob = await history.putBlob(new TextEncoder().encode("y".repeat(20)));
    const mine = await history.append(entryAt(0, blob));
    await history.prune();
    const theirs = await other.append(entryAt(1, blob));
    await history.prune();
    expect(reads()).toBe(2);
    await raw.delete(`audit/${mine.id}.json`);
    await history.prune();
    expect(reads()).toBe(2);
    expect((await history.query({})).entries.map((e) => e.id)).toEqual([theirs.id]);
  });
});
