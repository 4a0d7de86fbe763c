/**
 * The shell guard: refuses commands that read, search, list or edit project
 * files with shell programs, and names the file tool that does the job with
 * worked example calls. Pure: no I/O.
 *
 * It steers a model to the right tool; it is not a sandbox. It sees through
 * the usual wrappings (`sudo`, `env`, `xargs`, `bash -c '...'`, `$(...)`,
 * subshells, quoted or path-qualified program names) but not through a
 * program whose name only exists at run time (`$cmd f`, `$(echo cat) f`) or
 * a script file or interpreter (`python -c "open('f')"`).
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
import { adviseFor, FILE_PROGRAMS, fileTargets, renderCall } from "./advice.ts";
import { isAssignmentWord, parseCommands, type ShellWord, type SimpleCommand } from "./lex.ts";
import { type OptionSpec, parseArgs } from "./options.ts";

/** Longest command the guard checks, in UTF-8 bytes; longer ones are refused. */
export const MAX_COMMAND_BYTES = 64 * 1024;
/**
 * Deepest `bash -c` / `eval` / `env -S` nesting the guard follows; deeper
 * ones are refused (as are quotes and substitutions nested deeper than the
 * scanner's `MAX_NESTING`).
 */
export const MAX_SHELL_NESTING = 8;

/** A refused command and what to do instead. */
export interface ShellRefusal {
  readonly allowed: false;
  /** `file-tool`: a file program was found; `too-long` / `too-deep`: the command could not be checked. */
  readonly reason: "file-tool" | "too-long" | "too-deep";
  /** Base name of the refused program (`grep` for `/usr/bin/grep`); the shell for `too-deep`; "" for `too-long`. */
  readonly program: string;
  /** Source text of the refused simple command (shortened when long). */
  readonly segment: string;
  /** The tool to use instead. */
  readonly tool: "view" | "edit" | "write";
  /** The first worked example call, e.g. `view {"path": "src/x.ts"}`. */
  readonly suggestion: string;
  /** The whole model-facing explanation, with worked example calls. */
  readonly message: string;
}

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
const MAX_SEGMENT_CHARS = 200;
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"]);
const SHELL_SPEC: OptionSpec = { withArg: "oO", longWithArg: ["rcfile", "init-file"], plus: true };
/** Reserved words that may stand before a command's program. */
const LEADING_KEYWORDS = new Set(["!", "{", "if", "then", "else", "elif", "while", "until", "do", "coproc"]);
/** Reserved words after which the rest of the segment is not a command. */
const NON_COMMAND_KEYWORDS = new Set(["for", "case", "select", "in"]);

interface Wrapper {
  readonly spec: OptionSpec;
  /** Operands the wrapper takes before the program (`timeout DURATION cmd`). */
  readonly positionals?: number;
}

/** Programs that run another program given as their arguments. */
const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ["env", { spec: { withArg: "uCS", longWithArg: ["unset", "chdir", "split-string"] } }],
  ["sudo", { spec: { withArg: "ugpChDrtTUR", longWithArg: ["user", "group", "prompt", "close-from", "host", "chdir", "role", "type", "command-timeout", "other-user", "chroot"] } }],
  ["doas", { spec: { withArg: "uC" } }],
  ["command", { spec: {} }],
  ["builtin", { spec: {} }],
  ["exec", { spec: { withArg: "a" } }],
  ["nohup", { spec: {} }],
  ["setsid", { spec: {} }],
  ["nice", { spec: { withArg: "n", longWithArg: ["adjustment"] } }],
  ["ionice", { spec: { withArg: "cnp", longWithArg: ["class", "classdata", "pid"] } }],
  ["time", { spec: { withArg: "fo", longWithArg: ["format", "output"] } }],
  ["timeout", { spec: { withArg: "sk", longWithArg: ["signal", "kill-after"] }, positionals: 1 }],
  ["stdbuf", { spec: { withArg: "ioe", longWithArg: ["input", "output", "error"] } }],
  [
    "xargs",
    {
      spec: {
        withArg: "aEdILnPs",
        longWithArg: ["arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"],
      },
    },
  ],
]);

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
  if (bytes > MAX_COMMAND_BYTES) return tooLong();
  return checkScript(command, { projectRoot: options.projectRoot, depth: 0 }) ?? ALLOWED;
}

/** Where the check stands: the project root and how deep in nested shells. */
interface CheckContext {
  readonly projectRoot: string | undefined;
  readonly depth: number;
}

function checkScript(script: string, ctx: CheckContext): ShellRefusal | null {
  const parsed = parseCommands(script);
  for (const cmd of parsed.commands) {
    const refusal = checkCommand(cmd, script, ctx);
    if (refusal !== null) return refusal;
  }
  return parsed.tooDeep ? tooDeep("", script) : null;
}

