/** The path argument: absolute paths against a real root, a leading "/" without one, a trailing "/" for files. */
import { describe, expect, test } from "bun:test";
import { resultText } from "../../src/result.ts";
import { argPath } from "../../src/tools/support/paths.ts";

describe("argPath", () => {
  const local = { root: "/srv/ws" };
  test("an absolute path inside the root is the file relative to it", () => {
    expect(argPath("/srv/ws/src/a.ts", local)).toEqual({ ok: true, path: "src/a.ts" });
    expect(argPath("/srv/ws", local)).toEqual({ ok: true, path: "" });
    expect(argPath("//srv//ws//x", local)).toEqual({ ok: true, path: "x" });
  });
  test("an absolute path outside the root (or only sharing its prefix) is FS_INVALID_PATH naming the root", () => {
    for (const p of ["/srv/ws-evil/a", "/etc/passwd", "/src/a.ts"]) {
      const r = argPath(p, local);
      if (r.ok) throw new Error(p);
      expect(r.result.code).toBe("FS_INVALID_PATH");
      expect(resultText(r.result)).toContain("outside the workspace root `/srv/ws`");
    }
    const climb = argPath("/srv/ws/../etc/passwd", local);
    expect(climb.ok).toBe(false);
  });
  test("without a real root a leading / is the workspace root", () => {
    expect(argPath("/srv/ws/src/a.ts", {})).toEqual({ ok: true, path: "srv/ws/src/a.ts" });
    expect(argPath("/src/a.ts")).toEqual({ ok: true, path: "src/a.ts" });
  });
  test("a trailing / is refused when a file is needed, and fine for view", () => {
    const r = argPath("newdir/", {}, { file: true });
    if (r.ok) throw new Error("accepted");
    expect(r.result.code).toBe("FS_INVALID_PATH");
    expect(resultText(r.result)).toContain('{"path": "newdir/<name>", ...}');
    expect(argPath("newdir/", {})).toEqual({ ok: true, path: "newdir" });
  });
});
