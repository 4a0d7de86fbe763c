import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { addNotices, allow, blockResult, createPipeline, deny, type PostExecuteListener, type ToolCall } from "../../src/pipeline/mod.ts";
import { ok, resultText, type Notice, type ToolResult } from "../../src/result.ts";
import { echo, fakeCtx, fakeTool } from "../helpers/pipeline-fakes.ts";

const notice = (text: string): Notice => ({ text, source: { kind: "plugin", plugin: "test" } });

/** A pipeline over one read tool that counts its runs and prints two blocks. */
function counted() {
  const runs = { count: 0 };
  const tool = fakeTool("t", "read", v.object({ x: v.optional(v.string()) }), async () => {
    runs.count++;
    return {
      isError: false,
      content: [
        { type: "text", text: "line 1" },
        { type: "text", text: "line 2" },
      ],
    };
  });
  return { p: createPipeline([echo, tool]), runs };
}

describe("pre-execute", () => {
  test("a denial reaches the model with its reason and code, and the tool does not run", async () => {
    const { p, runs } = counted();
    p.onPreExecute(() => deny("`rm -rf /` is refused: it deletes the workspace.", "SHELL_FORBIDDEN"));
    const result = await p.call("t", {}, fakeCtx());
    expect(result).toEqual({
      isError: true,
      code: "SHELL_FORBIDDEN",
      content: [{ type: "text", text: "`rm -rf /` is refused: it deletes the workspace." }],
    });
    expect(runs.count).toBe(0);
  });

  test("the code defaults to FORBIDDEN", async () => {
    const { p } = counted();
    p.onPreExecute(() => deny("no"));
    expect((await p.call("t", {}, fakeCtx())).code).toBe("FORBIDDEN");
  });

  test("listeners receive the tool, name, validated args and context", async () => {
    const { p } = counted();
    const ctx = fakeCtx(["read"]);
    let seen: ToolCall | undefined;
    p.onPreExecute((call) => {
      seen = call;
      return allow();
    });
    await p.call("echo", { path: "a.txt" }, ctx);
    expect(seen?.tool).toBe(echo);
    expect(seen?.name).toBe("echo");
    expect(seen?.args).toEqual({ path: "a.txt" });
    expect(seen?.ctx.caller).toBe(ctx.caller);
  });

  test("allow() without next() does not let an earlier listener skip a later guard", async () => {
    const { p, runs } = counted();
    p.onPreExecute(() => allow());
    p.onPreExecute(() => deny("guard says no"));
    const result = await p.call("t", {}, fakeCtx());
    expect(resultText(result)).toBe("guard says no");
    expect(runs.count).toBe(0);
  });

  test("allow() after a later guard denied keeps the denial; a denial may be reworded", async () => {
    const { p } = counted();
    p.onPreExecute(async (_c, next) => {
      await next();
      return allow();
    });
    p.onPreExecute(async (_c, next) => {
      const downstream = await next();
      return downstream.allow ? downstream : deny(`${downstream.reason} (reworded)`, downstream.code);
    });
    p.onPreExecute(() => deny("no", "SHELL_FORBIDDEN"));
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("SHELL_FORBIDDEN");
    expect(resultText(result)).toBe("no (reworded)");
  });

  test("a denial short-circuits: later listeners do not run", async () => {
    const { p } = counted();
    let later = false;
    p.onPreExecute(() => deny("stop"));
    p.onPreExecute((_c, next) => {
      later = true;
      return next();
    });
    await p.call("t", {}, fakeCtx());
    expect(later).toBe(false);
  });
});

