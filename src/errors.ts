/**
 * Stable error codes. Harnesses, retry layers and UIs route on these, never on
 * message wording, so a code once shipped keeps its meaning.
 */
export const ERROR_CODES = [
  "FS_NOT_FOUND",
  "FS_NOT_DIRECTORY",
  "FS_IS_DIRECTORY",
  "FS_NOT_TEXT",
  "FS_TOO_LARGE",
  "FS_INVALID_PATH",
  "FS_ACCESS_DENIED",
  "FS_STALE_VERSION",
  "FS_NOT_OBSERVED",
  "FS_ALREADY_EXISTS",
  "FS_IO_ERROR",
  "EDIT_NO_MATCH",
  "EDIT_AMBIGUOUS",
  "EDIT_STALE_LINE_ID",
  "EDIT_CONFLICT",
  "EDIT_NO_CHANGE",
  "EDIT_DUPLICATED_LINE",
  "INVALID_ARGUMENT",
  "SHELL_FORBIDDEN",
  "RULE_BLOCKED",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "LIMIT_EXCEEDED",
  "TIMEOUT",
  "INTERNAL_ERROR",
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Base class of every error that carries a stable {@link ErrorCode}. */
export class CodedError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "CodedError";
  }
}

/** True when `value` is a {@link CodedError} (also across realms/bundles, by shape). */
export function isCodedError(value: unknown): value is CodedError {
  if (value instanceof CodedError) return true;
  const code = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}
