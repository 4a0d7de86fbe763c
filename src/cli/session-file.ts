/**
 * The observation session of `toolwarden call`, kept in a JSON file so a
 * `view` in one process counts for an `edit` in the next. One file may hold
 * the sessions of several roots:
 *
 *   { "toolwarden": "session", "version": 1,
 *     "roots": { "/abs/root": { "src/a.ts": { "kind": "present", "version": "..." } } } }
 *
 * Saving re-reads the file and applies only what this process changed, then
 * replaces it atomically (temp file + rename), so two calls that overlap
 * lose neither's observations of different paths.
 */
import { randomUUID } from "node:crypto";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import type { Observation, ObservationStore } from "../policy/types.ts";
import { StartupError } from "./errors.ts";

/** Environment variable naming the session file when `--session-file` is not given. */
export const SESSION_FILE_ENV = "TOOLWARDEN_SESSION_FILE";

type RootMap = Record<string, Observation>;

interface SessionFileData {
  toolwarden: "session";
  version: 1;
  roots: Record<string, RootMap>;
}

/** A session file opened for one root. */
export interface SessionFile {
  /** The observations of this root (the `session` argument is ignored: one session per process). */
  readonly store: ObservationStore;
  /** Write this process's changes back. */
  save(): Promise<void>;
}

function isObservation(value: unknown): value is Observation {
  const o = value as { kind?: unknown; version?: unknown } | null;
  if (o === null || typeof o !== "object") return false;
  return o.kind === "absent" || (o.kind === "present" && typeof o.version === "string" && o.version !== "");
}

/** Parse a session file's text; throws a one-line StartupError when it is not one. */
export function parseSessionFile(text: string, path: string): SessionFileData {
  const bad = (why: string) => new StartupError(`${path}: not a toolwarden session file (${why}); delete it or pass another --session-file`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  const data = raw as Partial<SessionFileData> | null;
  if (data === null || typeof data !== "object" || data.toolwarden !== "session") throw bad('no "toolwarden": "session" marker');
  if (data.version !== 1) throw bad(`unknown version ${JSON.stringify(data.version)}`);
  const roots: Record<string, RootMap> = {};
  for (const [root, paths] of Object.entries(data.roots ?? {})) {
    if (paths === null || typeof paths !== "object") throw bad(`root ${root} is not an object`);
    roots[root] = {};
    // An entry this version does not understand is dropped: it only costs one more view.
    for (const [path, observation] of Object.entries(paths)) if (isObservation(observation)) roots[root][path] = observation;
  }
  return { toolwarden: "session", version: 1, roots };
}

async function readData(path: string): Promise<SessionFileData> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return { toolwarden: "session", version: 1, roots: {} };
    throw new StartupError(`${path}: cannot read the session file (${String((error as { code?: unknown }).code ?? error)})`);
  }
  return parseSessionFile(text, path);
}

/** Open (or start) the session file at `path` for the workspace at real path `root`. */
export async function openSessionFile(path: string, root: string): Promise<SessionFile> {
  const current = new Map(Object.entries((await readData(path)).roots[root] ?? {}));
  // path -> new observation, or null for forgotten.
  const changes = new Map<string, Observation | null>();
  const store: ObservationStore = {
    get: (_session, p) => Promise.resolve(current.get(p)),
    set(_session, p, observation) {
      current.set(p, observation);
      changes.set(p, observation);
      return Promise.resolve();
    },
    forget(_session, p) {
      current.delete(p);
      changes.set(p, null);
      return Promise.resolve();
    },
  };
  return {
    store,
    async save() {
      if (changes.size === 0) return;
      const data = await readData(path);
      const paths = (data.roots[root] ??= {});
      for (const [p, observation] of changes) {
        if (observation === null) delete paths[p];
        else paths[p] = observation;
      }
      const temp = `${path}.${randomUUID()}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify(data, null, 1)}\n`, { mode: 0o600 });
        await rename(temp, path);
      } catch (error) {
        await unlink(temp).catch(() => {});
        throw new StartupError(`${path}: cannot save the session file (${String((error as { code?: unknown }).code ?? error)})`, 1);
      }
    },
  };
}
