/** Help texts of the commands. Each ends with a newline. */

/** `toolwarden --help`. */
export const MAIN_USAGE = `Usage: toolwarden <command> [options]

Guarded file tools (view, write, edit, batch_edit, and bash) for AI agents, over HTTP and MCP.

Commands:
  serve [WORKSPACE]    Serve a directory (default .), memory: or s3://BUCKET on http://127.0.0.1:7878
  mcp [DIR]            Serve DIR to one MCP client over stdio (how local clients launch servers)
  call TOOL [JSON]     Run one tool call on a directory and print what the model would see
  log [DIR]            Print the recent changes agents made in DIR (from the audit log)
  token mint ...       Sign a token (JWT) for a workspace and print it

Options:
  -h, --help           Show help (also: toolwarden <command> --help)
  --version            Print the version

Examples:
  toolwarden serve ~/src/myapp
  claude mcp add toolwarden -- npx -y toolwarden mcp ~/src/myapp
  toolwarden call view '{"path": "README.md"}' --root ~/src/myapp
`;

/** `toolwarden serve --help`. */
export const SERVE_USAGE = `Usage: toolwarden serve [WORKSPACE] [options]

Serve WORKSPACE over HTTP: REST at /v1/tools/{name}, MCP at /mcp. WORKSPACE is a directory (default:
the current one), memory: (a sandbox gone at exit), memory:DIR (a sandbox seeded with DIR's files), or
s3://BUCKET[/PREFIX] (endpoint and keys from AWS_* or S3_* variables; see docs/storage.md).
Prints the URL, the token and an MCP client configuration to paste, then logs one line per call on
stderr. Ctrl-C (SIGINT) or SIGTERM stops accepting, lets calls in flight finish (up to 10 s), and exits.

Options:
  --port N         Port to listen on (default 7878; 0 picks a free port)
  --host H         Address to bind (default 127.0.0.1)
  --token T        Bearer token to require (default: $TOOLWARDEN_TOKEN, else the config's tokens,
                   else a random one printed at start)
  --no-auth        Require no token (only on a loopback address)
  --allow-shell    Also serve the bash tool (commands run in the directory; the token gets the exec scope)
  --observations S Where sessions' views are kept: memory (default) or redis://HOST:PORT[/DB], shared
                   by every instance on the same storage (MCP then runs stateless)
  --config FILE    JSON config file (port, host, tokens, jwt, workspaces, limits, shell, rules,
                   storage, observations); flags win over it
  --state DIR      Where the audit log and file history live (default: $TOOLWARDEN_STATE, else
                   $XDG_STATE_HOME/toolwarden, else ~/.local/state/toolwarden); outside DIR
  --no-history     Record no audit log or history
  --workspaces DIR Host many workspaces: each is a subdirectory of DIR, created and removed by an
                   admin token over /v1/workspaces (docs/hosting.md); tokens name a workspace
  --jwt-secret-env NAME
                   Accept signed tokens (HS256) whose secret is in environment variable NAME
  --quiet          No per-call log lines
  -h, --help       Show this help
`;

/** `toolwarden mcp --help`. */
export const MCP_USAGE = `Usage: toolwarden mcp [DIR] [options]

Serve DIR (default: the current directory) to one MCP client over stdio: the client starts this
command and speaks JSON-RPC on its stdin/stdout. Same tools, checks and rules as serve; the session
lasts as long as the process. stdout carries protocol messages only; logs go to stderr. Exits when
stdin closes or on SIGINT/SIGTERM, after calls in flight finish (up to 10 s).

Options:
  --allow-shell    Also serve the bash tool (commands run in DIR)
  --config FILE    JSON config file (limits, shell, rules)
  --state DIR      Where the audit log and file history live (as for serve)
  --no-history     Record no audit log or history
  --quiet          No start line and no per-call log lines on stderr
  -h, --help       Show this help
`;

/** `toolwarden call --help`. */
export const CALL_USAGE = `Usage: toolwarden call TOOL [JSON] [options]

Run one tool call on a directory, in this process, through the same checks and rules as the server,
and print exactly the text the model would see. JSON is the tool's arguments (default {}; - reads
them from stdin). Exit status: 0 ok, 1 the tool reported an error (its code is printed on stderr as
"code: X"), 2 bad usage or configuration.

Edits need an earlier view of the file in the same session. Each call is a new process, so keep the
session in a file to carry it from one call to the next:

  toolwarden call view '{"path": "a.txt"}' --session-file /tmp/tw.json
  toolwarden call edit '{"path": "a.txt", "old_string": "foo", "new_string": "bar"}' --session-file /tmp/tw.json

Options:
  --root WORKSPACE      Directory (default: the current one), memory:DIR or s3://BUCKET[/PREFIX]
  --session-file FILE   Load the session (what was viewed) from FILE before the call and save it
                        after (default: $TOOLWARDEN_SESSION_FILE; without either, nothing is kept)
  --allow-shell         Make the bash tool available
  --config FILE         JSON config file (limits, shell, rules)
  -h, --help            Show this help
`;

/** `toolwarden log --help`. */
export const LOG_USAGE = `Usage: toolwarden log [DIR] [options]

Print the recent changes made through a server on DIR (default: the current directory), oldest
first, from the audit log in the state directory: time, tool, paths, outcome, who, and each file's
size and version before and after. Revert a change with POST /v1/revert {"change": ID}.

Options:
  --session S   Only this session's calls
  --path P      Only calls naming or changing P
  --all         Every call (views and failures too), not only changes
  --limit N     The last N entries (default 20)
  --state DIR   The state directory the server used (default as for serve)
  -h, --help    Show this help
`;

/** `toolwarden token --help`. */
export const TOKEN_USAGE = `Usage: toolwarden token mint --workspace WS --scopes S --ttl T (--key-file F | --key-env NAME) [options]

Sign a bearer token (JWT) and print it alone on one line, e.g. TOKEN=$(toolwarden token mint ...).
The key is an HS256 secret (plain text, 32+ bytes; or a JWK {"kty":"oct","k":...}) or a private
Ed25519 JWK (EdDSA); the server verifies with the same secret, or with the public JWK.

Options:
  --workspace WS     Workspace the token reaches ("*": every workspace, admin tokens only)
  --scopes S         Comma-separated: read, write, exec (tools), admin, audit
  --ttl T            Lifetime: 30m, 1h, 7d or seconds (the server caps it, default 1 day)
  --label L          Who holds it (the sub claim; shown in logs and the audit log). Same label,
                     scopes and workspace: the same agent across tokens. Without it the token
                     gets a random sub of its own (printed on stderr)
  --kid K            Key id (default: the JWK's kid, else none)
  --audience A       The aud claim (when the server requires one)
  --key-file F       File holding the key
  --key-env NAME     Environment variable holding the key
  -h, --help         Show this help
`;
