/**
 * The state directory's audit segments (src/history/segment-log.ts), on a
 * real directory: entries appended by several logs (processes) on one
 * directory, drops that hold across restarts, a line cut by a crash, the
 * old one-file-per-entry layout beside them, rotation, and segments that
 * are unlinked only when nothing needs them and no writer can append.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EntryLog, objectEntryLog } from "../../src/history/entry-log.ts";
import { segmentEntryLog } from "../../src/history/segment-log.ts";
import { createStateDirStorage } from "../../src/history/state-dir.ts";
import { createStorageHistory } from "../../src/history/store.ts";
import { newEntry } from "../helpers/audit-entry.ts";

let base: string;
let clock: number;
const now = () => clock;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "tw-segments-"));
  // The real time: a segment's age is its mtime against this clock.
  clock = Date.now();
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const dir = () => join(base, "audit-log");
/** A log of one "process" on the shared directory. */
const open = (options: Parameters<typeof segmentEntryLog>[2] = {}): EntryLog =>
  segmentEntryLog(dir(), objectEntryLog(createStateDirStorage(base)), { now, ...options });
let serial = 0;
const id = () => `${String(clock).padStart(15, "0")}-${(serial++).toString(16).padStart(8, "0")}`;
const json = (entryId: string, extra = "") => `{"id":"${entryId}","tool":"edit"${extra}}`;
const segmentFiles = () => (existsSync(dir()) ? readdirSync(dir()).sort() : []);

describe("appending and reading", () => {
  test("entries of two processes on one directory: each sees both, in id order, byte for byte", async () => {
    const a = open();
    const b = open();
    const ids = [id(), id(), id(), id()];
    await a.add(ids[0]!, json(ids[0]!, ',"note":"é \\n 世"'));
    await b.add(ids[1]!, json(ids[1]!));
    await a.add(ids[2]!, json(ids[2]!));
    await b.add(ids[3]!, json(ids[3]!));
    expect(segmentFiles()).toHaveLength(2);
    for (const log of [a, b, open()]) {
      expect(await log.ids()).toEqual(ids);
      expect(await log.read(ids[0]!)).toBe(json(ids[0]!, ',"note":"é \\n 世"'));
      expect(await log.read(ids[3]!)).toBe(json(ids[3]!));
    }
    // What is not an entry id is never looked up.
    expect(await a.read("../../x")).toBeUndefined();
    expect(await a.read(id())).toBeUndefined();
  });

  test("an entry must be one line of JSON that starts with its own id; nothing is written otherwise", async () => {
    const log = open();
    const good = id();
    for (const [entryId, text] of [
      [good, `${json(good)}\n`],
      [good, json(id())],
      ["not-an-id", '{"id":"not-an-id"}'],
    ] as const) {
      await expect(log.add(entryId, text)).rejects.toThrow("one line of JSON");
    }
    expect(segmentFiles()).toEqual([]);
  });

  test("a line a crash left unended is not an entry; the rest of the log reads on, and a line ended later is read", async () => {
    const writer = open();
    const first = id();
    await writer.add(first, json(first));
    const [segment] = segmentFiles();
    const late = id();
    // Another process's segment, cut mid-line.
    const other = join(dir(), `${String(clock).padStart(15, "0")}-0badc0de.jsonl`);
    writeFileSync(other, `${json(late).slice(0, 10)}`);
    const reader = open();
    expect(await reader.ids()).toEqual([first]);
    // Its writer finishes the line: the next scan reads it whole.
    appendFileSync(other, `${json(late).slice(10)}\n`);
    expect(await reader.ids()).toEqual([first, late]);
    expect(await reader.read(late)).toBe(json(late));
    // Garbage lines are skipped, not fatal.
    appendFileSync(other, "not json\n{}\n");
    expect(await open().ids()).toEqual([first, late]);
    expect(segment).toMatch(/^\d{15}-[0-9a-f]{8}\.jsonl$/);
  });

  test("a segment is closed at its size bound, and after an hour without appends", async () => {
    const log = open({ segmentBytes: 200 });
    const ids = Array.from({ length: 6 }, () => id());
    for (const entryId of ids.slice(0, 5)) await log.add(entryId, json(entryId, `,"pad":"${"x".repeat(60)}"`));
    expect(segmentFiles().length).toBeGreaterThanOrEqual(2);
    const before = segmentFiles().length;
    clock += 3600 * 1000;
    await log.add(ids[5]!, json(ids[5]!));
    expect(segmentFiles()).toHaveLength(before + 1);
    expect(await open().ids()).toEqual(ids);
  });

  test("entries of the old layout (one file each) are listed, read and dropped beside the segments", async () => {
    const storage = createStateDirStorage(base);
    const old = id();
    mkdirSync(join(base, "audit"), { recursive: true });
    writeFileSync(join(base, "audit", `${old}.json`), json(old));
    const log = open();
    const fresh = id();
    await log.add(fresh, json(fresh));
    expect(await log.ids()).toEqual([old, fresh]);
    expect(await log.read(old)).toBe(json(old));
    await log.remove([old]);
    expect(existsSync(join(base, "audit", `${old}.json`))).toBe(false);
    expect(await open().ids()).toEqual([fresh]);
    expect(storage.kind).toBe("state");
  });
});

