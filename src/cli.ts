#!/usr/bin/env bun
/**
 * The `toolwarden` command: `serve`, `mcp`, `call`. Runs on Bun, Deno and
 * Node (the published package runs the build of this file, dist/cli.js, with
 * node); everything runtime-neutral lives in src/cli/, and the listening
 * picks the runtime's own server (src/cli/runtime-listen.ts).
 */
import process from "node:process";
import { processIO } from "./cli/io.ts";
import { main } from "./cli/main.ts";
import { runtimeListen } from "./cli/runtime-listen.ts";

const io = processIO();
const args = (globalThis as { Deno?: { args: readonly string[] } }).Deno?.args ?? process.argv.slice(2);
const code = await main(args, io, runtimeListen);
await io.flush();
process.exit(code);
