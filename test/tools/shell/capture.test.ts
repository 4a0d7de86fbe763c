import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { HeadTailBuffer } from "../../../src/tools/shell/capture.ts";

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

describe("HeadTailBuffer", () => {
  test("keeps exactly the first head and last tail bytes of any chunked stream", () => {
    fc.assert(
      // Full length: fast-check's default size stops at 10 chunks of 10 bytes, mostly under head + tail.
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 50, size: "max" }), { maxLength: 30, size: "max" }),
        fc.nat(80),
        fc.nat(80),
        (chunks, headLimit, tailLimit) => {
          const buffer = new HeadTailBuffer(headLimit, tailLimit);
          for (const c of chunks) buffer.push(c);
          const all = concat(chunks);
          const { bytes, cut } = buffer.result();
          expect(buffer.totalBytes).toBe(all.length);
          if (all.length <= headLimit + tailLimit) {
            expect(cut).toBeNull();
            expect(bytes).toEqual(all);
            return;
          }
          expect(cut).toEqual({ at: headLimit, omittedBytes: all.length - headLimit - tailLimit });
          expect(bytes.subarray(0, headLimit)).toEqual(all.subarray(0, headLimit));
          expect(bytes.subarray(headLimit)).toEqual(all.subarray(all.length - tailLimit));
        },
      ),
      { numRuns: 500 },
    );
  });

  test("copies chunks, so a reused chunk does not change what was kept", () => {
    const buffer = new HeadTailBuffer(2, 2);
    const chunk = new Uint8Array([1, 2, 3]);
    buffer.push(chunk);
    chunk.fill(9);
    expect([...buffer.result().bytes]).toEqual([1, 2, 3]);
  });
});
