/**
 * `view` of a file read as a stream (storage with `readStream`): the rows a
 * view shows, the line count and the line-ending facts, computed chunk by
 * chunk so that memory holds one chunk, the longest line and the rows shown,
 * never the whole file. Viewing the last 100 lines of a 500 MB file reads it
 * once and keeps a ring of 100 lines.
 *
 * The result is exactly what the whole-document path gives (same ids, rows,
 * notes, cuts): which lines to keep is planned from `start`/`end` before
 * reading, and the range is then resolved against the real line count with
 * the same `resolveRange`.
 *
 * - start >= 1 (or none), end >= 1 (or none): rows are rendered as their
 *   lines stream past (a whole-file view never holds its lines).
 * - start = -N: a ring of the last N lines; N over the line cap means two
 *   passes (count, then render from the line the count gives).
 * - start >= 1, end = -M: the lines from `start` up to the line cap are kept
 *   until the count says where the range ends.
 * The file's last line is always kept: a start past the end shows it.
 */

import { fail, type ToolResult } from "../../result.ts";
import type { ReadStreamResult, Version } from "../../storage/types.ts";
import { parseLineRef } from "../../text/ids.ts";
import { type RenderedLines, renderLines, renderRows } from "../../text/render.ts";
import type { LineEndingCounts } from "../../text/document.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolContext, ToolLimits } from "../types.ts";
import { invalidArgument, notTextResult } from "./messages.ts";
import { formatSize } from "./format.ts";
import { keepBytesFor, keptSource, LastLines, LineRange } from "./kept-lines.ts";
import { type LineBatch, LineScanner } from "./line-scan.ts";
import { resolveRange, type ResolvedRange } from "./range.ts";
import { sinceView } from "./since-view.ts";

/** Room kept for the header, notes and footer inside the output byte limit. */
const META_RESERVE_BYTES = 1024;

/** Most lines one view shows. */
export function lineCapOf(limits: ToolLimits): number {
  return Math.max(1, limits.maxViewLines);
}

/** Bytes the rows of one view may take (the output limit less room for the meta lines). */
export function rowBudgetOf(limits: ToolLimits): number {
  const reserve = Math.min(META_RESERVE_BYTES, Math.floor(limits.maxOutputBytes / 4));
  return Math.max(1, limits.maxOutputBytes - reserve);
}

/** What a file view shows, before it is worded. */
export interface FileRows {
  readonly total: number;
  readonly endings: LineEndingCounts;
  readonly bom: boolean;
  readonly range: Extract<ResolvedRange, { ok: true }>;
  /** Rows of `range.from..min(range.to, from + cap - 1)`; unused when `total` is 0. */
  readonly rendered: RenderedLines;
  readonly version: Version;
}

/**
 * The rows of a streamed view, or the result that says why there are none,
 * with the version of the bytes read when the session has seen the file all
 * the same (a range that does not fit it, a file that is not text), as the
 * whole-document path records it.
 */
export type StreamedView = { readonly ok: true; readonly rows: FileRows } | { readonly ok: false; readonly result: ToolResult; readonly version?: Version };

type Bounds = { readonly start?: string | number; readonly end?: string | number };

/**
 * Lines rendered into one piece of a streamed view's text (about 30 KB of
 * source code). Measured on the 9.9 MB bench file (Bun, page faults per
 * whole-file view): 128 lines took ~3x the faults and time of 512; 2048,
 * 4096 or a whole chunk per piece were within the noise of 512.
 */
const PIECE_LINES = 512;

/** Rows rendered while their lines stream past, under one budget shared by every batch. */
class LiveRows {
  private text = "";
  private bytes = 0;
  private next: number;
  private truncated = 0;
  private stopped = false;
  private readonly ids: Uint8Array[] = [];

  constructor(
    readonly from: number,
    private readonly to: number,
    private readonly maxLineChars: number,
    private readonly budget: number,
  ) {
    this.next = from;
  }

