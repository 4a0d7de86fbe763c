/**
 * A bun-side stand-in for the `OBSERVATIONS` Durable Object namespace: each
 * name gets a real `ObservationsDO` over an in-memory bun:sqlite database,
 * reached through its `fetch` protocol. Alarms are recorded, not run. The
 * real runtime is exercised by test/worker-durable.test.ts.
 */
import { Database } from "bun:sqlite";
import { ObservationsDO, type DurableObjectNamespaceLike, type ObservationEnv } from "../../src/policy/durable.ts";

/** A fake namespace plus the objects it created. */
export interface FakeNamespace extends DurableObjectNamespaceLike<string> {
  readonly objects: ReadonlyMap<string, ObservationsDO>;
}

/** A namespace whose objects see `env`. */
export function createFakeNamespace(env: ObservationEnv = {}): FakeNamespace {
  const objects = new Map<string, ObservationsDO>();
  function object(name: string): ObservationsDO {
    let found = objects.get(name);
    if (!found) {
      const db = new Database(":memory:");
      // Like the real SqlStorage, exec runs the statement at once; the cursor only hands out rows.
      const sql = {
        exec: (query: string, ...bindings: unknown[]) => {
          const rows = db.query(query).all(...(bindings as never[])) as Record<string, unknown>[];
          return { toArray: () => rows };
        },
      };
      found = new ObservationsDO({ storage: { sql, setAlarm: async () => {}, deleteAll: async () => {} } }, env);
      objects.set(name, found);
    }
    return found;
  }
  return {
    objects,
    idFromName: (name) => name,
    get: (id) => ({ fetch: (input, init) => object(id).fetch(new Request(input, init)) }),
  };
}
