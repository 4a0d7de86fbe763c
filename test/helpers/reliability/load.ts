/**
 * A bounded load run against the real `toolwarden serve` (Bun, local
 * storage): clients loop over a mix of file views, directory listings,
 * searches and edits for a fixed time, and every request's latency and
 * outcome is recorded, with the server process's RSS at start and end.
 * Used by test/reliability-load.test.ts (short) and scripts/load.ts (60 s).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatHash, lineHash } from "../../../src/hash/fnv.ts";
import { startServe, tempDir } from "../cli.ts";
import { percentile, resultText, restCaller, type CallOutcome } from "./client.ts";

/** The kinds of request in the mix, with their share of a client's iterations. */
const MIX = [
  ["view-file", 0.35],
  ["list", 0.1],
  ["search", 0.2],
  ["edit-own", 0.2],
  ["edit-shared", 0.15],
] as const;
type Kind = (typeof MIX)[number][0];

/**
 * Tool errors a correct server may answer under this load: a content-proven
 * edit of the shared file that kept losing the compare-and-swap for its
 * whole retry budget. Anything else is a failure.
 */
export const EXPECTED_TOOL_ERRORS: ReadonlySet<string> = new Set(["FS_STALE_VERSION", "EDIT_STALE_LINE_ID"]);

/** Options of {@link runLoad}. */
export interface LoadOptions {
  readonly seconds: number;
  readonly clients: number;
  /** Safety bound on requests per client, whatever the time. */
  readonly maxRequestsPerClient?: number;
}

/** What a load run measured. */
export interface LoadReport {
  readonly seconds: number;
  readonly clients: number;
  readonly requests: number;
  readonly byKind: Record<string, number>;
  readonly status5xx: number;
  /** Requests that failed at the transport (no response) or answered a non-200 other than 5xx. */
  readonly failedRequests: number;
  readonly expectedToolErrors: Record<string, number>;
  readonly unexpectedToolErrors: Record<string, number>;
  /** A few examples of failures, for the test's message. */
  readonly problems: string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly latencyByKind: Record<string, { p50: number; p99: number }>;
  readonly rssStartMiB: number;
  readonly rssEndMiB: number;
  readonly rssPeakMiB: number;
  /** Files whose final content differs from what the clients' successful edits add up to. */
  readonly inconsistent: string[];
}

const SOURCE_FILES = 60;
const SOURCE_LINES = 300;

/** Seed the workspace: source-like files to read and search, one file per client, and one shared file. */
function seed(dir: string, clients: number): void {
  for (let f = 0; f < SOURCE_FILES; f++) {
    const sub = join(dir, "src", `mod${f % 6}`);
    mkdirSync(sub, { recursive: true });
    const lines = Array.from({ length: SOURCE_LINES }, (_, i) =>
      i % 25 === 0 ? `export function handler${f}_${i}(input: string): string {` : `  const value${i} = compute(${f}, ${i}); // TODO check ${i % 7}`,
    );
    writeFileSync(join(sub, `file${f}.ts`), `${lines.join("\n")}\n`);
  }
  mkdirSync(join(dir, "work"), { recursive: true });
  for (let c = 0; c < clients; c++) writeFileSync(join(dir, "work", `client${c}.txt`), `${ownLines(c).join("\n")}\n`);
  writeFileSync(join(dir, "shared.txt"), `${Array.from({ length: clients }, (_, c) => sharedLine(c, 0)).join("\n")}\n`);
}

const OWN_LINES = 40;
function ownLines(client: number): string[] {
  return Array.from({ length: OWN_LINES }, (_, i) => `client ${client} line ${i + 1} value 0`);
}
function sharedLine(client: number, value: number): string {
  return `shared slot ${client} value ${value}`;
}
function idOf(line: number, text: string): string {
  return `${line}:${formatHash(lineHash(text))}`;
}

