/**
 * Failures that hand back the next call, over both transports (REST and the
 * official MCP client against a real port): the text a model sees, and the
 * bytes on disk before and after it follows that text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fileTools } from "../../src/tools/mod.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";
import { firstCall } from "../helpers/suggested-calls.ts";

interface Outcome {
  readonly isError: boolean;
  readonly code?: string;
  readonly text: string;
}
type Caller = (tool: string, args: unknown) => Promise<Outcome>;

let server: TestServer;
const clients: Client[] = [];
const decoder = new TextDecoder();

beforeAll(() => {
  server = startServer({ tools: fileTools });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server.stop();
});

function restCaller(session: string): Caller {
  return async (tool, args) => {
    const res = await fetch(`${server.url}/v1/tools/${tool}`, { method: "POST", headers: jsonHeaders(TOKENS.full, session), body: JSON.stringify(args) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { isError: boolean; code?: string; content: Array<{ text: string }> };
    return { isError: body.isError, code: body.code, text: body.content.map((c) => c.text).join("\n") };
  };
}

async function mcpCaller(): Promise<Caller> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${TOKENS.full}` } },
  });
  const client = new Client({ name: "hints-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return async (tool, args) => {
    const r = (await client.callTool({ name: tool, arguments: args as Record<string, unknown> })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
      _meta?: Record<string, unknown>;
    };
    return { isError: r.isError === true, code: r._meta?.["toolwarden/code"] as string | undefined, text: r.content.map((c) => c.text).join("\n") };
  };
}

async function disk(path: string): Promise<string> {
  return decoder.decode((await server.storages.get("ws1")!.read(path)).bytes);
}

function failed(outcome: Outcome, code: string): string {
  if (!outcome.isError || outcome.code !== code) throw new Error(`expected ${code}, got ${outcome.code ?? "success"}:\n${outcome.text}`);
  return outcome.text;
}

function succeeded(outcome: Outcome): string {
  if (outcome.isError) throw new Error(`expected success, got ${outcome.code}:\n${outcome.text}`);
  return outcome.text;
}

/** The id view shows for the line reading `content`. */
function idIn(view: string, content: string): string {
  const row = view.split("\n").find((l) => l.endsWith(`|${content}`));
  if (!row) throw new Error(`no ${content} in:\n${view}`);
  return row.slice(0, row.indexOf("|"));
}

const FILE = ["import { a } from './a';", "", "export function f(x) {", "  return a(x, { strict: true });", "}", "", 'export const g = "on";', ""].join("\n");

