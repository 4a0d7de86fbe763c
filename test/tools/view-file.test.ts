import { describe, expect, test } from "bun:test";
import { lineHash } from "../../src/hash/fnv.ts";
import { describeTool } from "../../src/http/catalog.ts";
import { formatId } from "../../src/text/ids.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { id, row, rows, view } from "../helpers/tool-view.ts";

const APP = ["import x from 'y';", "const a = 1;", "const foo = 2;", "", "export function main() {", "  return foo + a;", "}"];
const APP_TEXT = `${APP.join("\n")}\n`;

async function appContext(limits = {}) {
  const ctx = makeContext({ limits });
  const versions = await seed(ctx.storage, { "src/app.ts": APP_TEXT });
  return { ctx, version: versions["src/app.ts"] };
}

describe("view: the tool definition", () => {
  test("is a read-only, read-scope tool named view whose description shows the id format and examples", () => {
    expect(viewTool.name).toBe("view");
    expect(viewTool.scope).toBe("read");
    expect(viewTool.annotations).toEqual({ readOnlyHint: true });
    expect(viewTool.description).toContain("`N:hh|content`");
    expect(viewTool.description).toContain('{"path": "src/app.ts", "start": 120, "end": 180}');
  });

  test("the JSON Schema clients see describes every argument", () => {
    const schema = describeTool(viewTool).inputSchema as { properties: Record<string, { description?: string }>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual([
      "path",
      "start",
      "end",
      "content",
      "regex",
      "case_sensitive",
      "context",
      "pattern",
      "depth",
      "hidden",
      "gitignore",
    ]);
    for (const [name, property] of Object.entries(schema.properties)) expect([name, (property.description?.length ?? 0) > 20]).toEqual([name, true]);
    expect(schema.required).toEqual(["path"]);
  });

  test("unknown arguments are refused by the schema before the tool runs", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", lines: 5 });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toContain("lines");
  });
});

describe("view: a whole file", () => {
  test("shows every line as N:hh|content under a header with the line count", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts" });
    expect(out.result.isError).toBe(false);
    expect(out.text).toBe(["[src/app.ts: 7 lines]", ...rows(1, APP)].join("\n"));
  });

  test("each id is formatId(n, lineHash(line)), the DESIGN vectors included", async () => {
    const ctx = makeContext();
    const lines = ["", "a", "foobar", "hello world", "fn main() {", '    println!("Hello");', "}", "héllo 世界 🚀"];
    await seed(ctx.storage, { "v.txt": `${lines.join("\n")}\n` });
    const out = await view(ctx, { path: "v.txt" });
    const got = out.text
      .split("\n")
      .slice(1)
      .map((r) => r.slice(0, r.indexOf("|")));
    expect(got).toEqual(lines.map((line, i) => formatId(i + 1, lineHash(line))));
    expect(got.slice(0, 7)).toEqual(["1:c5", "2:ed", "3:b2", "4:c6", "5:92", "6:08", "7:14"]);
  });

  test("an empty file says so", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "empty.txt": "" });
    expect((await view(ctx, { path: "empty.txt" })).text).toBe("[empty.txt: empty file (0 lines)]");
  });

  test("CRLF, BOM and a missing final newline are named in the header; ids exclude the \\r and the BOM", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, {
      "crlf.txt": "alpha\r\nbeta\r\n",
      "bom.txt": "\uFEFFalpha\nbeta\n",
      "tail.txt": "alpha\nbeta",
      "mixed.txt": "alpha\r\nbeta\ngamma\n",
      "all.txt": "\uFEFFalpha\r\nbeta",
      "bom-empty.txt": "\uFEFF",
    });
    expect((await view(ctx, { path: "crlf.txt" })).text).toBe(["[crlf.txt: 2 lines, CRLF line endings]", "1:10|alpha", "2:0d|beta"].join("\n"));
    expect((await view(ctx, { path: "bom.txt" })).text).toBe(["[bom.txt: 2 lines, UTF-8 BOM]", "1:10|alpha", "2:0d|beta"].join("\n"));
    expect((await view(ctx, { path: "tail.txt" })).text).toBe(["[tail.txt: 2 lines, no final newline]", "1:10|alpha", "2:0d|beta"].join("\n"));
    expect((await view(ctx, { path: "mixed.txt" })).text.split("\n")[0]).toBe("[mixed.txt: 3 lines, mixed line endings (1 CRLF, 2 LF)]");
    expect((await view(ctx, { path: "all.txt" })).text.split("\n")[0]).toBe("[all.txt: 2 lines, CRLF line endings, UTF-8 BOM, no final newline]");
    expect((await view(ctx, { path: "bom-empty.txt" })).text).toBe("[bom-empty.txt: empty file (0 lines), UTF-8 BOM]");
  });

  test("a line longer than maxLineChars is shortened with a marker, its id still hashing the whole line", async () => {
    const ctx = makeContext({ limits: { maxLineChars: 10 } });
    const long = "0123456789abcdefghij";
    await seed(ctx.storage, { "long.txt": `short\n${long}\n` });
    const out = await view(ctx, { path: "long.txt" });
    expect(out.text).toBe(
      [
        "[long.txt: 2 lines]",
        row(1, "short"),
        `${id(2, long)}|0123456789… [line truncated: 20 chars total]`,
        "[1 line longer than 10 characters shown shortened; ids still cover the whole line]",
      ].join("\n"),
    );
  });

  test("the workspace path is normalised and a path escaping the root is FS_INVALID_PATH", async () => {
    const { ctx } = await appContext();
    expect((await view(ctx, { path: "./src//app.ts" })).text.split("\n")[0]).toBe("[src/app.ts: 7 lines]");
    const escaped = await view(ctx, { path: "../etc/passwd" });
    expect(escaped.result.code).toBe("FS_INVALID_PATH");
  });
});

