/**
 * The call an `edit` refusal offers for pasted `N:hh|` rows, proven before
 * it is offered. Pasted rows are whole lines of the file as it should
 * read; a call offered as ready must write them so. Applied in memory, it
 * must match and give exactly those lines in place of the ones it
 * replaces: an old_string that matched only part of a line ("b = 2;" in
 * "const b = 2;") would keep the rest of it ("const const b = 22;"), so
 * it is widened to the whole lines it matched in, and proven again.
 * Pure: no I/O.
 */
import type { TextDocument } from "../../text/document.ts";
import { applyStringEditWithBom } from "../../text/match-bom.ts";
import type { EditApplied } from "../../text/match.ts";

/** A call proven to write the rows; `widened` when old_string had to grow to whole lines. */
export interface ProvenOffer {
  readonly oldString: string;
  readonly newString: string;
  readonly widened: boolean;
  /** First line (1-based) of the lines it replaces. */
  readonly line: number;
}

/** The lines `newString` writes, as pasted rows name them (a CR of a CRLF row is its ending, not text). */
export function rowsOf(newString: string): string[] {
  const rows = newString.split("\n").map((row) => row.replace(/\r$/, ""));
  if (rows.at(-1) === "") rows.pop();
  return rows;
}

/**
 * Whether `edit` writes exactly `rows`. Exactly, indentation too: rows carry
 * the file's own indentation, so a match fitted to another one (old_string
 * sent unindented) would indent them twice.
 */
export function writesRows(edit: EditApplied["edits"][number], rows: readonly string[]): boolean {
  return edit.lines.length === rows.length && edit.lines.every((line, k) => line === rows[k]);
}

/**
 * `oldString` -> `newString` if it writes the rows as whole lines; else the
 * same on the whole lines its one match touches; else undefined (nothing
 * may be offered as ready).
 */
export function provenOffer(
  doc: TextDocument,
  oldString: string,
  newString: string,
  options: { readonly replaceAll?: boolean; readonly maxBytes: number },
): ProvenOffer | undefined {
  const rows = rowsOf(newString);
  const first = applyStringEditWithBom(doc.lines, doc.bom, oldString, newString, options);
  if (first.kind !== "ok") return undefined;
  if (first.edits.every((e) => writesRows(e, rows))) return { oldString, newString, widened: false, line: first.edits[0].start + 1 };
  if (first.edits.length !== 1) return undefined;
  const [edit] = first.edits;
  const whole = doc.lines.slice(edit.start, Math.max(edit.end, edit.start + 1)).join("\n") + (oldString.endsWith("\n") ? "\n" : "");
  const again = applyStringEditWithBom(doc.lines, doc.bom, whole, newString, { maxBytes: options.maxBytes });
  if (again.kind !== "ok" || again.edits.length !== 1 || !writesRows(again.edits[0], rows)) return undefined;
  return { oldString: whole, newString, widened: true, line: edit.start + 1 };
}
