/**
 * The auth matrix of test/reliability/corpus-auth.ts against the real
 * `toolwarden serve` (shell on, four tokens over two workspaces), over REST
 * and over MCP (raw JSON-RPC on the wire): a credential that does not
 * authenticate is a 401 with a challenge and the fix; a token without the
 * scope, or of another workspace, gets the model-facing denial. After every
 * row the whole fixture (both workspaces, the canaries, the config) is
 * byte-identical, and no reply contains a token or a canary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServeProcess } from "../helpers/cli.ts";
import {
  attackArgs,
  AUTH_TOKENS,
  BAD_CREDENTIALS,
  SCOPE_CASES,
  TARGET,
  type AuthTool,
  type ScopeCase,
  type TokenName,
} from "../helpers/reliability/corpus-auth.ts";
import { makeLocalFixture, serveFixture, snapshotTree, treeChanges, type LocalFixture } from "../helpers/reliability/fixture-local.ts";
import {
  callTool,
  codeOf,
  leaked,
  mcpCode,
  mcpInitialize,
  mcpOpen,
  mcpResult,
  mcpSend,
  mcpToolCall,
  send,
  textOf,
  toolResult,
  type ErrorReply,
  type Reply,
} from "../helpers/reliability/http.ts";

const TOOLS: readonly AuthTool[] = ["view", "write", "edit", "batch_edit", "bash"];
const bearer = (name: TokenName) => `Bearer ${AUTH_TOKENS[name]}`;

let fixture: LocalFixture;
let server: ServeProcess;
let secrets: string[];

beforeAll(async () => {
  fixture = makeLocalFixture();
  writeFileSync(join(fixture.ws, TARGET.path), TARGET.content);
  server = await serveFixture(fixture, {
    shell: true,
    tokens: [
      { token: AUTH_TOKENS.owner, scopes: ["read", "write"], label: "owner" },
      { token: AUTH_TOKENS.exec, scopes: ["read", "write", "exec"], label: "exec" },
      { token: AUTH_TOKENS.readOnly, scopes: ["read"], label: "read-only" },
      { token: AUTH_TOKENS.other, scopes: ["read", "write"], workspace: "ws-evil", label: "other" },
    ],
  });
  secrets = [...fixture.markers, ...Object.values(AUTH_TOKENS)];
}, 30_000);
afterAll(() => {
  server?.kill();
  fixture?.remove();
});

/** Run `body`, then check that nothing anywhere in the fixture changed and no reply leaked a secret. */
async function unchanged(body: () => Promise<Reply[]>): Promise<Reply[]> {
  const before = snapshotTree(fixture.base);
  const replies = await body();
  for (const reply of replies) expect(leaked(reply.text, secrets)).toEqual([]);
  expect(treeChanges(before, snapshotTree(fixture.base))).toEqual([]);
  return replies;
}

function expect401(reply: Reply, phrase: RegExp): void {
  expect(reply.status).toBe(401);
  const body = reply.json as ErrorReply;
  expect(body.error.code).toBe("UNAUTHORIZED");
  expect(body.error.message).toMatch(phrase);
  expect(reply.headers.get("www-authenticate")).toStartWith('Bearer realm="toolwarden"');
}

/** Whether `scopeCase`'s token may view: then it views first, so that scope, not a missing view, is what stops it. */
const viewsFirst = (c: ScopeCase) => c.tool !== "view" && c.tool !== "bash" && c.path === undefined;

describe("REST", () => {
  for (const credential of BAD_CREDENTIALS) {
    for (const tool of TOOLS) {
      test(`${credential.name} -> ${tool}: 401 with the fix, nothing changed`, async () => {
        const [reply] = await unchanged(async () => [
          await send(new URL(`/v1/tools/${tool}`, server.url), attackArgs(tool), {
            headers: credential.header === null ? {} : { authorization: credential.header },
          }),
        ]);
        expect401(reply, credential.phrase);
      });
    }
  }

  test("every bad credential is also refused on GET /v1/tools", async () => {
    for (const credential of BAD_CREDENTIALS) {
      const reply = await send(new URL("/v1/tools", server.url), undefined, {
        method: "GET",
        headers: credential.header === null ? {} : { authorization: credential.header },
      });
      expect401(reply, credential.phrase);
    }
  });

  SCOPE_CASES.forEach((c, i) => {
    test(`${c.name}: ${c.code}, nothing changed`, async () => {
      const session = `rest-scope-${i}`;
      const token = AUTH_TOKENS[c.as];
      const replies = await unchanged(async () => {
        const out: Reply[] = [];
        if (viewsFirst(c)) out.push(await callTool(server.url, "view", { path: TARGET.path }, { token, session }));
        out.push(await callTool(server.url, c.tool, attackArgs(c.tool, c.path), { token, session }));
        return out;
      });
      if (viewsFirst(c) && c.as !== "other") expect(codeOf(toolResult(replies[0]))).toBe("ok");
      const result = toolResult(replies.at(-1)!);
      expect(codeOf(result)).toBe(c.code);
      expect(textOf(result)).toMatch(c.phrase);
    });
  });

  test("GET /v1/tools lists exactly what each token may call", async () => {
    const expected: Record<TokenName, string[]> = {
      readOnly: ["view"],
      owner: ["view", "write", "edit", "batch_edit"],
      other: ["view", "write", "edit", "batch_edit"],
      exec: ["view", "write", "edit", "batch_edit", "bash"],
    };
    for (const [name, tools] of Object.entries(expected)) {
      const reply = await send(new URL("/v1/tools", server.url), undefined, { method: "GET", token: AUTH_TOKENS[name as TokenName] });
      expect(reply.status).toBe(200);
      expect({ name, tools: (reply.json as { tools: { name: string }[] }).tools.map((t) => t.name) }).toEqual({ name, tools });
    }
  });

  test("control: the exec token runs bash, so the denials above are about scope", async () => {
    const [reply] = await unchanged(async () => [await callTool(server.url, "bash", { command: "echo hello from bash" }, { token: AUTH_TOKENS.exec })]);
    const result = toolResult(reply);
    expect(codeOf(result)).toBe("ok");
    expect(textOf(result)).toContain("hello from bash");
  });
});

