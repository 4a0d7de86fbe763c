/**
 * Observation state on Cloudflare Workers: a Durable Object per observation
 * session, and an {@link ObservationStore} client that talks to it.
 *
 * Why one object per SESSION (not per workspace): a session's reads and
 * writes are the only ones that ever consult its observations (the policy
 * never looks across sessions), so nothing needs a workspace-wide view.
 * Per-session objects spread load over many objects instead of funnelling a
 * busy workspace through one single-threaded object, keep each object's
 * table small, and let an idle session's object delete itself. The session
 * key starts with its owner, the caller's principal id, then the workspace
 * (see src/policy/share.ts and `sessionKey` in src/http), so two tokens or two
 * workspaces never share an object: a session id sent with another token
 * names another, empty object.
 *
 * Shares on Workers: each session's object is bounded (`maxPathsPerSession`)
 * and expires when idle, and objects share no pool, so no token can push out
 * another's observations. A token's number of sessions is not capped here:
 * the state is Durable Object storage, not one process's memory.
 *
 * Isolates share no memory, so the object is what makes a `view` answered by
 * one isolate count for a `write` answered by another. State lives in the
 * object's SQLite storage, so it survives eviction and restarts; each session
 * keeps at most `maxPathsPerSession` paths (least recently recorded are
 * forgotten first) and is deleted entirely after `idleSeconds` without a
 * recorded observation. Forgetting only ever costs the model one extra `view`.
 *
 * The object speaks a tiny JSON protocol over `fetch` (no `cloudflare:`
 * import), so this module type-checks and loads on every runtime.
 */
import * as v from "valibot";
import { objectCaller, serveObjectRequest } from "./do-protocol.ts";
import { type HeldIds, isHeldIds } from "./held-ids.ts";
import { isOwnEdits } from "./own-edits.ts";
import type { Observation, ObservationStore, OwnEdits } from "./types.ts";

/** Default most paths remembered per session. */
export const DEFAULT_MAX_PATHS_PER_SESSION = 10_000;
/** Default idle time after which a session's object deletes its state: one day. */
export const DEFAULT_SESSION_IDLE_SECONDS = 24 * 60 * 60;

/** The bounds of one session's state. */
export interface ObservationLimits {
  readonly maxPathsPerSession: number;
  readonly idleSeconds: number;
}

/** The vars that tune {@link ObservationLimits} (all optional, decimal integers). */
export interface ObservationEnv {
  readonly TOOLWARDEN_MAX_PATHS_PER_SESSION?: string;
  readonly TOOLWARDEN_SESSION_IDLE_SECONDS?: string;
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Read the limits from the Worker's vars; throws naming the var when one is malformed. */
export function observationLimitsFromEnv(env: ObservationEnv): ObservationLimits {
  return {
    maxPathsPerSession: positiveInteger(env.TOOLWARDEN_MAX_PATHS_PER_SESSION, DEFAULT_MAX_PATHS_PER_SESSION, "TOOLWARDEN_MAX_PATHS_PER_SESSION"),
    idleSeconds: positiveInteger(env.TOOLWARDEN_SESSION_IDLE_SECONDS, DEFAULT_SESSION_IDLE_SECONDS, "TOOLWARDEN_SESSION_IDLE_SECONDS"),
  };
}

/** The slice of `SqlStorage` used here. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] };
}

/** The slice of `DurableObjectState` used here (the real one is assignable). */
export interface DurableObjectStateLike {
  readonly storage: {
    readonly sql: SqlStorageLike;
    setAlarm(scheduledTime: number): Promise<void>;
    deleteAll(): Promise<void>;
  };
}

/** The request the client sends to an object's `fetch`. */
export interface StubRequestInit {
  readonly method: "POST";
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The part of a stub's response the client reads. */
export interface StubResponse {
  readonly ok: boolean;
  readonly status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/**
 * The slice of `DurableObjectNamespace` the client uses. Plain shapes rather
 * than DOM `RequestInit`/`Response`, so the runtime's own namespace type (with
 * its own Request/Response) is assignable.
 */
export interface DurableObjectNamespaceLike<Id = unknown> {
  idFromName(name: string): Id;
  get(id: Id): { fetch(input: string, init: StubRequestInit): Promise<StubResponse> };
}

const ObservationSchema = v.variant("kind", [
  v.strictObject({
    kind: v.literal("present"),
    version: v.pipe(v.string(), v.minLength(1)),
    seen: v.optional(v.array(v.tuple([v.pipe(v.number(), v.integer()), v.pipe(v.number(), v.integer())]))),
    own: v.optional(v.custom<OwnEdits>(isOwnEdits, "malformed own-edits record")),
    held: v.optional(v.custom<HeldIds>(isHeldIds, "malformed held-ids record")),
  }),
  v.strictObject({ kind: v.literal("absent") }),
]);

const RequestSchema = v.variant("op", [
  v.strictObject({ op: v.literal("get"), path: v.string() }),
  v.strictObject({ op: v.literal("set"), path: v.string(), observation: ObservationSchema }),
  v.strictObject({ op: v.literal("forget"), path: v.string() }),
]);

/** One request of the object's protocol (the client sends its observations as they are). */
export type ObservationRequest =
  | { readonly op: "get" | "forget"; readonly path: string }
  | { readonly op: "set"; readonly path: string; readonly observation: Observation };

/** The object's answer: the observation for `get`, null otherwise or when unseen. */
interface ObservationResponse {
  readonly observation: Observation | null;
}

/**
 * The Durable Object class holding one session's observations (bind it as
 * `OBSERVATIONS`, SQLite-backed: `new_sqlite_classes` in wrangler.toml).
 */
export class ObservationsDO {
  readonly #state: DurableObjectStateLike;
  readonly #limits: ObservationLimits;
  #ready = false;
  #count = 0;
  /** Last `touched` stamp: milliseconds since the epoch, forced strictly increasing. */
  #clock = 0;
  /** When the scheduled alarm fires (0: not known to be scheduled). */
  #alarmAt = 0;

