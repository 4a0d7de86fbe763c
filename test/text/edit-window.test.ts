import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { diffFromEdits, offsetHunks } from "../../src/text/diff.ts";
import { encodeDocument, loadDocument, type TextDocument } from "../../src/text/document.ts";
import { spliceBytes, windowedStringEdit } from "../../src/text/edit-window.ts";
import { spliceLineEdits } from "../../src/text/line-edits.ts";
import { applyStringEditWithBom } from "../../src/text/match-bom.ts";

const encoder = new TextEncoder();

function load(text: string, bom = false): TextDocument {
  const body = encoder.encode(text);
  const bytes = bom ? spliceBytes(true, body, body.length, body.length, new Uint8Array()) : body;
  const doc = loadDocument(bytes, jsHasher);
  if (!doc.ok) throw new Error("not text");
  return doc;
}

/** The whole-file path the tool takes when the window does not apply. */
function wholeFile(doc: TextDocument, oldString: string, newString: string, replaceAll: boolean) {
  const r = applyStringEditWithBom(doc.lines, doc.bom, oldString, newString, { replaceAll });
  if (r.kind !== "ok") return { r };
  const out = spliceLineEdits(doc, r.edits);
  return { r, out, bytes: encodeDocument({ bom: doc.bom, lines: out.lines, eols: out.eols }) };
}

const endsWithNewline = (eols: readonly string[]) => eols.length > 0 && eols[eols.length - 1] !== "";

/** Asserts the windowed edit equals the whole-file path; returns whether the window applied. */
function same(doc: TextDocument, oldString: string, newString: string, replaceAll = false): boolean {
  const w = windowedStringEdit(doc, oldString, newString, { replaceAll });
  if (w === undefined) return false;
  const full = wholeFile(doc, oldString, newString, replaceAll);
  expect(full.r.kind).toBe("ok");
  if (full.r.kind !== "ok" || !full.out) return false;
  expect(full.r.strategy).toBe("exact");
  expect(Array.from(w.bytes)).toEqual(Array.from(full.bytes!));
  expect(w.place().matches).toEqual(full.r.matches);
  expect(w.place().oldLineCount).toBe(doc.lines.length);
  expect(w.place().newLineCount).toBe(full.out.lines.length);
  // The diff of the window, renumbered, is the diff of the whole file.
  const windowHunks = offsetHunks(diffFromEdits(w.old.lines, w.out.lines, w.out.edits), w.place().offset);
  expect(windowHunks).toEqual(diffFromEdits(doc.lines, full.out.lines, full.out.edits));
  // The final-newline note is computed from the window only when it reaches the end.
  if (w.atEnd) {
    expect(w.old.eols.at(-1)).toBe(doc.eols.at(-1));
    expect(w.out.eols.at(-1)).toBe(full.out.eols.at(-1));
  } else expect(endsWithNewline(full.out.eols)).toBe(endsWithNewline(doc.eols));
  return true;
}

describe("windowedStringEdit", () => {
  test("a unique match in a long file: only the window is decoded, the rest copied as bytes", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} é`);
    const doc = load(`${lines.join("\r\n")}\r\n`);
    const w = windowedStringEdit(doc, "line 50 é", "line fifty\nand more");
    expect(w).toBeDefined();
    expect(w!.place().offset).toBe(47);
    expect(w!.old.lines.length).toBe(3 + 1 + 4);
    expect(w!.atEnd).toBe(false);
    expect(same(doc, "line 50 é", "line fifty\nand more")).toBe(true);
  });

  test("cases the window leaves to the whole-file path", () => {
    const doc = load("a\nb\na\nc");
    expect(windowedStringEdit(doc, "a", "x")).toBeUndefined(); // two matches: ambiguous or replace_all
    expect(windowedStringEdit(doc, "zz", "x")).toBeUndefined(); // no exact match: the ladder goes on
    expect(windowedStringEdit(doc, "c\n", "x")).toBeUndefined(); // "\n" after an unterminated last line
    expect(windowedStringEdit(load("a\r\nb\r\n"), "a\nb", "x")).toBeUndefined(); // multi-line in a CRLF file
    expect(windowedStringEdit(load("ab\n", true), "\uFEFFab", "x")).toBeUndefined(); // the BOM in old_string
    expect(windowedStringEdit(load("a\uFFFDb\n"), "a\uD800b", "x")).toBeUndefined(); // a lone surrogate
    expect(windowedStringEdit(doc, "", "x")).toBeUndefined();
  });

  test("equals the whole-file path: bytes, matches, line counts and diff (property)", () => {
    const piece = fc.constantFrom("a", "b", "ab", " ", "\t", "é", "世", "🚀", "x = 1;", "\r", "\uFEFF");
    const line = fc.array(piece, { maxLength: 4 }).map((p) => p.join(""));
    const file = fc.record({
      lines: fc.array(line, { minLength: 1, maxLength: 30, size: "max" }),
      crlf: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      final: fc.boolean(),
      bom: fc.boolean(),
      numbered: fc.boolean(),
      someCrlf: fc.boolean(),
    });
    const edit = fc.record({
      from: fc.nat(),
      span: fc.nat({ max: 40 }),
      replacement: fc.array(fc.constantFrom("", "a", "q", "\n", "\r\n", "é", " ", "\uFEFF", "new line\n"), { maxLength: 5 }).map((p) => p.join("")),
      replaceAll: fc.boolean(),
    });
    let applied = 0;
    fc.assert(
      fc.property(file, edit, (f, e) => {
        let text = "";
        f.lines.forEach((l, i) => {
          const last = i === f.lines.length - 1;
          // Numbered lines make most slices unique, so the window applies often.
          text += (f.numbered && i % 2 === 0 ? `${i}${l}` : l) + (last && !f.final ? "" : f.someCrlf && f.crlf[i] ? "\r\n" : "\n");
        });
        let doc: TextDocument;
        try {
          doc = load(text, f.bom);
        } catch {
          return; // a "\r" before an eol's "\n" is the terminator: fine, but keep texts that load
        }
        const lf = `${doc.lines.join("\n")}\n`;
        const from = e.from % lf.length;
        const oldString = lf.slice(from, from + 1 + e.span);
        if (oldString === "") return;
        if (same(doc, oldString, e.replacement, e.replaceAll)) applied++;
      }),
      { numRuns: 3000 },
    );
    // Longer files have fewer unique slices: 3000 runs keep the window applying in well over 200.
    expect(applied).toBeGreaterThan(200);
  });
});
