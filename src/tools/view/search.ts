/**
 * `view` with `content`: search one file, or every text file under a
 * directory (walked like a listing: .gitignore, hidden, pattern, depth).
 *
 * Output: a bracketed header (what was searched, how, and the totals), then
 * per file its path on a line of its own followed by rows in the view format
 * `N:hh|content`, so every id can be copied into an edit. With `context`,
 * matching rows start with "> " and context rows with two spaces; groups
 * whose context touches are merged, and "--" separates the rest. Bounded:
 * {@link MAX_SHOWN_MATCHES} matching lines in all, {@link PER_FILE_MATCHES}
 * per file in a directory search, and the output byte limit; what is left
 * out is counted and the footer says how to narrow or continue.
 * This module collects a {@link SearchModel}; ./search-render.ts prints it.
 *
 * Files are searched one at a time, in walk order, while the next few are
 * read ahead (see ./read-ahead.ts: at most 16 files and 8 MiB in flight),
 * each reduced as it is read to what the search needs (./search-read.ts).
 * After the shown bound is reached the search keeps counting (to
 * {@link COUNT_CAP} matching lines), then says "at least".
 *
 * Observations. A file whose lines this search showed is recorded as
 * present(version of the bytes searched), like a ranged view: the ids shown
 * come from that version, so an edit naming them is proven by content, and a
 * partial view already counts as an observation under DESIGN.md's policy.
 * Files searched without a line shown are not recorded (the model saw
 * nothing of them), and a missing path is recorded absent like any view.
 *
 * A regex's RE2 work is metered (./search-work.ts): a pattern over the
 * program bound is refused up front, a line too long for one bounded call
 * is left unmatched and named, and a search that spends its budget, or
 * whose call is cancelled, stops at a line and says how to continue; the
 * matching gives the event loop a turn every few milliseconds. Finding
 * where the match starts in a long line shown is metered too, row by row.
 */

import { formatHash, lineHash } from "../../hash/fnv.ts";
import { lineHashBy } from "../../hash/one-line.ts";
import type { LineHasher } from "../../hash/types.ts";
import { fail, ok, type ToolResult } from "../../result.ts";
import type { ReadResult, ReadStreamResult, Storage } from "../../storage/types.ts";
import { decodeText } from "../../text/document.ts";
import { renderLine, utf8Length, wholeCharRange } from "../../text/render.ts";
import { observeLinesSeen, type ShownIds } from "../support/observe.ts";
import { shownPath, toolError } from "../support/remedy.ts";
import type { ToolContext } from "../types.ts";
import { MAX_DEPTH } from "./schema.ts";
import { entryFilter } from "./directory.ts";
import { invalidArgument, notFound, notTextResult } from "./messages.ts";
import { formatSize, plural, viewCall } from "./format.ts";
import { createSearcher, indexLines, lineAt, type LineIndex, normalizeEndings, type Searcher } from "./matcher.ts";
import {
  type AskedSearch,
  refusal,
  type StopPoint,
  stopWording,
  type TooLongLines,
  tooLongNote,
  UNLOCATED_MARK,
  type UnlocatedLines,
  unlocatedNote,
} from "./search-limits.ts";
import { locateMatch, type NotLocated, SearchWork } from "./search-work.ts";
import { parseLineRef } from "../../text/ids.ts";
import { resolveRange } from "./range.ts";
import { searchRead } from "./search-read.ts";
import { streamMatches } from "./stream-search.ts";
import { type Lookahead, readAhead, rewindWalk } from "./read-ahead.ts";
import { walkStats, walkTree } from "./walk.ts";
import { fileHeader, moreNote, renderSearch, type SearchFileGroup, type SearchModel } from "./search-render.ts";

