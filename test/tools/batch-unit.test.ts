import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { planBatch } from "../../src/tools/batch-edit/apply.ts";
import { refusalCode, renderRefusal, staleIdText } from "../../src/tools/batch-edit/messages.ts";
import { contentLines, labelOf, type OpFailure, type Operation, parseOperations, type RawOperation } from "../../src/tools/batch-edit/parse.ts";
import { checkId, findConflicts, findDuplicatedLines, isTrivialLine, relocate, sortEdits, toEdit } from "../../src/tools/batch-edit/verify.ts";
import { loadDocument, type TextDocument } from "../../src/text/document.ts";
import { repairBatch } from "../../src/tools/batch-edit/repair.ts";
import { idOf, utf8 } from "../helpers/tool-mutation.ts";

function doc(text: string): TextDocument {
  const d = loadDocument(utf8(text), jsHasher);
  if (!d.ok) throw new Error("not text");
  return d;
}

function parse(raw: RawOperation[]) {
  return parseOperations(raw, "a.ts");
}

function parsedOk(raw: RawOperation[]): Operation[] {
  const { ops, failures } = parse(raw);
  expect(failures).toEqual([]);
  return ops;
}

const TEXT = "one\ntwo\nthree\nfour\nfive\n";

describe("parseOperations", () => {
  test("ids, optional end, insert anchors 0 / -1 (numbers or strings), content lines", () => {
    const ops = parsedOk([
      { operation: "replace", start: "2:aa", content: "x\ny\n" },
      { operation: "delete", start: "3:bb", end: "4:CC" },
      { operation: "insert", after: 0, content: "top" },
      { operation: "insert", after: "-1", content: "end\r\nmore\r\n" },
      { operation: "insert", after: " 5:0f|five ", content: "\n" },
    ]);
    expect(ops[0]).toMatchObject({ kind: "replace", start: { line: 2, hash: 0xaa }, end: { line: 2, hash: 0xaa }, lines: ["x", "y"] });
    expect(ops[1]).toMatchObject({ kind: "delete", start: { line: 3 }, end: { line: 4, hash: 0xcc, text: "4:cc" } });
    expect(ops[2]).toMatchObject({ kind: "insert", after: { kind: "start" }, lines: ["top"] });
    expect(ops[3]).toMatchObject({ kind: "insert", after: { kind: "end" }, lines: ["end", "more"] });
    expect(ops[4]).toMatchObject({ kind: "insert", after: { kind: "line", id: { line: 5, hash: 0x0f } }, lines: [""] });
  });

  test("a trailing newline in content does not add an empty line", () => {
    expect(contentLines("a\n")).toEqual(["a"]);
    expect(contentLines("a\n\n")).toEqual(["a", ""]);
    expect(contentLines("\n")).toEqual([""]);
    expect(contentLines("")).toEqual([]);
    expect(contentLines("a\r\nb")).toEqual(["a", "b"]);
  });

  test("a bare number parses as a bare reference, refused at verification (where its current id is known)", () => {
    const ops = parsedOk([
      { operation: "replace", start: 12, content: "x" },
      { operation: "delete", start: "7" },
      { operation: "insert", after: 5, content: "x" },
    ]);
    expect(ops[0]).toMatchObject({ kind: "replace", start: { line: 12, bare: true } });
    expect(ops[1]).toMatchObject({ kind: "delete", start: { line: 7, bare: true } });
    expect(ops[2]).toMatchObject({ kind: "insert", after: { kind: "line", id: { line: 5, bare: true } } });
  });

  test("a bare number that is no line (0 or negative as a target, -2 as an anchor) is refused at parse", () => {
    const { failures } = parse([
      { operation: "replace", start: 0, content: "x" },
      { operation: "insert", after: -2, content: "x" },
    ]);
    expect(failures[0].message).toContain("start: 0 is not a line: lines are 1-indexed");
    expect(failures[1].message).toContain("as a number, after accepts only 0 (start of the file) and -1 (end of the file)");
  });

  test("malformed ids get the id parser's explanation, per field", () => {
    const { failures } = parse([{ operation: "replace", start: "3:a", end: "x", content: "y" }]);
    expect(failures.map((f) => f.message.split(":")[0])).toEqual(["start", "end"]);
    expect(failures[0].message).toContain("the hash part must be 2 hex chars");
  });

  test("every problem of every operation is collected", () => {
    const { failures } = parse([
      { operation: "replace", start: 0, end: "zz", content: "" },
      { operation: "insert", after: "zz", content: "" },
    ]);
    expect(failures.map((f) => f.index)).toEqual([0, 0, 1, 1]);
  });

  test("labels name the operation as the model sent it", () => {
    expect(labelOf({ operation: "replace", start: "3:aa", end: "5:bb", content: "" })).toBe("replace 3:aa-5:bb");
    expect(labelOf({ operation: "replace", start: "3:aa|  foo()", content: "" })).toBe("replace 3:aa");
    expect(labelOf({ operation: "delete", start: "3:aa", end: "3:aa" })).toBe("delete 3:aa");
    expect(labelOf({ operation: "insert", after: -1, content: "" })).toBe("insert after -1");
  });
});

