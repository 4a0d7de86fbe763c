/**
 * Where a local server keeps each workspace's audit log and history: a
 * state directory outside every workspace (`--state DIR`, else
 * `$TOOLWARDEN_STATE`, else `$XDG_STATE_HOME/toolwarden`, else
 * `~/.local/state/toolwarden`), one folder per workspace named by a hash of
 * its real path, with a `workspace.json` saying which directory it is.
 */
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { setImmediate } from "node:timers";
import { join, resolve, sep } from "node:path";
import { objectEntryLog } from "../history/entry-log.ts";
import { segmentEntryLog } from "../history/segment-log.ts";
import { createStateDirStorage, sha256Sync } from "../history/state-dir.ts";
import { createStorageHistory, type DeferringHistory, deferRecording, type HistoryStore } from "../history/mod.ts";
import { StartupError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import type { Workspace } from "./workspaces.ts";

/** The state directory for `flag` (the `--state` value) and the environment. */
export function stateDirectory(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  if (flag) return resolve(cwd, flag);
  if (env.TOOLWARDEN_STATE) return resolve(cwd, env.TOOLWARDEN_STATE);
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "toolwarden");
  return join(env.HOME || homedir(), ".local", "state", "toolwarden");
}

/** The folder of one workspace (by its real path) inside the state directory. */
export function workspaceStateDir(stateDir: string, realRoot: string): string {
  return join(stateDir, "workspaces", createHash("sha256").update(realRoot).digest("hex").slice(0, 16));
}

/** Open the history of the workspace at `realRoot`; the state directory must lie outside it. */
export async function openHistory(stateDir: string, realRoot: string): Promise<HistoryStore> {
  if (stateDir === realRoot || stateDir.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) {
    throw new StartupError(`the state directory ${stateDir} is inside the workspace ${realRoot}: give --state a directory outside it`);
  }
  const dir = workspaceStateDir(stateDir, realRoot);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "workspace.json"), `${JSON.stringify({ root: realRoot })}\n`);
  } catch (error) {
    throw new StartupError(`cannot use the state directory ${stateDir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const storage = createStateDirStorage(dir);
  // Entries are appended to segment files (audit-log/); those of the old layout (audit/<id>.json) are still read.
  return createStorageHistory(storage, { entries: segmentEntryLog(join(dir, "audit-log"), objectEntryLog(storage)), sha256: sha256Sync });
}

/**
 * Each workspace's history, unless `--no-history`: a directory's in the
 * state directory; an object store's under its reserved prefix in the bucket
 * (so every instance on it shares one); a memory sandbox's in memory.
 */
export async function openHistories(
  flags: Readonly<Record<string, unknown>>,
  io: CliIO,
  workspaces: ReadonlyMap<string, Workspace>,
): Promise<Map<string, HistoryStore> | undefined> {
  if (flags["no-history"] === true) return undefined;
  const stateDir = stateDirectory(flags.state as string | undefined, io.env, io.cwd);
  const histories = new Map<string, HistoryStore>();
  for (const [key, workspace] of workspaces) {
    if (workspace.localRoot !== undefined) histories.set(key, await openHistory(stateDir, workspace.localRoot));
    else if (workspace.history) histories.set(key, createStorageHistory(workspace.history));
  }
  return histories;
}

/**
 * Each workspace's history (see {@link openHistories}), recorded after the
 * reply (see src/history/deferred.ts): for a process that outlives its
 * replies (`serve`, stdio `mcp`), whose shutdown waits for what is queued.
 */
export async function openDeferredHistories(
  flags: Readonly<Record<string, unknown>>,
  io: CliIO,
  workspaces: ReadonlyMap<string, Workspace>,
  onError: (error: unknown) => void,
): Promise<Map<string, DeferringHistory> | undefined> {
  const opened = await openHistories(flags, io, workspaces);
  if (!opened) return undefined;
  // node:timers' setImmediate: Deno has no global one, and setTimeout(0) waits 2 ms there.
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return new Map([...opened].map(([key, history]) => [key, deferRecording(history, { onError, nextTurn })]));
}
