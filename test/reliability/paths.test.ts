/**
 * Hostile paths through the real tools over HTTP (REST), on local storage
 * (the real `toolwarden serve` over a temp directory with symlinks and a
 * FIFO) and on R2 (the deployed Worker in workerd, where a workspace is a key
 * prefix). Every attempt of test/reliability/corpus-paths.ts goes through
 * every tool (view, write, edit, batch_edit); after each one the canaries
 * outside the workspace must be byte-identical (local: same inode, size and
 * bytes; R2: same keys and ETags), no reply may contain a canary's marker or
 * a token, and the workspace itself may only have gained the one file a
 * harmless `write` names. See the corpus for what each outcome means.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServeProcess } from "../helpers/cli.ts";
import { PATH_ATTEMPTS, WORKSPACE_FILES, type PathAttempt, type PathOutcome } from "../helpers/reliability/corpus-paths.ts";
import { makeLocalFixture, serveFixture, snapshotTree, treeChanges, type LocalFixture } from "../helpers/reliability/fixture-local.ts";
import { snapshotBucket, startR2Worker, type R2Worker } from "../helpers/reliability/fixture-r2.ts";
import { callTool, codeOf, leaked, textOf, toolResult, type ToolReply } from "../helpers/reliability/http.ts";

const TOOLS = ["view", "write", "edit", "batch_edit"] as const;
type Tool = (typeof TOOLS)[number];

const PAYLOAD = "PWNED by the hostile-path suite\n";

/** The strongest call of each tool: if it reached a canary it would read it, replace it, or change it. */
function argsFor(tool: Tool, path: string): Record<string, unknown> {
  switch (tool) {
    case "view":
      return { path };
    case "write":
      return { path, content: PAYLOAD };
    case "edit":
      // Every canary holds exactly one "CANARY".
      return { path, old_string: "CANARY", new_string: "PWNED" };
    case "batch_edit":
      // Inserting at the start needs no line id, so it would apply to any text file it reached.
      return { path, operations: [{ operation: "insert", after: 0, content: "PWNED" }] };
  }
}

/** The code each tool must answer with. */
function expectedCode(tool: Tool, outcome: PathOutcome): string {
  if (outcome.kind === "refused") return outcome.code;
  if (outcome.kind === "unexpanded") return tool === "view" ? "FS_NOT_FOUND" : "FS_INVALID_PATH";
  if (outcome.exists) return tool === "view" ? "ok" : "FS_NOT_OBSERVED";
  return tool === "write" ? "ok" : "FS_NOT_FOUND";
}

/** Both sides of the boundary at one moment. */
interface Snapshot {
  /** Everything inside the workspace (paths relative to it). */
  readonly inside: Map<string, string>;
  /** Everything outside it. */
  readonly outside: Map<string, string>;
}

/** What a backend gives the shared driver. */
interface Backend {
  readonly url: () => string | URL;
  readonly token: () => string;
  readonly outcome: (attempt: PathAttempt) => PathOutcome;
  /** Strings no reply may contain: canary markers and tokens. */
  readonly secrets: () => readonly string[];
  /** One look at the whole store (one walk, or one bucket listing). */
  snapshot(): Promise<Snapshot>;
  /** Content of a workspace file, or undefined. */
  readInside(path: string): Promise<string | undefined>;
  /** Remove entries a harmless write created (relative paths from `treeChanges`). */
  removeInside(paths: readonly string[]): Promise<void>;
}

const shown = (path: string) => {
  const json = JSON.stringify(path);
  return json.length > 70 ? `${json.slice(0, 60)}…(${path.length} chars)` : json;
};

/**
 * Register one test per corpus attempt for `backend`. The tools run in a
 * fresh session each: view, edit and batch_edit together, then write (so
 * that a harmless create cannot turn the others' "not found" into "not
 * observed"). One snapshot per attempt, compared with the one before.
 */
