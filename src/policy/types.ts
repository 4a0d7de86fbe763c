import type { Version } from "../storage/types.ts";

/** What a session last saw at a path. Unknown (never seen) is `undefined`. */
export type Observation =
  | { readonly kind: "present"; readonly version: Version }
  | { readonly kind: "absent" };

/**
 * Per-session observation state: path -> what the session last saw there.
 * Async because the Worker keeps it in a Durable Object; the local modes keep
 * it in memory.
 */
export interface ObservationStore {
  get(session: string, path: string): Promise<Observation | undefined>;
  set(session: string, path: string, observation: Observation): Promise<void>;
  /** Forget a path for a session (e.g. after a delete). */
  forget(session: string, path: string): Promise<void>;
}
