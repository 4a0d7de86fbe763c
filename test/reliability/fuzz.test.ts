/**
 * Property tests of the text engine through the real tools, against the
 * independent model of test/reliability/text-model.ts: random files (LF,
 * CRLF and mixed endings, BOM, no final newline, lone CRs, multi-byte text)
 * and random batch_edit scripts (every id form the parser accepts), compared
 * byte for byte with what batch_edit writes; the same for a unique-line
 * edit; view rows and diff rows re-parse to ids that name their lines; id
 * text round-trips; JS and WASM hashes agree with the model's FNV.
 *
 * About 11 500 cases per run. A failure names the seed and the shrunk path;
 * replay it with FC_SEED=<seed> FC_PATH=<path> (both are printed).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import type { LineHasher } from "../../src/hash/types.ts";
import { createPipeline } from "../../src/pipeline/mod.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import { formatId, parseLineId, parseLineRef } from "../../src/text/ids.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { committedWasmHasher } from "../helpers/hash.ts";
import { makeContext } from "../helpers/tool-context.ts";
import {
  applyModel,
  changesNothing,
  modelBytes,
  modelHash,
  modelId,
  modelSplit,
  type ModelEol,
  type ModelFile,
  type ModelLine,
  type ModelOp,
} from "../helpers/reliability/text-model.ts";

const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 0x7fffffff);
const PATH = process.env.FC_PATH;
const wasm = await committedWasmHasher();
const pipeline = createPipeline(fileTools);
const decoder = new TextDecoder();

/** Run a property; a failure's message carries fast-check's report and the exact replay command. */
async function check<Ts>(name: string, property: fc.IRawProperty<Ts>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: SEED, numRuns, ...(PATH ? { path: PATH } : {}) });
  if (details.failed) {
    throw new Error(
      `${fc.defaultReportMessage(details)}\n\nWhy: ${String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)}\n\nReplay: FC_SEED=${details.seed} FC_PATH=${details.counterexamplePath} ` +
        `npx bun test test/reliability-fuzz.test.ts -t "${name}"`,
    );
  }
}

// ---- files

/** Characters of existing lines: never "\n", NUL, a BOM, or "§" (which marks new lines). */
const OLD_CHARS = ["a", "b", "x", " ", "  ", "\t", "}", "{", ";", "=", "é", "世", "🚀", "\r", "|", ":", "0"];
const oldContent = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...OLD_CHARS) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }).filter((g) => !/[\n\0\ufeff§]/.test(g)) },
  ),
  maxLength: 10,
});

/** A random file: endings all LF, all CRLF or mixed; maybe a BOM; maybe no final newline. */
const modelFile: fc.Arbitrary<ModelFile> = fc
  .record({
    contents: fc.array(oldContent, { maxLength: 24, size: "max" }),
    style: fc.constantFrom("lf", "crlf", "mixed"),
    picks: fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
    bom: fc.boolean(),
    finalNewline: fc.boolean(),
  })
  .map(({ contents, style, picks, bom, finalNewline }) => {
    const lines = contents.map((content, i): ModelLine => {
      const eol: ModelEol = style === "lf" ? "\n" : style === "crlf" ? "\r\n" : picks[i] ? "\r\n" : "\n";
      // A "\r" ending a line terminated by "\n" would be read back as a CRLF terminator.
      return { content: eol === "\n" ? content.replace(/\r+$/, "") : content, eol };
    });
    if (!finalNewline && lines.length > 0) {
      const last = lines[lines.length - 1];
      lines[lines.length - 1] = { content: last.content === "" ? "z" : last.content, eol: "" };
    }
    return { bom, lines };
  });

// ---- batch_edit scripts

/** New line contents: "" or "§…", so a new line never repeats an old one (no duplicate-line refusals). */
const newLine = fc.oneof(
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 5, arbitrary: fc.string({ unit: fc.constantFrom("a", "q", " ", "\t", "é", "🚀", "$&", "$$", "\\n"), maxLength: 6 }).map((s) => `§${s}`) },
);

const opSpec = fc.record({
  kind: fc.constantFrom("replace", "delete", "insert"),
  a: fc.nat(1000),
  len: fc.integer({ min: 1, max: 4 }),
  lines: fc.array(newLine, { minLength: 1, maxLength: 4 }),
  sep: fc.constantFrom("\n", "\r\n"),
  trailing: fc.boolean(),
  explicitEnd: fc.boolean(),
  idForm: fc.constantFrom("plain", "upper", "spaced", "zeros", "row"),
  anchorForm: fc.nat(2),
});
type OpSpec = typeof opSpec extends fc.Arbitrary<infer T> ? T : never;

