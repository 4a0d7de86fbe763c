/** The guard's renderer, on findings made by hand: each kind of refusal, its first call and its wording (table-driven). */
import { describe, expect, test } from "bun:test";
import type { ShellWord } from "../../../src/tools/shell/lex.ts";
import { type Finding, MAX_COMMAND_BYTES, renderRefusal } from "../../../src/tools/shell/refusal.ts";

const w = (text: string): ShellWord => ({ text, dynamic: false, quoted: false, plainPrefix: text.length });

const ROWS: Array<[string, Finding, string | undefined, { reason: string; tool: string; suggestion: string; says: string[] }]> = [
  [
    "cat of a file",
    { kind: "file-tool", program: "cat", segment: "cat src/a.ts", args: [w("src/a.ts")], inputFiles: [], family: "read" },
    undefined,
    { reason: "file-tool", tool: "view", suggestion: 'view {"path": "src/a.ts"}', says: ["bash refused `cat src/a.ts`", "Do this instead:"] },
  ],
  [
    "a path through /proc/self/cwd is shown relative to the project",
    { kind: "file-tool", program: "cat", segment: "cat /proc/self/cwd/src/a.ts", args: [w("/proc/self/cwd/src/a.ts")], inputFiles: [], family: "read" },
    "/srv/ws",
    { reason: "file-tool", tool: "view", suggestion: 'view {"path": "src/a.ts"}', says: ["`cat /proc/self/cwd/src/a.ts`"] },
  ],
  [
    "grep for a pattern",
    { kind: "file-tool", program: "grep", segment: "grep -rn foo src", args: [w("-rn"), w("foo"), w("src")], inputFiles: [], family: "search" },
    undefined,
    { reason: "file-tool", tool: "view", suggestion: 'view {"path": "src", "content": "foo"', says: ["bash remains the tool for builds"] },
  ],
  [
    "sed -i edits in place",
    { kind: "file-tool", program: "sed", segment: "sed -i s/a/b/ f.txt", args: [w("-i"), w("s/a/b/"), w("f.txt")], inputFiles: [], family: "edit" },
    undefined,
    { reason: "file-tool", tool: "edit", suggestion: "edit", says: ["f.txt"] },
  ],
  [
    "a command too long to check",
    { kind: "too-long" },
    undefined,
    {
      reason: "too-long",
      tool: "write",
      suggestion: 'write {"path": "scripts/task.sh"',
      says: [`longer than ${MAX_COMMAND_BYTES} bytes`, "bash scripts/task.sh"],
    },
  ],
  [
    "shells nested too deep",
    { kind: "too-deep", shell: "bash", segment: "bash -c '...'" },
    undefined,
    { reason: "too-deep", tool: "write", suggestion: 'write {"path": "scripts/task.sh"', says: ["nests shells", "bash scripts/task.sh"] },
  ],
];

describe("renderRefusal", () => {
  for (const [name, finding, root, want] of ROWS) {
    test(name, () => {
      const refusal = renderRefusal(finding, root);
      expect(refusal.allowed).toBe(false);
      expect(refusal.reason).toBe(want.reason as never);
      expect(refusal.tool).toBe(want.tool as never);
      expect(refusal.suggestion.startsWith(want.suggestion)).toBe(true);
      expect(refusal.message).toContain(refusal.suggestion);
      for (const text of want.says) expect(refusal.message).toContain(text);
    });
  }
});
