/** The pure parts of history: what a revert restores, what a prune drops, which entries a query matches. */
import { describe, expect, test } from "bun:test";
import {
  type AuditEntry,
  auditEntryOf,
  createStorageHistory,
  type FileState,
  fairShares,
  HISTORY_ITEM_BYTES,
  matchesQuery,
  type PruneEntry,
  pageLimit,
  planPrune,
  planRevert,
} from "../../src/history/mod.ts";
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
  const I = HISTORY_ITEM_BYTES;
  /** An entry of `principal` whose JSON counts `size` bytes (0: each entry costs exactly HISTORY_ITEM_BYTES). */
  const by = (id: string, principal: string, changes: AuditEntry["changes"], size = 0) => ({ ...entry(id, changes, { principal }), size });
  const kept = (entries: readonly { id: string }[], plan: { dropEntries: string[] }) => entries.map((e) => e.id).filter((id) => !plan.dropEntries.includes(id));

  test("a version too large to keep is skipped: the older versions that fit are still kept", () => {
    const entries = [
      by("001", "p", [{ path: "a", before: null, after: s("x1", 100) }]),
      by("002", "p", [{ path: "a", before: s("x1", 100), after: s("x2", 100) }]),
      by("003", "p", [{ path: "big", before: null, after: s("huge", 100 * I) }]),
      by("004", "p", [{ path: "a", before: s("x2", 100), after: s("x3", 100) }]),
    ];
    const plan = planPrune(entries, { maxBytes: 10 * I, maxAgeMs: 30 * day }, now);
    expect([...plan.keepBlobs].sort()).toEqual(["x1", "x2", "x3"]);
    expect([...plan.dropBlobs]).toEqual(["huge"]);
    // The entry of the huge version stays in the log (its content is gone).
    expect(plan.dropEntries).toEqual([]);
  });

  test("one principal keeps its newest versions that fit its share; older entries go to the log, and past its bound they go", () => {
    const entries = [
      by("001", "p", [{ path: "a", before: null, after: s("x1", 0) }]),
      by("002", "p", [{ path: "a", before: s("x1", 0), after: s("x2", 0) }]),
      by("003", "p", [{ path: "a", before: s("x2", 0), after: s("x3", 0) }]),
      by("004", "p", [{ path: "a", before: s("x3", 0), after: s("x4", 0) }]),
    ];
    // Each group (an entry and the version it made) costs 2 items: 5 items hold two.
    const plan = planPrune(entries, { maxBytes: 5 * I, maxAgeMs: 30 * day, maxEntries: 1 }, now);
    expect([...plan.keepBlobs].sort()).toEqual(["x3", "x4"]);
    expect([...plan.dropBlobs].sort()).toEqual(["x1", "x2"]);
    // 002 and 001 are plain log entries now: the newest one fits the log's bound of 1.
    expect(plan.dropEntries).toEqual(["001"]);
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

  /** The victim writes precious.txt, evil overwrites it, then churns: one huge file shrunk back, and `churn` versions of another. */
  function attack(churn: number) {
    const entries = [
      by("0001", "victim", [{ path: "precious.txt", before: null, after: s("precious", 100) }]),
      by("0002", "evil", [{ path: "precious.txt", before: s("precious", 100), after: s("gone", 4) }]),
      by("0003", "evil", [{ path: "huge.bin", before: null, after: s("huge", 100 * I) }]),
      by("0004", "evil", [{ path: "huge.bin", before: s("huge", 100 * I), after: s("small", 1) }]),
    ];
    for (let i = 0; i < churn; i++) {
      const id = String(5 + i).padStart(4, "0");
      entries.push(by(id, "evil", [{ path: "churn.txt", before: i === 0 ? null : s(`c${i - 1}`, I), after: s(`c${i}`, I) }]));
    }
    return entries;
  }

  test("one principal's churn, however large, cannot push out the version it overwrote nor the entries that undo the overwrite", () => {
    for (const churn of [20, 400]) {
      const entries = attack(churn);
      // The old plan dropped everything older than the first version that did not fit: the victim's bytes went.
      const plan = planPrune(entries, { maxBytes: 12 * I, maxAgeMs: 30 * day, maxEntries: 0 }, now);
      expect(plan.keepBlobs.has("precious")).toBe(true);
      expect(plan.dropBlobs.has("huge")).toBe(true);
      const left = entries.filter((e) => kept(entries, plan).includes(e.id));
      expect(left.map((e) => e.id)).toContain("0001");
      expect(left.map((e) => e.id)).toContain("0002");
      // What a revert of evil's changes to precious.txt needs is all there: it restores the victim's version.
      const step = planRevert(left.filter((e) => e.principal === "evil")).find((st) => st.path === "precious.txt");
      expect(step?.restore?.blob).toBe("precious");
      // And within the bound: every kept item counted.
      const keptBytes = [...plan.keepBlobs].reduce((n, b) => n + I + (b === "precious" ? 100 : b === "small" ? 1 : b === "gone" ? 4 : I), 0);
      expect(keptBytes + left.length * I).toBeLessThanOrEqual(12 * I);
    }
  });

  test("the overwritten version is protected ahead of its owner's own later versions", () => {
    const entries = [
      by("01", "victim", [{ path: "precious.txt", before: null, after: s("precious", 100) }]),
      by("02", "evil", [{ path: "precious.txt", before: s("precious", 100), after: s("gone", 4) }]),
    ];
    for (let i = 0; i < 10; i++) {
      entries.push(by(String(3 + i).padStart(2, "0"), "victim", [{ path: "mine.txt", before: i === 0 ? null : s(`m${i - 1}`, I), after: s(`m${i}`, I) }]));
    }
    const plan = planPrune(entries, { maxBytes: 8 * I, maxAgeMs: 30 * day, maxEntries: 0 }, now);
    expect(plan.keepBlobs.has("precious")).toBe(true);
    expect(kept(entries, plan)).toContain("02");
    // The victim's own oldest versions of mine.txt made room.
    expect(plan.dropBlobs.has("m0")).toBe(true);
  });

  test("bytes no recorded change made (an import, a shell command) are protected when an agent overwrites them", () => {
    const entries = [by("0001", "evil", [{ path: "seeded.txt", before: s("seed", 100), after: s("gone", 4) }])];
    for (let i = 0; i < 50; i++) {
      entries.push(by(String(2 + i).padStart(4, "0"), "evil", [{ path: "churn.txt", before: i === 0 ? null : s(`c${i - 1}`, I), after: s(`c${i}`, I) }]));
    }
    const plan = planPrune(entries, { maxBytes: 10 * I, maxAgeMs: 30 * day, maxEntries: 0 }, now);
    expect(plan.keepBlobs.has("seed")).toBe(true);
    expect(kept(entries, plan)).toContain("0001");
  });

  test("calls that changed nothing push out only each other, oldest first, by count and by bytes", () => {
    const entries = [by("01", "p", [{ path: "a", before: null, after: s("x1", 0) }], 100)];
    for (let i = 2; i <= 11; i++) entries.push(by(String(i).padStart(2, "0"), "reader", [], 100));
    const byCount = planPrune(entries, { maxBytes: 1e9, maxAgeMs: 30 * day, maxEntries: 3 }, now);
    expect(byCount.dropEntries).toEqual(["02", "03", "04", "05", "06", "07", "08"]);
    expect(byCount.keepBlobs.has("x1")).toBe(true);
    const byBytes = planPrune(entries, { maxBytes: 1e9, maxAgeMs: 30 * day, maxLogBytes: 250 }, now);
    expect(kept(entries, byBytes)).toEqual(["01", "10", "11"]);
  });

  test("whatever the log, what is kept stays within every bound (seeded random logs)", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 20; round++) {
      const entries: PruneEntry[] = [];
      const sizes = new Map<string, number>();
      const latest = new Map<string, FileState | null>();
      for (let i = 0; i < 300; i++) {
        const principal = ["a", "b", "c", "d"][Math.floor(random() * 4)]!;
        const id = String(i).padStart(4, "0");
        if (random() < 0.4) {
          entries.push(by(id, principal, [], Math.floor(random() * 500)));
          continue;
        }
        const path = `f${Math.floor(random() * 6)}`;
        const before = random() < 0.1 ? s(`out${i}`, Math.floor(random() * 3 * I)) : (latest.get(path) ?? null);
        const after = random() < 0.1 ? null : s(`v${i}`, Math.floor(random() * 3 * I));
        for (const st of [before, after]) if (st) sizes.set(st.blob, st.size);
        latest.set(path, after);
        entries.push(by(id, principal, [{ path, before, after }], Math.floor(random() * 500)));
      }
      const bounds = { maxBytes: 20 * I, maxAgeMs: 30 * day, maxEntries: 15, maxLogBytes: 3000 };
      const plan = planPrune(entries, bounds, now);
      const blobBytes = [...plan.keepBlobs].reduce((n, b) => n + sizes.get(b)! + I, 0);
      expect(blobBytes).toBeLessThanOrEqual(bounds.maxBytes);
      const left = entries.filter((e) => !plan.dropEntries.includes(e.id));
      // Entries beyond the log's bounds are held by the file history, each costing at least an item.
      const byHistory = Math.floor((bounds.maxBytes - blobBytes) / I);
      expect(left.length).toBeLessThanOrEqual(bounds.maxEntries + byHistory);
      expect(left.filter((e) => e.changes.length === 0).length).toBeLessThanOrEqual(bounds.maxEntries);
      for (const b of plan.keepBlobs) expect(plan.dropBlobs.has(b)).toBe(false);
    }
  });

  test("fair shares: a small demand is met, the rest is split equally", () => {
    const shares = fairShares(
      new Map([
        ["a", 10],
        ["b", 100],
        ["c", 100],
      ]),
      150,
    );
    expect(Object.fromEntries(shares)).toEqual({ a: 10, b: 70, c: 70 });
    expect(Object.fromEntries(fairShares(new Map([["a", 5]]), 150))).toEqual({ a: 5 });
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
  const I = HISTORY_ITEM_BYTES;
  test("keeps the newest versions its share holds and the version the changes started from; the entries stay in the log", async () => {
    const raw = createMemoryStorage();
    const history = createStorageHistory(raw, { bounds: { maxBytes: 40 * I, maxAgeMs: 1e12 }, pruneEvery: 1 });
    const size = 8 * I;
    const blobs: string[] = [];
    for (let i = 0; i < 6; i++) blobs.push(await history.putBlob(new TextEncoder().encode(`version ${i} `.padEnd(size, "."))));
    for (let i = 1; i < 6; i++) {
      await history.append(
        newEntry([{ path: "a", before: { version: `v${i - 1}`, blob: blobs[i - 1]!, size }, after: { version: `v${i}`, blob: blobs[i]!, size } }]),
      );
    }
    // Version 0 came from outside the log: protected, in a share of its own. p's share holds two of its groups (entry + version): 5 and 4.
    const kept = await Promise.all(blobs.map(async (b) => (await history.getBlob(b)) !== undefined));
    expect(kept).toEqual([true, false, false, false, true, true]);
    expect((await history.query({})).entries.length).toBe(5);
  });

  test("views alone are pruned: the log keeps its newest entries within its bounds, counted in objects", async () => {
    const raw = createMemoryStorage();
    const history = createStorageHistory(raw, { bounds: { maxEntries: 16, maxLogBytes: 1e9 }, now: () => 10_000 });
    for (let i = 0; i < 200; i++) await history.append(newEntry([], new Date(1_000 + i), { tool: "view", session: `s${i}` }));
    const objects = (await raw.list("audit")).entries.length;
    // Pruned every maxEntries / 8 calls: never more than 16 + 2 objects.
    expect(objects).toBeLessThanOrEqual(18);
    const left = (await history.query({ limit: 1000 })).entries.map((e) => e.session);
    expect(left.length).toBeGreaterThanOrEqual(16);
    expect(left).toEqual(Array.from({ length: left.length }, (_, k) => `s${200 - left.length + k}`));
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

  test("a prune reads no entry this store appended, and still drops by the bound over all of them", async () => {
    const { storage, reads } = counting();
    let clock = 2_000;
    const history = createStorageHistory(storage, { bounds: { maxBytes: 1_000_000, maxAgeMs: 5_000 }, pruneEvery: 1_000_000, now: () => clock });
    const blob = await history.putBlob(new TextEncoder().encode("x".repeat(20)));
    for (let i = 0; i < 10; i++) await history.append(entryAt(i, blob));
    await history.prune();
    expect(reads()).toBe(0);
    for (let i = 10; i < 13; i++) await history.append(entryAt(i, blob));
    await history.prune();
    expect(reads()).toBe(0);
    expect((await history.query({})).entries.length).toBe(13);
    const afterQuery = reads();
    // Every entry is from about 1 s; past 6.013 s they are all older than the 5 s bound, with no new read.
    clock = 1_000 + 13 + 5_001;
    await history.prune();
    expect(reads()).toBe(afterQuery);
    expect((await history.query({})).entries).toEqual([]);
  });

  test("entries another instance adds are read once, and ones it removes are forgotten", async () => {
    const { raw, storage, reads } = counting();
    const history = createStorageHistory(storage, { bounds: { maxBytes: 1_000_000, maxAgeMs: 1e12 }, pruneEvery: 1_000_000, now: () => 50_000 });
    const other = createStorageHistory(raw, { now: () => 60_000 });
    const blob = await history.putBlob(new TextEncoder().encode("y".repeat(20)));
    const mine = await history.append(entryAt(0, blob));
    await history.prune();
    const theirs = await other.append(entryAt(1, blob));
    await history.prune();
    expect(reads()).toBe(1);
    await history.prune();
    expect(reads()).toBe(1);
    await raw.delete(`audit/${mine.id}.json`);
    await history.prune();
    expect(reads()).toBe(1);
    expect((await history.query({})).entries.map((e) => e.id)).toEqual([theirs.id]);
  });
});
