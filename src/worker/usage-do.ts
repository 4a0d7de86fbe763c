/**
 * Workspace usage on Cloudflare Workers: a Durable Object per workspace
 * holds its counters (bytes, files), and a {@link UsageLedger} client talks
 * to it. Isolates share no memory, so the object is what makes usage exact
 * under concurrent writers: each request runs to completion before the next
 * (the SQL calls are synchronous, there is no await between check and add),
 * so a charge's check and its addition are one step.
 *
 * The object speaks a tiny JSON protocol over `fetch` (no `cloudflare:`
 * import), like ObservationsDO.
 */
import * as v from "valibot";
import { added, fits, type ChargeOutcome, type Usage, type UsageLedger } from "../http/hosting/ledger.ts";
import type { DurableObjectNamespaceLike, DurableObjectStateLike } from "../policy/durable.ts";
import { objectCaller, serveObjectRequest } from "../policy/do-protocol.ts";

const UsageSchema = v.strictObject({ bytes: v.pipe(v.number(), v.integer()), files: v.pipe(v.number(), v.integer()) });
const QuotaSchema = v.strictObject({ maxBytes: v.pipe(v.number(), v.integer()), maxFiles: v.pipe(v.number(), v.integer()) });

const RequestSchema = v.variant("op", [
  v.strictObject({ op: v.literal("charge"), delta: UsageSchema, quota: QuotaSchema }),
  v.strictObject({ op: v.literal("usage") }),
  v.strictObject({ op: v.literal("init"), usage: UsageSchema }),
  v.strictObject({ op: v.literal("clear") }),
]);

/** One request of the object's protocol. */
export type UsageRequest = v.InferOutput<typeof RequestSchema>;

/** The Durable Object class holding one workspace's usage (bind it as `USAGE`, SQLite-backed). */
export class UsageDO {
  readonly #state: DurableObjectStateLike;
  #ready = false;

  constructor(state: DurableObjectStateLike) {
    this.#state = state;
  }

  #sql() {
    const sql = this.#state.storage.sql;
    if (!this.#ready) {
      sql.exec("CREATE TABLE IF NOT EXISTS usage (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL, files INTEGER NOT NULL)");
      this.#ready = true;
    }
    return sql;
  }

  #get(): Usage | undefined {
    const row = this.#sql().exec("SELECT bytes, files FROM usage WHERE id = 1").toArray()[0];
    return row ? { bytes: Number(row.bytes), files: Number(row.files) } : undefined;
  }

  #put(usage: Usage): void {
    this.#sql().exec(
      "INSERT INTO usage (id, bytes, files) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes, files = excluded.files",
      usage.bytes,
      usage.files,
    );
  }

  /** Protocol entry: POST a JSON {@link UsageRequest}. */
  fetch(request: Request): Promise<Response> {
    // Synchronous from here on: the check and the change below are one step for this object.
    return serveObjectRequest(request, RequestSchema, (call) => {
      const usage = this.#get();
      if (call.op === "usage") return { usage: usage ?? null };
      if (call.op === "init") {
        if (!usage) this.#put(call.usage);
        return {};
      }
      if (call.op === "clear") {
        this.#sql().exec("DELETE FROM usage");
        return {};
      }
      let outcome: ChargeOutcome;
      if (!usage) outcome = { ok: false, reason: "unknown" };
      else if (!fits(usage, call.delta, call.quota)) outcome = { ok: false, reason: "over-quota", usage };
      else {
        this.#put(added(usage, call.delta));
        outcome = { ok: true };
      }
      return { outcome };
    });
  }
}

/** A {@link UsageLedger} backed by {@link UsageDO}: one object per workspace, addressed by name. */
export function createDurableLedger(namespace: DurableObjectNamespaceLike): UsageLedger {
  const send = objectCaller(namespace, "usage store", "https://usage.internal/");
  const call = <T>(workspace: string, request: UsageRequest) => send<T>(workspace, request);

  return {
    async charge(workspace, delta, quota) {
      return (await call<{ outcome: ChargeOutcome }>(workspace, { op: "charge", delta, quota })).outcome;
    },
    async usage(workspace) {
      return (await call<{ usage: Usage | null }>(workspace, { op: "usage" })).usage ?? undefined;
    },
    async init(workspace, usage) {
      await call(workspace, { op: "init", usage });
    },
    async clear(workspace) {
      await call(workspace, { op: "clear" });
    },
  };
}
