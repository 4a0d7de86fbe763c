/** The client configurations in the README and docs/clients.md are valid JSON that launch `toolwarden mcp` or point at /mcp. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.ts";

interface Entry {
  type?: string;
  command?: string;
  args?: string[];
  url?: string;
}

function jsonBlocks(file: string): unknown[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
}

describe.each(["README.md", "docs/clients.md"])("%s", (file) => {
  test("every JSON snippet parses and describes toolwarden over stdio (npx -y toolwarden mcp DIR) or HTTP (/mcp)", () => {
    const blocks = jsonBlocks(file);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      const servers = block as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
      const entry = (servers.mcpServers ?? servers.servers)!.toolwarden;
      if (entry.command !== undefined) {
        expect(entry.command).toBe("npx");
        expect(entry.args!.slice(0, 3)).toEqual(["-y", "toolwarden", "mcp"]);
        expect(entry.args).toHaveLength(4);
      } else {
        expect(entry.type).toBe("http");
        expect(entry.url).toBe("http://127.0.0.1:7878/mcp");
      }
    }
  });

  test("the Claude Code command launches toolwarden mcp through npx", () => {
    const text = readFileSync(join(ROOT, file), "utf8");
    expect(text).toMatch(/claude mcp add (--scope project )?toolwarden -- npx -y toolwarden mcp \S+/);
  });
});