describe("checkId and relocate", () => {
  const d = doc(TEXT);

  test("an id verifies only with the right position and hash", () => {
    expect(checkId(d, { line: 2, hash: d.hashes[1], text: "" })).toEqual({ kind: "ok" });
    expect(checkId(d, { line: 3, hash: d.hashes[1], text: "" })).toMatchObject({ kind: "stale", actual: d.hashes[2] });
    expect(checkId(d, { line: 6, hash: d.hashes[1], text: "" })).toMatchObject({ kind: "past-end", lineCount: 5 });
  });

  test("relocation: nearest first, at most 3, never the target, within the window", () => {
    const hashes = new Uint8Array(1000).fill(1);
    for (const line of [100, 103, 96, 98, 400]) hashes[line - 1] = 7;
    expect(relocate(hashes, 7, 100)).toEqual([98, 103, 96]);
    expect(relocate(hashes, 7, 101)).toEqual([100, 103, 98]);
    expect(relocate(hashes, 7, 100, 200, 1)).toEqual([98]);
    const tie = new Uint8Array(20);
    tie[4] = tie[14] = 3; // lines 5 and 15, both 5 away from line 10
    expect(relocate(tie, 3, 10)).toEqual([5, 15]);
    expect(relocate(hashes, 7, 700)).toEqual([]); // 400 is 300 away: outside ±200
    expect(relocate(hashes, 7, 599)).toEqual([400]);
    expect(relocate(hashes, 9, 10)).toEqual([]);
  });

  test("relocation works from past the end (the file shrank)", () => {
    expect(relocate(d.hashes, d.hashes[4], 9)).toEqual([5]);
  });
});

describe("staleIdText", () => {
  const FILE = "a\nb\nc\nd\ne\nf\ng\nh\n";
  const d = doc(FILE);

  test("shows 2 lines either side with fresh ids, where the content went, and a view range covering both", () => {
    // The model read "c" at line 2 (a line was inserted above it since).
    const expected = { line: 2, hash: d.hashes[2], text: `2:${idOf(FILE, 3).split(":")[1]}` };
    const check = checkId(d, expected);
    if (check.kind === "ok" || check.kind === "bare") throw new Error("should be stale");
    expect(staleIdText(d, check, "start", "a.ts", 2000)).toBe(
      [
        `start "${expected.text}" does not match the file: line 2 now hashes ${idOf(FILE, 2).split(":")[1]}, so it is not the line you read (the file changed since your view).`,
        "Lines 1-4 now:",
        `  ${idOf(FILE, 1)}|a`,
        `  ${idOf(FILE, 2)}|b`,
        `  ${idOf(FILE, 3)}|c`,
        `  ${idOf(FILE, 4)}|d`,
        `Lines with hash ${expected.text.split(":")[1]} near it now (the line you read may have moved to one of them; check its text):`,
        `  ${idOf(FILE, 3)}|c   (1 line below)`,
        'Retry with the fresh ids shown, or confirm first: view {"path": "a.ts", "start": 1, "end": 5}',
      ].join("\n"),
    );
  });

  test("past the end: the line count, the last lines, and a view of the end", () => {
    const check = checkId(d, { line: 20, hash: 0x00, text: "20:00" });
    if (check.kind !== "past-end") throw new Error("should be past the end");
    const text = staleIdText(d, check, "end", "a.ts", 2000);
    expect(text).toStartWith(`end "20:00" is past the end of the file: it has 8 lines (the last is ${idOf(FILE, 8)}).`);
    expect(text).toContain('view {"path": "a.ts", "start": 4, "end": 8}');
  });

  test("an empty file says so and how to add lines", () => {
    const check = checkId(doc(""), { line: 1, hash: 0xc5, text: "1:c5" });
    if (check.kind !== "past-end") throw new Error("should be past the end");
    expect(staleIdText(doc(""), check, "after", "a.ts", 2000)).toContain('the file is empty (0 lines). To add lines, use {"operation": "insert", "after": 0');
  });
});

