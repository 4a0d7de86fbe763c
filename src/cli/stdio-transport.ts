/**
 * MCP over stdio, server side: one JSON-RPC message per line in, one per
 * line out. In place of the SDK's StdioServerTransport for two reasons:
 * its buffer concatenates every chunk onto what it holds (a 10 MB message
 * in 64 KB chunks copies ~800 MB), and it parses every message with the
 * SDK's zod schema, which a plain tools/call (taken past the SDK, see
 * src/http/mcp-direct-call.ts) does not need. Every other message is parsed
 * with that same schema, so what the SDK refused is refused the same way.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
import { plainToolCall } from "../http/mcp-direct-call.ts";

/** The SDK transport's limit on one message (its default), kept. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A message over the limit: the transport stops reading, as the SDK's does. */
export class StdioMessageTooLarge extends Error {
  constructor(readonly limit: number) {
    super(
      `the client sent a message over ${limit} bytes (or no newline within that many bytes); stdio messages are one JSON line each, at most that size, so send large files in parts`,
    );
  }
}

/** The message of one line (without its newline), or the error parsing it. */
export function parseLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return plainToolCall(value) ?? JSONRPCMessageSchema.parse(value);
}

const NEWLINE = 10;

/** A Transport over a readable and a writable byte stream (the process's stdin and stdout). */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The bytes of the line being read, in the chunks they came in. */
  private parts: Uint8Array[] = [];
  private held = 0;
  private started = false;
  private closed = false;
  private readonly decoder = new TextDecoder();
  /** Messages written but not yet handed to the system, and who waits for that. */
  private writing = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly limit = MAX_STDIO_MESSAGE_BYTES,
  ) {}

  private readonly ondata = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    let from = 0;
    for (let nl = bytes.indexOf(NEWLINE); nl !== -1 && !this.closed; nl = bytes.indexOf(NEWLINE, from)) {
      if (this.held + nl - from > this.limit) return this.overflow();
      const line = this.takeLine(bytes.subarray(from, nl));
      from = nl + 1;
      this.deliver(line);
    }
    if (this.closed || from === bytes.length) return;
    this.held += bytes.length - from;
    if (this.held > this.limit) return this.overflow();
    // A copy: the stream may reuse the chunk's memory.
    this.parts.push(bytes.slice(from));
  };

  private readonly onerrorEvent = (error: Error) => this.onerror?.(error);

  private takeLine(tail: Uint8Array): string {
    if (this.parts.length === 0) return this.decoder.decode(tail);
    const whole = new Uint8Array(this.held + tail.length);
    let at = 0;
    for (const part of this.parts) {
      whole.set(part, at);
      at += part.length;
    }
    whole.set(tail, at);
    this.parts = [];
    this.held = 0;
    return this.decoder.decode(whole);
  }

  private deliver(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseLine(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  private overflow(): void {
    this.parts = [];
    this.held = 0;
    this.onerror?.(new StdioMessageTooLarge(this.limit));
    void this.close();
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("LineStdioTransport already started");
    this.started = true;
    this.input.on("data", this.ondata);
    this.input.on("error", this.onerrorEvent);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.ondata);
    this.input.off("error", this.onerrorEvent);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.parts = [];
    this.held = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.writing++;
    return new Promise((resolve) => {
      const written = () => {
        if (--this.writing === 0) for (const waiter of this.waiters.splice(0)) waiter();
      };
      if (this.output.write(`${JSON.stringify(message)}\n`, written)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  /** Resolves once every message sent so far has been handed to the system (an exit before it would lose them). */
  flushed(): Promise<void> {
    return this.writing === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
