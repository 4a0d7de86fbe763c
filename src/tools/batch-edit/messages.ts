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
import { renderLine, renderLines } from "../../text/render.ts";
import type { HeldCheck } from "../../policy/held-ids.ts";
import type { OwnEdits } from "../../policy/types.ts";
import type { LineIdRef, OpFailure } from "./parse.ts";
import { type IdRepair, repairBatch } from "./repair.ts";
import { type IdCheck, RELOCATE_WINDOW } from "./verify.ts";

/** Lines shown either side of a stale target. */
export const STALE_CONTEXT = 2;
const AROUND = STALE_CONTEXT;
/** A relocation this close is folded into the suggested view range. */
const NEAR = 40;
/** Longest line content quoted for a candidate. */
const SHOWN_CHARS = 200;

/** What the caller knows about a bad id beyond the check itself (see `repairBatch`). */
export interface StaleContext {
  /** The file is not at the version the session viewed. Default true. */
  readonly changedSinceView?: boolean;
  /** Candidates and the fix, from `repairBatch`; computed for this id alone when absent. */
  readonly repair?: IdRepair;
  /** The batch-wide shift, when one explains every stale id. */
  readonly shift?: number;
  /** Where the session's own edits moved the lines it viewed. */
  readonly own?: OwnEdits;
}

/**
 * The sentence and context for an id that does not verify (see the module
 * comment). `field` is "start", "end" or "after"; `path` is as shown.
 */
export function staleIdText(
  doc: TextDocument,
  check: Exclude<IdCheck, { kind: "ok" | "bare" }>,
  field: string,
  path: string,
  maxLineChars: number,
  context: StaleContext = {},
): string {
  const { id } = check;
  const n = doc.lines.length;
  const changed = context.changedSinceView ?? true;
  const repair =
    context.repair ??
    repairBatch(doc, [{ opIndex: 0, field, check }], changed, context.own)
      .ids.values()
      .next().value!;
  const out: string[] = [];
  let from: number;
  let to: number;
  if (check.kind === "past-end") {
    if (n === 0) {
      return `${field} "${id.text}" names line ${id.line}, but the file is empty (0 lines). To add lines, use {"operation": "insert", "after": 0, "content": "..."}.`;
    }
    out.push(
      `${field} "${id.text}" is past the end of the file: it has ${n} line${n === 1 ? "" : "s"} (the last is ${formatId(n, doc.hashes[n - 1])})` +
        `${changed ? "." : ", and it is exactly as you viewed it, so the line number is wrong."}`,
    );
    from = Math.max(1, n - 2 * AROUND);
    to = n;
    out.push(`The last lines now:`);
  } else if (repair.reason === "own-edit" && repair.fix) {
    const now = repair.fix.line;
    out.push(
      `${field} "${id.text}" is an id from before your own edit of this file: that edit moved the line you viewed as line ${id.line} ` +
        `to line ${now}, where it is ${repair.fix.text} (same hash; an old id N:hh of a moved line is now (N+shift):hh, as the edit's result said).`,
    );
    from = Math.max(1, now - AROUND);
    to = Math.min(n, now + AROUND);
    out.push(`Lines ${from}-${to} now:`);
  } else if (!changed) {
    const real = formatId(id.line, check.actual);
    out.push(
      `${field} "${id.text}" does not match line ${id.line}: the file is exactly as you viewed it, and line ${id.line} is ${real} ` +
        `(hash ${formatHash(check.actual)}, not ${formatHash(id.hash)}), so the id was mistyped or copied from another line.`,
    );
    from = Math.max(1, id.line - AROUND);
    to = Math.min(n, id.line + AROUND);
    out.push(`Lines ${from}-${to}:`);
  } else {
    out.push(
      `${field} "${id.text}" does not match the file: line ${id.line} now hashes ${formatHash(check.actual)}, so it is not the line you read (the file changed since your view).`,
    );
    from = Math.max(1, id.line - AROUND);
    to = Math.min(n, id.line + AROUND);
    out.push(`Lines ${from}-${to} now:`);
  }
  out.push(indent(renderLines(doc, from, to, { maxLineChars }).text));

  const moved = repair.candidates;
  if (moved.length > 0) {
    const lead = changed
      ? `Lines with hash ${formatHash(id.hash)} near it now (the line you read may have moved to one of them; check its text):`
      : `Lines with hash ${formatHash(id.hash)} near it (if you copied the id from one of these, use its id):`;
    out.push(lead);
    // The held lines around it pick the first candidate only when it alone fits them best.
    const [top, next] = [moved[0].held ?? 0, moved[1]?.held ?? 0];
    const heldPick = changed && !repair.unsure && top > 0 && (moved[1] === undefined || next < top);
    for (const c of moved) {
      const fit =
        c.fits === undefined || !changed
          ? ""
          : c.fits
            ? `; fits the shift of ${signed(c.shift)} that explains every stale id in this batch`
            : "; does not fit the shift of the other stale ids: probably an unrelated line with the same 2-hex hash";
      out.push(`  ${renderLine(c.line, id.hash, doc.lines[c.line - 1], Math.min(maxLineChars, SHOWN_CHARS))}   (${distance(c.line, id.line)}${fit})`);
    }
    if (heldPick && moved.length > 1) {
      out.push(
        `The lines you were shown around it are now around ${formatId(moved[0].line, id.hash)}, not around the others: it is most likely the line you read.`,
      );
    } else if (changed && repair.unsure && !repair.fix) {
      out.push(`What you were shown around it does not tell which of these is the line you read: send the operation with the id of the one you mean.`);
    }
    const nearest = moved[0].line;
    if (Math.abs(nearest - id.line) <= NEAR) {
      from = Math.max(1, Math.min(from, nearest - AROUND));
      to = Math.min(n, Math.max(to, nearest + AROUND));
    }
  } else if (changed || check.kind === "past-end") {
    out.push(`No line with hash ${formatHash(id.hash)} is within ${RELOCATE_WINDOW} lines of it: that line was changed or removed.`);
  }
  if (repair.reason === "mistyped" && repair.fix) {
    out.push(`If you meant line ${id.line} as shown, use "${repair.fix.text}".`);
  } else if (repair.reason === "own-edit" && repair.fix) {
    out.push(`Use "${repair.fix.text}".`);
  } else {
    out.push(`Retry with the fresh ids shown, or confirm first: view {"path": ${JSON.stringify(path)}, "start": ${from}, "end": ${to}}`);
  }
  return out.join("\n");
}

