// Small view through app.fetch (no network) with the local workspace + history, on Bun or Deno.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "./src/http/mod.ts";
import { buildPipeline } from "./src/cli/toolset.ts";
import { loadHasher } from "./src/cli/hasher.ts";
import { openWorkspace } from "./src/cli/workspaces.ts";
import { openHistory } from "./src/cli/state.ts";
import { deferRecording } from "./src/history/mod.ts";
import { createMemoryObservationStore } from "./src/policy/memory.ts";
import { DEFAULT_LIMITS } from "./src/tools/types.ts";
import { codeText } from "./bench/lib/fixtures.ts";
const base = mkdtempSync(join(tmpdir(), "tw-exp7-")); const work = join(base, "ws"); mkdirSync(join(work, "src"), { recursive: true });
writeFileSync(join(work, "src/small.ts"), codeText(60, 5));
const ws = await openWorkspace(work, false);
const mode = (globalThis as any).process?.argv?.includes("nohist") || (globalThis as any).Deno?.args?.includes("nohist") ? "nohist" : "hist";
const history = mode === "hist" ? deferRecording(await openHistory(join(base, "state"), ws.real)) : undefined;
const app = createApp({ pipeline: buildPipeline({ root: work, limits: {}, shell: { enabled: false }, rules: {} }, work), auth: { mode: "none", workspace: "ws" } as any,
  storageFor: () => ws.storage, historyFor: () => history, observations: createMemoryObservationStore(), hasher: await loadHasher(), limits: DEFAULT_LIMITS, version: "1", allowedHosts: ["127.0.0.1:1"] } as any);
const H = { "content-type": "application/json", host: "127.0.0.1:1" };
const body = JSON.stringify({ path: "src/small.ts" });
const call = async () => { const r = await app.fetch(new Request("http://127.0.0.1:1/v1/tools/view", { method: "POST", headers: H, body })); const j = await r.json(); if (j.isError) throw new Error(JSON.stringify(j)); };
for (let i = 0; i < 500; i++) await call();
await history?.settled();
const xs: number[] = [];
for (let r = 0; r < 9; r++) { const t = performance.now(); for (let i = 0; i < 200; i++) await call(); await history?.settled(); xs.push((performance.now() - t) / 200); }
xs.sort((a, b) => a - b);
console.log(`${(globalThis as any).Deno ? "deno" : "bun"} ${mode} ms/call median ${xs[4].toFixed(3)} (min ${xs[0].toFixed(3)})`);
