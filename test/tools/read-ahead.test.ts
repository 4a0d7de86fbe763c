/**
 * A directory search's read-ahead (src/tools/view/read-ahead.ts): files come
 * out in walk order, reads run at most a window ahead, and with a lookahead
 * every file to be read is announced, once and in order, before it comes
 * out, in batches rather than one at a time.
 */
import { expect, test } from "bun:test";
import { type AheadItem, type Lookahead, READ_AHEAD_FILES, readAhead } from "../../src/tools/view/read-ahead.ts";
import { type WalkEntry, walkStats } from "../../src/tools/view/walk.ts";

function entry(path: string, size: number, kind: "file" | "directory" = "file"): WalkEntry {
  return { path, name: path, kind, size, depth: 1, unexpanded: false };
}

async function* walkOf(entries: readonly WalkEntry[], stats = walkStats()): AsyncGenerator<WalkEntry> {
  for (const e of entries) {
    stats.visited++;
    yield e;
  }
}

/**
 * Run a read-ahead over `entries`, recording reads started and how many
 * were in flight at each start; `onRead` sees each read as it starts.
 */
async function run(entries: readonly WalkEntry[], lookahead?: Lookahead, onRead: (e: WalkEntry) => void = () => {}) {
  const started: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const out: AheadItem<string>[] = [];
  const stats = walkStats();
  const items = readAhead(
    walkOf(entries, stats),
    stats,
    (e) => e.kind === "file",
    (e) => e.size < 1000,
    async (e) => {
      onRead(e);
      started.push(e.path);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      return `read ${e.path}`;
    },
    lookahead,
  );
  for await (const item of items) {
    out.push(item);
    // The consumer is done with the read once it has it.
    if (item.read) {
      expect(await item.read).toBe(`read ${item.entry.path}`);
      inFlight--;
    }
  }
  return { started, mostInFlight, out };
}

const files = (n: number, size = 10) => Array.from({ length: n }, (_, i) => entry(`f${i}`, size));

test("files come out in walk order, without the ones not wanted; reads start in order, at most a window ahead", async () => {
  const entries = [entry("dir", 0, "directory"), ...files(40), entry("huge", 5000), ...files(3).map((e) => entry(`g${e.path}`, 10))];
  const { started, mostInFlight, out } = await run(entries);
  const wanted = entries.filter((e) => e.kind === "file").map((e) => e.path);
  expect(out.map((item) => item.entry.path)).toEqual(wanted);
  expect(started).toEqual(wanted.filter((path) => path !== "huge"));
  expect(out.find((item) => item.entry.path === "huge")!.read).toBeUndefined();
  expect(mostInFlight).toBeLessThanOrEqual(READ_AHEAD_FILES);
  expect(mostInFlight).toBeGreaterThan(1);
});

test("files of unknown size (-1) are read one at a time", async () => {
  const { mostInFlight, out } = await run(files(20, -1));
  expect(out).toHaveLength(20);
  expect(mostInFlight).toBe(1);
});

test("with a lookahead, each file to be read is announced once, in order, in batches, before it comes out", async () => {
  const announced: string[][] = [];
  const lookahead: Lookahead = { files: 64, announce: (batch) => announced.push(batch.map((e) => e.path)) };
  const entries = [...files(300, -1), entry("huge", 5000)];
  // Every file read was announced before its read started.
  const { out } = await run(entries, lookahead, (e) => expect(announced.flat()).toContain(e.path));
  const cameOut = out.map((item) => item.entry.path);
  expect(cameOut).toEqual(entries.map((e) => e.path));
  // Not wanted for reading: never announced.
  expect(announced.flat()).toEqual(entries.filter((e) => e.size < 1000).map((e) => e.path));
  // Refilled when half used: batches of about half the lookahead, never one file at a time.
  expect(announced[0]).toHaveLength(64);
  expect(announced.slice(1, -1).every((batch) => batch.length >= 32)).toBe(true);
  expect(announced.length).toBeLessThan(300 / 16);
});

test("a search that stops early stops the walk: nothing past the lookahead is walked", async () => {
  let walked = 0;
  async function* counting(): AsyncGenerator<WalkEntry> {
    for (const e of files(1000, -1)) {
      walked++;
      yield e;
    }
  }
  const stats = walkStats();
  const items = readAhead(
    counting(),
    stats,
    () => true,
    () => true,
    async (e) => e.path,
    { files: 64, announce: () => {} },
  );
  let seen = 0;
  for await (const item of items) {
    await item.read;
    if (++seen === 10) break;
  }
  expect(walked).toBeLessThanOrEqual(64 + 10);
});
