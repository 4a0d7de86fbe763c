/**
 * One `batch_edit` attempt against one snapshot of the file: verify every
 * operation, and only if all pass, splice them in one pass (original
 * terminators kept, see `spliceLineEdits`). All positions refer to the file
 * as verified, never to the file as changed by earlier operations.
 *
 * A refusal never suggests a call with an id that failed verification:
 * checks that suggest a call (empty content, a reversed range) run after the
 * ids are proven, and when every failure has a sure correction (a bare
 * number's current id, a mistyped id's real one, one shift that explains
 * every stale id) the refusal ends with the corrected batch, itself verified.
 */

import { checkHeld, type HeldCheck, type HeldIds, heldWithVersion } from "../../policy/held-ids.ts";
import { shownNow, viewedLineNow } from "../../policy/own-edits.ts";
import type { LineSpan, OwnEdits } from "../../policy/types.ts";
import type { TextDocument } from "../../text/document.ts";
import { formatId } from "../../text/ids.ts";
import { editsChangeNothing, spliceLineEdits } from "../../text/line-edits.ts";
import { BOM_CHAR } from "../../text/match-bom.ts";
import { bareNumberText, heldRefusalText, ownEditDoubtText, ownLooseDoubtText, STALE_CONTEXT, staleIdText, untrackedDoubtText } from "./messages.ts";
import { contentLines, type LineIdRef, type OpFailure, type Operation, parseOperations, type RawOperation } from "./parse.ts";
import { type BadId, type BatchRepair, ownEditFix, repairBatch } from "./repair.ts";
import { checkId, findConflicts, findDuplicatedLines, idsOf, type PlannedEdit, sortEdits, toEdit } from "./verify.ts";

/** What one attempt found: the spliced file, nothing to do, or why not. */
export type BatchPlan =
  | { readonly kind: "ok"; readonly edits: readonly PlannedEdit[]; readonly out: ReturnType<typeof spliceLineEdits> }
  | { readonly kind: "no-change" }
  | {
      readonly kind: "failed";
      readonly failures: readonly OpFailure[];
      /** The whole batch corrected and verified, as a `batch_edit` call ready to send, when every failure had a sure fix. */
      readonly corrected?: string;
      /** Lines the refusal shows with their current ids. */
      readonly shown: readonly LineSpan[];
    };

/** What {@link verifyBatch} found: the sorted edits to apply, nothing to do, or why not. */
export type VerifiedBatch = Exclude<BatchPlan, { kind: "ok" }> | { readonly kind: "ok"; readonly edits: readonly PlannedEdit[] };

/** Options of {@link planBatch}. */
export interface PlanOptions {
  /** The operations as sent (for the corrected call's content); without them no correction is offered. */
  readonly raw?: readonly RawOperation[];
  /** The file is not the version the session viewed (default true: a wrong id may be stale). */
  readonly changedSinceView?: boolean;
  /** Where the session's own edits since its view moved the lines it viewed. */
  readonly own?: OwnEdits;
  /** The same, from before another writer's change: a doubt about ids only, never a correction. */
  readonly ownLoose?: OwnEdits;
  /** The line ids the session holds: each operation's lines are compared with them (`policy/held-ids.ts`). */
  readonly held?: HeldIds;
  /** The version of the file `doc` is: held lines shown from it cannot have moved. */
  readonly version?: string;
}

/** Largest corrected call put in a refusal (bytes of JSON); beyond it the id changes are listed instead. */
const MAX_CORRECTED_CHARS = 24 * 1024;

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
  options: PlanOptions = {},
): BatchPlan {
  const verified = verifyBatch(doc, ops, parseFailures, path, maxLineChars, options);
  return verified.kind === "ok" ? { ...verified, out: spliceLineEdits(doc, verified.edits) } : verified;
}

