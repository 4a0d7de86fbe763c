/** Which lines of a version a session has seen: spans add up, and only every line licenses a whole-file write. */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { createDurableObservationStore, ObservationsDO } from "../../src/policy/durable.ts";
import { MAX_SPANS, observeLines, unseenSpans } from "../../src/policy/seen.ts";
import { mergeSpans } from "../../src/policy/spans.ts";
import type { Observation } from "../../src/policy/types.ts";

describe("spans", () => {
  test("merge sorts, joins overlapping and adjacent spans, keeps gaps", () => {
    expect(
      mergeSpans([
        [10, 12],
        [1, 3],
        [4, 5],
        [11, 20],
        [30, 30],
      ]),
    ).toEqual([
      [1, 5],
      [10, 20],
      [30, 30],
    ]);
  });
  test("unseen lines are the gaps up to the total; undefined seen means the whole version", () => {
    expect(
      unseenSpans(
        [
          [2, 4],
          [7, 7],
        ],
        9,
      ),
    ).toEqual([
      [1, 1],
      [5, 6],
      [8, 9],
    ]);
    expect(unseenSpans([[1, 9]], 9)).toEqual([]);
    expect(unseenSpans([], 3)).toEqual([[1, 3]]);
    expect(unseenSpans(undefined, 300)).toEqual([]);
  });
});

describe("observeLines", () => {
  test("a whole view is a whole observation; a ranged one keeps its span", () => {
    expect(observeLines(undefined, "v1", 1, 10, 10)).toEqual({ kind: "present", version: "v1" });
    expect(observeLines(undefined, "v1", 1, 3, 350)).toEqual({ kind: "present", version: "v1", seen: [[1, 3]] });
  });
  test("ranged views of one version add up, and complete into a whole observation", () => {
    let o: Observation = observeLines(undefined, "v1", 1, 3, 10);
    o = observeLines(o, "v1", 8, 10, 10);
    expect(o).toEqual({
      kind: "present",
      version: "v1",
      seen: [
        [1, 3],
        [8, 10],
      ],
    });
    o = observeLines(o, "v1", 4, 7, 10);
    expect(o).toEqual({ kind: "present", version: "v1" });
  });
  test("spans of another version do not count; a whole view of this version is not undone by a ranged one", () => {
    const old: Observation = { kind: "present", version: "v1", seen: [[1, 9]] };
    expect(observeLines(old, "v2", 10, 10, 10)).toEqual({ kind: "present", version: "v2", seen: [[10, 10]] });
    expect(observeLines({ kind: "present", version: "v2" }, "v2", 3, 3, 10)).toEqual({ kind: "present", version: "v2" });
  });
  test("a range that showed nothing records the version with no line seen", () => {
    expect(observeLines(undefined, "v1", 1, 0, 10)).toEqual({ kind: "present", version: "v1", seen: [] });
  });
  test("past MAX_SPANS, middle spans are forgotten (counted unseen), never merged across a gap", () => {
    let o: Observation | undefined;
    for (let i = 0; i < MAX_SPANS + 5; i++) o = observeLines(o, "v", 2 * i + 1, 2 * i + 1, 1000);
    const seen = (o as unknown as { seen: [number, number][] }).seen;
    expect(seen.length).toBe(MAX_SPANS);
    for (const [a, b] of seen) expect(a).toBe(b);
  });
});

describe("the Durable Object store keeps seen spans", () => {
  function namespaceOver(db: Database) {
    const sql = {
      exec: (query: string, ...bindings: unknown[]) => {
        const rows = db.query(query).all(...(bindings as never[])) as Record<string, unknown>[];
        return { toArray: () => rows };
      },
    };
    const object = new ObservationsDO({ storage: { sql, setAlarm: async () => {}, deleteAll: async () => {} } }, {});
    return { idFromName: (n: string) => n, get: () => ({ fetch: (input: string, init: RequestInit) => object.fetch(new Request(input, init)) }) };
  }

  test("round trip of partial and whole observations", async () => {
    const store = createDurableObservationStore(namespaceOver(new Database(":memory:")));
    await store.set("s", "a.ts", {
      kind: "present",
      version: "v1",
      seen: [
        [1, 3],
        [9, 9],
      ],
    });
    expect(await store.get("s", "a.ts")).toEqual({
      kind: "present",
      version: "v1",
      seen: [
        [1, 3],
        [9, 9],
      ],
    });
    await store.set("s", "a.ts", { kind: "present", version: "v2" });
    expect(await store.get("s", "a.ts")).toEqual({ kind: "present", version: "v2" });
  });

  test("keeps where the session's own edits moved its viewed lines; a malformed record reads as a plain observation", async () => {
    const db = new Database(":memory:");
    const store = createDurableObservationStore(namespaceOver(db));
    const own = { kept: [[1, 2, 1] as const, [3, 90, 6] as const], shown: [[1, 5] as const] };
    await store.set("s", "a.ts", { kind: "present", version: "v1", own });
    expect(await store.get("s", "a.ts")).toEqual({ kind: "present", version: "v1", own });
    // A partly seen version keeps its moves too.
    await store.set("s", "b.ts", { kind: "present", version: "v1", seen: [[2, 3]], own });
    expect(await store.get("s", "b.ts")).toEqual({ kind: "present", version: "v1", seen: [[2, 3]], own });
    db.run('UPDATE observations SET own = \'{"kept":"x"}\'');
    expect(await store.get("s", "a.ts")).toEqual({ kind: "present", version: "v1" });
    await store.set("s", "a.ts", { kind: "present", version: "v2" });
    expect(await store.get("s", "a.ts")).toEqual({ kind: "present", version: "v2" });
  });

  test("a table created before the seen column gets it, and its rows read as whole observations", async () => {
    const db = new Database(":memory:");
    db.run("CREATE TABLE observations (path TEXT PRIMARY KEY, version TEXT, touched INTEGER NOT NULL)");
    db.run("INSERT INTO observations (path, version, touched) VALUES ('old.ts', 'v0', 1)");
    const store = createDurableObservationStore(namespaceOver(db));
    expect(await store.get("s", "old.ts")).toEqual({ kind: "present", version: "v0" });
    await store.set("s", "new.ts", { kind: "present", version: "v1", seen: [[2, 2]] });
    expect(await store.get("s", "new.ts")).toEqual({ kind: "present", version: "v1", seen: [[2, 2]] });
  });
});
