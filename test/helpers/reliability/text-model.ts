/**
 * A tiny reference model of a text file and of whole-line edits, written
 * from DESIGN.md's rules rather than from src/text, for the fuzz suite to
 * compare the real tools against byte for byte:
 *
 * - a file is an optional BOM and lines, each `{content, eol}`; only the last
 *   line may have eol "", and then its content is not empty;
 * - an untouched line keeps its content and eol; the k-th line of a
 *   replacement reuses the eol of the k-th line it replaces, any further new
 *   line takes the file's dominant ending (CRLF only if more lines end with
 *   CRLF than with LF);
 * - the file keeps its final-newline state: if it had none, whichever line
 *   ends up last has none; a line that stops being last gains the dominant
 *   ending; an empty last line without terminator is no line at all;
 * - a line whose content ends in "\r" is never followed by a bare "\n"
 *   (together they would read back as a CRLF terminator): it gets "\r\n".
 * - a line id is `N:hh`: FNV-1a 32 over the line's UTF-8 bytes, folded to 8
 *   bits by XOR (32 -> 16 -> 8).
 */

/** A line terminator. */
export type ModelEol = "\n" | "\r\n" | "";

/** One line. */
export interface ModelLine {
  readonly content: string;
  readonly eol: ModelEol;
}

/** A file. */
export interface ModelFile {
  readonly bom: boolean;
  readonly lines: readonly ModelLine[];
}

/** One edit in old-file positions (0-based; `from..to` exclusive). */
export type ModelOp =
  | { readonly kind: "replace"; readonly from: number; readonly to: number; readonly lines: readonly string[] }
  | { readonly kind: "delete"; readonly from: number; readonly to: number }
  /** New lines at boundary `at`: 0 is before the first line, `lines.length` after the last. */
  | { readonly kind: "insert"; readonly at: number; readonly lines: readonly string[] };

/** A line of an edited file, with the index of the old line it is when it was kept untouched. */
export interface EditedLine extends ModelLine {
  readonly kept?: number;
}

const encoder = new TextEncoder();

/** The bytes of a file. */
export function modelBytes(file: ModelFile): Uint8Array {
  const text = (file.bom ? "\ufeff" : "") + file.lines.map((l) => l.content + l.eol).join("");
  return encoder.encode(text);
}

/** The 8-bit id hash of a line's content. */
export function modelHash(content: string): number {
  let h = 0x811c9dc5;
  for (const byte of encoder.encode(content)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  const h16 = (h >>> 16) ^ (h & 0xffff);
  return ((h16 >>> 8) ^ h16) & 0xff;
}

/** The id text of line `n` (1-based) with `content`. */
export function modelId(n: number, content: string): string {
  return `${n}:${modelHash(content).toString(16).padStart(2, "0")}`;
}

/** Whether every op leaves its lines exactly as they are (then a batch changes nothing). */
export function changesNothing(file: ModelFile, ops: readonly ModelOp[]): boolean {
  return ops.every(
    (op) => op.kind === "replace" && op.lines.length === op.to - op.from && op.lines.every((line, k) => line === file.lines[op.from + k].content),
  );
}

/** Apply non-conflicting ops (any order) to `file`. */
export function applyModel(file: ModelFile, ops: readonly ModelOp[]): { bom: boolean; lines: EditedLine[] } {
  const old = file.lines;
  let crlf = 0;
  let lf = 0;
  for (const line of old) {
    if (line.eol === "\r\n") crlf++;
    else if (line.eol === "\n") lf++;
  }
  const dominant: ModelEol = crlf > lf ? "\r\n" : "\n";
  const finalNewline = old.length === 0 || old[old.length - 1].eol !== "";

  const insertsAt = new Map<number, string[]>();
  const rangeAt = new Map<number, { to: number; lines: readonly string[] }>();
  for (const op of ops) {
    if (op.kind === "insert") insertsAt.set(op.at, [...(insertsAt.get(op.at) ?? []), ...op.lines]);
    else rangeAt.set(op.from, { to: op.to, lines: op.kind === "replace" ? op.lines : [] });
  }

  const out: EditedLine[] = [];
  for (let b = 0; b <= old.length; ) {
    for (const content of insertsAt.get(b) ?? []) out.push({ content, eol: dominant });
    if (b === old.length) break;
    const range = rangeAt.get(b);
    if (range) {
      range.lines.forEach((content, k) => {
        out.push({ content, eol: b + k < range.to ? old[b + k].eol : dominant });
      });
      b = range.to;
    } else {
      out.push({ ...old[b], kept: b });
      b++;
    }
  }
  const lines = out.map((line, i): EditedLine => {
    if (i < out.length - 1) return line.eol === "" ? { ...line, eol: dominant } : line;
    if (!finalNewline) return { ...line, eol: "" };
    return line.eol === "" ? { ...line, eol: dominant } : line;
  });
  const last = lines[lines.length - 1];
  if (last && last.content === "" && last.eol === "") lines.pop();
  // Written back, "\r" + "\n" would read as one CRLF terminator: a line ending in "\r" is terminated with "\r\n".
  return { bom: file.bom, lines: lines.map((line) => (line.eol === "\n" && line.content.endsWith("\r") ? { ...line, eol: "\r\n" } : line)) };
}

/** Split text the way DESIGN.md says files split (the model's own reader, for checking real output). */
export function modelSplit(text: string): ModelLine[] {
  const lines: ModelLine[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) {
      lines.push({ content: text.slice(start), eol: "" });
      break;
    }
    const crlf = nl > start && text[nl - 1] === "\r";
    lines.push({ content: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    start = nl + 1;
  }
  return lines;
}
