/**
 * The catalogue's tasks: realistic model mistakes on real sources, each with
 * the intended end state and, where the model would read the failure text
 * for more than a ready call, how it reads it. Targets are picked from the
 * agent's own view (unique, plain lines), so the tasks follow the sources.
 */
import { join } from "node:path";
import { formatHash } from "../../../src/hash/fnv.ts";
import { suggestedCalls } from "../suggested-calls.ts";
import { defaultFollowUp, type FollowUp, type Row, type Step, type Task, type TaskEnv } from "./catalogue.ts";

// --- reading the file ---------------------------------------------------------

function eolOf(t: TaskEnv): string {
  return t.original.includes("\r\n") ? "\r\n" : "\n";
}

/** The file's lines as the view numbers them (a BOM is not part of line 1). */
function linesOf(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  const lines = body.split(eol);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** `text` with line n (1-based) replaced by `lines` (none: deleted), keeping BOM and line endings. */
function spliceText(text: string, n: number, count: number, lines: readonly string[]): string {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? text.slice(1) : text;
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  const all = body.split(eol);
  all.splice(n - 1, count, ...lines);
  return bom + all.join(eol);
}

const replaceLine = (text: string, n: number, line: string) => spliceText(text, n, 1, [line]);
const deleteLines = (text: string, n: number, count = 1) => spliceText(text, n, count, []);
const insertAfter = (text: string, n: number, lines: readonly string[]) => spliceText(text, n + 1, 0, lines);

function isPlain(row: Row, rows: readonly Row[]): boolean {
  const s = row.text.trim();
  return (
    s.length >= 12 &&
    s.length <= 100 &&
    !row.text.includes("\\") &&
    !row.text.includes("`") &&
    !/^[)\]}]/.test(s) &&
    rows.filter((r) => r.text === row.text).length === 1 &&
    rows.filter((r) => r.text.includes(s)).length === 1
  );
}

/** A plain, unique row about `at` (0..1) of the way through the file that also satisfies `extra`. */
function pick(t: TaskEnv, at: number, extra: (row: Row, i: number) => boolean = () => true): Row {
  const rows = t.rows;
  const ok = rows.map((r, i) => isPlain(r, rows) && extra(r, i));
  const start = Math.floor(rows.length * at);
  for (let d = 0; d < rows.length; d++) {
    for (const i of [start + d, start - d]) if (i >= 0 && i < rows.length && ok[i]) return rows[i];
  }
  throw new Error(`no row to pick in ${t.path}`);
}

const edited = (text: string) => `${text} // checked`;
const wrongHash = (id: string) => {
  const [n, h] = id.split(":");
  return `${n}:${formatHash((Number.parseInt(h, 16) ^ 0x21) & 0xff)}`;
};
const batch = (t: TaskEnv, operations: unknown[]): Step => ({ tool: "batch_edit", args: { path: t.path, operations } });
const editCall = (path: string, old_string: string, new_string: string): Step => ({ tool: "edit", args: { path, old_string, new_string } });
const rowAt = (t: TaskEnv, line: number) => t.rows.find((r) => r.line === line)!;

/** Another writer (a formatter) adds a header of 3 lines on disk after the agent's view. */
async function viewThenShift(t: TaskEnv): Promise<void> {
  t.rows = await t.agent.view(t.path);
  const text = t.disk()!;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  t.otherWriter(`// @ts-nocheck${eol}// formatted${eol}${eol}${text}`);
}

// --- reading failure texts as a model would --------------------------------------

