/**
 * The streaming JSON writer behind large REST bodies: its bytes are exactly
 * JSON.stringify's, and a large result over a real server parses to the same
 * object the stringified body would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { jsonPieces, jsonStream, SLICE } from "../../src/http/json-stream.ts";
import { ok } from "../../src/result.ts";
import type { ToolDef } from "../../src/tools/types.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

/** A long string with every kind of character JSON escapes or encodes specially, at and around slice edges. */
function hostileText(): string {
  const parts: string[] = [];
  for (let i = 0; i < Math.ceil((5000 * SLICE) / (64 * 1024)); i++) {
    parts.push(`${i}:ab|line "quoted" \\ back\tslash\r\n`, "\u0000\u0001\u001f\u007f", "héllo wörld — 世界 ", "😀", "\u2028\u2029");
    if (i % 7 === 0) parts.push("\ud800"); // lone high surrogate
    if (i % 11 === 0) parts.push("\udfff"); // lone low surrogate
  }
  let text = parts.join("");
  // Surrogate pairs and lone surrogates exactly on the slice edges.
  const pairAt = (s: string, at: number, piece: string) => s.slice(0, at) + piece + s.slice(at);
  text = pairAt(text, SLICE - 1, "😀");
  text = pairAt(text, 2 * SLICE - 1, "\ud83d");
  text = pairAt(text, 3 * SLICE, "\ude00x");
  return `${text}\ud83d`; // ends on a lone high surrogate
}

async function streamed(value: unknown): Promise<Uint8Array> {
  return new Uint8Array(await new Response(jsonStream(value)).arrayBuffer());
}

describe("jsonStream", () => {
  test("writes exactly the bytes of JSON.stringify, escapes, non-ASCII and lone surrogates included", async () => {
    const text = hostileText();
    expect(text.length).toBeGreaterThan(3 * SLICE);
    const values: unknown[] = [
      { isError: false, content: [{ type: "text", text }] },
      { isError: true, code: "FS_NOT_FOUND", content: [{ type: "text", text: 'short "one"\n' }] },
      [text, undefined, () => 1, null, 1.5, NaN, -0, true, { a: undefined, b: [] }],
      { nested: { deeper: [{ text: text.slice(5, SLICE * 2 + 3) }] }, when: new Date(0), skip: undefined },
      text,
      "",
      "😀".repeat(SLICE),
      `${"x".repeat(SLICE - 1)}😀${"y".repeat(SLICE)}`,
    ];
    for (const value of values) {
      const expected = new TextEncoder().encode(JSON.stringify(value));
      expect(Buffer.from(await streamed(value)).equals(Buffer.from(expected))).toBe(true);
      expect([...jsonPieces(value)].join("")).toBe(JSON.stringify(value));
    }
  });

  test("hands out the body in chunks, not as one piece", async () => {
    const reader = jsonStream({ content: [{ type: "text", text: "a\n".repeat(4 * SLICE) }] }).getReader();
    let chunks = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks++;
    expect(chunks).toBeGreaterThan(4);
  });
});

describe("large REST results", () => {
  const text = hostileText();
  const big: ToolDef = {
    name: "big",
    description: "Answers a large text.",
    scope: "read",
    annotations: { readOnlyHint: true },
    schema: v.strictObject({}),
    run: async () => ok(text),
  };
  let server: TestServer;
  beforeAll(() => {
    server = startServer({ tools: [big] });
  });
  afterAll(() => server.stop());

  test("a streamed body parses to the same object as the stringified one, with the same type and bytes", async () => {
    const response = await fetch(`${server.url}/v1/tools/big`, { method: "POST", headers: jsonHeaders(TOKENS.full), body: "{}" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const bytes = new Uint8Array(await response.arrayBuffer());
    const expected = JSON.stringify(ok(text));
    expect(Buffer.from(bytes).equals(Buffer.from(new TextEncoder().encode(expected)))).toBe(true);
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { content: [{ text: string }] };
    expect(parsed).toEqual(JSON.parse(expected));
    expect(parsed.content[0].text).toBe(text);
  });
});
