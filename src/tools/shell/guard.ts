/**
 * The shell guard: refuses commands that read, search, list or edit project
 * files with shell programs, and names the file tool that does the job with
 * worked example calls. Pure: no I/O.
 *
 * It steers a model to the right tool; it is not a sandbox. It sees through
 * the usual wrappings (`sudo`, `env`, `xargs`, `flock`, `strace`, ... see
 * `wrappers.ts`; `bash -c '...'`, `trap '...'`, `$(...)`, subshells,
 * function bodies, quoted or path-qualified program names, brace expansion),
 * redirections that feed a reader from outside it (`{ cat; } < f`, `exec
 * 3<f; cat <&3`, `$(<f)`) and the project reached through `/proc/self/cwd`,
 * but not through a program whose name only exists at run time (`$cmd f`,
 * `$(echo cat) f`) or a script file or interpreter (`python -c "open('f')"`).
 * docs/tools.md lists what it catches.
 *
 * Decisions:
 * - A filter that is not the first stage of a pipeline transforms a stream
 *   and is allowed (`make 2>&1 | grep error`); `cat`/`head`/`tail`/`less`/
 *   `more` are judged by their operands wherever they stand: with a file
 *   operand or a `<` file they read a file (refused), with neither they read
 *   standard input only (allowed). So `cat > f <<EOF` (writing a file from a
 *   here-document) and `git log | head -20` are allowed; `x | cat f` is not.
 *   `find` and `ls` never read standard input, so they are refused anywhere.
 *   Anything started by `xargs` runs on file names, so it is refused anywhere.
 * - Only project files count: a program whose every path operand lies
 *   outside the project (`cat /proc/cpuinfo`, `ls ~/.cache`, `head -c 32
 *   /dev/urandom`) is allowed, because the file tools cannot serve those.
 * - A command longer than {@link MAX_COMMAND_BYTES} is refused unchecked
 *   (fail closed): such commands are nearly always file contents pasted into
 *   a here-document, which belongs in the `write` tool. The same holds for
 *   shells nested deeper than {@link MAX_SHELL_NESTING}.
 */
import { FILE_PROGRAMS, type FileFamily, fileTargets } from "./advice.ts";
import { expandWords } from "./braces.ts";
import { isAssignmentWord, parseCommands, SUBSTITUTION, type ShellWord, type SimpleCommand } from "./lex.ts";
import { type OptionSpec, parseArgs } from "./options.ts";
import { isOutsideProject, isStreamPath } from "./paths.ts";
import { type Finding, MAX_COMMAND_BYTES, MAX_SEGMENT_CHARS, renderRefusal, type ShellRefusal } from "./refusal.ts";
import { redirectedStdin } from "./stdin.ts";
import { RUNS_ON_FILE_NAMES, WRAPPERS, type Wrapper } from "./wrappers.ts";

export { isOutsideProject } from "./paths.ts";
export type { ShellRefusal } from "./refusal.ts";

export { MAX_COMMAND_BYTES } from "./refusal.ts";
/**
 * Deepest `bash -c` / `eval` / `env -S` nesting the guard follows; deeper
 * ones are refused (as are quotes and substitutions nested deeper than the
 * scanner's `MAX_NESTING`).
 */
export const MAX_SHELL_NESTING = 8;

/** What the guard may know about the workspace. */
export interface ShellGuardOptions {
  /**
   * Absolute path of the project (workspace) root. Absolute paths outside it
   * are not project files. Without it, only well-known system directories
   * (`/dev`, `/proc`, `/etc`, `/usr`, ...) and the home directory count as outside.
   */
  readonly projectRoot?: string;
}

/** The guard's verdict on one command line. */
export type ShellGuardVerdict = { readonly allowed: true } | ShellRefusal;

