/**
 * edit's whitespace-insensitive rung through the tool: new_string's
 * indentation is fitted by levels (see fitIndentation), the bytes on disk are
 * what the model meant, and where the pairs allow more than one reading the
 * edit is refused (EDIT_AMBIGUOUS, nothing written) with each reading as a
 * call that, sent as it is, writes those bytes.
 */
import { describe, expect, test } from "bun:test";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf, markViewed } from "../helpers/tool-mutation.ts";
import { jsonAt, suggestedCalls } from "../helpers/suggested-calls.ts";

const edit = (ctx: ToolContext, path: string, old_string: string, new_string: string) => call(editTool, { path, old_string, new_string }, ctx);

async function viewed(files: Record<string, string>) {
  const ctx = makeContext();
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  const snapshot = async (path: string) => ({ bytes: await bytesOf(ctx.storage, path), version: versions[path] });
  return { ctx, snapshot };
}

const PY = "def f(x):\n    if x:\n        return 1\n    return 0\n";
const PY_TABS = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 0\n";
const GO = "package main\n\nfunc main() {\n\tx := 2\n\tprintln(x)\n}\n";

describe("edit: new_string's lines shallower than old_string's", () => {
  test("python, model in 2-space levels, file in 4: a new top-level def lands at column 0 with its body one level in", async () => {
    const { ctx } = await viewed({ "f.py": PY });
    const text = expectOk(await edit(ctx, "f.py", "  if x:\n    return 1\n  return 0", "  if x:\n    return 1\n  return 0\n\ndef g():\n  return 2"));
    expect(await readText(ctx.storage, "f.py")).toBe("def f(x):\n    if x:\n        return 1\n    return 0\n\ndef g():\n    return 2\n");
    expect(text).toContain("Note: old_string had no exact match; it matched lines 2-4 when whitespace is ignored.");
  });

  test("go, model spaces, file tabs: the new line at column 0 stays there, the paired line takes the tab", async () => {
    const { ctx } = await viewed({ "m.go": GO });
    const text = expectOk(await edit(ctx, "m.go", "  x := 2", "y := 0\n  x := 3"));
    expect(await readText(ctx.storage, "m.go")).toBe("package main\n\nfunc main() {\ny := 0\n\tx := 3\n\tprintln(x)\n}\n");
    expect(text).toContain("it matched line 4 when whitespace is ignored");
  });

  test("old_string over-indented by a level: a line one level shallower than its first goes to the file's column 0", async () => {
    const { ctx } = await viewed({ "f.py": PY });
    expectOk(
      await edit(ctx, "f.py", "        if x:\n            return 1", "        if x:\n            return 1\n        else:\n            return 2\n    print(x)"),
    );
    expect(await readText(ctx.storage, "f.py")).toBe("def f(x):\n    if x:\n        return 1\n    else:\n        return 2\nprint(x)\n    return 0\n");
  });
});

describe("edit: lines deeper than old_string's keep working", () => {
  test("model tabs against file spaces, with the outer level dropped: deeper lines one file level per tab", async () => {
    const { ctx } = await viewed({ "f.py": PY });
    expectOk(await edit(ctx, "f.py", "\treturn 1\nreturn 0", "\treturn 1\nreturn 0\n\tunreachable()"));
    expect(await readText(ctx.storage, "f.py")).toBe("def f(x):\n    if x:\n        return 1\n    return 0\n        unreachable()\n");
  });

  test('"" against 8 spaces: a nested block in new_string nests in the file', async () => {
    // Multi-line: a one-line old_string at column 0 is a substring of the indented line, which the exact rung replaces as written.
    const { ctx } = await viewed({ "a.py": "class A:\n    def f(self):\n        x = 1\n        return x\n" });
    expectOk(await edit(ctx, "a.py", "x = 1\nreturn x", "if self.x:\n    x = 1\nreturn x"));
    expect(await readText(ctx.storage, "a.py")).toBe("class A:\n    def f(self):\n        if self.x:\n            x = 1\n        return x\n");
  });

  test("model 4 spaces against file tabs: a deeper new line in tabs", async () => {
    const file = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
    const { ctx } = await viewed({ "m.go": file });
    expectOk(
      await edit(ctx, "m.go", "    if ok {\n        run()\n    }", "    if ok {\n        run()\n        if deep {\n            log()\n        }\n    }"),
    );
    expect(await readText(ctx.storage, "m.go")).toBe("func main() {\n\tif ok {\n\t\trun()\n\t\tif deep {\n\t\t\tlog()\n\t\t}\n\t}\n}\n");
  });
});

