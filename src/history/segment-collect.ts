/**
 * Collecting the segment log's segments (see ./segment-log.ts, "Collecting"):
 * unlink those no writer can append to any more that hold nothing needed,
 * and compact the sparse ones by copying what they still need to this
 * process's segment first.
 */
import { statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { forgetSegment, neededLines, placeIn } from "./segment-index.ts";
import { nodeErrorCode as codeOf } from "../storage/local/node-errors.ts";
import { readLine } from "./segment-reader.ts";
import { appendEntries, appendTombstones, retireOwn, type SegmentWriter } from "./segment-writer.ts";

/**
 * A closed segment is compacted once what it still needs is at most 1/COMPACT_WHEN of it. At 1/2, a
 * flood of logged calls (dropped oldest first) copied the live half of the boundary segment forward at
 * every prune, entries that the next prune dropped anyway: megabytes of copying per prune.
 */
const COMPACT_WHEN = 8;
/** Bytes of lines a compaction copies per append. */
const COPY_BATCH_BYTES = 256 * 1024;

/** Unlink every segment (not the one being appended to) that holds nothing needed any more; compact the sparse ones. */
export function collectSegments(writer: SegmentWriter, collectIdleMs: number): void {
  // Unlinking one segment may free another whose tombstones hid entries in it: go round until none goes.
  while (collectOnce(writer, collectIdleMs));
}

/** Copy segment `name`'s needed lines to this process's segment (a new one unless it is named later). */
function compact(writer: SegmentWriter, name: string, needed: { entries: string[]; drops: string[] }): boolean {
  retireOwn(writer, name);
  // In batches of about COPY_BATCH_BYTES: half a segment read, joined and encoded at once was ~12 MiB of
  // garbage per compaction, which a flood of logged calls turned into tens of MiB of RSS.
  let lines: string[] = [];
  let ids: string[] = [];
  let bytes = 0;
  const flush = () => {
    appendEntries(writer, ids, lines);
    lines = [];
    ids = [];
    bytes = 0;
  };
  for (const id of needed.entries) {
    const line = readLine(writer.dir, placeIn(writer.index, id, name));
    // Unlinked meanwhile (another process compacted it): the next refresh finds where its lines went.
    if (line === undefined) return false;
    lines.push(line);
    ids.push(id);
    bytes += line.length;
    if (bytes >= COPY_BATCH_BYTES) flush();
  }
  if (lines.length > 0) flush();
  appendTombstones(writer, needed.drops);
  return true;
}

function collectOnce(writer: SegmentWriter, collectIdleMs: number): boolean {
  const { dir, index } = writer;
  let unlinked = false;
  for (const name of [...index.segments.keys()].sort()) {
    const segment = index.segments.get(name);
    if (!segment || name === writer.own?.name) continue;
    try {
      // Appended to lately: its writer may append again (writers move on after WRITER_IDLE_MS), unless it is
      // full (its writer closed it for good after the append that filled it) and every line of it was read.
      const stat = statSync(join(dir, name));
      const full = stat.size >= writer.segmentBytes && segment.scanned === stat.size;
      if (!full && stat.mtimeMs > writer.now() - collectIdleMs) continue;
      const needed = neededLines(index, name);
      if (needed.bytes > 0 && (needed.bytes * COMPACT_WHEN > stat.size || !compact(writer, name, needed))) continue;
      unlinkSync(join(dir, name));
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error;
    }
    forgetSegment(index, name);
    unlinked = true;
  }
  return unlinked;
}