/** The server process's resident set size in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function chooseKind(): Kind {
  let r = Math.random();
  for (const [kind, share] of MIX) {
    if ((r -= share) < 0) return kind;
  }
  return MIX[0][0];
}

/**
 * Start `toolwarden serve` on a seeded temp directory, run the clients for
 * `seconds`, stop the server and report. Traffic goes to 127.0.0.1 only.
 */
export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const dir = tempDir("tw-load-");
  const token = "load-token-0123456789abcdef";
  seed(dir.path, options.clients);
  const server = await startServe([dir.path, "--port", "0", "--token", token, "--quiet"]);
  try {
    const caller = restCaller(server.url, token);
    const pid = server.child.pid!;
    const rssStart = rssMiB(pid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      try {
        rssPeak = Math.max(rssPeak, rssMiB(pid));
      } catch {
        // The process is gone; the run will report the failures.
      }
    }, 250);

    const latencies: number[] = [];
    const latencyByKind = new Map<string, number[]>();
    const byKind: Record<string, number> = {};
    const expected: Record<string, number> = {};
    const unexpected: Record<string, number> = {};
    const problems: string[] = [];
    let status5xx = 0;
    let failed = 0;
    const ownModel = Array.from({ length: options.clients }, (_, c) => ownLines(c));
    const sharedModel = Array.from({ length: options.clients }, () => 0);
    const deadline = performance.now() + options.seconds * 1000;
    const maxRequests = options.maxRequestsPerClient ?? 1_000_000;

    const record = (kind: string, outcome: CallOutcome): boolean => {
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      latencies.push(outcome.ms);
      let list = latencyByKind.get(kind);
      if (!list) latencyByKind.set(kind, (list = []));
      list.push(outcome.ms);
      if (outcome.status >= 500) status5xx++;
      else if (outcome.status !== 200) failed++;
      if (outcome.status !== 200 || !outcome.result) {
        if (problems.length < 5) problems.push(`${kind}: HTTP ${outcome.status} ${outcome.problem?.slice(0, 300)}`);
        return false;
      }
      const { result } = outcome;
      if (!result.isError) return true;
      const code = result.code ?? "?";
      if (EXPECTED_TOOL_ERRORS.has(code) && kind === "edit-shared") expected[code] = (expected[code] ?? 0) + 1;
      else {
        unexpected[code] = (unexpected[code] ?? 0) + 1;
        if (problems.length < 5) problems.push(`${kind}: ${code}: ${resultText(result).slice(0, 300)}`);
      }
      return false;
    };

    async function client(c: number): Promise<void> {
      const session = `load-${c}`;
      const own = `work/client${c}.txt`;
      // An edit needs a view of the file in this session first.
      for (const path of [own, "shared.txt"]) record("view-file", await caller.call("view", { path }, session));
      let sent = 2;
      let edits = 0;
      while (performance.now() < deadline && sent < maxRequests) {
        sent++;
        const kind = chooseKind();
        switch (kind) {
          case "view-file": {
            const f = Math.floor(Math.random() * SOURCE_FILES);
            const start = 1 + Math.floor(Math.random() * (SOURCE_LINES - 50));
            const args = Math.random() < 0.5 ? { path: `src/mod${f % 6}/file${f}.ts` } : { path: `src/mod${f % 6}/file${f}.ts`, start, end: start + 49 };
            record(kind, await caller.call("view", args, session));
            break;
          }
          case "list":
            record(kind, await caller.call("view", pick([{ path: "." }, { path: "src", depth: 2 }, { path: ".", pattern: "**/*.ts" }]), session));
            break;
          case "search":
            record(
              kind,
              await caller.call(
                "view",
                pick([
                  { path: "src", content: `handler${Math.floor(Math.random() * SOURCE_FILES)}_` },
                  { path: "src", content: "TODO check [0-3]$", regex: true, context: 1 },
                  { path: `src/mod${c % 6}`, content: "compute(", case_sensitive: false },
                ]),
                session,
              ),
            );
            break;
          case "edit-own": {
            // Only this client writes its file, so its model of the content is exact.
            const line = 1 + Math.floor(Math.random() * OWN_LINES);
            const before = ownModel[c][line - 1];
            const after = `client ${c} line ${line} value ${++edits}`;
            const outcome =
              edits % 2 === 0
                ? await caller.call("edit", { path: own, old_string: before, new_string: after }, session)
                : await caller.call("batch_edit", { path: own, operations: [{ operation: "replace", start: idOf(line, before), content: after }] }, session);
            if (record(kind, outcome)) ownModel[c][line - 1] = after;
            break;
          }
          case "edit-shared": {
            // Every client owns one line of the shared file; the others change theirs meanwhile.
            const before = sharedLine(c, sharedModel[c]);
            const after = sharedLine(c, sharedModel[c] + 1);
            const outcome = await caller.call(
              "batch_edit",
              { path: "shared.txt", operations: [{ operation: "replace", start: idOf(c + 1, before), content: after }] },
              session,
            );
            if (record(kind, outcome)) sharedModel[c]++;
            break;
          }
        }
      }
    }

    const started = performance.now();
    await Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const rssEnd = rssMiB(pid);
    rssPeak = Math.max(rssPeak, rssEnd);

    const inconsistent: string[] = [];
    for (let c = 0; c < options.clients; c++) {
      if (readFileSync(join(dir.path, "work", `client${c}.txt`), "utf8") !== `${ownModel[c].join("\n")}\n`) inconsistent.push(`work/client${c}.txt`);
    }
    const shared = `${Array.from({ length: options.clients }, (_, c) => sharedLine(c, sharedModel[c])).join("\n")}\n`;
    if (readFileSync(join(dir.path, "shared.txt"), "utf8") !== shared) inconsistent.push("shared.txt");

    return {
      seconds: elapsed,
      clients: options.clients,
      requests: latencies.length,
      byKind,
      status5xx,
      failedRequests: failed,
      expectedToolErrors: expected,
      unexpectedToolErrors: unexpected,
      problems,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: Math.max(...latencies),
      latencyByKind: Object.fromEntries([...latencyByKind].map(([k, v]) => [k, { p50: percentile(v, 50), p99: percentile(v, 99) }])),
      rssStartMiB: rssStart,
      rssEndMiB: rssEnd,
      rssPeakMiB: rssPeak,
      inconsistent,
    };
  } finally {
    server.kill();
    await server.exited;
    dir.remove();
  }
}

