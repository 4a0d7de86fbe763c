/** Recording after the reply: order, readers wait for what is queued, failures reported, a bounded queue. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deferRecording } from "../../src/history/deferred.ts";
import { objectEntryLog } from "../../src/history/entry-log.ts";
import { segmentEntryLog } from "../../src/history/segment-log.ts";
import { createStateDirStorage } from "../../src/history/state-dir.ts";
import { createStorageHistory } from "../../src/history/store.ts";
import type { NewAuditEntry } from "../../src/history/types.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";

function entry(tool: string): NewAuditEntry {
  return { time: new Date(0).toISOString(), principal: "p", session: "s", tool, paths: [], code: "OK", changes: [], bytes: 0, ms: 0 };
}

/** A promise and its resolver, to hold a recording open. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** A history over a local segment log in a fresh directory, and the lines its segments hold. */
function segmentHistory() {
  const base = mkdtempSync(join(tmpdir(), "tw-deferred-"));
  const storage = createStateDirStorage(base);
  const store = createStorageHistory(storage, { entries: segmentEntryLog(join(base, "audit-log"), objectEntryLog(storage)) });
  const dir = join(base, "audit-log");
  const segmentLines = () => (existsSync(dir) ? readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean)) : []);
  return { base, store, segmentLines };
}

