/** The `toolwarden` command: dispatch to a subcommand and turn failures into a line and an exit code. */
import { ConfigError } from "../config/mod.ts";
import { UsageError } from "./args.ts";
import { runCall } from "./call.ts";
import { StartupError } from "./errors.ts";
import type { CliIO, Listen } from "./io.ts";
import { runMcp } from "./mcp.ts";
import { runToken } from "./mint.ts";
import { runServe } from "./serve.ts";
import { runLog } from "./log-command.ts";
import { CALL_USAGE, LOG_USAGE, MAIN_USAGE, MCP_USAGE, SERVE_USAGE, TOKEN_USAGE } from "./usage.ts";
import { readVersion } from "./version.ts";

/**
 * Run the command line `argv` (without the program name). Resolves with
 * the exit code: 0 ok, 1 a tool error or a runtime failure, 2 bad usage or
 * a refused configuration. `listen` serves HTTP on the current runtime.
 */
export async function main(argv: readonly string[], io: CliIO, listen: Listen): Promise<number> {
  const [command, ...rest] = argv;
  let usage = MAIN_USAGE;
  try {
    switch (command) {
      case undefined:
        io.err(MAIN_USAGE);
        return 2;
      case "-h":
      case "--help":
      case "help":
        io.out(MAIN_USAGE);
        return 0;
      case "--version":
        io.out(`${await readVersion()}\n`);
        return 0;
      case "serve":
        usage = SERVE_USAGE;
        return await runServe(rest, io, listen);
      case "mcp":
        usage = MCP_USAGE;
        return await runMcp(rest, io);
      case "log":
        usage = LOG_USAGE;
        return await runLog(rest, io);
      case "call":
        usage = CALL_USAGE;
        return await runCall(rest, io);
      case "token":
        usage = TOKEN_USAGE;
        return await runToken(rest, io);
      default:
        throw new UsageError(
          command.startsWith("-") ? `unknown option ${command} (options go after the command)` : `unknown command ${JSON.stringify(command)}`,
        );
    }
  } catch (error) {
    return report(error, usage, io);
  }
}

/** One line on stderr (plus the usage for a usage error); the exit code. */
export function report(error: unknown, usage: string, io: CliIO): number {
  if (error instanceof UsageError) {
    io.err(`toolwarden: ${error.message}\n\n${usage}`);
    return 2;
  }
  if (error instanceof StartupError) {
    io.err(`toolwarden: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    io.err(`toolwarden: ${error.message}\n`);
    return 2;
  }
  io.err(`toolwarden: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}