/** Most matching lines one search shows. */
export const MAX_SHOWN_MATCHES = 200;
/** Most matching lines shown per file when searching a directory. */
export const PER_FILE_MATCHES = 50;
/** Matching lines counted before the search stops and says "at least". */
export const COUNT_CAP = 10_000;
/** Most entries a directory search walks. */
export const SEARCH_WALK_ENTRIES = 50_000;
/** Most bytes one search reads in all. */
export const SEARCH_READ_BYTES = 512 * 1024 * 1024;
/** A search over a directory reports progress (when asked) after every this many files. */
const PROGRESS_EVERY_FILES = 25;

/** A file may be this many times `maxFileBytes` and still be searched (search never renders it whole). */
export const SEARCH_SIZE_FACTOR = 4;
const META_RESERVE_BYTES = 2048;

/** Search arguments, as given. */
export interface SearchArgs {
  readonly content: string;
  readonly regex?: boolean;
  readonly case_sensitive?: boolean;
  readonly context?: number;
  readonly start?: string | number;
  readonly end?: string | number;
  readonly pattern?: string;
  readonly depth?: number;
  readonly hidden?: boolean;
  readonly gitignore?: boolean;
}

/** Running totals and output of one search. */
interface Tally {
  /** One group per file shown. */
  readonly files: SearchFileGroup[];
  bytes: number;
  readonly budget: number;
  /** Matching lines found (counted), and how many of them were shown. */
  matched: number;
  shownMatches: number;
  filesMatched: number;
  filesShown: number;
  filesSearched: number;
  notText: number;
  tooLarge: number;
  unreadable: number;
  bytesRead: number;
  /** False when a cap stopped the search before every file was searched. */
  complete: boolean;
  stopReason?: string;
  /** The call that continues or narrows a stopped search. */
  stopNext?: string;
  /** Where matching stopped (work budget spent, call cancelled). */
  stop?: StopPoint;
  /** Lines left unmatched: too long for one bounded RE2 call. */
  readonly tooLong: TooLongLines;
  /** Long matching lines shown from their start: where their match starts was not looked for. */
  readonly unlocated: UnlocatedLines;
}

/** What every search step needs: the compiled search, the caller's context and the running tally. */
interface Run {
  readonly ctx: ToolContext;
  readonly args: SearchArgs;
  readonly searcher: Searcher;
  readonly context: number;
  readonly sizeLimit: number;
  readonly tally: Tally;
  /** The arguments a continuation call repeats (defaults left out). */
  readonly repeat: Readonly<Record<string, unknown>>;
  /** The RE2 work meter (meters nothing for a literal). */
  readonly work: SearchWork;
}

/**
 * Run a search of `path` (normalised; `kind` is what was found there). For
 * a file, `opened` is its stream when the caller already opened one (it is
 * consumed or cancelled here).
 */
export async function search(
  ctx: ToolContext,
  path: string,
  kind: "file" | "directory",
  args: SearchArgs,
  notes: readonly string[] = [],
  opened?: ReadStreamResult,
): Promise<ToolResult> {
  const made = createSearcher({
    content: args.content,
    regex: args.regex ?? false,
    caseSensitive: args.case_sensitive ?? true,
  });
  const context = args.context ?? 0;
  if (!made.ok) {
    await opened?.stream.cancel().catch(() => {});
    // A suggested call searches the same path, with the same other arguments.
    const { context: c, start, end, pattern, depth, hidden, gitignore } = args;
    const keep = { context: c, start, end, pattern, depth, hidden, gitignore };
    return refusal(made, { path, content: args.content, caseSensitive: args.case_sensitive !== false, keep });
  }
  const run: Run = {
    ctx,
    args,
    searcher: made.searcher,
    context,
    sizeLimit: ctx.limits.maxFileBytes * SEARCH_SIZE_FACTOR,
    tally: {
      files: [],
      bytes: 0,
      budget: Math.max(1, ctx.limits.maxOutputBytes - Math.min(META_RESERVE_BYTES, Math.floor(ctx.limits.maxOutputBytes / 4))),
      matched: 0,
      shownMatches: 0,
      filesMatched: 0,
      filesShown: 0,
      filesSearched: 0,
      notText: 0,
      tooLarge: 0,
      unreadable: 0,
      bytesRead: 0,
      complete: true,
      tooLong: { count: 0 },
      unlocated: { count: 0 },
    },
    repeat: {
      content: args.content,
      regex: args.regex || undefined,
      case_sensitive: args.case_sensitive === false ? false : undefined,
      context: context > 0 ? context : undefined,
    },
    work: new SearchWork(made.searcher.programSize, { signal: ctx.signal }),
  };
  return kind === "file" ? searchFile(run, path, notes, opened) : searchDirectory(run, path, notes);
}

