#!/usr/bin/env bun
/**
 * The `toolwarden` command on Bun: `toolwarden serve [DIR]`, `toolwarden call TOOL [JSON]`.
 * Everything runtime-neutral lives in src/cli/; only the listening is Bun's.
 */
import process from "node:process";
import { bunListen } from "./cli/bun-listen.ts";
import { processIO } from "./cli/io.ts";
import { main } from "./cli/main.ts";

const io = processIO();
const code = await main(process.argv.slice(2), io, bunListen);
await io.flush();
process.exit(code);