describe("post-execute", () => {
  test("a listener enriches what comes back: replaced content and notices", async () => {
    const { p } = counted();
    p.onPostExecute(async (_c, _r, next) => {
      const r = await next();
      return addNotices({ ...r, content: [{ type: "text", text: "rewritten" }] }, notice("checked"));
    });
    const result = await p.call("t", {}, fakeCtx());
    expect(result).toEqual({ isError: false, content: [{ type: "text", text: "rewritten" }], notices: [notice("checked")] });
  });

  test("blockResult puts the explanation first and keeps the original output unchanged after it", () => {
    const original: ToolResult = {
      isError: false,
      content: [
        { type: "text", text: "Traceback (most recent call last):\n  ...\n[exit code: 0]" },
        { type: "text", text: "tail" },
      ],
      notices: [notice("kept")],
    };
    const blocked = blockResult(original, "The command printed a traceback but exited 0.");
    expect(blocked.isError).toBe(true);
    expect(blocked.code).toBe("RULE_BLOCKED");
    expect(blocked.content[0]).toEqual({ type: "text", text: "The command printed a traceback but exited 0." });
    expect(blocked.content.slice(1)).toEqual(original.content);
    expect(resultText(blocked)).toBe(`The command printed a traceback but exited 0.\n${resultText(original)}`);
    expect(blocked.notices).toEqual(original.notices);
    expect(blockResult(original, "x", "SHELL_FORBIDDEN").code).toBe("SHELL_FORBIDDEN");
  });

  test("a block through the pipeline keeps the tool output after the explanation", async () => {
    const { p } = counted();
    p.onPostExecute((_c, result) => blockResult(result, "blocked because"));
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("RULE_BLOCKED");
    expect(result.content.map((b) => b.text)).toEqual(["blocked because", "line 1", "line 2"]);
  });

  test("composition: a later listener sees an earlier one's enrichment, and notices accumulate in order", async () => {
    const { p } = counted();
    const seenByLater: string[][] = [];
    p.onPostExecute((_c, r, next) => next(addNotices(r, notice("first"))));
    p.onPostExecute((_c, r, next) => {
      seenByLater.push((r.notices ?? []).map((n) => n.text));
      return next(addNotices(r, notice("second")));
    });
    const result = await p.call("t", {}, fakeCtx());
    expect(seenByLater).toEqual([["first"]]);
    expect(result.notices?.map((n) => n.text)).toEqual(["first", "second"]);
  });

  test("composition: a block short-circuits the later listeners, and earlier ones see the block", async () => {
    const { p } = counted();
    let laterRan = false;
    let outerSaw: string | undefined;
    p.onPostExecute(async (_c, _r, next) => {
      const r = await next();
      outerSaw = r.code;
      return r;
    });
    p.onPostExecute((_c, r) => blockResult(r, "no"));
    p.onPostExecute((_c, _r, next) => {
      laterRan = true;
      return next();
    });
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("RULE_BLOCKED");
    expect(outerSaw).toBe("RULE_BLOCKED");
    expect(laterRan).toBe(false);
  });

  test("calling next() twice runs the later listeners once", async () => {
    const { p } = counted();
    let laterRuns = 0;
    p.onPostExecute(async (_c, _r, next) => {
      await next();
      return next();
    });
    p.onPostExecute((_c, _r, next) => {
      laterRuns++;
      return next();
    });
    await p.call("t", {}, fakeCtx());
    expect(laterRuns).toBe(1);
  });
});

describe("order", () => {
  test("lower order runs first; equal orders keep registration order", async () => {
    const { p } = counted();
    const trace: string[] = [];
    const record =
      (name: string): PostExecuteListener =>
      (_c, _r, next) => {
        trace.push(name);
        return next();
      };
    p.onPostExecute(record("a"));
    p.onPostExecute(record("b"));
    p.onPostExecute(record("rules"), { order: -10 });
    p.onPostExecute(record("c"));
    p.onPostExecute(record("last"), { order: 5 });
    await p.call("t", {}, fakeCtx());
    expect(trace).toEqual(["rules", "a", "b", "c", "last"]);
  });
});

