import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { diffFromEdits } from "../../src/text/diff.ts";
import { encodeDocument, loadDocument, type TextDocument } from "../../src/text/document.ts";
import { spliceBytes } from "../../src/text/edit-window.ts";
import { type LineEdit, spliceLineEdits } from "../../src/text/line-edits.ts";
import { countLines, eolStyleOfBytes } from "../../src/text/line-scan.ts";
import { readWindows, spliceWindows, WINDOW_MARGIN, windowHunks } from "../../src/text/line-windows.ts";

const encoder = new TextEncoder();

function load(text: string, bom: boolean): TextDocument {
  const body = encoder.encode(text);
  const doc = loadDocument(bom ? spliceBytes(true, body, body.length, body.length, new Uint8Array()) : body, jsHasher);
  if (!doc.ok) throw new Error("not text");
  return doc;
}

/**
 * Sorted, non-overlapping edits from random picks (at most one insert per
 * place, none inside a range), and when `last` is given one more that
 * reaches the end of the file (where an empty unterminated line is dropped).
 */
function editsFrom(picks: readonly { at: number; len: number; lines: string[] }[], lineCount: number, last?: { len: number; lines: string[] }): LineEdit[] {
  const edits: LineEdit[] = [];
  let pos = 0;
  for (const p of picks) {
    // Gaps of 0 (touching edits) to 11 lines (edits a window apart).
    const start = pos + p.at;
    if (start > lineCount) break;
    const end = Math.min(lineCount, start + p.len);
    if (edits.length > 0 && end === start && edits[edits.length - 1].end === start && edits[edits.length - 1].start === start) break;
    edits.push({ start, end, lines: p.lines });
    pos = end === start ? end + 1 : end;
  }
  const start = Math.max(pos, lineCount - (last?.len ?? 0));
  if (last !== undefined && start < lineCount) edits.push({ start, end: lineCount, lines: last.lines });
  return edits;
}

describe("windows of lines", () => {
  test("windows are merged when their margins meet, and decode exactly their lines", () => {
    const doc = load(Array.from({ length: 40 }, (_, i) => `l${i}\n`).join(""), false);
    const read = readWindows(doc.body, [
      { start: 10, end: 11 },
      { start: 14, end: 14 },
      { start: 30, end: 32 },
    ]);
    expect(read?.lineCount).toBe(40);
    const windows = read!.windows;
    expect(windows.map((w) => [w.start, w.end])).toEqual([
      [10 - WINDOW_MARGIN, 14 + WINDOW_MARGIN],
      [30 - WINDOW_MARGIN, 32 + WINDOW_MARGIN],
    ]);
    expect(windows[1].lines.lines).toEqual(doc.lines.slice(27, 35));
    // A window past the end is clipped; a range starting past it has no window.
    expect(readWindows(doc.body, [{ start: 39, end: 40 }])?.windows.map((w) => [w.start, w.end])).toEqual([[36, 40]]);
    expect(readWindows(doc.body, [{ start: 45, end: 46 }])).toBeUndefined();
  });

  test("splicing windows equals splicing the whole file: bytes, line counts and diff (property)", () => {
    const piece = fc.constantFrom("a", "b", " ", "é", "世", "x = 1;", "\r", "}", "");
    const line = fc.array(piece, { maxLength: 3 }).map((p) => p.join(""));
    fc.assert(
      fc.property(
        // Files long enough for edits in separate windows (fast-check's default size stays near 10 lines).
        fc.array(line, { maxLength: 40, size: "max" }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.record({ at: fc.constantFrom(0, 0, 1, 2, 5, 9, 11), len: fc.nat({ max: 3 }), lines: fc.array(line, { maxLength: 3 }) }), { maxLength: 5 }),
        fc.boolean(),
        fc.option(fc.record({ len: fc.nat({ max: 3 }), lines: fc.array(line, { maxLength: 3 }) })),
        (lines, crlf, final, bom, picks, given, last) => {
          const text = lines.map((l, i) => l + (i === lines.length - 1 && !final ? "" : crlf[i] ? "\r\n" : "\n")).join("");
          let doc: TextDocument;
          try {
            doc = load(text, bom);
          } catch {
            return;
          }
          const n = countLines(doc.body);
          expect(n).toBe(doc.lines.length);
          const edits = editsFrom(picks, n, last ?? undefined);
          const full = spliceLineEdits(doc, edits);
          // The count is found by the scan, or given (it then only clips).
          const read = readWindows(doc.body, edits, given ? n : undefined)!;
          expect(read.lineCount).toBe(n);
          const windows = read.windows;
          const spliced = spliceWindows(doc.bom, doc.body, windows, edits, eolStyleOfBytes(doc.body), n);
          expect(Array.from(spliced.bytes)).toEqual(Array.from(encodeDocument({ bom: doc.bom, lines: full.lines, eols: full.eols })));
          expect(spliced.newLineCount).toBe(full.lines.length);
          expect(windowHunks(windows, spliced.outs)).toEqual(diffFromEdits(doc.lines, full.lines, full.edits));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
