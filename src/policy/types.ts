import type { Version } from "../storage/types.ts";
import type { HeldIds } from "./held-ids.ts";

/** Lines `first..last` of a file, 1-based and inclusive. */
export type LineSpan = readonly [first: number, last: number];

/**
 * What a session last saw at a path. Unknown (never seen) is `undefined`.
 * `seen` lists the lines of `version` the session has seen when it has not
 * seen them all (ranged views, search hits); absent means the whole version.
 * A store must keep `seen` as given: dropping it would let a whole-file
 * `write` replace lines the session never saw.
 */
export type Observation =
  | {
      readonly kind: "present";
      readonly version: Version;
      readonly seen?: readonly LineSpan[];
      readonly own?: OwnEdits;
      /** The line ids the session holds (`policy/held-ids.ts`); a store may drop it (its checks are then skipped), never alter it. */
      readonly held?: HeldIds;
    }
  | { readonly kind: "absent" };

/**
 * How the session's own edits since its last whole view moved the lines of
 * the version it viewed (`policy/own-edits.ts`). A store may drop it (the
 * checks it enables are then skipped, as before it existed), never alter it.
 */
export interface OwnEdits {
  /** Runs of lines of the viewed version still in the file: `[first, last, now]`, 1-based. */
  readonly kept: readonly (readonly [first: number, last: number, now: number])[];
  /** Lines of the current version the session was shown with their current ids. */
  readonly shown: readonly LineSpan[];
  /**
   * Another writer changed the file too: `now` is where the session's own
   * edits put a viewed line, not where it is since. Enough to know an id may
   * name a line the session itself moved (so refuse it as ambiguous), never
   * to correct one.
   */
  readonly loose?: true;
  /**
   * The versions of the file the session's view and own edits made, newest
   * last (at most {@link MAX_OWN_VERSIONS}): a held id shown from one of
   * them is the line as the session knew it before anyone else wrote; one
   * shown from another writer's version tells nothing of the lines it moved.
   */
  readonly versions?: readonly string[];
}

/** Most versions an own-edit record keeps (`OwnEdits.versions`). */
export const MAX_OWN_VERSIONS = 16;

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
