/**
 * Lines of a file that arrives in chunks, with their ids, without ever
 * holding the file whole. Pure: no I/O; the caller pushes chunks, and may
 * reuse a chunk's memory once `push` returns (what is kept is copied).
 *
 * Each chunk is cut at its first and last "\n". The complete lines between
 * go to the line hasher in one call, straight from the chunk's bytes; the
 * bytes after the last "\n" wait in a carry buffer until the next chunk
 * completes that line (so a line, or a "\r\n", split across chunks is hashed
 * exactly as in the whole file). Memory is therefore one chunk plus the
 * longest line, and a line longer than `maxLineBytes` stops the scan.
 *
 * Verdicts match `validateText` on the whole file: a UTF-16/32 byte-order
 * mark, then a NUL in the first 8 KiB ("binary"), then the first invalid
 * UTF-8 sequence, with the same offsets, line numbers and byte excerpts.
 */

import type { LineHasher } from "../../hash/types.ts";
import { BINARY_SNIFF_BYTES, firstInvalidUtf8, hashLineViews, hasUtf8Bom, type LineColumns, type NotText, wideBomRefusal } from "../../text/document.ts";

/** Complete lines handed to the sink: columns relative to `body`, valid only during the call. */
export interface LineBatch extends LineColumns {
  readonly body: Uint8Array;
  /** 1-based number of the batch's first line. */
  readonly firstLine: number;
}

/** How a scan ended. */
export type ScanOutcome =
  | { readonly kind: "text" }
  | { readonly kind: "not-text"; readonly why: NotText }
  /** A line grew past `maxLineBytes` before its end was found; `line` is its number. */
  | { readonly kind: "line-too-long"; readonly line: number };

/** Everything known about the file once the scan has ended. */
export interface ScanTotals {
  readonly lines: number;
  readonly crlf: number;
  readonly lf: number;
  readonly unterminatedLast: boolean;
  readonly bom: boolean;
  /** Bytes pushed (the whole file once the scan ended normally). */
  readonly bytes: number;
}

/** Options of {@link LineScanner}. */
export interface LineScanOptions {
  /** Longest line (bytes, terminator excluded) the scan will hold. */
  readonly maxLineBytes: number;
}

const LF = 0x0a;

