/**
 * A real toolwarden HTTP server on a real port, with small fake tools named
 * like the real ones (`view` read-only, `write` destructive) that use
 * storage and observations the way the real ones do. Swapping in the real
 * tools later means passing `fileTools` instead of `fakeTools()`.
 */
import * as v from "valibot";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp, type AppOptions } from "../../src/http/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fail, ok, type ToolResult } from "../../src/result.ts";
import { isFsError } from "../../src/storage/errors.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";
import type { ToolDef } from "../../src/tools/types.ts";

const text = new TextDecoder();
const bytes = new TextEncoder();

/** `view {path}`: prints the file and records what the session saw (present or absent). */
export const fakeView: ToolDef = {
  name: "view",
  description: "View a file.\nPrints the whole file.",
  scope: "read",
  annotations: { readOnlyHint: true },
  schema: v.strictObject({ path: v.pipe(v.string(), v.minLength(1), v.description("Workspace-relative file path")) }),
  async run(args, ctx): Promise<ToolResult> {
    const { path } = args as { path: string };
    try {
      const file = await ctx.storage.read(path);
      await ctx.observations.set(ctx.caller.session, path, { kind: "present", version: file.version });
      return ok(text.decode(file.bytes));
    } catch (error) {
      if (isFsError(error) && error.code === "FS_NOT_FOUND") {
        await ctx.observations.set(ctx.caller.session, path, { kind: "absent" });
        return fail("FS_NOT_FOUND", `No file at ${path}. Create it with write.`);
      }
      throw error;
    }
  },
};

/** `write {path, content}`: an existing file must have been viewed in this session (CAS on that version). */
export const fakeWrite: ToolDef = {
  name: "write",
  description: "Write a whole file.",
  scope: "write",
  annotations: { destructiveHint: true },
  schema: v.strictObject({ path: v.string(), content: v.string() }),
  async run(args, ctx): Promise<ToolResult> {
    const { path, content } = args as { path: string; content: string };
    const seen = await ctx.observations.get(ctx.caller.session, path);
    const exists = (await ctx.storage.stat(path)) !== null;
    if (exists && seen?.kind !== "present") return fail("FS_NOT_OBSERVED", `${path} exists and was not read in this session: view it, then retry.`);
    const condition = seen?.kind === "present" ? Cond.ifVersion(seen.version) : Cond.ifAbsent;
    try {
      const written = await ctx.storage.write(path, bytes.encode(content), condition);
      await ctx.observations.set(ctx.caller.session, path, { kind: "present", version: written.version });
      return ok(`wrote ${path}`);
    } catch (error) {
      if (isFsError(error)) return fail(error.code, `${path} changed since it was read: view it again, then retry.`);
      throw error;
    }
  },
};

/** `note {}`: succeeds with a notice attached (as the rule engine would add). */
export const fakeNote: ToolDef = {
  name: "note",
  description: "Succeed with a notice.",
  scope: "read",
  annotations: {},
  schema: v.strictObject({}),
  async run(): Promise<ToolResult> {
    return { ...ok("done"), notices: [{ text: "Heads up: a rule matched.", source: { kind: "plugin", plugin: "rules" } }] };
  },
};

/** `hang {}`: waits until the call is aborted (timeout), then reports it saw the abort. */
export const fakeHang: ToolDef = {
  name: "hang",
  description: "Wait for the abort signal.",
  scope: "read",
  annotations: {},
  schema: v.strictObject({}),
  run(_args, ctx): Promise<ToolResult> {
    return new Promise((resolve) => ctx.signal?.addEventListener("abort", () => resolve(ok("aborted")), { once: true }));
  },
};

/** The fake tool set. */
export function fakeTools(): ToolDef[] {
  return [fakeView, fakeWrite, fakeNote, fakeHang];
}

/** Tokens used by the tests: full access to ws1, read-only ws1, full access ws2. */
export const TOKENS = {
  full: "tok-full-0123456789abcdef",
  readOnly: "tok-read-0123456789abcdef",
  other: "tok-other-0123456789abcdef",
} as const;

/** A running server. */
export interface TestServer {
  readonly url: string;
  readonly port: number;
  /** Storage of each workspace (created on first use). */
  readonly storages: Map<string, Storage>;
  stop(): Promise<void>;
}

/** Options for {@link startServer}: anything of AppOptions, with test defaults for the rest. */
export type TestServerOptions = Partial<AppOptions> & {
  /** Give every workspace the same storage (to show observation keys, not storage, separate them). */
  readonly sharedStorage?: boolean;
};

/** Start the app on 127.0.0.1 with a free port. */
export function startServer(options: TestServerOptions = {}): TestServer {
  const storages = new Map<string, Storage>();
  const shared = createMemoryStorage();
  const storageFor = (workspace: string) => {
    if (options.sharedStorage) return shared;
    let storage = storages.get(workspace);
    if (!storage) storages.set(workspace, (storage = createMemoryStorage()));
    return storage;
  };
  const app = createApp({
    tools: options.pipeline ? undefined : (options.tools ?? fakeTools()),
    auth: {
      mode: "bearer",
      tokens: [
        { token: TOKENS.full, workspace: "ws1", scopes: ["read", "write"], label: "full" },
        { token: TOKENS.readOnly, workspace: "ws1", scopes: ["read"], label: "read-only" },
        { token: TOKENS.other, workspace: "ws2", scopes: ["read", "write"], label: "other" },
      ],
    },
    storageFor,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "9.9.9-test",
    ...options,
  });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  const port = server.port!;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    storages,
    stop: () => server.stop(true),
  };
}

/** Headers for a JSON REST call with `token` (and an optional session). */
export function jsonHeaders(token: string | undefined, session?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(session ? { "x-session-id": session } : {}),
  };
}
