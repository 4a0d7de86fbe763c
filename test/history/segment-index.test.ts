/**
 * The segment log's index (src/history/segment-index.ts), without files:
 * lines taken from bytes (a line not yet ended waits), which lines of a
 * segment are still needed, what forgetting an unlinked segment does, and
 * a new segment's name.
 */
import { describe, expect, test } from "bun:test";
import {
  forgetSegment,
  isLive,
  liveIds,
  neededLines,
  newSegmentIndex,
  type SegmentIndex,
  segmentNameAfter,
  takeLines,
  tombstoneLine,
} from "../../src/history/segment-index.ts";

const A = "000000000001000-aaaaaaaa.jsonl";
const B = "000000000002000-bbbbbbbb.jsonl";
const C = "000000000003000-cccccccc.jsonl";
const id1 = "000000000000001-00000001";
const id2 = "000000000000002-00000002";
const entry = (id: string) => `{"id":"${id}","tool":"edit"}`;
const bytesOf = (...lines: string[]) => new TextEncoder().encode(lines.join(""));
const take = (index: SegmentIndex, name: string, ...lines: string[]) => takeLines(index, name, bytesOf(...lines));

describe("taking lines", () => {
  test("complete lines are placed by offset; a line not yet ended is left for the next scan", () => {
    const index = newSegmentIndex();
    take(index, A, `${entry(id1)}\n`, entry(id2).slice(0, 10));
    expect(index.copies.get(id1)).toEqual([{ segment: A, offset: 0, length: entry(id1).length }]);
    expect(index.copies.has(id2)).toBe(false);
    expect(index.segments.get(A)!.scanned).toBe(entry(id1).length + 1);
    // The next scan reads from where the last complete line ended.
    take(index, A, `${entry(id2)}\n`);
    expect(index.copies.get(id2)).toEqual([{ segment: A, offset: entry(id1).length + 1, length: entry(id2).length }]);
    expect(liveIds(index).sort()).toEqual([id1, id2]);
  });

  test("a tombstone hides its entry; a cut line (ended after a crash) is no entry", () => {
    const index = newSegmentIndex();
    take(index, A, `${entry(id1)}\n`, `{"id":"0000\n`, `${tombstoneLine(id1)}\n`);
    expect(isLive(index, id1)).toBe(false);
    expect(liveIds(index)).toEqual([]);
    expect(index.tombs.get(id1)).toEqual([A]);
  });
});

describe("needed lines", () => {
  test("a live entry is needed where its latest copy is, not where a later segment holds one", () => {
    const index = newSegmentIndex();
    take(index, A, `${entry(id1)}\n`);
    expect(neededLines(index, A)).toEqual({ entries: [id1], drops: [], bytes: entry(id1).length + 1 });
    take(index, B, `${entry(id1)}\n`);
    expect(neededLines(index, A)).toEqual({ entries: [], drops: [], bytes: 0 });
    expect(neededLines(index, B).entries).toEqual([id1]);
  });

  test("a tombstone is needed while a copy of its entry is elsewhere and no later segment repeats it", () => {
    const index = newSegmentIndex();
    take(index, A, `${entry(id1)}\n`);
    take(index, B, `${tombstoneLine(id1)}\n`);
    // The dropped entry's own line is needed no more; the tombstone is, or the entry would come back.
    expect(neededLines(index, A).entries).toEqual([]);
    expect(neededLines(index, B).drops).toEqual([id1]);
    take(index, C, `${tombstoneLine(id1)}\n`);
    expect(neededLines(index, B).drops).toEqual([]);
    expect(neededLines(index, C).drops).toEqual([id1]);
    forgetSegment(index, A);
    expect(neededLines(index, C).drops).toEqual([]);
  });
});

describe("forgetting a segment", () => {
  test("its lines go: an entry whose only tombstone was in it is live again", () => {
    const index = newSegmentIndex();
    take(index, A, `${entry(id1)}\n`, `${entry(id2)}\n`);
    take(index, B, `${tombstoneLine(id1)}\n`);
    forgetSegment(index, B);
    expect(isLive(index, id1)).toBe(true);
    forgetSegment(index, A);
    expect(index.copies.size + index.tombs.size + index.segments.size).toBe(0);
  });
});

describe("naming", () => {
  test("a new segment's name sorts after every known one, even from an earlier clock", () => {
    const index = newSegmentIndex();
    take(index, B, `${entry(id1)}\n`);
    expect(segmentNameAfter(index, 1500, "dddddddd")).toBe("000000000002001-dddddddd.jsonl");
    expect(segmentNameAfter(index, 9000, "dddddddd")).toBe("000000000009000-dddddddd.jsonl");
  });
});
