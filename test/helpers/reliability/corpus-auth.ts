/**
 * The auth matrix: who presents what, which tool they call, and what must
 * come back, the same table driven over REST and over MCP. Every call aims
 * at the owner's `notes.txt` with the strongest form of its tool (a whole
 * write, an edit, a line insert, a shell append), so a call that got through
 * would change bytes that the suite snapshots.
 */

/** The tokens the served config grants (./fixture-local.ts writes them into the config). */
export const AUTH_TOKENS = {
  /** ws, read + write: no exec. */
  owner: "rel-auth-owner-0123456789abcdef",
  /** ws, read + write + exec. */
  exec: "rel-auth-exec-0123456789abcdef",
  /** ws, read only. */
  readOnly: "rel-auth-read-0123456789abcdef",
  /** ws-evil (the sibling workspace), read + write. */
  other: "rel-auth-other-0123456789abcdef",
} as const;

/** A name of {@link AUTH_TOKENS}. */
export type TokenName = keyof typeof AUTH_TOKENS;

/** The file every call aims at, and its content. */
export const TARGET = { path: "notes.txt", content: "the owner's notes\nsecond line\n" } as const;

/** The tools of the matrix. */
export type AuthTool = "view" | "write" | "edit" | "batch_edit" | "bash";

/** The strongest call of each tool against the target. */
export function attackArgs(tool: AuthTool, path: string = TARGET.path): Record<string, unknown> {
  switch (tool) {
    case "view":
      return { path };
    case "write":
      return { path, content: "PWNED\n" };
    case "edit":
      return { path, old_string: "owner's", new_string: "PWNED" };
    case "batch_edit":
      return { path, operations: [{ operation: "insert", after: 0, content: "PWNED" }] };
    case "bash":
      return { command: `echo PWNED >> ${path}` };
  }
}

/** A credential that does not authenticate: the whole Authorization header (null: none). */
export interface BadCredential {
  readonly name: string;
  readonly header: string | null;
  /** What the 401 message must say (the recovery). */
  readonly phrase: RegExp;
}

const INVALID = /not valid for this server.*ask the operator for a valid one/;
const MALFORMED = /not a bearer token\. Send exactly `Authorization: Bearer <token>`/;

/** Every credential that must be answered 401 before any tool runs. */
export const BAD_CREDENTIALS: readonly BadCredential[] = [
  { name: "no Authorization header", header: null, phrase: /No credentials\. Send the header `Authorization: Bearer <token>`/ },
  { name: "a wrong token", header: "Bearer rel-auth-wrong-0123456789abcdef", phrase: INVALID },
  { name: "a valid token cut short by one character", header: `Bearer ${AUTH_TOKENS.exec.slice(0, -1)}`, phrase: INVALID },
  { name: "a valid token with one character more", header: `Bearer ${AUTH_TOKENS.exec}x`, phrase: INVALID },
  { name: "a valid token in another case", header: `Bearer ${AUTH_TOKENS.exec.toUpperCase()}`, phrase: INVALID },
  { name: "Basic credentials", header: `Basic ${btoa(`user:${AUTH_TOKENS.exec}`)}`, phrase: MALFORMED },
  { name: "the token without a scheme", header: AUTH_TOKENS.exec, phrase: MALFORMED },
  { name: "Bearer without a token", header: "Bearer", phrase: MALFORMED },
  { name: "two tokens in one header", header: `Bearer ${AUTH_TOKENS.readOnly} ${AUTH_TOKENS.exec}`, phrase: MALFORMED },
];

/** An authenticated call that its token may not make. */
export interface ScopeCase {
  readonly name: string;
  readonly as: TokenName;
  readonly tool: AuthTool;
  readonly path?: string;
  /** The model-facing code, and the recovery its text must state. */
  readonly code: string;
  readonly phrase: RegExp;
}

const READ_ONLY = /\[sandbox: file access denied under read-only mode\][\s\S]*needs the write scope, so nothing was changed[\s\S]*token with the write scope/;
const NO_EXEC = /lacks the exec scope, so `bash` cannot run[\s\S]*token with the exec scope/;

/** Denials by scope and by workspace. */
export const SCOPE_CASES: readonly ScopeCase[] = [
  ...(["write", "edit", "batch_edit"] as const).map(
    (tool): ScopeCase => ({ name: `a read-only token calling ${tool}`, as: "readOnly", tool, code: "FS_ACCESS_DENIED", phrase: READ_ONLY }),
  ),
  { name: "a read-only token calling bash", as: "readOnly", tool: "bash", code: "FORBIDDEN", phrase: NO_EXEC },
  { name: "a read+write token without exec calling bash", as: "owner", tool: "bash", code: "FORBIDDEN", phrase: NO_EXEC },
  { name: "another workspace's token calling bash", as: "other", tool: "bash", code: "FORBIDDEN", phrase: NO_EXEC },
  // The other workspace's token reaches only its own directory: the owner's file is simply not there.
  { name: "another workspace's token viewing the owner's file", as: "other", tool: "view", code: "FS_NOT_FOUND", phrase: /does not exist/ },
  { name: "another workspace's token editing the owner's file", as: "other", tool: "edit", code: "FS_NOT_FOUND", phrase: /To create it, use write/ },
  {
    name: "another workspace's token batch-editing the owner's file",
    as: "other",
    tool: "batch_edit",
    code: "FS_NOT_FOUND",
    phrase: /To create it, use write/,
  },
  ...(["view", "write", "edit", "batch_edit"] as const).map(
    (tool): ScopeCase => ({
      name: `another workspace's token calling ${tool} on ../ws/notes.txt`,
      as: "other",
      tool,
      path: "../ws/notes.txt",
      code: "FS_INVALID_PATH",
      phrase: /workspace-relative path/,
    }),
  ),
];
