/**
 * The red-team bypasses of issue 13 (item 7): each row was allowed before and
 * must now be refused with its exact replacement call; programs that run code
 * stay allowed. Judged with a project root, as the server runs the guard.
 */
import { describe, expect, test } from "bun:test";
import { expandBraces, MAX_BRACE_WORDS } from "../../../src/tools/shell/braces.ts";
import { checkShellCommand } from "../../../src/tools/shell/guard.ts";

const projectRoot = "/srv/project";

/** [command, refused program, exact first replacement call] */
const REFUSED: ReadonlyArray<readonly [string, string, string]> = [
  // brace expansion makes the program
  ["{cat,src/x.ts}", "cat", 'view {"path": "src/x.ts"}'],
  ["{head,-n,5,notes.md}", "head", 'view {"path": "notes.md", "start": 1, "end": 5}'],
  ["{c..c}at src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["sudo {cat,f}", "cat", 'view {"path": "f"}'],
  ["echo ok; {grep,-n,TODO,src}", "grep", 'view {"path": "src", "content": "TODO", "context": 2}'],
  // the project through /proc: the paths in the calls are the project's
  ["cat /proc/self/cwd/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["cat /proc/thread-self/cwd/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["cat /proc/4242/cwd/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["cat /proc/self/root/srv/project/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["cat /proc/self/cwd/./src/../src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["sed -i 's/foo/bar/' /proc/self/cwd/src/app.ts", "sed", 'edit {"path": "src/app.ts", "old_string": "foo", "new_string": "bar"}'],
  ["grep -rn TODO /proc/self/cwd", "grep", 'view {"path": ".", "content": "TODO", "context": 2}'],
  ["ls /proc/self/cwd/src", "ls", 'view {"path": "src", "depth": 1}'],
  ["cat /tmp/../srv/project/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["cat /srv/project/src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  // readers fed by a redirection they do not carry
  ["{ cat; } < src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["{ head -n 3; } < src/x.ts", "head", 'view {"path": "src/x.ts", "start": 1, "end": 3}'],
  ["(cat) < src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["while true; do cat; break; done < src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["if true; then tac; fi < src/x.ts", "tac", 'view {"path": "src/x.ts"}'],
  ["exec 3<src/x.ts; cat <&3", "cat", 'view {"path": "src/x.ts"}'],
  ["exec < src/x.ts; cat", "cat", 'view {"path": "src/x.ts"}'],
  ["exec 3<src/x.ts; cat /dev/fd/3", "cat", 'view {"path": "src/x.ts"}'],
  ["echo $(<src/x.ts)", "$(<file)", 'view {"path": "src/x.ts"}'],
  ['x="$(< src/x.ts)"; echo "$x"', "$(<file)", 'view {"path": "src/x.ts"}'],
  ["echo `<src/x.ts`", "$(<file)", 'view {"path": "src/x.ts"}'],
  // function and trap bodies
  ["f(){ cat src/x.ts;}; f", "cat", 'view {"path": "src/x.ts"}'],
  ["function f { cat src/x.ts; }; f", "cat", 'view {"path": "src/x.ts"}'],
  ["trap 'cat src/x.ts' EXIT", "cat", 'view {"path": "src/x.ts"}'],
  ["trap -- 'grep -n TODO src' EXIT INT", "grep", 'view {"path": "src", "content": "TODO", "context": 2}'],
  // xargs reading a project file
  ["xargs -a src/x.ts", "xargs", 'view {"path": "src/x.ts"}'],
  ["xargs -a src/x.ts echo", "xargs", 'view {"path": "src/x.ts"}'],
  ["xargs --arg-file=src/x.ts", "xargs", 'view {"path": "src/x.ts"}'],
  // wrappers it did not know
  ["flock /tmp/lock cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["flock -w 5 /tmp/lock cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["flock /tmp/lock -c 'cat src/x.ts'", "cat", 'view {"path": "src/x.ts"}'],
  ["taskset 0x1 cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["taskset -c 0 cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["strace -f -o /tmp/trace.log cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["chroot / cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["chroot --userspec=1000 / head -n 2 src/x.ts", "head", 'view {"path": "src/x.ts", "start": 1, "end": 2}'],
  ["ltrace -o /tmp/l cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["unshare -r cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["busybox cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["su -c 'cat src/x.ts' me", "cat", 'view {"path": "src/x.ts"}'],
  ["runuser -u me -- cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["runuser -u me grep -c TODO src/x.ts", "grep", 'view {"path": "src/x.ts", "content": "TODO", "context": 2}'],
  ["runuser -l me -c 'cat src/x.ts'", "cat", 'view {"path": "src/x.ts"}'],
  ["watch -n 1 'cat src/x.ts'", "cat", 'view {"path": "src/x.ts"}'],
  ["script -qc 'cat src/x.ts' /dev/null", "cat", 'view {"path": "src/x.ts"}'],
  ["systemd-run --user -p X=1 cat src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  ["parallel cat ::: src/x.ts", "cat", 'view {"path": "src/x.ts"}'],
  // other viewers
  ["tac src/x.ts", "tac", 'view {"path": "src/x.ts"}'],
  ["nl -ba src/x.ts", "nl", 'view {"path": "src/x.ts"}'],
  ["rev src/x.ts", "rev", 'view {"path": "src/x.ts"}'],
  ["strings -n 8 src/x.ts", "strings", 'view {"path": "src/x.ts"}'],
  ["xxd -l 64 src/x.ts", "xxd", 'view {"path": "src/x.ts"}'],
  ["od -An -c src/x.ts", "od", 'view {"path": "src/x.ts"}'],
  ["hexdump -C src/x.ts", "hexdump", 'view {"path": "src/x.ts"}'],
  ["hd src/x.ts", "hd", 'view {"path": "src/x.ts"}'],
  ["base64 src/x.ts", "base64", 'view {"path": "src/x.ts"}'],
  ["base64 -w0 src/x.ts | base64 -d", "base64", 'view {"path": "src/x.ts"}'],
  ["dd if=src/x.ts", "dd", 'view {"path": "src/x.ts"}'],
  ["dd if=src/x.ts of=/dev/stdout bs=1k status=none", "dd", 'view {"path": "src/x.ts"}'],
  ["bat --style=plain src/x.ts", "bat", 'view {"path": "src/x.ts"}'],
];

/** Commands that must stay allowed: programs and interpreters that run code, streams, system files. */
const ALLOWED: readonly string[] = [
  "python script.py",
  "python3 -m pytest -q",
  "node app.js",
  "node -e 'console.log(1)'",
  "make",
  "make -C src test",
  "git status",
  "git show HEAD:src/x.ts",
  "git log -p | head -50",
  "echo {a,b}",
  "echo ${x,,}",
  "cat /proc/cpuinfo",
  "cat /proc/self/status",
  "ls /proc/self/fd",
  "{ cat; } < /etc/hosts",
  "exec 3</etc/hosts; cat <&3",
  "{ git log | head; } < src/x.ts",
  'while read -r t; do make "$t"; done < targets.txt',
  "(cd src && make)",
  "(make) > build.log",
  "(< src/x.ts)",
  "trap - EXIT",
  "trap 'echo bye' EXIT",
  "xargs -a /etc/hostname echo",
  "flock /tmp/lock make",
  "taskset -c 0 node bench.js",
  "strace -f -o /tmp/t.log python script.py",
  "watch -n 5 make",
  "script out.log",
  "dd of=out.bin bs=1 count=4 < /dev/zero",
  "git log | base64",
  "head -c 32 /dev/urandom | base64",
  "make 2>&1 | tac",
  "npm test 2>&1 | xxd | head",
];

describe("guard bypasses from the red-team pass are refused with their exact call", () => {
  for (const [command, program, call] of REFUSED) {
    test(`refuses ${program} in ${JSON.stringify(command)}`, () => {
      const verdict = checkShellCommand(command, { projectRoot });
      expect(verdict.allowed).toBe(false);
      if (verdict.allowed) return;
      expect(verdict.reason).toBe("file-tool");
      expect(verdict.program).toBe(program);
      expect(verdict.suggestion).toBe(call);
      expect(verdict.message).toContain(call);
    });
  }
});

describe("programs that run code, stream filters and system files stay allowed", () => {
  for (const command of ALLOWED) {
    test(`allows ${JSON.stringify(command)}`, () => {
      expect(checkShellCommand(command, { projectRoot })).toEqual({ allowed: true });
    });
  }
});

describe("without a project root", () => {
  test("/proc/self/cwd is still the project; other /proc files are not", () => {
    expect(checkShellCommand("cat /proc/self/cwd/src/x.ts").allowed).toBe(false);
    expect(checkShellCommand("cat /proc/self/cwd/../../etc/hosts").allowed).toBe(false);
    expect(checkShellCommand("cat /proc/meminfo").allowed).toBe(true);
  });
});

describe("brace expansion", () => {
  test("expands as bash does, enough to find the program", () => {
    expect(expandBraces("{cat,f}")).toEqual(["cat", "f"]);
    expect(expandBraces("{c..c}at")).toEqual(["cat"]);
    expect(expandBraces("a{b,{c,d}}e")).toEqual(["abe", "ace", "ade"]);
    expect(expandBraces("{a,b}{1..2}")).toEqual(["a1", "a2", "b1", "b2"]);
    expect(expandBraces("{x{a,b}y}")).toEqual(["{xay}", "{xby}"]);
    expect(expandBraces("${x,,}")).toEqual(["${x,,}"]);
    expect(expandBraces("\\{a,b}")).toEqual(["\\{a,b}"]);
  });

  test("is bounded: many braces cost their length, the words are capped", () => {
    expect(expandBraces("{".repeat(65_536))).toHaveLength(1);
    expect(expandBraces("{a,b}".repeat(40)).length).toBeLessThanOrEqual(MAX_BRACE_WORDS);
  });
});
