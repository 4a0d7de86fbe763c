/**
 * The observation policy as pure decisions: from what a session last saw at
 * a path and what is there now, what a mutation may do. No I/O and no
 * wording: the tools gather the inputs, enforce the outcome with a storage
 * condition (the decision is advice; the compare-and-swap is the guarantee)
 * and write the model-facing text.
 *
 * - `write` replaces a whole file, so overwriting needs the session to have
 *   seen exactly the version it replaces; creating needs nothing.
 * - `edit` / `batch_edit` prove their targets by content (exact text, line
 *   id hashes), so they need the file seen at some version, not the latest.
 */

import type { Version } from "../storage/types.ts";
import type { Observation } from "./types.ts";

/** What is at the path now (a directory is the tool's to refuse before asking). */
export type CurrentFile = { readonly kind: "absent" } | { readonly kind: "file"; readonly version: Version };

/** The observation a refusal leaves behind: absence was confirmed, so the next call knows it. */
const RECORD_ABSENT: Observation = { kind: "absent" };

/** What a `write` may do. */
export type WriteDecision =
  /** Create-if-absent: never clobbers a concurrent creator. */
  | { readonly kind: "create" }
  /** Compare-and-swap on the version the session saw. */
  | { readonly kind: "overwrite"; readonly version: Version }
  /** The file exists and this session never viewed it. */
  | { readonly kind: "refuse"; readonly code: "FS_NOT_OBSERVED"; readonly reason: "unseen" }
  /** The session saw another version than the one there now. */
  | {
      readonly kind: "refuse";
      readonly code: "FS_STALE_VERSION";
      readonly reason: "changed";
      readonly seen: Version;
      readonly current: Version;
    }
  /**
   * The session saw the file, and it has been deleted since. Refused once so
   * the model learns of the deletion; absence is recorded, so writing again
   * is a create.
   */
  | {
      readonly kind: "refuse";
      readonly code: "FS_STALE_VERSION";
      readonly reason: "deleted";
      readonly record: Observation;
    }
  /** The session saw no file here, and someone has created one since: same code as losing the create race. */
  | { readonly kind: "refuse"; readonly code: "FS_ALREADY_EXISTS"; readonly reason: "created" };

/** Decide a `write` from the session's observation (undefined: never seen) and the current state. */
export function decideWrite(observation: Observation | undefined, current: CurrentFile): WriteDecision {
  if (current.kind === "absent") {
    if (observation?.kind === "present") {
      return { kind: "refuse", code: "FS_STALE_VERSION", reason: "deleted", record: RECORD_ABSENT };
    }
    return { kind: "create" };
  }
  if (observation === undefined) return { kind: "refuse", code: "FS_NOT_OBSERVED", reason: "unseen" };
  if (observation.kind === "absent") return { kind: "refuse", code: "FS_ALREADY_EXISTS", reason: "created" };
  if (observation.version !== current.version) {
    return {
      kind: "refuse",
      code: "FS_STALE_VERSION",
      reason: "changed",
      seen: observation.version,
      current: current.version,
    };
  }
  return { kind: "overwrite", version: current.version };
}

/** What an `edit` / `batch_edit` may do. */
export type EditDecision =
  /** Apply to the current content; `changedSinceView` when it is not the version the session saw. */
  | { readonly kind: "edit"; readonly changedSinceView: boolean }
  /**
   * The file exists but the session has no view of its content: never seen
   * ("unseen"), or seen missing and created since ("created").
   */
  | { readonly kind: "refuse"; readonly code: "FS_NOT_OBSERVED"; readonly reason: "unseen" | "created" }
  /**
   * No file to edit. "deleted": the session saw it and it is gone now;
   * "seen-absent": the session already knew it is missing (no stale advice:
   * re-reading cannot help); "missing": never seen and not there. Absence is
   * recorded in every case.
   */
  | {
      readonly kind: "refuse";
      readonly code: "FS_NOT_FOUND";
      readonly reason: "deleted" | "seen-absent" | "missing";
      readonly record: Observation;
    };

/** Decide an `edit` / `batch_edit` from the session's observation and the current state. */
export function decideEdit(observation: Observation | undefined, current: CurrentFile): EditDecision {
  if (current.kind === "absent") {
    const reason = observation === undefined ? "missing" : observation.kind === "present" ? "deleted" : "seen-absent";
    return { kind: "refuse", code: "FS_NOT_FOUND", reason, record: RECORD_ABSENT };
  }
  if (observation === undefined) return { kind: "refuse", code: "FS_NOT_OBSERVED", reason: "unseen" };
  if (observation.kind === "absent") return { kind: "refuse", code: "FS_NOT_OBSERVED", reason: "created" };
  return { kind: "edit", changedSinceView: observation.version !== current.version };
}