  add(batch: LineBatch): void {
    const last = Math.min(this.to, batch.firstLine + batch.hashes.length - 1);
    if (this.next < batch.firstLine) return;
    // Small pieces: a piece of pure ASCII stays a one-byte string, and small strings are recycled memory.
    while (!this.stopped && this.next <= last) this.piece(batch, Math.min(last, this.next + PIECE_LINES - 1));
  }

  private piece(batch: LineBatch, hi: number): void {
    const first = this.next === this.from;
    const r = renderRows(batch, this.next, hi, {
      maxLineChars: this.maxLineChars,
      // Later rows join the text with a "\n" that the budget must count.
      maxOutputBytes: first ? this.budget : this.budget - this.bytes - 1,
      firstLineAlways: first,
    });
    if (r.to >= this.next) {
      // Concatenation, not join: runtimes keep the pieces as a rope instead of copying megabytes.
      this.text = first ? r.text : `${this.text}\n${r.text}`;
      this.bytes += first ? r.bytes : r.bytes + 1;
      this.truncated += r.truncatedLines;
      this.next = r.to + 1;
      if (r.hashes) this.ids.push(r.hashes);
    }
    if (!r.complete) this.stopped = true;
  }

  rendered(): RenderedLines {
    const hashes = new Uint8Array(this.ids.reduce((n, h) => n + h.length, 0));
    let at = 0;
    for (const h of this.ids) {
      hashes.set(h, at);
      at += h.length;
    }
    return { text: this.text, from: this.from, to: this.next - 1, truncatedLines: this.truncated, complete: !this.stopped, hashes };
  }
}

/** How a pass keeps lines, from the bounds alone (see the module comment). */
type Plan =
  | { readonly kind: "live"; readonly from: number; readonly to: number }
  | { readonly kind: "last"; readonly count: number }
  | { readonly kind: "range"; readonly from: number }
  | { readonly kind: "count" };

function planFor(bounds: Bounds, cap: number, total?: number): Plan {
  const start = bounds.start === undefined ? undefined : parseLineRef(bounds.start);
  const end = bounds.end === undefined ? undefined : parseLineRef(bounds.end);
  // resolveRange has already refused what does not parse.
  let s = start?.ok ? start.line : 1;
  const e = end?.ok ? end.line : undefined;
  if (s < 0) {
    // With the line count known (second of two passes), the start is a plain line number.
    if (total !== undefined) s = Math.max(1, total + 1 + s);
    else return -s > cap ? { kind: "count" } : { kind: "last", count: -s };
  }
  if (e !== undefined && e < 0) return { kind: "range", from: s };
  return { kind: "live", from: s, to: Math.min(e ?? Number.POSITIVE_INFINITY, s + cap - 1) };
}

/** The first line a plan's rows start at, when it knows it before reading. */
function plannedFrom(plan: Plan): number | undefined {
  return plan.kind === "live" || plan.kind === "range" ? plan.from : undefined;
}

/**
 * Bytes read into one reused buffer when the stream is a byte stream. A
 * 1 MiB buffer read the file alone faster (fewer stream round trips) but
 * made a whole-file view of 9.9 MB ~1.9x slower on Bun, with 6.8k page
 * faults per view instead of 2.6k.
 */
const READ_BUFFER_BYTES = 256 * 1024;
/** Read buffers kept for the next view (each one is 256 KiB). */
const POOLED_BUFFERS = 4;
const bufferPool: ArrayBuffer[] = [];

/** Reads chunks that are valid until the next read: the scanner copies what it keeps. */
interface ChunkReader {
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
  /** Give the read buffer back for reuse. */
  release(): void;
}

/**
 * A reader that brings its own buffer when the stream is a byte stream, so
 * a view of 10 MB reuses one 256 KiB buffer instead of taking 40 fresh ones
 * (fresh memory is page faults, which on a small VM cost more than the
 * scan); any other stream is read chunk by chunk as it comes.
 */
