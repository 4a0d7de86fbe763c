/**
 * Issue 12, "wrong bytes, written as success": every class, through the real
 * tools behind the real HTTP host on a real port, over REST (fetch) and over
 * MCP (the official client). Each case asserts the bytes on disk (a real
 * local directory; memory storage for the rootless cases) and the text the
 * model reads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile, mkdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { Storage } from "../../src/storage/types.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

interface Answer {
  readonly isError: boolean;
  readonly code?: string;
  readonly text: string;
}

/** One way to reach the tools, with its own observation session. */
interface Agent {
  readonly name: string;
  call(tool: string, args: Record<string, unknown>): Promise<Answer>;
}

let root: string;
let server: TestServer;
let memory: Storage;
const clients: Client[] = [];
let sessions = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "tw-bytes-"));
  const local = await createLocalStorage(root);
  memory = createMemoryStorage();
  server = startServer({ tools: fileTools, storageFor: (ws: string) => (ws === "ws2" ? memory : local) });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server.stop();
  await rm(root, { recursive: true, force: true });
});

function restAgent(token: string = TOKENS.full): Agent {
  const session = `rest-${++sessions}`;
  return {
    name: "REST",
    async call(tool, args) {
      const res = await fetch(`${server.url}/v1/tools/${tool}`, {
        method: "POST",
        headers: jsonHeaders(token, session),
        body: JSON.stringify(args),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { isError: boolean; code?: string; content: Array<{ text: string }> };
      return { isError: body.isError, code: body.code, text: body.content.map((c) => c.text).join("\n") };
    },
  };
}

async function mcpAgent(token: string = TOKENS.full): Promise<Agent> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "wrong-bytes-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return {
    name: "MCP",
    async call(tool, args) {
      const r = (await client.callTool({ name: tool, arguments: args })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
        _meta?: Record<string, unknown>;
      };
      return { isError: r.isError === true, code: r._meta?.["toolwarden/code"] as string | undefined, text: r.content.map((c) => c.text).join("\n") };
    },
  };
}

/** Run `body` once over REST and once over MCP, each with a fresh session and its own file name suffix. */
function bothTransports(name: string, body: (agent: Agent, tag: string) => Promise<void>, token?: string) {
  test(`${name} (REST)`, async () => body(restAgent(token), "rest"));
  test(`${name} (MCP)`, async () => body(await mcpAgent(token), "mcp"));
}

async function disk(path: string): Promise<string> {
  return readFile(join(root, path), "utf8");
}
async function diskBytes(path: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(root, path)));
}
async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(join(root, path, ".."), { recursive: true });
  await writeFile(join(root, path), content);
}
async function exists(path: string): Promise<boolean> {
  return stat(join(root, path)).then(
    () => true,
    () => false,
  );
}
function ok(a: Answer): string {
  if (a.isError) throw new Error(`expected success, got ${a.code}:\n${a.text}`);
  return a.text;
}
function failed(a: Answer, code: string): string {
  if (!a.isError || a.code !== code) throw new Error(`expected ${code}, got ${a.isError ? a.code : "success"}:\n${a.text}`);
  return a.text;
}
/** The id of the first view row whose content is `content`. */
function idOf(view: string, content: string): string {
  const row = view.split("\n").find((l) => l.endsWith(`|${content}`));
  if (!row) throw new Error(`no row ${content} in:\n${view}`);
  return row.slice(0, row.indexOf("|")).replace(/^[>+\- ]+/, "");
}
/** The JSON object after `prefix` on its line of `text`. */
function callAfter(text: string, prefix: string): Record<string, unknown> {
  const line = text.split("\n").find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`no line starting ${prefix} in:\n${text}`);
  return JSON.parse(line.slice(prefix.length)) as Record<string, unknown>;
}

