/**
 * A content search of one file read as a stream: the matching lines of the
 * whole file, counted chunk by chunk, keeping only what the result can show
 * (the first matches and the lines within `context` of them), so memory
 * holds one chunk and those lines, never the file or its text.
 *
 * Each batch of complete lines from the scanner is decoded, its "\r\n"
 * endings written "\n" as the whole-file search does, and matched with the
 * same searcher. A literal that spans k lines is matched over the last k
 * lines of the previous batch plus this one, and lines already counted are
 * not counted twice, so the matching lines are exactly the whole-file ones.
 *
 * A regex is metered by `work` (./search-work.ts): batches are matched
 * between reads, giving the event loop a turn when one is due; when the
 * work budget is spent the rest of the file is still read and counted
 * (lines, the named lines, the tail) but not matched, and `stoppedAt` says
 * from which line.
 */

import type { ReadStreamResult, Version } from "../../storage/types.ts";
import type { ToolContext } from "../types.ts";
import { type LineBatch, LineScanner, type ScanOutcome } from "./line-scan.ts";
import { indexLines, lineAt, normalizeEndings, type Searcher } from "./matcher.ts";
import type { SearchWork } from "./search-work.ts";

/** What a streamed search found. */
export interface StreamedMatches {
  /** Lines in the file. */
  readonly total: number;
  /** Matching lines in the file. */
  readonly count: number;
  /**
   * 0-based matching lines, ascending: every one among the first `keep`,
   * every one inside the context kept for those, and one more after them.
   */
  readonly matches: readonly number[];
  /** Content of every line within `context` of the first `keep` matches (0-based line -> content). */
  readonly content: ReadonlyMap<number, string>;
  /** Content of the lines `named` asked for. */
  readonly named: ReadonlyMap<number, string>;
  /** The file's last lines (0-based line -> content), at least `context` + 1 of them. */
  readonly tail: ReadonlyMap<number, string>;
  /** The last matching line of the whole file (0-based; -1 for none), whatever the range. */
  readonly lastMatch: number;
  readonly version: Version;
  /** 0-based line from which nothing was matched: the work budget was spent there. */
  readonly stoppedAt?: number;
  /** Lines not matched because they are too long for one bounded RE2 call, and the first of them (0-based). */
  readonly tooLong: { readonly count: number; readonly first?: { readonly line: number; readonly chars: number } };
}

/** What to look for and how much of it to keep. */
export interface StreamSearchSpec {
  readonly searcher: Searcher;
  /** Lines a literal match can span beyond its first (its "\n" count); 0 for a regex. */
  readonly spanLines: number;
  readonly context: number;
  /** Matches whose context is kept (the most the result can show, plus one). */
  readonly keep: number;
  /** Longest line the scan holds. */
  readonly maxLineBytes: number;
  /** Only matches on 0-based lines `from..to` count (default: the whole file). */
  readonly lines?: { readonly from: number; readonly to: number };
  /** 0-based lines whose content to keep whatever matches (e.g. the lines a range names by id). */
  readonly named?: ReadonlySet<number>;
  /** The search's RE2 meter. */
  readonly work: SearchWork;
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A batch of lines decoded, waiting to be matched. */
interface Pending {
  readonly text: string;
  readonly firstLine: number;
}

/** Collects matches and kept lines batch by batch: {@link add} as the scanner hands them over, {@link drain} between reads. */
class MatchCollector {
  count = 0;
  readonly matches: number[] = [];
  readonly content = new Map<number, string>();
  readonly named = new Map<number, string>();
  /** Last matching line seen, in range or not (0-based). */
  last = -1;
  /** Lines up to here (0-based) are kept as they arrive: trailing context of kept matches. */
  private keepUntil = -1;
  /** After the kept region, one more match is listed; then only counting. */
  private listing = true;
  /** The last lines seen (0-based line -> content), for leading context and spanning literals. */
  private recent: { line: number; content: string }[] = [];
  /** Batches handed over and not yet matched (the scanner's bytes are valid only during its call). */
  private pending: Pending[] = [];
  /** 0-based line from which nothing is matched (the work budget was spent). */
  stoppedAt: number | undefined;
  tooLongCount = 0;
  firstTooLong: { line: number; chars: number } | undefined;

  constructor(private readonly spec: StreamSearchSpec) {}

  /** Take a batch from the scanner: decoded now, matched by the next {@link drain}. */
  add(batch: LineBatch): void {
    this.pending.push({ text: normalizeEndings(decoder.decode(batch.body)), firstLine: batch.firstLine });
  }

