import { CodedError, type ErrorCode } from "../errors.ts";

/** Codes a storage provider may raise. */
export type FsErrorCode = Extract<ErrorCode, `FS_${string}`>;

/**
 * A storage failure: a stable code plus a machine-oriented message (no
 * recovery advice — that is added at the tool boundary). The provider's own
 * error, when there is one, chains as `cause`.
 */
export class FsError extends CodedError {
  declare readonly code: FsErrorCode;
  /** Workspace-relative path the failure is about, when there is one. */
  readonly path?: string;
  /**
   * FS_ACCESS_DENIED because the operating system refused (EACCES, EPERM:
   * file permissions), not because the path leads outside the workspace.
   */
  readonly permission?: boolean;
  constructor(code: FsErrorCode, message: string, options?: { cause?: unknown; path?: string; permission?: boolean }) {
    super(code, message, options);
    this.name = "FsError";
    this.path = options?.path;
    if (options?.permission) this.permission = true;
  }
}

/** True when `value` is an {@link FsError} (by class or by shape). */
export function isFsError(value: unknown): value is FsError {
  if (value instanceof FsError) return true;
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("FS_");
}

/**
 * FS_TOO_LARGE from `read` with `maxBytes`: the file's size and the limit,
 * so the tool boundary can say how large it is and what to do instead.
 */
export class FileTooLargeError extends FsError {
  constructor(
    path: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super("FS_TOO_LARGE", `file is ${size} bytes, over the ${limit}-byte read limit: ${path}`, { path });
    this.name = "FileTooLargeError";
  }
}
