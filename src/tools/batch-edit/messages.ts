/**
 * What `batch_edit` says. A refusal lists every failed operation with what
 * is wrong and the fix; a stale id comes with the current lines around it
 * (fresh ids), where a line with the expected hash now is, and the `view`
 * range that confirms it, so one retry can succeed without a full re-read.
 */

import type { ErrorCode } from "../../errors.ts";
import type { TextDocument } from "../../text/document.ts";
import { formatHash } from "../../hash/fnv.ts";
import { formatId } from "../../text/ids.ts";
import { renderLines } from "../../text/render.ts";
import type { OpFailure } from "./parse.ts";
import { type IdCheck, RELOCATE_WINDOW, relocate } from "./verify.ts";

/** Lines shown either side of a stale target. */
const AROUND = 2;
/** A relocation this close is folded into the suggested view range. */
const NEAR = 40;

/**
 * The sentence and context for an id that does not verify (see the module
 * comment). `field` is "start", "end" or "after"; `path` is as shown.
 */
export function staleIdText(
  doc: TextDocument,
  check: Exclude<IdCheck, { kind: "ok" }>,
  field: string,
  path: string,
  maxLineChars: number,
): string {
  const { id } = check;
  const n = doc.lines.length;
  const out: string[] = [];
  let from: number;
  let to: number;
  if (check.kind === "past-end") {
    if (n === 0) {
      return `${field} "${id.text}" names line ${id.line}, but the file is empty (0 lines). To add lines, use {"operation": "insert", "after": 0, "content": "..."}.`;
    }
    out.push(
      `${field} "${id.text}" is past the end of the file: it has ${n} line${n === 1 ? "" : "s"} (the last is ${formatId(n, doc.hashes[n - 1])}).`,
    );
    from = Math.max(1, n - 2 * AROUND);
    to = n;
    out.push(`The last lines now:`);
  } else {
    out.push(
      `${field} "${id.text}" does not match the file: line ${id.line} now hashes ${formatHash(check.actual)}, so it is not the line you read (the file changed since).`,
    );
    from = Math.max(1, id.line - AROUND);
    to = Math.min(n, id.line + AROUND);
    out.push(`Lines ${from}-${to} now:`);
  }
  out.push(indent(renderLines(doc, from, to, { maxLineChars }).text));

  const moved = relocate(doc.hashes, id.hash, Math.min(id.line, n + 1));
  if (moved.length > 0) {
    const where = moved.map((line) => `${formatId(line, id.hash)} (${distance(line, id.line)})`);
    out.push(`A line with hash ${formatHash(id.hash)} is now at ${where.join(", ")} — your target may have moved there.`);
    const nearest = moved[0];
    if (Math.abs(nearest - id.line) <= NEAR) {
      from = Math.max(1, Math.min(from, nearest - AROUND));
      to = Math.min(n, Math.max(to, nearest + AROUND));
    }
  } else {
    out.push(`No line with hash ${formatHash(id.hash)} is within ${RELOCATE_WINDOW} lines of it: that line was changed or removed.`);
  }
  out.push(
    `Retry with the fresh ids shown, or confirm first: view {"path": ${JSON.stringify(path)}, "start": ${from}, "end": ${to}}`,
  );
  return out.join("\n");
}

function distance(line: number, target: number): string {
  const d = line - target;
  return `${Math.abs(d)} line${Math.abs(d) === 1 ? "" : "s"} ${d > 0 ? "below" : "above"}`;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}

/** Which code a refusal carries when operations fail for different reasons: the one to fix first. */
const PRIORITY: readonly ErrorCode[] = ["EDIT_STALE_LINE_ID", "INVALID_ARGUMENT", "EDIT_CONFLICT", "EDIT_DUPLICATED_LINE"];

/** The code of a refusal with these failures. */
export function refusalCode(failures: readonly OpFailure[]): ErrorCode {
  for (const code of PRIORITY) if (failures.some((f) => f.code === code)) return code;
  return failures[0]?.code ?? "INVALID_ARGUMENT";
}

/**
 * The aggregated refusal: "No operations were applied — k of n operations
 * failed:" then, per failed operation (in order), its index, label, code and
 * each reason.
 */
export function renderRefusal(failures: readonly OpFailure[], total: number): string {
  const byIndex = new Map<number, OpFailure[]>();
  for (const f of failures) {
    const list = byIndex.get(f.index);
    if (list) list.push(f);
    else byIndex.set(f.index, [f]);
  }
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  const out = [
    `No operations were applied — ${indices.length} of ${total} operation${total === 1 ? "" : "s"} failed:`,
  ];
  for (const index of indices) {
    const list = byIndex.get(index)!;
    const codes = [...new Set(list.map((f) => f.code))].join(", ");
    out.push("", `operations[${index}] (${list[0].label}) [${codes}]:`);
    for (const f of list) out.push(bullet(f.message));
  }
  out.push(
    "",
    indices.length < total
      ? "Nothing was written. Fix these and send the whole batch again (operations not listed here passed their checks)."
      : "Nothing was written. Fix these and send the batch again.",
  );
  return out.join("\n");
}

function bullet(message: string): string {
  const [first, ...rest] = message.split("\n");
  return [`- ${first}`, ...rest.map((l) => `  ${l}`)].join("\n");
}
