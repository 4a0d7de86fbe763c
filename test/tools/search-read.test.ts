/** The pure parts of a directory search's reads: how a file's bytes are judged, and read-ahead accounting. */
import { describe, expect, test } from "bun:test";
import { createSearcher } from "../../src/tools/view/matcher.ts";
import { inFlightBytes, READ_AHEAD_BYTES } from "../../src/tools/view/read-ahead.ts";
import { judgeFile } from "../../src/tools/view/search-read.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const literal = (content: string, caseSensitive = true) => {
  const made = createSearcher({ content, regex: false, caseSensitive });
  if (!made.ok) throw new Error(made.message);
  return made.searcher;
};

describe("judgeFile", () => {
  test("in order: binary start, size limit, bytes pre-check, decoding, text pre-check", () => {
    let asked = 0;
    const version = () => {
      asked++;
      return "v1";
    };
    const needle = literal("needle");
    expect(judgeFile(new Uint8Array([0x6e, 0, 0x65]), version, needle, 100)).toEqual({ kind: "binary" });
    expect(judgeFile(new Uint8Array([0xff, 0xfe, 0x6e, 0]), version, needle, 100)).toEqual({ kind: "binary" });
    expect(judgeFile(enc("needle here"), version, needle, 5)).toEqual({ kind: "too-large", size: 11 });
    // Invalid UTF-8 goes unnoticed where the literal cannot be: the file is not decoded.
    expect(judgeFile(new Uint8Array([...enc("hay"), 0xc3, 0x28]), version, needle, 100)).toEqual({ kind: "no-match", size: 5 });
    expect(judgeFile(new Uint8Array([...enc("needle"), 0xc3, 0x28]), version, needle, 100)).toEqual({ kind: "not-text", size: 8 });
    expect(asked).toBe(0);
    expect(judgeFile(enc("a needle\r\nb\r\n"), version, needle, 100)).toEqual({ kind: "text", size: 13, text: "a needle\nb\n", version: "v1" });
    expect(asked).toBe(1);
  });

  test("a searcher the bytes cannot pre-check (ignoring case) is decided on the text", () => {
    const folded = literal("NEEDLE", false);
    expect(judgeFile(enc("hay"), () => "v", folded, 100)).toEqual({ kind: "no-match", size: 3 });
    expect(judgeFile(enc("Needle"), () => "v", folded, 100)).toMatchObject({ kind: "text", text: "Needle" });
  });
});

test("a read of unknown size (-1) takes the whole read-ahead window; a listed size counts as itself", () => {
  expect(inFlightBytes(-1)).toBe(READ_AHEAD_BYTES);
  expect(inFlightBytes(0)).toBe(0);
  expect(inFlightBytes(1234)).toBe(1234);
});
