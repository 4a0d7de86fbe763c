/**
 * The catalogue of agent mistakes: each task is a realistic slip a model
 * makes on a real source file (copied from node_modules into a temp
 * workspace), sent through the official MCP client to a real
 * `toolwarden serve` process, then the follow-up the failure text suggests.
 *
 * Per task the workspace folder of the task is compared byte for byte with
 * the intended result: after a "success" (a mismatch is a silent wrong
 * write), after a failure (nothing may have changed), and after the
 * follow-up (the text's next call must work).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { jsonAt, suggestedCalls } from "../suggested-calls.ts";

/** A tool call. */
export interface Step {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** What a call returned, as the model sees it. */
export interface Outcome {
  readonly isError: boolean;
  readonly code?: string;
  readonly text: string;
}

/** One row of a view: `N:hh|text`. */
export interface Row {
  readonly line: number;
  readonly id: string;
  readonly text: string;
}

/** An MCP session of one agent. */
export interface Agent {
  call(step: Step): Promise<Outcome>;
  /** View `path` (or lines start..end) and return its rows; the session records what it saw. */
  view(path: string, start?: number, end?: number): Promise<Row[]>;
  close(): Promise<void>;
}

/** What a task's functions get. */
export interface TaskEnv {
  /** Workspace-relative path of the task's file. */
  readonly path: string;
  /** The task's folder in the workspace (relative), e.g. "t07". */
  readonly dir: string;
  /** Absolute workspace root. */
  readonly root: string;
  readonly agent: Agent;
  /** The file's text when the mistaken call is sent (after `setup`). */
  original: string;
  /** The rows of the agent's last view of the file. */
  rows: Row[];
  /** Read a workspace file as text (undefined when absent). */
  disk(path?: string): string | undefined;
  /** Overwrite a workspace file behind the agent's back (another writer). */
  otherWriter(text: string, path?: string): void;
}

/** One catalogue entry. */
export interface Task {
  readonly name: string;
  /** The class of mistake (for the summary). */
  readonly mistake: string;
  /** Source key (see SOURCES) copied to the task's folder. */
  readonly source: string;
  /** File name inside the task's folder (default: the source's own name). */
  readonly as?: string;
  /** Whose fix it depends on, when not this branch's (reported, never hidden). */
  readonly owner?: "agent-bytes";
  /** Before the mistake: by default the agent views the whole file. */
  readonly setup?: (t: TaskEnv) => Promise<void>;
  /** The mistaken call. */
  readonly call: (t: TaskEnv) => Step;
  /** The task folder as it should end up: path -> text (undefined = absent); unlisted files stay as they were. */
  readonly intended: (t: TaskEnv) => Record<string, string | undefined>;
  /**
   * The model's follow-up after a failure, from the text: steps to send in
   * order (each may depend on the previous outcome). Default: the call the
   * text suggests (see {@link defaultFollowUp}).
   */
  readonly followUp?: (text: string, t: TaskEnv) => FollowUp | undefined;
}

/** Steps after a failure; `afterView` builds the next step after a view (fresh ids), when the text said view first. */
export interface FollowUp {
  readonly first: Step;
  readonly afterView?: (t: TaskEnv, firstOutcome: Outcome) => Promise<Step | undefined> | Step | undefined;
}

/** How one task ended. */
export type Verdict =
  | "landed" // the mistake was absorbed: success, bytes as intended
  | "silent-wrong-write" // success reported, bytes not as intended
  | "changed-on-failure" // failure reported, but bytes changed
  | "recovered-in-one" // failure; the text's next call produced the intended bytes
  | "recovered-after-view" // failure; the text's next call was the view it asked for, and the retry after it worked
  | "unrecovered"; // failure; no next call in the text, or it did not work

export interface TaskResult {
  readonly task: Task;
  readonly verdict: Verdict;
  readonly code?: string;
  readonly detail?: string;
}

/** Real sources no one here wrote, from node_modules (CRLF and tab-indented ones among them). */
export const SOURCES: Record<string, string> = {
  "hono-context": "hono/dist/context.js",
  "hono-base": "hono/dist/hono-base.js",
  "hono-request": "hono/dist/request.js",
  "hono-url": "hono/dist/utils/url.js",
  "hono-cookie": "hono/dist/utils/cookie.js",
  "debug-common": "debug/src/common.js", // tab-indented
  "debug-node": "debug/src/node.js", // tab-indented
  "schema-draft07": "json-schema-typed/draft_07.js", // CRLF
  "koa-context": "koa/lib/context.js",
  etag: "etag/index.js",
  cookie: "cookie/index.js",
  valibot: "valibot/dist/index.mjs", // ~8000 lines
};

/** Lay out one folder per task in `root`, each with its source copied (BOM added where the task's name says `bom`). */
export function layOut(root: string, modules: string, tasks: readonly Task[]): void {
  tasks.forEach((task, i) => {
    const dir = join(root, taskDir(i));
    mkdirSync(dir, { recursive: true });
    const from = join(modules, SOURCES[task.source]);
    const to = join(dir, task.as ?? from.slice(from.lastIndexOf("/") + 1));
    copyFileSync(from, to);
  });
}

export function taskDir(i: number): string {
  return `t${String(i + 1).padStart(2, "0")}`;
}

/** An agent: one MCP session against `url`. */
export async function connectAgent(url: string, token: string): Promise<Agent> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "catalogue-agent", version: "1.0.0" });
  await client.connect(transport);
  const call = async (step: Step): Promise<Outcome> => {
    const r = (await client.callTool({ name: step.tool, arguments: step.args })) as {
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
      _meta?: Record<string, unknown>;
    };
    return {
      isError: r.isError === true,
      code: r._meta?.["toolwarden/code"] as string | undefined,
      text: r.content.map((c) => c.text ?? "").join("\n"),
    };
  };
  return {
    call,
    async view(path, start, end) {
      const rows: Row[] = [];
      let from = start;
      for (let page = 0; page < 20; page++) {
        const args: Record<string, unknown> = { path };
        if (from !== undefined) args.start = from;
        if (end !== undefined) args.end = end;
        const out = await call({ tool: "view", args });
        if (out.isError) throw new Error(`view ${path} failed: ${out.code}: ${out.text}`);
        rows.push(...rowsOf(out.text));
        const more = /Continue: view (\{.*\})/.exec(out.text);
        if (!more) break;
        from = (JSON.parse(more[1]) as { start: number }).start;
      }
      return rows;
    },
    close: () => client.close(),
  };
}

