import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FsError } from "../../src/storage/errors.ts";
import {
  baseName,
  childPath,
  escapeName,
  isPlainNormalized,
  MAX_SEGMENT_BYTES,
  normalizeFully,
  normalizeWorkspacePath,
  parentPath,
} from "../../src/storage/path.ts";

function refusal(input: string): string {
  try {
    normalizeWorkspacePath(input);
  } catch (error) {
    expect(error).toBeInstanceOf(FsError);
    expect((error as FsError).code).toBe("FS_INVALID_PATH");
    expect((error as FsError).path).toBe(input);
    return (error as FsError).message;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

/** Reference model: walk the segments, refuse the first climb above the root. */
function model(input: string): string | null {
  const stack: string[] = [];
  for (const segment of input.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (stack.length === 0) return null;
      stack.pop();
    } else stack.push(segment);
  }
  return stack.join("/");
}

describe("normalizeWorkspacePath", () => {
  const accepted: Array<[string, string]> = [
    ["", ""],
    [".", ""],
    ["/", ""],
    ["./", ""],
    ["//", ""],
    ["src/a.ts", "src/a.ts"],
    ["/src/a.ts", "src/a.ts"],
    ["///src//a.ts", "src/a.ts"],
    ["src/./a.ts", "src/a.ts"],
    ["src/a.ts/", "src/a.ts"],
    ["a/../b", "b"],
    ["a/b/../../c", "c"],
    ["a/..", ""],
    ["...", "..."],
    [".hidden", ".hidden"],
    ["a..b/..c", "a..b/..c"],
    ["%2e%2e/%2e%2e", "%2e%2e/%2e%2e"],
    ["\u2024\u2024/\uff0e\uff0e/a\u2215b", "\u2024\u2024/\uff0e\uff0e/a\u2215b"],
    ["caf\u00e9/cafe\u0301", "caf\u00e9/cafe\u0301"], // no Unicode normalisation: two distinct names
    ["emoji/🚀.txt", "emoji/🚀.txt"],
    ["a:b/c:", "a:b/c:"],
    ["name with spaces /x", "name with spaces /x"],
  ];
  for (const [input, expected] of accepted) {
    test(`accepts ${JSON.stringify(input)} as ${JSON.stringify(expected)}`, () => {
      expect(normalizeWorkspacePath(input)).toBe(expected);
    });
  }

  const refused: Array<[string, string]> = [
    ["..", "escapes the workspace root"],
    ["/../x", "escapes the workspace root"],
    ["a/../../a/b", "escapes the workspace root"],
    ["a/b/../../..", "escapes the workspace root"],
    ["a\\b", "backslash"],
    ["..\\..\\x", "backslash"],
    ["C:/x", "Windows drive"],
    ["/c:", "Windows drive"],
    ["a\u0000", "NUL or control"],
    ["a\u001fb", "NUL or control"],
    ["a\u007fb", "NUL or control"],
    ["\ud83d", "lone UTF-16 surrogate"],
    ["x".repeat(256), "segment longer than 255 bytes"],
    ["\u4e16".repeat(86), "segment longer than 255 bytes"], // 258 bytes in 86 characters
    [`${"a/".repeat(2048)}a`, "longer than 4096 bytes"],
  ];
  for (const [input, reason] of refused) {
    test(`refuses ${JSON.stringify(input.length > 30 ? `${input.slice(0, 30)}...` : input)}: ${reason}`, () => {
      expect(refusal(input)).toContain(reason);
    });
  }

  test("size limits are inclusive", () => {
    expect(normalizeWorkspacePath("x".repeat(255))).toBe("x".repeat(255));
    const longest = `${"a".repeat(255)}/`.repeat(16);
    expect(new TextEncoder().encode(longest).length).toBe(4096);
    expect(normalizeWorkspacePath(longest)).toBe(longest.slice(0, -1));
  });

  test("the shortcut for plain paths answers exactly as the full normalisation", () => {
    const piece = fc.constantFrom("a", "B", ".", "..", "...", "", " ", "x y", "C:", "c:", ":", "\\", "é", "\u0007", "\u202e", "~", "-", ".git", "%2e");
    const path = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join("/"));
    fc.assert(
      fc.property(fc.oneof(path, fc.string({ unit: "binary-ascii", maxLength: 30 })), (input) => {
        if (!isPlainNormalized(input)) return;
        expect(normalizeFully(input)).toBe(input);
      }),
      { numRuns: 5000 },
    );
    // Segment and path lengths on the limits.
    const long = "a".repeat(MAX_SEGMENT_BYTES);
    expect(isPlainNormalized(`${long}/${long}`)).toBe(true);
    expect(isPlainNormalized(`b/${long}a`)).toBe(false);
    expect(() => normalizeWorkspacePath(`b/${long}a`)).toThrow(FsError);
    expect(isPlainNormalized(Array(20).fill(long).join("/"))).toBe(false);
    for (const refused of ["C:/x", "a\\b", "/a", "a/", "a//b", "a/./b", "../a", "a\u0000"]) expect(isPlainNormalized(refused)).toBe(false);
    expect(isPlainNormalized("node_modules/.bin/x y.js")).toBe(true);
  });

  test("a non-string is refused", () => {
    expect(() => normalizeWorkspacePath(undefined as unknown as string)).toThrow(FsError);
  });

  test("agrees with a segment-walk model on dot-heavy paths", () => {
    const segment = fc.constantFrom("a", "b", "..", ".", "", "...", "\u2024\u2024", "\uff0e\uff0e", "%2e%2e", "é");
    const path = fc
      .tuple(fc.boolean(), fc.array(segment, { maxLength: 12 }), fc.boolean())
      .map(([lead, segments, trail]) => `${lead ? "/" : ""}${segments.join("/")}${trail ? "/" : ""}`);
    fc.assert(
      fc.property(path, (input) => {
        const expected = model(input);
        if (expected === null) expect(refusal(input)).toContain("escapes");
        else expect(normalizeWorkspacePath(input)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  test("any accepted result is canonical, inside the root and a fixed point", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 40 }), fc.string({ unit: "binary", maxLength: 20 }), (a, b) => {
        for (const input of [a, b, `${a}/${b}`, `${a}/../${b}`]) {
          let out: string;
          try {
            out = normalizeWorkspacePath(input);
          } catch (error) {
            expect((error as FsError).code).toBe("FS_INVALID_PATH");
            continue;
          }
          const segments = out === "" ? [] : out.split("/");
          for (const s of segments) expect(s === "" || s === "." || s === "..").toBe(false);
          expect(out.includes("\\")).toBe(false);
          expect(normalizeWorkspacePath(out)).toBe(out);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("path helpers", () => {
  test("parentPath, baseName and childPath", () => {
    expect(parentPath("a/b/c")).toBe("a/b");
    expect(parentPath("a")).toBe("");
    expect(parentPath("")).toBe("");
    expect(baseName("a/b/c")).toBe("c");
    expect(baseName("a")).toBe("a");
    expect(childPath("", "a")).toBe("a");
    expect(childPath("a/b", "c")).toBe("a/b/c");
  });
});

describe("characters that make a name pass for another", () => {
  test("C1 controls, U+2028/U+2029 and bidi overrides and isolates are refused", () => {
    const refused = [0x80, 0x85, 0x9f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const cp of refused) {
      const input = `src/a${String.fromCodePoint(cp)}b.ts`;
      expect({ cp: cp.toString(16), why: refusal(input) }).toEqual({
        cp: cp.toString(16),
        why: "invalid path: contains a C1 control, line separator or bidirectional override character",
      });
    }
  });

  test("their neighbours stay ordinary characters", () => {
    for (const cp of [0xa0, 0xe9, 0x2027, 0x202f, 0x2065, 0x206a, 0x200d]) {
      const input = `a${String.fromCodePoint(cp)}b`;
      expect(normalizeWorkspacePath(input)).toBe(input);
    }
  });

  test("escapeName writes each such character (and C0, DEL) as \\u{hex} and doubles backslashes", () => {
    expect(escapeName("evil\u202Etxt.js")).toBe("evil\\u{202e}txt.js");
    expect(escapeName("a\nb\u0085c\u2028d\u2069")).toBe("a\\u{a}b\\u{85}c\\u{2028}d\\u{2069}");
    expect(escapeName("back\\slash")).toBe("back\\\\slash");
    expect(escapeName("plain/é.ts")).toBe("plain/é.ts");
  });
});