describe("dropping", () => {
  test("a drop holds in every process and after a restart; the segment goes only once nothing needs it and no writer can append", async () => {
    const a = open();
    const ids = [id(), id(), id()];
    for (const entryId of ids) await a.add(entryId, json(entryId));
    const [segmentA] = segmentFiles();
    const b = open();
    await b.remove([ids[0]!, ids[1]!]);
    for (const log of [a, b, open()]) expect(await log.ids()).toEqual([ids[2]!]);
    expect(await b.read(ids[0]!)).toBeUndefined();
    // The last entry goes too: A's segment holds nothing live, but was appended to lately.
    await b.remove([ids[2]!]);
    expect(segmentFiles()).toContain(segmentA!);
    expect(await open().ids()).toEqual([]);
    // A day later it is unlinked; B's tombstones (in B's segment, still B's to append to) stay.
    clock += 25 * 3600 * 1000;
    await b.remove([]);
    expect(segmentFiles()).not.toContain(segmentA!);
    expect(segmentFiles()).toHaveLength(1);
    expect(await open().ids()).toEqual([]);
  });

  test("tombstones are kept while the entries they hide are still on disk", async () => {
    const a = open();
    const kept = id();
    const gone = id();
    // Most of A's segment is `kept`: too full of what is live to be worth compacting.
    await a.add(kept, json(kept, `,"pad":"${"k".repeat(200)}"`));
    await a.add(gone, json(gone));
    await open().remove([gone]);
    const both = segmentFiles();
    expect(both).toHaveLength(2);
    // Two days on, A's segment still holds `kept`, with `gone` beside it: the tombstone must stay too.
    clock += 48 * 3600 * 1000;
    const c = open();
    await c.remove([]);
    expect(segmentFiles()).toEqual(both);
    expect(await open().ids()).toEqual([kept]);
    expect(await open().read(kept)).toBe(json(kept, `,"pad":"${"k".repeat(200)}"`));
    // Once `kept` goes as well, nothing needs any segment (C's own tombstone included, two days later).
    await c.remove([kept]);
    clock += 48 * 3600 * 1000;
    await open().remove([]);
    expect(segmentFiles()).toEqual([]);
    expect(await open().ids()).toEqual([]);
  });

  test("a writer whose segment was unlinked under it appends the line again to a new segment", async () => {
    const log = open();
    const first = id();
    await log.add(first, json(first));
    const [segment] = segmentFiles();
    unlinkSync(join(dir(), segment!));
    const second = id();
    await log.add(second, json(second));
    expect(segmentFiles()).toHaveLength(1);
    expect(segmentFiles()[0]).not.toBe(segment);
    expect(await open().ids()).toEqual([second]);
    expect(readFileSync(join(dir(), segmentFiles()[0]!), "utf8")).toBe(`${json(second)}\n`);
  });
});

describe("compacting", () => {
  const pad = (n: number) => `,"pad":"${"x".repeat(n)}"`;

  test("a full segment mostly dropped is compacted: its live entries move to a later segment, and every process reads them", async () => {
    const a = open({ segmentBytes: 1000 });
    const kept = id();
    await a.add(kept, json(kept, pad(40)));
    const dropped = Array.from({ length: 12 }, () => id());
    for (const d of dropped) await a.add(d, json(d, pad(60)));
    const [first] = segmentFiles();
    const stale = open();
    expect(await stale.ids()).toEqual([kept, ...dropped]);
    // Dropping them compacts the full first segment at once: no day's wait, and `kept` no longer holds it.
    await a.remove(dropped);
    expect(segmentFiles()).not.toContain(first!);
    for (const log of [a, open()]) {
      expect(await log.ids()).toEqual([kept]);
      expect(await log.read(kept)).toBe(json(kept, pad(40)));
    }
    // A process that placed `kept` in the unlinked segment finds it where it went.
    expect(await stale.read(kept)).toBe(json(kept, pad(40)));
    expect(await stale.ids()).toEqual([kept]);
  });

  test("one old live entry does not keep every later segment on disk (nor do the tombstones that hide their entries)", async () => {
    const log = open({ segmentBytes: 2000 });
    const kept = id();
    await log.add(kept, json(kept));
    const live: string[] = [];
    for (let round = 0; round < 40; round++) {
      const batch = Array.from({ length: 10 }, () => id());
      for (const b of batch) await log.add(b, json(b, pad(100)));
      live.push(...batch);
      // A prune keeps the old entry and the 20 newest.
      await log.remove(live.splice(0, Math.max(0, live.length - 20)));
    }
    // 40 rounds appended ~50 KB in ~26 segments; what is needed is ~3 KB.
    expect(segmentFiles().length).toBeLessThanOrEqual(6);
    const fresh = open();
    expect(await fresh.ids()).toEqual([kept, ...live]);
    for (const l of live) expect(await fresh.read(l)).toBe(json(l, pad(100)));
  });

  test("of two copies of an entry, the later-named one is kept, whichever process collects", async () => {
    const entry = id();
    mkdirSync(dir(), { recursive: true });
    const earlier = join(dir(), `${String(clock - 2000).padStart(15, "0")}-00000001.jsonl`);
    const later = join(dir(), `${String(clock - 1000).padStart(15, "0")}-00000002.jsonl`);
    writeFileSync(earlier, `${json(entry)}\n`);
    writeFileSync(later, `${json(entry)}\n`);
    // Both untouched for two days.
    clock += 48 * 3600 * 1000;
    await open().remove([]);
    expect(existsSync(later)).toBe(true);
    expect(existsSync(earlier)).toBe(false);
    expect(await open().ids()).toEqual([entry]);
    expect(await open().read(entry)).toBe(json(entry));
  });
});

