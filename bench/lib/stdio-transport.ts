/**
 * An MCP client transport over a child process's stdin/stdout for Bun, with
 * room for large messages. The SDK's StdioClientTransport is not usable
 * here: under Bun the child saw its stdin closed right after `initialize`,
 * and its read buffer refuses messages over 10 MB (a 10 MB file read as
 * text, sent twice as content and structuredContent, is a ~25 MB line) and
 * re-concatenates its buffer on every chunk. Messages are newline-delimited
 * JSON, as the SDK's own serializer writes them.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Spawn `command` and speak MCP over its stdio. */
export class BunStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ReturnType<typeof Bun.spawn> | undefined;
  private readonly decoder = new TextDecoder();

  constructor(private readonly command: readonly string[]) {}

  async start(): Promise<void> {
    const child = Bun.spawn([...this.command], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    this.child = child;
    void this.readLoop(child.stdout as ReadableStream<Uint8Array>);
  }

  private async readLoop(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const parts: Uint8Array[] = [];
    try {
      for await (const chunk of stdout) {
        let from = 0;
        for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
          parts.push(chunk.subarray(from, nl));
          const line = parts.length === 1 ? this.decoder.decode(parts[0]) : this.decoder.decode(Buffer.concat(parts));
          parts.length = 0;
          from = nl + 1;
          if (line.trim() !== "") this.onmessage?.(deserializeMessage(line));
        }
        // Kept as a copy: the runtime may reuse the chunk's memory.
        if (from < chunk.length) parts.push(chunk.slice(from));
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin as { write(s: string): unknown; flush(): unknown } | undefined;
    if (!stdin) throw new Error("not started");
    stdin.write(serializeMessage(message));
    await stdin.flush();
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    (child.stdin as { end(): unknown }).end();
    child.kill();
    await child.exited;
  }
}
