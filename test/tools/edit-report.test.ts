import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { capOutput, reportChange, shiftNote } from "../../src/tools/support/change-report.ts";
import { ambiguousText, noMatchText } from "../../src/tools/edit/messages.ts";
import { diffLines } from "../../src/text/diff.ts";
import { loadDocument, type TextDocument } from "../../src/text/document.ts";
import { applyStringEdit } from "../../src/text/match.ts";
import { utf8Length } from "../../src/text/render.ts";
import { DEFAULT_LIMITS } from "../../src/tools/types.ts";
import { idOf, utf8 } from "../helpers/tool-mutation.ts";

function doc(text: string): TextDocument {
  const d = loadDocument(utf8(text), jsHasher);
  if (!d.ok) throw new Error("not text");
  return d;
}

const lines = (n: number, tag = "l") => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`);

describe("shiftNote", () => {
  test("names each region of unchanged lines that moved, with its shift", () => {
    const old = lines(40);
    const next = [...old.slice(0, 5), "new a", "new b", ...old.slice(5, 30), ...old.slice(31)];
    expect(shiftNote(diffLines(old, next), old.length)).toBe(
      "Unchanged lines outside the diff moved: old lines 8-28 are now lines 10-30 (+2); old lines 34-40 are now lines 35-41 (+1). " +
        "Their hashes are unchanged, so an old id N:hh there is now (N+shift):hh.",
    );
  });

  test("nothing moved: no note", () => {
    const old = lines(10);
    const next = old.map((l, i) => (i === 4 ? "changed" : l));
    expect(shiftNote(diffLines(old, next), old.length)).toBe("");
  });

  test("the note's rule is right for every line it covers (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 59 }), { maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 59 }), { maxLength: 6 }),
        (inserts, deletes) => {
          const old = lines(60);
          const dropped = new Set(deletes);
          const next: string[] = [];
          old.forEach((line, i) => {
            if (inserts.includes(i)) next.push(`ins before ${i}`);
            if (!dropped.has(i)) next.push(line);
          });
          const note = shiftNote(diffLines(old, next), old.length);
          for (const m of note.matchAll(/old lines? (\d+)(?:-(\d+))? (?:is|are) now lines? (\d+)(?:-\d+)? \(([+-]\d+)\)/g)) {
            const from = Number(m[1]);
            const to = Number(m[2] ?? m[1]);
            const shift = Number(m[4]);
            expect(Number(m[3])).toBe(from + shift);
            for (let n = from; n <= to; n++) expect(next[n + shift - 1]).toBe(old[n - 1]);
          }
        },
      ),
    );
  });
});

describe("reportChange and capOutput", () => {
  test("a diff of known edits and the moved-ids note together", () => {
    const old = lines(20);
    const r = applyStringEdit(old, "l3\n", "l3\nextra\n");
    if (r.kind !== "ok") throw new Error(r.kind);
    const report = reportChange(old, r.lines, r.edits, DEFAULT_LIMITS);
    expect(report.diff.split("\n")[0]).toBe("@@ -2,4 +2,5 @@");
    expect(report.shifts).toContain("old lines 6-20 are now lines 7-21 (+1)");
  });

  test("capOutput cuts at a line boundary within the byte budget and says so", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${"é".repeat(20)}`).join("\n");
    const cut = capOutput(text, 1000);
    expect(utf8Length(cut)).toBeLessThanOrEqual(1000);
    expect(cut.split("\n").at(-1)).toStartWith("… [output cut");
    expect(text.startsWith(cut.split("\n").slice(0, -1).join("\n"))).toBe(true);
    expect(capOutput("short", 1000)).toBe("short");
  });
});

describe("edit messages", () => {
  const FILE = "a\nb\nc\n".repeat(3);

  test("ambiguous multi-line matches span the right lines (a trailing newline ends the last line)", () => {
    const d = doc(FILE);
    for (const [oldString, span] of [
      ["a\nb", 2],
      ["a\nb\n", 2],
      ["a\nb\nc", 3],
      ["b\nc\na", 3],
    ] as const) {
      const r = applyStringEdit(d.lines, oldString, "x");
      if (r.kind !== "ambiguous") throw new Error(`${oldString}: ${r.kind}`);
      const text = ambiguousText("f.txt", d, r, oldString, DEFAULT_LIMITS);
      expect(text).toContain(`each spans ${span} lines`);
      const first = r.matches[0].line;
      expect(text).toContain(`"end": "${idOf(FILE, first + span - 1)}"`);
    }
  });

  test("no match on an empty file says the file is empty", () => {
    const d = doc("");
    const r = applyStringEdit(d.lines, "x", "y");
    if (r.kind !== "no-match") throw new Error(r.kind);
    expect(noMatchText("e.txt", d, r, DEFAULT_LIMITS)).toContain("The file is empty.");
  });

  test("a big best window is shown up to 40 lines with the view call for the rest", () => {
    const text = `${lines(100, "row ").join("\n")}\n`;
    const d = doc(text);
    const needle = lines(60, "row ")
      .map((l) => `${l}!`)
      .join("\n");
    const r = applyStringEdit(d.lines, needle, "y");
    if (r.kind !== "no-match") throw new Error(r.kind);
    const message = noMatchText("big.txt", d, r, DEFAULT_LIMITS);
    const best = r.candidates[0];
    expect(message).toContain(`… view {"path": "big.txt", "start": ${best.start + 41}, "end": ${best.end}} for the rest of it.`);
  });
});