const ALLOWED: ShellGuardVerdict = Object.freeze({ allowed: true });
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"]);
const SHELL_SPEC: OptionSpec = { withArg: "oO", longWithArg: ["rcfile", "init-file"], plus: true };
/** Reserved words that may stand before a command's program. */
const LEADING_KEYWORDS = new Set(["!", "{", "if", "then", "else", "elif", "while", "until", "do", "coproc"]);
/** Reserved words after which the rest of the segment is not a command. */
const NON_COMMAND_KEYWORDS = new Set(["for", "case", "select", "in"]);

/**
 * Decides whether `command` may run in the `bash` tool. Refuses a command
 * that uses a file program (cat head tail less more, grep egrep fgrep rg,
 * find ls, sed awk) on project files, and explains which tool to use, with
 * worked example calls built from the command's own paths and patterns.
 * Programs working only on files outside the project (`cat /proc/cpuinfo`)
 * are allowed: the file tools cannot serve those.
 */
export function checkShellCommand(command: string, options: ShellGuardOptions = {}): ShellGuardVerdict {
  const bytes = utf8LengthUpTo(command, MAX_COMMAND_BYTES + 1);
  if (bytes > MAX_COMMAND_BYTES) return renderRefusal({ kind: "too-long" }, options.projectRoot);
  const finding = checkScript(command, { projectRoot: options.projectRoot, depth: 0 });
  return finding === null ? ALLOWED : renderRefusal(finding, options.projectRoot);
}

/** A file program found at work on project files: what the renderer needs. */
function fileTool(program: string, segment: string, args: readonly ShellWord[], inputFiles: readonly ShellWord[], family: FileFamily): Finding {
  return { kind: "file-tool", program, segment, args, inputFiles, family };
}

/** Where the check stands: the project root and how deep in nested shells. */
interface CheckContext {
  readonly projectRoot: string | undefined;
  readonly depth: number;
}

function checkScript(script: string, ctx: CheckContext): Finding | null {
  const parsed = parseCommands(script);
  const isProjectFile = (word: ShellWord): boolean => !isOutsideProject(word, ctx.projectRoot);
  const stdin = redirectedStdin(parsed.commands, isProjectFile);
  for (let i = 0; i < parsed.commands.length; i++) {
    const cmd = parsed.commands[i];
    const refusal = checkCommand(cmd, script, ctx, stdin[i]);
    if (refusal !== null) return refusal;
  }
  return parsed.tooDeep ? { kind: "too-deep", shell: "", segment: script } : null;
}

function checkNested(script: string, shell: string, segment: string, ctx: CheckContext): Finding | null {
  if (ctx.depth + 1 > MAX_SHELL_NESTING) return { kind: "too-deep", shell, segment };
  return checkScript(script, { ...ctx, depth: ctx.depth + 1 });
}

/** The program's base name: `/usr/bin/grep` -> `grep`. */
function baseName(text: string): string {
  return text.slice(text.lastIndexOf("/") + 1);
}

function isPlain(word: ShellWord): boolean {
  return !word.dynamic && !word.quoted;
}

function segmentText(source: string, cmd: SimpleCommand): string {
  const text = source.slice(cmd.start, cmd.end).trim();
  return text.length > MAX_SEGMENT_CHARS ? `${text.slice(0, MAX_SEGMENT_CHARS)}...` : text;
}

/** A word made from an option's value (`xargs -a FILE`). */
function valueWord(text: string): ShellWord {
  return { text, dynamic: text.includes(SUBSTITUTION), quoted: false, plainPrefix: text.length };
}