/**
 * Search one file, within `start`/`end` when given; failures are the same
 * coded results a view gives. On storage that streams the file is searched
 * as a stream (./stream-search.ts); a negative bound costs a first pass
 * that counts the lines.
 */
async function searchFile(run: Run, path: string, notes: readonly string[], opened?: ReadStreamResult): Promise<ToolResult> {
  if (opened !== undefined) {
    if (opened.size > run.sizeLimit) {
      await opened.stream.cancel().catch(() => {});
      return tooLargeResult(path, opened.size, run.sizeLimit);
    }
    return searchStream(run, path, notes, opened);
  }
  return searchWhole(run, path, notes);
}

/** {@link searchFile} of a file read whole. */
async function searchWhole(run: Run, path: string, notes: readonly string[]): Promise<ToolResult> {
  const { ctx, args, searcher, tally } = run;
  let read: ReadResult;
  try {
    const stat = await ctx.storage.stat(path);
    if (stat === null) return notFound(ctx, path);
    if (stat.kind === "file" && stat.size > run.sizeLimit) return tooLargeResult(path, stat.size, run.sizeLimit);
    read = await ctx.storage.read(path);
  } catch (error) {
    if ((error as { code?: string }).code === "FS_NOT_FOUND") return notFound(ctx, path);
    return toolError(error, path);
  }
  const decoded = decodeText(read.bytes);
  if (!decoded.ok) return notTextResult(path, decoded, false);
  const text = normalizeEndings(decoded.text);
  const index = indexLines(text);
  const range = resolveRange(args.start, args.end, index.count, (n) => lineHash(lineAt(text, index, n - 1)));
  if (!range.ok) return invalidArgument(range.message);
  tally.filesSearched = 1;
  const ranged = range.from > 1 || range.to < index.count;
  const end = ranged && range.to < index.count ? range.to : undefined;
  // A regex matches only the range (a search continued from a line spends nothing before it).
  const from = searcher.programSize > 0 ? range.from - 1 : 0;
  const until = searcher.programSize > 0 ? range.to : index.count;
  const scanned = ranged && searcher.programSize > 0 ? true : searcher.mayMatch(text, run.work);
  const all = scanned ? await matchText(run, path, text, index, from, until) : [];
  const inRange = all.filter((i) => i + 1 >= range.from && i + 1 <= range.to);
  await showFile(run, path, read.version, textLines(text, index), inRange, {
    cap: MAX_SHOWN_MATCHES,
    more: (nextLine) => viewCall(path, { ...run.repeat, start: nextLine, end }),
  });
  const where = ranged ? `${shownPath(path)} lines ${range.from}-${range.to} of ${index.count}` : `${shownPath(path)} (${plural(index.count, "line")})`;
  return ok(renderSearch(model(run, where, [...notes, ...range.notes], [], "file", end)));
}

/**
 * The matching lines of `text` from line `from` up to `end` (0-based,
 * exclusive), metered: a turn for the event loop whenever one is due; lines
 * too long for one call are counted in the tally, and a stop (budget spent,
 * call cancelled) is recorded there with its line.
 */
