/** Workspace files as MCP resources over `toolwarden mcp` (stdio), with the official SDK client. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, cleanEnv, tempDir } from "../helpers/cli.ts";

describe("toolwarden mcp: resources", () => {
  const dir = tempDir();
  let client: Client;
  const updated: string[] = [];

  beforeAll(async () => {
    mkdirSync(join(dir.path, "docs"));
    for (let i = 0; i < 130; i++) writeFileSync(join(dir.path, "docs", `n${String(i).padStart(3, "0")}.md`), `# note ${i}\n`);
    writeFileSync(join(dir.path, "a b.txt"), "alpha\nbeta\n");
    writeFileSync(join(dir.path, "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]));
    mkdirSync(join(dir.path, ".hidden"));
    writeFileSync(join(dir.path, ".hidden", "secret.txt"), "not listed\n");
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", dir.path, "--quiet"], env: cleanEnv(), stderr: "pipe" });
    client = new Client({ name: "resources-test", version: "1.0.0" });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    dir.remove();
  });

  test("the server offers resources with subscriptions and the file:///{path} template", async () => {
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: true });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["file:///{path}"]);
  });

  test("resources/list pages through every listed file, 100 at a time, hidden ones left out", async () => {
    const first = await client.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeString();
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    const uris = [...first.resources, ...second.resources].map((r) => r.uri);
    expect(uris).toHaveLength(132);
    expect(new Set(uris).size).toBe(132);
    expect(uris).toContain("file:///a%20b.txt");
    expect(uris).toContain("file:///docs/n129.md");
    expect(uris.some((u) => u.includes(".hidden"))).toBe(false);
    const note = first.resources.find((r) => r.uri === "file:///docs/n000.md");
    expect(note).toMatchObject({ name: "docs/n000.md", mimeType: "text/markdown", size: 9 });
  });

  test("resources/read gives text as text and a binary file as a base64 blob with its MIME type", async () => {
    const text = await client.readResource({ uri: "file:///a%20b.txt" });
    expect(text.contents).toEqual([{ uri: "file:///a%20b.txt", mimeType: "text/plain", text: "alpha\nbeta\n" }]);
    const png = await client.readResource({ uri: "file:///logo.png" });
    const blob = png.contents[0] as { blob: string; mimeType: string };
    expect(blob.mimeType).toBe("image/png");
    expect(new Uint8Array(Buffer.from(blob.blob, "base64"))).toEqual(new Uint8Array(readFileSync(join(dir.path, "logo.png"))));
  });

  test("a missing file, a path out of the workspace and a foreign scheme are errors that say what to do", async () => {
    await expect(client.readResource({ uri: "file:///nope.txt" })).rejects.toThrow(/Resource not found: file:\/\/\/nope.txt/);
    await expect(client.readResource({ uri: "file:///../etc/passwd" })).rejects.toThrow(/inside the workspace/);
    await expect(client.readResource({ uri: "https://example.com/x" })).rejects.toThrow(/file:\/\/\/\{path\}/);
  });

  test("a subscribed file changed through a tool sends notifications/resources/updated; other files do not", async () => {
    await client.subscribeResource({ uri: "file:///a%20b.txt" });
    await client.callTool({ name: "view", arguments: { path: "a b.txt" } });
    await client.callTool({ name: "view", arguments: { path: "docs/n001.md" } });
    updated.length = 0;
    await client.callTool({ name: "edit", arguments: { path: "docs/n001.md", old_string: "note 1", new_string: "note one" } });
    await client.callTool({ name: "edit", arguments: { path: "a b.txt", old_string: "beta", new_string: "BETA" } });
    // The notification is written before the edit's response on the same pipe.
    expect(updated).toEqual(["file:///a%20b.txt"]);
    expect((await client.readResource({ uri: "file:///a%20b.txt" })).contents[0]).toMatchObject({ text: "alpha\nBETA\n" });

    await client.unsubscribeResource({ uri: "file:///a%20b.txt" });
    updated.length = 0;
    await client.callTool({ name: "edit", arguments: { path: "a b.txt", old_string: "alpha", new_string: "ALPHA" } });
    expect(updated).toEqual([]);
  });
});