function hostilePathTests(label: string, backend: Backend): void {
  let baseline: Snapshot | undefined;
  PATH_ATTEMPTS.forEach((attempt, i) => {
    const named = backend.outcome(attempt);
    // A trailing "/" names a directory: only view may reach it; the tools that change files refuse it.
    const directoryOnly = named.kind === "inside" && attempt.path.endsWith("/");
    const outcomeFor = (tool: Tool): PathOutcome => (directoryOnly && tool !== "view" ? { kind: "refused", code: "FS_INVALID_PATH" } : named);
    const outcome = outcomeFor("write");
    const verdict = outcome.kind === "refused" ? outcome.code : outcome.kind === "unexpanded" ? "not expanded" : `inside -> ${shown(outcome.landsOn)}`;
    test(`${label} #${i} ${shown(attempt.path)} (${attempt.why}): ${verdict}`, async () => {
      const before = (baseline ??= await backend.snapshot());
      const run = async (tool: Tool) => {
        const reply = await callTool(backend.url(), tool, argsFor(tool, attempt.path), {
          token: backend.token(),
          session: `paths-${i}-${tool}`,
        });
        return { tool, reply };
      };
      const replies = await Promise.all((["view", "edit", "batch_edit"] as const).map(run));
      replies.push(await run("write"));
      for (const { tool, reply } of replies) {
        expect(leaked(reply.text, backend.secrets())).toEqual([]);
        const result: ToolReply = toolResult(reply);
        const text = textOf(result);
        const expected = outcomeFor(tool);
        expect({ tool, code: codeOf(result) }).toEqual({ tool, code: expectedCode(tool, expected) });
        if (expected.kind === "refused") {
          // Every refusal says how to recover.
          expect(text).toMatch(expected.code === "FS_INVALID_PATH" ? /workspace-relative path/ : /choose a path inside the workspace/);
        } else if (expected.kind === "unexpanded") {
          expect(text).toMatch(/not expanded|relative to the workspace|workspace-relative path/);
          expect(text).not.toContain("can create it");
        } else if (tool === "write" && !expected.exists) {
          expect(text).toContain(`Created \`${expected.landsOn}\``);
        }
      }

      const after = await backend.snapshot();
      expect(treeChanges(before.outside, after.outside)).toEqual([]);
      const changes = treeChanges(before.inside, after.inside);
      baseline = after;
      if (outcome.kind === "inside" && !outcome.exists) {
        // The one harmless effect: exactly landsOn (and its new parents) was created, inside.
        expect(changes.length).toBeGreaterThan(0);
        expect(changes.filter((c) => !(c.startsWith("+ ") && `${outcome.landsOn}/`.startsWith(`${c.slice(2)}/`)))).toEqual([]);
        expect(await backend.readInside(outcome.landsOn)).toBe(PAYLOAD);
        await backend.removeInside(changes.map((c) => c.slice(2)));
        baseline = undefined;
      } else {
        expect(changes).toEqual([]);
      }
    });
  });
}

// ---------------------------------------------------------------- local

const LOCAL_TOKEN = "rel-paths-local-token-0123456789";

