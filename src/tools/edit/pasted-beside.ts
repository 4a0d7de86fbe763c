/**
 * Pasted rows in new_string that name, by a verified id, lines outside the
 * text old_string matched. A model that pastes a few view rows as new_string
 * but matches fewer lines with old_string means those rows to replace their
 * own lines; the cleaned new_string alone would write them a second time
 * beside the originals. So the call offered is widened: old_string grows to
 * cover the rows' lines right before and after the match, and the call is
 * proven (applied in memory) to give exactly the file that reading means.
 * Otherwise a row whose text is the very line it names (a sure duplicate)
 * leaves no call to offer as ready; a row whose text differs may just carry
 * a wrong id, and is cleaned as before.
 */

import type { TextDocument } from "../../text/document.ts";
import { type PastedRow, readPaste } from "../../text/id-prefix.ts";
import { formatId } from "../../text/ids.ts";
import { applyStringEditWithBom } from "../../text/match-bom.ts";
import type { EditApplied } from "../../text/match.ts";
import { checkPasted } from "../support/pasted.ts";
import { rowsOf, writesRows } from "./pasted-offer.ts";

/** What the rows outside the match ask of the offered call. */
export type Beside =
  /** No row names a line outside the match. */
  | { readonly kind: "none" }
  /** Offer this call instead of the cleaned one; `said` explains the widening; `line`: where the unwidened old_string matches (1-based). */
  | { readonly kind: "widened"; readonly oldString: string; readonly newString: string; readonly said: string; readonly line: number }
  /** No call can be offered as ready; `why` says so (phrased for PasteVerdict.unclear). */
  | { readonly kind: "stray"; readonly why: string };

interface BesideInput {
  readonly path: string;
  readonly doc: TextDocument;
  readonly oldString: string;
  readonly newString: string;
  /** new_string as the paste check cleans it. */
  readonly cleaned: string;
  /** The edit with the cleaned new_string. */
  readonly trial: EditApplied;
  readonly replaceAll: boolean;
  readonly maxBytes: number;
}

/** Rows of new_string (see the module comment) that name lines outside the trial's match. */
export function rowsBeside(input: BesideInput): Beside {
  const { doc, trial } = input;
  const paste = readPaste(input.newString, { fileLines: () => doc.lines });
  if (!paste) return { kind: "none" };
  const content = (r: PastedRow) => r.text.slice(r.text.indexOf("|") + 1).replace(/\r$/, "");
  // A diff's "-" rows are left out of the cleaned text: they write nothing. Nor does an empty last row that
  // only gives the text the newline old_string's match ends with ("12:ab|x\n13:c5|" for "x\n" writes "x\n").
  let rows = paste.rows.filter((r) => r.mark !== "-");
  const newlineOnly = !input.newString.endsWith("\n") && input.oldString.endsWith("\n");
  if (rows.length > 1 && content(rows[rows.length - 1]) === "" && newlineOnly) rows = rows.slice(0, -1);
  const verified = (r: PastedRow) => r.line >= 1 && r.line <= doc.lines.length && doc.hashes[r.line - 1] === r.hash;
  const inside = (r: PastedRow) => trial.edits.some((e) => r.line - 1 >= e.start && r.line - 1 < Math.max(e.end, e.start + 1));
  const outside = rows.filter((r) => verified(r) && !inside(r));
  if (outside.length === 0) return { kind: "none" };
  // A changed row beside the match is read as its line's new text only in a paste that also shows the match's own lines.
  const sure = outside.every((r) => content(r) === doc.lines[r.line - 1]) || rows.some((r) => verified(r) && inside(r));
  const widened = sure && trial.edits.length === 1 ? widen(input, rows, outside, content) : undefined;
  if (widened) return widened;
  // A row whose text is its own line's is written twice by the cleaned text; another may just carry a wrong id,
  // unless the paste also names lines of the match: then it names a line away from it, changed, and the cleaned
  // text would add that line where the match is instead.
  const twice = outside.filter((r) => content(r) === doc.lines[r.line - 1]);
  const away = outside.filter((r) => content(r) !== doc.lines[r.line - 1]);
  if (away.length > 0 && rows.some((r) => verified(r) && inside(r))) {
    const one = away.length === 1;
    return {
      kind: "stray",
      why:
        `${one ? "its row" : "its rows"} ${away.map((r) => formatId(r.line, r.hash)).join(", ")} ${one ? "names a line" : "name lines"} away from the text old_string matches, ` +
        `with other text: the cleaned text would add ${one ? "it" : "them"} there instead of changing ${one ? "that line" : "those lines"}; change ${one ? "it" : "them"} in a call of ${one ? "its" : "their"} own`,
    };
  }
  if (twice.length === 0) return { kind: "none" };
  const one = twice.length === 1;
  return {
    kind: "stray",
    why:
      `${one ? "its row" : "its rows"} ${twice.map((r) => formatId(r.line, r.hash)).join(", ")} ${one ? "repeats a line" : "repeat lines"} of the file outside the text old_string matches, ` +
      `so the cleaned text would write ${one ? "that line" : "those lines"} a second time; send old_string covering every line new_string replaces`,
  };
}

