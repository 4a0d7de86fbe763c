/**
 * What `serve` prints at start: where it listens, the token, and a client
 * configuration to paste. Pure text; stdout gets it, so it can be captured.
 */
import type { ServeAuth } from "./settings.ts";

/** The URL a local client uses for a server bound to `host:port` (a wildcard bind is reached over loopback). */
export function baseUrl(host: string, port: number): string {
  const name = host.replace(/^\[(.*)\]$/, "$1");
  const reachable = name === "0.0.0.0" ? "127.0.0.1" : name === "::" ? "::1" : name;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/** An MCP client entry for this server (the `mcpServers` shape Claude Code, Cursor and others read). */
export function mcpClientConfig(url: string, token: string | undefined): unknown {
  return {
    mcpServers: {
      toolwarden: {
        type: "http",
        url: `${url}/mcp`,
        ...(token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }),
      },
    },
  };
}

/** Everything the banner shows. */
export interface BannerInfo {
  readonly version: string;
  /** The served workspace: a directory's real path, memory:…, s3://…. */
  readonly root: string;
  /** Its storage kind and where the bytes are (never a credential). */
  readonly storage?: string;
  /** Where observations live. */
  readonly observations?: string;
  readonly url: string;
  readonly auth: ServeAuth;
  readonly tools: readonly string[];
  /** Scopes of the printed token (or of everyone, without auth). */
  readonly scopes: readonly string[];
  /** Set when bound to a non-loopback address: the Host values accepted. */
  readonly exposedNote?: string;
}

const PLACEHOLDER = "<your token>";

/** The start-up banner, ending with a newline. */
export function renderBanner(info: BannerInfo): string {
  const { auth } = info;
  const token = auth.mode === "none" ? undefined : auth.source === "config" ? PLACEHOLDER : auth.grants[0].token;
  const lines = [
    `toolwarden ${info.version} serving ${info.root}`,
    `  url:    ${info.url}`,
    `  ui:     ${info.url}/ui  (the inspector: sign in with a token with scope audit or admin)`,
  ];
  if (info.storage) lines.push(`  storage: ${info.storage}`);
  if (info.observations) lines.push(`  observations: ${info.observations}`);
  if (auth.mode === "none") {
    lines.push("  auth:   none (--no-auth: anyone on this machine can call the tools)");
  } else if (auth.source === "config") {
    lines.push(`  tokens: ${auth.grants.length} from the config file (not shown)`);
  } else {
    const origin =
      auth.source === "generated"
        ? "generated for this run; pass --token or set TOOLWARDEN_TOKEN to keep one"
        : auth.source === "env"
          ? "from TOOLWARDEN_TOKEN"
          : "from --token";
    lines.push(`  token:  ${token}  (${origin})`);
  }
  lines.push(`  scopes: ${info.scopes.join(", ")}`, `  tools:  ${info.tools.join(", ")}`);
  if (info.exposedNote) lines.push(`  note:   ${info.exposedNote}`);
  const auth_ = token === undefined ? "" : ` -H "Authorization: Bearer ${token}"`;
  lines.push(
    "",
    "Try it:",
    `  curl -s${auth_} -H "Content-Type: application/json" -d '{"path": "."}' ${info.url}/v1/tools/view`,
    "",
    "MCP client configuration (e.g. .mcp.json):",
    JSON.stringify(mcpClientConfig(info.url, token), null, 2),
    "",
  );
  return lines.join("\n");
}