async function matchText(run: Run, path: string, text: string, index: LineIndex, from: number, end: number): Promise<number[]> {
  const { searcher, work, tally } = run;
  const found: number[] = [];
  let next = from;
  for (;;) {
    const scan = searcher.scanLines(text, index, next, work, end);
    for (const m of scan.matches) found.push(m);
    if (scan.tooLong.length > 0) {
      const k = scan.tooLong[0];
      tally.tooLong.first ??= { path, line: k + 1, chars: lineAt(text, index, k).length };
      tally.tooLong.count += scan.tooLong.length;
    }
    next = scan.next;
    if (next >= end) return found;
    if (work.stopped) {
      stopAt(run, { path, line: next + 1, why: work.exhausted ? "budget" : "cancelled" });
      return found;
    }
    await work.turn();
  }
}

/** Whether the regex matches line `n` (1-based), `content`, within the search's bounds (a line too long for them is noted). */
function lastLineMatches(run: Run, path: string, content: string, n: number): boolean {
  // With its "\n", an empty line is a line too.
  const text = `${content}\n`;
  const scan = run.searcher.scanLines(text, indexLines(text), 0, run.work, 1);
  if (scan.tooLong.length > 0) {
    run.tally.tooLong.first ??= { path, line: n, chars: content.length };
    run.tally.tooLong.count++;
  }
  if (scan.next < 1 && run.work.stopped) stopAt(run, { path, line: n, why: run.work.exhausted ? "budget" : "cancelled" });
  return scan.matches.length > 0;
}

/** Record where matching stopped (the first stop only). */
function stopAt(run: Run, stop: StopPoint): void {
  if (run.tally.stop) return;
  run.tally.stop = stop;
  run.tally.complete = false;
}

/** {@link searchFile} over the file's stream; rare range corners fall back to a whole read. */
async function searchStream(run: Run, path: string, notes: readonly string[], opened: ReadStreamResult): Promise<ToolResult> {
  const { ctx, args, searcher, tally } = run;
  const parsed = resolveRange(args.start, args.end, 0, () => 0);
  const start = args.start === undefined ? undefined : parseLineRef(args.start);
  const end = args.end === undefined ? undefined : parseLineRef(args.end);
  if (!parsed.ok || start?.ok === false || end?.ok === false) {
    // The whole read words the refusal (after a not-text verdict, as it always has).
    await opened.stream.cancel().catch(() => {});
    return searchWhole(run, path, notes);
  }
  const spec = {
    searcher,
    spanLines: args.regex ? 0 : (normalizeEndings(args.content).match(/\n/g)?.length ?? 0),
    context: run.context,
    keep: MAX_SHOWN_MATCHES + 1,
    maxLineBytes: run.sizeLimit,
    work: run.work,
  };
  const refused = (scanned: Awaited<ReturnType<typeof streamMatches>>): ToolResult | undefined => {
    if (scanned === "cancelled") return fail("TIMEOUT", `search of \`${shownPath(path)}\` was cancelled`);
    if (scanned.ok) return undefined;
    return scanned.outcome.kind === "not-text" ? notTextResult(path, scanned.outcome.why, false) : tooLargeResult(path, opened.size, run.sizeLimit);
  };
  let stream = opened;
  let counted: number | undefined;
  if ((start?.line ?? 1) < 0 || (end?.line ?? 1) < 0) {
    // A bound from the end: count the lines first, then search with plain line numbers.
    const first = await streamMatches(ctx, stream, { ...spec, keep: 0, lines: { from: 1, to: 0 } });
    const refusal = refused(first);
    if (refusal || first === "cancelled" || !first.ok) return refusal!;
    counted = first.found.total;
    stream = await ctx.storage.readStream!(path);
  }
  const absolute = (line: number) => (line < 0 ? counted! + 1 + line : line);
  const lo = start ? absolute(start.line) : 1;
  const hi = end ? absolute(end.line) : Number.POSITIVE_INFINITY;
  const named = new Set([start, end].flatMap((b) => (b?.ok && b.hash !== undefined ? [b.line - 1] : [])));
  const scanned = await streamMatches(ctx, stream, { ...spec, lines: { from: Math.max(0, lo - 1), to: hi - 1 }, named });
  const refusal = refused(scanned);
  if (refusal || scanned === "cancelled" || !scanned.ok) return refusal!;
  const { found } = scanned;
  const total = found.total;
  if (counted !== undefined && counted !== total) return searchWhole(run, path, notes); // changed between passes
  const range = resolveRange(args.start, args.end, total, (n) => lineHash(found.named.get(n - 1) ?? ""));
  if (!range.ok) return invalidArgument(range.message);
  let matches = found.matches;
  let count = found.count;
  let content = found.content;
  if (range.from === total && range.to === total && lo > total) {
    // A start past the end shows the last line (a regex matched nothing out of range: test that line).
    matches = (searcher.programSize > 0 ? lastLineMatches(run, path, found.tail.get(total - 1) ?? "", total) : found.lastMatch === total - 1)
      ? [total - 1]
      : [];
    count = matches.length;
    content = found.tail;
  } else if (total > 0 && (range.from !== Math.max(1, lo) || range.to !== Math.min(hi, total))) {
    return searchWhole(run, path, notes);
  }
  tally.filesSearched = 1;
  if (found.stoppedAt !== undefined) stopAt(run, { path, line: found.stoppedAt + 1, why: "budget" });
  if (found.tooLong.first) {
    tally.tooLong.first ??= { path, line: found.tooLong.first.line + 1, chars: found.tooLong.first.chars };
    tally.tooLong.count += found.tooLong.count;
  }
  const ranged = range.from > 1 || range.to < total;
  const until = ranged && range.to < total ? range.to : undefined;
  const lines: FileLines = { count: total, at: (i) => content.get(i) ?? "" };
  await showFile(
    run,
    path,
    found.version,
    lines,
    matches,
    { cap: MAX_SHOWN_MATCHES, more: (nextLine) => viewCall(path, { ...run.repeat, start: nextLine, end: until }) },
    count,
  );
  const where = ranged ? `${shownPath(path)} lines ${range.from}-${range.to} of ${total}` : `${shownPath(path)} (${plural(total, "line")})`;
  return ok(renderSearch(model(run, where, [...notes, ...range.notes], [], "file", until)));
}