  constructor(state: DurableObjectStateLike, env: ObservationEnv) {
    this.#state = state;
    this.#limits = observationLimitsFromEnv(env ?? {});
  }

  /** The table, created on first use (and again after an idle session was deleted). */
  #sql(): SqlStorageLike {
    let sql: SqlStorageLike | undefined;
    try {
      sql = this.#state.storage.sql;
    } catch {
      // A key-value-backed object throws here rather than returning nothing.
    }
    if (!sql) throw new Error("ObservationsDO needs SQLite storage: declare it under new_sqlite_classes in the migrations");
    if (!this.#ready) {
      // `touched` is a timestamp, so the alarm can tell how long the session has been idle.
      sql.exec("CREATE TABLE IF NOT EXISTS observations (path TEXT PRIMARY KEY, version TEXT, touched INTEGER NOT NULL)");
      sql.exec("CREATE INDEX IF NOT EXISTS observations_touched ON observations (touched)");
      // The lines seen of a partly seen version (JSON spans; NULL: all of it). Added after the first
      // release, so a table created before gets the column here.
      const columns = sql.exec("PRAGMA table_info(observations)").toArray();
      if (!columns.some((c) => c.name === "seen")) sql.exec("ALTER TABLE observations ADD COLUMN seen TEXT");
      // Where the session's own edits moved the lines it viewed (JSON, see own-edits.ts; NULL: none).
      if (!columns.some((c) => c.name === "own")) sql.exec("ALTER TABLE observations ADD COLUMN own TEXT");
      // The line ids the session holds (JSON, see held-ids.ts; NULL: none).
      if (!columns.some((c) => c.name === "held")) sql.exec("ALTER TABLE observations ADD COLUMN held TEXT");
      const row = sql.exec("SELECT COUNT(*) AS n, COALESCE(MAX(touched), 0) AS t FROM observations").toArray()[0];
      this.#count = Number(row?.n ?? 0);
      this.#clock = Number(row?.t ?? 0);
      this.#ready = true;
    }
    return sql;
  }

  #get(path: string): Observation | null {
    const row = this.#sql().exec("SELECT version, seen, own, held FROM observations WHERE path = ?", path).toArray()[0];
    if (!row) return null;
    if (typeof row.version !== "string") return { kind: "absent" };
    const seen = typeof row.seen === "string" ? { seen: JSON.parse(row.seen) as [number, number][] } : {};
    const own: unknown = typeof row.own === "string" ? JSON.parse(row.own) : undefined;
    const held: unknown = typeof row.held === "string" ? JSON.parse(row.held) : undefined;
    return {
      kind: "present",
      version: row.version,
      ...seen,
      ...(isOwnEdits(own) ? { own } : {}),
      ...(isHeldIds(held) && held.length > 0 ? { held } : {}),
    };
  }