describe("MCP", () => {
  /** A session of the exec token: the calls below are sent on it with other credentials. */
  let execSession: string;
  beforeAll(async () => {
    execSession = await mcpOpen(server.url, bearer("exec"));
  });

  for (const credential of BAD_CREDENTIALS) {
    test(`${credential.name}: initialize and every tools/call (even on a live session) are 401 with the fix, nothing changed`, async () => {
      const replies = await unchanged(async () => [
        await mcpSend(server.url, mcpInitialize(), { authorization: credential.header }),
        ...(await Promise.all(
          TOOLS.map((tool) => mcpSend(server.url, mcpToolCall(tool, attackArgs(tool)), { authorization: credential.header, session: execSession })),
        )),
      ]);
      for (const reply of replies) expect401(reply, credential.phrase);
    });
  }

  test("a live session is bound to the token that opened it: any other valid token gets 'Session not found', nothing changed", async () => {
    for (const name of ["readOnly", "owner", "other"] as const) {
      const replies = await unchanged(async () =>
        Promise.all(TOOLS.map((tool) => mcpSend(server.url, mcpToolCall(tool, attackArgs(tool)), { authorization: bearer(name), session: execSession }))),
      );
      for (const reply of replies) {
        expect(reply.status).toBe(404);
        expect((reply.json as { error: { message: string } }).error.message).toMatch(/Session not found.*Start a new session with initialize/);
      }
    }
  });

  SCOPE_CASES.forEach((c) => {
    test(`${c.name}: ${c.code} in the result (isError, _meta code), nothing changed`, async () => {
      const authorization = bearer(c.as);
      const session = await mcpOpen(server.url, authorization);
      const replies = await unchanged(async () => {
        const out: Reply[] = [];
        if (viewsFirst(c)) out.push(await mcpSend(server.url, mcpToolCall("view", { path: TARGET.path }), { authorization, session }));
        out.push(await mcpSend(server.url, mcpToolCall(c.tool, attackArgs(c.tool, c.path)), { authorization, session }));
        return out;
      });
      if (viewsFirst(c) && c.as !== "other") expect(mcpCode(mcpResult(replies[0]))).toBe("ok");
      const result = mcpResult(replies.at(-1)!);
      expect(result.isError).toBe(true);
      expect(mcpCode(result)).toBe(c.code);
      expect(result.content.map((b) => b.text).join("\n")).toMatch(c.phrase);
    });
  });

  test("tools/list shows exactly what each token may call", async () => {
    const expected: Record<TokenName, string[]> = {
      readOnly: ["view"],
      owner: ["view", "write", "edit", "batch_edit"],
      other: ["view", "write", "edit", "batch_edit"],
      exec: ["view", "write", "edit", "batch_edit", "bash"],
    };
    for (const [name, tools] of Object.entries(expected)) {
      const authorization = bearer(name as TokenName);
      const session = await mcpOpen(server.url, authorization);
      const reply = await mcpSend(server.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { authorization, session });
      const listed = (reply.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
      expect({ name, listed }).toEqual({ name, listed: tools });
    }
  });
});

describe("start-up", () => {
  test("a config that gives exec to a token of another workspace is refused: bash would run in the served directory", async () => {
    const other = makeLocalFixture();
    try {
      const started = serveFixture(other, {
        shell: true,
        tokens: [
          { token: AUTH_TOKENS.owner, scopes: ["read", "write"], label: "owner" },
          { token: AUTH_TOKENS.other, scopes: ["read", "write", "exec"], workspace: "ws-evil", label: "other" },
        ],
      });
      const error = await started.then(
        (s) => {
          s.kill();
          return new Error("serve started");
        },
        (e: Error) => e,
      );
      expect(error.message).toContain("serve exited (2) before its banner");
      expect(error.message).toMatch(/tokens\[1\]: the exec scope runs bash in the served directory .*give exec only to tokens of the served directory/);
    } finally {
      other.remove();
    }
  });
});