/** Every "has X (U+…) where/for … has Y" pair the text names: the characters to swap. */
function namedSwaps(all: string): Array<[string, string]> {
  const text = /^1\. .*$/m.exec(all)?.[0] ?? ""; // the closest place only
  const swaps: Array<[string, string]> = [];
  const q = /has ("(?:[^"\\]|\\.)*") \(U\+[0-9A-F]+[^)]*\)(?: where the file \([^)]*\) has| for) ("(?:[^"\\]|\\.)*") \(U\+/g;
  for (let m = q.exec(text); m; m = q.exec(text)) swaps.push([JSON.parse(m[1]), JSON.parse(m[2])]);
  return swaps;
}

function swapAll(s: string, swaps: ReadonlyArray<[string, string]>): string {
  let out = s;
  for (const [from, to] of swaps) out = out.split(from).join(to);
  return out;
}

/** The retry of `step` after the view a refusal asked for. */
const retrySame =
  (step: (t: TaskEnv) => Step): FollowUp["afterView"] =>
  (t) =>
    step(t);

// --- the tasks ------------------------------------------------------------------

function mistypedHash(source: string, at: number): Task {
  const target = (t: TaskEnv) => pick(t, at);
  return {
    name: `mistyped hash, batch replace (${source})`,
    mistake: "mistyped id hash",
    source,
    call: (t) => batch(t, [{ operation: "replace", start: wrongHash(target(t).id), content: edited(target(t).text) }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, target(t).line, edited(target(t).text)) }),
  };
}

function staleShiftBatch(source: string): Task {
  const a = (t: TaskEnv) => pick(t, 0.3);
  const b = (t: TaskEnv) => pick(t, 0.7);
  return {
    name: `stale ids after a formatter added 3 lines, 2-operation batch (${source})`,
    mistake: "stale ids (file shifted)",
    source,
    setup: viewThenShift,
    call: (t) =>
      batch(t, [
        { operation: "replace", start: a(t).id, content: edited(a(t).text) },
        { operation: "delete", start: b(t).id },
      ]),
    intended: (t) => ({ [t.path]: replaceLine(deleteLines(t.original, b(t).line + 3), a(t).line + 3, edited(a(t).text)) }),
  };
}

function staleShiftSingle(source: string): Task {
  const a = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `one stale id after a formatter added 3 lines (${source})`,
    mistake: "stale ids (file shifted)",
    source,
    setup: viewThenShift,
    call: (t) => batch(t, [{ operation: "replace", start: a(t).id, content: edited(a(t).text) }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, a(t).line + 3, edited(a(t).text)) }),
    // The model checks the candidate's text is its line before sending the offered operation.
    followUp: (text, t) => (text.includes(`|${a(t).text}   (3 lines below`) ? defaultFollowUp(text, t) : undefined),
  };
}