/** {@link planBatch} without the splice: the verified edits, sorted (a windowed caller splices them itself). */
export function verifyBatch(
  doc: TextDocument,
  ops: readonly Operation[],
  parseFailures: readonly OpFailure[],
  path: string,
  maxLineChars: number,
  options: PlanOptions = {},
): VerifiedBatch {
  // A file the session edited since its view is not "exactly as viewed", whether its moves are followed or not.
  const changed = (options.changedSinceView ?? true) || options.own !== undefined || options.ownLoose !== undefined;
  const failures: OpFailure[] = [...parseFailures];
  const verified: PlannedEdit[] = [];
  const bad: BadId[] = [];
  const fixable = new Map<number, Operation>(); // ops whose only problem is a check below, with the fix
  const shown: LineSpan[] = [];
  // Operations with an id that could name either of two lines: no correction of theirs can be sure.
  const unsureOps = new Set<number>();
  for (const op of ops) {
    const before = bad.length;
    let unsure = false;
    const loose: OpFailure[] = [];
    for (const { field, id } of idsOf(op)) {
      const check = checkId(doc, id);
      if (check.kind !== "ok") bad.push({ opIndex: op.index, field, check, writes: writtenAt(op, field) });
      else if (options.own) {
        // It verifies, but the line the session viewed under this id may now be another with the same hash.
        const doubt = shownNow(options.own, id.line) ? undefined : ownEditFix(doc, options.own, id);
        if (doubt !== undefined) {
          failures.push({ index: op.index, label: op.label, code: "EDIT_STALE_LINE_ID", message: ownEditDoubtText(doc, id, doubt, field, maxLineChars) });
          shown.push(around(id.line), [doubt, doubt]);
          unsure = true;
        }
      } else {
        const then = movedByOwnEdit(options, id);
        if (then !== undefined)
          loose.push({ index: op.index, label: op.label, code: "EDIT_STALE_LINE_ID", message: ownLooseDoubtText(doc, id, then, field, path, maxLineChars) });
      }
      // Edits that moved more than the record follows: where any viewed line went is not known.
      const record = options.own ?? options.ownLoose;
      if (check.kind === "ok" && !unsure && loose.length === 0 && record?.kept.length === 0 && !shownNow(record, id.line)) {
        loose.push({ index: op.index, label: op.label, code: "EDIT_STALE_LINE_ID", message: untrackedDoubtText(doc, id, field, path, maxLineChars) });
      }
    }
    // Before the held ids are asked: they answer for ids shown after the session's own edit, and this one may be from before it.
    if (loose.length > 0) {
      failures.push(...loose);
      shown.push(...idsOf(op).map(({ id }) => around(id.line)));
      unsure = true;
    }
    if (unsure) unsureOps.add(op.index);
    if (bad.length > before || unsure) continue;
    const since = { changedSinceView: options.changedSinceView !== false, version: options.version };
    const unlike = options.held ? heldFailure(doc, op, options.held, maxLineChars, options.raw, since) : undefined;
    if (unlike) {
      failures.push(unlike.failure);
      shown.push(...unlike.shown);
      continue;
    }
    const problem = shapeProblem(op);
    if (problem) {
      failures.push({ index: op.index, label: op.label, code: "INVALID_ARGUMENT", message: problem.message });
      fixable.set(op.index, problem.fixed);
      continue;
    }
    verified.push(toEdit(op, doc.lines.length));
  }
  const repair = repairBatch(doc, bad, changed, options.own, options.held);
  for (const b of bad) {
    const stale = badIdFailure(doc, ops, b, repair, path, maxLineChars, changed, options.raw, movedByOwnEdit(options, b.check.id));
    failures.push(stale.failure);
    // An operation offered ready to send is held whole: sent, its inner lines are what the session was shown.
    if (stale.offered) shown.push(stale.offered);
    const fix = repair.ids.get(b)!;
    shown.push(around(b.check.id.line), ...fix.candidates.map((c): LineSpan => [c.line, c.line]));
    if (fix.fix) shown.push(around(fix.fix.line));
  }
  for (const op of ops) {
    if (op.kind === "replace" && op.lines.length === 0 && bad.some((b) => b.opIndex === op.index)) {
      failures.push({
        index: op.index,
        label: op.label,
        code: "INVALID_ARGUMENT",
        message: `content is empty. To remove the lines, use "operation": "delete" with the corrected ids; to leave one empty line in their place, use content "\\n".`,
      });
    }
  }
  const conflicts = findConflicts(verified);
  failures.push(...conflicts);
  const conflicted = new Set(conflicts.map((c) => c.index));
  const sorted = sortEdits(verified.filter((e) => !conflicted.has(e.op.index))).map((e) => keepOneBom(doc, e));
  failures.push(...findDuplicatedLines(doc, sorted));
  if (failures.length > 0) {
    const corrected = unsureOps.size > 0 ? undefined : correctedBatch(doc, ops, failures, bad, repair, fixable, path, maxLineChars, options.raw);
    // The corrected batch was verified against the file as it is: its lines count as shown, so sending it lands.
    if (corrected) shown.push(...corrected.ranges);
    return { kind: "failed", failures, corrected: corrected?.text, shown };
  }

  if (editsChangeNothing(doc.lines, sorted)) return { kind: "no-change" };
  return { kind: "ok", edits: sorted };
}