function chunkReader(stream: ReadableStream<Uint8Array>, size: number): ChunkReader {
  let byob: ReadableStreamBYOBReader | undefined;
  // A file of one buffer or less gains nothing from a buffer of our own, and asking a stream that is
  // not a byte stream for a BYOB reader throws: on Deno that error (its stack trace) was a fifth of
  // a small view's CPU.
  if (size > READ_BUFFER_BYTES) {
    try {
      byob = stream.getReader({ mode: "byob" });
    } catch {
      byob = undefined;
    }
  }
  if (byob === undefined) {
    const plain = stream.getReader();
    return {
      read: async () => {
        const { done, value } = await plain.read();
        return done ? undefined : value;
      },
      cancel: () => plain.cancel(),
      release: () => {},
    };
  }
  const reader = byob;
  let buffer: ArrayBuffer | undefined = bufferPool.pop() ?? new ArrayBuffer(READ_BUFFER_BYTES);
  return {
    async read() {
      // Reading transfers the buffer into the stream and back: keep the returned one.
      const { done, value } = await reader.read(new Uint8Array(buffer ?? new ArrayBuffer(READ_BUFFER_BYTES)));
      buffer = value?.buffer as ArrayBuffer | undefined;
      return done || value === undefined ? undefined : value;
    },
    cancel: () => reader.cancel(),
    release() {
      if (buffer !== undefined && buffer.byteLength === READ_BUFFER_BYTES && bufferPool.length < POOLED_BUFFERS) bufferPool.push(buffer);
      buffer = undefined;
    },
  };
}

/** One pass over an opened stream with a plan. */
interface Pass {
  readonly outcome: ReturnType<LineScanner["end"]>;
  readonly totals: ReturnType<LineScanner["totals"]>;
  readonly live?: LiveRows;
  readonly keptLines: ReturnType<LastLines["lines"]>;
  readonly lastLine: ReturnType<LastLines["lines"]>;
  readonly boundHashes: Map<number, number>;
}

