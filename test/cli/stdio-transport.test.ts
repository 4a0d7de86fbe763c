/**
 * The stdio transport of `toolwarden mcp` (src/cli/stdio-transport.ts):
 * lines however the bytes are cut, what it refuses and how it stops.
 */
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineStdioTransport, parseLine, StdioMessageTooLarge } from "../../src/cli/stdio-transport.ts";

function open(limit?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineStdioTransport(input, output, limit);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (m) => void messages.push(m);
  transport.onerror = (e) => void errors.push(e);
  transport.onclose = () => void closed++;
  return { input, output, transport, messages, errors, closed: () => closed };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const encode = (s: string) => new TextEncoder().encode(s);

describe("LineStdioTransport", () => {
  test("one message per line, whatever the chunks: split lines, several in one chunk, CRLF, blank lines", async () => {
    const t = open();
    await t.transport.start();
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: { path: "é😀.txt" } } });
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const bytes = encode(`${call}\r\n\n${ping}\n  \n`);
    // Cut inside the multi-byte characters too: a line is decoded whole.
    const cut = bytes.indexOf(0xf0) + 2;
    t.input.write(bytes.subarray(0, cut));
    t.input.write(bytes.subarray(cut, cut + 1));
    t.input.write(bytes.subarray(cut + 1));
    await flush();
    expect(t.messages).toEqual([JSON.parse(call), JSON.parse(ping)]);
    expect(t.errors).toEqual([]);
  });

  test("a line that is not JSON or not JSON-RPC is an error, and the lines after it are still read", async () => {
    const t = open();
    await t.transport.start();
    t.input.write('{"cut": \n[1,2]\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await flush();
    expect(t.errors).toHaveLength(2);
    // A request the server will refuse is still a message: the server answers it with the SDK's error.
    expect(t.messages).toEqual([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } },
      { jsonrpc: "2.0", id: 3, method: "ping" },
    ] as never);
    expect(t.closed()).toBe(0);
  });

  test("a message over the limit stops the transport with an error that says what to do; one at the limit is read", async () => {
    const line = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(60) } });
    const fits = open(line.length);
    await fits.transport.start();
    fits.input.write(line.slice(0, 10));
    fits.input.write(`${line.slice(10)}\n`);
    await flush();
    expect(fits.messages).toHaveLength(1);

    const over = open(line.length - 1);
    await over.transport.start();
    over.input.write(line.slice(0, 10));
    over.input.write(`${line.slice(10)}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await flush();
    expect(over.messages).toEqual([]);
    expect(over.errors[0]).toBeInstanceOf(StdioMessageTooLarge);
    expect(over.errors[0]!.message).toContain("send large files in parts");
    expect(over.closed()).toBe(1);

    // No newline at all: stopped as soon as the bytes held pass the limit.
    const endless = open(100);
    await endless.transport.start();
    endless.input.write("x".repeat(60));
    await flush();
    expect(endless.closed()).toBe(0);
    endless.input.write("x".repeat(60));
    await flush();
    expect(endless.closed()).toBe(1);
  });

  test("send writes one line per message", async () => {
    const t = open();
    const chunks: string[] = [];
    t.output.on("data", (c: Buffer) => chunks.push(c.toString()));
    await t.transport.send({ jsonrpc: "2.0", id: 1, result: { text: "a\nb" } });
    await flush();
    expect(chunks.join("")).toBe('{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n');
  });

  test("parseLine: a plain tools/call as it came, anything else through the SDK's schema", () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: { path: "a" } } };
    expect(parseLine(JSON.stringify(call))).toEqual(call as never);
    expect(() => parseLine('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"v"},"x":1}')).toThrow();
    expect(() => parseLine("nope")).toThrow();
  });
});
