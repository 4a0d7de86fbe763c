import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkShellCommand, MAX_COMMAND_BYTES, type ShellRefusal } from "../../../src/tools/shell/guard.ts";

function refusal(command: string): ShellRefusal {
  const verdict = checkShellCommand(command);
  if (verdict.allowed) throw new Error(`expected a refusal for ${JSON.stringify(command)}`);
  return verdict;
}

/** [command, refused program or null when allowed] */
const TABLE: ReadonlyArray<readonly [string, string | null]> = [
  // direct use
  ["cat src/x.ts", "cat"],
  ["head -n 50 src/a.ts", "head"],
  ["echo ok; less README.md", "less"],
  ["cd src && ls", "ls"],
  ["find . -name x", "find"],
  ["sed -i 's/a/b/' f", "sed"],
  ["awk '{print $1}' data.csv", "awk"],
  ["cat < src/x.ts", "cat"],
  // bypasses of the Octofs 0.9.0 detector
  ["echo $(ls)", "ls"],
  ["sudo cat f", "cat"],
  ["env cat f", "cat"],
  ["xargs grep x", "grep"],
  ["(cat f)", "cat"],
  ["x & cat f", "cat"],
  // substitutions, subshells, loops, functions
  ['echo "$(cat f)"', "cat"],
  ["echo `cat f`", "cat"],
  ["echo ${x:-$(ls)}", "ls"],
  ["diff <(sort a) <(cat b)", "cat"],
  ['for f in *.ts; do cat "$f"; done', "cat"],
  ["if grep -q x f; then echo y; fi", "grep"],
  ["{ egrep x f; }", "egrep"],
  ["f() { cat x; }; f", "cat"],
  // nested shells
  ["bash -c 'cat f'", "cat"],
  ['sh -c "grep -n x f"', "grep"],
  [`bash -lc "bash -c 'tail -n 5 log'"`, "tail"],
  ['eval "cat f"', "cat"],
  ["bash <<EOF\ncat f\nEOF", "cat"],
  // wrappers with their own options, assignments
  ["sudo -u root -E cat f", "cat"],
  ["env -i -u HOME A=1 cat f", "cat"],
  ["timeout -s KILL 5 head f", "head"],
  ["nice -n 10 grep x f", "grep"],
  ["time -p fgrep x f", "fgrep"],
  ["command -p cat f", "cat"],
  ['FOO="a b" cat f', "cat"],
  ["a=1 b=2 sudo env nohup stdbuf -oL more f", "more"],
  // program names in disguise
  ["/usr/bin/rg foo", "rg"],
  ["'cat' f", "cat"],
  ['"cat" f', "cat"],
  ["\\grep x f", "grep"],
  // pipelines: the first stage, file operands downstream, xargs, list programs anywhere
  ["cat f | wc -l", "cat"],
  ["ls | wc", "ls"],
  ["x | cat f", "cat"],
  ["make | ls", "ls"],
  ["git ls-files | xargs cat", "cat"],
  // an expanding here-document runs its substitutions
  ["cat > out.txt <<EOF\n$(cat secret)\nEOF", "cat"],

  // text inside quotes of another program
  ["ssh host 'cd /x && ls'", null],
  ["echo grep", null],
  ['git commit -m "cat the file"', null],
  ["echo 'a; cat f'", null],
  ["echo '$(cat f)'", null],
  ["echo \\$(cat f)", null],
  ['echo "\\`ls\\`"', null],
  ["echo hi # && cat f", null],
  ["echo a#b", null],
  ["docker run --rm img sh -c 'ls /'", null],
  // ordinary work
  ["npm test", null],
  ["git status", null],
  ["git grep TODO", null],
  ["bash scripts/test.sh", null],
  ["npm run build > build.log 2>&1 && echo done", null],
  ["make &>/dev/null & wait", null],
  ["x=$(( 1 << 2 )); echo $x", null],
  ["cmds=(cat ls); echo ${cmds[0]}", null],
  ["command -v cat", null],
  // filters on a stream
  ["make 2>&1 | grep error", null],
  ["git log --oneline | head -20", null],
  ["ps aux | sed -n 1,5p", null],
  ["echo 'a|b' | awk -F'|' '{print $2}'", null],
  // cat reading only standard input: here-documents write files
  ["cat <<EOF\nhello\nEOF", null],
  ["cat > f.txt <<'EOF'\n$(cat secret)\ncat x; ls\nEOF", null],
  ["cat >> notes.md <<-EOF\n\tline\n\tEOF\necho ok", null],
];

