import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { CodedError } from "../../src/errors.ts";
import { createPipeline, deny, type CallInfo } from "../../src/pipeline/mod.ts";
import { fail, ok, resultText, type ToolResult } from "../../src/result.ts";
import { echo, fakeCtx, fakeTool } from "../helpers/pipeline-fakes.ts";

/** A promise that settles when `signal` aborts (never otherwise). */
function untilAborted(signal: AbortSignal | undefined): Promise<unknown> {
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(signal.reason), { once: true }));
}

describe("stage order", () => {
  test("validate -> pre-execute -> run -> post-execute, with validated args everywhere", async () => {
    const trace: string[] = [];
    const schema = v.strictObject({
      path: v.pipe(
        v.string(),
        v.transform((s) => {
          trace.push("validate");
          return s.toUpperCase();
        }),
      ),
      limit: v.optional(v.number(), 10),
    });
    const tool = fakeTool("t", "read", schema, async (args) => {
      trace.push(`run ${JSON.stringify(args)}`);
      return ok("out");
    });
    const p = createPipeline([tool]);
    p.onPreExecute((call, next) => {
      trace.push(`pre ${JSON.stringify(call.args)}`);
      return next();
    });
    p.onPostExecute((_call, result, next) => {
      trace.push(`post ${resultText(result)}`);
      return next();
    });
    const result = await p.call("t", { path: "a" }, fakeCtx());
    expect(trace).toEqual(["validate", 'pre {"path":"A","limit":10}', 'run {"path":"A","limit":10}', "post out"]);
    expect(result).toEqual({ isError: false, content: [{ type: "text", text: "out" }] });
  });

  test("bad arguments stop the call before any listener or the tool", async () => {
    const trace: string[] = [];
    const tool = fakeTool("t", "read", v.strictObject({ path: v.string() }), async () => {
      trace.push("run");
      return ok("");
    });
    const p = createPipeline([tool]);
    p.onPreExecute((_c, next) => {
      trace.push("pre");
      return next();
    });
    p.onPostExecute((_c, _r, next) => {
      trace.push("post");
      return next();
    });
    const result = await p.call("t", { path: 3 }, fakeCtx());
    expect(result.code).toBe("INVALID_ARGUMENT");
    expect(trace).toEqual([]);
  });

  test("a pre-execute denial skips the tool and the post-execute listeners", async () => {
    const trace: string[] = [];
    const tool = fakeTool("t", "read", v.object({}), async () => {
      trace.push("run");
      return ok("");
    });
    const p = createPipeline([tool]);
    p.onPreExecute(() => deny("no"));
    p.onPostExecute((_c, _r, next) => {
      trace.push("post");
      return next();
    });
    expect((await p.call("t", {}, fakeCtx())).code).toBe("FORBIDDEN");
    expect(trace).toEqual([]);
  });
});

describe("tool lookup", () => {
  test("has/get/tools expose the tool set", () => {
    const other = fakeTool("other", "write", v.object({}));
    const p = createPipeline([echo, other]);
    expect(p.has("echo")).toBe(true);
    expect(p.has("nope")).toBe(false);
    expect(p.get("other")).toBe(other);
    expect(p.get("nope")).toBeUndefined();
    expect(p.tools.map((t) => t.name)).toEqual(["echo", "other"]);
  });

  test("an unknown tool is INVALID_ARGUMENT listing the available tools, with a close guess", async () => {
    const p = createPipeline([echo, fakeTool("batch_edit", "write", v.object({}))]);
    const result = await p.call("batchedit", {}, fakeCtx());
    expect(result.isError).toBe(true);
    expect(result.code).toBe("INVALID_ARGUMENT");
    const text = resultText(result);
    expect(text).toContain("Unknown tool `batchedit`");
    expect(text).toContain("Did you mean `batch_edit`?");
    expect(text).toContain("Available tools: `echo`, `batch_edit`.");
    expect(resultText(await p.call("zzz", {}, fakeCtx()))).not.toContain("Did you mean");
  });

  test("duplicate tool names are refused at construction", () => {
    expect(() => createPipeline([echo, echo])).toThrow("duplicate tool name: echo");
  });
});

