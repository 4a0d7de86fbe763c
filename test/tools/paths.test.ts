/** The path argument: absolute paths against a real root, a leading "/" without one, a trailing "/" for files, file URLs, backslashes, shell prefixes and Unicode spellings (the pure parts). */
import { describe, expect, test } from "bun:test";
import { resultText } from "../../src/result.ts";
import { argPath, asciiJson, fileUrlPath, normalizationTwins, sameCall, shellPrefix, spellingOf } from "../../src/tools/support/paths.ts";
import { firstCall, suggestedCalls } from "../helpers/suggested-calls.ts";

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

describe("file:// URLs", () => {
  test("fileUrlPath reads the absolute path a file URL names", () => {
    expect(fileUrlPath("file:///srv/ws/a.ts")).toBe("/srv/ws/a.ts");
    expect(fileUrlPath("file://localhost/srv/ws/a.ts")).toBe("/srv/ws/a.ts");
    expect(fileUrlPath("FILE://LOCALHOST/srv/ws/a.ts")).toBe("/srv/ws/a.ts");
    expect(fileUrlPath("file:/srv/ws/a.ts")).toBe("/srv/ws/a.ts");
    expect(fileUrlPath("file:///srv/ws/my%20notes.md")).toBe("/srv/ws/my notes.md");
    expect(fileUrlPath("file:///srv/ws/r%C3%A9sum%C3%A9.md")).toBe("/srv/ws/r\u00e9sum\u00e9.md");
    expect(fileUrlPath("file:///srv/ws/a.ts#L12")).toBe("/srv/ws/a.ts");
    expect(fileUrlPath("file:///srv/ws/a.ts?x=1")).toBe("/srv/ws/a.ts");
  });
  test("fileUrlPath says why a URL names no file here", () => {
    expect(fileUrlPath("file://example.com/etc/hosts")).toEqual({ why: "it names a file on another host (`example.com`)" });
    expect(fileUrlPath("file:///a%2F..%2Fb")).toEqual({ why: 'it has an escaped "/" (%2F) inside a name' });
    expect(fileUrlPath("file:///a%E0%A4%A")).toEqual({ why: "it has a malformed %-escape" });
  });
  test("a file URL is handled exactly as the absolute path it names", () => {
    const local = { root: "/srv/ws" };
    expect(argPath("file:///srv/ws/src/a.ts", local)).toEqual({ ok: true, path: "src/a.ts" });
    expect(argPath("file:///srv/ws", local)).toEqual({ ok: true, path: "" });
    const outside = argPath("file:///etc/hosts", local);
    if (outside.ok) throw new Error("accepted");
    expect(outside.result.code).toBe("FS_INVALID_PATH");
    expect(resultText(outside.result)).toContain("names `/etc/hosts`, which is absolute and outside the workspace root `/srv/ws`");
    // Without a real root a leading "/" is the workspace root, for a URL as for the path.
    expect(argPath("file:///src/a.ts", {})).toEqual(argPath("/src/a.ts", {}));
    expect(argPath("file:///src/a.ts", {})).toEqual({ ok: true, path: "src/a.ts" });
    // Climbing out through a URL is refused like the path.
    expect(argPath("file:///srv/ws/../etc/passwd", local).ok).toBe(false);
  });
  test("a name that only starts with file: (no slash) stays a relative name", () => {
    expect(argPath("file:notes.txt", {})).toEqual({ ok: true, path: "file:notes.txt" });
  });
});