describe("checkShellCommand table", () => {
  test("the table is large enough to mean something", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });
  for (const [command, program] of TABLE) {
    test(`${program === null ? "allows" : `refuses ${program} in`} ${JSON.stringify(command)}`, () => {
      const verdict = checkShellCommand(command);
      if (program === null) {
        expect(verdict).toEqual({ allowed: true });
        return;
      }
      expect(verdict.allowed).toBe(false);
      if (verdict.allowed) return;
      expect(verdict.reason).toBe("file-tool");
      expect(verdict.program).toBe(program);
      // the message carries a worked example call of the tool it names
      expect(verdict.suggestion.startsWith(`${verdict.tool} {`)).toBe(true);
      expect(verdict.message).toContain(verdict.suggestion);
      expect(["view", "edit"]).toContain(verdict.tool);
    });
  }
});

describe("files outside the project", () => {
  test("system files and the home directory are not project files", () => {
    for (const command of ["cat /proc/cpuinfo", "head -c 32 /dev/urandom | base64", "ls ~/.cache", "grep -r listen /etc/nginx", "find / -name libssl.so"]) {
      expect(checkShellCommand(command)).toEqual({ allowed: true });
    }
  });

  test("one project file among them is enough to refuse", () => {
    expect(refusal("cat /etc/hosts src/x.ts").program).toBe("cat");
  });

  test("with a project root, absolute paths are judged against it", () => {
    const projectRoot = "/work/proj";
    expect(refusal("cat /work/proj/src/x.ts").program).toBe("cat");
    expect(checkShellCommand("cat /work/proj/src/x.ts", { projectRoot }).allowed).toBe(false);
    expect(checkShellCommand("cat /work/proj-other/x.ts", { projectRoot }).allowed).toBe(true);
    expect(checkShellCommand("cat /opt/tool/README", { projectRoot }).allowed).toBe(true);
    expect(checkShellCommand("cat /opt/tool/README").allowed).toBe(false);
  });
});