/** A line id in one of the forms the parser accepts (ids.ts's leniency rules). */
function idText(file: ModelFile, n: number, form: OpSpec["idForm"]): string {
  const content = file.lines[n - 1].content;
  const id = modelId(n, content);
  switch (form) {
    case "plain":
      return id;
    case "upper":
      return id.toUpperCase();
    case "spaced":
      return ` ${id.replace(":", " : ")} `;
    case "zeros":
      return `00${id}`;
    case "row":
      return `${id}|${content}`;
  }
}

/** Content text for new lines, such that the tool reads exactly `lines` back. */
function contentText(spec: OpSpec): string {
  // A trailing separator ends the last line; without one an empty last line would vanish.
  const trailing = spec.trailing || spec.lines[spec.lines.length - 1] === "";
  return spec.lines.join(spec.sep) + (trailing ? spec.sep : "");
}

/** Turn raw specs into a non-conflicting script: model ops plus the batch_edit operations sent. */
function buildScript(file: ModelFile, specs: readonly OpSpec[]): { ops: ModelOp[]; operations: Record<string, unknown>[] } {
  const n = file.lines.length;
  const ops: ModelOp[] = [];
  const operations: Record<string, unknown>[] = [];
  const ranges: Array<[number, number]> = [];
  const inserts = new Set<number>();
  for (const spec of specs) {
    if (spec.kind === "insert") {
      const at = spec.a % (n + 1);
      if (inserts.has(at) || ranges.some(([s, e]) => s < at && at < e)) continue;
      inserts.add(at);
      ops.push({ kind: "insert", at, lines: spec.lines });
      let after: string | number;
      if (at === 0) after = spec.anchorForm === 0 ? 0 : "0";
      else if (at === n && spec.anchorForm < 2) after = spec.anchorForm === 0 ? -1 : "-1";
      else after = idText(file, at, spec.idForm);
      operations.push({ operation: "insert", after, content: contentText(spec) });
      continue;
    }
    if (n === 0) continue;
    const from = spec.a % n;
    const to = Math.min(n, from + spec.len);
    if (ranges.some(([s, e]) => from < e && s < to) || [...inserts].some((at) => from < at && at < to)) continue;
    ranges.push([from, to]);
    const start = idText(file, from + 1, spec.idForm);
    const end = to - from > 1 || spec.explicitEnd ? { end: idText(file, to, spec.idForm) } : {};
    if (spec.kind === "delete") {
      ops.push({ kind: "delete", from, to });
      operations.push({ operation: "delete", start, ...end });
    } else {
      ops.push({ kind: "replace", from, to, lines: spec.lines });
      operations.push({ operation: "replace", start, ...end, content: contentText(spec) });
    }
  }
  return { ops, operations };
}

/** The file as written to storage, viewed by the session, then `tool` called on it. */
async function runTool(file: ModelFile, tool: string, args: Record<string, unknown>, hasher: LineHasher) {
  const ctx = makeContext({ hasher });
  const { version } = await ctx.storage.write("f.txt", modelBytes(file));
  await ctx.observations.set(ctx.caller.session, "f.txt", { kind: "present", version });
  const result: ToolResult = await pipeline.call(tool, { path: "f.txt", ...args }, ctx);
  return { result, after: (await ctx.storage.read("f.txt")).bytes };
}

/** The lines of real output bytes, read by the model's own splitter. */
function realLines(bytes: Uint8Array, bom: boolean): ModelLine[] {
  const text = decoder.decode(bytes, { stream: false });
  // TextDecoder drops a leading BOM: the model says whether one must be there.
  expect(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf).toBe(bom);
  return modelSplit(text);
}

/** Every diff row with an id names its line: "+"/" " rows the new file's, "-" rows the old file's. */
function expectDiffIds(result: ToolResult, oldLines: readonly ModelLine[], newLines: readonly ModelLine[]): void {
  for (const row of resultText(result).split("\n")) {
    const m = /^([+ -]) (\d+):([0-9a-f]{2})\|([\s\S]*)$/.exec(row);
    if (!m) continue;
    const lines = m[1] === "-" ? oldLines : newLines;
    const n = Number(m[2]);
    expect({ row, content: lines[n - 1]?.content }).toEqual({ row, content: m[4] });
    expect(parseInt(m[3], 16)).toBe(modelHash(m[4]));
  }
}

const show = (lines: readonly ModelLine[]) => JSON.stringify(lines.map((l) => l.content + l.eol));

/** A file with a "\r" and no "\n" (classic Mac): edit and batch_edit refuse it, nothing written (docs/tools.md). */
const breaksWithLoneCr = (file: ModelFile) => file.lines.length === 1 && file.lines[0].eol === "" && file.lines[0].content.includes("\r");

function expectLoneCrRefused(file: ModelFile, result: ToolResult, after: Uint8Array): void {
  expect(result.code).toBe("FS_NOT_TEXT");
  expect(resultText(result)).toContain("breaks its lines with lone CRs");
  expect(after).toEqual(modelBytes(file));
}

