/**
 * docs/tools.md's examples as golden files: each example below is rebuilt on
 * a fixture workspace (memory storage), the real tool is called in-process,
 * and its text must equal the docs block exactly. A block that starts with a
 * call line (`view {...}`) is compared below that line; a docs line that is
 * just "..." (indented or not) stands for lines the docs leave out (the lines around it must
 * still appear, in order).
 *
 * Covered: view (a file with CRLF, a cut view, a directory listing, a search
 * with context, binary and not-found failures); write (created, updated with
 * its diff, the unseen-lines refusal, not viewed, changed since viewed, the
 * code-fence refusal); edit (edited, ambiguous, whitespace-only no-match,
 * typographic no-match, no change); batch_edit (applied with a shift note,
 * stale ids corrected by one shift, a mistyped id, a conflict, a duplicated
 * line, a stripped view prefix).
 * Also: a path ending in "/", the escaped-new_string refusal, and the shell
 * guard's refusal of `cat` (its message, as the guard words it).
 * Not covered: the absolute-path refusal (it names a local root, /srv/ws),
 * and the loud-failure example (a rules-layer result over a real bash run).
 */
import { describe, expect, test } from "bun:test";
import { resultText, type ToolResult } from "../../src/result.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { checkShellCommand } from "../../src/tools/shell/guard.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, markViewed } from "../helpers/tool-mutation.ts";
import { view } from "../helpers/tool-view.ts";

const docs = await Bun.file(new URL("../../docs/tools.md", import.meta.url)).text();

/** Every fenced block, as its lines (a block indented in a list item loses that indent). */
const blocks: string[][] = [...docs.matchAll(/^( *)```\n([\s\S]*?)\n\1```$/gm)].map((m) =>
  m[2].split("\n").map((line) => (line.startsWith(m[1]) ? line.slice(m[1].length) : line)),
);

/** The one docs block whose first line starts with `start` (and that holds a line holding `holding`, when given). */
function block(start: string, holding = ""): string[] {
  const found = blocks.filter((lines) => lines[0].startsWith(start) && lines.some((line) => line.includes(holding)));
  if (found.length !== 1) throw new Error(`${found.length} docs blocks start with ${JSON.stringify(start)}`);
  return found[0];
}

/** Assert `actual` is the docs block, "..." lines standing for any lines. */
function expectDocs(actual: string, expected: string[]): void {
  if (!expected.some((line) => line.trim() === "...")) {
    expect(actual).toBe(expected.join("\n"));
    return;
  }
  const lines = actual.split("\n");
  let at = 0;
  let skipping = false;
  for (const want of expected) {
    if (want.trim() === "...") {
      skipping = true;
      continue;
    }
    if (skipping) {
      while (at < lines.length && lines[at] !== want) at++;
      skipping = false;
    }
    expect(lines[at]).toBe(want);
    at++;
  }
  if (!skipping) expect(lines.length).toBe(at);
}

/** The block that starts with a call line: the call's arguments, and the expected output below it. */
function callBlock(start: string): { args: unknown; output: string[] } {
  const lines = block(start);
  const space = lines[0].indexOf(" ");
  return { args: JSON.parse(lines[0].slice(space + 1)), output: lines.slice(1) };
}

const text = (result: ToolResult) => resultText(result);

/** The demo project the view examples show. */
const project = {
  "README.md": "# demo\r\nRun `main(8080)`.\r\n",
  "src/http.ts": "export function serve(options: { port: number }) {\n  return { port: options.port, close() {} };\n}\n",
  "src/server.ts":
    'import { serve } from "./http.ts";\n\nexport function main(port: number) {\n  const server = serve({ port });\n' +
    "  console.log(`listening on ${port}`);\n  return server;\n}\n",
  "src/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
  "test/server.test.ts": 'import { main } from "../src/server.ts";\nmain(0).close();\n',
  ".gitignore": "dist/\n",
  "dist/app.js": "port\n",
};

async function projectContext(limits = {}): Promise<ToolContext> {
  const ctx = makeContext({ limits });
  await seed(ctx.storage, project);
  return ctx;
}

describe("docs/tools.md: view", () => {
  test("a file with CRLF line endings", async () => {
    const { args, output } = callBlock('view {"path": "README.md"}');
    expectDocs((await view(await projectContext(), args)).text, output);
  });
  test("a cut view ends with the next call", async () => {
    const ctx = await projectContext({ maxViewLines: 4 });
    expectDocs((await view(ctx, { path: "src/server.ts" })).text, block("[src/server.ts: lines 1-4 of 7]"));
  });
  test("a directory listing", async () => {
    const { args, output } = callBlock('view {"path": ".", "depth": 2}');
    expectDocs((await view(await projectContext(), args)).text, output);
  });
  test("a search with context", async () => {
    const { args, output } = callBlock('view {"path": ".", "content": "port"');
    expectDocs((await view(await projectContext(), args)).text, output);
  });
  test("a binary file and a missing one", async () => {
    const ctx = await projectContext();
    expectDocs((await view(ctx, { path: "src/logo.png" })).text, block("`src/logo.png` is a binary file"));
    expectDocs((await view(ctx, { path: "src/sever.ts" })).text, block("`src/sever.ts` does not exist"));
  });
});