describe("backslashes", () => {
  const call = { tool: "view", args: { path: "src\\scopes.ts", start: 2 } };
  test("refused, with the same call with forward slashes", () => {
    const r = argPath("src\\scopes.ts", {}, { call });
    if (r.ok) throw new Error("accepted");
    expect(r.result.code).toBe("FS_INVALID_PATH");
    expect(firstCall(resultText(r.result), "view")).toEqual({ path: "src/scopes.ts", start: 2 });
  });
  test("an absolute Windows-separated path inside the root is offered relative", () => {
    const r = argPath("/srv/ws/src\\a.ts", { root: "/srv/ws" }, { call: { tool: "view", args: {} } });
    if (r.ok) throw new Error("accepted");
    expect(firstCall(resultText(r.result), "view")).toEqual({ path: "src/a.ts" });
  });
  test("nothing is offered when the slashed path is refused too, or is a Windows root, UNC or device path", () => {
    for (const p of ["..\\..\\etc\\passwd", "C:\\Users\\a.ts", "\\\\server\\share\\a.ts", "\\\\?\\C:\\a.ts", "\\a.ts"]) {
      const r = argPath(p, {}, { call });
      if (r.ok) throw new Error(p);
      expect([p, r.result.code]).toEqual([p, "FS_INVALID_PATH"]);
      expect([p, suggestedCalls(resultText(r.result))]).toEqual([p, []]);
    }
  });
});

describe("a leading ~ or $VAR", () => {
  test("shellPrefix finds ~, $NAME and ${NAME} as the first segment only", () => {
    expect(shellPrefix("~/notes.txt")).toEqual({ segment: "~", kind: "home", rest: "notes.txt" });
    expect(shellPrefix("~")).toEqual({ segment: "~", kind: "home", rest: "" });
    expect(shellPrefix("$HOME/a/b")).toEqual({ segment: "$HOME", kind: "variable", rest: "a/b" });
    expect(shellPrefix("${HOME}/a")).toEqual({ segment: "${HOME}", kind: "variable", rest: "a" });
    expect(shellPrefix("$_x1")).toEqual({ segment: "$_x1", kind: "variable", rest: "" });
    for (const p of ["a/~/b", "~user/a", "~notes.txt", "$1/a", "$/a", "${HOME/a", "$HOME-old/a", "a$HOME", "src/$HOME"]) {
      expect([p, shellPrefix(p)]).toEqual([p, undefined]);
    }
  });
});

describe("Unicode normalisation", () => {
  const nfc = "r\u00e9sum\u00e9";
  const nfd = "re\u0301sume\u0301";
  test("normalizationTwins finds names equal under NFC, not the name itself or look-alikes of another kind", () => {
    expect(normalizationTwins(nfc, [nfd, "resume", nfc, "r\u00e9sum\u00e9s"])).toEqual([nfd]);
    expect(normalizationTwins(nfd, ["x", nfc])).toEqual([nfc]);
    expect(normalizationTwins("resume", [nfc, nfd])).toEqual([]);
    // A partly composed spelling is a twin of both.
    const mixed = "r\u00e9sume\u0301";
    expect(normalizationTwins(mixed, [nfc, nfd])).toEqual([nfc, nfd]);
  });
  test("spellingOf and asciiJson tell the spellings apart", () => {
    expect(spellingOf(nfc)).toBe("composed, NFC");
    expect(spellingOf(nfd)).toBe("decomposed, NFD");
    expect(spellingOf("r\u00e9sume\u0301")).toBe("partly composed");
    expect(asciiJson(nfd)).toBe('"re\\u0301sume\\u0301"');
    expect(asciiJson(nfc)).toBe('"r\\u00e9sum\\u00e9"');
    expect(asciiJson('a\u{1f680}"b')).toBe('"a\\ud83d\\ude80\\"b"');
    for (const s of [nfc, nfd, 'a\u{1f680}"b\\c']) expect(JSON.parse(asciiJson(s))).toBe(s);
  });
});

describe("sameCall", () => {
  test("the call as sent, with the path replaced and first", () => {
    expect(sameCall({ tool: "write", args: { content: "x", path: "~/a" } }, "a")).toBe('write {"path":"a","content":"x"}');
    expect(sameCall({ tool: "view", args: { path: "p" } }, "")).toBe('view {"path":"."}');
    expect(sameCall({ tool: "view", args: { path: "p" } }, "re\u0301", true)).toBe('view {"path":"re\\u0301"}');
  });
  test("a call too long to repeat is described instead", () => {
    const text = sameCall({ tool: "write", args: { path: "~/a", content: "x".repeat(5000) } }, "a");
    expect(text).toBe('write {"path":"a", ...} (the other arguments as you sent them)');
  });
});