describe("view: ranges", () => {
  test("start and end select lines, 1-based and inclusive", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", start: 2, end: 3 });
    expect(out.text).toBe(["[src/app.ts: lines 2-3 of 7]", ...rows(2, APP.slice(1, 3))].join("\n"));
  });

  test("negative numbers count from the end: start -2 is the last two lines", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", start: -2 });
    expect(out.text).toBe(["[src/app.ts: lines 6-7 of 7]", ...rows(6, APP.slice(5))].join("\n"));
    const mid = await view(ctx, { path: "src/app.ts", start: 3, end: -3 });
    expect(mid.text.split("\n")[0]).toBe("[src/app.ts: lines 3-5 of 7]");
  });

  test("ids and whole copied rows work as bounds (their number is used)", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", start: id(5, APP[4]), end: row(6, APP[5]) });
    expect(out.text).toBe(["[src/app.ts: lines 5-6 of 7]", ...rows(5, APP.slice(4, 6))].join("\n"));
  });

  test("a mistyped id on a file this session never viewed positions the view, and the note does not call it a change", async () => {
    const { ctx } = await appContext();
    const wrong = formatId(3, (lineHash(APP[2]) + 1) & 0xff);
    const out = await view(ctx, { path: "src/app.ts", start: wrong, end: 3 });
    expect(out.text).toBe(
      [
        "[src/app.ts: lines 3-3 of 7]",
        `[note: start id ${wrong} is not line 3's id, which is ${id(3, APP[2])} (this session has not viewed this file before, so the id is not from a view of it); showing line 3 by its number]`,
        row(3, APP[2]),
      ].join("\n"),
    );
    expect(out.text).not.toContain("changed");
  });

  test("a mistyped id on a file unchanged since this session viewed it: mistyped, not changed", async () => {
    const { ctx } = await appContext();
    await view(ctx, { path: "src/app.ts" });
    const wrong = formatId(3, (lineHash(APP[2]) + 1) & 0xff);
    const out = await view(ctx, { path: "src/app.ts", start: wrong, end: 3 });
    expect(out.text).toContain(
      `start id ${wrong} is not line 3's id, which is ${id(3, APP[2])}; the file has not changed since this session viewed it, so the id is mistyped`,
    );
    expect(out.text).not.toContain("has changed since");
  });

  test("an id whose line changed after this session's view still positions the view, and the note says it changed", async () => {
    const { ctx } = await appContext();
    await view(ctx, { path: "src/app.ts" });
    const old = id(3, APP[2]);
    await seed(ctx.storage, { "src/app.ts": `${APP.map((l, i) => (i === 2 ? `${l} // changed` : l)).join("\n")}\n` });
    const out = await view(ctx, { path: "src/app.ts", start: old, end: 3 });
    expect(out.text).toContain(`[note: start id ${old} is out of date: line 3 has changed since (now ${id(3, `${APP[2]} // changed`)})]`);
  });

  test("out-of-range bounds are clamped with a one-line note", async () => {
    const { ctx } = await appContext();
    expect((await view(ctx, { path: "src/app.ts", start: 6, end: 100 })).text).toBe(
      ["[src/app.ts: lines 6-7 of 7]", "[note: end 100 is past the end (the file has 7 lines); showing up to line 7]", ...rows(6, APP.slice(5))].join("\n"),
    );
    expect((await view(ctx, { path: "src/app.ts", start: -100, end: 1 })).text).toBe(
      ["[src/app.ts: lines 1-1 of 7]", "[note: start -100 reaches before line 1 (the file has 7 lines); showing from line 1]", row(1, APP[0])].join("\n"),
    );
    expect((await view(ctx, { path: "src/app.ts", end: -100 })).text).toBe(
      ["[src/app.ts: lines 1-1 of 7]", "[note: end -100 reaches before line 1 (the file has 7 lines); showing up to line 1]", row(1, APP[0])].join("\n"),
    );
    expect((await view(ctx, { path: "src/app.ts", start: 50 })).text).toBe(
      ["[src/app.ts: lines 7-7 of 7]", "[note: start 50 is past the end (the file has 7 lines); showing the last line]", row(7, APP[6])].join("\n"),
    );
  });

  test("0 is INVALID_ARGUMENT saying lines are 1-indexed and what to use", async () => {
    const { ctx } = await appContext();
    const start = await view(ctx, { path: "src/app.ts", start: 0 });
    expect(start.result.code).toBe("INVALID_ARGUMENT");
    expect(start.text).toBe(
      'start 0: lines are 1-indexed, so there is no line 0; use "start": 1 for the first line (negative numbers count from the end: -1 is the last line).',
    );
    const end = await view(ctx, { path: "src/app.ts", end: "0" });
    expect(end.result.code).toBe("INVALID_ARGUMENT");
    expect(end.text).toBe('end "0": lines are 1-indexed, so there is no line 0; use "end": -1 for the last line, or a line number from 1.');
    expect((await view(ctx, { path: "src/app.ts", start: "0:ab" })).result.code).toBe("INVALID_ARGUMENT");
  });

  test("start after end is INVALID_ARGUMENT with the swapped call", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", start: 5, end: 2 });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toBe('start 5 comes after end 2, so the range is empty. Swap them: "start": 2, "end": 5.');
    const negative = await view(ctx, { path: "src/app.ts", start: -1, end: 2 });
    expect(negative.text).toBe('start -1 (line 7 of 7) comes after end 2, so the range is empty. Swap them: "start": 2, "end": -1.');
  });

  test("a malformed bound says what a bound looks like", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", start: "ten" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toStartWith('start "ten": "ten" is not a line number or line id; use a 1-based line number');
  });
});