describe("hostile paths: local storage (toolwarden serve)", () => {
  let fixture: LocalFixture;
  let server: ServeProcess;

  beforeAll(async () => {
    fixture = makeLocalFixture();
    server = await serveFixture(fixture, { tokens: [{ token: LOCAL_TOKEN, scopes: ["read", "write"], label: "ws" }] });
  }, 30_000);
  afterAll(() => {
    server?.kill();
    fixture?.remove();
  });

  hostilePathTests("local", {
    url: () => server.url,
    token: () => LOCAL_TOKEN,
    outcome: (attempt) => attempt.local,
    secrets: () => [...fixture.markers, LOCAL_TOKEN],
    snapshot: async () => ({ inside: snapshotTree(fixture.ws), outside: snapshotTree(fixture.base, ["ws"]) }),
    async readInside(path) {
      try {
        return readFileSync(join(fixture.ws, path), "utf8");
      } catch {
        return undefined;
      }
    },
    async removeInside(paths) {
      for (const path of [...paths].sort((a, b) => b.length - a.length)) rmSync(join(fixture.ws, path), { recursive: true, force: true });
    },
  });

  test("control: a symlink that stays inside is followed, so the refusals above are about leaving", async () => {
    const result = toolResult(await callTool(server.url, "view", { path: "link-inside" }, { token: LOCAL_TOKEN, session: "control" }));
    expect(codeOf(result)).toBe("ok");
    expect(textOf(result)).toContain(`|${WORKSPACE_FILES["inside.txt"].trim()}`);
  });

  test("listings and searches of the whole workspace show nothing from outside", async () => {
    const before = snapshotTree(fixture.base, ["ws"]);
    const calls: Array<Record<string, unknown>> = [
      { path: ".", depth: 20, hidden: true, gitignore: false },
      { path: ".", pattern: "**", hidden: true, gitignore: false },
      { path: ".", content: "CANARY", hidden: true, gitignore: false },
      { path: ".", content: "CANARY-[a-z-]+", regex: true, hidden: true, gitignore: false },
    ];
    for (const args of calls) {
      const reply = await callTool(server.url, "view", args, { token: LOCAL_TOKEN, session: "listing" });
      expect(leaked(reply.text, [...fixture.markers, LOCAL_TOKEN])).toEqual([]);
      const text = textOf(toolResult(reply));
      // Names that exist only outside (through link-dir, link-up, link-evil) never appear.
      for (const outsideName of ["secret.txt", "canary.txt", "ws-evil", "toolwarden.json"]) expect(text).not.toContain(outsideName);
    }
    expect(treeChanges(before, snapshotTree(fixture.base, ["ws"]))).toEqual([]);
  });

  describe("a path that turns into a symlink between check (view) and use", () => {
    // The outside twin has the same bytes, so the content-hash version the session saw still matches:
    // only containment stands between the write and the file outside.
    const SAME = "same bytes on both sides\n";

    test("a file swapped for a symlink to an identical file outside: write, edit and batch_edit are refused", async () => {
      writeFileSync(join(fixture.base, "outside/twin.txt"), SAME);
      writeFileSync(join(fixture.ws, "swapped.txt"), SAME);
      const session = "swap-file";
      const view = toolResult(await callTool(server.url, "view", { path: "swapped.txt" }, { token: LOCAL_TOKEN, session }));
      expect(codeOf(view)).toBe("ok");
      const id = /^(\d+:[0-9a-f]{2})\|/m.exec(textOf(view))![1];
      rmSync(join(fixture.ws, "swapped.txt"));
      symlinkSync(join(fixture.base, "outside/twin.txt"), join(fixture.ws, "swapped.txt"));
      const before = snapshotTree(fixture.base, ["ws"]);
      const attempts: Array<[Tool, Record<string, unknown>]> = [
        ["write", { path: "swapped.txt", content: PAYLOAD }],
        ["edit", { path: "swapped.txt", old_string: "same bytes", new_string: "PWNED" }],
        ["batch_edit", { path: "swapped.txt", operations: [{ operation: "replace", start: id, content: "PWNED" }] }],
        ["view", { path: "swapped.txt" }],
      ];
      for (const [tool, args] of attempts) {
        const result = toolResult(await callTool(server.url, tool, args, { token: LOCAL_TOKEN, session }));
        expect({ tool, code: codeOf(result) }).toEqual({ tool, code: "FS_ACCESS_DENIED" });
      }
      expect(treeChanges(before, snapshotTree(fixture.base, ["ws"]))).toEqual([]);
      expect(readFileSync(join(fixture.base, "outside/twin.txt"), "utf8")).toBe(SAME);
      rmSync(join(fixture.ws, "swapped.txt"));
    });

    test("a parent directory swapped for a symlink to an identical directory outside: every tool is refused", async () => {
      mkdirSync(join(fixture.base, "outside/twin-dir"), { recursive: true });
      writeFileSync(join(fixture.base, "outside/twin-dir/f.txt"), SAME);
      mkdirSync(join(fixture.ws, "swapdir"));
      writeFileSync(join(fixture.ws, "swapdir/f.txt"), SAME);
      const session = "swap-dir";
      const view = toolResult(await callTool(server.url, "view", { path: "swapdir/f.txt" }, { token: LOCAL_TOKEN, session }));
      const id = /^(\d+:[0-9a-f]{2})\|/m.exec(textOf(view))![1];
      rmSync(join(fixture.ws, "swapdir"), { recursive: true });
      symlinkSync("../outside/twin-dir", join(fixture.ws, "swapdir"));
      const before = snapshotTree(fixture.base, ["ws"]);
      const attempts: Array<[Tool, Record<string, unknown>]> = [
        ["write", { path: "swapdir/f.txt", content: PAYLOAD }],
        ["write", { path: "swapdir/new.txt", content: PAYLOAD }],
        ["edit", { path: "swapdir/f.txt", old_string: "same bytes", new_string: "PWNED" }],
        ["batch_edit", { path: "swapdir/f.txt", operations: [{ operation: "replace", start: id, content: "PWNED" }] }],
        ["view", { path: "swapdir" }],
      ];
      for (const [tool, args] of attempts) {
        const result = toolResult(await callTool(server.url, tool, args, { token: LOCAL_TOKEN, session }));
        expect({ tool, code: codeOf(result) }).toEqual({ tool, code: "FS_ACCESS_DENIED" });
      }
      expect(treeChanges(before, snapshotTree(fixture.base, ["ws"]))).toEqual([]);
      rmSync(join(fixture.ws, "swapdir"));
    });

    test("racing: a directory flipping between real and a symlink outside while four clients read and write through it", async () => {
      mkdirSync(join(fixture.base, "outside/race"), { recursive: true });
      writeFileSync(join(fixture.base, "outside/race/same.txt"), SAME);
      const raceMarker = `CANARY-race-${crypto.randomUUID()}`;
      writeFileSync(join(fixture.base, "outside/race/secret.txt"), `${raceMarker}\n`);
      const before = snapshotTree(fixture.base, ["ws"]);
      // A process of our own flips ws/flip as fast as it can; killed by its pid below.
      const flipper: ChildProcess = spawn(
        "bash",
        [
          "-c",
          "while :; do rm -f flip; mkdir flip 2>/dev/null; printf 'inside\\n' > flip/secret.txt; " +
            `printf '${SAME.trim()}\\n' > flip/same.txt; rm -rf flip; ln -s ../outside/race flip; done`,
        ],
        { cwd: fixture.ws, stdio: "ignore" },
      );
      const secrets = [...fixture.markers, raceMarker, LOCAL_TOKEN];
      const codes = new Map<string, number>();
      let rounds = 0;
      try {
        const deadline = Date.now() + 1500;
        const client = async (c: number) => {
          for (let r = 0; Date.now() < deadline; r++) {
            const session = `race-${c}-${r}`;
            const calls: Array<[Tool, Record<string, unknown>]> = [
              ["view", { path: "flip/same.txt" }],
              ["view", { path: "flip/secret.txt" }],
              ["write", { path: "flip/same.txt", content: PAYLOAD }],
              ["edit", { path: "flip/same.txt", old_string: "same bytes", new_string: "PWNED" }],
              ["batch_edit", { path: "flip/same.txt", operations: [{ operation: "insert", after: 0, content: "PWNED" }] }],
              ["write", { path: `flip/new-${c}-${r}/f.txt`, content: PAYLOAD }],
              ["view", { path: "flip", content: "CANARY" }],
            ];
            for (const [tool, args] of calls) {
              const reply = await callTool(server.url, tool, args, { token: LOCAL_TOKEN, session });
              expect(leaked(reply.text, secrets)).toEqual([]);
              const code = codeOf(toolResult(reply));
              codes.set(code, (codes.get(code) ?? 0) + 1);
            }
            rounds++;
          }
        };
        await Promise.all([0, 1, 2, 3].map(client));
      } finally {
        flipper.kill("SIGKILL");
        await new Promise((resolve) => flipper.once("exit", resolve));
      }
      rmSync(join(fixture.ws, "flip"), { recursive: true, force: true });
      expect(treeChanges(before, snapshotTree(fixture.base, ["ws"]))).toEqual([]);
      // The race was real: both sides of the flip were met.
      expect(rounds).toBeGreaterThan(10);
      expect(codes.get("FS_ACCESS_DENIED") ?? 0).toBeGreaterThan(0);
      expect(codes.get("ok") ?? 0).toBeGreaterThan(0);
    }, 20_000);
  });
});