  /** Match every batch taken, in order, giving the event loop a turn when one is due. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.shift()!;
      await this.process(batch);
    }
  }

  /**
   * The matching lines of one batch's text (0-based in the text), metered.
   * A regex matches only the lines of the range (a literal matches all, to
   * know the last match of the file), so a search continued from a line
   * spends nothing on the lines before it.
   */
  private async scan(text: string, index: ReturnType<typeof indexLines>, base: number, first: number): Promise<number[]> {
    const { searcher, work } = this.spec;
    const range = this.spec.lines;
    // Counting lines only (a first pass for a bound from the end): nothing to match.
    if (this.stoppedAt !== undefined || (range && range.to < range.from)) return [];
    let next = 0;
    let end = index.count;
    if (range && searcher.programSize > 0) {
      next = Math.max(0, Math.min(index.count, range.from - base));
      end = Math.max(0, Math.min(index.count, range.to - base + 1));
    }
    if (next >= end) return [];
    if (next === 0 && end === index.count && !searcher.mayMatch(text, work)) return [];
    const found: number[] = [];
    for (;;) {
      const scan = searcher.scanLines(text, index, next, work, end);
      for (const m of scan.matches) found.push(m);
      for (const k of scan.tooLong) {
        // A line carried over from the previous batch was counted there.
        if (base + k < first) continue;
        this.tooLongCount++;
        this.firstTooLong ??= { line: base + k, chars: lineAt(text, index, k).length };
      }
      next = scan.next;
      if (next >= end) return found;
      if (work.stopped) {
        this.stoppedAt = Math.max(first, base + next);
        return found;
      }
      await work.turn();
    }
  }

  private async process(batch: Pending): Promise<void> {
    const { spanLines, context } = this.spec;
    const carry = this.recent.slice(Math.max(0, this.recent.length - spanLines));
    const own = batch.text;
    const text = carry.length > 0 ? `${carry.map((r) => r.content).join("\n")}\n${own}` : own;
    const index = indexLines(text);
    // 0-based file line of the text's first line.
    const base = batch.firstLine - 1 - carry.length;
    const first = batch.firstLine - 1;
    const lastLine = base + index.count - 1;
    const at = (line: number) => lineAt(text, index, line - base);

    for (let line = first; line <= Math.min(this.keepUntil, lastLine); line++) this.content.set(line, at(line));
    for (const line of this.spec.named ?? []) if (line >= first && line <= lastLine) this.named.set(line, at(line));
    const range = this.spec.lines;
    const found = await this.scan(text, index, base, first);
    for (const f of found) {
      const line = base + f;
      if (line <= this.last) continue;
      this.last = line;
      if (range && (line < range.from || line > range.to)) continue;
      const ordinal = this.count++;
      if (ordinal < this.spec.keep) {
        for (let l = Math.max(0, line - context); l < first; l++) {
          if (!this.content.has(l)) this.content.set(l, this.fromRecent(l)!);
        }
        for (let l = Math.max(first, line - context); l <= Math.min(lastLine, line + context); l++) this.content.set(l, at(l));
        this.keepUntil = Math.max(this.keepUntil, line + context);
      }
      if (this.listing) {
        this.matches.push(line);
        if (ordinal >= this.spec.keep && line > this.keepUntil) this.listing = false;
      }
    }
    // Remember enough lines for spanning literals and the leading context of a match starting in
    // them, and the last line with its context (a range past the end shows the last line).
    const remember = context + spanLines + 1;
    const recent = this.recent;
    for (let line = Math.max(first, lastLine - remember + 1); line <= lastLine; line++) recent.push({ line, content: at(line) });
    if (recent.length > remember) this.recent = recent.slice(recent.length - remember);
  }

  /** The last lines seen. */
  tail(): Map<number, string> {
    return new Map(this.recent.map((r) => [r.line, r.content]));
  }

  private fromRecent(line: number): string | undefined {
    return this.recent.find((r) => r.line === line)?.content;
  }
}

/**
 * Search the stream `opened` (consumed or cancelled here). Resolves the
 * matches, or how the scan refused the file, or "cancelled".
 */
export async function streamMatches(
  ctx: ToolContext,
  opened: ReadStreamResult,
  spec: StreamSearchSpec,
): Promise<{ ok: true; found: StreamedMatches } | { ok: false; outcome: Exclude<ScanOutcome, { kind: "text" }> } | "cancelled"> {
  const collector = new MatchCollector(spec);
  const scanner = new LineScanner(ctx.hasher, (batch) => collector.add(batch), { maxLineBytes: spec.maxLineBytes });
  const reader = opened.stream.getReader();
  try {
    for (;;) {
      if (ctx.signal?.aborted) {
        await reader.cancel();
        return "cancelled";
      }
      const { done, value } = await reader.read();
      if (done) break;
      scanner.push(value);
      await collector.drain();
      if (!scanner.wantsMore) {
        await reader.cancel();
        break;
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const outcome = scanner.end();
  await collector.drain();
  if (ctx.signal?.aborted) return "cancelled";
  if (outcome.kind !== "text") return { ok: false, outcome };
  const version = await opened.version;
  const { count, matches, content, named, last, stoppedAt, tooLongCount, firstTooLong } = collector;
  return {
    ok: true,
    found: {
      total: scanner.totals().lines,
      count,
      matches,
      content,
      named,
      tail: collector.tail(),
      lastMatch: last,
      version,
      ...(stoppedAt === undefined ? {} : { stoppedAt }),
      tooLong: { count: tooLongCount, ...(firstTooLong ? { first: firstTooLong } : {}) },
    },
  };
}