function checkNested(script: string, shell: string, segment: string, ctx: CheckContext): ShellRefusal | null {
  if (ctx.depth + 1 > MAX_SHELL_NESTING) return tooDeep(shell, segment);
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

function checkCommand(cmd: SimpleCommand, source: string, ctx: CheckContext): ShellRefusal | null {
  const words = cmd.words;
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
    if (!word.quoted && word.text.endsWith("()") && word.text.length > 2) {
      k++; // `name() { body }`
      continue;
    }
    const program = baseName(word.text);

    if (SHELLS.has(program)) return checkShell(cmd, program, k + 1, source, ctx);
    if (program === "eval") {
      const script = words.slice(k + 1).map((w) => w.text).join(" ");
      return checkNested(script, program, segmentText(source, cmd), ctx);
    }
    const wrapper = WRAPPERS.get(program);
    if (wrapper !== undefined) {
      const parsed = parseArgs(words, k + 1, wrapper.spec, true);
      if (program === "command" && /[vV]/.test(parsed.flags)) return null; // `command -v x` only looks x up
      const split = program === "env" ? (parsed.values.get("S") ?? parsed.values.get("split-string")) : undefined;
      if (split !== undefined) {
        const rest = words.slice(parsed.end).map((w) => w.text);
        return checkNested([split, ...rest].join(" "), program, segmentText(source, cmd), ctx);
      }
      if (program === "xargs") viaXargs = true;
      k = parsed.end + (wrapper.positionals ?? 0);
      continue;
    }

    const family = FILE_PROGRAMS.get(program);
    if (family === undefined) return null;
    const args = words.slice(k + 1);
    if (!viaXargs) {
      const targets = fileTargets(program, family, args, cmd.inputFiles);
      // With no file operand a `cat`-like program reads only standard input (a pipe, a here-document).
      if (family === "read" && targets.length === 0) return null;
      // A filter on the previous stage's output (`find` and `ls` never read standard input).
      if (cmd.piped && family !== "read" && family !== "list") return null;
      // Files the file tools cannot serve anyway (`cat /proc/cpuinfo`, `ls ~/.cache`).
      if (targets.length > 0 && targets.every((w) => isOutsideProject(w, ctx.projectRoot))) return null;
    }
    return fileToolRefusal(program, segmentText(source, cmd), args, cmd.inputFiles, family);
  }
}

/** Absolute paths under these are system files, not project files, when the project root is unknown. */
const SYSTEM_DIRS = ["/dev", "/proc", "/sys", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/run", "/var/log"];

/**
 * True for a path the file tools cannot serve: the home directory, and an
 * absolute path outside `projectRoot` (or, with no root given, the root
 * directory itself and paths under well-known system directories).
 */
export function isOutsideProject(word: ShellWord, projectRoot?: string): boolean {
  if (word.dynamic) return false;
  const text = word.text;
  if (text === "~" || text.startsWith("~/") || text === "$HOME" || text.startsWith("$HOME/") || text.startsWith("${HOME}")) return true;
  if (!text.startsWith("/")) return false;
  if (text === "/") return true;
  const within = (dir: string): boolean => text === dir || text.startsWith(`${dir}/`);
  if (projectRoot !== undefined) return !within(projectRoot.replace(/\/+$/, ""));
  return SYSTEM_DIRS.some(within);
}

/** `bash -c 'script'` and `bash <<EOF ... EOF` run text as a script: check that text too. */
function checkShell(cmd: SimpleCommand, shell: string, from: number, source: string, ctx: CheckContext): ShellRefusal | null {
  const parsed = parseArgs(cmd.words, from, SHELL_SPEC, true);
  const operand = cmd.words[parsed.end];
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

const STILL_ALLOWED =
  "bash remains the tool for builds, tests, git and other programs, and a filter on another command's output is fine: `make 2>&1 | grep error`.";

function fileToolRefusal(
  program: string,
  segment: string,
  args: readonly ShellWord[],
  inputFiles: readonly ShellWord[],
  family: Parameters<typeof adviseFor>[1],
): ShellRefusal {
  const advice = adviseFor(program, family, args, inputFiles);
  const calls = advice.calls.map((c) => `  ${renderCall(c)}${c.note === undefined ? "" : `   (${c.note})`}`);
  const message = [`bash refused \`${segment}\`: ${advice.reason}`, "Do this instead:", ...calls, ...advice.extra, STILL_ALLOWED].join("\n");
  return {
    allowed: false,
    reason: "file-tool",
    program,
    segment,
    tool: advice.tool,
    suggestion: renderCall(advice.calls[0]),
    message,
  };
}

const SCRIPT_CALL = renderCall({ tool: "write", args: [["path", "scripts/task.sh"], ["content", "#!/usr/bin/env bash\n..."]] });

function tooLong(): ShellRefusal {
  return {
    allowed: false,
    reason: "too-long",
    program: "",
    segment: "",
    tool: "write",
    suggestion: SCRIPT_CALL,
    message: [
      `bash refused this command: it is longer than ${MAX_COMMAND_BYTES} bytes, the most the command check reads.`,
      "Put file contents in place with the `write` tool instead of a here-document, or write the script to a file and run it:",
      `  ${SCRIPT_CALL}`,
      "  then bash with: bash scripts/task.sh",
    ].join("\n"),
  };
}

function tooDeep(shell: string, source: string): ShellRefusal {
  const segment = source.length > MAX_SEGMENT_CHARS ? `${source.slice(0, MAX_SEGMENT_CHARS)}...` : source;
  return {
    allowed: false,
    reason: "too-deep",
    program: shell,
    segment,
    tool: "write",
    suggestion: SCRIPT_CALL,
    message: [
      `bash refused \`${segment}\`: it nests shells, quotes or substitutions deeper than the command check follows.`,
      "Write the script to a file and run it:",
      `  ${SCRIPT_CALL}`,
      "  then bash with: bash scripts/task.sh",
    ].join("\n"),
  };
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