/** The content line a replace writes where `field` points: its first line for start, its last for end. */
function writtenAt(op: Operation, field: string): string | undefined {
  if (op.kind !== "replace" || op.lines.length === 0) return undefined;
  return field === "end" ? op.lines[op.lines.length - 1] : op.lines[0];
}

/** The lines an operation with verified ids names: a range, or an insert's anchor; undefined for an insert at either end. */
function namedLines(op: Operation): { first: number; last: number } | undefined {
  if (op.kind === "insert") return op.after.kind === "line" ? { first: op.after.id.line, last: op.after.id.line } : undefined;
  return { first: Math.min(op.start.line, op.end.line), last: Math.max(op.start.line, op.end.line) };
}

/** The refusal of an operation whose lines are not what the session holds there (see `checkHeld`), if so. */
function heldFailure(
  doc: TextDocument,
  op: Operation,
  held: HeldIds,
  maxLineChars: number,
  raw: readonly RawOperation[] | undefined,
  since: { readonly changedSinceView: boolean; readonly version?: string },
): { failure: OpFailure; shown: LineSpan[] } | undefined {
  const lines = namedLines(op);
  if (!lines) return undefined;
  const check = checkHeld(held, doc.hashes, doc.lines.length, lines.first, lines.last, { ...since, removes: op.kind !== "insert" });
  if (check.kind === "ok") return undefined;
  const shown: LineSpan[] = [[Math.max(1, lines.first - STALE_CONTEXT), lines.last + STALE_CONTEXT]];
  let ready: string | undefined;
  if (check.kind === "moved" && check.shift !== undefined) {
    const shift = check.shift;
    shown.push([Math.max(1, lines.first + shift - STALE_CONTEXT), lines.last + shift + STALE_CONTEXT]);
    const fields = new Map<string, LineIdRef>();
    for (const { field, id } of idsOf(op)) {
      const line = id.line + shift;
      if (doc.hashes[line - 1] !== id.hash) return failed();
      fields.set(field, lineRef(doc, line));
    }
    const moved = withIds(op, fields);
    if (moved) ready = opJson(moved.op, contentOf(raw, op));
  }
  return failed();
  function failed() {
    const what = { label: op.label, ...lines! };
    const message = heldRefusalText(doc, what, check as Exclude<HeldCheck, { kind: "ok" }>, maxLineChars, ready);
    return { failure: { index: op.index, label: op.label, code: "EDIT_STALE_LINE_ID" as const, message }, shown };
  }
}

/**
 * Where the session's own edit put the line it viewed as `id`'s line, when
 * another writer changed the file since (`OwnEdits.loose`) and `id` may be
 * from before that edit: the line moved, the session was not shown the
 * line now at that number since, and the hash it holds for the moved line
 * (its ids move with its own edits) is `id`'s, or not known.
 */
function movedByOwnEdit(options: PlanOptions, id: LineIdRef): number | undefined {
  const own = options.ownLoose;
  if (!own || shownNow(own, id.line)) return undefined;
  const then = viewedLineNow(own, id.line);
  if (then === undefined || then === id.line) return undefined;
  // What the session holds there tells only if it was shown from its own lineage (see OwnEdits.versions).
  const was = options.held ? heldWithVersion(options.held, then) : undefined;
  const known = was !== undefined && was.version !== undefined && own.versions?.includes(was.version) === true;
  return !known || was.hash === id.hash ? then : undefined;
}

/** The lines a stale-id refusal shows around `line`. */
function around(line: number): LineSpan {
  return [Math.max(1, line - STALE_CONTEXT), line + STALE_CONTEXT];
}

/** A verified operation that cannot be meant as sent (empty replace, reversed range): the fix is sure. */
function shapeProblem(op: Operation): { message: string; fixed: Operation } | undefined {
  if (op.kind === "insert") return undefined;
  if (op.end.line < op.start.line) {
    const swapped = { ...op, start: op.end, end: op.start } as Operation;
    return {
      message: `end "${op.end.text}" (line ${op.end.line}) comes before start "${op.start.text}" (line ${op.start.line}); a range runs from start down to end. Did you mean ${opJson(swapped, "…")}?`,
      fixed: swapped,
    };
  }
  if (op.kind === "replace" && op.lines.length === 0) {
    const asDelete: Operation = { kind: "delete", index: op.index, label: op.label, start: op.start, end: op.end };
    return {
      message: `content is empty. To remove the lines, use ${opJson(asDelete)}; to leave one empty line in their place, use content "\\n".`,
      fixed: asDelete,
    };
  }
  return undefined;
}