/** The `N:hh|text` rows of a view. */
export function rowsOf(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+):([0-9a-f]{2})\|(.*)$/.exec(line);
    if (m) rows.push({ line: Number(m[1]), id: `${m[1]}:${m[2]}`, text: m[3] });
  }
  return rows;
}

function snapshot(root: string, dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p, "latin1"));
    }
  };
  walk(join(root, dir));
  return out;
}

function sameTree(a: Map<string, string>, b: Map<string, string>): string | undefined {
  for (const [p, v] of a) if (b.get(p) !== v) return `${p} differs`;
  for (const p of b.keys()) if (!a.has(p)) return `${p} is there but should not be`;
  return undefined;
}

/**
 * The model's default follow-up: the ready call the text gives (a
 * `batch_edit`/`edit`/`write` call without placeholders), else a lone
 * operation it offers, wrapped in a batch for the same path, else the
 * `view` it asks for (the task's retry comes after).
 */
export function defaultFollowUp(text: string, t: TaskEnv, retry?: FollowUp["afterView"]): FollowUp | undefined {
  const calls = suggestedCalls(text);
  const ready = calls.find((c) => c.tool !== "view" && !JSON.stringify(c.args).includes('"..."'));
  if (ready) return { first: { tool: ready.tool, args: ready.args } };
  for (const marker of ["send this operation: ", "Did you mean ", "As it should be: "]) {
    const at = text.indexOf(marker);
    if (at === -1) continue;
    const parsed = jsonAt(text, at + marker.length);
    if (parsed && typeof parsed.value === "object" && parsed.value !== null && "operation" in parsed.value) {
      return { first: { tool: "batch_edit", args: { path: t.path, operations: [parsed.value] } } };
    }
  }
  const view = calls.find((c) => c.tool === "view");
  if (view) return { first: { tool: "view", args: view.args }, afterView: retry };
  return undefined;
}

