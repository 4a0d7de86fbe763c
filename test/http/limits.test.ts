/** createApp hands every tool limit it is given to the tools, and defaults the rest. */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp, type toolLimitsOf } from "../../src/http/app.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { ok } from "../../src/result.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { DEFAULT_LIMITS } from "../../src/tools/types.ts";
import { fakeTool } from "../helpers/pipeline-fakes.ts";

const limitsTool = fakeTool("limits", "read", v.strictObject({}), async (_args, ctx) => ok(JSON.stringify(ctx.limits)));

async function limitsSeenByTools(limits: Parameters<typeof toolLimitsOf>[0]): Promise<Record<string, unknown>> {
  const app = createApp({
    tools: [limitsTool],
    auth: { mode: "none", workspace: "ws" },
    storageFor: () => createMemoryStorage(),
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    limits,
    version: "0.0.0-test",
  });
  const response = await app.request("http://127.0.0.1/v1/tools/limits", {
    method: "POST",
    headers: { "content-type": "application/json", host: "127.0.0.1" },
    body: "{}",
  });
  const body = (await response.json()) as { content: { text: string }[] };
  return JSON.parse(body.content[0]!.text);
}

describe("createApp limits", () => {
  test("casRetryMs and the other tool limits reach the tools; the HTTP-only ones do not", async () => {
    const seen = await limitsSeenByTools({ casRetryMs: 1234, maxViewLines: 7, maxBodyBytes: 4096, callTimeoutMs: 900 });
    expect(seen).toEqual({ ...DEFAULT_LIMITS, casRetryMs: 1234, maxViewLines: 7 });
  });

  test("an undefined field keeps its default", async () => {
    expect(await limitsSeenByTools({ maxFileBytes: undefined })).toEqual({ ...DEFAULT_LIMITS });
  });
});