describe("removal", () => {
  test("a removed listener no longer runs; removing twice is harmless", async () => {
    const { p, runs } = counted();
    const remove = p.onPreExecute(() => deny("no"));
    expect((await p.call("t", {}, fakeCtx())).isError).toBe(true);
    remove();
    remove();
    expect((await p.call("t", {}, fakeCtx())).isError).toBe(false);
    expect(runs.count).toBe(1);
  });

  test("removing listeners during a call does not break that call", async () => {
    const { p } = counted();
    const trace: string[] = [];
    let removeSelf = () => {};
    let removeLater = () => {};
    removeSelf = p.onPostExecute(async (_c, _r, next) => {
      trace.push("self");
      removeSelf();
      removeLater();
      return next();
    });
    p.onPostExecute((_c, r, next) => {
      trace.push("kept");
      return next(addNotices(r, notice("kept")));
    });
    removeLater = p.onPostExecute((_c, _r, next) => {
      trace.push("removed");
      return next();
    });
    const first = await p.call("t", {}, fakeCtx());
    expect(first.isError).toBe(false);
    expect(first.notices?.map((n) => n.text)).toEqual(["kept"]);
    expect(trace).toEqual(["self", "kept"]);
    await p.call("t", {}, fakeCtx());
    expect(trace).toEqual(["self", "kept", "kept"]);
  });

  test("a listener registered during a call joins from the next call", async () => {
    const { p } = counted();
    let added = 0;
    p.onPreExecute(() => {
      if (added++ === 0) p.onPreExecute(() => deny("new guard"));
      return allow();
    });
    expect((await p.call("t", {}, fakeCtx())).isError).toBe(false);
    expect(resultText(await p.call("t", {}, fakeCtx()))).toBe("new guard");
  });
});

describe("listener failures", () => {
  test("a throwing pre-execute listener is INTERNAL_ERROR naming it; the tool does not run", async () => {
    const { p, runs } = counted();
    p.onPreExecute(
      () => {
        throw new Error("config missing");
      },
      { name: "shell-guard" },
    );
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("pre-execute listener `shell-guard` threw: config missing");
    expect(resultText(result)).toContain("`t` did not run");
    expect(runs.count).toBe(0);
  });

  test("the function's own name is used when no name is given", async () => {
    const { p } = counted();
    function auditTrail(): never {
      throw new Error("x");
    }
    p.onPreExecute(auditTrail);
    expect(resultText(await p.call("t", {}, fakeCtx()))).toContain("listener `auditTrail` threw: x");
  });

  test("a throwing post-execute listener is INTERNAL_ERROR that says the tool ran and keeps its output", async () => {
    const { p, runs } = counted();
    p.onPostExecute(
      () => {
        throw new TypeError("cannot read rules");
      },
      { name: "loud-failure" },
    );
    const result = await p.call("t", {}, fakeCtx());
    expect(runs.count).toBe(1);
    expect(result.code).toBe("INTERNAL_ERROR");
    const [head, ...rest] = result.content.map((b) => b.text);
    expect(head).toContain("post-execute listener `loud-failure` threw: cannot read rules");
    expect(head).toContain("`t` did run");
    expect(rest).toEqual(["line 1", "line 2"]);
  });

  test("an unnamed listener returning nothing is reported, not crashed on", async () => {
    const { p } = counted();
    p.onPostExecute((() => undefined) as unknown as PostExecuteListener);
    const result = await p.call("t", {}, fakeCtx());
    expect(result.code).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("post-execute listener (unnamed) returned undefined instead of a tool result");
  });

  test("an earlier listener sees a later listener's failure as a result it can pass on", async () => {
    const { p } = counted();
    let seen: string | undefined;
    p.onPostExecute(async (_c, _r, next) => {
      const r = await next();
      seen = r.code;
      return r;
    });
    p.onPostExecute(() => Promise.reject(new Error("async failure")), { name: "late" });
    const result = await p.call("t", {}, fakeCtx());
    expect(seen).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("`late` threw: async failure");
  });
});

test("ok() results from listeners render like tool results", async () => {
  const { p } = counted();
  p.onPostExecute(() => ({ ...ok("replaced"), notices: [] }));
  expect(await p.call("t", {}, fakeCtx())).toEqual(ok("replaced"));
});
