/** Hosted workspaces: registry, quotas, archives and the admin routes. */
export { DEFAULT_IMPORT_LIMITS, exportArchive, importArchive, ArchiveRefusedError, type ImportLimits, type ImportReport } from "./archive.ts";
export { deferredStorage, deleteEveryFile, memoryBackend, prefixBackend, RECORDS_PREFIX } from "./backends.ts";
export { createMemoryLedger, type Quota, type Usage, type UsageLedger, type ChargeOutcome } from "./ledger.ts";
export { quotaStorage } from "./quota-storage.ts";
export {
  checkWorkspaceName,
  countUsage,
  createWorkspaceRegistry,
  DEFAULT_QUOTA,
  hostedStorage,
  type ArchiveSource,
  type WorkspaceBackend,
  type WorkspaceInfo,
  type WorkspaceRegistry,
} from "./registry.ts";
export { mountWorkspaces } from "./routes.ts";
