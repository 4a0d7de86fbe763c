/**
 * The windowed edit paths against the whole-file ones on real sources no one
 * here wrote (the catalogue's: hono, koa, debug's tab-indented files, a CRLF
 * schema, valibot's 8,000 lines), also as CRLF, with a BOM and without a
 * final newline: the same text, code and bytes on disk for edits cut at any
 * point of real lines, and for batches with real and stale ids.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { splitLines } from "../../src/text/lines.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { windowing } from "../../src/tools/support/windowing.ts";
import { SOURCES } from "../helpers/reliability/catalogue.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, markViewed } from "../helpers/tool-mutation.ts";

afterEach(() => {
  windowing.enabled = true;
});

const MODULES = join(import.meta.dir, "..", "..", "node_modules");
const encoder = new TextEncoder();
const originals = Object.values(SOURCES).map((p) => readFileSync(join(MODULES, p), "utf8"));
const variant = (text: string, kind: number): string => {
  const lf = text.replaceAll("\r\n", "\n");
  if (kind === 1) return lf.replaceAll("\n", "\r\n");
  if (kind === 2) return `\uFEFF${text}`;
  if (kind === 3) return text.replace(/\r?\n$/, "");
  return text;
};

async function run(enabled: boolean, file: string, tool: "edit" | "batch_edit", args: Record<string, unknown>) {
  windowing.enabled = enabled;
  const ctx = makeContext();
  await seed(ctx.storage, { "src/a.js": encoder.encode(file) });
  await markViewed(ctx, "src/a.js");
  const sent = { path: "src/a.js", ...args };
  const result = tool === "edit" ? await call(editTool, sent, ctx) : await call(batchEditTool, sent, ctx);
  const bytes = Buffer.from(await bytesOf(ctx.storage, "src/a.js")).toString("base64");
  return { text: result.content.map((c) => c.text).join("\n"), code: result.code, bytes };
}

const replacement = fc.constantFrom("", "x", "\n", "  return 1;\n", "\t", "é", "}\n}", "a\r\nb");
const source = fc.record({ file: fc.nat({ max: originals.length - 1 }), kind: fc.nat({ max: 3 }) });

describe("windowed edits answer exactly as whole-file ones, on real sources", () => {
  test("edit: old_string cut anywhere from the file's lines (property)", async () => {
    await fc.assert(
      fc.asyncProperty(source, fc.nat(), fc.nat({ max: 200 }), replacement, fc.boolean(), async (s, from, span, next, replaceAll) => {
        const file = variant(originals[s.file]!, s.kind);
        const lf = `${splitLines(file.startsWith("\uFEFF") ? file.slice(1) : file).lines.join("\n")}\n`;
        const at = from % lf.length;
        const oldString = lf.slice(at, at + 1 + span);
        const args = { old_string: oldString, new_string: next, ...(replaceAll ? { replace_all: true } : {}) };
        expect(await run(true, file, "edit", args)).toEqual(await run(false, file, "edit", args));
      }),
      { numRuns: 200 },
    );
  });

  test("batch_edit: touching replaces, then a replace to the end of a file without a final newline (a case CI found)", async () => {
    const file = variant(readFileSync(join(MODULES, SOURCES["hono-url"]!), "utf8"), 3);
    const lines = splitLines(file).lines;
    const id = (n: number) => `${n}:${formatHash(lineHash(lines[n - 1]!))}`;
    const operations = [
      { operation: "replace", start: id(174), content: "}\n}" },
      { operation: "replace", start: id(175), content: "é" },
      { operation: "replace", start: id(209), end: id(lines.length), content: "\n" },
    ];
    const windowed = await run(true, file, "batch_edit", { operations });
    expect(windowed).toEqual(await run(false, file, "batch_edit", { operations }));
    // Each replace reads as its own block: line 174's removal, its two lines, then line 175's.
    expect(windowed.text).toMatch(/- 174:[0-9a-f]{2}\|[^\n]*\n\+ 174:[0-9a-f]{2}\|\}\n\+ 175:[0-9a-f]{2}\|\}\n- 175:/);
  });

  test("batch_edit: real and stale ids anywhere in the file (property)", async () => {
    const op = fc.record({
      kind: fc.constantFrom("replace", "insert", "delete"),
      at: fc.nat(),
      span: fc.nat({ max: 4 }),
      stale: fc.nat({ max: 15 }),
      content: replacement,
    });
    await fc.assert(
      fc.asyncProperty(source, fc.array(op, { minLength: 1, maxLength: 4 }), async (s, picks) => {
        const file = variant(originals[s.file]!, s.kind);
        const lines = splitLines(file.startsWith("\uFEFF") ? file.slice(1) : file).lines;
        const id = (n: number, stale: number) => `${n}:${formatHash(stale === 0 ? (lineHash(lines[n - 1] ?? "") + 1) & 0xff : lineHash(lines[n - 1] ?? ""))}`;
        const operations = picks.map((p) => {
          const start = (p.at % lines.length) + 1;
          const end = Math.min(lines.length, start + p.span);
          if (p.kind === "insert") return { operation: "insert", after: id(start, p.stale), content: p.content };
          const range = { start: id(start, p.stale), ...(end > start ? { end: id(end, p.stale) } : {}) };
          return p.kind === "delete" ? { operation: "delete", ...range } : { operation: "replace", ...range, content: p.content };
        });
        expect(await run(true, file, "batch_edit", { operations })).toEqual(await run(false, file, "batch_edit", { operations }));
      }),
      { numRuns: 200 },
    );
  });
});
