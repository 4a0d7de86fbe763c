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
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fstatFd } from "../storage/local/stat.ts";
import { type EntryLog, isEntryId } from "./entry-log.ts";

/** A segment is closed for appends past this size. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;
/**
 * A closed segment is compacted once what it still needs is at most 1/COMPACT_WHEN of it. At 1/2, a
 * flood of logged calls (dropped oldest first) copied the live half of the boundary segment forward at
 * every prune, entries that the next prune dropped anyway: megabytes of copying per prune.
 */
const COMPACT_WHEN = 8;
/** Bytes of lines a compaction copies per append. */
const COPY_BATCH_BYTES = 256 * 1024;
const SEGMENT_NAME = /^\d{15}-[0-9a-f]{8}\.jsonl$/;
/** An entry line starts with its id (the store's JSON puts it first). */
const ENTRY_LINE = /^\{"id":"(\d{15}-[0-9a-f]{8})"/;
const TOMBSTONE_LINE = /^\{"deleted":"(\d{15}-[0-9a-f]{8})"\}$/;
const LF = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Segment {
  /** Bytes scanned (up to the end of the last complete line). */
  scanned: number;
  /** Entries it holds a line of, live or dropped. */
  readonly lines: Set<string>;
  /** Ids it drops. */
  readonly drops: Set<string>;
}

interface Place {
  readonly segment: string;
  readonly offset: number;
  readonly length: number;
}

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

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/** The segment log in directory `dir` (made on the first append), over the old layout's `legacy` log. */
export function segmentEntryLog(dir: string, legacy: EntryLog, options: SegmentLogOptions = {}): EntryLog {
  const segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
  const writerIdleMs = options.writerIdleMs ?? WRITER_IDLE_MS;
  const collectIdleMs = Math.max(options.collectIdleMs ?? COLLECT_IDLE_MS, writerIdleMs);
  const now = options.now ?? Date.now;
  const segments = new Map<string, Segment>();
  /** Where each entry's lines are (one, but for the moment a compaction copies it), live or dropped. */
  const copies = new Map<string, Place[]>();
  /** The segments with a tombstone of each dropped id. */
  const tombs = new Map<string, string[]>();
  const isLive = (id: string) => copies.has(id) && !tombs.has(id);
  let own: { name: string; fd: number; size: number; last: number } | undefined;
  // While corked (see EntryLog.cork), added entries wait here for one write.
  let corked = 0;
  let held: { id: string; json: string }[] = [];

  const segmentOf = (name: string): Segment => {
    let segment = segments.get(name);
    if (!segment) segments.set(name, (segment = { scanned: 0, lines: new Set(), drops: new Set() }));
    return segment;
  };

  function addEntryLine(id: string, place: Place): void {
    segmentOf(place.segment).lines.add(id);
    const list = copies.get(id);
    if (list) list.push(place);
    else copies.set(id, [place]);
  }

  function addTombstone(id: string, name: string): void {
    segmentOf(name).drops.add(id);
    const list = tombs.get(id);
    if (!list) tombs.set(id, [name]);
    else if (!list.includes(name)) list.push(name);
  }

  function take(name: string, line: string, offset: number, length: number): void {
    const tomb = TOMBSTONE_LINE.exec(line);
    if (tomb) {
      addTombstone(tomb[1]!, name);
      return;
    }
    const id = ENTRY_LINE.exec(line)?.[1];
    // Anything else (a line cut by a crash, then not ended) is no entry.
    if (id === undefined) return;
    addEntryLine(id, { segment: name, offset, length });
  }

  /** Read what `name` gained since its last scan. */
  function scan(name: string): void {
    const segment = segmentOf(name);
    let fd: number;
    try {
      fd = openSync(join(dir, name), "r");
    } catch (error) {
      if (codeOf(error) === "ENOENT") return;
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= segment.scanned) return;
      const bytes = new Uint8Array(size - segment.scanned);
      let filled = 0;
      while (filled < bytes.length) {
        const n = readSync(fd, bytes, filled, bytes.length - filled, segment.scanned + filled);
        if (n === 0) break;
        filled += n;
      }
      let start = 0;
      for (let end = bytes.indexOf(LF); end !== -1 && end < filled; end = bytes.indexOf(LF, start)) {
        take(name, decoder.decode(bytes.subarray(start, end)), segment.scanned + start, end - start);
        start = end + 1;
      }
      segment.scanned += start;
    } finally {
      closeSync(fd);
    }
  }

  /** Scan every segment there is now; forget those another process unlinked. */
  function refresh(): void {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => SEGMENT_NAME.test(n));
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error;
      names = [];
    }
    const present = new Set(names);
    for (const name of [...segments.keys()]) if (!present.has(name) && name !== own?.name) forget(name);
    for (const name of names.sort()) if (name !== own?.name) scan(name);
  }

  function forget(name: string): void {
    const segment = segments.get(name);
    if (!segment) return;
    for (const id of segment.lines) {
      const left = copies.get(id)?.filter((p) => p.segment !== name) ?? [];
      if (left.length > 0) copies.set(id, left);
      else copies.delete(id);
    }
    for (const id of segment.drops) {
      const left = tombs.get(id)?.filter((n) => n !== name) ?? [];
      if (left.length > 0) tombs.set(id, left);
      else tombs.delete(id);
    }
    segments.delete(name);
  }

  /** Append lines with one write; their places, in order. */
  function appendLines(lines: readonly string[]): Place[] {
    for (;;) {
      const placed = appendOnce(lines);
      if (placed) return placed;
    }
  }

  /**
   * Append a line to this process's segment, or undefined when another
   * process unlinked that segment meanwhile (it held nothing live when it
   * looked): the line may be in the unlinked file only, so it goes again,
   * to a new segment.
   */
  function appendOnce(lines: readonly string[]): Place[] | undefined {
    if (own && now() - own.last >= writerIdleMs) {
      closeSync(own.fd);
      own = undefined;
    }
    if (!own) {
      mkdirSync(dir, { recursive: true });
      const tail = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
      // After every segment known, even within one millisecond: a compaction's copies must sort after their source.
      let time = now();
      for (const known of segments.keys()) time = Math.max(time, Number(known.slice(0, 15)) + 1);
      const name = `${String(time).padStart(15, "0")}-${tail}.jsonl`;
      own = { name, fd: openSync(join(dir, name), "a", 0o644), size: 0, last: now() };
      segmentOf(name);
    }
    const encoded = lines.map((line) => encoder.encode(`${line}\n`));
    let bytes = encoded[0]!;
    if (encoded.length > 1) {
      bytes = new Uint8Array(encoded.reduce((n, b) => n + b.length, 0));
      let offset = 0;
      for (const b of encoded) {
        bytes.set(b, offset);
        offset += b.length;
      }
    }
    const at = own;
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(at.fd, bytes, done);
    } catch (error) {
      // A line may be cut: never append after it (the next append starts a new segment, whatever the close says).
      own = undefined;
      try {
        closeSync(at.fd);
      } catch {
        // The write's error is the one to report.
      }
      throw error;
    }
    if (fstatFd(at.fd).nlink === 0) {
      closeSync(at.fd);
      forget(at.name);
      own = undefined;
      return undefined;
    }
    const placed = encoded.map((b) => {
      const place = { segment: at.name, offset: at.size, length: b.length - 1 };
      at.size += b.length;
      return place;
    });
    at.last = now();
    segmentOf(at.name).scanned = at.size;
    if (at.size >= segmentBytes) {
      closeSync(at.fd);
      own = undefined;
    }
    return placed;
  }

  function placeEntries(ids: readonly string[], placed: readonly Place[]): void {
    ids.forEach((id, k) => {
      addEntryLine(id, placed[k]!);
    });
  }

  /** The text of the line at `place`, or undefined when its segment is gone. */
  function readLine(place: Place): string | undefined {
    let fd: number;
    try {
      fd = openSync(join(dir, place.segment), "r");
    } catch (error) {
      if (codeOf(error) === "ENOENT") return undefined;
      throw error;
    }
    try {
      const bytes = new Uint8Array(place.length);
      let filled = 0;
      while (filled < bytes.length) {
        const n = readSync(fd, bytes, filled, bytes.length - filled, place.offset + filled);
        if (n === 0) return undefined;
        filled += n;
      }
      return decoder.decode(bytes);
    } finally {
      closeSync(fd);
    }
  }

  /** Write the entries added while corked, in one append; before anything reads or drops. */
  function writeHeld(): void {
    if (held.length === 0) return;
    const lines = held;
    held = [];
    placeEntries(
      lines.map((l) => l.id),
      appendLines(lines.map((l) => l.json)),
    );
  }

  /** Unlink every segment (not the one being appended to) that holds nothing needed any more; compact the sparse ones. */
  function collect(): void {
    // Unlinking one segment may free another whose tombstones hid entries in it: go round until none goes.
    while (collectOnce());
  }

  /** The lines of segment `name` still needed (see the module comment), and their bytes. */
  function neededLines(name: string, segment: Segment): { entries: string[]; drops: string[]; bytes: number } {
    const entries: string[] = [];
    const drops: string[] = [];
    let bytes = 0;
    for (const id of segment.lines) {
      if (!isLive(id) || copies.get(id)!.some((p) => p.segment > name && segments.has(p.segment))) continue;
      entries.push(id);
      bytes += copies.get(id)!.find((p) => p.segment === name)!.length + 1;
    }
    for (const id of segment.drops) {
      if (!copies.get(id)?.some((p) => p.segment !== name && segments.has(p.segment))) continue;
      if (tombs.get(id)!.some((n) => n > name && segments.has(n))) continue;
      drops.push(id);
      bytes += id.length + 15;
    }
    return { entries, drops, bytes };
  }

  /** Copy segment `name`'s needed lines to this process's segment (a new one unless it is named later). */
  function compact(name: string, needed: { entries: string[]; drops: string[] }): boolean {
    if (own && (own.name < name || now() - own.last >= writerIdleMs)) {
      closeSync(own.fd);
      own = undefined;
    }
    // In batches of about COPY_BATCH_BYTES: half a segment read, joined and encoded at once was ~12 MiB of
    // garbage per compaction, which a flood of logged calls turned into tens of MiB of RSS.
    let lines: string[] = [];
    let ids: string[] = [];
    let bytes = 0;
    const flush = () => {
      const placed = appendLines(lines);
      ids.forEach((id, k) => {
        addEntryLine(id, placed[k]!);
      });
      lines = [];
      ids = [];
      bytes = 0;
    };
    for (const id of needed.entries) {
      const line = readLine(copies.get(id)!.find((p) => p.segment === name)!);
      // Unlinked meanwhile (another process compacted it): the next refresh finds where its lines went.
      if (line === undefined) return false;
      lines.push(line);
      ids.push(id);
      bytes += line.length;
      if (bytes >= COPY_BATCH_BYTES) flush();
    }
    if (lines.length > 0) flush();
    if (needed.drops.length > 0) {
      const placed = appendLines(needed.drops.map((id) => JSON.stringify({ deleted: id })));
      needed.drops.forEach((id, k) => {
        addTombstone(id, placed[k]!.segment);
      });
    }
    return true;
  }

  function collectOnce(): boolean {
    let unlinked = false;
    for (const name of [...segments.keys()].sort()) {
      const segment = segments.get(name);
      if (!segment || name === own?.name) continue;
      try {
        // Appended to lately: its writer may append again (writers move on after WRITER_IDLE_MS), unless it is
        // full (its writer closed it for good after the append that filled it) and every line of it was read.
        const stat = statSync(join(dir, name));
        const full = stat.size >= segmentBytes && segment.scanned === stat.size;
        if (!full && stat.mtimeMs > now() - collectIdleMs) continue;
        const needed = neededLines(name, segment);
        if (needed.bytes > 0 && (needed.bytes * COMPACT_WHEN > stat.size || !compact(name, needed))) continue;
        unlinkSync(join(dir, name));
      } catch (error) {
        if (codeOf(error) !== "ENOENT") throw error;
      }
      forget(name);
      unlinked = true;
    }
    return unlinked;
  }

  return {
    async add(id, json) {
      if (!isEntryId(id) || json.includes("\n") || ENTRY_LINE.exec(json)?.[1] !== id) {
        throw new Error(`internal: an audit entry must be one line of JSON starting with its id (${id})`);
      }
      if (corked > 0) held.push({ id, json });
      else placeEntries([id], appendLines([json]));
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
      const fromSegments = [...copies.keys()].filter((id) => !tombs.has(id));
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
        const line = readLine(place);
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
      const placed = drops.length > 0 ? appendLines(drops.map((id) => JSON.stringify({ deleted: id }))) : [];
      drops.forEach((id, k) => {
        addTombstone(id, placed[k]!.segment);
      });
      if (old.length > 0) await legacy.remove(old);
      collect();
    },
  };
}
