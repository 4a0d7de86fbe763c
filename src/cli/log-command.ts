/** `toolwarden log`: the recent changes of a local workspace, as a person reads them. */
import type { AuditEntry, FileChange } from "../history/mod.ts";
import { parseArgs, UsageError, type FlagSpec } from "./args.ts";
import type { CliIO } from "./io.ts";
import { openHistory, stateDirectory } from "./state.ts";
import { LOG_USAGE } from "./usage.ts";
import { realDirectory } from "./workspaces.ts";

const LOG_FLAGS: FlagSpec = { session: "string", path: "string", state: "string", limit: "string", all: "boolean" };

function short(version: string | undefined): string {
  return version === undefined ? "-" : version.length > 12 ? `${version.slice(0, 12)}…` : version;
}

function describeChange(change: FileChange): string {
  if (!change.before) return `created  ${change.path} (${change.after!.size} B)`;
  if (!change.after) return `deleted  ${change.path} (was ${change.before.size} B)`;
  return `changed  ${change.path}  ${change.before.size} -> ${change.after.size} B  (${short(change.before.version)} -> ${short(change.after.version)})`;
}

/** One entry as a few lines of text. */
export function formatEntry(entry: AuditEntry): string {
  const who = entry.session ? `${entry.principal} (session ${entry.session})` : entry.principal;
  const what = entry.tool === "revert" ? `revert of ${entry.reverts?.join(", ") ?? "?"}` : `${entry.tool} ${entry.paths.join(", ")}`;
  const lines = [`${entry.time}  ${what}  ${entry.code}  by ${who}  [change ${entry.id}]`];
  for (const change of entry.changes) lines.push(`    ${describeChange(change)}`);
  return lines.join("\n");
}

/** Run `log` with `argv` (the words after `log`). */
export async function runLog(argv: readonly string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, LOG_FLAGS);
  if (flags.help) {
    io.out(LOG_USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`log takes one workspace directory (got ${positionals.length})`);
  const limit = flags.limit === undefined ? 20 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number of entries (got ${String(flags.limit)})`);
  const root = await realDirectory(positionals[0] ?? io.cwd);
  const history = await openHistory(stateDirectory(flags.state as string | undefined, io.env, io.cwd), root);
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await history.query({
      changesOnly: flags.all !== true,
      ...(flags.session ? { session: flags.session as string } : {}),
      ...(flags.path ? { path: flags.path as string } : {}),
      ...(cursor ? { cursor } : {}),
      limit: 1000,
    });
    entries.push(...page.entries);
    cursor = page.cursor;
  } while (cursor);
  const shown = entries.slice(-limit);
  if (shown.length === 0) io.out(`No ${flags.all ? "calls" : "changes"} recorded for ${root}.\n`);
  for (const entry of shown) io.out(`${formatEntry(entry)}\n`);
  return 0;
}