/** The widened call when the outside rows are runs right before and after the one match and the call is proven. */
function widen(input: BesideInput, rows: readonly PastedRow[], outside: readonly PastedRow[], content: (r: PastedRow) => string): Beside | undefined {
  const edit = input.trial.edits[0];
  const end = Math.max(edit.end, edit.start + 1);
  const lead = run(rows, outside, edit.start, -1);
  const trail = run([...rows].reverse(), outside, end - 1, 1);
  if (lead.length + trail.length !== outside.length) return undefined;
  // The rows must be the first and last lines the edit writes, with some left for the match: then each stands for its own line.
  const written = edit.lines;
  if (written.length <= lead.length + trail.length) return undefined;
  if (lead.some((r, i) => written[i] !== content(r))) return undefined;
  if (trail.some((r, i) => written[written.length - 1 - i] !== content(r))) return undefined;
  const from = edit.start - lead.length;
  const to = end + trail.length;
  for (const [oldString, newString] of candidates(input, from, edit.start, end, to)) {
    if (proven(input, oldString, newString)) {
      return { kind: "widened", oldString, newString, said: widenedSaid(lead, trail, edit.start, end), line: edit.start + 1 };
    }
  }
  return undefined;
}

/** Outside rows, from one end of `rows`, naming consecutive lines away from the match (0-based `edge`, `step` -1 before it, 1 after). */
function run(rows: readonly PastedRow[], outside: readonly PastedRow[], edge: number, step: number): PastedRow[] {
  const out: PastedRow[] = [];
  for (const r of rows) {
    if (!outside.includes(r) || r.line - 1 !== edge + step * (out.length + 1)) break;
    out.push(r);
  }
  return out;
}

/** The widened calls to try: the model's own old_string with the rows' lines joined on, then whole lines. */
function candidates(input: BesideInput, from: number, start: number, end: number, to: number): [string, string][] {
  const lines = input.doc.lines;
  const before = lines
    .slice(from, start)
    .map((l) => `${l}\n`)
    .join("");
  const after = lines.slice(end, to);
  const own = input.oldString.endsWith("\n") ? after.map((l) => `${l}\n`).join("") : after.map((l) => `\n${l}`).join("");
  return [
    [before + input.oldString + own, input.cleaned],
    [lines.slice(from, to).join("\n"), rowsOf(input.cleaned).join("\n")],
  ];
}

/** Whether the call, sent as offered, is accepted as it is and writes the rows, as whole lines, in one place. */
function proven(input: BesideInput, oldString: string, newString: string): boolean {
  if (checkPasted(newString, { path: input.path, fileLines: input.doc.lines }).kind !== "clean") return false;
  const r = applyStringEditWithBom(input.doc.lines, input.doc.bom, oldString, newString, { replaceAll: input.replaceAll, maxBytes: input.maxBytes });
  return r.kind === "ok" && r.strategy === "exact" && r.edits.length === 1 && writesRows(r.edits[0], rowsOf(input.cleaned));
}

function widenedSaid(lead: readonly PastedRow[], trail: readonly PastedRow[], start: number, end: number): string {
  const matched = end - start === 1 ? `line ${start + 1}` : `lines ${start + 1}-${end}`;
  const side = (rows: readonly PastedRow[], where: string) => {
    const ids = [...rows].sort((a, b) => a.line - b.line).map((r) => formatId(r.line, r.hash));
    return `${ids.length === 1 ? "row" : "rows"} ${ids.join(", ")} ${ids.length === 1 ? "names the line" : "name the lines"} just ${where} the text old_string matches (${matched})`;
  };
  const parts = [lead.length > 0 ? side(lead, "before") : "", trail.length > 0 ? side(trail, "after") : ""].filter(Boolean);
  const n = lead.length + trail.length;
  return (
    `new_string's ${parts.join(", and its ")}: sent with old_string as it is, the cleaned text would write ${n === 1 ? "that line" : "those lines"} a second time beside ${n === 1 ? "itself" : "themselves"}. ` +
    `So the cleaned call below widens old_string to cover ${n === 1 ? "it" : "them"}, and ${n === 1 ? "it is" : "they are"} replaced by new_string's ${n === 1 ? "line" : "lines"} instead.`
  );
}
