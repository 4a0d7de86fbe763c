/**
 * What the commands need from the process, as one object, so each runtime
 * (Bun, Deno) and each test can supply its own.
 */
import process from "node:process";

/** The process around a command. */
export interface CliIO {
  /** Write to stdout. */
  out(text: string): void;
  /** Write to stderr. */
  err(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Call `handler` on SIGINT or SIGTERM; returns the unsubscriber. */
  onStopSignal(handler: (signal: string) => void): () => void;
  /** All of stdin as text. */
  readStdin(): Promise<string>;
  /** Resolves once stdout and stderr have handed everything written to the OS. */
  flush(): Promise<void>;
}

/** A running HTTP listener. */
export interface HttpListener {
  /** The bound port (the chosen one when 0 was asked for). */
  readonly port: number;
  /** Stop accepting connections; resolves when the open ones have closed. */
  close(): Promise<void>;
}

/** Where and how to listen. */
export interface ListenOptions {
  readonly hostname: string;
  readonly port: number;
  /**
   * Longest a request may take in ms (0: unbounded), so a runtime with an
   * idle timeout of its own does not cut off a long tool call.
   */
  readonly requestTimeoutMs: number;
  /**
   * Largest request body the runtime lets through, in bytes, when the
   * server's own limits need more than its default (Bun's is 128 MiB, and
   * it answers past it with an empty 413): each route enforces its own
   * limit below this, with a JSON error that names it.
   */
  readonly maxRequestBodyBytes?: number;
}

/** A runtime's way to serve a fetch handler. Rejects with a StartupError when it cannot bind. */
export type Listen = (handler: (request: Request) => Promise<Response>, options: ListenOptions) => Promise<HttpListener>;

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

function written(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

/** The real process, through `node:process` (Bun and Deno both provide it). */
export function processIO(): CliIO {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    onStopSignal(handler) {
      const listeners = STOP_SIGNALS.map((signal) => {
        const listener = () => handler(signal);
        process.on(signal, listener);
        return [signal, listener] as const;
      });
      return () => {
        for (const [signal, listener] of listeners) process.off(signal, listener);
      };
    },
    async readStdin() {
      const chunks: Uint8Array[] = [];
      for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
      return new TextDecoder().decode(concat(chunks));
    },
    async flush() {
      await Promise.all([written(process.stdout), written(process.stderr)]);
    },
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
