/**
 * The byte-order mark in edit strings. A file's BOM is metadata, not part of
 * line 1 (see `document.ts`), but a model that copied the file's first bytes
 * may send U+FEFF at the start of old_string or new_string. Rules:
 *
 * - In a BOM file, old_string starting with U+FEFF is matched against the
 *   BOM: it can only match at the very start of the file.
 * - In a BOM file, U+FEFF at the start of new_string is the BOM again (or a
 *   paste of it) and is dropped, and line 1 never starts with U+FEFF: the
 *   file keeps exactly one BOM, and no invisible one lands mid-file.
 * - In a file without a BOM, U+FEFF is an ordinary character (it is never
 *   whitespace to the ladder, see `match-fuzzy.ts`).
 */

import { editsChangeNothing, type LineEdit } from "./line-edits.ts";
import { applyStringEdit, type MatchOptions, type StringEditResult } from "./match.ts";

export const BOM_CHAR = "\uFEFF";

/** {@link applyStringEdit} for a document whose BOM (`bom`) is kept aside from `lines`. */
export function applyStringEditWithBom(
  lines: readonly string[],
  bom: boolean,
  oldString: string,
  newString: string,
  options: MatchOptions = {},
): StringEditResult {
  if (!bom || !(oldString.startsWith(BOM_CHAR) || newString.startsWith(BOM_CHAR))) {
    return applyStringEdit(lines, oldString, newString, options);
  }
  // Match against the file as it starts on disk: the BOM before line 1.
  const anchored = oldString.startsWith(BOM_CHAR) && lines.length > 0;
  const seen = anchored ? [BOM_CHAR + lines[0], ...lines.slice(1)] : lines;
  const replacement = newString.startsWith(BOM_CHAR) ? newString.slice(1) : newString;
  if (replacement === oldString.slice(anchored ? 1 : 0) && anchored) return { kind: "no-change", reason: "same-strings" };
  const r = applyStringEdit(seen, oldString, replacement, options);
  if (r.kind !== "ok") return r;
  const edits = r.edits.map(dropLeadingBom);
  if (editsChangeNothing(lines, edits)) return { kind: "no-change", reason: "same-result" };
  const out = r.lines.slice();
  if (out.length > 0 && out[0].startsWith(BOM_CHAR)) out[0] = out[0].slice(1);
  return { ...r, edits, lines: out };
}

/** An edit of line 1 in a BOM file: line 1 never starts with another U+FEFF. */
function dropLeadingBom(edit: LineEdit): LineEdit {
  if (edit.start !== 0 || edit.lines.length === 0 || !edit.lines[0].startsWith(BOM_CHAR)) return edit;
  return { ...edit, lines: [edit.lines[0].slice(1), ...edit.lines.slice(1)] };
}
