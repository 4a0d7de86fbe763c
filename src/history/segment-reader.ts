/**
 * Reading the segment log's files (see ./segment-log.ts): the lines each
 * segment gained since it was last scanned, into the index, and one line
 * back by its place, with one positioned read.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { forgetSegment, type Place, type SegmentIndex, segmentOf, takeLines } from "./segment-index.ts";
import { nodeErrorCode as codeOf } from "../storage/local/node-errors.ts";

const SEGMENT_NAME = /^\d{15}-[0-9a-f]{8}\.jsonl$/;
const decoder = new TextDecoder();

/** Read what segment `name` of directory `dir` gained since its last scan. */
export function scanSegment(dir: string, index: SegmentIndex, name: string): void {
  const segment = segmentOf(index, name);
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
    takeLines(index, name, bytes.subarray(0, filled));
  } finally {
    closeSync(fd);
  }
}

/** Scan every segment there is now but `own` (this process's, known already); forget those another process unlinked. */
export function refreshIndex(dir: string, index: SegmentIndex, own: string | undefined): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => SEGMENT_NAME.test(n));
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error;
    names = [];
  }
  const present = new Set(names);
  for (const name of [...index.segments.keys()]) if (!present.has(name) && name !== own) forgetSegment(index, name);
  for (const name of names.sort()) if (name !== own) scanSegment(dir, index, name);
}

/** The text of the line at `place` in directory `dir`, or undefined when its segment is gone. */
export function readLine(dir: string, place: Place): string | undefined {
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
