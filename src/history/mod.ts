/** Audit log, file history and revert: a layer beside policy, used by the host. */
export * from "./types.ts";
export { createStorageHistory, isEntryId, sha256Hex, type StorageHistoryOptions } from "./store.ts";
export { createRecorder, type Recorder } from "./recorder.ts";
export { deferRecording, defersRecording, type DeferOptions, type DeferringHistory } from "./deferred.ts";
export { auditEntryOf, bounded, namedPaths, type FinishedCall } from "./record.ts";
export { planRevert, type RevertStep } from "./plan.ts";
export { revertEntries, revertStep, type RevertConflict, type RevertedFile, type RevertOutcome } from "./revert.ts";
export { fairShares, planPrune, type PruneEntry, type PrunePlan } from "./prune.ts";
export { matchesQuery, pageLimit } from "./query.ts";
export { restoreStep, type RestoreTarget } from "./restore.ts";
