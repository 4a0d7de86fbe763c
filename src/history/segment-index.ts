/**
 * Where the segment log's entries live (see ./segment-log.ts): which
 * segments hold a line of each entry and which a tombstone of it, and which
 * of a segment's lines are still needed. Pure bookkeeping: the bytes come
 * from the caller, and nothing here touches a file.
 */

/** An entry line starts with its id (the store's JSON puts it first). */
export const ENTRY_LINE = /^\{"id":"(\d{15}-[0-9a-f]{8})"/;
const TOMBSTONE_LINE = /^\{"deleted":"(\d{15}-[0-9a-f]{8})"\}$/;
const LF = 0x0a;
const decoder = new TextDecoder();

export interface Segment {
  /** Bytes scanned (up to the end of the last complete line). */
  scanned: number;
  /** Entries it holds a line of, live or dropped. */
  readonly lines: Set<string>;
  /** Ids it drops. */
  readonly drops: Set<string>;
}

export interface Place {
  readonly segment: string;
  readonly offset: number;
  readonly length: number;
}

/** What one process knows of the segments on disk. */
export interface SegmentIndex {
  readonly segments: Map<string, Segment>;
  /** Where each entry's lines are (one, but for the moment a compaction copies it), live or dropped. */
  readonly copies: Map<string, Place[]>;
  /** The segments with a tombstone of each dropped id. */
  readonly tombs: Map<string, string[]>;
}

/** An index that knows no segment yet. */
export function newSegmentIndex(): SegmentIndex {
  return { segments: new Map(), copies: new Map(), tombs: new Map() };
}

/** The tombstone line that drops entry `id`. */
export function tombstoneLine(id: string): string {
  return JSON.stringify({ deleted: id });
}

/** True when entry `id` has a line somewhere and no tombstone. */
export function isLive(index: SegmentIndex, id: string): boolean {
  return index.copies.has(id) && !index.tombs.has(id);
}

/** Every live entry id, in no particular order. */
export function liveIds(index: SegmentIndex): string[] {
  return [...index.copies.keys()].filter((id) => !index.tombs.has(id));
}

/** Segment `name`, known from now on. */
export function segmentOf(index: SegmentIndex, name: string): Segment {
  let segment = index.segments.get(name);
  if (!segment) index.segments.set(name, (segment = { scanned: 0, lines: new Set(), drops: new Set() }));
  return segment;
}

/** A name for a new segment: the time `time`, but after every segment known, even within one millisecond (a compaction's copies must sort after their source). */
export function segmentNameAfter(index: SegmentIndex, time: number, tail: string): string {
  for (const known of index.segments.keys()) time = Math.max(time, Number(known.slice(0, 15)) + 1);
  return `${String(time).padStart(15, "0")}-${tail}.jsonl`;
}

export function addEntryLine(index: SegmentIndex, id: string, place: Place): void {
  segmentOf(index, place.segment).lines.add(id);
  const list = index.copies.get(id);
  if (list) list.push(place);
  else index.copies.set(id, [place]);
}

export function addTombstone(index: SegmentIndex, id: string, name: string): void {
  segmentOf(index, name).drops.add(id);
  const list = index.tombs.get(id);
  if (!list) index.tombs.set(id, [name]);
  else if (!list.includes(name)) list.push(name);
}

/** Record one line of segment `name`, at `offset`, `length` bytes. */
export function takeLine(index: SegmentIndex, name: string, line: string, offset: number, length: number): void {
  const tomb = TOMBSTONE_LINE.exec(line);
  if (tomb) {
    addTombstone(index, tomb[1]!, name);
    return;
  }
  const id = ENTRY_LINE.exec(line)?.[1];
  // Anything else (a line cut by a crash, then not ended) is no entry.
  if (id === undefined) return;
  addEntryLine(index, id, { segment: name, offset, length });
}

/**
 * Record the complete lines of `bytes`, what segment `name` holds past its
 * scanned bytes; a line not yet ended by "\n" is left for the next scan.
 */
export function takeLines(index: SegmentIndex, name: string, bytes: Uint8Array): void {
  const segment = segmentOf(index, name);
  let start = 0;
  for (let end = bytes.indexOf(LF); end !== -1; end = bytes.indexOf(LF, start)) {
    takeLine(index, name, decoder.decode(bytes.subarray(start, end)), segment.scanned + start, end - start);
    start = end + 1;
  }
  segment.scanned += start;
}

/** Forget segment `name` (unlinked) and every line it held. */
export function forgetSegment(index: SegmentIndex, name: string): void {
  const segment = index.segments.get(name);
  if (!segment) return;
  for (const id of segment.lines) {
    const left = index.copies.get(id)?.filter((p) => p.segment !== name) ?? [];
    if (left.length > 0) index.copies.set(id, left);
    else index.copies.delete(id);
  }
  for (const id of segment.drops) {
    const left = index.tombs.get(id)?.filter((n) => n !== name) ?? [];
    if (left.length > 0) index.tombs.set(id, left);
    else index.tombs.delete(id);
  }
  index.segments.delete(name);
}

/** The lines of segment `name` still needed (see ./segment-log.ts), and their bytes. */
export function neededLines(index: SegmentIndex, name: string): { entries: string[]; drops: string[]; bytes: number } {
  const { segments, copies, tombs } = index;
  const segment = segments.get(name);
  const entries: string[] = [];
  const drops: string[] = [];
  let bytes = 0;
  if (!segment) return { entries, drops, bytes };
  for (const id of segment.lines) {
    if (!isLive(index, id) || copies.get(id)!.some((p) => p.segment > name && segments.has(p.segment))) continue;
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

/** Where segment `name` holds entry `id`'s line. */
export function placeIn(index: SegmentIndex, id: string, name: string): Place {
  return index.copies.get(id)!.find((p) => p.segment === name)!;
}