function badIdFailure(
  doc: TextDocument,
  ops: readonly Operation[],
  b: BadId,
  repair: BatchRepair,
  path: string,
  maxLineChars: number,
  changed: boolean,
  raw: readonly RawOperation[] | undefined,
  then: number | undefined,
): { failure: OpFailure; offered?: LineSpan } {
  const op = ops.find((o) => o.index === b.opIndex)!;
  const fix = repair.ids.get(b)!;
  if (b.check.kind === "bare") {
    const sent = raw?.[op.index]?.[b.field as keyof RawOperation] ?? b.check.id.line;
    const message = bareNumberText(doc, b.check, b.field, sent, changed, maxLineChars);
    return { failure: { index: op.index, label: op.label, code: "INVALID_ARGUMENT", message } };
  }
  let message = staleIdText(doc, b.check, b.field, path, maxLineChars, { changedSinceView: changed, repair: fix, shift: repair.shift });
  let offered: LineSpan | undefined;
  // One stale id and a likely new home: the operation as it would be there (its text is shown above to check).
  const top = fix.candidates[0];
  const soleBad = [...repair.ids.keys()].filter((x) => x.opIndex === op.index).length === 1;
  // The session's own edit moved the line it viewed under this id, and another writer changed the file since: the id
  // may be from before that edit or from its result, and the nearest line with the hash answers only the second.
  if (then !== undefined) {
    const [from, to] = [Math.max(1, then - STALE_CONTEXT - 3), Math.min(doc.lines.length, then + STALE_CONTEXT + 3)];
    message +=
      `\nIf it is an id from before your own edit of this file: that edit moved the line you viewed as line ${b.check.id.line} to line ${then}, ` +
      `and another writer has changed the file since; look there and use its id: view {"path": ${JSON.stringify(path)}, "start": ${from}, "end": ${Math.max(from, to)}}`;
  } else if (!fix.fix && top && soleBad && repair.shift === undefined && !fix.unsure) {
    const moved = plausible(
      op,
      withIds(op, new Map([[b.field, { line: top.line, hash: b.check.id.hash, text: `${top.line}:${b.check.id.text.split(":")[1]}` }]])),
    );
    if (moved) {
      message += `\nIf ${moved.text} (shown above) is the line you meant, send this operation: ${opJson(moved.op, contentOf(raw, op))}`;
      offered = namedSpan(moved.op);
    }
    // On a file as viewed, the number is evidence too: the line it names is the other choice.
    const { line } = b.check.id;
    const numbered = !changed && b.check.kind === "stale" ? withIds(op, new Map([[b.field, lineRef(doc, line)]])) : undefined;
    if (moved && numbered) message += `\nIf line ${line} as shown is the line you meant, send this operation: ${opJson(numbered.op, contentOf(raw, op))}`;
  }
  return { failure: { index: op.index, label: op.label, code: "EDIT_STALE_LINE_ID", message }, offered };
}

/**
 * `moved` (an operation with one id moved to a candidate line), unless it
 * cannot be what was meant: its range came out reversed (the other id did
 * not move with it, so it names another place).
 */
function plausible(op: Operation, moved: { op: Operation; text: string } | undefined) {
  if (!moved) return undefined;
  // withIds swaps a reversed range: the unmoved id then names the other end, somewhere else.
  if (op.kind !== "insert" && moved.op.kind !== "insert" && op.start !== op.end && (moved.op.start === op.end || moved.op.end === op.start)) return undefined;
  return moved;
}

function namedSpan(op: Operation): LineSpan | undefined {
  const lines = namedLines(op);
  return lines ? [lines.first, lines.last] : undefined;
}

function lineRef(doc: TextDocument, line: number): LineIdRef {
  return { line, hash: doc.hashes[line - 1], text: formatId(line, doc.hashes[line - 1]) };
}

/** `op` with the ids of `fields` replaced; a reversed result is swapped. */
function withIds(op: Operation, fields: ReadonlyMap<string, LineIdRef>): { op: Operation; text: string } | undefined {
  const pick = (field: string, id: LineIdRef) => fields.get(field) ?? id;
  let next: Operation;
  if (op.kind === "insert") {
    if (op.after.kind !== "line") return undefined;
    next = { ...op, after: { kind: "line", id: pick("after", op.after.id) } };
  } else {
    const same = op.end.text === op.start.text;
    const start = pick("start", op.start);
    const end = same ? start : pick("end", op.end);
    next = end.line < start.line ? { ...op, start: end, end: start } : { ...op, start, end };
  }
  const text = [...fields.values()].map((id) => id.text).join(", ");
  return { op: next, text };
}