describe("conflicts", () => {
  const d = doc(TEXT);
  const id = (n: number) => idOf(TEXT, n);
  const edits = (raw: RawOperation[]) => parsedOk(raw).map((op) => toEdit(op, d.lines.length));

  test("overlapping ranges name both operations and the shared lines", () => {
    const failures = findConflicts(
      edits([
        { operation: "replace", start: id(1), end: id(3), content: "x" },
        { operation: "delete", start: id(3), end: id(4) },
      ]),
    );
    expect(failures).toEqual([
      {
        index: 1,
        label: `delete ${id(3)}-${id(4)}`,
        code: "EDIT_CONFLICT",
        message: `overlaps operations[0] (replace ${id(1)}-${id(3)}): both change line 3. Merge them into one operation over the whole range, or drop one.`,
      },
    ]);
  });

  test("two inserts at one place conflict, including an id anchor and -1 meaning the same place", () => {
    const failures = findConflicts(
      edits([
        { operation: "insert", after: id(5), content: "x" },
        { operation: "insert", after: -1, content: "y" },
      ]),
    );
    expect(failures[0].message).toContain(`inserts at the same place as operations[0] (insert after ${id(5)})`);
  });

  test("an insert inside a replaced range conflicts; at its edges it does not", () => {
    const inside = findConflicts(
      edits([
        { operation: "replace", start: id(2), end: id(4), content: "x" },
        { operation: "insert", after: id(3), content: "y" },
      ]),
    );
    expect(inside[0].message).toBe(
      `inserts inside operations[0] (replace ${id(2)}-${id(4)}): lines 2-4 are replaced there. Put the inserted lines into that replace's content instead.`,
    );
    const edges = findConflicts(
      edits([
        { operation: "replace", start: id(2), end: id(4), content: "x" },
        { operation: "insert", after: id(1), content: "y" },
        { operation: "insert", after: id(4), content: "z" },
        { operation: "delete", start: id(5) },
      ]),
    );
    expect(edges).toEqual([]);
  });

  test("no conflicts among disjoint operations (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }), (lines) => {
        const ops = lines.map((n): RawOperation => ({ operation: "replace", start: id(n), content: "x" }));
        expect(findConflicts(edits(ops))).toEqual([]);
      }),
    );
  });
});