/** `name()` or `name(){` (bash allows the body's brace on the name): a function definition, whose body follows. */
function isFunctionHead(word: ShellWord): boolean {
  return !word.quoted && /^[^\s=()]+\(\)\{?$/.test(word.text);
}

/**
 * `stdinFile` is the project file this command's standard input was
 * redirected from by an enclosing group (`{ cat; } < f`, `(cat) < f`,
 * `while ...; done < f`) or an earlier `exec 3< f`; a reader with no file
 * operand reads it.
 */
function checkCommand(cmd: SimpleCommand, source: string, ctx: CheckContext, stdinFile: ShellWord | undefined): Finding | null {
  const words = expandWords(cmd.words);
  // `$(< f)` is bash's shorthand for `$(cat f)`.
  if (words.length === 0 && cmd.inSubstitution && cmd.groupFrom === undefined) {
    const file = cmd.inputFiles.find((w) => !isOutsideProject(w, ctx.projectRoot));
    return file === undefined ? null : fileTool("$(<file)", segmentText(source, cmd), [], [file], "read");
  }
  let k = 0;
  let viaXargs = false;
  for (;;) {
    while (k < words.length && (isAssignmentWord(words[k]) || (isPlain(words[k]) && LEADING_KEYWORDS.has(words[k].text)))) k++;
    if (k >= words.length) return null;
    const word = words[k];
    if (word.dynamic) return null; // the program is only known at run time
    if (isPlain(word) && NON_COMMAND_KEYWORDS.has(word.text)) return null;
    if (isPlain(word) && word.text === "function") {
      // `function name [()] { body }`: the body's commands follow the name.
      k += words[k + 2]?.text === "()" ? 3 : 2;
      continue;
    }
    if (isFunctionHead(word)) {
      k++; // `name() { body }`, `name(){ body }`
      continue;
    }
    const program = baseName(word.text);

    if (SHELLS.has(program)) return checkShell(cmd, words, program, k + 1, source, ctx);
    if (program === "eval") {
      const script = words
        .slice(k + 1)
        .map((w) => w.text)
        .join(" ");
      return checkNested(script, program, segmentText(source, cmd), ctx);
    }
    if (program === "trap") return checkTrap(words, k + 1, source, cmd, ctx);
    const wrapper = WRAPPERS.get(program);
    if (wrapper !== undefined) {
      const step = stepWrapper(program, wrapper, words, k + 1, source, cmd, ctx);
      if (step.verdict !== undefined) return step.verdict;
      if (RUNS_ON_FILE_NAMES.has(program)) viaXargs = true;
      k = step.next;
      continue;
    }

    const family = FILE_PROGRAMS.get(program);
    if (family === undefined) return null;
    // `parallel cmd ::: a b`: the separators are not operands, the items after them are.
    let args = words.slice(k + 1).filter((w) => !(viaXargs && /^:{3,4}\+?$/.test(w.text)));
    let inputFiles = cmd.inputFiles;
    if (!viaXargs) {
      let targets = fileTargets(program, family, args, inputFiles);
      if (family === "read" && targets.length > 0 && targets.every((w) => isStreamPath(w)) && stdinFile !== undefined) {
        // `cat /dev/fd/3` after `exec 3< f` reads f.
        args = args.filter((w) => !isStreamPath(w));
        targets = [];
      }
      if (family === "read" && targets.length === 0) {
        // With no file operand a `cat`-like program reads standard input: a pipe or a here-document
        // (allowed), or a project file an enclosing group or an `exec` redirected into it (refused).
        if (stdinFile === undefined || cmd.piped) return null;
        inputFiles = [...inputFiles, stdinFile];
        targets = [stdinFile];
      }
      // A filter on the previous stage's output (`find` and `ls` never read standard input).
      if (cmd.piped && family !== "read" && family !== "list") return null;
      // Files the file tools cannot serve anyway (`cat /proc/cpuinfo`, `ls ~/.cache`).
      if (targets.length > 0 && targets.every((w) => isOutsideProject(w, ctx.projectRoot))) return null;
    }
    return fileTool(program, segmentText(source, cmd), args, inputFiles, family);
  }
}

/** `trap 'cmd' SIGNAL...`: the action is a command line run later in this shell. */
function checkTrap(words: readonly ShellWord[], from: number, source: string, cmd: SimpleCommand, ctx: CheckContext): Finding | null {
  const parsed = parseArgs(words, from, {}, false);
  const action = parsed.operands[0];
  // One operand is a signal to reset; "-" resets too.
  if (parsed.operands.length < 2 || action === undefined || action.text === "-") return null;
  return checkNested(action.text, "trap", segmentText(source, cmd), ctx);
}

/**
 * Past a wrapper's options and positional operands: where its program
 * starts, or a verdict when the wrapper itself decides (`xargs -a FILE`
 * reads FILE; `flock f -c 'cmd'`, `watch 'cmd'` run a command line; `script
 * out.log` runs no program).
 */
function stepWrapper(
  program: string,
  wrapper: Wrapper,
  words: readonly ShellWord[],
  from: number,
  source: string,
  cmd: SimpleCommand,
  ctx: CheckContext,
): { verdict?: Finding | null; next: number } {
  const parsed = parseArgs(words, from, wrapper.spec, true);
  if (program === "command" && /[vV]/.test(parsed.flags)) return { verdict: null, next: 0 }; // `command -v x` only looks x up
  const segment = segmentText(source, cmd);
  const split = program === "env" ? (parsed.values.get("S") ?? parsed.values.get("split-string")) : undefined;
  if (split !== undefined) {
    const rest = words.slice(parsed.end).map((w) => w.text);
    return { verdict: checkNested([split, ...rest].join(" "), program, segment, ctx), next: 0 };
  }
  if (program === "xargs" || program === "parallel") {
    // `xargs -a FILE` prints (or passes on) the words of FILE.
    const file = parsed.values.get("a") ?? parsed.values.get("arg-file");
    if (file !== undefined && !isOutsideProject(valueWord(file), ctx.projectRoot)) {
      return { verdict: fileTool(program, segment, [valueWord(file)], [], "read"), next: 0 };
    }
  }
  let next = parsed.end + (wrapper.positionals ?? 0);
  let values = parsed.values;
  if (wrapper.positionals !== undefined) {
    // Options may follow the positional operands (`flock FILE -c cmd`).
    const again = parseArgs(words, next, wrapper.spec, true);
    values = new Map([...again.values, ...parsed.values]);
    next = again.end;
  }
  const direct = wrapper.programAfter?.some((o) => parsed.values.has(o)) ?? false;
  if (wrapper.scriptOptions !== undefined && !direct) {
    const all = wrapper.scriptOptionAnywhere ? parseArgs(words, from, wrapper.spec, false).values : values;
    const script = wrapper.scriptOptions.map((o) => all.get(o)).find((v) => v !== undefined);
    if (script !== undefined) return { verdict: checkNested(script, program, segment, ctx), next: 0 };
    if (wrapper.onlyScript) return { verdict: null, next: 0 };
  }
  const operands = wrapper.scriptOperands;
  if (
    operands !== undefined &&
    ![...parsed.flags].some((f) => operands.unlessFlags.includes(f)) &&
    !parsed.longFlags.some((f) => operands.unlessLong.includes(f))
  ) {
    return {
      verdict: checkNested(
        words
          .slice(next)
          .map((w) => w.text)
          .join(" "),
        program,
        segment,
        ctx,
      ),
      next: 0,
    };
  }
  return { next };
}

/** `bash -c 'script'` and `bash <<EOF ... EOF` run text as a script: check that text too. */
function checkShell(cmd: SimpleCommand, words: readonly ShellWord[], shell: string, from: number, source: string, ctx: CheckContext): Finding | null {
  const parsed = parseArgs(words, from, SHELL_SPEC, true);
  const operand = words[parsed.end];
  const segment = segmentText(source, cmd);
  if (parsed.flags.includes("c")) {
    return operand === undefined ? null : checkNested(operand.text, shell, segment, ctx);
  }
  if (operand !== undefined && !parsed.flags.includes("s")) return null; // runs a script file
  for (const doc of cmd.stdinDocs) {
    const refusal = checkNested(doc.body, shell, segment, ctx);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** UTF-8 length of `text`, counting no further than `limit` (so a huge string costs no more than the limit). */
function utf8LengthUpTo(text: string, limit: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length && bytes < limit; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte code point
      i++;
    } else bytes += 3;
  }
  return bytes;
}