/** Search every text file the walk reaches, one at a time, until done or a cap stops it. */
async function searchDirectory(run: Run, path: string, notes: readonly string[]): Promise<ToolResult> {
  try {
    return await searchTree(run, path, notes);
  } finally {
    // What the storage kept for this search's reads (local: directory descriptors) is let go.
    run.ctx.storage.endScan?.();
  }
}

/** {@link searchDirectory}'s walk and reads. */
async function searchTree(run: Run, path: string, notes: readonly string[]): Promise<ToolResult> {
  const { ctx, args, searcher, tally } = run;
  const filter = args.pattern !== undefined ? entryFilter(args.pattern, path) : undefined;
  if (filter && !filter.ok) return invalidArgument(filter.message);
  const stats = walkStats();
  const walk = walkTree(
    ctx.storage,
    path,
    {
      depth: args.depth ?? MAX_DEPTH,
      hidden: args.hidden ?? false,
      gitignore: args.gitignore ?? true,
      maxVisited: SEARCH_WALK_ENTRIES,
      signal: ctx.signal,
      // Storage that scans files learns each size when it opens the file: the walk need not look.
      sizes: ctx.storage.scanFile === undefined,
    },
    stats,
  );
  const stop = (reason: string) => {
    tally.complete = false;
    tally.stopReason = reason;
  };
  const files = readAhead(
    walk,
    stats,
    (entry) => entry.kind === "file" && !entry.unaddressable && (!filter || filter.test(entry.path)),
    (entry) => entry.size <= run.sizeLimit,
    // A large file matched in its bytes keeps the lines the most this file can show (PER_FILE_MATCHES).
    (entry) => searchRead(ctx.storage, entry.path, entry.size, searcher, run.sizeLimit, { context: run.context, matches: PER_FILE_MATCHES + 1 }, run.work),
    scanAhead(ctx.storage),
  );
  for await (const { entry, mark, read: reading } of files) {
    const stopHere = (reason: string) => {
      // The walk ran ahead of this file: report its counts as they were when the file was reached.
      rewindWalk(stats, mark);
      stop(reason);
    };
    if (tally.matched >= COUNT_CAP) {
      stopHere(`stopped counting at ${COUNT_CAP} matching lines`);
      break;
    }
    if (tally.bytesRead >= SEARCH_READ_BYTES) {
      stopHere(`stopped after reading ${formatSize(SEARCH_READ_BYTES)}`);
      break;
    }
    if (ctx.signal?.aborted) {
      stopHere("stopped: the call was cancelled");
      break;
    }
    if (reading === undefined) {
      tally.tooLarge++;
      continue;
    }
    const read = await reading;
    if ("failed" in read) {
      if ((read.failed as { code?: string }).code === "FS_TOO_LARGE") tally.tooLarge++;
      else tally.unreadable++;
      continue;
    }
    // A binary is judged from its first bytes and costs nothing of the read budget: that is for text searched.
    if (read.kind === "binary") {
      tally.notText++;
      continue;
    }
    tally.bytesRead += read.size;
    if (read.kind === "too-large") tally.tooLarge++;
    else if (read.kind === "not-text") tally.notText++;
    else tally.filesSearched++;
    if (read.kind === "lines") {
      const { kept } = read;
      const lines: FileLines = {
        count: read.count,
        at: (i) => {
          const line = kept.get(i);
          // Only the lines a file can show were decoded: asking for another is a bug, never a blank row.
          if (line === undefined) throw new Error(`internal: line ${i + 1} of ${entry.path} was not kept`);
          return line;
        },
      };
      await showFile(run, entry.path, await read.version, lines, read.matches, {
        cap: PER_FILE_MATCHES,
        more: (nextLine) => viewCall(entry.path, { ...run.repeat, start: nextLine }),
      });
    }
    if (read.kind === "text") {
      const { text } = read;
      const index = indexLines(text);
      const matches = await matchText(run, entry.path, text, index, 0, index.count);
      await showFile(run, entry.path, await read.version, textLines(text, index), matches, {
        cap: PER_FILE_MATCHES,
        more: (nextLine) => viewCall(entry.path, { ...run.repeat, start: nextLine }),
      });
      if (tally.stop) {
        // The walk ran ahead of this file: report its counts as they were when the file was reached.
        rewindWalk(stats, mark);
        break;
      }
    }
    if (ctx.progress && tally.filesSearched % PROGRESS_EVERY_FILES === 0) {
      ctx.progress(tally.filesSearched, `${tally.filesSearched} files searched, ${tally.matched} matching lines so far`);
    }
  }
  if (!stats.complete && tally.complete) stop(`the walk stopped after ${SEARCH_WALK_ENTRIES} entries`);
  const skipped: string[] = [];
  if (stats.hidden > 0) skipped.push(`${stats.hidden} hidden (add "hidden": true)`);
  if (stats.ignored > 0) skipped.push(`${stats.ignored} gitignored (add "gitignore": false)`);
  for (const dir of stats.unexpanded.slice(0, 3)) skipped.push(`${dir}/ (search it by naming it as "path", or add "gitignore": false)`);
  if (stats.unexpanded.length > 3) skipped.push(`${stats.unexpanded.length - 3} more such directories`);
  for (const dir of stats.unreadable.slice(0, 3)) skipped.push(`${dir}/ (unreadable: permission denied)`);
  if (stats.unreadable.length > 3) skipped.push(`${stats.unreadable.length - 3} more unreadable directories`);
  return ok(renderSearch(model(run, path === "" ? "./" : `${path}/`, notes, skipped, "directory")));
}