describe("deferRecording", () => {
  test("a recording starts only on a later turn of the event loop, after the reply of the turn that queued it", async () => {
    const history = deferRecording(createStorageHistory(createMemoryStorage()));
    let started = false;
    await history.later(async () => {
      started = true;
    });
    // Everything the call's own turn still does (returning, the server writing the reply) runs first.
    for (let i = 0; i < 100; i++) await Promise.resolve();
    expect(started).toBe(false);
    await history.settled();
    expect(started).toBe(true);
  });

  test("the turn is waited for with setImmediate, not a timer: setTimeout(0) waits 1-2 ms, which capped a server at ~800 calls a second", async () => {
    const history = deferRecording(createStorageHistory(createMemoryStorage()));
    const realSetTimeout = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return realSetTimeout(...args);
    }) as typeof setTimeout;
    try {
      for (let i = 0; i < 50; i++) await history.later((store) => store.append(entry(`t${i}`)).then(() => {}));
      await history.settled();
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    expect(timers).toBe(0);
    expect((await history.query({})).entries.length).toBe(50);
  });

  test("recordings queued before a turn comes run together on it, in call order: one turn per batch, not per call", async () => {
    let turns = 0;
    const nextTurn = () => {
      turns++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const history = deferRecording(createStorageHistory(createMemoryStorage()), { nextTurn });
    for (let i = 0; i < 20; i++) await history.later((store) => store.append(entry(`a${i}`)).then(() => {}));
    await history.settled();
    expect(turns).toBe(1);
    // Queued while the first of them runs: the next batch, on a turn of its own.
    const held = gate();
    await history.later(async (store) => {
      await held.wait;
      await store.append(entry("b0"));
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let i = 1; i < 5; i++) await history.later((store) => store.append(entry(`b${i}`)).then(() => {}));
    held.open();
    await history.settled();
    expect(turns).toBe(3);
    const tools = (await history.query({})).entries.map((e) => e.tool);
    expect(tools).toEqual([...Array.from({ length: 20 }, (_, i) => `a${i}`), ...Array.from({ length: 5 }, (_, i) => `b${i}`)]);
  });

  test("a batch's entries go to a local segment log in one write, after its last recording; a failed write is reported", async () => {
    const { base, store, segmentLines } = segmentHistory();
    try {
      const cork = store.cork!;
      const uncorks: number[] = [];
      store.cork = () => {
        const uncork = cork();
        return () => {
          uncorks.push(segmentLines().length);
          uncork();
        };
      };
      const errors: unknown[] = [];
      const history = deferRecording(store, { onError: (e) => errors.push(e) });
      for (let i = 0; i < 10; i++) await history.later((s) => s.append(entry(`t${i}`)).then(() => {}));
      await history.settled();
      // Nothing was on disk before the one uncork; all ten after it, in call order.
      expect(uncorks).toEqual([0]);
      expect(segmentLines().map((l) => JSON.parse(l).tool)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`));
      expect((await history.query({})).entries.map((e) => e.tool)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`));

      store.cork = () => () => {
        throw new Error("disk gone");
      };
      await history.later((s) => s.append(entry("lost")).then(() => {}));
      await history.settled();
      expect(errors.map((e) => (e as Error).message)).toEqual(["disk gone"]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("a recording that never finishes does not keep the entries of those done before it off disk", async () => {
    const { base, store, segmentLines: onDisk } = segmentHistory();
    try {
      const history = deferRecording(store);
      await history.later((s) => s.append(entry("a")).then(() => {}));
      await history.later((s) => s.append(entry("b")).then(() => {}));
      await history.later(() => new Promise<void>(() => {}));
      // The batch starts on the next turn; its cork is released on the one after, stuck task or not.
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      expect(onDisk().map((l) => JSON.parse(l).tool)).toEqual(["a", "b"]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("a turn that fails or a store whose cork throws is reported, and the queue goes on", async () => {
    const errors: unknown[] = [];
    let failTurn = true;
    const nextTurn = () => {
      if (failTurn) {
        failTurn = false;
        return Promise.reject(new Error("no turn"));
      }
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const store = createStorageHistory(createMemoryStorage());
    store.cork = () => {
      throw new Error("no cork");
    };
    const history = deferRecording(store, { nextTurn, onError: (e) => errors.push(e) });
    await history.later((s) => s.append(entry("first")).then(() => {}));
    await history.settled();
    await history.later((s) => s.append(entry("second")).then(() => {}));
    await history.settled();
    expect(errors.map((e) => (e as Error).message)).toEqual(["no turn", "no cork", "no cork"]);
    expect((await history.query({})).entries.map((e) => e.tool)).toEqual(["first", "second"]);
  });

  test("later returns before the recording runs; query, get and getBlob wait for it", async () => {
    const history = deferRecording(createStorageHistory(createMemoryStorage()));
    const held = gate();
    let ran = false;
    await history.later(async (store) => {
      await held.wait;
      await store.append(entry("edit"));
      ran = true;
    });
    expect(ran).toBe(false);
    const page = history.query({});
    held.open();
    expect((await page).entries.map((e) => e.tool)).toEqual(["edit"]);
    expect(ran).toBe(true);
  });

  test("recordings land in call order, and an append through the wrapper comes after them", async () => {
    const history = deferRecording(createStorageHistory(createMemoryStorage()));
    const held = gate();
    await history.later(async (store) => {
      await held.wait;
      await store.append(entry("first"));
    });
    await history.later(async (store) => void (await store.append(entry("second"))));
    const third = history.append(entry("third"));
    held.open();
    await third;
    expect((await history.query({})).entries.map((e) => e.tool)).toEqual(["first", "second", "third"]);
  });

  test("a failing recording is reported and the ones after it still land", async () => {
    const errors: unknown[] = [];
    const history = deferRecording(createStorageHistory(createMemoryStorage()), { onError: (e) => errors.push(e) });
    await history.later(async () => {
      throw new Error("disk full");
    });
    await history.later(async (store) => void (await store.append(entry("after"))));
    await history.settled();
    expect(errors.map((e) => (e as Error).message)).toEqual(["disk full"]);
    expect((await history.query({})).entries.map((e) => e.tool)).toEqual(["after"]);
  });

  test("past maxPending queued recordings, a call waits for room", async () => {
    const history = deferRecording(createStorageHistory(createMemoryStorage()), { maxPending: 2 });
    const held = gate();
    const task = async () => {
      await held.wait;
    };
    let full = false;
    await history.later(task);
    await history.later(task);
    const third = history.later(task).then(() => (full = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(full).toBe(false);
    held.open();
    await third;
    expect(full).toBe(true);
  });
});