test("batch_edit: random scripts on random files write exactly the model's bytes; untouched lines keep theirs (4000 cases)", async () => {
  await check(
    "batch_edit: random scripts",
    fc.asyncProperty(modelFile, fc.array(opSpec, { minLength: 1, maxLength: 6 }), fc.boolean(), async (file, specs, useWasm) => {
      let { ops, operations } = buildScript(file, specs);
      if (ops.length === 0) {
        // Only ranges were drawn for an empty file: insert instead.
        ops = [{ kind: "insert", at: 0, lines: ["§"] }];
        operations = [{ operation: "insert", after: 0, content: "§" }];
      }
      let { result, after } = await runTool(file, "batch_edit", { operations }, useWasm ? wasm : jsHasher);
      if (breaksWithLoneCr(file)) return expectLoneCrRefused(file, result, after);
      if (result.code === "INVALID_ARGUMENT" && resultText(result).includes('"verbatim": true')) {
        // Content that looks over-escaped or pasted from a view is refused, nothing written; sent
        // "verbatim", the model's bytes are written exactly as for any other content.
        expect(after).toEqual(modelBytes(file));
        ({ result, after } = await runTool(file, "batch_edit", { operations, verbatim: true }, useWasm ? wasm : jsHasher));
      }
      if (changesNothing(file, ops)) {
        expect(result.code).toBe("EDIT_NO_CHANGE");
        expect(after).toEqual(modelBytes(file));
        return;
      }
      if (result.isError) throw new Error(`${result.code}: ${resultText(result)}\noperations: ${JSON.stringify(operations)}`);
      const expected = applyModel(file, ops);
      const real = realLines(after, file.bom);
      expect(show(real)).toBe(show(expected.lines));
      expect(after).toEqual(modelBytes(expected));
      // Stated on its own: a kept line has its old content, and its old terminator unless it was or now is the
      // last line (the file's final-newline state moves with the last line).
      expected.lines.forEach((line, i) => {
        if (line.kept === undefined) return;
        const was = file.lines[line.kept];
        expect(real[i].content).toBe(was.content);
        if (was.eol !== "" && i < real.length - 1) expect(real[i].eol).toBe(was.eol);
      });
      expectDiffIds(result, file.lines, real);
    }),
    4000,
  );
}, 60_000);

test("edit: replacing a unique line's text writes exactly the model's bytes, whatever the endings and BOM (1000 cases)", async () => {
  await check(
    "edit: replacing a unique line",
    fc.asyncProperty(
      modelFile,
      fc.nat(100),
      newLine.filter((s) => s !== ""),
      async (file, pick, replacement) => {
        const count = (needle: string) =>
          file.lines.reduce((sum, line) => {
            let k = 0;
            for (let at = line.content.indexOf(needle); at !== -1; at = line.content.indexOf(needle, at + needle.length)) k++;
            return sum + k;
          }, 0);
        const candidates = file.lines.map((_l, i) => i).filter((i) => file.lines[i].content.trim() !== "" && count(file.lines[i].content) === 1);
        fc.pre(candidates.length > 0);
        const i = candidates[pick % candidates.length];
        const { result, after } = await runTool(file, "edit", { old_string: file.lines[i].content, new_string: replacement }, jsHasher);
        if (breaksWithLoneCr(file)) return expectLoneCrRefused(file, result, after);
        if (result.isError) throw new Error(`${result.code}: ${resultText(result)}`);
        const expected = applyModel(file, [{ kind: "replace", from: i, to: i + 1, lines: [replacement] }]);
        expect(show(realLines(after, file.bom))).toBe(show(expected.lines));
        expect(after).toEqual(modelBytes(expected));
        expectDiffIds(result, file.lines, expected.lines);
      },
    ),
    1000,
  );
}, 60_000);

test("view: every row re-parses to the id of its line, and the ids are the model's (1500 cases)", async () => {
  await check(
    "view: every row re-parses",
    fc.asyncProperty(modelFile, fc.boolean(), async (file, useWasm) => {
      const ctx = makeContext({ hasher: useWasm ? wasm : jsHasher });
      await ctx.storage.write("f.txt", modelBytes(file));
      const result = await pipeline.call("view", { path: "f.txt" }, ctx);
      expect(result.isError).toBe(false);
      // A CR-only file's view says what edits it; rows never start with "[".
      expect(resultText(result).includes("[note: this file breaks its lines with lone CRs")).toBe(breaksWithLoneCr(file));
      const rows = resultText(result)
        .split("\n")
        .slice(1)
        .filter((l) => !l.startsWith("[note: "));
      if (file.lines.length === 0) {
        expect(resultText(result)).toStartWith("[f.txt: empty file (0 lines)");
        return;
      }
      expect(rows).toHaveLength(file.lines.length);
      rows.forEach((row, i) => {
        const expected = `${modelId(i + 1, file.lines[i].content)}|${file.lines[i].content}`;
        expect(row).toBe(expected);
        // The whole row, pasted as an id, names the same line.
        expect(parseLineId(row)).toEqual({ ok: true, line: i + 1, hash: modelHash(file.lines[i].content) });
      });
    }),
    1500,
  );
}, 60_000);