function bareStart(source: string, at: number): Task {
  const r = (t: TaskEnv) => pick(t, at);
  return {
    name: `bare line number as start (${source})`,
    mistake: "bare line number",
    source,
    call: (t) => batch(t, [{ operation: "replace", start: r(t).line, content: edited(r(t).text) }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function bareAfter(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.4);
  return {
    name: `bare line number as insert anchor (${source})`,
    mistake: "bare line number",
    source,
    call: (t) => batch(t, [{ operation: "insert", after: String(r(t).line), content: "// TODO: review" }]),
    intended: (t) => ({ [t.path]: insertAfter(t.original, r(t).line, ["// TODO: review"]) }),
  };
}

function emptyReplaceWrongId(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.6);
  return {
    name: `empty replace (meaning delete) with a mistyped id (${source})`,
    mistake: "empty replace + mistyped id",
    source,
    call: (t) => batch(t, [{ operation: "replace", start: wrongHash(r(t).id), content: "" }]),
    intended: (t) => ({ [t.path]: deleteLines(t.original, r(t).line) }),
  };
}

function reversedRange(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5, (_row, i) => i + 1 < t.rows.length && isPlain(t.rows[i + 1], t.rows));
  return {
    name: `reversed delete range (${source})`,
    mistake: "reversed range",
    source,
    call: (t) => batch(t, [{ operation: "delete", start: rowAt(t, r(t).line + 1).id, end: r(t).id }]),
    intended: (t) => ({ [t.path]: deleteLines(t.original, r(t).line, 2) }),
  };
}

/** A segment of a line holding ", " whose whitespace-free form occurs once in the file. */
function driftSegment(t: TaskEnv, at: number): { row: Row; segment: string } {
  const flat = t.rows
    .map((r) => r.text)
    .join("\n")
    .replace(/\s+/g, "");
  const find = (row: Row): string | undefined => {
    const i = row.text.indexOf(", ");
    if (i < 4) return undefined;
    const seg = row.text.slice(Math.max(row.text.length - row.text.trimStart().length, i - 12), Math.min(row.text.length, i + 14));
    const key = seg.replace(/\s+/g, "");
    return flat.split(key).length === 2 && seg.trim() === seg ? seg : undefined;
  };
  const row = pick(t, at, (r) => find(r) !== undefined);
  return { row, segment: find(row)! };
}

function whitespaceDrift(source: string, at: number): Task {
  return {
    name: `old_string from mid-line with a space dropped after a comma (${source})`,
    mistake: "whitespace drift",
    source,
    call: (t) => {
      const { segment } = driftSegment(t, at);
      return editCall(t.path, segment.replace(", ", ","), `${segment}/* checked */`);
    },
    intended: (t) => {
      const { row, segment } = driftSegment(t, at);
      return { [t.path]: replaceLine(t.original, row.line, row.text.replace(segment, `${segment}/* checked */`)) };
    },
  };
}

function curly(s: string): string {
  let dq = 0;
  let sq = 0;
  return s.replace(/["']/g, (q) => (q === '"' ? (dq++ % 2 === 0 ? "\u201c" : "\u201d") : sq++ % 2 === 0 ? "\u2018" : "\u2019"));
}

function smartQuotes(source: string, at: number): Task {
  const r = (t: TaskEnv) => pick(t, at, (row) => /(["'])[^"']*\1/.test(row.text));
  return {
    name: `smart quotes in old_string and new_string (${source})`,
    mistake: "smart quotes",
    source,
    call: (t) => editCall(t.path, curly(r(t).text.trim()), curly(edited(r(t).text.trim()))),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    // The ready call if the text gives one; else the model swaps back every character the text names.
    followUp: (text, t) => {
      const ready = defaultFollowUp(text, t);
      if (ready?.first.tool === "edit") return ready;
      const swaps = namedSwaps(text);
      if (swaps.length === 0) return undefined;
      return { first: editCall(t.path, swapAll(curly(r(t).text.trim()), swaps), swapAll(curly(edited(r(t).text.trim())), swaps)) };
    },
  };
}

function spacesForTabs(source: string, at: number): Task {
  const r = (t: TaskEnv) =>
    pick(t, at, (_row, i) => i + 2 < t.rows.length && [0, 1, 2].every((k) => t.rows[i + k].text.startsWith("\t") && t.rows[i + k].text.trim().length > 3));
  const block = (t: TaskEnv) => [0, 1, 2].map((k) => rowAt(t, r(t).line + k).text);
  const spaces = (s: string) => s.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length));
  return {
    name: `3-line old_string with spaces where the file has tabs (${source})`,
    mistake: "tabs vs spaces",
    source,
    call: (t) => {
      const b = block(t).map(spaces);
      return editCall(t.path, b.join("\n"), [b[0], edited(b[1]), b[2]].join("\n"));
    },
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line + 1, edited(block(t)[1])) }),
  };
}

function opForOperation(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.55);
  return {
    name: `"op" instead of "operation" (${source})`,
    mistake: "wrong field name",
    source,
    call: (t) => batch(t, [{ op: "replace", start: r(t).id, content: edited(r(t).text) }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function oldStrKeys(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.45);
  return {
    name: `old_str / new_str instead of old_string / new_string (${source})`,
    mistake: "wrong field name",
    source,
    call: (t) => ({ tool: "edit", args: { path: t.path, old_str: r(t).text.trim(), new_str: edited(r(t).text.trim()) } }),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    followUp: (text, t) => {
      const renames = [...text.matchAll(/`(\w+)` -> `(\w+)`/g)].map((m) => [m[1], m[2]] as const);
      if (renames.length === 0) return undefined;
      const args: Record<string, unknown> = { path: t.path, old_str: r(t).text.trim(), new_str: edited(r(t).text.trim()) };
      for (const [from, to] of renames) {
        args[to] = args[from];
        delete args[from];
      }
      return { first: { tool: "edit", args } };
    },
  };
}

/** A plain row whose next row is plain too, neither with quotes or backslashes (no escape in them to confuse). */
function plainPair(t: TaskEnv, at: number): Row {
  const bare = (row: Row) => !/["'\\]/.test(row.text);
  return pick(t, at, (row, i) => i + 1 < t.rows.length && bare(row) && isPlain(t.rows[i + 1], t.rows) && bare(t.rows[i + 1]));
}

function literalNewlines(source: string, at: number): Task {
  const r = (t: TaskEnv) => plainPair(t, at);
  return {
    name: `2-line old_string sent with a literal \\n (${source})`,
    mistake: "escape confusion",
    source,
    call: (t) => {
      const a = r(t);
      const b = rowAt(t, a.line + 1);
      return editCall(t.path, `${a.text.trim()}\\n${b.text}`, `${a.text.trim()}\\n${edited(b.text)}`);
    },
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line + 1, edited(rowAt(t, r(t).line + 1).text)) }),
  };
}

/** A line (trimmed, 12+ chars, no backslash) that occurs exactly twice; the model means the second. */
function twice(t: TaskEnv): Row {
  const counts = new Map<string, Row[]>();
  for (const row of t.rows) {
    const s = row.text.trim();
    if (s.length < 12 || row.text.includes("\\")) continue;
    counts.set(s, [...(counts.get(s) ?? []), row]);
  }
  for (const rows of counts.values()) {
    if (rows.length !== 2) continue;
    const s = rows[0].text.trim();
    if (t.rows.filter((r) => r.text.includes(s)).length === 2) return rows[1];
  }
  throw new Error(`no line occurs exactly twice in ${t.path}`);
}

function ambiguous(source: string): Task {
  return {
    name: `old_string that matches 2 places; the model means the second (${source})`,
    mistake: "ambiguous old_string",
    source,
    call: (t) => editCall(t.path, twice(t).text.trim(), edited(twice(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, twice(t).line, edited(twice(t).text)) }),
    // The text lists each match by id and offers batch_edit with the id of the one meant.
    followUp: (text, t) => {
      const mine = twice(t);
      const listed = [...text.matchAll(/^ {2}(\d+:[0-9a-f]{2})\|/gm)].map((m) => m[1]);
      const id = listed.find((x) => Number(x.split(":")[0]) === mine.line);
      return id ? { first: batch(t, [{ operation: "replace", start: id, content: edited(mine.text) }]) } : undefined;
    },
  };
}

function typoPath(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.35);
  const typo = (t: TaskEnv) => t.path.replace(/(\w)(\w)(\.\w+)$/, "$2$1$3");
  return {
    name: `mistyped file name (${source})`,
    mistake: "wrong path",
    source,
    call: (t) => editCall(typo(t), r(t).text.trim(), edited(r(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    followUp: (text, t) => {
      const m = /Similar names? in the same directory: `([^`]+)`/.exec(text);
      return m ? { first: editCall(m[1], r(t).text.trim(), edited(r(t).text.trim())) } : undefined;
    },
  };
}

function unseenEdit(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `edit of a file never viewed in the session (${source})`,
    mistake: "edit before view",
    source,
    // The model knows the code from elsewhere (another session, its training); it has not viewed it here.
    setup: async (t) => {
      t.rows = linesOf(t.disk()!).map((text, i) => ({ line: i + 1, id: "", text }));
    },
    call: (t) => editCall(t.path, r(t).text.trim(), edited(r(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    followUp: (text, t) =>
      defaultFollowUp(
        text,
        t,
        retrySame((t2) => editCall(t2.path, r(t2).text.trim(), edited(r(t2).text.trim()))),
      ),
  };
}

function staleWrite(source: string): Task {
  let mine = "";
  let theirsLine = 0;
  const r = (t: TaskEnv) => pick(t, 0.3);
  return {
    name: `whole-file write after another writer changed the file (${source})`,
    mistake: "stale whole-file write",
    source,
    setup: async (t) => {
      t.rows = await t.agent.view(t.path);
      const seen = t.disk()!;
      mine = replaceLine(seen, r(t).line, edited(r(t).text));
      const theirs = pick(t, 0.8);
      theirsLine = theirs.line;
      t.otherWriter(replaceLine(seen, theirs.line, `${theirs.text} // theirs`));
    },
    call: (t) => ({ tool: "write", args: { path: t.path, content: mine } }),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    // After the view, the model redoes its change on the content it now sees.
    followUp: (text, t) =>
      defaultFollowUp(text, t, async (t2) => {
        const now = await t2.agent.view(t2.path);
        const eol = eolOf(t2);
        const content = now.map((row) => (row.line === r(t2).line ? edited(row.text) : row.text)).join(eol) + eol;
        return theirsLine > 0 ? { tool: "write", args: { path: t2.path, content } } : undefined;
      }),
  };
}

function duplicatedContext(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5, (_row, i) => i > 0 && t.rows[i - 1].text.trim().length > 8 && !/^[)\]}]/.test(t.rows[i - 1].text.trim()));
  return {
    name: `replace content repeats the line above the range (${source})`,
    mistake: "context line in content",
    source,
    call: (t) => batch(t, [{ operation: "replace", start: r(t).id, content: `${rowAt(t, r(t).line - 1).text}\n${edited(r(t).text)}` }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    // "Drop that line from content": the model sends the same operation without it.
    followUp: (text, t) =>
      text.includes("Drop that line from content") ? { first: batch(t, [{ operation: "replace", start: r(t).id, content: edited(r(t).text) }]) } : undefined,
  };
}

function editDirectory(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `edit with the directory's path (${source})`,
    mistake: "wrong path",
    source,
    call: (t) => editCall(t.dir, r(t).text.trim(), edited(r(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
    followUp: (text, t) =>
      defaultFollowUp(text, t, (t2, listing) => (listing.text.includes(t2.path) ? editCall(t2.path, r(t2).text.trim(), edited(r(t2).text.trim())) : undefined)),
  };
}

function crlfEdit(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5, (_row, i) => i + 1 < t.rows.length && t.rows[i + 1].text.trim().length > 3);
  return {
    name: `LF old_string spanning 2 lines of a CRLF file (${source})`,
    mistake: "line endings",
    source,
    call: (t) => {
      const next = rowAt(t, r(t).line + 1).text;
      return editCall(t.path, `${r(t).text}\n${next}`, `${r(t).text}\n${edited(next)}`);
    },
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line + 1, edited(rowAt(t, r(t).line + 1).text)) }),
  };
}

