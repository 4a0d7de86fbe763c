/**
 * Appending to the segment log (see ./segment-log.ts): lines go to this
 * process's own segment, with one write per batch, and their places to the
 * index. A segment is left for a new one once full or idle, or when another
 * process unlinked it under the writer.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fstatFd } from "../storage/local/stat.ts";
import { addEntryLine, addTombstone, forgetSegment, type Place, type SegmentIndex, segmentNameAfter, segmentOf, tombstoneLine } from "./segment-index.ts";
import { randomTail } from "./random-tail.ts";

const encoder = new TextEncoder();

/** This process's segment, open for appends. */
export interface OwnSegment {
  readonly name: string;
  readonly fd: number;
  /** Bytes appended so far. */
  size: number;
  /** Time of the last append. */
  last: number;
}

/** What appending needs: the directory, the index it keeps up to date, its limits, and the segment open now. */
export interface SegmentWriter {
  readonly dir: string;
  readonly index: SegmentIndex;
  readonly segmentBytes: number;
  readonly writerIdleMs: number;
  readonly now: () => number;
  own: OwnSegment | undefined;
}

/** Close this process's segment if it has been idle too long, or (with `after`) is named before segment `after`. */
export function retireOwn(writer: SegmentWriter, after?: string): void {
  const own = writer.own;
  if (own && ((after !== undefined && own.name < after) || writer.now() - own.last >= writer.writerIdleMs)) {
    closeSync(own.fd);
    writer.own = undefined;
  }
}

/** Append entry lines (`lines[k]` is entry `ids[k]`'s) with one write, and note where they went. */
export function appendEntries(writer: SegmentWriter, ids: readonly string[], lines: readonly string[]): void {
  const placed = appendLines(writer, lines);
  ids.forEach((id, k) => {
    addEntryLine(writer.index, id, placed[k]!);
  });
}

/** Append a tombstone of each of `ids` with one write (none for none), and note where they went. */
export function appendTombstones(writer: SegmentWriter, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const placed = appendLines(writer, ids.map(tombstoneLine));
  ids.forEach((id, k) => {
    addTombstone(writer.index, id, placed[k]!.segment);
  });
}

/** Append lines with one write; their places, in order. */
function appendLines(writer: SegmentWriter, lines: readonly string[]): Place[] {
  for (;;) {
    const placed = appendOnce(writer, lines);
    if (placed) return placed;
  }
}

/** Open a new segment for this process, named after every segment known. */
function openOwn(writer: SegmentWriter): OwnSegment {
  mkdirSync(writer.dir, { recursive: true });
  const tail = randomTail();
  const name = segmentNameAfter(writer.index, writer.now(), tail);
  const own = { name, fd: openSync(join(writer.dir, name), "a", 0o644), size: 0, last: writer.now() };
  segmentOf(writer.index, name);
  return own;
}

/** `lines`, each ended by "\n", as one run of bytes; and the bytes of each. */
function encodeLines(lines: readonly string[]): { bytes: Uint8Array; encoded: Uint8Array[] } {
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
  return { bytes, encoded };
}

/**
 * Append a line to this process's segment, or undefined when another
 * process unlinked that segment meanwhile (it held nothing live when it
 * looked): the line may be in the unlinked file only, so it goes again,
 * to a new segment.
 */
function appendOnce(writer: SegmentWriter, lines: readonly string[]): Place[] | undefined {
  retireOwn(writer);
  writer.own ??= openOwn(writer);
  const { bytes, encoded } = encodeLines(lines);
  const at = writer.own;
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(at.fd, bytes, done);
  } catch (error) {
    // A line may be cut: never append after it (the next append starts a new segment, whatever the close says).
    writer.own = undefined;
    try {
      closeSync(at.fd);
    } catch {
      // The write's error is the one to report.
    }
    throw error;
  }
  if (fstatFd(at.fd).nlink === 0) {
    closeSync(at.fd);
    forgetSegment(writer.index, at.name);
    writer.own = undefined;
    return undefined;
  }
  const placed = encoded.map((b) => {
    const place = { segment: at.name, offset: at.size, length: b.length - 1 };
    at.size += b.length;
    return place;
  });
  at.last = writer.now();
  segmentOf(writer.index, at.name).scanned = at.size;
  if (at.size >= writer.segmentBytes) {
    closeSync(at.fd);
    writer.own = undefined;
  }
  return placed;
}
