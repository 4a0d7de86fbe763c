/**
 * A small REST client for the reliability suites: one tool call per
 * request to a server on this machine, with the request's latency and its
 * transport outcome kept apart from the tool's own success or failure.
 */

/** A tool result as REST returns it (HTTP 200, success or tool failure). */
export interface ToolResultBody {
  readonly isError: boolean;
  readonly code?: string;
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>;
}

/** One finished request: the HTTP status (0 when the request itself failed), the result on 200, and its latency. */
export interface CallOutcome {
  readonly status: number;
  readonly result?: ToolResultBody;
  /** Response body or network error text when there is no result. */
  readonly problem?: string;
  readonly ms: number;
}

/** Calls tools on one server with one token. */
export interface RestCaller {
  call(tool: string, args: unknown, session: string): Promise<CallOutcome>;
}

/** The addresses these suites may send traffic to: the loopback range only. */
function assertLoopback(base: string): void {
  const host = new URL(base).hostname;
  if (!/^127\.\d+\.\d+\.\d+$/.test(host) && host !== "localhost" && host !== "[::1]") {
    throw new Error(`reliability traffic goes to loopback addresses only, not ${host}`);
  }
}

/** A caller of `base` (e.g. "http://127.0.0.1:8080") with `token` (none for --no-auth). */
export function restCaller(base: string, token?: string, options: { reuseConnections?: boolean } = {}): RestCaller {
  assertLoopback(base);
  const root = base.replace(/\/$/, "");
  return {
    async call(tool, args, session) {
      const headers: Record<string, string> = { "content-type": "application/json", "x-session-id": session };
      if (token) headers.authorization = `Bearer ${token}`;
      if (options.reuseConnections === false) headers.connection = "close";
      const started = performance.now();
      try {
        const response = await fetch(`${root}/v1/tools/${tool}`, { method: "POST", headers, body: JSON.stringify(args) });
        const body = await response.text();
        const ms = performance.now() - started;
        if (response.status !== 200) return { status: response.status, problem: body, ms };
        return { status: 200, result: JSON.parse(body) as ToolResultBody, ms };
      } catch (error) {
        return { status: 0, problem: error instanceof Error ? error.message : String(error), ms: performance.now() - started };
      }
    },
  };
}

/** The text of a result. */
export function resultText(result: ToolResultBody): string {
  return result.content.map((c) => c.text).join("\n");
}

/** The successful result of `outcome`, or an Error that says what came back instead. */
export function expectSuccess(outcome: CallOutcome, what: string): ToolResultBody {
  if (outcome.status !== 200 || !outcome.result) throw new Error(`${what}: HTTP ${outcome.status}: ${outcome.problem}`);
  if (outcome.result.isError) throw new Error(`${what}: ${outcome.result.code}: ${resultText(outcome.result)}`);
  return outcome.result;
}

/** One `N:hh|content` row of a view or a diff. */
export interface ShownLine {
  readonly line: number;
  readonly id: string;
  readonly text: string;
}

/** The file lines a view prints (header and notes left out), in order. */
export function viewedLines(text: string): ShownLine[] {
  const rows: ShownLine[] = [];
  for (const row of text.split("\n")) {
    const match = /^(\d+):([0-9a-f]{2})\|(.*)$/.exec(row);
    if (match) rows.push({ line: Number(match[1]), id: `${match[1]}:${match[2]}`, text: match[3] });
  }
  return rows;
}

/** The fresh id a diff (write or batch_edit result) gives line `line`, when the diff shows it. */
export function diffId(text: string, line: number): ShownLine | undefined {
  for (const row of text.split("\n")) {
    const match = /^(?:\+ | {2})(\d+):([0-9a-f]{2})\|(.*)$/.exec(row);
    if (match && Number(match[1]) === line) return { line, id: `${match[1]}:${match[2]}`, text: match[3] };
  }
  return undefined;
}

/** A random wait of up to `maxMs`, so that clients that collided do not collide again in step. */
export function jitter(maxMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * maxMs));
}

/** The `p`-th percentile (0-100, nearest rank) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}