/**
 * The refusal of an id that verifies but may be from before the session's
 * own edit: the line the session viewed under it is now at `now`, with the
 * same hash. Both lines are shown (so both ids count as current to the
 * session afterwards: sending either again is taken as meant).
 */
export function ownEditDoubtText(doc: TextDocument, id: LineIdRef, now: number, field: string, maxLineChars: number): string {
  const width = Math.min(maxLineChars, SHOWN_CHARS);
  const moved = formatId(now, doc.hashes[now - 1]);
  return [
    `${field} "${id.text}" is ambiguous: you edited this file since you viewed it, and that edit moved the line you viewed as line ${id.line} ` +
      `to line ${now}; the line now at ${id.line} has the same hash, so the id fits both:`,
    `  ${renderLine(now, doc.hashes[now - 1], doc.lines[now - 1], width)}   (the line you viewed as line ${id.line})`,
    `  ${renderLine(id.line, doc.hashes[id.line - 1], doc.lines[id.line - 1], width)}   (the line at ${id.line} now)`,
    `Name the line you mean: "${moved}" for the first, "${id.text}" for the second (both are current ids now).`,
  ].join("\n");
}

/** Lines either side of where the session's own edit put a line, in the view a loose doubt offers. */
const LOOSE_VIEW = 5;

/**
 * The refusal of an id that verifies where the session's own edit moved the
 * line it viewed under that number to `then`, and another writer has changed
 * the file since: the id may name the line at its number now, or the one the
 * session viewed, whose place is no longer known (`OwnEdits.loose`). Nothing
 * is offered ready to send: the line at the id's number is shown (so its id
 * is current to a resend), and a view where the other one went.
 */
