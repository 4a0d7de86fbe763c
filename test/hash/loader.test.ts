import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHasher, jsHasher, loadWasmHasher } from "../../src/hash/mod.ts";
import { readWasmBytes } from "../../src/hash/wasm-file.ts";
import { hashLineColumns } from "../../src/text/document.ts";
import { oracle, plain } from "../helpers/hash.ts";

const encoder = new TextEncoder();
const wasmBytes = await readWasmBytes();

function manyLines(count: number, width: number): Uint8Array {
  const lines = Array.from({ length: count }, (_, i) => `${i}:${"z".repeat(i % width)}`);
  return encoder.encode(lines.join("\n"));
}

describe("loadWasmHasher", () => {
  test("accepts raw bytes and a precompiled WebAssembly.Module", async () => {
    const bytes = encoder.encode("alpha\r\nbeta\ngamma");
    const fromBytes = await loadWasmHasher(wasmBytes);
    const fromModule = await loadWasmHasher(await WebAssembly.compile(wasmBytes));
    expect(fromBytes.backend).toBe("wasm");
    expect(plain(fromBytes.hashLines(bytes))).toEqual(oracle(bytes));
    expect(plain(fromModule.hashLines(bytes))).toEqual(oracle(bytes));
  });

  test("rejects bytes that are not the hasher module", async () => {
    await expect(loadWasmHasher(new Uint8Array([1, 2, 3]))).rejects.toThrow();
    // a valid but empty module: compiles, lacks the exports
    const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    await expect(loadWasmHasher(empty)).rejects.toThrow(/lacks export/);
  });

  test("a larger call after a smaller one grows memory and stays correct", async () => {
    const hasher = await loadWasmHasher(wasmBytes, { jsBelow: 0 });
    for (const bytes of [manyLines(3, 5), manyLines(5_000, 80), manyLines(200_000, 100)]) {
      expect(plain(hasher.hashLines(bytes))).toEqual(oracle(bytes));
    }
  });

  test("a smaller call after a larger one returns only its own lines, and the larger one again is whole", async () => {
    const hasher = await loadWasmHasher(wasmBytes, { jsBelow: 0 });
    const big = manyLines(50_000, 60);
    const bigSnapshot = plain(hasher.hashLines(big));
    expect(bigSnapshot).toEqual(oracle(big));
    for (const small of [encoder.encode("one\ntwo"), encoder.encode(""), encoder.encode("\n"), manyLines(700, 9)]) {
      expect(plain(hasher.hashLines(small))).toEqual(oracle(small));
    }
    expect(plain(hasher.hashLines(big))).toEqual(bigSnapshot);
  });

  test("documents hashed one after another keep their own columns (results are reused memory, documents copy)", async () => {
    const hasher = await loadWasmHasher(wasmBytes, { jsBelow: 0 });
    const texts = [manyLines(5_000, 80), manyLines(200_000, 100), manyLines(3, 5)];
    const docs = texts.map((bytes) => hashLineColumns(bytes, hasher));
    docs.forEach((doc, i) => {
      const want = oracle(texts[i]);
      expect([...doc.hashes]).toEqual(want.hashes);
      expect([...doc.starts]).toEqual(want.starts);
      expect([...doc.ends]).toEqual(want.ends);
    });
  });

  test("a buffer that is a view into a larger ArrayBuffer hashes only the view", async () => {
    const hasher = await loadWasmHasher(wasmBytes, { jsBelow: 0 });
    const backing = encoder.encode("skip\nkeep me\r\nand me\nskip too");
    const view = backing.subarray(5, 21);
    expect(plain(hasher.hashLines(view))).toEqual(oracle(view));
    expect(hasher.hashLines(view).count).toBe(2);
  });
});

describe("hashing in pieces (inputs over twice pieceBytes)", () => {
  const contents = fc.oneof(fc.constantFrom("", "\r", "a", "é世🚀", "x".repeat(70)), fc.string({ unit: "grapheme", maxLength: 12 }));
  const endings = fc.constantFrom("\n", "\r\n", "");

  test("offsets, hashes and count equal the whole-input result for any cut (CRLF at a cut, lines longer than a piece, no final newline)", async () => {
    const hashers = new Map<number, Awaited<ReturnType<typeof loadWasmHasher>>>();
    for (const size of [1, 2, 3, 7, 16, 64]) hashers.set(size, await loadWasmHasher(wasmBytes, { jsBelow: 0, pieceBytes: size }));
    fc.assert(
      fc.property(fc.array(fc.tuple(contents, endings), { maxLength: 40, size: "max" }), fc.constantFrom(1, 2, 3, 7, 16, 64), (lines, size) => {
        const bytes = encoder.encode(lines.map(([c, e]) => c + e).join(""));
        expect(plain(hashers.get(size)!.hashLines(bytes))).toEqual(oracle(bytes));
      }),
      { numRuns: 600 },
    );
  });

  test("a large file in pieces, then a small one whole, then the large one again", async () => {
    const hasher = await loadWasmHasher(wasmBytes, { jsBelow: 0, pieceBytes: 4096 });
    const big = manyLines(30_000, 90);
    const small = manyLines(40, 7);
    expect(plain(hasher.hashLines(big))).toEqual(oracle(big));
    expect(plain(hasher.hashLines(small))).toEqual(oracle(small));
    expect(plain(hasher.hashLines(big))).toEqual(oracle(big));
  });
});

describe("createHasher", () => {
  test("auto and wasm use the module when it loads", async () => {
    expect((await createHasher({ wasm: wasmBytes })).backend).toBe("wasm");
    expect((await createHasher({ wasm: wasmBytes, prefer: "wasm" })).backend).toBe("wasm");
    expect((await createHasher({ wasm: await WebAssembly.compile(wasmBytes), prefer: "auto" })).backend).toBe("wasm");
  });

  test("prefer js, or no module given, is the JS hasher", async () => {
    expect(await createHasher({ wasm: wasmBytes, prefer: "js" })).toBe(jsHasher);
    expect(await createHasher()).toBe(jsHasher);
  });

  test("falls back to the JS hasher when the module fails to load", async () => {
    expect(await createHasher({ wasm: new Uint8Array([0, 1, 2]) })).toBe(jsHasher);
    expect(await createHasher({ wasm: new Uint8Array([0, 1, 2]), prefer: "wasm" })).toBe(jsHasher);
  });
});