describe("absolute paths", () => {
  bothTransports("inside a local root: resolves to the file, results name it relative; write lands there, no nested copy", async (agent, tag) => {
    await put(`src/abs-${tag}.ts`, "const a = 1;\n");
    const abs = join(root, `src/abs-${tag}.ts`);
    const view = ok(await agent.call("view", { path: abs }));
    expect(view).toContain(`[src/abs-${tag}.ts: 1 line]`);
    expect(view).not.toContain(root);
    const edited = ok(await agent.call("edit", { path: abs, old_string: "const a = 1;", new_string: "const a = 2;" }));
    expect(edited).toContain(`Edited \`src/abs-${tag}.ts\``);
    expect(await disk(`src/abs-${tag}.ts`)).toBe("const a = 2;\n");
    ok(await agent.call("write", { path: join(root, `src/new-${tag}.ts`), content: "x\n" }));
    expect(await disk(`src/new-${tag}.ts`)).toBe("x\n");
    expect(await exists(root.slice(1).split("/")[0])).toBe(false);
  });

  bothTransports("outside a local root: FS_INVALID_PATH naming the root; nothing written", async (agent, tag) => {
    const text = failed(await agent.call("write", { path: `/srv/elsewhere/${tag}.ts`, content: "x\n" }), "FS_INVALID_PATH");
    expect(text).toContain(`outside the workspace root \`${root}\``);
    expect(await exists("srv")).toBe(false);
    failed(await agent.call("view", { path: "/etc/passwd" }), "FS_INVALID_PATH");
  });

  bothTransports(
    "without a real root (memory): a leading / is the workspace root",
    async (agent, tag) => {
      ok(await agent.call("write", { path: `/notes/${tag}.md`, content: "hi\n" }));
      expect(new TextDecoder().decode((await memory.read(`notes/${tag}.md`)).bytes)).toBe("hi\n");
      expect(ok(await agent.call("view", { path: `/notes/${tag}.md` }))).toContain(`[notes/${tag}.md: 1 line]`);
    },
    TOKENS.other,
  );

  test("every tool description says how paths are read", async () => {
    const client = (await mcpAgent()) && clients[clients.length - 1];
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.description).toContain("An absolute path is accepted when the workspace is a local directory");
  });
});

describe("trailing slash", () => {
  bothTransports("write, edit and batch_edit refuse a path ending in /; no file named like the directory", async (agent, tag) => {
    const text = failed(await agent.call("write", { path: `newdir-${tag}/`, content: "x\n" }), "FS_INVALID_PATH");
    expect(text).toContain('ends with "/", so it names a directory');
    expect(text).toContain(`"newdir-${tag}/<name>"`);
    expect(await exists(`newdir-${tag}`)).toBe(false);
    failed(await agent.call("edit", { path: `newdir-${tag}/`, old_string: "a", new_string: "b" }), "FS_INVALID_PATH");
    failed(await agent.call("batch_edit", { path: `newdir-${tag}/`, operations: [{ operation: "insert", after: 0, content: "x" }] }), "FS_INVALID_PATH");
    expect(await exists(`newdir-${tag}`)).toBe(false);
  });
});

describe("byte-order mark", () => {
  bothTransports("old_string and new_string starting with U+FEFF on a BOM file: one BOM on disk", async (agent, tag) => {
    const path = `bom-${tag}.ts`;
    await put(path, "\uFEFFimport a from 'a';\nuse(a);\n");
    ok(await agent.call("view", { path }));
    const text = ok(await agent.call("edit", { path, old_string: "\uFEFFimport a from 'a';", new_string: "\uFEFFimport b from 'b';" }));
    expect(text).toContain("replaced 1 occurrence (line 1)");
    const bytes = await diskBytes(path);
    expect([...bytes.slice(0, 6)]).toEqual([0xef, 0xbb, 0xbf, 0x69, 0x6d, 0x70]);
    expect(await disk(path)).toBe("\uFEFFimport b from 'b';\nuse(a);\n");
    // A BOM in old_string is the file's BOM, so it never matches mid-file.
    const mid = failed(await agent.call("edit", { path, old_string: "\uFEFFuse(a);", new_string: "use(b);" }), "EDIT_NO_MATCH");
    expect(mid).toContain("nothing was changed");
    // batch_edit content for line 1 starting with U+FEFF does not add a second BOM either.
    const view = ok(await agent.call("view", { path }));
    ok(
      await agent.call("batch_edit", {
        path,
        operations: [{ operation: "replace", start: idOf(view, "import b from 'b';"), content: "\uFEFFimport c from 'c';" }],
      }),
    );
    expect(await disk(path)).toBe("\uFEFFimport c from 'c';\nuse(a);\n");
  });
});