describe("refusal messages", () => {
  test("cat: view with the real path, and a range example", () => {
    const r = refusal("cat src/x.ts");
    expect(r.tool).toBe("view");
    expect(r.suggestion).toBe('view {"path": "src/x.ts"}');
    expect(r.message).toContain('view {"path": "src/x.ts", "start": 40, "end": 80}');
    expect(r.segment).toBe("cat src/x.ts");
  });

  test("head -n N becomes a line range", () => {
    expect(refusal("head -n 50 src/a.ts").suggestion).toBe('view {"path": "src/a.ts", "start": 1, "end": 50}');
  });

  test("sed -n 'A,Bp' is a read of lines A to B", () => {
    const r = refusal("sed -n '10,20p' src/a.ts");
    expect(r.program).toBe("sed");
    expect(r.suggestion).toBe('view {"path": "src/a.ts", "start": 10, "end": 20}');
  });

  test("grep: view with content, context and a regex example", () => {
    const r = refusal("grep -rn TODO src");
    expect(r.suggestion).toBe('view {"path": "src", "content": "TODO", "context": 2}');
    expect(r.message).toContain('"regex": true');
  });

  test("a regular-expression search keeps its pattern and asks for regex", () => {
    expect(refusal("rg -C 3 'fn \\w+' lib").suggestion).toBe('view {"path": "lib", "content": "fn \\\\w+", "context": 3, "regex": true}');
  });

  test("find and ls: view with depth and pattern", () => {
    expect(refusal("find src -name '*.ts'").suggestion).toBe('view {"path": "src", "pattern": "**/*.ts"}');
    const ls = refusal("ls");
    expect(ls.suggestion).toBe('view {"path": ".", "depth": 1}');
    expect(ls.message).toContain('view {"path": "src", "depth": 2, "pattern": "**/*.ts"}');
  });

  test("sed s///: the equivalent edit call, and batch_edit", () => {
    const r = refusal("sed -i 's/foo/bar/' src/a.ts");
    expect(r.tool).toBe("edit");
    expect(r.suggestion).toBe('edit {"path": "src/a.ts", "old_string": "foo", "new_string": "bar"}');
    expect(r.message).toContain("batch_edit");
  });

  test("the refused segment is the inner command of a nested shell", () => {
    const r = refusal("npm test && bash -c 'echo hi; cat notes.md'");
    expect(r.segment).toBe("cat notes.md");
    expect(r.suggestion).toBe('view {"path": "notes.md"}');
  });

  test("the message says bash stays usable for other work", () => {
    expect(refusal("cat f").message).toContain("make 2>&1 | grep error");
  });
});

describe("bounds", () => {
  test(`a command over ${MAX_COMMAND_BYTES} bytes is refused unchecked, one at the limit is checked`, () => {
    const atLimit = `echo ${"a".repeat(MAX_COMMAND_BYTES - 5)}`;
    expect(checkShellCommand(atLimit)).toEqual({ allowed: true });
    const over = refusal(`${atLimit}a`);
    expect(over.reason).toBe("too-long");
    expect(over.tool).toBe("write");
  });

  test("the limit counts UTF-8 bytes, not characters", () => {
    const wide = `echo ${"é".repeat(MAX_COMMAND_BYTES / 2)}`; // 2 bytes each
    expect(refusal(wide).reason).toBe("too-long");
  });

  test("shells nested deeper than the guard follows are refused", () => {
    let command = "echo hi";
    for (let i = 0; i < 9; i++) command = `bash -c ${shellQuote(command)}`;
    const r = refusal(command);
    expect(r.reason).toBe("too-deep");
    expect(r.program).toBe("bash");
  });

  test("substitutions nested deeper than the scanner follows are refused", () => {
    expect(refusal(`${"$(".repeat(5000)}echo hi`).reason).toBe("too-deep");
  });
});

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

describe("properties", () => {
  test("never throws, and every refusal carries its worked example", () => {
    const token = fc.constantFrom(
      "cat",
      "ls",
      "grep",
      "x",
      " ",
      "$(",
      "(",
      ")",
      "`",
      "'",
      '"',
      "\\",
      "|",
      "&",
      ";",
      "<",
      "<<",
      ">",
      "{",
      "}",
      "\n",
      "#",
      "=",
      "-n",
      "bash -c ",
      "EOF",
    );
    const shellish = fc.array(token, { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), shellish), (command) => {
        const verdict = checkShellCommand(command);
        if (!verdict.allowed) expect(verdict.message).toContain(verdict.suggestion);
      }),
      { numRuns: 2000 },
    );
  });

  test("nothing inside single quotes runs: echo '<anything>' is allowed", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("'")),
        (text) => {
          expect(checkShellCommand(`echo '${text}'`).allowed).toBe(true);
        },
      ),
    );
  });

  test("cat of any plain path is refused and the example names that path", () => {
    const path = fc.stringMatching(/^[a-z][a-z0-9_./-]{0,30}$/);
    fc.assert(
      fc.property(path, (p) => {
        expect(refusal(`cat ${p}`).suggestion).toBe(`view {"path": ${JSON.stringify(p)}}`);
      }),
    );
  });
});