/** The figures as a Markdown table (the README's "Reliability" load row comes from this). */
export function loadTable(report: LoadReport): string {
  const ms = (n: number) => `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`;
  const mib = (n: number) => `${Math.round(n)} MiB`;
  const codes = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ") || "none";
  const rows = [
    ["duration, clients", `${report.seconds.toFixed(0)} s, ${report.clients} clients over HTTP (Bun, local storage)`],
    [
      "requests",
      `${report.requests} (${Math.round(report.requests / report.seconds)}/s): ${Object.entries(report.byKind)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    ],
    ["5xx responses", String(report.status5xx)],
    ["failed requests", String(report.failedRequests + Object.values(report.unexpectedToolErrors).reduce((a, b) => a + b, 0))],
    ["expected tool errors", codes(report.expectedToolErrors)],
    ["latency p50 / p99 (max)", `${ms(report.p50Ms)} / ${ms(report.p99Ms)} (${ms(report.maxMs)})`],
    ...Object.entries(report.latencyByKind).map(([k, v]) => [`  ${k} p50 / p99`, `${ms(v.p50)} / ${ms(v.p99)}`]),
    ["server RSS start / end (peak)", `${mib(report.rssStartMiB)} / ${mib(report.rssEndMiB)} (${mib(report.rssPeakMiB)})`],
  ];
  return ["| figure | value |", "| --- | --- |", ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join("\n");
}