describe("scope check", () => {
  const writer = fakeTool("write", "write", v.strictObject({ path: v.string() }));
  const shell = fakeTool("bash", "exec", v.strictObject({ command: v.string() }));

  test("a write tool under a read-only token is FS_ACCESS_DENIED with the sandbox marker", async () => {
    let ran = false;
    const p = createPipeline([echo, writer, shell]);
    p.onPreExecute((_c, next) => {
      ran = true;
      return next();
    });
    const result = await p.call("write", { path: "a" }, fakeCtx(["read"]));
    expect(result.code).toBe("FS_ACCESS_DENIED");
    const text = resultText(result);
    expect(text).toContain("[sandbox: file access denied under read-only mode]");
    expect(text).toContain("This token is read-only");
    expect(text).toContain("Tools this token can use: `echo`.");
    expect(ran).toBe(false);
  });

  test("an exec tool without the exec scope is FORBIDDEN, saying the scope is missing", async () => {
    const p = createPipeline([echo, writer, shell]);
    const result = await p.call("bash", { command: "ls" }, fakeCtx(["read", "write"]));
    expect(result.code).toBe("FORBIDDEN");
    expect(resultText(result)).toContain("This token lacks the exec scope, so `bash` cannot run.");
    expect(resultText(result)).toContain("Tools this token can use: `echo`, `write`.");
  });

  test("the scope is checked before the arguments: no turn wasted fixing a call that cannot be made", async () => {
    const p = createPipeline([writer]);
    const result = await p.call("write", { nonsense: true }, fakeCtx(["read"]));
    expect(result.code).toBe("FS_ACCESS_DENIED");
  });

  test("a token with the scope passes", async () => {
    const p = createPipeline([writer]);
    expect((await p.call("write", { path: "a" }, fakeCtx(["write"]))).isError).toBe(false);
  });
});

describe("tool failures become results", () => {
  test("a throwing tool is INTERNAL_ERROR naming the tool and the error", async () => {
    const tool = fakeTool("boom", "read", v.object({}), async () => {
      throw new Error("disk on fire");
    });
    const result = await createPipeline([tool]).call("boom", {}, fakeCtx());
    expect(result.isError).toBe(true);
    expect(result.code).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("Internal error in tool `boom`: disk on fire");
  });

  test("a thrown CodedError keeps its code and message", async () => {
    const tool = fakeTool("e", "read", v.object({}), async () => {
      throw new CodedError("EDIT_NO_MATCH", "old_str was not found in a.txt");
    });
    const result = await createPipeline([tool]).call("e", {}, fakeCtx());
    expect(result).toEqual({
      isError: true,
      code: "EDIT_NO_MATCH",
      content: [{ type: "text", text: "old_str was not found in a.txt" }],
    });
  });

  test("post-execute listeners still see a failed tool's result", async () => {
    const tool = fakeTool("e", "read", v.object({}), async () => fail("FS_NOT_FOUND", "missing"));
    const p = createPipeline([tool]);
    const seen: (string | undefined)[] = [];
    p.onPostExecute((_c, result, next) => {
      seen.push(result.code);
      return next();
    });
    await p.call("e", {}, fakeCtx());
    expect(seen).toEqual(["FS_NOT_FOUND"]);
  });

  test("a tool returning something that is not a result is INTERNAL_ERROR", async () => {
    const tool = fakeTool("bad", "read", v.object({}), async () => undefined as unknown as ToolResult);
    const result = await createPipeline([tool]).call("bad", {}, fakeCtx());
    expect(result.code).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("`bad` returned no result");
  });
});

describe("render: normalised results", () => {
  const returning = (r: ToolResult) => createPipeline([fakeTool("t", "read", v.object({}), async () => r)]);

  test("empty notices are omitted; present ones kept", async () => {
    expect(await returning({ ...ok("x"), notices: [] }).call("t", {}, fakeCtx())).toEqual(ok("x"));
    const notice = { text: "n", source: { kind: "tool" as const } };
    const kept = await returning({ ...ok("x"), notices: [notice] }).call("t", {}, fakeCtx());
    expect(kept.notices).toEqual([notice]);
  });

  test("code present iff isError, even from a tool that breaks the type at run time", async () => {
    const success = await returning({ isError: false, code: "FS_NOT_FOUND", content: [] } as unknown as ToolResult).call("t", {}, fakeCtx());
    expect("code" in success).toBe(false);
    const failure = await returning({ isError: true, content: [] } as unknown as ToolResult).call("t", {}, fakeCtx());
    expect(failure.code).toBe("INTERNAL_ERROR");
  });
});