// ---------------------------------------------------------------- R2

const R2_TOKEN = "rel-paths-r2-ws-token-0123456789";
const R2_EVIL_TOKEN = "rel-paths-r2-evil-token-0123456789";

describe("hostile paths: R2 (the Worker in workerd)", () => {
  let worker: R2Worker;
  const markers: string[] = [];

  beforeAll(async () => {
    worker = await startR2Worker([
      { token: R2_TOKEN, workspace: "ws", scopes: ["read", "write"], label: "ws" },
      { token: R2_EVIL_TOKEN, workspace: "ws-evil", scopes: ["read", "write"], label: "ws-evil" },
    ]);
    // Canaries: the sibling workspace, the bucket root, a key equal to the prefix without its slash, look-alike prefixes.
    for (const key of ["ws-evil/canary.txt", "ws-evil/secret.txt", "secret.txt", "ws", "ws.bak/canary.txt", "wsx/secret.txt", "inside.txt"]) {
      const m = `CANARY-${key.replace(/[^a-z]/g, "")}-${crypto.randomUUID()}`;
      markers.push(m);
      await worker.bucket.put(key, `${m}\n`);
    }
    for (const [path, content] of Object.entries(WORKSPACE_FILES)) await worker.bucket.put(`ws/${path}`, content);
  }, 90_000);
  afterAll(async () => {
    await worker?.dispose();
  });

  // The workspace's audit log (ws/.toolwarden/, out of every tool's reach) records each call, refused ones too: not a file change.
  const under = (snapshot: Map<string, string>, inside: boolean) =>
    new Map(
      [...snapshot]
        .filter(([key]) => !key.startsWith("ws/.toolwarden/") && key.startsWith("ws/") === inside)
        .map(([key, sig]) => [inside ? key.slice(3) : key, sig]),
    );

  hostilePathTests("r2", {
    url: () => worker.url,
    token: () => R2_TOKEN,
    outcome: (attempt) => attempt.r2,
    secrets: () => [...markers, R2_TOKEN, R2_EVIL_TOKEN],
    async snapshot() {
      const all = await snapshotBucket(worker.bucket, ["ws/.toolwarden/"]);
      return { inside: under(all, true), outside: under(all, false) };
    },
    async readInside(path) {
      return (await worker.bucket.get(`ws/${path}`))?.text();
    },
    async removeInside(paths) {
      await worker.bucket.delete(paths.map((p) => `ws/${p}`));
    },
  });

  test("listings and searches of the whole workspace show nothing of ws-evil, the bucket root or look-alike prefixes", async () => {
    const calls: Array<Record<string, unknown>> = [
      { path: ".", depth: 20, hidden: true, gitignore: false },
      { path: "/", pattern: "**", hidden: true, gitignore: false },
      { path: ".", content: "CANARY", hidden: true, gitignore: false },
    ];
    for (const args of calls) {
      const reply = await callTool(worker.url, "view", args, { token: R2_TOKEN, session: "listing" });
      expect(leaked(reply.text, markers)).toEqual([]);
      const text = textOf(toolResult(reply));
      for (const name of ["secret.txt", "canary.txt", "ws-evil", "ws.bak", "wsx"]) expect(text).not.toContain(name);
    }
  });

  test("the sibling workspace's own token still reads its canary: the refusals above are about the boundary, not a broken bucket", async () => {
    const result = toolResult(await callTool(worker.url, "view", { path: "canary.txt" }, { token: R2_EVIL_TOKEN, session: "evil" }));
    expect(codeOf(result)).toBe("ok");
    expect(leaked(textOf(result), markers)).toHaveLength(1);
  });
});