describe("escape rung", () => {
  bothTransports("an intended \\t inside a literal in new_string: refused with the exact corrected call, which then lands", async (agent, tag) => {
    const path = `esc-${tag}.js`;
    const before = "function row(a, b) {\n\treturn a;\n}\n";
    await put(path, before);
    ok(await agent.call("view", { path }));
    const text = failed(
      await agent.call("edit", { path, old_string: "function row(a, b) {\\n\\treturn a;", new_string: 'function row(a, b) {\\n\\treturn a + "\\t" + b;' }),
      "EDIT_AMBIGUOUS",
    );
    expect(text).toContain("inside a quoted literal");
    expect(await disk(path)).toBe(before);
    const corrected = callAfter(text, "edit ");
    expect(corrected).toEqual({ path, old_string: "function row(a, b) {\n\treturn a;", new_string: 'function row(a, b) {\n\treturn a + "\\t" + b;' });
    ok(await agent.call("edit", corrected));
    expect(await disk(path)).toBe('function row(a, b) {\n\treturn a + "\\t" + b;\n}\n');
  });

  bothTransports("escapes only outside literals are read, with a hint", async (agent, tag) => {
    const path = `esc2-${tag}.js`;
    await put(path, "a();\nb();\n");
    ok(await agent.call("view", { path }));
    const text = ok(await agent.call("edit", { path, old_string: "a();\\nb();", new_string: "a();\\nc();" }));
    expect(text).toContain("literal \\n / \\t as real newlines / tabs");
    expect(await disk(path)).toBe("a();\nc();\n");
  });

  bothTransports(
    "batch_edit: one-line content with a literal \\n outside quotes is refused with the corrected op; inside quotes it is code",
    async (agent, tag) => {
      const path = `esc3-${tag}.js`;
      await put(path, "a();\nb();\n");
      const view = ok(await agent.call("view", { path }));
      const id = idOf(view, "b();");
      const text = failed(
        await agent.call("batch_edit", { path, operations: [{ operation: "replace", start: id, content: "b();\\nc();" }] }),
        "INVALID_ARGUMENT",
      );
      expect(text).toContain('{"operation":"replace","start":"2:');
      expect(text).toContain('"content":"b();\\nc();"');
      expect(await disk(path)).toBe("a();\nb();\n");
      ok(await agent.call("batch_edit", { path, operations: [{ operation: "replace", start: id, content: 'log("x\\ny");' }] }));
      expect(await disk(path)).toBe('a();\nlog("x\\ny");\n');
    },
  );
});