/** The whole batch with every failure fixed, verified again; undefined unless every failure has a sure fix. */
function correctedBatch(
  doc: TextDocument,
  ops: readonly Operation[],
  failures: readonly OpFailure[],
  bad: readonly BadId[],
  repair: BatchRepair,
  fixable: ReadonlyMap<number, Operation>,
  path: string,
  maxLineChars: number,
  raw: readonly RawOperation[] | undefined,
): { text: string; ranges: LineSpan[] } | undefined {
  if (!raw || ops.length !== raw.length) return undefined; // an operation failed to parse
  const badOps = new Set(bad.map((b) => b.opIndex));
  for (const f of failures) if (!badOps.has(f.index) && !fixable.has(f.index)) return undefined;
  const out: Operation[] = [];
  const changes: string[] = [];
  for (const op of ops) {
    let next: Operation = fixable.get(op.index) ?? op;
    const mine = bad.filter((b) => b.opIndex === op.index);
    if (mine.length > 0) {
      const fields = new Map<string, LineIdRef>();
      for (const b of mine) {
        const fix = repair.ids.get(b)?.fix;
        if (!fix) return undefined;
        fields.set(b.field, fix);
        changes.push(`${b.check.id.text} -> ${fix.text}`);
      }
      next = withIds(op, fields)!.op;
      if (next.kind === "replace" && next.lines.length === 0) next = { kind: "delete", index: next.index, label: next.label, start: next.start, end: next.end };
    }
    out.push(next);
  }
  // The correction must itself pass every check, or it is no better than a guess.
  const rawFixed: RawOperation[] = out.map((op) => JSON.parse(opJson(op, contentOf(raw, op))) as RawOperation);
  const reparsed = parseOperations(rawFixed, path);
  if (reparsed.failures.length > 0) return undefined;
  const check = planBatch(doc, reparsed.ops, [], path, maxLineChars, { changedSinceView: false });
  if (check.kind !== "ok") return undefined;
  const why =
    repair.shift !== undefined
      ? `every stale id moved by the same ${repair.shift > 0 ? "+" : ""}${repair.shift} lines`
      : "each id replaced by the current id of the line it names";
  const call = `batch_edit ${JSON.stringify({ path, operations: rawFixed })}`;
  const idList = changes.length > 0 ? `: ${changes.join(", ")}` : "";
  const ranges = out.map(namedSpan).filter((span): span is LineSpan => span !== undefined);
  if (call.length > MAX_CORRECTED_CHARS) {
    return { text: `Corrected batch (${why}; verified against the current file): send the same batch with these ids changed${idList}.`, ranges };
  }
  return { text: `Corrected batch, ready to send (${why}${idList}; verified against the current file):\n${call}`, ranges };
}

/** The content to put in a corrected operation: as sent, unless checks before planning changed it (then as planned). */
function contentOf(raw: readonly RawOperation[] | undefined, op: Operation): string | undefined {
  const sent = raw?.[op.index];
  if (!sent || !("content" in sent)) return undefined;
  if (!("lines" in op) || op.lines.length === 0) return sent.content;
  const planned = op.lines.join("\n");
  return contentLines(sent.content).join("\n") === planned ? sent.content : planned;
}

/** An operation as the JSON a model sends; `content` is the text as sent ("…" stands for it in a hint). */
function opJson(op: Operation, content?: string): string {
  const c = content === "…" ? "…" : JSON.stringify(content ?? ("lines" in op ? op.lines.join("\n") : ""));
  switch (op.kind) {
    case "insert": {
      const after = op.after.kind === "start" ? "0" : op.after.kind === "end" ? "-1" : JSON.stringify(op.after.id.text);
      return `{"operation": "insert", "after": ${after}, "content": ${c}}`;
    }
    case "replace":
    case "delete": {
      const end = op.end.text === op.start.text ? "" : `, "end": ${JSON.stringify(op.end.text)}`;
      const range = `"start": ${JSON.stringify(op.start.text)}${end}`;
      return op.kind === "delete" ? `{"operation": "delete", ${range}}` : `{"operation": "replace", ${range}, "content": ${c}}`;
    }
  }
}

/** In a BOM file, content for line 1 that starts with U+FEFF repeats the BOM: it is dropped, never written twice. */
function keepOneBom(doc: TextDocument, edit: PlannedEdit): PlannedEdit {
  if (!doc.bom || edit.start !== 0 || !edit.lines[0]?.startsWith(BOM_CHAR)) return edit;
  return { ...edit, lines: [edit.lines[0].slice(1), ...edit.lines.slice(1)] };
}
