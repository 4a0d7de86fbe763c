import { describe, expect, test } from "bun:test";
import { assignmentPrefix, isAssignmentWord, parseCommands, type SimpleCommand } from "../../../src/tools/shell/lex.ts";

function commands(source: string): SimpleCommand[] {
  return parseCommands(source).commands;
}

function words(source: string): string[][] {
  return commands(source).map((c) => c.words.map((w) => w.text));
}

describe("parseCommands", () => {
  test("quote removal joins the parts of a word", () => {
    expect(words(`c"a"t 'a b' \\x $'q\\'s'`)).toEqual([["cat", "a b", "x", "q's"]]);
  });

  test("separators outside quotes split commands; inside quotes they are text", () => {
    expect(words("a; b && c || d & e\nf")).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]);
    expect(words(`echo "a; b" 'c && d'`)).toEqual([["echo", "a; b", "c && d"]]);
  });

  test("pipeline stages after the first are marked piped", () => {
    expect(commands("a | b |& c; d").map((c) => c.piped)).toEqual([false, true, true, false]);
  });

  test("redirections are not words; fd numbers are not arguments; `<` targets are input files", () => {
    const [cmd] = commands("sort 2>&1 <in.txt >out.txt -r 2> err &>>all");
    expect(cmd.words.map((w) => w.text)).toEqual(["sort", "-r"]);
    expect(cmd.inputFiles.map((w) => w.text)).toEqual(["in.txt"]);
  });

  test("a substitution is its own command and leaves a dynamic word behind", () => {
    const [outer, inner] = [...commands("echo x$(cat f)y")].sort((a, b) => a.start - b.start);
    expect(outer.words[1]).toMatchObject({ dynamic: true, text: "x$(...)y" });
    expect(inner.words.map((w) => w.text)).toEqual(["cat", "f"]);
  });

  test("here-document bodies are read, not split into commands", () => {
    const list = commands("cat <<A <<-'B' && ls\nbody; rm x\nA\n\tliteral $(ls)\n\tB\necho done");
    expect(list.map((c) => c.words.map((w) => w.text))).toEqual([["cat"], ["ls"], ["echo", "done"]]);
    expect(list[0].stdinDocs.map((d) => d.body)).toEqual(["body; rm x\n", "\tliteral $(ls)\n"]);
  });

  test("an expanding here-document runs its substitutions", () => {
    expect(words("cat <<EOF\nx $(date) y\nEOF")).toContainEqual(["date"]);
  });

  test("a comment starts only at the beginning of a word", () => {
    expect(words("echo a#b # c; d\ne")).toEqual([["echo", "a#b"], ["e"]]);
  });

  test("the segment offsets cover the command's own text", () => {
    const source = "cat <<EOF\nbody\nEOF\n  grep x f ;";
    const last = commands(source).at(-1) as SimpleCommand;
    expect(source.slice(last.start, last.end).trim()).toBe("grep x f");
  });

  test("array assignments hold values, not commands", () => {
    expect(words("a=(ls cat) b+=(x); echo")).toEqual([["a=(", "b+=("], ["echo"]]);
  });

  test("unbalanced input yields what was seen, without throwing", () => {
    expect(words(`echo "$(cat f`)).toContainEqual(["cat", "f"]);
    expect(words("echo 'open")).toEqual([["echo", "open"]]);
  });
});

describe("assignmentPrefix", () => {
  test("recognises NAME=, NAME+=, NAME[i]= and nothing else", () => {
    expect(assignmentPrefix("FOO=1")).toBe(4);
    expect(assignmentPrefix("a_1+=x")).toBe(5);
    expect(assignmentPrefix("arr[2]=v")).toBe(7);
    expect(assignmentPrefix("1A=x")).toBe(0);
    expect(assignmentPrefix("--opt=x")).toBe(0);
    expect(assignmentPrefix("cat")).toBe(0);
  });

  test("a quoted name is not an assignment, a quoted value is", () => {
    const [quotedName, quotedValue] = commands(`"A"=1 x; A="b c" y`);
    expect(isAssignmentWord(quotedName.words[0])).toBe(false);
    expect(isAssignmentWord(quotedValue.words[0])).toBe(true);
  });
});

describe("redirections that feed a group", () => {
  test("the redirection after a subshell's `)` names the subshell's first command", () => {
    const commands = parseCommands("echo a; (cat; head -1) < f").commands;
    const last = commands.at(-1)!;
    expect(last.words).toEqual([]);
    expect(last.inputFiles.map((w) => w.text)).toEqual(["f"]);
    expect(last.groupFrom).toBe(1);
    expect(commands[1].words.map((w) => w.text)).toEqual(["cat"]);
    expect(commands.every((c) => c.inSubstitution === false)).toBe(true);
  });

  test("a lone `< f` inside `$( )` or backticks is marked as in a substitution, and feeds no group", () => {
    for (const source of ["echo $(<f)", "echo `< f`"]) {
      const inner = parseCommands(source).commands.find((c) => c.words.length === 0)!;
      expect(inner.inSubstitution).toBe(true);
      expect(inner.groupFrom).toBeUndefined();
      expect(inner.inputFiles.map((w) => w.text)).toEqual(["f"]);
    }
  });

  test("a subshell followed by another command leaves no group mark", () => {
    expect(parseCommands("(cat); < f").commands.every((c) => c.groupFrom === undefined)).toBe(true);
  });
});