/** Bytes appended at the end, with amortised growth (one line in progress). */
class Carry {
  private buffer = new Uint8Array(256);
  length = 0;

  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buffer.length) {
      const bigger = new Uint8Array(Math.max(this.length + bytes.length, this.buffer.length * 2));
      bigger.set(this.buffer.subarray(0, this.length));
      this.buffer = bigger;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/** Scans pushed chunks into line batches; see the module comment. */
export class LineScanner {
  private readonly carry = new Carry();
  /** File offset of the carry's first byte. */
  private carryAt = 0;
  /** The first bytes, held until the byte-order marks can be told apart. */
  private prefix: Uint8Array | undefined = new Uint8Array(0);
  private offset = 0;
  private lineCount = 0;
  private crlf = 0;
  private lf = 0;
  private unterminated = false;
  private bom = false;
  private finished = false;
  private result: ScanOutcome = { kind: "text" };
  /** An invalid sequence found while the NUL sniff was still open: reported once 8 KiB were seen. */
  private invalid: { at: number; line: number; peek: number[] } | undefined;

  constructor(
    private readonly hasher: LineHasher,
    private readonly onLines: (batch: LineBatch) => void,
    private readonly options: LineScanOptions,
  ) {}

  /** False once the outcome is settled and further chunks would change nothing (stop reading). */
  get wantsMore(): boolean {
    if (this.result.kind !== "text") return false;
    return this.invalid === undefined || this.offset < BINARY_SNIFF_BYTES || this.invalid.peek.length < 5;
  }

  /** The outcome so far ("text" until something refuses the file). */
  get outcome(): ScanOutcome {
    return this.result;
  }

  /** Feed the next chunk. */
  push(chunk: Uint8Array): void {
    if (this.finished || !this.wantsMore || chunk.length === 0) return;
    if (this.prefix !== undefined) {
      const joined = concat(this.prefix, chunk);
      if (joined.length < 4) {
        // A copy: the caller may reuse the chunk's memory for the next chunk.
        this.prefix = joined === chunk ? chunk.slice() : joined;
        return;
      }
      this.prefix = undefined;
      this.begin(joined);
      return;
    }
    this.consume(chunk);
  }

  /** No more chunks: settle the last line and the outcome. */
  end(): ScanOutcome {
    if (this.finished) return this.result;
    if (this.prefix !== undefined) {
      const head = this.prefix;
      this.prefix = undefined;
      this.begin(head);
    }
    this.finished = true;
    if (this.result.kind === "text" && this.invalid === undefined && this.carry.length > 0) {
      this.region(this.carry.view(), this.carryAt, new Uint8Array(0), true);
    }
    this.settleInvalid(true);
    return this.result;
  }

  /** Line and ending counts so far (final after {@link end}). */
  totals(): ScanTotals {
    return {
      lines: this.lineCount,
      crlf: this.crlf,
      lf: this.lf,
      unterminatedLast: this.unterminated,
      bom: this.bom,
      bytes: this.offset,
    };
  }

  /** The first chunk (at least 4 bytes, or the whole file): byte-order marks decide first. */
  private begin(head: Uint8Array): void {
    const wide = wideBomRefusal(head);
    if (wide !== undefined) {
      this.result = { kind: "not-text", why: wide };
      this.offset = head.length;
      return;
    }
    if (hasUtf8Bom(head)) {
      this.bom = true;
      this.sniff(head.subarray(0, 3));
      this.offset = 3;
      this.carryAt = 3;
      this.consume(head.subarray(3));
      return;
    }
    this.consume(head);
  }

  /** Refuse as binary when a NUL falls in the first 8 KiB of the file. */
  private sniff(chunk: Uint8Array): void {
    if (this.offset >= BINARY_SNIFF_BYTES) return;
    const nul = chunk.subarray(0, BINARY_SNIFF_BYTES - this.offset).indexOf(0);
    if (nul === -1) return;
    const at = this.offset + nul;
    this.result = {
      kind: "not-text",
      why: { ok: false, reason: "binary", detail: `NUL byte at offset ${at} (within the first ${BINARY_SNIFF_BYTES} bytes)`, offset: at },
    };
  }

  private consume(chunk: Uint8Array): void {
    this.sniff(chunk);
    const base = this.offset;
    this.offset += chunk.length;
    if (this.result.kind !== "text") return;
    if (this.invalid !== undefined) {
      this.collectPeek(chunk);
      this.settleInvalid(false);
      return;
    }
    const first = chunk.indexOf(LF);
    if (first === -1) {
      this.extendCarry(chunk);
      return;
    }
    let from = 0;
    if (this.carry.length > 0) {
      // The line in progress ends in this chunk: hash it whole from the carry.
      this.carry.append(chunk.subarray(0, first + 1));
      if (!this.region(this.carry.view(), this.carryAt, chunk.subarray(first + 1), false)) return;
      this.carry.length = 0;
      from = first + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= from && !this.region(chunk.subarray(from, last + 1), base + from, chunk.subarray(last + 1), false)) return;
    this.carryAt = base + last + 1;
    this.extendCarry(chunk.subarray(last + 1));
  }

  private extendCarry(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.carry.length + bytes.length > this.options.maxLineBytes) {
      this.result = { kind: "line-too-long", line: this.lineCount + 1 };
      return;
    }
    this.carry.append(bytes);
  }

  /**
   * Complete lines (the last one unterminated only when `final`): validate,
   * hash and hand them on. False when the bytes are not text.
   */
  private region(bytes: Uint8Array, at: number, following: Uint8Array, final: boolean): boolean {
    const bad = firstInvalidUtf8(bytes);
    if (bad !== -1) {
      let line = this.lineCount + 1;
      for (let i = bytes.indexOf(LF); i !== -1 && i < bad; i = bytes.indexOf(LF, i + 1)) line++;
      this.invalid = { at: at + bad, line, peek: [] };
      this.collectPeek(bytes.subarray(bad));
      this.collectPeek(following);
      this.settleInvalid(final);
      return false;
    }
    const columns = hashLineViews(bytes, this.hasher);
    const count = columns.hashes.length;
    if (count === 0) return true;
    const { starts, ends } = columns;
    let crlf = 0;
    for (let i = 0; i < count; i++) {
      // The same limit whether a line arrived whole in one chunk or was carried across several.
      if (ends[i] - starts[i] > this.options.maxLineBytes) {
        this.result = { kind: "line-too-long", line: this.lineCount + i + 1 };
        return false;
      }
      if ((i + 1 < count ? starts[i + 1] : bytes.length) - ends[i] === 2) crlf++;
    }
    this.onLines({ ...columns, body: bytes, firstLine: this.lineCount + 1 });
    const open = final && bytes[bytes.length - 1] !== LF;
    this.crlf += crlf;
    this.lf += count - crlf - (open ? 1 : 0);
    this.unterminated = open;
    this.lineCount += count;
    return true;
  }

  private collectPeek(bytes: Uint8Array): void {
    // Four bytes are shown; a fifth says whether " ..." follows them.
    const peek = this.invalid!.peek;
    for (let i = 0; i < bytes.length && peek.length < 5; i++) peek.push(bytes[i]);
  }

  /** Report the invalid sequence once nothing can pre-empt it (a NUL in the first 8 KiB) and its excerpt is known. */
  private settleInvalid(final: boolean): void {
    const invalid = this.invalid;
    if (invalid === undefined || this.result.kind !== "text") return;
    if (!final && (this.offset < BINARY_SNIFF_BYTES || invalid.peek.length < 5)) return;
    const shown = invalid.peek.slice(0, 4).map((b) => b.toString(16).padStart(2, "0"));
    const more = invalid.peek.length > 4 ? " ..." : "";
    this.result = {
      kind: "not-text",
      why: {
        ok: false,
        reason: "invalid-utf8",
        detail: `invalid UTF-8 at byte ${invalid.at} (line ${invalid.line}): bytes ${shown.join(" ")}${more}`,
        offset: invalid.at,
      },
    };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
