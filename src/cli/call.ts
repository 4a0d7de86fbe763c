/**
 * `toolwarden call TOOL [JSON]`: one tool call in this process, through the
 * same pipeline and listeners as the server, printing exactly what the
 * model would read.
 */
import { dirname, resolve } from "node:path";
import { createMemoryObservationStore } from "../policy/memory.ts";
import type { ToolResult } from "../result.ts";
import type { ToolContext } from "../tools/types.ts";
import { parseArgs, UsageError, type FlagSpec } from "./args.ts";
import { readConfigFile } from "./config-file.ts";
import { StartupError } from "./errors.ts";
import { loadHasher } from "./hasher.ts";
import type { CliIO } from "./io.ts";
import { openSessionFile, SESSION_FILE_ENV } from "./session-file.ts";
import { localScopes, resolveToolSettings } from "./settings.ts";
import { buildPipeline, callTimeoutFor, toolLimits } from "./toolset.ts";
import { CALL_USAGE } from "./usage.ts";
import { openWorkspace } from "./workspaces.ts";

/** Flags of `call`. */
export const CALL_FLAGS: FlagSpec = {
  root: "string",
  "session-file": "string",
  "allow-shell": "boolean",
  config: "string",
};

/** The observation session key of every `call`. */
const SESSION = "cli";

/** What the model reads for a result: the content blocks, then the notices, one block per line group. */
export function modelText(result: ToolResult): string {
  return [...result.content.map((b) => b.text), ...(result.notices ?? []).map((n) => n.text)].join("\n");
}

/** Run `call` with `argv` (the words after `call`); resolves with the exit code. */
export async function runCall(argv: readonly string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, CALL_FLAGS);
  if (flags.help) {
    io.out(CALL_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('call needs a TOOL name, e.g. toolwarden call view \'{"path": "."}\'');
  if (positionals.length > 2) {
    throw new UsageError(`call takes TOOL and one JSON argument (got ${positionals.length} words; quote the JSON as one word)`);
  }
  const [tool, json = "{}"] = positionals;
  const args = parseJsonArgs(json === "-" ? await io.readStdin() : json);

  const config = flags.config === undefined ? undefined : await readConfigFile(flags.config as string);
  const configDir = flags.config === undefined ? io.cwd : dirname(resolve(io.cwd, flags.config as string));
  const settings = resolveToolSettings(flags, flags.root as string | undefined, config, io.cwd, configDir);
  const workspace = await openWorkspace(settings.root, { env: io.env, cwd: io.cwd, sweep: false });
  if (settings.shell.enabled && workspace.localRoot === undefined) {
    throw new StartupError(`the shell runs commands in a local directory; ${workspace.name} is ${workspace.kind} storage, so leave --allow-shell off`);
  }
  const sessionPath = (flags["session-file"] as string | undefined) ?? (io.env[SESSION_FILE_ENV] || undefined);
  const session = sessionPath === undefined ? undefined : await openSessionFile(sessionPath, workspace.name);
  const pipeline = buildPipeline(settings, workspace.localRoot ?? workspace.name, callTimeoutFor(settings));

  const ctx: ToolContext = {
    storage: workspace.storage,
    observations: session?.store ?? createMemoryObservationStore(),
    hasher: await loadHasher(),
    limits: toolLimits(settings.limits),
    caller: { session: SESSION, scopes: new Set(localScopes(settings.shell.enabled)) },
  };
  const result = await pipeline.call(tool, args, ctx);
  await session?.save();

  const text = modelText(result);
  io.out(text.endsWith("\n") || text === "" ? text : `${text}\n`);
  if (!result.isError) return 0;
  io.err(`code: ${result.code}\n`);
  if (result.code === "FS_NOT_OBSERVED" && session === undefined) {
    io.err(
      `hint: each \`toolwarden call\` starts a new session, so a view in an earlier call does not count. ` +
        `Pass --session-file FILE (or set ${SESSION_FILE_ENV}) to both calls to carry it over.\n`,
    );
  }
  return 1;
}

function parseJsonArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new UsageError(`the tool arguments are not valid JSON (${why}); pass one JSON object, e.g. '{"path": "a.txt"}'`);
  }
}
