/**
 * What the audit log and file history hold. Contents never travel in an
 * entry: an entry names the versions before and after each change, and the
 * bytes of each version live in a content-addressed blob store beside it.
 */

/** One state of one file: its storage version and the SHA-256 of its bytes. */
export interface FileState {
  readonly version: string;
  /** Hex SHA-256 of the bytes: the key of the blob that holds them. */
  readonly blob: string;
  readonly size: number;
}

/** One file a call changed: `before` null means it was created, `after` null that it was deleted. */
export interface FileChange {
  readonly path: string;
  readonly before: FileState | null;
  readonly after: FileState | null;
}

/** One tool call (or revert), as recorded. */
export interface AuditEntry {
  /** Sortable id: entries of one workspace sort by time of recording. */
  readonly id: string;
  /** ISO 8601 time the call finished. */
  readonly time: string;
  /** The principal's label (token label or JWT `sub`), never the token. */
  readonly principal: string;
  /** The observation session the call ran in (the client's session id). */
  readonly session: string;
  /** The tool, or `revert` for a revert made through the API. */
  readonly tool: string;
  /** The paths the call named. */
  readonly paths: readonly string[];
  /** `OK`, or the error code of a failed call. */
  readonly code: string;
  readonly changes: readonly FileChange[];
  /** Bytes the call wrote (all files). */
  readonly bytes: number;
  /** Duration in ms. */
  readonly ms: number;
  /** For a revert: the ids of the entries it reverted. */
  readonly reverts?: readonly string[];
  /** The call's arguments as JSON, cut at {@link MAX_ARGS_CHARS} (absent in entries recorded before it existed). */
  readonly args?: string;
  /** The text the model received (content, then notices), cut at {@link MAX_RESULT_CHARS}. */
  readonly result?: string;
}

/** Longest arguments text an entry keeps (a `write` of a large file is cut; its bytes are in the blobs). */
export const MAX_ARGS_CHARS = 4096;
/** Longest result text an entry keeps. */
export const MAX_RESULT_CHARS = 16384;

/** A new entry: the store assigns the id. */
export type NewAuditEntry = Omit<AuditEntry, "id">;

/** Filters of {@link HistoryStore.query}; every one is optional. */
export interface AuditQuery {
  /** Only entries at or after this time (ISO 8601). */
  readonly since?: string;
  readonly session?: string;
  /** Only entries of this principal (its label): a session id is the client's choice, so two tokens may share one. */
  readonly principal?: string;
  /** Only entries naming or changing this path. */
  readonly path?: string;
  /** Only entries that changed a file. */
  readonly changesOnly?: boolean;
  /** Page size (default 100, at most 1000). */
  readonly limit?: number;
  /** Resume after this entry id (from a previous page's `cursor`). */
  readonly cursor?: string;
  /** The last `limit` matching entries instead of the first (still oldest first; no next cursor). */
  readonly newest?: boolean;
}

/** One page of entries, oldest first, with the cursor of the next page when there is one. */
export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly cursor?: string;
}

/** How much history a workspace keeps (see ./prune.ts and docs/history.md, "Bounds"). */
export interface HistoryBounds {
  /**
   * The file history: most bytes of kept versions and of the entries of the calls that made them,
   * each counted with {@link HISTORY_ITEM_BYTES} more; shared fairly between the principals that wrote them.
   */
  readonly maxBytes: number;
  /** Entries and versions older than this are dropped, in ms. */
  readonly maxAgeMs: number;
  /** Most entries of the rest of the log (calls that changed nothing, changes whose versions are gone); the oldest go first. */
  readonly maxEntries: number;
  /** Most bytes (their JSON) of those entries; the oldest go first. */
  readonly maxLogBytes: number;
}

/** What every kept version and every entry kept in the file history counts on top of its bytes: a file or object of its own. */
export const HISTORY_ITEM_BYTES = 4096;

/** Defaults per workspace: 256 MiB of file history, 30 days, and a log of 20 000 other entries in at most 64 MiB. */
export const DEFAULT_HISTORY_BOUNDS: HistoryBounds = {
  maxBytes: 256 * 1024 * 1024,
  maxAgeMs: 30 * 24 * 3600 * 1000,
  maxEntries: 20_000,
  maxLogBytes: 64 * 1024 * 1024,
};

/** `given` over the defaults: a bound left out (or undefined) is the default's. */
export function historyBounds(given: Partial<HistoryBounds> = {}): HistoryBounds {
  const pick = (key: keyof HistoryBounds) => given[key] ?? DEFAULT_HISTORY_BOUNDS[key];
  return { maxBytes: pick("maxBytes"), maxAgeMs: pick("maxAgeMs"), maxEntries: pick("maxEntries"), maxLogBytes: pick("maxLogBytes") };
}

/** The audit log and the blobs of one workspace. */
export interface HistoryStore {
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  query(query: AuditQuery): Promise<AuditPage>;
  get(id: string): Promise<AuditEntry | undefined>;
  /**
   * Store bytes under their SHA-256 (a no-op when already there); returns the hash.
   * `known` names these exact bytes for the store's lifetime (a path and a
   * version that only ever means one content): a store may then answer from
   * what it hashed under that name before instead of hashing again.
   */
  putBlob(bytes: Uint8Array, known?: string): Promise<string>;
  /** The bytes of a blob, or undefined when it was never kept or has been dropped. */
  getBlob(hash: string): Promise<Uint8Array | undefined>;
  /**
   * Where entries can be written together: hold the entries appended from
   * now on until the returned function is called, which writes them (and
   * throws what that throws). Reads meanwhile see them. For a batch of
   * recordings (./deferred.ts), for at most a turn of the event loop: one
   * append instead of one per call.
   */
  cork?(): () => void;
}