function crlfBatch(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.6);
  return {
    name: `LF batch content replacing a line of a CRLF file with two (${source})`,
    mistake: "line endings",
    source,
    call: (t) => batch(t, [{ operation: "replace", start: r(t).id, content: `${r(t).text}\n// added\n` }]),
    intended: (t) => ({ [t.path]: spliceText(t.original, r(t).line, 1, [r(t).text, "// added"]) }),
  };
}

/** The BOM is added on disk before the agent looks (no source here has one). */
async function viewWithBom(t: TaskEnv): Promise<void> {
  t.otherWriter(`\uFEFF${t.disk()!}`);
  t.rows = await t.agent.view(t.path);
}

function bomBatch(source: string): Task {
  return {
    name: `batch replace of line 1 of a BOM file (${source})`,
    mistake: "BOM",
    source,
    as: "bom-index.js",
    setup: viewWithBom,
    call: (t) => batch(t, [{ operation: "replace", start: t.rows[0].id, content: edited(t.rows[0].text) }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, 1, edited(t.rows[0].text)) }),
  };
}

function bomEdit(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `edit in a BOM file (${source})`,
    mistake: "BOM",
    source,
    as: "bom-edit.js",
    setup: viewWithBom,
    call: (t) => editCall(t.path, r(t).text.trim(), edited(r(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function pastedPrefixOld(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5, (_row, i) => i + 1 < t.rows.length);
  return {
    name: `old_string and new_string pasted with N:hh| prefixes (${source})`,
    mistake: "pasted view prefixes",
    source,
    call: (t) => {
      const a = r(t);
      const b = rowAt(t, a.line + 1);
      return editCall(t.path, `${a.id}|${a.text}\n${b.id}|${b.text}`, `${a.id}|${edited(a.text)}\n${b.id}|${b.text}`);
    },
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

// --- agent-bytes' classes ----------------------------------------------------------

function absoluteEdit(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `edit with an absolute path inside the root (${source})`,
    mistake: "absolute path",
    source,
    owner: "agent-bytes",
    call: (t) => editCall(join(t.root, t.path), r(t).text.trim(), edited(r(t).text.trim())),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function absoluteCreate(source: string): Task {
  return {
    name: `create a file with an absolute path inside the root (${source})`,
    mistake: "absolute path",
    source,
    owner: "agent-bytes",
    call: (t) => ({ tool: "write", args: { path: join(t.root, t.dir, "created.js"), content: "export const created = true;\n" } }),
    intended: (t) => ({ [`${t.dir}/created.js`]: "export const created = true;\n" }),
  };
}

function partialViewWrite(source: string): Task {
  const r = (t: TaskEnv) => rowAt(t, 11);
  let full: Row[] = [];
  return {
    name: `whole-file write after viewing 3 lines (${source})`,
    mistake: "whole write after partial view",
    source,
    owner: "agent-bytes",
    setup: async (t) => {
      full = linesOf(t.disk()!).map((text, i) => ({ line: i + 1, id: "", text }));
      t.rows = await t.agent.view(t.path, 10, 12);
    },
    // It writes what it knows, believing that is the file: the 3 lines it saw, one changed.
    call: (t) => ({ tool: "write", args: { path: t.path, content: `${t.rows.map((row) => (row.line === 11 ? edited(row.text) : row.text)).join("\n")}\n` } }),
    intended: (t) => ({ [t.path]: replaceLine(t.original, 11, edited(r(t).text)) }),
    // The refusal names the unseen ranges as view calls; the model views them all, then writes again.
    followUp: (text, _t) => {
      const views = suggestedCalls(text).filter((c) => c.tool === "view");
      if (views.length === 0) return undefined;
      return {
        first: { tool: "view", args: views[0].args },
        afterView: async (t2) => {
          for (const v of views.slice(1)) await t2.agent.call({ tool: "view", args: v.args });
          return { tool: "write", args: { path: t2.path, content: `${full.map((row) => (row.line === 11 ? edited(row.text) : row.text)).join("\n")}\n` } };
        },
      };
    },
  };
}

function trailingSlash(source: string): Task {
  return {
    name: `write to a path ending in / (${source})`,
    mistake: "trailing slash",
    source,
    owner: "agent-bytes",
    call: (t) => ({ tool: "write", args: { path: `${t.dir}/helpers/`, content: "export {};\n" } }),
    intended: (t) => ({ [`${t.dir}/helpers/index.js`]: "export {};\n" }),
    // The model names the file it meant inside the directory.
    followUp: (text, t) =>
      /director/.test(text) ? { first: { tool: "write", args: { path: `${t.dir}/helpers/index.js`, content: "export {};\n" } } } : undefined,
  };
}

function bomInOldString(source: string): Task {
  return {
    name: `old_string starting with the file's BOM (${source})`,
    mistake: "BOM",
    source,
    as: "bom-old.js",
    owner: "agent-bytes",
    setup: viewWithBom,
    call: (t) => editCall(t.path, `\uFEFF${t.rows[0].text}`, `\uFEFF${edited(t.rows[0].text)}`),
    intended: (t) => ({ [t.path]: replaceLine(t.original, 1, edited(t.rows[0].text)) }),
  };
}

function escapeInLiteral(source: string): Task {
  const r = (t: TaskEnv) => plainPair(t, 0.5);
  return {
    name: `over-escaped old_string, new_string with "\\t" meant inside a string literal (${source})`,
    mistake: "escape confusion",
    source,
    owner: "agent-bytes",
    call: (t) => {
      const a = r(t);
      const b = rowAt(t, a.line + 1);
      return editCall(t.path, `${a.text.trim()}\\n${b.text}`, `${a.text.trim()}\\n${b.text}\\nconst SEP = "\\t";`);
    },
    intended: (t) => ({ [t.path]: insertAfter(t.original, r(t).line + 1, ['const SEP = "\\t";']) }),
  };
}

function pastedPrefixContent(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `batch content pasted with its N:hh| prefix (${source})`,
    mistake: "pasted view prefixes",
    source,
    owner: "agent-bytes",
    call: (t) => batch(t, [{ operation: "replace", start: r(t).id, content: `${r(t).id}|${edited(r(t).text)}` }]),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function pastedPrefixWrite(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `whole-file write with every line's N:hh| prefix (${source})`,
    mistake: "pasted view prefixes",
    source,
    owner: "agent-bytes",
    call: (t) => ({
      tool: "write",
      args: { path: t.path, content: `${t.rows.map((row) => `${row.id}|${row.line === r(t).line ? edited(row.text) : row.text}`).join("\n")}\n` },
    }),
    intended: (t) => ({ [t.path]: replaceLine(t.original, r(t).line, edited(r(t).text)) }),
  };
}

function literalNewlineContent(source: string): Task {
  const r = (t: TaskEnv) => pick(t, 0.5);
  return {
    name: `batch content with a literal \\n and no real newline (${source})`,
    mistake: "escape confusion",
    source,
    owner: "agent-bytes",
    call: (t) => batch(t, [{ operation: "insert", after: r(t).id, content: "// first note\\n// second note" }]),
    intended: (t) => ({ [t.path]: insertAfter(t.original, r(t).line, ["// first note", "// second note"]) }),
  };
}

function fencedWrite(source: string): Task {
  return {
    name: `new file content wrapped in a markdown fence (${source})`,
    mistake: "markdown fence",
    source,
    owner: "agent-bytes",
    call: (t) => ({ tool: "write", args: { path: `${t.dir}/fenced.js`, content: "```js\nexport const fenced = 1;\n```\n" } }),
    intended: (t) => ({ [`${t.dir}/fenced.js`]: "export const fenced = 1;\n" }),
  };
}

/** Every task, in order. */
export function catalogueTasks(): Task[] {
  return [
    ...["hono-context", "hono-base", "hono-request", "debug-common", "schema-draft07", "koa-context"].map((s, i) => mistypedHash(s, 0.2 + 0.1 * i)),
    ...["hono-context", "hono-url", "debug-node", "schema-draft07", "valibot"].map(staleShiftBatch),
    ...["hono-base", "hono-cookie", "koa-context"].map(staleShiftSingle),
    ...["hono-context", "hono-request", "etag"].map((s, i) => bareStart(s, 0.3 + 0.2 * i)),
    ...["hono-base", "debug-common"].map(bareAfter),
    ...["hono-url", "koa-context"].map(emptyReplaceWrongId),
    ...["hono-request", "hono-cookie"].map(reversedRange),
    ...["hono-context", "hono-base", "hono-request", "hono-url"].map((s, i) => whitespaceDrift(s, 0.3 + 0.15 * i)),
    ...["hono-context", "koa-context", "cookie"].map((s, i) => smartQuotes(s, 0.4 + 0.1 * i)),
    ...["debug-common", "debug-node"].map((s) => spacesForTabs(s, 0.5)),
    ...["hono-url", "hono-cookie"].map(opForOperation),
    oldStrKeys("hono-context"),
    ...["hono-base", "koa-context"].map((s) => literalNewlines(s, 0.5)),
    ...["hono-context", "debug-common"].map(ambiguous),
    ...["hono-context", "hono-request"].map(typoPath),
    ...["hono-url", "etag"].map(unseenEdit),
    ...["hono-cookie", "debug-common"].map(staleWrite),
    ...["hono-context", "hono-base"].map(duplicatedContext),
    editDirectory("etag"),
    crlfEdit("schema-draft07"),
    crlfBatch("schema-draft07"),
    bomBatch("cookie"),
    bomEdit("cookie"),
    ...["hono-request", "koa-context"].map(pastedPrefixOld),
    // The classes of agent-bytes' fixes (see docs/reliability.md for which need them).
    ...["hono-context", "debug-common"].map(absoluteEdit),
    absoluteCreate("etag"),
    ...["hono-request", "etag"].map(partialViewWrite),
    trailingSlash("etag"),
    bomInOldString("cookie"),
    escapeInLiteral("hono-base"),
    ...["hono-context", "koa-context"].map(pastedPrefixContent),
    pastedPrefixWrite("etag"),
    literalNewlineContent("hono-url"),
    fencedWrite("etag"),
  ];
}
