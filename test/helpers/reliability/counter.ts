/**
 * The shared-counter workload: many clients each run read-modify-write
 * cycles on one file over HTTP (view, then `write` or `batch_edit` of the
 * value + 1), retrying a cycle whose write lost the race. Nothing may be
 * lost: every value from 1 to clients x cycles must be written exactly once.
 *
 * Why four proof lines. `write` is a compare-and-swap on the file's version
 * (a content hash), so a lost race can never land. `batch_edit` proves its
 * targets by line id, and an id's hash has 8 bits: a single "count N" line
 * would let a stale increment land whenever the count it read and the count
 * there now hash alike (1 in 256 per stale try; thousands of tries here).
 * That is the design's stated trade-off for one line, not a defect, so the
 * counter is written on four lines and batch_edit proves all four: 32 bits,
 * and {@link proofCollision} checks that no two values in the run's range
 * share all four hashes, so the outcome does not rest on chance.
 */
import { lineHash } from "../../../src/hash/fnv.ts";
import { jitter, resultText, viewedLines, type RestCaller } from "./client.ts";

/** The counter file's default path. */
export const COUNTER_PATH = "counter.txt";
const TAGS = ["a", "b", "c", "d"] as const;

/** The counter file holding `n`. */
export function counterContent(n: number): string {
  return TAGS.map((tag) => `count ${n} (${tag})\n`).join("");
}

/** Two values in 0..max whose four proof lines hash alike, or undefined when there are none. */
export function proofCollision(max: number): [number, number] | undefined {
  const seen = new Map<number, number>();
  for (let n = 0; n <= max; n++) {
    const key = TAGS.reduce((acc, tag) => acc * 256 + lineHash(`count ${n} (${tag})`), 0);
    const other = seen.get(key);
    if (other !== undefined) return [other, n];
    seen.set(key, n);
  }
  return undefined;
}

/** What a view of the counter shows: the value and the id of each proof line. */
function readCounter(text: string): { value: number; ids: string[] } {
  const rows = viewedLines(text);
  const values = rows.map((r) => /^count (\d+) \([a-d]\)$/.exec(r.text)?.[1]);
  if (rows.length !== TAGS.length || values.some((v) => v === undefined || v !== values[0])) {
    throw new Error(`the counter file is not four equal count lines:\n${text}`);
  }
  return { value: Number(values[0]), ids: rows.map((r) => r.id) };
}

/** How a counter run went. */
export interface CounterReport {
  /** Every value a successful cycle wrote, in completion order. */
  readonly written: number[];
  /** Requests sent (views + writes). */
  readonly requests: number;
  /** Lost races, by the code that reported them. */
  readonly lost: Record<string, number>;
  readonly ms: number;
}

/** Options of {@link runCounter}. */
export interface CounterOptions {
  readonly clients: number;
  readonly cycles: number;
  /**
   * A client gives up after losing this many races in a row (the test then
   * fails on the count). A count, not a time: a loaded machine is slower,
   * not less correct.
   */
  readonly maxLossesInARow?: number;
  /** Session ids are `${sessionPrefix}-${client}`. */
  readonly sessionPrefix?: string;
  /** The counter file (default {@link COUNTER_PATH}); it must not exist yet. */
  readonly path?: string;
  /** Longest random wait after a lost race (default {@link DEFAULT_MAX_BACKOFF_MS}). */
  readonly maxBackoffMs?: number;
}

/**
 * Default longest wait after a lost race. With 32 clients on one file, a
 * smaller cap mostly adds losing tries (measured on local storage: cap 64 ms
 * sent 3x the requests and took 2x as long as 256 ms).
 */
export const DEFAULT_MAX_BACKOFF_MS = 256;

/** Default of {@link CounterOptions.maxLossesInARow}: far more than any run has needed. */
export const DEFAULT_MAX_LOSSES_IN_A_ROW = 500;

/** The codes a lost read-modify-write race may come back with. */
const LOST_RACE = new Set(["FS_STALE_VERSION", "EDIT_STALE_LINE_ID"]);

/**
 * Seed the counter at 0, then run `clients` concurrent clients of `cycles`
 * successful cycles each. Even cycles of a client use `write`, odd ones
 * `batch_edit`, so both guards are raced against each other. Throws on
 * anything but success or a lost race (a transport error, another code,
 * an unreadable counter).
 */
export async function runCounter(caller: RestCaller, options: CounterOptions): Promise<CounterReport> {
  const prefix = options.sessionPrefix ?? "counter";
  const path = options.path ?? COUNTER_PATH;
  const seeded = await caller.call("write", { path, content: counterContent(0) }, `${prefix}-seed`);
  if (seeded.result?.isError !== false) throw new Error(`seeding the counter failed: HTTP ${seeded.status} ${seeded.problem ?? resultText(seeded.result!)}`);

  const written: number[] = [];
  const lost: Record<string, number> = {};
  let requests = 0;
  const started = performance.now();
  const giveUpAfter = options.maxLossesInARow ?? DEFAULT_MAX_LOSSES_IN_A_ROW;

  async function send(tool: string, args: unknown, session: string) {
    requests++;
    const outcome = await caller.call(tool, args, session);
    if (outcome.status !== 200 || !outcome.result) throw new Error(`${tool}: HTTP ${outcome.status}: ${outcome.problem}`);
    return outcome.result;
  }

  async function client(index: number): Promise<void> {
    const session = `${prefix}-${index}`;
    let done = 0;
    let losses = 0;
    while (done < options.cycles && losses < giveUpAfter) {
      const view = await send("view", { path }, session);
      if (view.isError) throw new Error(`view: ${view.code}: ${resultText(view)}`);
      const { value, ids } = readCounter(resultText(view));
      const next = value + 1;
      const result =
        (index + done) % 2 === 0
          ? await send("write", { path, content: counterContent(next) }, session)
          : await send(
              "batch_edit",
              {
                path,
                operations: ids.map((id, i) => ({ operation: "replace", start: id, content: `count ${next} (${TAGS[i]})` })),
              },
              session,
            );
      if (!result.isError) {
        written.push(next);
        done++;
        losses = 0;
        continue;
      }
      if (!result.code || !LOST_RACE.has(result.code)) throw new Error(`client ${index}: ${result.code}: ${resultText(result)}`);
      lost[result.code] = (lost[result.code] ?? 0) + 1;
      // Back off more after each loss in a row: with everyone backed off, few cycles overlap,
      // so the winner is not drowned in losing tries (which only slow the server down).
      await jitter(Math.min(options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS, 2 ** ++losses));
    }
  }

  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  return { written, requests, lost, ms: performance.now() - started };
}

/** The value the counter holds now, read with a fresh session. */
export async function counterValue(caller: RestCaller, path = COUNTER_PATH): Promise<number> {
  const view = await caller.call("view", { path }, `counter-check-${crypto.randomUUID()}`);
  if (!view.result || view.result.isError) throw new Error(`final view failed: HTTP ${view.status} ${view.problem ?? resultText(view.result!)}`);
  return readCounter(resultText(view.result)).value;
}
