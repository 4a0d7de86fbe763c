/**
 * The work one regex search may do, and when it lets other requests run.
 *
 * RE2 is linear in its input, but one match costs up to (program size) x
 * (characters matched) steps (see `src/text/re2-work.ts` for the
 * measurements), and it runs synchronously: nothing else on the server runs
 * during it, and no timeout can stop it. So a search meters that work:
 *
 * - Each RE2 call (one line, a chunk of lines, a whole-text pre-check) may
 *   cost at most {@link MATCH_CALL_WORK}; a line that alone costs more is
 *   not matched and the answer names it (see ./matcher.ts).
 * - All calls of one search share {@link SEARCH_WORK}; a search that would
 *   spend more stops before the line that would cross it, and the answer
 *   says where and how to continue.
 * - Between RE2 calls the search gives the event loop a turn every
 *   {@link TURN_MS} of matching (as local storage's pacer does between its
 *   blocking calls), or every {@link MATCH_CALL_WORK} of work where the
 *   clock does not move during synchronous code (Workers), and stops when
 *   the call's signal is aborted (its timeout, or the client leaving).
 * - Finding where the match starts in a long line the answer shows (it is
 *   shown cut around its match) is one more RE2 call per line, metered the
 *   same way ({@link locateMatch}): charged, turned between, not made once
 *   the call is cancelled; a line whose call the budget cannot hold is
 *   shown from its start, and the answer says so.
 *
 * A literal search compiles no RE2 program: nothing here limits it (its
 * native substring search is bounded by the 512 MiB a search reads).
 */
import { re2CharsWithin, re2Work } from "../../text/re2-work.ts";
import type { Searcher, Unlocated } from "./matcher.ts";

/**
 * Instructions x characters one RE2 call may cost: under 0.4 s at the worst
 * measured 45 ns per unit (about 0.15 s for programs of thousands of
 * instructions, 19 ns). A pattern of 16 instructions still matches lines of
 * half a million characters in one call.
 */
export const MATCH_CALL_WORK = 8 * 1024 * 1024;

/**
 * Instructions x characters one search may spend in all (64 Gi). Sized so
 * ordinary searches never meet it: a search charges every RE2 call in full
 * (pre-check, chunk and line tests), and eleven ordinary patterns of 10-105
 * instructions over 155 MiB of `node_modules` were charged 0.8-1.45 units
 * per character per instruction (docs/tools.md), so a pattern of 64
 * instructions passes over all 512 MiB a search may read (at most ~46 Gi).
 * It stops what ordinary searches never do: a 4096-instruction pattern
 * after about 16 million characters.
 */
export const SEARCH_WORK = 64 * 1024 * 1024 * 1024;

/** Longest stretch of matching (ms) before the search gives the event loop a turn. */
export const TURN_MS = 4;

/** Options of {@link SearchWork}: the defaults above, and seams for tests (a clock, the turn). */
export interface SearchWorkOptions {
  readonly budget?: number;
  readonly callLimit?: number;
  readonly signal?: AbortSignal;
  /** Milliseconds (default `performance.now`). */
  readonly now?: () => number;
  /** Resolves on a later turn of the event loop (default `setImmediate`, else `setTimeout(0)`). */
  readonly nextTurn?: () => Promise<void>;
}

function defaultNextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** The meter of one search; see the module comment. A program size of 0 (a literal search) meters nothing. */
export class SearchWork {
  /** Instructions x characters spent so far. */
  used = 0;
  /** True once a call was refused for want of budget: the search stops there. */
  exhausted = false;
  /** Turns given to the event loop. */
  turns = 0;
  readonly budget: number;
  readonly callLimit: number;
  private readonly signal?: AbortSignal;
  private readonly now: () => number;
  private readonly nextTurn: () => Promise<void>;
  private since: number;
  private usedAtTurn = 0;