describe("the duplicate-line guard", () => {
  const FILE = "function f() {\n  const a = 1;\n  const b = 2;\n  return a + b;\n}\n";
  const d = doc(FILE);
  const id = (n: number) => idOf(FILE, n);
  const guard = (raw: RawOperation[]) => findDuplicatedLines(d, sortEdits(parsedOk(raw).map((op) => toEdit(op, d.lines.length))));

  test("content repeating the line just before the range is refused, naming it and both fixes", () => {
    const failures = guard([{ operation: "replace", start: id(3), content: "  const a = 1;\n  const b = 3;" }]);
    expect(failures).toEqual([
      {
        index: 0,
        label: `replace ${id(3)}`,
        code: "EDIT_DUPLICATED_LINE",
        message:
          `the first line of content, "  const a = 1;", repeats line ${id(2)}, the line just before the range, so the file would have it twice. ` +
          `Drop that line from content or widen the range to start at ${id(2)} so it is replaced too.`,
      },
    ]);
  });

  test("content repeating the line just after the range is refused", () => {
    const failures = guard([{ operation: "replace", start: id(2), content: "  const a = 10;\n  const b = 2;" }]);
    expect(failures[0].message).toContain(`the last line of content, "  const b = 2;", repeats line ${id(3)}, the line just after the range`);
    expect(failures[0].message).toContain(`widen the range to end at ${id(3)}`);
  });

  test("an insert repeating its anchor line is refused with insert-specific advice", () => {
    const failures = guard([{ operation: "insert", after: id(2), content: "  const a = 1;\n  const c = 0;" }]);
    expect(failures[0].message).toContain("the line it is inserted after");
    expect(failures[0].message).toContain(`use replace with "start": "${id(2)}"`);
  });

  test("blank lines and lone closers are exempt; keeping the replaced line is not a slip", () => {
    expect(guard([{ operation: "replace", start: id(4), content: "  return a;\n}" }])).toEqual([]);
    expect(guard([{ operation: "insert", after: id(5), content: "}\n" }])).toEqual([]);
    // Replacing line 3 with content that starts with line 3's own text keeps it, even if line 2 were equal.
    expect(guard([{ operation: "replace", start: id(3), content: "  const b = 2;\n  const c = 3;" }])).toEqual([]);
    for (const line of ["", "   ", "}", "};", "})", "]);", "),", "end", "fi", "done", "</div>"]) {
      expect(isTrivialLine(line)).toBe(true);
    }
    for (const line of ["x", "} else {", "return;", "end_of_stream()"]) expect(isTrivialLine(line)).toBe(false);
  });

  test("the neighbour is the line next to the content in the result, so deletes and adjacent edits count", () => {
    // Line 3 deleted: the line before the replacement of 4 becomes line 2.
    const afterDelete = guard([
      { operation: "delete", start: id(3) },
      { operation: "replace", start: id(4), content: "  const a = 1;\n  return a;" },
    ]);
    expect(afterDelete.map((f) => f.index)).toEqual([1]);
    // Line 2 replaced too: the neighbour is new content, not the old line 2.
    expect(
      guard([
        { operation: "replace", start: id(2), content: "  const z = 0;" },
        { operation: "replace", start: id(3), content: "  const a = 1;" },
      ]),
    ).toEqual([]);
  });
});

describe("planBatch and the refusal text", () => {
  const d = doc(TEXT);
  const id = (n: number) => idOf(TEXT, n);

  test("positions refer to the file as verified, not as changed by earlier operations", () => {
    const { ops, failures } = parse([
      { operation: "insert", after: 0, content: "zero\nhalf" },
      { operation: "replace", start: id(3), content: "THREE" },
      { operation: "delete", start: id(5) },
    ]);
    const plan = planBatch(d, ops, failures, "a.ts", 2000);
    if (plan.kind !== "ok") throw new Error(JSON.stringify(plan));
    expect(plan.out.lines).toEqual(["zero", "half", "one", "two", "THREE", "four"]);
  });

  test("replacing lines with themselves is no change", () => {
    const { ops } = parse([{ operation: "replace", start: id(2), end: id(3), content: "two\nthree\n" }]);
    expect(planBatch(d, ops, [], "a.ts", 2000)).toEqual({ kind: "no-change" });
  });

  test("failures are aggregated per operation, in order, under one header, and nothing is planned", () => {
    const { ops, failures } = parse([
      { operation: "replace", start: 2, content: "x" },
      { operation: "replace", start: id(1), content: "ok" },
      { operation: "replace", start: "4:00", content: "y" },
    ]);
    const plan = planBatch(d, ops, failures, "a.ts", 2000);
    if (plan.kind !== "failed") throw new Error("should fail");
    const text = renderRefusal(plan.failures, 3);
    expect(text.split("\n")[0]).toBe("No operations were applied — 2 of 3 operations failed:");
    expect(text).toContain("\noperations[0] (replace 2) [INVALID_ARGUMENT]:\n- start: 2 is a bare line number.");
    expect(text).toContain('\noperations[2] (replace 4:00) [EDIT_STALE_LINE_ID]:\n- start "4:00" does not match the file');
    expect(text).not.toContain("operations[1]");
    expect(text.split("\n").at(-1)).toBe("Nothing was written. Fix these and send the whole batch again (operations not listed here passed their checks).");
    expect(refusalCode(plan.failures)).toBe("EDIT_STALE_LINE_ID");
  });

  test("the refusal's code is the one to fix first", () => {
    const f = (code: OpFailure["code"]): OpFailure => ({ index: 0, label: "x", code, message: "m" });
    expect(refusalCode([f("EDIT_DUPLICATED_LINE"), f("EDIT_CONFLICT")])).toBe("EDIT_CONFLICT");
    expect(refusalCode([f("EDIT_CONFLICT"), f("INVALID_ARGUMENT")])).toBe("INVALID_ARGUMENT");
    expect(refusalCode([f("INVALID_ARGUMENT"), f("EDIT_STALE_LINE_ID")])).toBe("EDIT_STALE_LINE_ID");
  });
});

