/**
 * Usage counters of hosted workspaces (bytes and files). A ledger is the one
 * place a workspace's usage is checked and changed, so the check and the
 * change are one atomic step: in one process a Map (JS runs one step at a
 * time), on Workers a Durable Object per workspace (see ./ledger-durable.ts).
 *
 * A workspace's counters start unknown; the registry counts its files once
 * and calls `init`, which keeps whichever count arrived first.
 */

import { CodedError } from "../../errors.ts";

/** A LIMIT_EXCEEDED of the quota, with what was over it said on its own (an import says it to the admin in other words). */
export class QuotaExceededError extends CodedError {
  constructor(
    message: string,
    /** What would pass the quota, e.g. `writing a.txt (60 bytes) would add 60 bytes to ...`. */
    readonly detail: string,
  ) {
    super("LIMIT_EXCEEDED", message);
  }
}

/** Bytes and files in a workspace. */
export interface Usage {
  readonly bytes: number;
  readonly files: number;
}

/** The most a workspace may hold. */
export interface Quota {
  readonly maxBytes: number;
  readonly maxFiles: number;
}

/** Outcome of {@link UsageLedger.charge}. */
export type ChargeOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "over-quota"; readonly usage: Usage }
  | { readonly ok: false; readonly reason: "unknown" };

/** Atomic usage counters, one pair per workspace. */
export interface UsageLedger {
  /**
   * Add `delta` when the result stays within `quota` (a part that shrinks or
   * stays always passes); otherwise change nothing. `unknown` when the
   * workspace's counters were never initialised.
   */
  charge(workspace: string, delta: Usage, quota: Quota): Promise<ChargeOutcome>;
  /** The counters, or undefined when never initialised. */
  usage(workspace: string): Promise<Usage | undefined>;
  /** Set the counters unless they are already known. */
  init(workspace: string, usage: Usage): Promise<void>;
  /** Forget the counters (the workspace was deleted). */
  clear(workspace: string): Promise<void>;
}

/** Whether `usage + delta` stays within `quota`, for every part that grows. */
export function fits(usage: Usage, delta: Usage, quota: Quota): boolean {
  const bytesOk = delta.bytes <= 0 || usage.bytes + delta.bytes <= quota.maxBytes;
  const filesOk = delta.files <= 0 || usage.files + delta.files <= quota.maxFiles;
  return bytesOk && filesOk;
}

/** `usage + delta`. */
export function added(usage: Usage, delta: Usage): Usage {
  return { bytes: usage.bytes + delta.bytes, files: usage.files + delta.files };
}

/** A ledger in this process's memory (the local and S3 servers). */
export function createMemoryLedger(): UsageLedger {
  const counters = new Map<string, Usage>();
  return {
    charge(workspace, delta, quota) {
      const usage = counters.get(workspace);
      if (!usage) return Promise.resolve({ ok: false, reason: "unknown" });
      if (!fits(usage, delta, quota)) return Promise.resolve({ ok: false, reason: "over-quota", usage });
      counters.set(workspace, added(usage, delta));
      return Promise.resolve({ ok: true });
    },
    usage: (workspace) => Promise.resolve(counters.get(workspace)),
    init(workspace, usage) {
      if (!counters.has(workspace)) counters.set(workspace, usage);
      return Promise.resolve();
    },
    clear(workspace) {
      counters.delete(workspace);
      return Promise.resolve();
    },
  };
}
