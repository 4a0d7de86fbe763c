import { describe, expect, test } from "bun:test";
import { formatHash, jsHasher, lineHash } from "../../src/hash/mod.ts";
import type { LineHasher } from "../../src/hash/types.ts";
import { committedWasmHasher, linesOf, oracle, plain } from "../helpers/hash.ts";

// DESIGN.md "Line ids": line -> hh
const VECTORS: [string, string][] = [
  ["", "c5"],
  ["a", "ed"],
  ["foobar", "b2"],
  ["hello world", "c6"],
  ["fn main() {", "92"],
  ['    println!("Hello");', "08"],
  ["}", "14"],
  ["alpha", "10"],
  ["beta", "0d"],
  ["gamma", "e7"],
  ["trailing ", "dd"],
  ["trailing", "a4"],
  ["    return 0;", "55"],
  ["return 0;", "69"],
  ["héllo 世界 🚀", "e7"],
];

const encode = (text: string) => new TextEncoder().encode(text);

test("DESIGN.md test vectors through lineHash", () => {
  for (const [line, hh] of VECTORS) expect([line, formatHash(lineHash(line))]).toEqual([line, hh]);
});

const hashers: [string, () => Promise<LineHasher>][] = [
  ["js", async () => jsHasher],
  ["wasm", committedWasmHasher],
];

for (const [name, make] of hashers) {
  describe(`${name} hasher`, () => {
    test("reports its backend", async () => {
      expect((await make()).backend).toBe(name as "js" | "wasm");
    });

    test("DESIGN.md test vectors, one file per line ending style", async () => {
      const hasher = await make();
      for (const eol of ["\n", "\r\n"]) {
        const text = VECTORS.map(([line]) => line).join(eol) + eol;
        const r = hasher.hashLines(encode(text));
        expect(r.count).toBe(VECTORS.length);
        expect([...r.hashes].map(formatHash)).toEqual(VECTORS.map(([, hh]) => hh));
      }
    });

    test("the DESIGN.md vectors in a file large enough for the multi-lane path", async () => {
      const hasher = await make();
      const lines = Array.from({ length: 2000 }, (_, i) => VECTORS[(i * 7) % VECTORS.length]);
      const bytes = encode(lines.map(([line]) => line).join("\r\n"));
      const r = hasher.hashLines(bytes);
      expect([...r.hashes].map(formatHash)).toEqual(lines.map(([, hh]) => hh));
    });

    const cases: [string, string[]][] = [
      ["", []],
      ["a\n", ["a"]],
      ["a", ["a"]],
      ["\n", [""]],
      ["\n\n", ["", ""]],
      ["a\r\nb", ["a", "b"]],
      ["\r\n", [""]],
      ["\r\n\r\n", ["", ""]],
      ["a\rb\n", ["a\rb"]],
      ["\r", ["\r"]],
      ["a\r", ["a\r"]],
      ["a\r\r\n", ["a\r"]],
      ["\n\ra", ["", "\ra"]],
      ["x\n\ny", ["x", "", "y"]],
      // fills the JS hasher's first guess of 16 lines exactly before the unterminated last line
      [`${"\n".repeat(16)}x`, [...Array(16).fill(""), "x"]],
    ];
    for (const [text, lines] of cases) {
      test(`splits ${JSON.stringify(text)} into ${JSON.stringify(lines)}`, async () => {
        const bytes = encode(text);
        const r = (await make()).hashLines(bytes);
        expect(linesOf(bytes, r)).toEqual(lines);
        expect([...r.hashes]).toEqual(lines.map(lineHash));
      });
    }

    test("a lone \\r is part of the line and changes its hash", async () => {
      const r = (await make()).hashLines(encode("a\rb\nab\n"));
      expect(r.hashes[0]).toBe(lineHash("a\rb"));
      expect(r.hashes[1]).toBe(lineHash("ab"));
      expect(lineHash("a\rb")).not.toBe(lineHash("ab"));
    });

    test("starts and ends are byte offsets (multi-byte UTF-8, CRLF, final line without newline)", async () => {
      const bytes = encode("é\r\n世界\n\n🚀");
      const r = (await make()).hashLines(bytes);
      expect(plain(r)).toEqual({
        count: 4,
        starts: [0, 4, 11, 12],
        ends: [2, 10, 11, 16],
        hashes: ["é", "世界", "", "🚀"].map(lineHash),
      });
    });

    test("CRLF everywhere, with \\r\\n pairs falling on lane and block boundaries", async () => {
      const hasher = await make();
      // short lines make some "\r" end a lane's shared steps and some "\n" open a snapshot block
      for (const size of [4096, 9000, 40_000, 100_000]) {
        let text = "";
        for (let i = 0; text.length < size; i++) text += "ab".slice(0, i % 3) + (i % 5 === 0 ? "\n" : "\r\n");
        const bytes = encode(text);
        expect(plain(hasher.hashLines(bytes))).toEqual(oracle(bytes));
      }
    });

    test("long lines that leave some of the 16 lanes idle or single-lane", async () => {
      const hasher = await make();
      const short = Array.from({ length: 4000 }, (_, i) => `${"ab".repeat(i % 13)}${i % 3 === 0 ? "\r" : ""}`).join("\n");
      // one long line per position: spans 1, 2, 5 or 11 sixteenths of the text
      for (const [at, width] of [
        [0.1, 1],
        [0.3, 2],
        [0.5, 5],
        [0.05, 11],
      ] as const) {
        const cut = Math.floor(short.length * at);
        const text = `${short.slice(0, cut)}\n${"L".repeat(Math.floor((short.length * width) / 16))}\r\n${short.slice(cut)}`;
        const bytes = encode(text);
        expect(plain(hasher.hashLines(bytes))).toEqual(oracle(bytes));
      }
    });

    test("one huge line among short ones", async () => {
      const bytes = encode(`a\nb\r\n${"x".repeat(200_000)}\r\nc\n`);
      const r = (await make()).hashLines(bytes);
      expect(plain(r)).toEqual(oracle(bytes));
      expect(r.count).toBe(4);
    });
  });
}