describe("repairBatch", () => {
  const FILE = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
  const d = doc(FILE);
  const ref = (line: number, hash: number) => ({ line, hash, text: `${line}:${hash.toString(16).padStart(2, "0")}` });
  const stale = (line: number, hash: number) => {
    const check = checkId(d, ref(line, hash));
    if (check.kind === "ok") throw new Error("should not verify");
    return { opIndex: 0, field: "start", check };
  };

  test("on a file as viewed, a hash no line near has is a typo: the fix is the line's own id", () => {
    const unused = [...Array(256).keys()].find((h) => !d.hashes.includes(h))!;
    const b = stale(5, unused);
    const r = repairBatch(d, [b], false).ids.get(b)!;
    expect(r).toMatchObject({ reason: "mistyped", fix: { line: 5, hash: d.hashes[4] } });
  });

  test("on a file as viewed, a hash that names a nearby line is no typo: number and hash disagree, and nothing is sure", () => {
    // "5:<hash of line 6>": an off-by-one number, or an id copied from line 6; either could be meant.
    const b = stale(5, d.hashes[5]);
    const r = repairBatch(d, [b], false).ids.get(b)!;
    expect(r.fix).toBeUndefined();
    expect(r.candidates[0]).toEqual({ line: 6, shift: 1 });
  });

  test("on a file as viewed, a line far off with the hash is a likely coincidence: the number stands", () => {
    const hashes = Uint8Array.from(d.hashes);
    hashes[24] = (d.hashes[4] + 1) & 0xff; // line 25 has the hash sent for line 5
    for (let i = 0; i < 30; i++) if (i !== 24 && hashes[i] === hashes[24]) hashes[i] = (hashes[i] + 2) & 0xff;
    const lines = { lines: d.lines, hashes };
    const check = checkId(lines, ref(5, hashes[24]));
    if (check.kind === "ok") throw new Error("should not verify");
    const b = { opIndex: 0, field: "start", check };
    expect(repairBatch(lines, [b], false).ids.get(b)).toMatchObject({ reason: "mistyped", fix: { line: 5 } });
  });

  test("on a file as viewed, a near line with the hash yields to the number when the content written is clearly an edit of the numbered line", () => {
    const src = doc('\t/**\n\t * Returns the body.\n\t */\n\tarrayBuffer() {\n\t\treturn this.#cachedBody("arrayBuffer");\n\t}\n');
    // "5:<hash of line 3>": line 3 is a lone ` */`, two lines above; the content edits line 5.
    const check = checkId(src, ref(5, src.hashes[2]));
    if (check.kind === "ok") throw new Error("should not verify");
    const edit = { opIndex: 0, field: "start", check, writes: '\t\treturn this.#cachedBody("arrayBuffer"); // checked' };
    expect(repairBatch(src, [edit], false).ids.get(edit)).toMatchObject({ reason: "mistyped", fix: { line: 5 } });
    // Content that reads like neither (or like the near line) leaves both choices open.
    const unclear = { ...edit, writes: "something else entirely" };
    expect(repairBatch(src, [unclear], false).ids.get(unclear)!.fix).toBeUndefined();
    const deletion = { opIndex: 0, field: "start", check };
    expect(repairBatch(src, [deletion], false).ids.get(deletion)!.fix).toBeUndefined();
  });

  test("two ids that agree on one shift are corrected by it even on a file as viewed (ids taken before the session's own edit)", () => {
    const a = stale(10, d.hashes[12]);
    const b = stale(20, d.hashes[22]);
    const r = repairBatch(d, [a, b], false);
    expect(r.shift).toBe(3);
    expect(r.ids.get(a)).toMatchObject({ reason: "shift", fix: { line: 13 } });
  });

  test("an id from before the session's own edit is corrected exactly by where that edit moved the line", () => {
    // The session viewed the file, then inserted 3 lines after line 7: viewed lines 8.. are now 11..
    const own = {
      kept: [
        [1, 7, 1],
        [8, 30, 11],
      ] as [number, number, number][],
      shown: [[6, 12]] as [number, number][],
    };
    const b = stale(20, d.hashes[22]);
    const r = repairBatch(d, [b], false, own);
    expect(r.ids.get(b)).toMatchObject({ reason: "own-edit", fix: { line: 23, hash: d.hashes[22] } });
    // Line 11 was shown with its new id, but this id is not that one: it is still the viewed line 11, now 14.
    const shown = stale(11, d.hashes[13]);
    expect(repairBatch(d, [shown], false, own).ids.get(shown)).toMatchObject({ reason: "own-edit", fix: { line: 14 } });
    // A line the session's edit replaced has no old id to correct.
    const gone = {
      kept: [
        [1, 7, 1],
        [9, 30, 11],
      ] as [number, number, number][],
      shown: [],
    };
    const eight = stale(8, d.hashes[9]);
    expect(repairBatch(d, [eight], false, gone).ids.get(eight)!.reason).not.toBe("own-edit");
  });

  test("two ids that moved by the same shift are corrected by it; one alone is not", () => {
    // The model's ids for lines 10 and 20, taken before 3 lines were inserted at the top: now at 13 and 23.
    const a = stale(10, d.hashes[12]);
    const b = stale(20, d.hashes[22]);
    const both = repairBatch(d, [a, b], true);
    expect(both.shift).toBe(3);
    expect(both.ids.get(a)).toMatchObject({ reason: "shift", fix: { line: 13 } });
    expect(both.ids.get(a)!.candidates[0]).toEqual({ line: 13, shift: 3, fits: true });
    const alone = repairBatch(d, [a], true);
    expect(alone.shift).toBeUndefined();
    expect(alone.ids.get(a)!.fix).toBeUndefined();
    expect(alone.ids.get(a)!.candidates[0]).toEqual({ line: 13, shift: 3 });
  });

  test("a candidate that does not fit the shift is ranked after those that do", () => {
    const hashes = Uint8Array.from(d.hashes);
    hashes[10] = d.hashes[12]; // line 11 now hashes like line 13: a decoy 1 line from line 10
    const lines = { lines: d.lines, hashes };
    const check = (line: number, hash: number) => {
      const c = checkId(lines, ref(line, hash));
      if (c.kind === "ok") throw new Error("should not verify");
      return { opIndex: 0, field: "start", check: c };
    };
    const a = check(10, d.hashes[12]);
    const b = { ...check(20, d.hashes[22]), field: "end" };
    const r = repairBatch(lines, [a, b], true);
    expect(r.shift).toBe(3);
    expect(r.ids.get(a)!.candidates.map((c) => [c.line, c.fits])).toEqual([
      [13, true],
      [11, false],
    ]);
  });

  test("a bare number's fix is that line's current id; past the end there is none", () => {
    const bare = (line: number) => {
      const check = checkId(d, { line, hash: -1, text: String(line), bare: true });
      if (check.kind !== "bare") throw new Error("should be bare");
      return { opIndex: 0, field: "start", check };
    };
    const six = bare(6);
    const far = bare(99);
    const r = repairBatch(d, [six, far], true);
    expect(r.ids.get(six)).toMatchObject({ reason: "bare", fix: { line: 6, hash: d.hashes[5] } });
    expect(r.ids.get(far)!.fix).toBeUndefined();
  });
});