describe("corked: a batch of entries in one write", () => {
  const segmentText = () =>
    segmentFiles()
      .map((f) => readFileSync(join(dir(), f), "utf8"))
      .join("");

  test("entries added while corked reach the file together at uncork, in order, and are found where they landed", async () => {
    const log = open();
    const before = id();
    await log.add(before, json(before));
    const uncork = log.cork!();
    const held = [id(), id(), id()];
    for (const h of held) await log.add(h, json(h, ',"note":"é"'));
    // Nothing more on disk yet: another process sees only the first entry.
    expect(segmentText()).toBe(`${json(before)}\n`);
    expect(await open().ids()).toEqual([before]);
    uncork();
    expect(segmentText()).toBe([before, ...held].map((h) => `${h === before ? json(h) : json(h, ',"note":"é"')}\n`).join(""));
    for (const reader of [log, open()]) {
      expect(await reader.ids()).toEqual([before, ...held]);
      expect(await reader.read(held[1]!)).toBe(json(held[1]!, ',"note":"é"'));
    }
    // A second uncork does nothing.
    uncork();
    expect(await open().ids()).toEqual([before, ...held]);
  });

  test("reading or dropping while corked writes the held entries first: nothing added is ever missing to its own process", async () => {
    const log = open();
    const uncork = log.cork!();
    const [a, b, c] = [id(), id(), id()];
    await log.add(a, json(a));
    expect(await log.ids()).toEqual([a]);
    await log.add(b, json(b));
    expect(await log.read(b)).toBe(json(b));
    await log.add(c, json(c));
    await log.remove([a]);
    expect(await open().ids()).toEqual([b, c]);
    uncork();
    expect(await open().ids()).toEqual([b, c]);
  });

  test("a held batch whose segment was unlinked meanwhile goes, whole, to a new segment", async () => {
    const log = open();
    const first = id();
    await log.add(first, json(first));
    const [segment] = segmentFiles();
    const uncork = log.cork!();
    const held = [id(), id()];
    for (const h of held) await log.add(h, json(h));
    unlinkSync(join(dir(), segment!));
    uncork();
    expect(segmentFiles()).toHaveLength(1);
    expect(segmentFiles()[0]).not.toBe(segment);
    expect(segmentText()).toBe(held.map((h) => `${json(h)}\n`).join(""));
    expect(await open().ids()).toEqual(held);
  });

  test("a write that fails at uncork throws, keeps none of the batch, and the log goes on in a new segment", async () => {
    const log = open();
    const first = id();
    await log.add(first, json(first));
    const uncork = log.cork!();
    const lost = id();
    await log.add(lost, json(lost));
    // A failing write, as a dying disk gives one (permissions do not stop root): the segment's descriptor closed under it.
    const [segment] = segmentFiles();
    const fd = readdirSync("/proc/self/fd").find((n) => {
      try {
        return readlinkSync(`/proc/self/fd/${n}`) === join(dir(), segment!);
      } catch {
        return false;
      }
    });
    closeSync(Number(fd));
    expect(() => uncork()).toThrow();
    expect(await log.ids()).toEqual([first]);
    const after = id();
    await log.add(after, json(after));
    expect(await open().ids()).toEqual([first, after]);
  });
});

test("a history store over the segments: appends, queries, gets and prunes by age", async () => {
  const storage = createStateDirStorage(base);
  const store = createStorageHistory(storage, {
    entries: open(),
    now,
    // Pruned when asked below: every call counts toward a prune, views too.
    pruneEvery: 1_000_000,
    bounds: { maxBytes: 1 << 20, maxAgeMs: 1000 },
  });
  const first = await store.append(newEntry([], new Date(clock)));
  clock += 5000;
  const second = await store.append(newEntry([], new Date(clock)));
  expect((await store.query({})).entries.map((e) => e.id)).toEqual([first.id, second.id]);
  expect(await store.get(second.id)).toEqual(second);
  await store.prune();
  expect((await store.query({})).entries.map((e) => e.id)).toEqual([second.id]);
  expect(await store.get(first.id)).toBeUndefined();
  // Nothing was written as a file of the old layout.
  expect(existsSync(join(base, "audit"))).toBe(false);
});
