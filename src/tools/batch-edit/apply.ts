/**
 * One `batch_edit` attempt against one snapshot of the file: verify every
 * operation, and only if all pass, splice them in one pass (original
 * terminators kept, see `spliceLineEdits`). All positions refer to the file
 * as verified, never to the file as changed by earlier operations.
 */

import type { TextDocument } from "../../text/document.ts";
import { editsChangeNothing, spliceLineEdits } from "../../text/line-edits.ts";
import { BOM_CHAR } from "../../text/match-bom.ts";
import { staleIdText } from "./messages.ts";
import type { OpFailure, Operation } from "./parse.ts";
import { checkId, findConflicts, findDuplicatedLines, idsOf, type PlannedEdit, sortEdits, toEdit } from "./verify.ts";

/** What one attempt found: the spliced file, nothing to do, or why not. */
export type BatchPlan =
  | { readonly kind: "ok"; readonly edits: readonly PlannedEdit[]; readonly out: ReturnType<typeof spliceLineEdits> }
  | { readonly kind: "no-change" }
  | { readonly kind: "failed"; readonly failures: readonly OpFailure[] };

/**
 * Verify `ops` (already parsed; `parseFailures` are the others) against
 * `doc` and, if every operation passes, apply them. `path` is as shown.
 */
export function planBatch(
  doc: TextDocument,
  ops: readonly Operation[],
  parseFailures: readonly OpFailure[],
  path: string,
  maxLineChars: number,
): BatchPlan {
  const failures: OpFailure[] = [...parseFailures];
  const verified: PlannedEdit[] = [];
  for (const op of ops) {
    let good = true;
    for (const { field, id } of idsOf(op)) {
      const check = checkId(doc, id);
      if (check.kind === "ok") continue;
      good = false;
      failures.push({
        index: op.index,
        label: op.label,
        code: "EDIT_STALE_LINE_ID",
        message: staleIdText(doc, check, field, path, maxLineChars),
      });
    }
    if (good) verified.push(toEdit(op, doc.lines.length));
  }
  const conflicts = findConflicts(verified);
  failures.push(...conflicts);
  const conflicted = new Set(conflicts.map((c) => c.index));
  const sorted = sortEdits(verified.filter((e) => !conflicted.has(e.op.index))).map((e) => keepOneBom(doc, e));
  failures.push(...findDuplicatedLines(doc, sorted));
  if (failures.length > 0) return { kind: "failed", failures };

  if (editsChangeNothing(doc.lines, sorted)) return { kind: "no-change" };
  return { kind: "ok", edits: sorted, out: spliceLineEdits(doc, sorted) };
}

/** In a BOM file, content for line 1 that starts with U+FEFF repeats the BOM: it is dropped, never written twice. */
function keepOneBom(doc: TextDocument, edit: PlannedEdit): PlannedEdit {
  if (!doc.bom || edit.start !== 0 || !edit.lines[0]?.startsWith(BOM_CHAR)) return edit;
  return { ...edit, lines: [edit.lines[0].slice(1), ...edit.lines.slice(1)] };
}