test("ids: format and parse round-trip in every accepted form; malformed ones are refused (3000 cases)", async () => {
  await check(
    "ids: format and parse",
    fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 255 }), fc.string({ maxLength: 20 }), (n, h, tail) => {
      const id = formatId(n, h);
      expect(id).toBe(`${n}:${h.toString(16).padStart(2, "0")}`);
      const same = { ok: true as const, line: n, hash: h };
      for (const form of [id, id.toUpperCase(), ` ${id} `, id.replace(":", " : "), `0${id}`, `${id}|${tail}`]) {
        expect({ form, parsed: parseLineId(form) }).toEqual({ form, parsed: same });
      }
      expect(parseLineRef(id)).toEqual({ ok: true, line: n, hash: h });
      const hex = h.toString(16).padStart(2, "0");
      for (const bad of [String(n), `0:${hex}`, `-${n}:${hex}`, `${n}:${hex}0`, `${n}:${hex[0]}`, `${n}:`, `:${hex}`, n]) {
        expect({ bad, ok: parseLineId(bad).ok }).toEqual({ bad, ok: false });
      }
    }),
    3000,
  );
});

test("hashes: JS and WASM agree with each other and with the model's FNV on random files and random bytes (2000 cases)", async () => {
  const encoded = modelFile.map((file) => ({ file, bytes: modelBytes(file) }));
  await check(
    "hashes: JS and WASM agree",
    fc.property(
      fc.oneof(
        encoded,
        // Full length: fast-check's default size stops at 10 bytes.
        fc.uint8Array({ maxLength: 6000, size: "max" }).map((bytes) => ({ file: undefined, bytes })),
      ),
      ({ file, bytes }) => {
        const fromJs = jsHasher.hashLines(bytes);
        const fromWasm = wasm.hashLines(bytes);
        expect([...fromWasm.hashes]).toEqual([...fromJs.hashes]);
        expect([...fromWasm.starts]).toEqual([...fromJs.starts]);
        expect([...fromWasm.ends]).toEqual([...fromJs.ends]);
        if (file && !file.bom) expect([...fromJs.hashes]).toEqual(file.lines.map((l) => modelHash(l.content)));
        if (file?.bom) expect([...jsHasher.hashLines(bytes.subarray(3)).hashes]).toEqual(file.lines.map((l) => modelHash(l.content)));
      },
    ),
    2000,
  );
});

// Found by the batch_edit property: a last line ending in a lone "\r" got a bare "\n" when a line was
// appended after it, so it read back without its "\r" and with another id than the "fresh" one the result
// reported. (A classic Mac file, all one such line, is refused by batch_edit: lone-cr.test.ts.)
describe("a line ending in a lone CR keeps its content and id when it stops being the last line", () => {
  const viewed = async (text: string) => {
    const ctx = makeContext();
    const { version } = await ctx.storage.write("mac.txt", new TextEncoder().encode(text));
    await ctx.observations.set(ctx.caller.session, "mac.txt", { kind: "present", version });
    return ctx;
  };
  const rows = async (ctx: ReturnType<typeof makeContext>) =>
    resultText(await pipeline.call("view", { path: "mac.txt" }, ctx))
      .split("\n")
      .slice(1);

  test("batch_edit insert after the end", async () => {
    const ctx = await viewed("line0\nline1\rline2\r");
    const result = await pipeline.call("batch_edit", { path: "mac.txt", operations: [{ operation: "insert", after: -1, content: "added" }] }, ctx);
    expect(result.isError).toBe(false);
    expect(decoder.decode((await ctx.storage.read("mac.txt")).bytes)).toBe("line0\nline1\rline2\r\r\nadded");
    const id = modelId(2, "line1\rline2\r");
    expect(resultText(result)).toContain(`  ${id}|line1\rline2\r`);
    expect(await rows(ctx)).toEqual([`${modelId(1, "line0")}|line0`, `${id}|line1\rline2\r`, `${modelId(3, "added")}|added`]);
  });

  test("write keeping the line and adding one after it", async () => {
    const ctx = await viewed("a\nb\r");
    const result = await pipeline.call("write", { path: "mac.txt", content: "a\nb\r\r\nadded\n" }, ctx);
    expect(result.isError).toBe(false);
    expect(await rows(ctx)).toEqual([`${modelId(1, "a")}|a`, `${modelId(2, "b\r")}|b\r`, `${modelId(3, "added")}|added`]);
  });
});