  async #set(path: string, observation: Observation): Promise<void> {
    const sql = this.#sql();
    const known = sql.exec("SELECT 1 FROM observations WHERE path = ?", path).toArray().length > 0;
    this.#clock = Math.max(Date.now(), this.#clock + 1);
    const version = observation.kind === "present" ? observation.version : null;
    const seen = observation.kind === "present" && observation.seen !== undefined ? JSON.stringify(observation.seen) : null;
    const own = observation.kind === "present" && observation.own !== undefined ? JSON.stringify(observation.own) : null;
    const held = observation.kind === "present" && observation.held !== undefined ? JSON.stringify(observation.held) : null;
    sql.exec(
      "INSERT INTO observations (path, version, seen, own, held, touched) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET version = excluded.version, seen = excluded.seen, own = excluded.own, held = excluded.held, touched = excluded.touched",
      path,
      version,
      seen,
      own,
      held,
      this.#clock,
    );
    if (!known && ++this.#count > this.#limits.maxPathsPerSession) {
      const excess = this.#count - this.#limits.maxPathsPerSession;
      sql.exec("DELETE FROM observations WHERE path IN (SELECT path FROM observations ORDER BY touched LIMIT ?)", excess);
      this.#count -= excess;
    }
    await this.#keepAlive();
  }

  #forget(path: string): void {
    const sql = this.#sql();
    const known = sql.exec("SELECT 1 FROM observations WHERE path = ?", path).toArray().length > 0;
    if (!known) return;
    sql.exec("DELETE FROM observations WHERE path = ?", path);
    this.#count--;
  }

  /** Push the expiry alarm out, but only once it is within half the idle time (one alarm write per half period). */
  async #keepAlive(): Promise<void> {
    const idleMs = this.#limits.idleSeconds * 1000;
    if (this.#alarmAt - Date.now() > idleMs / 2) return;
    this.#alarmAt = Date.now() + idleMs;
    await this.#state.storage.setAlarm(this.#alarmAt);
  }

  /** Protocol entry: POST a JSON {@link ObservationRequest}. */
  fetch(request: Request): Promise<Response> {
    return serveObjectRequest(request, RequestSchema, async (call): Promise<ObservationResponse> => {
      if (call.op === "get") return { observation: this.#get(call.path) };
      if (call.op === "set") await this.#set(call.path, call.observation);
      else this.#forget(call.path);
      return { observation: null };
    });
  }

  /** Expiry: delete the session once nothing was recorded for the idle time; otherwise wake again later. */
  async alarm(): Promise<void> {
    const sql = this.#sql();
    const row = sql.exec("SELECT COALESCE(MAX(touched), 0) AS t FROM observations").toArray()[0];
    const last = Number(row?.t ?? 0);
    const due = last + this.#limits.idleSeconds * 1000;
    if (last > 0 && due > Date.now()) {
      this.#alarmAt = due;
      await this.#state.storage.setAlarm(due);
      return;
    }
    await this.#state.storage.deleteAll();
    this.#ready = false;
    this.#alarmAt = 0;
  }
}

/**
 * An {@link ObservationStore} backed by {@link ObservationsDO}: one object
 * per session, addressed by name. Rejects with INTERNAL_ERROR when the
 * object cannot answer (the tool reports it; nothing is written without its
 * observation check).
 */
export function createDurableObservationStore(namespace: DurableObjectNamespaceLike): ObservationStore {
  const send = objectCaller(namespace, "observation store", "https://observations.internal/");
  const call = async (session: string, request: ObservationRequest) => (await send<ObservationResponse>(session, request)).observation;

  return {
    async get(session, path) {
      return (await call(session, { op: "get", path })) ?? undefined;
    },
    async set(session, path, observation) {
      await call(session, { op: "set", path, observation });
    },
    async forget(session, path) {
      await call(session, { op: "forget", path });
    },
  };
}
