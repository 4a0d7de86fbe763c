/**
 * A local state directory's audit entries, appended to segment files: each
 * process appends its entries, one JSON line each, to a segment of its own
 * (`<time>-<random>.jsonl`, named after every segment it knows; a new one past SEGMENT_BYTES). A new
 * file per entry cost an inode allocation per call, 30-500 µs of kernel time
 * on ext4 (more than the call); an append costs 2 µs.
 *
 * - Reading: every segment is scanned once per process, and after that only
 *   the bytes appended since (by this process or another); a line not yet
 *   ended by "\n" is left for the next scan. Lines are found by their
 *   offsets; an entry is read back with one positioned read.
 * - Dropping (a prune): a tombstone line `{"deleted":"<id>"}` in this
 *   process's segment (one write for all of a prune's).
 * - Collecting: a segment no writer can append to any more (full, as its
 *   writer closed it after the append that filled it, and read to its end;
 *   or without an append for COLLECT_IDLE_MS, as a writer moves to a new
 *   segment after WRITER_IDLE_MS) is unlinked once it holds no needed line:
 *   an entry line is needed while the entry is live and no later-named
 *   segment holds a copy of it; a tombstone while a copy of the entry it
 *   hides is still on disk elsewhere and no later-named segment repeats it
 *   (else the entry would come back). One whose needed lines are at most
 *   half of it is compacted: they are copied to this process's segment
 *   (named later than it), and it is unlinked. Without that, one old entry
 *   a prune keeps (the file history keeps the changes it can still undo)
 *   held its segment, and the tombstones hiding that segment's dropped
 *   entries held theirs, and so on: every segment since stayed on disk.
 *   Copies only ever go to a later name, so the latest copy of a line is
 *   never the one another process deems redundant. Should a writer append
 *   to an unlinked segment anyway, it sees after its append that the file
 *   has no link left, and appends the line again to a new segment.
 * - Entries of the old layout (one file each, `audit/<id>.json`) are still
 *   listed, read and dropped, through `legacy`.
 * Synchronous I/O: each call is microseconds, and every tool call appends.
 * A batch of recordings (./deferred.ts) corks the log: its lines
 * go in one write, before anything reads or drops entries.
 */
import { type EntryLog, isEntryId } from "./entry-log.ts";
import { collectSegments } from "./segment-collect.ts";
import { ENTRY_LINE, liveIds, newSegmentIndex } from "./segment-index.ts";
import { readLine, refreshIndex } from "./segment-reader.ts";
import { appendEntries, appendTombstones, type SegmentWriter } from "./segment-writer.ts";

/** A segment is closed for appends past this size. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;

/** A writer starts a new segment after this long without appending (1 hour)... */
export const WRITER_IDLE_MS = 3600 * 1000;
/** ...so a segment untouched this long (1 day) has no writer left, and may be unlinked once it holds nothing needed. */
export const COLLECT_IDLE_MS = 24 * 3600 * 1000;

/** Options of {@link segmentEntryLog} (tests). */
export interface SegmentLogOptions {
  readonly segmentBytes?: number;
  readonly writerIdleMs?: number;
  readonly collectIdleMs?: number;
  readonly now?: () => number;
}

/** The segment log in directory `dir` (made on the first append), over the old layout's `legacy` log. */
export function segmentEntryLog(dir: string, legacy: EntryLog, options: SegmentLogOptions = {}): EntryLog {
  const writerIdleMs = options.writerIdleMs ?? WRITER_IDLE_MS;
  const collectIdleMs = Math.max(options.collectIdleMs ?? COLLECT_IDLE_MS, writerIdleMs);
  const writer: SegmentWriter = {
    dir,
    index: newSegmentIndex(),
    segmentBytes: options.segmentBytes ?? SEGMENT_BYTES,
    writerIdleMs,
    now: options.now ?? Date.now,
    own: undefined,
  };
  const { copies, tombs } = writer.index;
  const refresh = () => refreshIndex(dir, writer.index, writer.own?.name);
  // While corked (see EntryLog.cork), added entries wait here for one write.
  let corked = 0;
  let held: { id: string; json: string }[] = [];

  /** Write the entries added while corked, in one append; before anything reads or drops. */
  function writeHeld(): void {
    if (held.length === 0) return;
    const lines = held;
    held = [];
    appendEntries(
      writer,
      lines.map((l) => l.id),
      lines.map((l) => l.json),
    );
  }

  return {
    async add(id, json) {
      if (!isEntryId(id) || json.includes("\n") || ENTRY_LINE.exec(json)?.[1] !== id) {
        throw new Error(`internal: an audit entry must be one line of JSON starting with its id (${id})`);
      }
      if (corked > 0) held.push({ id, json });
      else appendEntries(writer, [id], [json]);
    },

    cork() {
      corked++;
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        if (--corked === 0) writeHeld();
      };
    },

    async ids() {
      writeHeld();
      refresh();
      const fromSegments = liveIds(writer.index);
      const old = (await legacy.ids()).filter((id) => !copies.has(id));
      return fromSegments.length === 0 ? old : [...fromSegments, ...old].sort();
    },

    async read(id) {
      if (!isEntryId(id)) return undefined;
      writeHeld();
      if (!copies.has(id)) refresh();
      if (!copies.has(id)) return legacy.read(id);
      for (let attempt = 0; attempt < 2; attempt++) {
        const place = copies.get(id)?.at(-1);
        if (!place || tombs.has(id)) return undefined;
        const line = readLine(dir, place);
        if (line !== undefined) return line;
        // Its segment went (compacted by another process): the copy is in a later one.
        refresh();
      }
      return undefined;
    },

    async remove(ids) {
      writeHeld();
      refresh();
      const old: string[] = [];
      const drops: string[] = [];
      for (const id of ids) {
        if (!isEntryId(id) || tombs.has(id)) continue;
        if (copies.has(id)) drops.push(id);
        else old.push(id);
      }
      // One write for all the tombstones: a prune may drop thousands of entries.
      appendTombstones(writer, drops);
      if (old.length > 0) await legacy.remove(old);
      collectSegments(writer, collectIdleMs);
    },
  };
}