async function scanPass(ctx: ToolContext, opened: ReadStreamResult, plan: Plan, bounds: Bounds): Promise<Pass | "cancelled"> {
  const { limits } = ctx;
  const keepBytes = keepBytesFor(limits.maxLineChars);
  const cap = lineCapOf(limits);
  const lastLine = new LastLines(1, keepBytes);
  const live = plan.kind === "live" ? new LiveRows(plan.from, plan.to, limits.maxLineChars, rowBudgetOf(limits)) : undefined;
  const last = plan.kind === "last" ? new LastLines(plan.count, keepBytes) : undefined;
  const range = plan.kind === "range" ? new LineRange(plan.from, plan.from + cap - 1, keepBytes) : undefined;
  // Lines named by id: resolveRange notes when their hash has changed.
  const named = [bounds.start, bounds.end].map((b) => (b === undefined ? undefined : parseLineRef(b)));
  const wanted = new Set(named.flatMap((p) => (p?.ok && p.hash !== undefined ? [p.line] : [])));
  const boundHashes = new Map<number, number>();
  const scanner = new LineScanner(
    ctx.hasher,
    (batch) => {
      lastLine.add(batch);
      live?.add(batch);
      last?.add(batch);
      range?.add(batch);
      for (const line of wanted) {
        const i = line - batch.firstLine;
        if (i >= 0 && i < batch.hashes.length) boundHashes.set(line, batch.hashes[i]);
      }
    },
    { maxLineBytes: limits.maxFileBytes },
  );
  const reader = chunkReader(opened.stream, opened.size);
  try {
    for (;;) {
      if (ctx.signal?.aborted) {
        await reader.cancel();
        return "cancelled";
      }
      const chunk = await reader.read();
      if (chunk === undefined) break;
      scanner.push(chunk);
      if (!scanner.wantsMore) {
        if (scanner.outcome.kind !== "not-text") {
          await reader.cancel();
          break;
        }
        // Not text: the rest is read unscanned, only to learn the version of the bytes judged
        // (a stat would read a local file whole, and might see other bytes).
        while ((await reader.read()) !== undefined) {
          if (ctx.signal?.aborted) {
            await reader.cancel();
            return "cancelled";
          }
        }
        break;
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.release();
  }
  const outcome = scanner.end();
  return {
    outcome,
    totals: scanner.totals(),
    live,
    keptLines: last?.lines() ?? range?.lines() ?? [],
    lastLine: lastLine.lines(),
    boundHashes,
  };
}

/** The coded result for a scan that did not end in text. */
function refusal(ctx: ToolContext, path: string, pass: Pass): ToolResult | undefined {
  const { outcome } = pass;
  if (outcome.kind === "not-text") return notTextResult(path, outcome.why);
  if (outcome.kind === "line-too-long") {
    return fail(
      "FS_TOO_LARGE",
      `Line ${outcome.line} of \`${shownPath(path)}\` is longer than the ${formatSize(ctx.limits.maxFileBytes)} file size limit, ` +
        `so it cannot be shown. Search the file instead: view {"path": ${JSON.stringify(shownPath(path))}, "content": "<text to find>"}.`,
    );
  }
  return undefined;
}

/** Rows of `from..to` from a pass: the live rows when they start there, else the kept lines. */
function rowsOf(ctx: ToolContext, pass: Pass, from: number, to: number): RenderedLines {
  if (pass.live && pass.live.from === from) return pass.live.rendered();
  const kept = pass.keptLines.length > 0 && pass.keptLines[0].line <= from ? pass.keptLines : pass.lastLine;
  return renderLines(keptSource(kept), from, to, {
    maxLineChars: ctx.limits.maxLineChars,
    maxOutputBytes: rowBudgetOf(ctx.limits),
  });
}

/** Most passes a two-pass view makes when the file keeps changing between its count and its rows. */
const MAX_TWO_PASS_ATTEMPTS = 3;

/**
 * The rows of a view of `path` whose stream is `opened` (this consumes or
 * cancels it). Refusals are the coded results the whole-document path
 * gives. Records nothing: the caller records the observation.
 */
export async function streamView(ctx: ToolContext, path: string, bounds: Bounds, opened: ReadStreamResult): Promise<StreamedView> {
  const parsed = resolveRange(bounds.start, bounds.end, 0, () => 0);
  if (!parsed.ok) {
    await opened.stream.cancel().catch(() => {});
    return { ok: false, result: invalidArgument(parsed.message) };
  }
  const cap = lineCapOf(ctx.limits);
  let plan = planFor(bounds, cap);
  const twoPass = plan.kind === "count";
  let stream = opened;
  for (let attempt = 1; ; attempt++) {
    const pass = await scanPass(ctx, stream, plan, bounds);
    if (pass === "cancelled") return { ok: false, result: fail("TIMEOUT", `view of \`${shownPath(path)}\` was cancelled`) };
    const refused = refusal(ctx, path, pass);
    if (refused) {
      // Not text: the pass read the file to its end, so the version is that of the bytes judged.
      return { ok: false, result: refused, ...(pass.outcome.kind === "not-text" ? { version: await stream.version } : {}) };
    }
    const version = await stream.version;
    const total = pass.totals.lines;
    if (plan.kind === "count") {
      // First pass of two: now the line the view starts at is known.
      plan = planFor(bounds, cap, total);
      stream = await ctx.storage.readStream!(path);
      continue;
    }
    const range = resolveRange(bounds.start, bounds.end, total, (n) => pass.boundHashes.get(n) ?? -1, await sinceView(ctx, path, version));
    if (!range.ok) return { ok: false, result: invalidArgument(range.message), version };
    if (twoPass && range.from !== plannedFrom(plan) && total > 0) {
      // The file changed between the count and the rows: count again.
      if (attempt >= MAX_TWO_PASS_ATTEMPTS) {
        return { ok: false, result: fail("FS_IO_ERROR", `\`${shownPath(path)}\` kept changing while it was being read; view it again.`) };
      }
      plan = { kind: "count" };
      stream = await ctx.storage.readStream!(path);
      continue;
    }
    const { crlf, lf, unterminatedLast, bom } = pass.totals;
    const cappedTo = Math.min(range.to, range.from + cap - 1);
    const rendered = total === 0 ? { text: "", from: 1, to: 0, truncatedLines: 0, complete: true } : rowsOf(ctx, pass, range.from, cappedTo);
    return { ok: true, rows: { total, endings: { crlf, lf, unterminatedLast }, bom, range, rendered, version } };
  }
}