/** The file the write examples create and then update. */
const serverV1 = [
  'import { serve } from "./http";',
  "",
  "const port = 3000;",
  "",
  "export function start() {",
  "  serve(port);",
  '  console.log("listening");',
  "}",
  "",
].join("\n");
const serverV2 = [
  'import { serve } from "./http";',
  'import { log } from "./log";',
  "",
  "const port = Number(process.env.PORT ?? 3000);",
  "",
  "export function start() {",
  "  serve(port);",
  '  log.info("listening", { port });',
  "}",
  "",
].join("\n");

describe("docs/tools.md: write", () => {
  test("created, then updated with its diff", async () => {
    const ctx = makeContext();
    expectDocs(text(await call(writeTool, { path: "src/server.ts", content: serverV1 }, ctx)), block("Created `src/server.ts`"));
    expectDocs(text(await call(writeTool, { path: "src/server.ts", content: serverV2 }, ctx)), block("Updated `src/server.ts`"));
    expect(await readText(ctx.storage, "src/server.ts")).toBe(serverV2);
  });
  test("a replace based on unseen lines is refused with the views to make", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/server.ts": Array.from({ length: 350 }, (_, i) => `line ${i + 1}\n`).join("") });
    await view(ctx, { path: "src/server.ts", start: 1, end: 3 });
    expectDocs(text(await call(writeTool, { path: "src/server.ts", content: "x\n" }, ctx)), block("`src/server.ts` has 350 lines"));
  });
  test("not viewed, and changed since viewed", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/config.ts": "a\n" });
    expectDocs(text(await call(writeTool, { path: "src/config.ts", content: "b\n" }, ctx)), block("`src/config.ts` already exists"));
    await markViewed(ctx, "src/config.ts");
    await seed(ctx.storage, { "src/config.ts": "c\n" });
    expectDocs(text(await call(writeTool, { path: "src/config.ts", content: "b\n" }, ctx)), block("`src/config.ts` changed since"));
  });
  test("a code fence around content for a non-markdown file", async () => {
    const ctx = makeContext();
    const result = await call(writeTool, { path: "src/new.py", content: "```python\nprint(1)\n```\n" }, ctx);
    expectDocs(text(result), block("The content for `src/new.py`"));
  });
});

/** src/routes.ts as the edit and batch_edit examples first view it. */
const routes = [
  "export function users(req) {",
  "  const id = req.params.id;",
  "  return db.users.get(id);",
  "}",
  "",
  "export function orders(req) {",
  "  const id = req.params.id;",
  "  return db.orders.get(id);",
  "}",
  "",
].join("\n");
/** The same file after another writer added two lines at the top. */
const routesMoved = `import { db } from "./db";\n\n${routes}`;

async function routesContext(content = routes): Promise<ToolContext> {
  const ctx = makeContext();
  await seed(ctx.storage, { "src/routes.ts": content });
  await markViewed(ctx, "src/routes.ts");
  return ctx;
}

describe("docs/tools.md: paths and bash", () => {
  test("a path ending in / names a directory", async () => {
    const result = await call(writeTool, { path: "newdir/", content: "x\n" }, makeContext());
    expectDocs(text(result), block("The path `newdir/` ends with"));
  });
  test("bash refuses a command that reads project files, with the view calls", () => {
    const verdict = checkShellCommand("cat src/x.ts");
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expectDocs(verdict.message, block("bash refused `cat src/x.ts`"));
  });
});