describe("pasted view artifacts", () => {
  bothTransports("batch_edit content carrying the very id it replaces: stripped, with a note", async (agent, tag) => {
    const path = `paste-${tag}.ts`;
    await put(path, "const a = 1;\nconst b = 2;\n");
    const view = ok(await agent.call("view", { path }));
    const id = idOf(view, "const b = 2;");
    const text = ok(await agent.call("batch_edit", { path, operations: [{ operation: "replace", start: id, content: `${id}|const b = 3;` }] }));
    expect(text).toContain("view prefix of the very line it replaces");
    expect(await disk(path)).toBe("const a = 1;\nconst b = 3;\n");
  });

  bothTransports("prefixes on inserted content and in new_string not naming the replaced lines: refused with the cleaned call", async (agent, tag) => {
    const path = `paste2-${tag}.ts`;
    const before = "const a = 1;\nconst b = 2;\n";
    await put(path, before);
    ok(await agent.call("view", { path }));
    const t1 = failed(
      await agent.call("batch_edit", { path, operations: [{ operation: "insert", after: -1, content: "9:ab|const c = 3;" }] }),
      "INVALID_ARGUMENT",
    );
    expect(t1).toContain('"content":"const c = 3;"');
    const t2 = failed(await agent.call("edit", { path, old_string: "const a = 1;", new_string: "7:0f|const a = 5;" }), "INVALID_ARGUMENT");
    const cleaned = callAfter(t2, "edit ");
    expect(cleaned).toEqual({ path, old_string: "const a = 1;", new_string: "const a = 5;" });
    expect(await disk(path)).toBe(before);
    ok(await agent.call("edit", cleaned));
    expect(await disk(path)).toBe("const a = 5;\nconst b = 2;\n");
  });

  bothTransports("a whole-file write pasted from its view: every line's prefix names the current file's line, stripped with a note", async (agent, tag) => {
    const path = `paste3-${tag}.ts`;
    await put(path, "one\ntwo\nthree\n");
    const view = ok(await agent.call("view", { path }));
    const rows = view.split("\n").filter((l) => /^\d+:[0-9a-f]{2}\|/.test(l));
    const content = `${rows.map((r) => r.replace("|two", "|TWO")).join("\n")}\n`;
    const text = ok(await agent.call("write", { path, content }));
    expect(text).toContain("the prefixes were removed");
    expect(await disk(path)).toBe("one\nTWO\nthree\n");
  });

  bothTransports("a new file whose every line carries a prefix: refused with the cleaned write; verbatim writes it as sent", async (agent, tag) => {
    const path = `paste4-${tag}.ts`;
    const text = failed(await agent.call("write", { path, content: "1:aa|x\n2:bb|y\n" }), "INVALID_ARGUMENT");
    expect(callAfter(text, "write ")).toEqual({ path, content: "x\ny\n" });
    expect(await exists(path)).toBe(false);
    ok(await agent.call("write", { path, content: "1:aa|x\n2:bb|y\n", verbatim: true }));
    expect(await disk(path)).toBe("1:aa|x\n2:bb|y\n");
  });

  bothTransports("markdown code fences around content for a non-markdown file: refused with the cleaned call; a .md file keeps them", async (agent, tag) => {
    const path = `fence-${tag}.py`;
    const text = failed(await agent.call("write", { path, content: "```python\nprint(1)\n```\n" }), "INVALID_ARGUMENT");
    expect(text).toContain("markdown code fence");
    expect(callAfter(text, "write ")).toEqual({ path, content: "print(1)\n" });
    expect(await exists(path)).toBe(false);
    ok(await agent.call("write", { path: `fence-${tag}.md`, content: "```python\nprint(1)\n```\n" }));
    expect(await disk(`fence-${tag}.md`)).toBe("```python\nprint(1)\n```\n");
  });
});

describe("whole-file write after a partial view", () => {
  bothTransports("a 3-line view or a search hit does not license replacing 350 lines; ranged views add up", async (agent, tag) => {
    const path = `big-${tag}.ts`;
    const before = `${Array.from({ length: 350 }, (_, i) => `line ${i + 1};`).join("\n")}\n`;
    await put(path, before);
    ok(await agent.call("view", { path, start: 1, end: 3 }));
    ok(await agent.call("view", { path: ".", content: "line 200;" }));
    const text = failed(await agent.call("write", { path, content: "short\n" }), "FS_NOT_OBSERVED");
    expect(text).toContain("has 350 lines, and this session has not seen 346 of them");
    expect(text).toContain("lines 4-199, lines 201-350");
    expect(text).toContain(`view {"path": "${path}", "start": 4, "end": 199}`);
    expect(text).toContain(`view {"path": "${path}", "start": 201, "end": 350}`);
    expect(await disk(path)).toBe(before);
    ok(await agent.call("view", { path, start: 4, end: 199 }));
    failed(await agent.call("write", { path, content: "short\n" }), "FS_NOT_OBSERVED");
    ok(await agent.call("view", { path, start: 201, end: 350 }));
    ok(await agent.call("write", { path, content: "short\n" }));
    expect(await disk(path)).toBe("short\n");
  });
});

describe("final newline", () => {
  bothTransports("an edit that adds the final newline says so", async (agent, tag) => {
    const path = `eol-${tag}.txt`;
    await put(path, "a\nb");
    ok(await agent.call("view", { path }));
    const text = ok(await agent.call("edit", { path, old_string: "b", new_string: "b\n" }));
    expect(text).toContain("the file now ends with a newline (it had none before this edit)");
    expect(await disk(path)).toBe("a\nb\n");
    // Dropping old_string's last newline does not remove the file's: the refusal says so and how.
    const kept = failed(await agent.call("edit", { path, old_string: "b\n", new_string: "b" }), "EDIT_NO_CHANGE");
    expect(kept).toContain("edit keeps the file's final newline");
    expect(kept).toContain("write");
    expect(await disk(path)).toBe("a\nb\n");
  });
});
