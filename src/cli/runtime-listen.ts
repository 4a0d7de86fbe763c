/** Hono's way to listen on whichever runtime runs the command: `Bun.serve`, `Deno.serve`, or `@hono/node-server` on Node. */
import { bunListen } from "./bun-listen.ts";
import { denoListen } from "./deno-listen.ts";
import type { Listen } from "./io.ts";

/** The runtime this process runs on. */
export function currentRuntime(): "bun" | "deno" | "node" {
  const global = globalThis as { Bun?: unknown; Deno?: unknown };
  if (global.Bun !== undefined) return "bun";
  if (global.Deno !== undefined) return "deno";
  return "node";
}

/** {@link Listen} for the current runtime. */
export const runtimeListen: Listen = async (handler, options) => {
  switch (currentRuntime()) {
    case "bun":
      return bunListen(handler, options);
    case "deno":
      return denoListen(handler, options);
    case "node": {
      const { nodeListen } = await import("./node-listen.ts");
      return nodeListen(handler, options);
    }
  }
};