describe("docs/tools.md: edit", () => {
  test("edited, then batch_edit applied on the result", async () => {
    const ctx = await routesContext();
    const edited = await call(
      editTool,
      {
        path: "src/routes.ts",
        old_string: "  return db.orders.get(id);",
        new_string: "  const order = db.orders.get(id);\n  return order ?? notFound(id);",
      },
      ctx,
    );
    expectDocs(text(edited), block("Edited `src/routes.ts`"));
    const applied = await call(
      batchEditTool,
      {
        path: "src/routes.ts",
        operations: [
          { operation: "insert", after: 0, content: 'import { db, notFound } from "./db";' },
          { operation: "replace", start: "3:10", content: "  return db.users.get(id) ?? notFound(id);" },
        ],
      },
      ctx,
    );
    expectDocs(text(applied), block("Applied 2 operations to `src/routes.ts`"));
  });
  test("ambiguous", async () => {
    const ctx = await routesContext();
    const result = await call(editTool, { path: "src/routes.ts", old_string: "  const id = req.params.id;", new_string: "x" }, ctx);
    expectDocs(text(result), block("old_string matches 2 places"));
  });
  test("no match: only whitespace differs", async () => {
    const ctx = await routesContext(routesMoved);
    const result = await call(editTool, { path: "src/routes.ts", old_string: "db.orders.get( id)", new_string: "db.orders.find(id)" }, ctx);
    expectDocs(text(result), block("old_string is not in `src/routes.ts` as written"));
  });
  test("no match: the closest places", async () => {
    const ctx = await routesContext(routesMoved);
    const result = await call(editTool, { path: "src/routes.ts", old_string: "return db.users.get(\u201cid\u201d);", new_string: "x" }, ctx);
    expectDocs(text(result), block("old_string was not found in `src/routes.ts`"));
  });
  test("an escaped new_string with an escape inside a quoted literal", async () => {
    const ctx = await routesContext();
    await seed(ctx.storage, { "src/table.js": "function row(a, b) {\n\treturn a;\n}\n" });
    await markViewed(ctx, "src/table.js");
    const args = {
      path: "src/table.js",
      old_string: "function row(a, b) {\\n\\treturn a;",
      new_string: 'function row(a, b) {\\n\\treturn a + "\\t" + b;',
    };
    expectDocs(text(await call(editTool, args, ctx)), block("old_string matched `src/table.js` only after"));
  });
  test("no change", async () => {
    const ctx = await routesContext();
    const result = await call(editTool, { path: "src/routes.ts", old_string: "db", new_string: "db" }, ctx);
    expectDocs(text(result), block("old_string and new_string are identical"));
  });
});

describe("docs/tools.md: batch_edit", () => {
  test("stale ids corrected by one shift", async () => {
    const ctx = await routesContext();
    await seed(ctx.storage, { "src/routes.ts": routesMoved });
    const expected = block("No operations were applied — 2 of 2");
    const last = expected[expected.length - 1];
    const args: unknown = JSON.parse(last.slice(last.indexOf(" ") + 1));
    const stale = {
      path: "src/routes.ts",
      operations: [
        { operation: "replace", start: "3:10", content: "  return db.users.find(id);" },
        { operation: "replace", start: "8:df", content: "  return db.orders.find(id);" },
      ],
    };
    expect(args).toEqual({
      ...stale,
      operations: [
        { ...stale.operations[0], start: "5:10" },
        { ...stale.operations[1], start: "10:df" },
      ],
    });
    expectDocs(text(await call(batchEditTool, stale, ctx)), block("No operations were applied — 2 of 2"));
  });
  test("a mistyped id", async () => {
    const ctx = await routesContext();
    const ops = [{ operation: "replace", start: "8:d0", content: "  return db.orders.find(id);" }];
    expectDocs(text(await call(batchEditTool, { path: "src/routes.ts", operations: ops }, ctx)), block("No operations were applied — 1 of 1", "mistyped"));
  });
  test("a conflict, and a duplicated line", async () => {
    const ctx = await routesContext(
      `import { db } from "./db";\nimport { notFound } from "./errors";\n\n${routes.replace(
        "  return db.orders.get(id);",
        "  const order = db.orders.get(id);\n  return order ?? notFound(id);",
      )}`,
    );
    const conflict = [
      { operation: "replace", start: "9:0c", end: "12:a5", content: "x" },
      { operation: "delete", start: "11:ba" },
    ];
    expectDocs(text(await call(batchEditTool, { path: "src/routes.ts", operations: conflict }, ctx)), block("No operations were applied — 1 of 2"));
    const duplicated = [{ operation: "replace", start: "11:ba", content: "  const id = req.params.id;\n  const order = db.orders.find(id);" }];
    expectDocs(
      text(await call(batchEditTool, { path: "src/routes.ts", operations: duplicated }, ctx)),
      block("No operations were applied — 1 of 1", "EDIT_DUPLICATED_LINE"),
    );
  });
  test("a stripped view prefix", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/app.ts": "const a = 1;\nconst b = 2;\n" });
    await markViewed(ctx, "src/app.ts");
    const ops = [{ operation: "replace", start: "2:a1", content: "2:a1|const b = 3;" }];
    expectDocs(text(await call(batchEditTool, { path: "src/app.ts", operations: ops }, ctx)), block("Applied 1 operation to `src/app.ts`"));
  });
});