export function ownLooseDoubtText(doc: TextDocument, id: LineIdRef, then: number, field: string, path: string, maxLineChars: number): string {
  const n = doc.lines.length;
  const [from, to] = [Math.max(1, then - LOOSE_VIEW), Math.max(1, Math.min(n, then + LOOSE_VIEW))];
  const [a, b] = [Math.max(1, id.line - AROUND), Math.min(n, id.line + AROUND)];
  return [
    `${field} "${id.text}" may not name the line you mean: you edited this file since you viewed it, and that edit moved the line you viewed as ` +
      `line ${id.line} to line ${then}; another writer has changed the file since, so where that line is now is not known without a look. ` +
      `Lines ${a}-${b} now:`,
    indent(renderLines(doc, a, b, { maxLineChars: Math.min(maxLineChars, SHOWN_CHARS) }).text),
    `If that is the line you mean, send the operation again with "${id.text}" (shown here, it is a current id now). ` +
      `Otherwise view where your edit put the other one and use its id from there: view {"path": ${JSON.stringify(path)}, "start": ${from}, "end": ${to}} ` +
      `(the other writer may have moved it: if it is not there, view {"path": ${JSON.stringify(path)}, "content": "<text of the line>"} finds it).`,
  ].join("\n");
}

/**
 * The refusal of an id that verifies, after the session's own edits moved
 * more lines than its record follows (`UNTRACKED`): the line it viewed under
 * that number may be anywhere now, so only the line at the number, shown
 * here, becomes current to a resend.
 */
export function untrackedDoubtText(doc: TextDocument, id: LineIdRef, field: string, path: string, maxLineChars: number): string {
  const n = doc.lines.length;
  const [a, b] = [Math.max(1, id.line - AROUND), Math.min(n, id.line + AROUND)];
  return [
    `${field} "${id.text}" may not name the line you mean: your own edits of this file since you viewed it moved more lines than are followed, ` +
      `and line ${id.line} was not shown to you since, so an id from your view may now name another line with the same hash. Lines ${a}-${b} now:`,
    indent(renderLines(doc, a, b, { maxLineChars: Math.min(maxLineChars, SHOWN_CHARS) }).text),
    `If that is the line you mean, send the operation again with "${id.text}" (shown here, it is a current id now). ` +
      `Otherwise view the part you mean (view {"path": ${JSON.stringify(path)}, "content": "<text of the line>"} finds it) and use the ids shown.`,
  ].join("\n");
}

/**
 * The refusal of an operation whose ids verify but whose lines are not what
 * the session was shown: `changed` inside its range (another writer's edit
 * the model never saw would be overwritten), or `moved` (the lines around
 * its target fit the file better `shift` lines away: an insert or delete
 * above put an equal line at the id's number). The excerpts shown count as
 * seen, so resending with their ids is taken as meant.
 */
