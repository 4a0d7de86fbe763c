import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import type { ToolResult } from "../../src/result.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { windowing } from "../../src/tools/support/windowing.ts";
import { splitLines } from "../../src/text/lines.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, markViewed } from "../helpers/tool-mutation.ts";

// The windowed paths of edit and batch_edit (text/edit-window.ts, text/line-windows.ts) must answer
// exactly as the whole-file paths: the same result text, code and bytes on disk, for any call.

afterEach(() => {
  windowing.enabled = true;
});

const encoder = new TextEncoder();
const BOM = "\uFEFF";

/** The result and the file after one call, with windowing on or off. */
async function run(enabled: boolean, file: string, tool: "edit" | "batch_edit", args: Record<string, unknown>, verbatim: boolean) {
  windowing.enabled = enabled;
  const ctx = makeContext();
  await seed(ctx.storage, { "src/a.ts": encoder.encode(file) });
  await markViewed(ctx, "src/a.ts");
  const sent = { path: "src/a.ts", ...args, ...(verbatim ? { verbatim } : {}) };
  const result: ToolResult = tool === "edit" ? await call(editTool, sent, ctx) : await call(batchEditTool, sent, ctx);
  const bytes = Array.from(await bytesOf(ctx.storage, "src/a.ts"));
  return { text: result.content.map((c) => c.text).join("\n"), code: result.code, isError: result.isError === true, bytes };
}

const piece = fc.constantFrom("a", "b", "ab", " ", "\t", "é", "世", "x = 1;", "}", "\r", "|", "1:00|", "```");
const line = fc.array(piece, { maxLength: 4 }).map((p) => p.join(""));
const fileArb = fc
  .record({
    // Full length, so edits fall in separate windows (fast-check's default size stays at 10 lines, one window).
    lines: fc.array(line, { minLength: 0, maxLength: 40, size: "max" }),
    crlf: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    someCrlf: fc.boolean(),
    final: fc.boolean(),
    bom: fc.boolean(),
    numbered: fc.boolean(),
  })
  .map((f) => {
    const text = f.lines
      .map((l, i) => (f.numbered && i % 2 === 0 ? `${i}${l}` : l) + (i === f.lines.length - 1 && !f.final ? "" : f.someCrlf && f.crlf[i] ? "\r\n" : "\n"))
      .join("");
    return (f.bom ? BOM : "") + text;
  });
const newText = fc
  .array(fc.constantFrom("", "a", "q", "\n", "\r\n", "é", " ", BOM, "new line\n", "1:ab|x", "```ts\n"), { maxLength: 5 })
  .map((p) => p.join(""));

describe("windowed edits answer exactly as whole-file ones", () => {
  test("edit (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        fc.nat(),
        fc.nat({ max: 30 }),
        newText,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (file, from, span, replacement, replaceAll, verbatim, tail) => {
          const lf = `${splitLines(file.startsWith(BOM) ? file.slice(1) : file).lines.join("\n")}\n`;
          // Now and then an old_string reaching the end of the file (with or without its final newline).
          const at = tail ? Math.max(0, lf.length - 1 - span - (from % 2)) : from % lf.length;
          const oldString = lf.slice(at, at + 1 + span);
          const args = { old_string: oldString, new_string: replacement, ...(replaceAll ? { replace_all: true } : {}) };
          expect(await run(true, file, "edit", args, verbatim)).toEqual(await run(false, file, "edit", args, verbatim));
        },
      ),
      { numRuns: 600 },
    );
  });

  test("batch_edit (property)", async () => {
    const op = fc.record({
      kind: fc.constantFrom("replace", "insert", "delete"),
      line: fc.nat({ max: 45 }),
      span: fc.nat({ max: 3 }),
      content: newText,
      wrongHash: fc.nat({ max: 12 }),
      anchor: fc.constantFrom("line", "line", "start", "end"),
    });
    await fc.assert(
      fc.asyncProperty(fileArb, fc.array(op, { minLength: 1, maxLength: 6 }), fc.boolean(), fc.boolean(), async (file, picks, verbatim, spread) => {
        const lines = splitLines(file.startsWith(BOM) ? file.slice(1) : file).lines;
        // Mostly real ids; now and then a stale hash or a line past the end.
        const id = (n: number, wrong: number) => `${n}:${formatHash(wrong === 0 ? (lineHash(lines[n - 1] ?? "") + 1) & 0xff : lineHash(lines[n - 1] ?? ""))}`;
        const operations = picks.map((p, i) => {
          // Spread: one operation per stretch of the file, so most land in windows of their own.
          const start = spread ? Math.min(lines.length, Math.floor((i * lines.length) / picks.length) + (p.line % 3)) + 1 : (p.line % (lines.length + 2)) + 1;
          const end = start + p.span;
          if (p.kind === "insert") {
            const after = p.anchor === "start" ? 0 : p.anchor === "end" ? -1 : id(start, p.wrongHash);
            return { operation: "insert", after, content: p.content };
          }
          const range = { start: id(start, p.wrongHash), ...(p.span > 0 ? { end: id(end, p.wrongHash) } : {}) };
          return p.kind === "delete" ? { operation: "delete", ...range } : { operation: "replace", ...range, content: p.content };
        });
        expect(await run(true, file, "batch_edit", { operations }, verbatim)).toEqual(await run(false, file, "batch_edit", { operations }, verbatim));
      }),
      { numRuns: 1000 },
    );
  });
});
