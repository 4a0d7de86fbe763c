/**
 * The hosting flow of docs/hosting.md, run against any server URL (the local
 * serve process, serve over S3, the Worker under Miniflare): create a
 * workspace from a tar.gz, let an agent view and edit a file, export it,
 * refuse a write over quota, refuse an expired token, delete it. Plus tar
 * builders and a streaming 1 GB gzip bomb for the hostile-archive tests.
 */
import { expect } from "bun:test";
import type { WorkspaceInfo } from "../../src/http/hosting/registry.ts";
import type { CreateReply, RestToolReply, WorkspaceList } from "./api-replies.ts";
import { createTarPacker, packTar, unpackTar, type TarEntry } from "modern-tar";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The seed tree: path -> text. */
export const SEED: Record<string, string> = {
  "README.md": "# demo\n",
  "src/app.ts": 'export const greeting = "hello";\nexport const answer = 41;\n',
  "src/util/math.ts": "export const add = (a: number, b: number) => a + b;\n",
};

/** A tar (optionally gzipped) of `files`, with extra raw entries (links, odd names) appended. */
export async function tarOf(files: Record<string, string>, extra: TarEntry[] = [], gzip = true): Promise<Uint8Array> {
  const entries: TarEntry[] = Object.entries(files).map(([name, text]) => ({
    header: { name, size: encoder.encode(text).length, type: "file" },
    body: text,
  }));
  const tar = await packTar([...entries, ...extra]);
  return gzip ? gzipBytes(tar) : tar;
}

