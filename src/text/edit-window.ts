/**
 * An `edit` of a few lines of a large file without decoding, splitting,
 * hashing or joining the whole file: the match is found in the bytes, only
 * the lines around it are decoded and run through the same ladder and
 * splice as the whole-file path, and the unchanged prefix and suffix are
 * copied as bytes. Taken only where the result is provably the same as the
 * whole-file path's (an exact match that is unique in the file, see
 * {@link windowedStringEdit}); anything else returns undefined and the
 * caller takes the whole-file path. A property test holds the two equal.
 */

import { compileNeedle } from "./bytes-find.ts";
import type { LineEdit } from "./line-edits.ts";
import { spliceLineEdits } from "./line-edits.ts";
import { countNewlines, eolStyleOfBytes, indexOfBytes, lineEndAfter, lineStartBefore } from "./line-scan.ts";
import { joinLines, type SplitLines, splitLines } from "./lines.ts";
import { BOM_CHAR } from "./match-bom.ts";
import { applyStringEdit, type LineRef, type MatchOptions } from "./match.ts";

/** Whole lines decoded before the matched ones: the diff's 2 context lines and one spare. */
const BEFORE = 3;
/** After them: a line a replacement may join (see `spansToLineEdits`), 2 context lines, one spare. */
const AFTER = 4;

const LF = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** An edit applied to a window of the file's lines. */
export interface WindowedEdit {
  /** The whole new file, BOM included. */
  readonly bytes: Uint8Array;
  /** The window's lines before the edit. */
  readonly old: SplitLines;
  /** The window's lines after it, with the edits as applied (window lines). */
  readonly out: SplitLines & { edits: LineEdit[] };
  /** The window reaches the end of the file (its last line is the file's). */
  readonly atEnd: boolean;
  /**
   * Where the window sits in the file. A count of the file's newlines (~20 us
   * for 1k lines) that only the report needs, not the write: made on the
   * first call, which the tool arranges during the write's flush.
   */
  place(): WindowPlace;
}

/** The numbers of a {@link WindowedEdit} in the whole file. */
export interface WindowPlace {
  /** 0-based file line of the window's first line. */
  readonly offset: number;
  /** The replaced match: its first line, numbered in the file. */
  readonly matches: readonly LineRef[];
  /** Lines of the whole file before and after. */
  readonly oldLineCount: number;
  readonly newLineCount: number;
}

/**
 * `applyStringEditWithBom` + `spliceLineEdits` + encoding, for a document
 * given by its body bytes (after the BOM), computed on the lines around the
 * match only. Undefined unless old_string (with "\r\n" read as "\n") occurs
 * exactly once in the file as bytes, and the bytes can only match where the
 * line model matches: no "\r" in old_string; a multi-line old_string only
 * in a file without "\r"; an old_string ending in "\n" only in a file that
 * ends with one (the line model counts the last line as terminated); no
 * U+FEFF at the start of either string in a BOM file; no lone surrogate.
 */
export function windowedStringEdit(
  doc: { readonly bom: boolean; readonly body: Uint8Array },
  oldString: string,
  newString: string,
  options: MatchOptions = {},
): WindowedEdit | undefined {
  const oldText = crlfToLf(oldString);
  if (oldText === "" || oldText.includes("\r")) return undefined;
  if (doc.bom && (oldString.startsWith(BOM_CHAR) || newString.startsWith(BOM_CHAR))) return undefined;
  const needleBytes = encoder.encode(oldText);
  if (decoder.decode(needleBytes) !== oldText) return undefined; // a lone surrogate encodes as U+FFFD
  const body = doc.body;
  const n = body.length;
  if (oldText.includes("\n") && body.indexOf(0x0d) !== -1) return undefined;
  if (oldText.endsWith("\n") && n > 0 && body[n - 1] !== LF) return undefined;
  const needle = compileNeedle(needleBytes);
  const at = indexOfBytes(body, needle);
  // Any second occurrence, even an overlapping one, leaves the decision to the whole-file ladder.
  if (at === -1 || indexOfBytes(body, needle, at + 1) !== -1) return undefined;

  let startByte = lineStartBefore(body, at);
  for (let k = 0; k < BEFORE && startByte > 0; k++) startByte = lineStartBefore(body, startByte - 1);
  let endByte = lineEndAfter(body, at + needleBytes.length - 1);
  for (let k = 0; k < AFTER && endByte < n; k++) endByte = lineEndAfter(body, endByte);
  const atEnd = endByte === n;
  const old = splitLines(decoder.decode(body.subarray(startByte, endByte)));
  const r = applyStringEdit(old.lines, oldString, newString, options);
  if (r.kind !== "ok" || r.strategy !== "exact" || r.replacements !== 1) return undefined;
  const out = spliceLineEdits(old, r.edits, { style: eolStyleOfBytes(body), atEnd });
  // Emptied to its first line at the end of the file: the line before it would become the last (never here: BEFORE > 0).
  if (atEnd && out.lines.length === 0 && startByte > 0) return undefined;

  let place: WindowPlace | undefined;
  return {
    bytes: spliceBytes(doc.bom, body, startByte, endByte, encoder.encode(joinLines(out.lines, out.eols))),
    old,
    out,
    atEnd,
    place() {
      if (place) return place;
      const offset = countNewlines(body, 0, startByte);
      const after = atEnd ? 0 : countNewlines(body, endByte, n) + (body[n - 1] !== LF ? 1 : 0);
      const oldLineCount = offset + old.lines.length + after;
      place = {
        offset,
        matches: r.matches.map((m) => ({ line: m.line + offset, id: `${m.line + offset}${m.id.slice(m.id.indexOf(":"))}` })),
        oldLineCount,
        newLineCount: oldLineCount + out.lines.length - old.lines.length,
      };
      return place;
    },
  };
}

/** BOM (when the file has one) + body before `from` + `middle` + body from `to`: one copy. */
export function spliceBytes(bom: boolean, body: Uint8Array, from: number, to: number, middle: Uint8Array): Uint8Array {
  const head = bom ? 3 : 0;
  const out = new Uint8Array(head + from + middle.length + (body.length - to));
  if (bom) out.set([0xef, 0xbb, 0xbf]);
  out.set(body.subarray(0, from), head);
  out.set(middle, head + from);
  out.set(body.subarray(to), head + from + middle.length);
  return out;
}

function crlfToLf(text: string): string {
  return text.includes("\r\n") ? text.split("\r\n").join("\n") : text;
}