/** Run every task; returns one result per task. */
export async function runCatalogue(url: string, token: string, root: string, tasks: readonly Task[]): Promise<TaskResult[]> {
  const results: TaskResult[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i];
    const dir = taskDir(i);
    const file = readdirSync(join(root, dir))[0];
    const agent = await connectAgent(url, token);
    const env: TaskEnv = {
      path: `${dir}/${file}`,
      dir,
      root,
      agent,
      original: "",
      rows: [],
      disk(path = env.path) {
        try {
          return readFileSync(join(root, path), "utf8");
        } catch {
          return undefined;
        }
      },
      otherWriter(text, path = env.path) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text, "utf8");
      },
    };
    try {
      results.push(await runTask(task, env));
    } catch (error) {
      results.push({ task, verdict: "unrecovered", detail: `harness: ${error instanceof Error ? error.stack : String(error)}` });
    } finally {
      await agent.close().catch(() => {});
    }
  }
  return results;
}

/**
 * Tasks speak text (UTF-8 decoded, a BOM kept as U+FEFF, CRLF kept); the
 * trees are compared as the bytes of that text, byte for byte.
 */
async function runTask(task: Task, t: TaskEnv): Promise<TaskResult> {
  if (task.setup) await task.setup(t);
  else t.rows = await t.agent.view(t.path);
  t.original = t.disk()!;
  const before = snapshot(t.root, t.dir);
  const step = task.call(t);
  const intended = new Map(before);
  for (const [p, text] of Object.entries(task.intended(t))) {
    const key = p.startsWith(`${t.dir}/`) ? p : `${t.dir}/${p}`;
    if (text === undefined) intended.delete(key);
    else intended.set(key, utf8(text));
  }
  const first = await t.agent.call(step);
  const after = snapshot(t.root, t.dir);
  if (!first.isError) {
    const wrong = sameTree(after, intended);
    return wrong ? { task, verdict: "silent-wrong-write", detail: `${wrong}\n${first.text}` } : { task, verdict: "landed" };
  }
  const moved = sameTree(after, before);
  if (moved) return { task, verdict: "changed-on-failure", code: first.code, detail: `${moved}\n${first.text}` };

  const follow = task.followUp ? task.followUp(first.text, t) : defaultFollowUp(first.text, t);
  if (!follow) return { task, verdict: "unrecovered", code: first.code, detail: `no next call in:\n${first.text}` };
  const second = await t.agent.call(follow.first);
  if (second.isError)
    return {
      task,
      verdict: "unrecovered",
      code: first.code,
      detail: `next call ${JSON.stringify(follow.first)} failed: ${second.code}\n${second.text}\n--- first text:\n${first.text}`,
    };
  if (follow.afterView) {
    const shown = rowsOf(second.text);
    if (shown.length > 0) t.rows = shown;
    const retry = await follow.afterView(t, second);
    if (!retry) return { task, verdict: "unrecovered", code: first.code, detail: "no retry after the view" };
    const third = await t.agent.call(retry);
    const wrong = third.isError ? `${third.code}: ${third.text}` : sameTree(snapshot(t.root, t.dir), intended);
    return wrong
      ? { task, verdict: "unrecovered", code: first.code, detail: `retry after view: ${wrong}` }
      : { task, verdict: "recovered-after-view", code: first.code };
  }
  const wrong = sameTree(snapshot(t.root, t.dir), intended);
  return wrong
    ? { task, verdict: "unrecovered", code: first.code, detail: `next call landed wrong: ${wrong}\n${second.text}\n--- first text:\n${first.text}` }
    : { task, verdict: "recovered-in-one", code: first.code };
}

/** A string as the latin1 "binary string" of its UTF-8 bytes (how trees are compared). */
function utf8(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** The summary numbers. */
export interface Summary {
  readonly tasks: number;
  readonly landed: number;
  readonly failures: number;
  readonly recoveredInOne: number;
  readonly recoveredAfterView: number;
  readonly unrecovered: number;
  readonly silentWrongWrites: number;
  readonly changedOnFailure: number;
}

export function summarize(results: readonly TaskResult[]): Summary {
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  const landed = count("landed");
  const silent = count("silent-wrong-write");
  return {
    tasks: results.length,
    landed,
    failures: results.length - landed - silent,
    recoveredInOne: count("recovered-in-one"),
    recoveredAfterView: count("recovered-after-view"),
    unrecovered: count("unrecovered"),
    silentWrongWrites: silent,
    changedOnFailure: count("changed-on-failure"),
  };
}