/** gzip `bytes` with the platform's CompressionStream. */
export async function gzipBytes(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The files of a tar.gz as path -> text. */
export async function treeOf(tarGz: Uint8Array): Promise<Record<string, string>> {
  const stream = new Blob([tarGz as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  const entries = await unpackTar(stream);
  const tree: Record<string, string> = {};
  for (const entry of entries) if (entry.header.type === "file" || entry.header.type === undefined) tree[entry.header.name] = decoder.decode(entry.data);
  return tree;
}

/**
 * A gzip stream of a tar holding one file `bomb.bin` of `size` zero bytes
 * (default 1 GiB), produced on demand: only what the reader pulls is ever
 * made, so a server that stops early costs the test little. `pulled()`
 * tells how many uncompressed bytes were made.
 */
export function gzipBomb(size = 1024 * 1024 * 1024): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  const { readable, controller } = createTarPacker();
  let made = 0;
  const chunk = new Uint8Array(1024 * 1024);
  void (async () => {
    try {
      const writer = controller.add({ name: "bomb.bin", size, type: "file" }).getWriter();
      while (made < size) {
        const n = Math.min(chunk.length, size - made);
        await writer.write(n === chunk.length ? chunk : chunk.subarray(0, n));
        made += n;
      }
      await writer.close();
      controller.finalize();
    } catch {
      // The reader went away: the server refused the archive.
    }
  })();
  return { stream: readable.pipeThrough(new CompressionStream("gzip")), pulled: () => made };
}

/** What the flow needs from the target. */
export interface FlowTarget {
  readonly url: string;
  /** A global admin token (ws "*", scope admin). */
  readonly admin: string;
  /** A token for `workspace` with read and write. */
  agent(workspace: string): Promise<string>;
  /** A token for `workspace` that expired a minute ago. */
  expired(workspace: string): Promise<string>;
  /** Optional: the bytes stored for `workspace` outside the API (dir or bucket), path -> text. */
  stored?(workspace: string): Promise<Record<string, string>>;
}

/** POST a tool call. */
export async function tool(url: string, token: string, name: string, args: unknown): Promise<{ status: number; body: RestToolReply }> {
  const response = await fetch(`${url}/v1/tools/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-session-id": "flow" },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as RestToolReply };
}

/** An admin request. */
export async function admin(url: string, token: string, method: string, path: string, init: { body?: BodyInit; type?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (init.type) headers["content-type"] = init.type;
  const response = await fetch(`${url}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
  return response;
}

/** The workspace's files without its reserved `.toolwarden/` (the audit log and history live there). */
async function filesStored(target: FlowTarget, ws: string): Promise<Record<string, string>> {
  const all = await target.stored!(ws);
  return Object.fromEntries(Object.entries(all).filter(([path]) => !path.startsWith(".toolwarden/")));
}

/** Run the seven steps against `target` for workspace `ws`. */
export async function runHostingFlow(target: FlowTarget, ws: string): Promise<void> {
  const { url } = target;
  // 1. tokens
  const agent = await target.agent(ws);

  // 2. create from a tar.gz, with a small quota
  const seed = await tarOf(SEED);
  const created = await admin(url, target.admin, "PUT", `/v1/workspaces/${ws}?maxBytes=4096&maxFiles=5`, { body: seed as BodyInit, type: "application/gzip" });
  const createdBody = (await created.json()) as CreateReply;
  expect(created.status, JSON.stringify(createdBody)).toBe(201);
  // Directories are those holding the files (src, src/util), whether or not the archive lists them.
  expect(createdBody.imported).toEqual({ files: 3, bytes: Object.values(SEED).reduce((n, t) => n + t.length, 0), directories: 2 });
  const again = await admin(url, target.admin, "PUT", `/v1/workspaces/${ws}`);
  expect(again.status).toBe(200);
  expect(((await again.json()) as CreateReply).created).toBe(false);

  // 3. the agent views and edits a file from the archive
  const view = await tool(url, agent, "view", { path: "src/app.ts" });
  expect(view.body.isError, JSON.stringify(view.body)).toBe(false);
  expect(view.body.content[0].text).toContain("answer = 41");
  const edit = await tool(url, agent, "edit", { path: "src/app.ts", old_string: "answer = 41", new_string: "answer = 42" });
  expect(edit.body.isError, JSON.stringify(edit.body)).toBe(false);

  // 4. the export holds exactly the edited tree
  const edited = { ...SEED, "src/app.ts": SEED["src/app.ts"].replace("41", "42") };
  const exported = await admin(url, target.admin, "GET", `/v1/workspaces/${ws}/archive`);
  expect(exported.status).toBe(200);
  expect(exported.headers.get("content-type")).toBe("application/gzip");
  expect(await treeOf(new Uint8Array(await exported.arrayBuffer()))).toEqual(edited);
  if (target.stored) expect(await filesStored(target, ws)).toEqual(edited);

  // 5. a write over quota is refused, nothing written
  const before = (await (await admin(url, target.admin, "GET", `/v1/workspaces/${ws}`)).json()) as WorkspaceInfo;
  expect(before.usage).toEqual({ bytes: Object.values(edited).reduce((n, t) => n + t.length, 0), files: 3 });
  expect(before.quota).toEqual({ maxBytes: 4096, maxFiles: 5 });
  const big = await tool(url, agent, "write", { path: "big.txt", content: "x".repeat(5000) });
  expect(big.body.isError).toBe(true);
  expect(big.body.code).toBe("LIMIT_EXCEEDED");
  const text = big.body.content[0].text;
  expect(text).toContain(`5000 bytes to the ${before.usage.bytes} bytes in use`);
  expect(text).toContain("limit of 4096 bytes");
  expect(text).toContain("Nothing was written");
  const after = (await (await admin(url, target.admin, "GET", `/v1/workspaces/${ws}`)).json()) as WorkspaceInfo;
  expect(after.usage).toEqual(before.usage);
  const absent = await tool(url, agent, "view", { path: "big.txt" });
  expect(absent.body.code).toBe("FS_NOT_FOUND");
  if (target.stored) expect(await filesStored(target, ws)).toEqual(edited);

  // 6. an expired token is refused, without echoing it
  const expired = await target.expired(ws);
  const refused = await fetch(`${url}/v1/tools/view`, {
    method: "POST",
    headers: { authorization: `Bearer ${expired}`, "content-type": "application/json" },
    body: JSON.stringify({ path: "README.md" }),
  });
  const refusedText = await refused.text();
  expect(refused.status).toBe(401);
  expect(JSON.parse(refusedText).error.code).toBe("UNAUTHORIZED");
  expect(refusedText).toContain("expired");
  expect(refusedText).not.toContain(expired.split(".")[1]);

  // 7. after delete the workspace is gone
  const listed = (await (await admin(url, target.admin, "GET", "/v1/workspaces")).json()) as WorkspaceList;
  expect(listed.workspaces).toContain(ws);
  const deleted = await admin(url, target.admin, "DELETE", `/v1/workspaces/${ws}`);
  expect(deleted.status).toBe(200);
  expect((await admin(url, target.admin, "GET", `/v1/workspaces/${ws}`)).status).toBe(404);
  const gone = await tool(url, agent, "view", { path: "README.md" });
  expect(gone.status).toBe(404);
  expect(gone.body.error.code).toBe("FS_NOT_FOUND");
  const relisted = (await (await admin(url, target.admin, "GET", "/v1/workspaces")).json()) as WorkspaceList;
  expect(relisted.workspaces).not.toContain(ws);
  if (target.stored) expect(await target.stored(ws)).toEqual({});
}