export function heldRefusalText(
  doc: TextDocument,
  what: { readonly label: string; readonly first: number; readonly last: number },
  check: Exclude<HeldCheck, { kind: "ok" }>,
  maxLineChars: number,
  moved?: string,
): string {
  const n = doc.lines.length;
  // Lines a..b with their context, headed by the numbers shown.
  const excerpt = (a: number, b: number) => {
    const [from, to] = [Math.max(1, a - AROUND), Math.min(n, b + AROUND)];
    return `Lines ${from}-${to} now:\n${indent(renderLines(doc, from, to, { maxLineChars }).text)}`;
  };
  const span = what.first === what.last ? `line ${what.first}` : `lines ${what.first}-${what.last}`;
  if (check.kind === "changed") {
    const list = check.lines.length > 8 ? `${check.lines.slice(0, 8).join(", ")} and ${check.lines.length - 8} more` : check.lines.join(", ");
    return [
      `${what.label}: its ids still verify, but inside ${span} line${check.lines.length === 1 ? "" : "s"} ${list} ` +
        `${check.lines.length === 1 ? "is" : "are"} not what you were shown there: another writer changed ${check.lines.length === 1 ? "it" : "them"} since, ` +
        `and this operation would overwrite that change unseen. Nothing was written.`,
      excerpt(what.first, what.last),
      `If the operation is still what you mean over these lines as they are now, send it again (these ids are now the ones you hold).`,
    ].join("\n");
  }
  if (check.kind === "removed") return removedText(check.count);
  const shift = check.shift;
  // "Others that read the same" only where there are some: else it is the lines around it that changed.
  const alone = shift === undefined && doc.lines.filter((line) => line === doc.lines[what.first - 1]).length === 1;
  const out = [
    shift === undefined
      ? alone
        ? `${what.label}: the id at ${span} still verifies, but another writer changed the lines around it since you were shown them, ` +
          `so the place this operation acts on is not the one you saw. Nothing was written.`
        : `${what.label}: the id at ${span} still verifies, but another writer changed the file since you were shown it, and what you were shown ` +
          `around it does not tell this line from others that read the same (repetitive code), so it may not be the line you mean. Nothing was written.`
      : `${what.label}: the id at ${span} still verifies, but the lines you were shown around it are now ${Math.abs(shift)} line${Math.abs(shift) === 1 ? "" : "s"} ` +
        `${shift > 0 ? "down" : "up"}: another writer added or removed lines above it since, and an equal line now sits at its number, so it may not be the line you mean. Nothing was written.`,
    excerpt(what.first, what.last),
  ];
  if (shift !== undefined) {
    out.push(`Where the lines you were shown are now:`, excerpt(what.first + shift, what.last + shift));
    if (moved) out.push(`If that is the line you meant, send this operation: ${moved}`);
  }
  out.push(`Otherwise send the operation with the ids shown above (they are now the ones you hold).`);
  return out.join("\n");

  function removedText(count: number): string {
    const lines = count === 1 ? "a line" : `${count} lines`;
    const ends = what.first === what.last ? span : `the end of ${span}`;
    return [
      `${what.label}: the id at ${span} still verifies, but the lines you were shown just below it are now ${count} line${count === 1 ? "" : "s"} up: ` +
        `another writer removed ${lines} there since that read the same as ${ends}, so ${count === 1 ? "the line you meant may be the one" : "the lines you meant may be the ones"} ` +
        `already removed, and this operation would do its work again on the copy that is left. Nothing was written.`,
      excerpt(what.first, what.last),
      `If the operation is still what you mean over these lines as they are now, send it again (these ids are now the ones you hold).`,
    ].join("\n");
  }
}

/** The refusal of a bare line number, naming that line's current id. */
export function bareNumberText(
  doc: TextDocument,
  check: Extract<IdCheck, { kind: "bare" }>,
  field: string,
  raw: unknown,
  changedSinceView: boolean,
  maxLineChars: number,
): string {
  const n = doc.lines.length;
  const line = check.id.line;
  const head =
    `${field}: ${JSON.stringify(raw)} is a bare line number. Line numbers go stale as soon as a line above changes, ` +
    `so batch_edit needs a line id "N:hh" whose hash proves the line is still the one you read.`;
  if (line > n) {
    return n === 0
      ? `${head} The file is empty (0 lines); to add lines use {"operation": "insert", "after": 0, "content": "..."}.`
      : `${head} The file has only ${n} line${n === 1 ? "" : "s"} (the last is ${formatId(n, doc.hashes[n - 1])}); to add lines at the end use "after": -1.`;
  }
  const id = formatId(line, doc.hashes[line - 1]);
  const caveat = changedSinceView ? ` The file changed since your view, so check that this is the line you meant.` : "";
  return `${head} Line ${line} is now:\n  ${renderLine(line, doc.hashes[line - 1], doc.lines[line - 1], Math.min(maxLineChars, SHOWN_CHARS))}\nUse "${id}".${caveat}`;
}

function signed(shift: number): string {
  return `${shift > 0 ? "+" : ""}${shift} line${Math.abs(shift) === 1 ? "" : "s"}`;
}

function distance(line: number, target: number): string {
  const d = line - target;
  return `${Math.abs(d)} line${Math.abs(d) === 1 ? "" : "s"} ${d > 0 ? "below" : "above"}`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
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
export function renderRefusal(failures: readonly OpFailure[], total: number, corrected?: string): string {
  const byIndex = new Map<number, OpFailure[]>();
  for (const f of failures) {
    const list = byIndex.get(f.index);
    if (list) list.push(f);
    else byIndex.set(f.index, [f]);
  }
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  const out = [`No operations were applied — ${indices.length} of ${total} operation${total === 1 ? "" : "s"} failed:`];
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
  if (corrected) out.push(corrected);
  return out.join("\n");
}

function bullet(message: string): string {
  const [first, ...rest] = message.split("\n");
  return [`- ${first}`, ...rest.map((l) => `  ${l}`)].join("\n");
}