describe("time limit", () => {
  test("an overrun is TIMEOUT telling the model to narrow the request, and the tool's signal aborts", async () => {
    let reason: unknown;
    const slow = fakeTool("slow", "read", v.object({}), async (_a, ctx) => {
      reason = await untilAborted(ctx.signal);
      return ok("too late");
    });
    const result = await createPipeline([slow], { timeoutMs: 5 }).call("slow", {}, fakeCtx());
    expect(result.isError).toBe(true);
    expect(result.code).toBe("TIMEOUT");
    expect(resultText(result)).toContain("`slow` timed out after 5 ms");
    expect(resultText(result)).toContain("Retry with a narrower request");
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  test("a per-call limit overrides the pipeline's, and a write tool is told to check the state first", async () => {
    const slowWrite = fakeTool("w", "write", v.object({}), async (_a, ctx) => {
      await untilAborted(ctx.signal);
      return ok("");
    });
    const result = await createPipeline([slowWrite], { timeoutMs: 60_000 }).call("w", {}, fakeCtx(), { timeoutMs: 5 });
    expect(result.code).toBe("TIMEOUT");
    expect(resultText(result)).toContain("check the current state");
  });

  test("a hung pre-execute listener times out with 'nothing was done'", async () => {
    let ran = false;
    const tool = fakeTool("t", "write", v.object({}), async () => {
      ran = true;
      return ok("");
    });
    const p = createPipeline([tool], { timeoutMs: 5 });
    p.onPreExecute((call) => untilAborted(call.ctx.signal).then(() => deny("late")));
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("TIMEOUT");
    expect(resultText(result)).toContain("nothing was done");
    expect(ran).toBe(false);
  });

  test("the caller's own signal reaches the tool through the call's signal", async () => {
    const incoming = new AbortController();
    const tool = fakeTool("t", "read", v.object({}), async (_a, ctx) => {
      expect(ctx.signal).not.toBe(incoming.signal);
      queueMicrotask(() => incoming.abort(new Error("client went away")));
      const reason = await untilAborted(ctx.signal);
      return ok(`aborted: ${(reason as Error).message}`);
    });
    const result = await createPipeline([tool], { timeoutMs: 60_000 }).call("t", {}, fakeCtx(["read"], incoming.signal));
    expect(resultText(result)).toBe("aborted: client went away");
  });

  test("no limit by default: the call's signal stays quiet", async () => {
    const tool = fakeTool("t", "read", v.object({}), async (_a, ctx) => ok(String(ctx.signal?.aborted)));
    expect(resultText(await createPipeline([tool]).call("t", {}, fakeCtx()))).toBe("false");
  });
});

describe("onCall hook", () => {
  test("reports tool, code, isError and ms for every call, including refused ones", async () => {
    const infos: CallInfo[] = [];
    const failing = fakeTool("f", "read", v.object({}), async () => fail("FS_NOT_FOUND", "x"));
    const p = createPipeline([echo, failing], { onCall: (info) => infos.push(info) });
    await p.call("echo", { path: "a" }, fakeCtx());
    await p.call("f", {}, fakeCtx());
    await p.call("missing", {}, fakeCtx());
    expect(infos.map(({ ms: _ms, ...rest }) => rest)).toEqual([
      { tool: "echo", isError: false },
      { tool: "f", isError: true, code: "FS_NOT_FOUND" },
      { tool: "missing", isError: true, code: "INVALID_ARGUMENT" },
    ]);
    for (const info of infos) expect(info.ms).toBeGreaterThanOrEqual(0);
  });

  test("a throwing hook does not change the result", async () => {
    const p = createPipeline([echo], {
      onCall: () => {
        throw new Error("logger broke");
      },
    });
    expect(await p.call("echo", { path: "a" }, fakeCtx())).toEqual(ok("echo a"));
  });
});