/** Files announced ahead of their scans, for storage that reads ahead on its own. */
const SCAN_AHEAD_FILES = 256;

function scanAhead(storage: Storage): Lookahead | undefined {
  if (!storage.scanAhead) return undefined;
  return { files: SCAN_AHEAD_FILES, announce: (entries) => storage.scanAhead!(entries.map((entry) => entry.path)) };
}

/** The lines of a file as a search shows them: how many, and the content of line i (0-based). */
interface FileLines {
  readonly count: number;
  at(i: number): string;
}

/** The lines of a whole indexed text. */
function textLines(text: string, index: LineIndex): FileLines {
  return { count: index.count, at: (i) => lineAt(text, index, i) };
}

interface ShowOptions {
  /** Most matching lines to show from this file. */
  readonly cap: number;
  /** The call that shows this file's matches from 1-based line `nextLine` on. */
  readonly more: (nextLine: number) => string;
}

/**
 * Count one file's matching lines and show as many as the bounds allow:
 * matches in order, each with its context window; a window that touches the
 * previous one continues it, any other starts after a "--". A match that
 * falls inside a shown window is shown (and marked) with it.
 */
async function showFile(
  run: Run,
  path: string,
  version: string,
  lines: FileLines,
  matches: readonly number[],
  options: ShowOptions,
  matchCount = matches.length,
): Promise<void> {
  const { ctx, tally, context, searcher } = run;
  if (matchCount === 0) return;
  tally.matched += matchCount;
  tally.filesMatched++;
  const room = Math.min(options.cap, MAX_SHOWN_MATCHES - tally.shownMatches);
  if (room <= 0) return;

  const maxChars = ctx.limits.maxLineChars;
  const marker = context > 0;
  const header = fileHeader(path, matchCount);
  // The blank line before a file's group is counted with it.
  let bytes = utf8Length(header) + (tally.files.length > 0 ? 2 : 1);
  if (tally.bytes + bytes > tally.budget) return;
  const rows: string[] = [];
  let shown = 0;
  let lastRow = -1;
  let next = 0; // index into `matches` of the first match not yet shown
  const spans: [number, number][] = []; // 1-based lines shown, for the observation
  const ids: ShownIds[] = []; // their hashes: the session holds these ids now
  while (next < matches.length && shown < room) {
    const line = matches[next];
    const from = Math.max(0, line - context, lastRow + 1);
    let to = Math.min(lines.count - 1, line + context);
    const group: string[] = lastRow >= 0 && from > lastRow + 1 ? ["--"] : [];
    // Long matching rows of this group shown from their start (counted once the group is shown).
    const unlocated: { line: number; why: NotLocated }[] = [];
    const groupIds: number[] = [];
    let k = next;
    for (let i = from; i <= to; i++) {
      const match = k < matches.length && matches[k] === i;
      if (match) {
        k++;
        // A match inside the window brings its own context, until the cap stops the window growing.
        if (shown + (k - next) < room) to = Math.max(to, Math.min(lines.count - 1, i + context));
      }
      const content = lines.at(i);
      // A long row is shown around its match. A regex looks only in matching rows: any other
      // did not match (or was not matched), so a call there would spend and find nothing.
      const at = content.length > maxChars && (match || !run.work.metered) ? await locateMatch(searcher, content, run.work) : -1;
      if (typeof at !== "number") unlocated.push({ line: i + 1, why: at });
      group.push(renderRow(i + 1, content, match, marker, at, { maxChars, hasher: ctx.hasher }, groupIds));
    }
    let groupBytes = 0;
    for (const row of group) groupBytes += utf8Length(row) + 1;
    if (tally.bytes + bytes + groupBytes > tally.budget) break;
    for (const row of unlocated) noteUnlocated(tally.unlocated, row.why, path, row.line);
    rows.push(...group);
    spans.push([from + 1, to + 1]);
    ids.push({ first: from + 1, hashes: groupIds });
    bytes += groupBytes;
    shown += k - next;
    next = k;
    lastRow = to;
  }
  if (shown === 0) return;
  let more: SearchFileGroup["more"];
  if (next < matchCount) {
    more = { left: matchCount - shown, call: options.more(matches[next] + 1) };
    bytes += utf8Length(moreNote(more.left, more.call)) + 1;
  }
  tally.files.push({ path, matchCount, rows, more });
  tally.bytes += bytes;
  tally.shownMatches += shown;
  tally.filesShown++;
  // Search hits show some lines of this version, never license to replace the whole file.
  await observeLinesSeen(ctx, path, version, spans, lines.count, ids);
}