describe("edit: an indentation the pairs cannot place is refused, with calls that land", () => {
  test("4 spaces for two tabs: column 0 may be top level or one level in; nothing written, each reading ready to send", async () => {
    for (const [pick, expected] of [
      [0, "def f(x):\n\tif x:\n\t\treturn 1\nprint(x)\n\treturn 0\n"],
      [1, "def f(x):\n\tif x:\n\t\treturn 1\n\tprint(x)\n\treturn 0\n"],
    ] as const) {
      const { ctx, snapshot } = await viewed({ "f.py": PY_TABS });
      const before = await snapshot("f.py");
      const text = expectFail(await edit(ctx, "f.py", "    return 1", "    return 1\nprint(x)"), "EDIT_AMBIGUOUS");
      await expectUntouched(ctx.storage, "f.py", before);
      expect(text).toStartWith(
        "old_string has no exact match in `f.py`; ignoring whitespace it matches line 3, but new_string's indentation cannot be fitted to the file without guessing, so nothing was changed. " +
          "Line by line, old_string's indentation reads in the file as: 4 spaces -> 2 tabs; that fits more than one reading of your indentation (a different indentation unit, or the same unit shifted by a level), and they put new_string's line 2 (\"print(x)\", at column 0) at different depths.",
      );
      expect(text).toContain(`The matched lines as the file has them (line 3), with ids:\n${idOf(PY_TABS, 3)}|\t\treturn 1`);
      expect(text).toContain("- new_string's line 2 at column 0: edit ");
      expect(text).toContain("- new_string's line 2 at 1 tab: edit ");
      const calls = suggestedCalls(text).filter((c) => c.tool === "edit");
      expect(calls).toHaveLength(2);
      expect(calls[pick].args).toEqual({ path: "f.py", old_string: "\t\treturn 1\n", new_string: `\t\treturn 1\n${pick === 0 ? "" : "\t"}print(x)\n` });
      const landed = expectOk(await call(editTool, calls[pick].args, ctx));
      expect(landed).not.toContain("whitespace is ignored"); // an exact match: nothing left to fit
      expect(await readText(ctx.storage, "f.py")).toBe(expected);
    }
  });

  test("a flattened old_string (one indentation for two depths): refused with the file's lines and old_string ready; resent in the file's indentation it lands", async () => {
    const { ctx, snapshot } = await viewed({ "f.py": PY });
    const before = await snapshot("f.py");
    const text = expectFail(await edit(ctx, "f.py", "if x:\nreturn 1", "if x:\nreturn 2"), "EDIT_AMBIGUOUS");
    await expectUntouched(ctx.storage, "f.py", before);
    expect(text).toContain("column 0 -> 4 spaces, column 0 -> 8 spaces; no one reading of your indentation fits all of that");
    expect(text).toContain(`${idOf(PY, 2)}|    if x:\n${idOf(PY, 3)}|        return 1`);
    expect(suggestedCalls(text)).toEqual([]); // nothing to send blind
    const at = text.indexOf('"old_string": ') + '"old_string": '.length;
    const old = jsonAt(`{"v":${text.slice(at)}}`, 0)?.value as { v: string } | undefined;
    expect(old?.v).toBe("    if x:\n        return 1");
    expectOk(await edit(ctx, "f.py", old!.v, "    if x:\n        return 2"));
    expect(await readText(ctx.storage, "f.py")).toBe(PY.replace("return 1", "return 2"));
  });

  test("the refusal is only for lines in doubt: new lines at old_string's own indentations are placed and written", async () => {
    const { ctx } = await viewed({ "f.py": PY_TABS });
    expectOk(await edit(ctx, "f.py", "    return 1", "    y = 1\n    return y"));
    expect(await readText(ctx.storage, "f.py")).toBe("def f(x):\n\tif x:\n\t\ty = 1\n\t\treturn y\n\treturn 0\n");
  });
});

describe("edit: old_string without the line's indentation, new_string of several lines", () => {
  const CLS = "class A:\n    def f(self):\n        return 1\n";

  test("the later lines' depth is not guessed: refused with both readings, and the one meant lands as sent", async () => {
    const { ctx, snapshot } = await viewed({ "a.py": CLS });
    const before = await snapshot("a.py");
    const text = expectFail(await edit(ctx, "a.py", "return 1", "if self.x:\n    return 1\nreturn 2"), "EDIT_AMBIGUOUS");
    await expectUntouched(ctx.storage, "a.py", before);
    expect(text).toContain("after its indentation (8 spaces)");
    const calls = suggestedCalls(text).filter((c) => c.tool === "edit");
    expect(calls).toHaveLength(2);
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await readText(ctx.storage, "a.py")).toBe("class A:\n    def f(self):\n        if self.x:\n            return 1\n        return 2\n");
  });

  test("a one-line new_string, or old_string with its indentation, is applied as before", async () => {
    const { ctx } = await viewed({ "a.py": CLS });
    expectOk(await edit(ctx, "a.py", "return 1", "return 2"));
    expectOk(await edit(ctx, "a.py", "        return 2", "        if self.x:\n            return 1\n        return 2"));
    expect(await readText(ctx.storage, "a.py")).toBe("class A:\n    def f(self):\n        if self.x:\n            return 1\n        return 2\n");
  });
});
