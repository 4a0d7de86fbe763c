/** server.json (the MCP registry entry) agrees with package.json and with the flags the commands accept. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCP_FLAGS } from "../../src/cli/mcp.ts";
import { SERVE_FLAGS } from "../../src/cli/serve.ts";
import { ROOT } from "../helpers/cli.ts";

interface Argument {
  type: "positional" | "named";
  name?: string;
  value?: string;
}
interface Package {
  registryType: string;
  identifier: string;
  version: string;
  transport: { type: string; url?: string };
  packageArguments: Argument[];
}

const server = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8")) as { name: string; version: string; description: string; packages: Package[] };
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; mcpName: string; files: string[] };

describe("server.json", () => {
  test("names the npm package by its name, version and mcpName, and ships in it", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.description.length).toBeLessThanOrEqual(100);
    for (const entry of server.packages) {
      expect(entry.registryType).toBe("npm");
      expect(entry.identifier).toBe(pkg.name);
      expect(entry.version).toBe(pkg.version);
    }
    expect(pkg.files).toContain("server.json");
  });

  test("describes a stdio transport (toolwarden mcp) and an HTTP one (toolwarden serve) with flags the commands accept", () => {
    const byTransport = new Map(server.packages.map((p) => [p.transport.type, p]));
    expect([...byTransport.keys()].sort()).toEqual(["stdio", "streamable-http"]);
    const flagsOf = { mcp: MCP_FLAGS, serve: SERVE_FLAGS } as Record<string, Record<string, unknown>>;
    for (const [transport, command] of [
      ["stdio", "mcp"],
      ["streamable-http", "serve"],
    ] as const) {
      const args = byTransport.get(transport)!.packageArguments;
      expect(args[0]).toEqual({ type: "positional", value: command });
      for (const arg of args.filter((a) => a.type === "named")) expect(flagsOf[command]).toHaveProperty(arg.name!.replace(/^--/, ""));
    }
    expect(byTransport.get("streamable-http")!.transport.url).toBe("http://127.0.0.1:{port}/mcp");
  });
});