/** Count a long matching row shown from its start, and why (the first such row is named). */
function noteUnlocated(lines: UnlocatedLines, why: NotLocated, path: string, line: number): void {
  lines.count++;
  lines.first ??= { path, line, why };
}

/**
 * One row: `N:hh|content`, marked when context is on; a long line is shown
 * around its match when `at` (where the match starts) says where, and from
 * its start, marked, when its match was not looked for.
 */
function renderRow(
  n: number,
  content: string,
  match: boolean,
  marker: boolean,
  at: number | NotLocated,
  { maxChars, hasher }: { readonly maxChars: number; readonly hasher: LineHasher },
  ids: number[],
): string {
  const h8 = lineHashBy(hasher, content);
  ids.push(h8);
  let row: string;
  const col = typeof at === "number" ? at : -1;
  if (col > maxChars / 2) {
    const start = Math.max(0, Math.min(col - Math.floor(maxChars / 4), content.length - maxChars));
    // Never half a character at either end of what is shown.
    const [from, to] = wholeCharRange(content, start, Math.min(content.length, start + maxChars));
    row = `${n}:${formatHash(h8)}|…${content.slice(from, to)}${to < content.length ? "…" : ""} [line shortened: characters ${from + 1}-${to} of ${content.length} shown]`;
  } else {
    row = renderLine(n, h8, content, maxChars);
    if (typeof at !== "number") row += ` ${UNLOCATED_MARK}`;
  }
  if (!marker) return row;
  return match ? `> ${row}` : `  ${row}`;
}

