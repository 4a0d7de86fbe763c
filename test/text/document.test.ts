import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { fnv1a32, fold8, lineHash } from "../../src/hash/fnv.ts";
import { jsHasher } from "../../src/hash/js.ts";
import type { LineHasher, LineHashes } from "../../src/hash/types.ts";
import { decodeText, documentFromLines, encodeDocument, firstInvalidUtf8, loadDocument, type NotText, type TextDocument } from "../../src/text/document.ts";
import { spliceLines } from "../../src/text/eol.ts";
import { splitLines } from "../../src/text/lines.ts";

/** A byte-level hasher built straight from the FNV reference: an oracle independent of src/hash/js.ts. */
function makeHasher(): LineHasher & { calls: number } {
  const hasher = {
    backend: "js" as const,
    calls: 0,
    hashLines(bytes: Uint8Array): LineHashes {
      hasher.calls++;
      const starts: number[] = [];
      const ends: number[] = [];
      let start = 0;
      while (start < bytes.length) {
        const nl = bytes.indexOf(0x0a, start);
        const stop = nl === -1 ? bytes.length : nl;
        starts.push(start);
        ends.push(nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : stop);
        start = stop + 1;
      }
      const hashes = Uint8Array.from(starts, (s, i) => fold8(fnv1a32(bytes, s, ends[i])));
      return { count: starts.length, hashes, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
    },
  };
  return hasher;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const BOM = [0xef, 0xbb, 0xbf];
const withBom = (s: string) => Uint8Array.from([...BOM, ...utf8(s)]);

function load(bytes: Uint8Array): TextDocument {
  const doc = loadDocument(bytes, makeHasher());
  if (!doc.ok) throw new Error(`not text: ${doc.detail}`);
  return doc;
}

function refused(bytes: Uint8Array): NotText {
  const r = decodeText(bytes);
  if (r.ok) throw new Error("expected bytes to be refused");
  return r;
}

describe("decodeText", () => {
  test("UTF-8 text, with the BOM reported aside and not in the text", () => {
    expect(decodeText(utf8("héllo\n"))).toEqual({ ok: true, text: "héllo\n", bom: false });
    expect(decodeText(withBom("a\n"))).toEqual({ ok: true, text: "a\n", bom: true });
    expect(decodeText(new Uint8Array(BOM))).toEqual({ ok: true, text: "", bom: true });
    expect(decodeText(new Uint8Array())).toEqual({ ok: true, text: "", bom: false });
    // Only the first BOM is metadata; a second one is content.
    expect(decodeText(withBom("\uFEFFx"))).toEqual({ ok: true, text: "\uFEFFx", bom: true });
  });

  test("a NUL byte in the first 8 KiB means binary, with its offset", () => {
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    expect(refused(bytes)).toEqual({
      ok: false,
      reason: "binary",
      detail: "NUL byte at offset 4 (within the first 8192 bytes)",
      offset: 4,
    });
    const late = new Uint8Array(8193).fill(0x61);
    late[8191] = 0;
    expect(refused(late).reason).toBe("binary");
  });

  test("a NUL byte after the first 8 KiB of valid UTF-8 is text", () => {
    const bytes = new Uint8Array(8200).fill(0x61);
    bytes[8192] = 0;
    const r = decodeText(bytes);
    expect(r.ok).toBe(true);
  });

  test("invalid UTF-8 reports the byte offset and line of the first bad sequence", () => {
    // Latin-1 "é" (0xE9) on line 2.
    const bytes = Uint8Array.from([...utf8("ok\ncaf"), 0xe9, ...utf8(" au lait\n")]);
    expect(refused(bytes)).toEqual({
      ok: false,
      reason: "invalid-utf8",
      detail: "invalid UTF-8 at byte 6 (line 2): bytes e9 20 61 75 ...",
      offset: 6,
    });
  });

  test("offsets of invalid UTF-8 count the BOM", () => {
    const bytes = Uint8Array.from([...BOM, 0x61, 0xc3, 0x28]);
    expect(refused(bytes)).toEqual({
      ok: false,
      reason: "invalid-utf8",
      detail: "invalid UTF-8 at byte 4 (line 1): bytes c3 28",
      offset: 4,
    });
  });

  test("UTF-16 and UTF-32 files are named as such, not called binary", () => {
    const le16 = Uint8Array.from([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00]);
    expect(refused(le16)).toEqual({
      ok: false,
      reason: "invalid-utf8",
      detail: "starts with a UTF-16 LE (FF FE) byte order mark: the file is UTF-16 text, not UTF-8",
      offset: 0,
    });
    expect(refused(Uint8Array.from([0xfe, 0xff, 0x00, 0x61])).detail).toContain("UTF-16 BE (FE FF)");
    expect(refused(Uint8Array.from([0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0])).detail).toContain("UTF-32 LE");
    expect(refused(Uint8Array.from([0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x61])).detail).toContain("UTF-32 BE");
  });
});

describe("firstInvalidUtf8", () => {
  test("finds overlongs, surrogates, out-of-range and truncated sequences", () => {
    expect(firstInvalidUtf8(utf8("héllo 世界 🚀"))).toBe(-1);
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong "/"
    expect(firstInvalidUtf8(Uint8Array.from([0xe0, 0x80, 0xaf]))).toBe(0); // overlong 3-byte
    expect(firstInvalidUtf8(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe(0); // UTF-16 surrogate
    expect(firstInvalidUtf8(Uint8Array.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // > U+10FFFF
    expect(firstInvalidUtf8(Uint8Array.from([0x61, 0x62, 0xe4, 0xb8]))).toBe(2); // cut short
    expect(firstInvalidUtf8(Uint8Array.from([0x80]))).toBe(0); // stray continuation
    expect(firstInvalidUtf8(Uint8Array.from([0xf5, 0x80, 0x80, 0x80]))).toBe(0);
  });

  test("agrees with the fatal TextDecoder on random bytes", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const valid = (b: Uint8Array) => {
      try {
        fatal.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 24 }),
      // Mostly-valid text with a few random bytes spliced in.
      fc
        .tuple(fc.string({ unit: "binary", maxLength: 12 }), fc.uint8Array({ maxLength: 3 }), fc.string({ maxLength: 6 }))
        .map(([a, mid, b]) => Uint8Array.from([...utf8(a), ...mid, ...utf8(b)])),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const at = firstInvalidUtf8(b);
        expect(at === -1).toBe(valid(b));
        // Everything before the reported offset is valid: it is the first bad sequence.
        if (at !== -1) expect(valid(b.subarray(0, at))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("firstInvalidUtf8 on long, unaligned input (the 8-bytes-at-a-time ASCII path)", () => {
  test("agrees with the fatal TextDecoder wherever the bytes start in their buffer", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const valid = (b: Uint8Array) => {
      try {
        fatal.decode(b);
        return true;
      } catch {
        return false;
      }
    };
    // Full length (fast-check's default size stops at 10 characters): several 8-byte steps of the word loop.
    const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80, size: "max" });
    const bytes = fc
      .tuple(ascii, fc.uint8Array({ maxLength: 3 }), ascii, fc.constantFrom("", "é", "世界", "🚀"), ascii, fc.integer({ min: 0, max: 3 }))
      .map(([a, bad, b, wide, c, shift]) => {
        const body = Uint8Array.from([...utf8(a), ...bad, ...utf8(b + wide + c)]);
        const buffer = new Uint8Array(body.length + shift);
        buffer.set(body, shift);
        return buffer.subarray(shift);
      });
    fc.assert(
      fc.property(bytes, (b) => {
        const at = firstInvalidUtf8(b);
        expect(at === -1).toBe(valid(b));
        if (at !== -1) expect(valid(b.subarray(0, at))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("loadDocument", () => {
  test("lines, their own terminators and one hash per line from one hasher call", () => {
    const hasher = makeHasher();
    const doc = loadDocument(utf8('fn main() {\r\n    println!("Hello");\n}'), hasher);
    expect(hasher.calls).toBe(1);
    expect(doc).toMatchObject({
      ok: true,
      bom: false,
      lines: ["fn main() {", '    println!("Hello");', "}"],
      eols: ["\r\n", "\n", ""],
      hashes: Uint8Array.from([0x92, 0x08, 0x14]),
      starts: Uint32Array.from([0, 13, 36]),
    });
  });

  test("hashes follow the design's test vectors, multi-byte text included", () => {
    const lines = ["", "a", "foobar", "hello world", "trailing ", "    return 0;", "héllo 世界 🚀"];
    const doc = load(utf8(`${lines.join("\n")}\n`));
    expect(Array.from(doc.hashes)).toEqual([0xc5, 0xed, 0xb2, 0xc6, 0xdd, 0x55, 0xe7]);
  });

  test("the BOM is file metadata: line 1 hashes without it, byte offsets start after it", () => {
    const doc = load(withBom("alpha\nbeta\n"));
    expect(doc.bom).toBe(true);
    expect(doc.lines).toEqual(["alpha", "beta"]);
    expect(Array.from(doc.hashes)).toEqual([0x10, 0x0d]);
    expect(Array.from(doc.starts)).toEqual([0, 6]);
    expect(new TextDecoder().decode(doc.body)).toBe("alpha\nbeta\n");
  });

  test("a lone \\r is content and is hashed", () => {
    const doc = load(utf8("a\rb\nc\r"));
    expect(doc.lines).toEqual(["a\rb", "c\r"]);
    expect(Array.from(doc.hashes)).toEqual([lineHash("a\rb"), lineHash("c\r")]);
  });

  test("empty files have no lines", () => {
    expect(load(new Uint8Array()).lines).toEqual([]);
    expect(load(new Uint8Array(BOM))).toMatchObject({ ok: true, bom: true, lines: [], eols: [], hashes: new Uint8Array() });
  });

  test("not text: the decode failure is returned as is", () => {
    expect(loadDocument(Uint8Array.from([0x61, 0, 0x62]), makeHasher())).toEqual({
      ok: false,
      reason: "binary",
      detail: "NUL byte at offset 1 (within the first 8192 bytes)",
      offset: 1,
    });
  });

  test("a hasher whose line count disagrees is an internal error, not wrong ids", () => {
    const broken: LineHasher = {
      backend: "wasm",
      hashLines: () => ({ count: 1, hashes: new Uint8Array(1), starts: new Uint32Array(1), ends: new Uint32Array(1) }),
    };
    expect(() => loadDocument(utf8("a\nb\n"), broken)).toThrow("line hasher (wasm) counted 1 lines with 1 hashes, the text splits into 2");
    try {
      loadDocument(utf8("a\nb\n"), broken);
    } catch (e) {
      expect((e as { code?: string }).code).toBe("INTERNAL_ERROR");
    }
  });

  test('a hasher that keeps a CRLF\'s "\\r" in the content, or merges lines, is an internal error', () => {
    const crInContent: LineHasher = {
      backend: "wasm",
      hashLines: (bytes) => {
        const r = makeHasher().hashLines(bytes);
        return { ...r, ends: r.ends.map((e, _i) => (bytes[e] === 0x0d ? e + 1 : e)) };
      },
    };
    expect(() => loadDocument(utf8("a\r\nb\n"), crInContent)).toThrow("the text splits into 2");
    const merged: LineHasher = {
      backend: "js",
      hashLines: () => ({ count: 1, hashes: new Uint8Array(1), starts: new Uint32Array([0]), ends: new Uint32Array([2]) }),
    };
    expect(() => loadDocument(utf8("a\nb"), merged)).toThrow("the text splits into 2");
  });

  test("lines are split once, on first use, and agree with the offsets", () => {
    const doc = load(utf8("x\r\ny\n"));
    expect(doc.lines).toBe(doc.lines);
    expect(doc.lines).toEqual(["x", "y"]);
    expect(Array.from(doc.ends)).toEqual([1, 4]);
  });

  test("the document does not share the hasher's buffer", () => {
    const shared = new Uint8Array(8);
    const reusing: LineHasher = {
      backend: "wasm",
      hashLines(bytes) {
        const r = makeHasher().hashLines(bytes);
        shared.set(r.hashes);
        return { ...r, hashes: shared.subarray(0, r.count) };
      },
    };
    const doc = loadDocument(utf8("alpha\n"), reusing) as TextDocument;
    loadDocument(utf8("beta\n"), reusing);
    expect(Array.from(doc.hashes)).toEqual([0x10]);
  });
});

describe("encodeDocument", () => {
  test("re-adds the BOM and each line's own terminator", () => {
    const doc = load(withBom("a\r\nb\nc"));
    expect(Array.from(encodeDocument(doc))).toEqual(Array.from(withBom("a\r\nb\nc")));
    expect(new TextDecoder().decode(encodeDocument({ bom: false, lines: ["x", "y"], eols: ["\r\n", ""] }))).toBe("x\r\ny");
  });
});

describe("documentFromLines", () => {
  test("an edited document: the bytes to write and fresh hashes, one hasher call", () => {
    const doc = load(withBom("alpha\r\nbeta\r\n"));
    const hasher = makeHasher();
    const { doc: next, bytes } = documentFromLines(doc.bom, spliceLines(doc, 1, 1, ["gamma", "beta"]), hasher);
    expect(hasher.calls).toBe(1);
    expect(Array.from(bytes)).toEqual(Array.from(withBom("alpha\r\ngamma\r\nbeta\r\n")));
    expect(next.lines).toEqual(["alpha", "gamma", "beta"]);
    expect(Array.from(next.hashes)).toEqual([0x10, 0xe7, 0x0d]);
  });

  test("reads back what the bytes say even when given contents with terminators in them", () => {
    const { doc } = documentFromLines(false, { lines: ["a\nb", "c\r"], eols: ["\n", "\n"] }, makeHasher());
    expect(doc.lines).toEqual(["a", "b", "c"]);
    expect(doc.eols).toEqual(["\n", "\n", "\r\n"]);
    expect(doc.hashes.length).toBe(3);
  });
});

/** Text built from the pieces that break naive line handling. */
const trickyText = fc
  .array(
    fc.oneof(
      fc.constantFrom("\n", "\r\n", "\r", "\t", "  ", "\uFEFF", "é", "世界", "🚀", "👩‍👩‍👧", "a", "xyz", ""),
      fc.string({ unit: "grapheme", maxLength: 8 }),
    ),
    { maxLength: 40, size: "max" },
  )
  .map((parts) => parts.join(""));

describe("round trip properties", () => {
  test("bytes -> document -> bytes is byte-identical for valid UTF-8 (BOM or not, any line endings)", () => {
    fc.assert(
      fc.property(trickyText, fc.boolean(), (text, bom) => {
        const bytes = bom ? withBom(text) : utf8(text);
        const doc = load(bytes);
        // Text that itself starts with U+FEFF has a BOM too when there was none before.
        expect(doc.bom).toBe(bom || text.startsWith("\uFEFF"));
        expect(doc.hashes.length).toBe(doc.lines.length);
        expect(Array.from(encodeDocument(doc))).toEqual(Array.from(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  test("every line's hash is the hash of its content, as the view shows it (real JS hasher)", () => {
    fc.assert(
      fc.property(trickyText, (text) => {
        const doc = loadDocument(withBom(text), jsHasher) as TextDocument;
        expect(Array.from(doc.hashes)).toEqual(doc.lines.map(lineHash));
        expect(doc.lines).toEqual(splitLines(text).lines);
        // Each line's bytes start where the document says.
        const dec = new TextDecoder("utf-8", { ignoreBOM: true });
        doc.lines.forEach((line, i) => {
          expect(dec.decode(doc.body.subarray(doc.starts[i], doc.starts[i] + utf8(line).length))).toBe(line);
        });
      }),
      { numRuns: 1000 },
    );
  });

  test("random bytes: either refused with a reason, or round-tripped exactly", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const doc = loadDocument(bytes, makeHasher());
        if (doc.ok) expect(Array.from(encodeDocument(doc))).toEqual(Array.from(bytes));
        else expect(["binary", "invalid-utf8"]).toContain(doc.reason);
      }),
      { numRuns: 1000 },
    );
  });
});