  constructor(
    readonly programSize: number,
    options: SearchWorkOptions = {},
  ) {
    this.budget = options.budget ?? SEARCH_WORK;
    this.callLimit = options.callLimit ?? MATCH_CALL_WORK;
    this.signal = options.signal;
    this.now = options.now ?? (() => performance.now());
    this.nextTurn = options.nextTurn ?? defaultNextTurn;
    this.since = this.now();
  }

  /** False for a literal search: no RE2 work to meter. */
  get metered(): boolean {
    return this.programSize > 0;
  }

  /** What one RE2 call over `chars` characters is charged (a call costs at least one step per instruction). */
  cost(chars: number): number {
    return re2Work(this.programSize, chars + 1);
  }

  /** Longest text one RE2 call of this search may match. */
  get maxCallChars(): number {
    return Math.max(0, re2CharsWithin(this.callLimit, this.programSize) - 1);
  }

  /** Whether one RE2 call over `chars` characters is within {@link MATCH_CALL_WORK}. */
  fits(chars: number): boolean {
    return !this.metered || this.cost(chars) <= this.callLimit;
  }

  /** Whether the budget still holds a call over `chars` characters (nothing is charged). */
  affords(chars: number): boolean {
    return !this.metered || this.used + this.cost(chars) <= this.budget;
  }

  /**
   * Charge one RE2 call over `chars` characters, before making it. False
   * (and nothing charged) when the budget cannot hold it: the search stops
   * before that call.
   */
  spend(chars: number): boolean {
    if (!this.metered) return true;
    const cost = this.cost(chars);
    if (this.used + cost > this.budget) {
      this.exhausted = true;
      return false;
    }
    this.used += cost;
    return true;
  }

  /** True when the call was cancelled (its timeout, or the client left). */
  get cancelled(): boolean {
    return this.signal?.aborted === true;
  }

  /** True when matching must stop: the budget is spent or the call was cancelled. */
  get stopped(): boolean {
    return this.exhausted || this.cancelled;
  }

  /** True when matching has run {@link TURN_MS}, or spent a call's worth of work, since the last turn: return, and let the caller {@link turn}. */
  due(): boolean {
    return this.metered && (this.used - this.usedAtTurn >= this.callLimit || this.now() - this.since >= TURN_MS);
  }

  /** Give the event loop a turn (timers, other requests), then go on. */
  async turn(): Promise<void> {
    this.turns++;
    await this.nextTurn();
    this.since = this.now();
    this.usedAtTurn = this.used;
  }
}

/** Why a long matching line is shown from its start: where its match starts was not looked for (see {@link locateMatch}). */
export type NotLocated = Unlocated | "cancelled";

/**
 * Where the match starts in one line a search shows, or -1 for none
 * (`searcher.column`), metered like the search's other RE2 calls: a turn
 * for the event loop first when one is due, nothing looked for once the
 * call is cancelled, and the call charged as one test of the line, or
 * refused ("too-long", "budget") without being made.
 *
 * It finds group 0 only (see ./matcher.ts): measured on the project's
 * 2-core machine (Bun 1.4, re2js 2.10), that costs 0-39 ns per unit where
 * a test costs up to 45, so one unit is charged per unit, as a test of the
 * same line. `exec`, which it replaced, then matched again tracking every
 * capture group: 80-440 ns per unit for patterns of 180-720 groups (3.7 s
 * for one call within {@link MATCH_CALL_WORK}), more with more groups.
 */
export async function locateMatch(searcher: Searcher, line: string, work: SearchWork): Promise<number | NotLocated> {
  if (work.metered) {
    if (work.due()) await work.turn();
    if (work.cancelled) return "cancelled";
  }
  return searcher.column(line, work);
}

/** Instructions x characters as a person reads them: "8 Mi", "64 Gi", "1.5 Gi", "12,345". */
export function formatWork(units: number): string {
  const scaled = (n: number, unit: string) => `${Number.isInteger(n) ? n : n.toFixed(1)} ${unit}`;
  if (units >= 1024 ** 3) return scaled(units / 1024 ** 3, "Gi");
  if (units >= 1024 ** 2) return scaled(units / 1024 ** 2, "Mi");
  return units.toLocaleString("en-US");
}