/** The search's findings as the model ./search-render.ts prints; `end` is a file search's last line when it was given one. */
function model(run: Run, where: string, notes: readonly string[], notSearched: readonly string[], kind: "file" | "directory", end?: number): SearchModel {
  const { args, searcher, tally, context } = run;
  // Suggested calls name the file they are about (the stop's, the long line's).
  const asking = asked("", args, context);
  const longNote = tooLongNote(tally.tooLong, run.work, asking);
  const unlocated = unlocatedNote(tally.unlocated, run.work, asking);
  if (tally.stop) {
    const worded = stopWording(tally.stop, run.work, asking, kind, end);
    tally.stopReason = worded.reason;
    tally.stopNext = worded.next;
  }
  return {
    kind,
    content: args.content,
    regex: args.regex ?? false,
    caseSensitive: args.case_sensitive !== false,
    label: searcher.label,
    context,
    pattern: args.pattern,
    where,
    notes: unlocated ? [...notes, unlocated] : notes,
    notSearched: longNote ? [...notSearched, longNote] : notSearched,
    matched: tally.matched,
    shownMatches: tally.shownMatches,
    filesMatched: tally.filesMatched,
    filesShown: tally.filesShown,
    filesSearched: tally.filesSearched,
    notText: tally.notText,
    tooLarge: tally.tooLarge,
    unreadable: tally.unreadable,
    complete: tally.complete,
    stopReason: tally.stopReason,
    stopNext: tally.stopNext,
    files: tally.files,
  };
}

/** The search as suggested calls repeat it: `content`, its case, and `context` (a suggested call names a file). */
function asked(path: string, args: SearchArgs, context: number): AskedSearch {
  return { path, content: args.content, caseSensitive: args.case_sensitive !== false, keep: { context: context > 0 ? context : undefined } };
}

function tooLargeResult(path: string, size: number, limit: number): ToolResult {
  return fail(
    "FS_TOO_LARGE",
    `\`${shownPath(path)}\` is ${formatSize(size)}, over the ${formatSize(limit)} limit for searching a file. ` +
      `Ask the server operator to raise the file size limit, or work with a smaller file.`,
  );
}