describe("view: bounded output", () => {
  const lines = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`);
  const text = `${lines.join("\n")}\n`;

  test("a view cut by the line limit ends with the exact call that continues, and that call continues exactly there", async () => {
    const ctx = makeContext({ limits: { maxViewLines: 10 } });
    await seed(ctx.storage, { "big.txt": text });
    const first = await view(ctx, { path: "big.txt" });
    expect(first.text).toBe(
      [
        "[big.txt: lines 1-10 of 25]",
        ...rows(1, lines.slice(0, 10)),
        '[cut at line 10 by the 10-line limit; 15 more lines to show. Continue: view {"path": "big.txt", "start": 11}]',
      ].join("\n"),
    );
    // Follow the continuation calls to the end: every line exactly once, in order.
    const seen: string[] = [];
    let out = first;
    for (let guard = 0; guard < 10; guard++) {
      seen.push(...out.text.split("\n").filter((r) => /^\d+:/.test(r)));
      const next = /Continue: view (\{.*\})\]$/.exec(out.text);
      if (!next) break;
      out = await view(ctx, JSON.parse(next[1]));
    }
    expect(seen).toEqual(rows(1, lines));
    expect(out.text.split("\n")[0]).toBe("[big.txt: lines 21-25 of 25]");
  });

  test("a cut range keeps its end in the continuation call", async () => {
    const ctx = makeContext({ limits: { maxViewLines: 5 } });
    await seed(ctx.storage, { "big.txt": text });
    const out = await view(ctx, { path: "big.txt", start: 3, end: 12 });
    expect(out.text.split("\n").at(-1)).toBe(
      '[cut at line 7 by the 5-line limit; 5 more lines to show. Continue: view {"path": "big.txt", "start": 8, "end": 12}]',
    );
    const next = await view(ctx, { path: "big.txt", start: 8, end: 12 });
    expect(next.text).toBe(["[big.txt: lines 8-12 of 25]", ...rows(8, lines.slice(7, 12))].join("\n"));
  });

  test("the output byte limit cuts at a line boundary, names the limit, and stays within it", async () => {
    const limit = 4096;
    const ctx = makeContext({ limits: { maxOutputBytes: limit } });
    const wide = Array.from({ length: 200 }, (_, i) => `${i + 1} ${"x".repeat(60)}`);
    await seed(ctx.storage, { "wide.txt": `${wide.join("\n")}\n` });
    const out = await view(ctx, { path: "wide.txt" });
    expect(new TextEncoder().encode(out.text).length).toBeLessThanOrEqual(limit);
    const footer = out.text.split("\n").at(-1)!;
    const cutAt = Number(/cut at line (\d+) by the 4\.0 KiB output limit/.exec(footer)![1]);
    expect(footer).toEndWith(`Continue: view {"path": "wide.txt", "start": ${cutAt + 1}}]`);
    const shown = out.text.split("\n").filter((r) => /^\d+:/.test(r));
    expect(shown).toEqual(rows(1, wide.slice(0, cutAt)));
  });

  test("the first line is shown even when it alone is over the byte budget, so a view always progresses", async () => {
    const ctx = makeContext({ limits: { maxOutputBytes: 64, maxLineChars: 10_000 } });
    const huge = "y".repeat(500);
    await seed(ctx.storage, { "one.txt": `${huge}\nsecond\n` });
    const out = await view(ctx, { path: "one.txt" });
    expect(out.text.split("\n")[1]).toBe(row(1, huge));
    expect(out.text).toContain('Continue: view {"path": "one.txt", "start": 2}');
  });
});

describe("view: observations and refusals", () => {
  test("viewing a file records present(version) for the session, with the lines a ranged view showed", async () => {
    const { ctx, version } = await appContext();
    await view(ctx, { path: "src/app.ts", start: 2, end: 2 });
    // held: the id the view showed for line 2, which the session now holds (policy/held-ids.ts).
    expect(await ctx.observations.get(ctx.caller.session, "src/app.ts")).toEqual({
      kind: "present",
      version,
      seen: [[2, 2]],
      held: [[2, expect.stringMatching(/^[0-9a-f]{2}$/), version]],
    });
    await view(ctx, { path: "src/app.ts" });
    expect(await ctx.observations.get(ctx.caller.session, "src/app.ts")).toEqual({
      kind: "present",
      version,
      held: [[1, expect.stringMatching(/^(?:[0-9a-f]{2})+$/), version]],
    });
    expect(await ctx.observations.get("another-session", "src/app.ts")).toBeUndefined();
  });

  test("a path with nothing there is FS_NOT_FOUND, recorded absent, with the nearest directory and similar names", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/apps.ts" });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).toBe(
      "`src/apps.ts` does not exist (nothing is there; `write` can create it). Similar name in `src`: `src/app.ts`. " + 'See what exists: view {"path": "src"}',
    );
    expect(await ctx.observations.get(ctx.caller.session, "src/apps.ts")).toEqual({ kind: "absent" });
  });

  test("a missing directory names the nearest one that exists", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/nope/deeper/x.ts" });
    expect(out.text).toBe(
      "`src/nope/deeper/x.ts` does not exist (nothing is there; `write` can create it). " +
        'Its directory `src/nope` does not exist either. See what exists: view {"path": "src"}',
    );
  });

  test("a path below a file is FS_NOT_DIRECTORY pointing at the parent", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts/inner" });
    expect(out.result.code).toBe("FS_NOT_DIRECTORY");
    expect(out.text).toContain('A part of the path is a file, not a directory: view {"path": "src/app.ts"} shows it.');
  });

  test("a binary file is FS_NOT_TEXT saying it is binary, never a permission error; the version seen is recorded", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) });
    const out = await view(ctx, { path: "logo.png" });
    expect(out.result.code).toBe("FS_NOT_TEXT");
    expect(out.text).toBe(
      "`logo.png` is a binary file (it contains NUL bytes): NUL byte at offset 8 (within the first 8192 bytes). " +
        "These tools read and edit UTF-8 text only; leave this file alone, or replace it whole with write (this view counts as having seen it).",
    );
    expect(out.text).not.toMatch(/permission/i);
    // Recorded, so the write the message offers is not refused as unseen.
    const { version } = await ctx.storage.read("logo.png");
    expect(await ctx.observations.get(ctx.caller.session, "logo.png")).toEqual({ kind: "present", version });
  });

  test("invalid UTF-8 is FS_NOT_TEXT saying where", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "latin1.txt": new Uint8Array([0x6f, 0x6b, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    const out = await view(ctx, { path: "latin1.txt" });
    expect(out.result.code).toBe("FS_NOT_TEXT");
    expect(out.text).toBe(
      "`latin1.txt` is not valid UTF-8 text: invalid UTF-8 at byte 6 (line 2): bytes e9 0a. " +
        "These tools read and edit UTF-8 text only; leave this file alone, or replace it whole with write (this view counts as having seen it).",
    );
  });

  test("a file over maxFileBytes is FS_TOO_LARGE pointing to search", async () => {
    const ctx = makeContext({ limits: { maxFileBytes: 10 } });
    await seed(ctx.storage, { "big.txt": "0123456789abcdef\n" });
    const out = await view(ctx, { path: "big.txt" });
    expect(out.result.code).toBe("FS_TOO_LARGE");
    expect(out.text).toContain('view {"path": "big.txt", "content": "<text to find>"}');
  });

  test("arguments that do not apply to a file are named in a note, not silently dropped", async () => {
    const { ctx } = await appContext();
    const out = await view(ctx, { path: "src/app.ts", depth: 2, regex: true, start: 7 });
    expect(out.text).toBe(
      [
        "[src/app.ts: lines 7-7 of 7]",
        '[note: ignored "regex": they apply to a search (give "content"); ignored "depth": they apply to directories, and this path is a file]',
        row(7, APP[6]),
      ].join("\n"),
    );
  });
});