for (const transport of ["rest", "mcp"] as const) {
  describe(`hints over ${transport}`, () => {
    let n = 0;
    async function agent(): Promise<Caller> {
      return transport === "rest" ? restCaller(`hints-${++n}-${crypto.randomUUID()}`) : await mcpCaller();
    }
    /** A fresh file created and viewed by the agent; returns the view text. */
    async function setup(call: Caller, path: string, content = FILE): Promise<string> {
      succeeded(await call("write", { path, content }));
      return succeeded(await call("view", { path }));
    }

    test("mistyped id on an unchanged file: names line N and the real id; the corrected batch lands", async () => {
      const call = await agent();
      const path = `${transport}/mistyped.ts`;
      const view = await setup(call, path);
      const real = idIn(view, "  return a(x, { strict: true });");
      const wrong = `4:${real.endsWith("0") ? "1" : "0"}${real.slice(-1)}`;
      const text = failed(
        await call("batch_edit", { path, operations: [{ operation: "replace", start: wrong, content: "  return a(x);" }] }),
        "EDIT_STALE_LINE_ID",
      );
      expect(text).toContain(`does not match line 4: the file is exactly as you viewed it, and line 4 is ${real}`);
      expect(await disk(path)).toBe(FILE);
      succeeded(await call("batch_edit", firstCall(text, "batch_edit")));
      expect(await disk(path)).toBe(FILE.replace("  return a(x, { strict: true });", "  return a(x);"));
    });

    test("another writer shifted the file: one shift explains the batch, and its correction lands", async () => {
      const call = await agent();
      const path = `${transport}/shifted.ts`;
      const view = await setup(call, path);
      const other = restCaller(`other-${transport}`);
      succeeded(await other("view", { path }));
      succeeded(await other("batch_edit", { path, operations: [{ operation: "insert", after: 0, content: "// @ts-check\n// generated\n" }] }));
      const shifted = `// @ts-check\n// generated\n${FILE}`;
      const ops = [
        { operation: "replace", start: idIn(view, "  return a(x, { strict: true });"), content: "  return a(x);" },
        { operation: "replace", start: idIn(view, 'export const g = "on";'), content: 'export const g = "off";' },
      ];
      const text = failed(await call("batch_edit", { path, operations: ops }), "EDIT_STALE_LINE_ID");
      expect(text).toContain("Corrected batch, ready to send (every stale id moved by the same +2 lines");
      expect(await disk(path)).toBe(shifted);
      succeeded(await call("batch_edit", firstCall(text, "batch_edit")));
      expect(await disk(path)).toBe(shifted.replace("  return a(x, { strict: true });", "  return a(x);").replace('"on"', '"off"'));
    });

    test("a bare line number: the line's current id and the corrected batch", async () => {
      const call = await agent();
      const path = `${transport}/bare.ts`;
      const view = await setup(call, path);
      const text = failed(await call("batch_edit", { path, operations: [{ operation: "delete", start: 7 }] }), "INVALID_ARGUMENT");
      expect(text).toContain(`Use "${idIn(view, 'export const g = "on";')}".`);
      expect(await disk(path)).toBe(FILE);
      succeeded(await call("batch_edit", firstCall(text, "batch_edit")));
      expect(await disk(path)).toBe(FILE.replace('export const g = "on";\n', ""));
    });

    test("an empty replace with a wrong id suggests nothing with that id", async () => {
      const call = await agent();
      const path = `${transport}/empty.ts`;
      const view = await setup(call, path);
      const text = failed(await call("batch_edit", { path, operations: [{ operation: "replace", start: "1:00", content: "" }] }), "EDIT_STALE_LINE_ID");
      expect(text).not.toMatch(/"start": ?"1:00"/);
      const retry = firstCall(text, "batch_edit");
      expect(retry.operations).toEqual([{ operation: "delete", start: idIn(view, "import { a } from './a';") }]);
      succeeded(await call("batch_edit", retry));
      expect(await disk(path)).toBe(FILE.replace("import { a } from './a';\n", ""));
    });

    test("no match, whitespace only: that place first, and its corrected edit lands", async () => {
      const call = await agent();
      const path = `${transport}/ws.ts`;
      await setup(call, path);
      const text = failed(await call("edit", { path, old_string: "a(x,{ strict: true })", new_string: "a(x, { strict: false })" }), "EDIT_NO_MATCH");
      expect(text.split("\n")[0]).toContain("but it is there when whitespace is ignored (at line 4)");
      expect(text.split("\n")[2]).toStartWith("1. line 4:");
      expect(await disk(path)).toBe(FILE);
      succeeded(await call("edit", firstCall(text, "edit")));
      expect(await disk(path)).toBe(FILE.replace("strict: true", "strict: false"));
    });

    test("no match, smart quotes: the code points of the first different character", async () => {
      const call = await agent();
      const path = `${transport}/quotes.ts`;
      await setup(call, path);
      const text = failed(await call("edit", { path, old_string: "export const g = \u201con\u201d;", new_string: 'export const g = "off";' }), "EDIT_NO_MATCH");
      expect(text).toContain("(U+201C left double quotation mark) where the file");
      expect(text).toContain("(U+0022 quotation mark)");
      expect(await disk(path)).toBe(FILE);
    });

    test("`op` for `operation`: did-you-mean with the operation renamed, which works", async () => {
      const call = await agent();
      const path = `${transport}/op.ts`;
      const view = await setup(call, path);
      const text = failed(
        await call("batch_edit", { path, operations: [{ op: "delete", start: idIn(view, "import { a } from './a';") }] }),
        "INVALID_ARGUMENT",
      );
      expect(text).toContain("Did you mean `op` -> `operation`?");
      const fixed = JSON.parse(text.slice(text.indexOf("As it should be: ") + 17, text.indexOf("\n", text.indexOf("As it should be: "))));
      succeeded(await call("batch_edit", { path, operations: [fixed] }));
      expect(await disk(path)).toBe(FILE.replace("import { a } from './a';\n", ""));
    });

    test("FS_IS_DIRECTORY says it once", async () => {
      const call = await agent();
      await setup(call, `${transport}/dir/x.ts`);
      const text = failed(await call("edit", { path: `${transport}/dir`, old_string: "a", new_string: "b" }), "FS_IS_DIRECTORY");
      expect(text.match(/is a directory/g)).toHaveLength(1);
    });

    test("a long line's diff shows the change", async () => {
      const call = await agent();
      const path = `${transport}/long.js`;
      const long = `export const ids = [${Array.from({ length: 2000 }, (_, i) => i).join(", ")}];`;
      await setup(call, path, `${long}\n`);
      const text = succeeded(await call("edit", { path, old_string: "1500, 1501", new_string: "1500, 99999" }));
      expect(text).toMatch(/\n- 1:[0-9a-f]{2}\|… \[\d+ chars before not shown\] [^\n]*1500, 1501/);
      expect(text).toMatch(/\n\+ 1:[0-9a-f]{2}\|… \[\d+ chars before not shown\] [^\n]*1500, 99999/);
      expect(await disk(path)).toBe(`${long.replace("1500, 1501", "1500, 99999")}\n`);
    });
  });
}
