/**
 * The real file tools behind the real HTTP host on a real port: the official
 * MCP client and plain fetch drive the failure cycles the tools exist for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fileTools } from "../../src/tools/mod.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean; _meta?: Record<string, unknown> };

const text = new TextDecoder();
let server: TestServer;
const clients: Client[] = [];

beforeAll(() => {
  server = startServer({ tools: fileTools });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server.stop();
});

async function mcp(token: string = TOKENS.full): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "file-tools-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

async function rest(name: string, args: unknown, session: string, token: string = TOKENS.full) {
  const res = await fetch(`${server.url}/v1/tools/${name}`, {
    method: "POST",
    headers: jsonHeaders(token, session),
    body: JSON.stringify(args),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { isError: boolean; code?: string; content: Array<{ text: string }> };
}

async function fileText(path: string): Promise<string> {
  return text.decode((await server.storages.get("ws1")!.read(path)).bytes);
}

/** The id of the first view row whose content is `content`. */
function idOf(view: string, content: string): string {
  const row = view.split("\n").find((l) => l.endsWith(`|${content}`));
  if (!row) throw new Error(`no row ${content} in:\n${view}`);
  return row.slice(0, row.indexOf("|"));
}

describe("file tools over MCP", () => {
  test("tools/list: the four tools with generated schemas and annotations", async () => {
    const client = await mcp();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["view", "write", "edit", "batch_edit"]);
    expect(tools[0].annotations).toMatchObject({ readOnlyHint: true });
    for (const t of tools.slice(1)) expect(t.annotations).toMatchObject({ destructiveHint: true });
    const batch = tools.find((t) => t.name === "batch_edit")!;
    expect(Object.keys(batch.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["path", "operations"]));
  });

  test("write creates; view; a stale batch_edit after another agent shifted the file fails with fresh ids; the retry lands", async () => {
    const agent = await mcp();
    const created = await call(agent, "write", { path: "src/app.ts", content: "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
    expect(created.isError).toBeFalsy();
    const view = (await call(agent, "view", { path: "src/app.ts" })).content[0].text;
    const target = idOf(view, "const b = 2;");

    // A formatter (another session, over REST) inserts two lines at the top.
    const other = "formatter";
    await rest("view", { path: "src/app.ts" }, other);
    const shifted = await rest(
      "batch_edit",
      { path: "src/app.ts", operations: [{ operation: "insert", after: 0, content: "// header\n// generated\n" }] },
      other,
    );
    expect(shifted.isError).toBe(false);

    const stale = await call(agent, "batch_edit", { path: "src/app.ts", operations: [{ operation: "replace", start: target, content: "const b = 20;" }] });
    expect(stale.isError).toBe(true);
    expect(stale._meta?.["toolwarden/code"]).toBe("EDIT_STALE_LINE_ID");
    expect(await fileText("src/app.ts")).toBe("// header\n// generated\nconst a = 1;\nconst b = 2;\nconst c = 3;\n");
    // The error shows where the line lives now, with its fresh id.
    const fresh = idOf(stale.content[0].text.replace(/^\s+/gm, ""), "const b = 2;");
    expect(fresh).toBe(`4:${target.split(":")[1]}`);

    const retry = await call(agent, "batch_edit", { path: "src/app.ts", operations: [{ operation: "replace", start: fresh, content: "const b = 20;" }] });
    expect(retry.isError).toBeFalsy();
    expect(await fileText("src/app.ts")).toBe("// header\n// generated\nconst a = 1;\nconst b = 20;\nconst c = 3;\n");
  });

  test("write over a file this session never viewed: FS_NOT_OBSERVED, then view + write succeeds", async () => {
    const setup = await mcp();
    await call(setup, "write", { path: "notes.md", content: "one\n" });
    const agent = await mcp();
    const refused = await call(agent, "write", { path: "notes.md", content: "two\n" });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.["toolwarden/code"]).toBe("FS_NOT_OBSERVED");
    expect(refused.content[0].text).toContain('read the file, then retry: view {"path": "notes.md"}');
    expect(await fileText("notes.md")).toBe("one\n");
    await call(agent, "view", { path: "notes.md" });
    expect((await call(agent, "write", { path: "notes.md", content: "two\n" })).isError).toBeFalsy();
    expect(await fileText("notes.md")).toBe("two\n");
  });

  test("edit over REST: a string edit returns a diff with fresh ids that the next batch_edit can use", async () => {
    const s = "rest-session";
    await rest("write", { path: "lib.py", content: "def f():\n    return 1\n" }, s);
    await rest("view", { path: "lib.py" }, s);
    const edited = await rest("edit", { path: "lib.py", old_string: "return 1", new_string: "return 2" }, s);
    expect(edited.isError).toBe(false);
    const id = idOf(edited.content[0].text.replace(/^[+ -] /gm, ""), "    return 2");
    const next = await rest("batch_edit", { path: "lib.py", operations: [{ operation: "insert", after: id, content: "# done" }] }, s);
    expect(next.isError).toBe(false);
    expect(await fileText("lib.py")).toBe("def f():\n    return 2\n# done\n");
  });

  test("a read-only token cannot write: FS_ACCESS_DENIED with the sandbox wording, nothing written", async () => {
    const ro = await rest("write", { path: "ro.txt", content: "x" }, "ro", TOKENS.readOnly);
    expect(ro.isError).toBe(true);
    expect(ro.code).toBe("FS_ACCESS_DENIED");
    expect(ro.content[0].text).toContain("[sandbox: file access denied under read-only mode]");
    expect(await server.storages.get("ws1")!.stat("ro.txt")).toBeNull();
  });
});
