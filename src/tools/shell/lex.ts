/**
 * A single-pass scanner that splits a shell command line into the simple
 * commands it runs. It is not a full shell parser: it knows exactly enough
 * of bash's lexical rules (quotes, escapes, operators, redirections,
 * substitutions, here-documents) to tell which words are programs and which
 * are text handed to another program.
 *
 * Linear time: every character is consumed once by the frame on top of an
 * explicit stack (no recursion, no backtracking regex); a here-document line
 * is looked at at most twice (delimiter test, then its characters).
 */

/** One word of a simple command, after quote removal. */
export interface ShellWord {
  /** The word's text with quotes removed; a substitution stands as `$(...)`. */
  readonly text: string;
  /** Part of the word is a command/process/arithmetic substitution, so its run-time value is unknown. */
  readonly dynamic: boolean;
  /** Part of the word was quoted or escaped. */
  readonly quoted: boolean;
  /** Length of the leading part that is neither quoted, escaped nor substituted. */
  readonly plainPrefix: number;
}

/** Text a command reads on standard input from a here-document or here-string. */
export interface StdinDocument {
  body: string;
}

/** One simple command: its words and where it reads standard input from. */
export interface SimpleCommand {
  readonly words: readonly ShellWord[];
  /** Targets of `<` and `<>` redirections (files read as standard input). */
  readonly inputFiles: readonly ShellWord[];
  /** Bodies of `<<` here-documents and `<<<` here-strings. */
  readonly stdinDocs: readonly StdinDocument[];
  /** Not the first stage of a pipeline: standard input is the previous stage's output. */
  readonly piped: boolean;
  /**
   * Set on the redirections that follow a subshell's `)` (`(cat) < f`): the
   * index in {@link ParsedScript.commands} of the subshell's first command,
   * so the `<` files feed the commands from there up to this one.
   */
  readonly groupFrom?: number;
  /** Runs inside a `$(...)` or backtick substitution (where a lone `< f` is bash's `$(< f)`: it prints f). */
  readonly inSubstitution: boolean;
  /** Source offsets of the command's text (here-document bodies excluded). */
  readonly start: number;
  readonly end: number;
}

/** What {@link parseCommands} found. */
export interface ParsedScript {
  readonly commands: SimpleCommand[];
  /**
   * Quotes and substitutions nest deeper than the scanner's limit; scanning
   * stopped there, so `commands` is incomplete.
   */
  readonly tooDeep: boolean;
}

/** Most frames (substitutions, quotes, here-documents) open at once before the scanner gives up. */
export const MAX_NESTING = 128;

/** Placeholder text for a substitution inside a word. */
export const SUBSTITUTION = "$(...)";

type Redirect = "in" | "out" | "dup" | "heredoc" | "heredoc-strip" | "herestring";

interface WordBuilder {
  text: string;
  dynamic: boolean;
  quoted: boolean;
  plainPrefix: number;
  plain: boolean;
  /** Unquoted parentheses opened inside the word (`f()`, `!(x)`), closed by the word itself. */
  parens: number;
}

interface CommandBuilder {
  words: ShellWord[];
  inputFiles: ShellWord[];
  stdinDocs: StdinDocument[];
  piped: boolean;
  start: number;
  groupFrom?: number;
  /** Every word so far is an assignment, so the next word would be the program. */
  onlyAssignments: boolean;
}

interface CommandFrame {
  readonly kind: "cmd";
  /** What ends this frame: `)` for `$(`, `<(`, `>(`; a backtick; nothing at top level. */
  readonly closer: ")" | "`" | null;
  /** Open `(` subshells inside this frame. */
  subshells: number;
  /** Per open subshell, the index its first command will get in the output. */
  subshellStarts: number[];
  /** Inside an array assignment `a=( ... )`: words are values, not a command. */
  array: boolean;
  word: WordBuilder | null;
  cmd: CommandBuilder;
  redirect: Redirect | null;
}

interface DoubleQuoteFrame {
  readonly kind: "dq";
  readonly owner: CommandFrame;
}

interface ArithmeticFrame {
  readonly kind: "arith";
  depth: number;
}

interface PendingDocument {
  readonly delimiter: string;
  readonly strip: boolean;
  readonly expands: boolean;
  readonly target: StdinDocument;
}

interface HereDocFrame {
  readonly kind: "heredoc";
  readonly doc: PendingDocument;
  started: boolean;
  bodyStart: number;
  lineStart: boolean;
}

type Frame = CommandFrame | DoubleQuoteFrame | ArithmeticFrame | HereDocFrame;

const BLANK = " \t";
/** ASCII table of the characters in `chars`, for a fast per-character test in hot loops. */
function asciiSet(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (const c of chars) table[c.charCodeAt(0)] = 1;
  return table;
}
/** Characters that end a run of ordinary word characters in a command. */
const WORD_BREAK = asciiSet(" \t\n\\'\"`$();&|<>");
/** Characters that end a run of ordinary characters inside double quotes. */
const DQ_BREAK = asciiSet('"\\$`');

/** Index of the first character at or after `from` that is in `table` (or the end). */
function runEnd(s: string, from: number, table: Uint8Array): number {
  let j = from;
  for (; j < s.length; j++) {
    const code = s.charCodeAt(j);
    if (code < 128 && table[code] === 1) break;
  }
  return j;
}
const DQ_ESCAPABLE = '$`"\\';
const FD_PREFIX = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/;
/**
 * Length of the `NAME=` / `NAME+=` / `NAME[i]=` prefix of `text` (through
 * the `=`), or 0 when `text` does not start with an assignment. A plain scan:
 * no regex, so a 64 KiB word costs one pass.
 */
export function assignmentPrefix(text: string): number {
  let i = 0;
  const n = text.length;
  const isNameChar = (c: string, first: boolean): boolean => (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c === "_" || (!first && c >= "0" && c <= "9");
  if (n === 0 || !isNameChar(text[0], true)) return 0;
  while (i < n && isNameChar(text[i], i === 0)) i++;
  if (text[i] === "[") {
    const close = text.indexOf("]", i);
    if (close < 0) return 0;
    i = close + 1;
  }
  if (text[i] === "+") i++;
  return text[i] === "=" ? i + 1 : 0;
}

/** True when the word's unquoted start is an assignment (`FOO=1`, `FOO="a b"`). */
export function isAssignmentWord(word: ShellWord): boolean {
  const end = assignmentPrefix(word.text);
  return end > 0 && end <= word.plainPrefix;
}

/**
 * Splits `source` into the simple commands bash would run, including those
 * inside `$(...)`, backticks, `<(...)`, `>(...)`, subshells, arithmetic and
 * expanding here-documents. Never throws: unbalanced input yields what was
 * seen (bash would refuse to run it anyway).
 */
export function parseCommands(source: string): ParsedScript {
  return new Scanner(source).run();
}

class Scanner {
  private readonly s: string;
  private readonly out: SimpleCommand[] = [];
  private readonly frames: Frame[] = [];
  /** Here-documents whose bodies start after the next unquoted newline. */
  private pending: PendingDocument[] = [];

  constructor(source: string) {
    this.s = source;
  }

  run(): ParsedScript {
    const n = this.s.length;
    this.frames.push(newCommandFrame(null));
    let i = 0;
    while (i < n) {
      if (this.frames.length > MAX_NESTING) return { commands: this.out, tooDeep: true };
      // The top-level frame is never popped (only `$(` and backtick frames close), so this is defined.
      const frame = this.frames[this.frames.length - 1];
      switch (frame.kind) {
        case "cmd":
          i = this.stepCommand(frame, i);
          break;
        case "dq":
          i = this.stepDoubleQuote(frame, i);
          break;
        case "arith":
          i = this.stepArithmetic(frame, i);
          break;
        case "heredoc":
          i = this.stepHereDoc(frame, i);
          break;
      }
    }
    this.finish();
    return { commands: this.out, tooDeep: false };
  }

  private finish(): void {
    const n = this.s.length;
    for (let k = this.frames.length - 1; k >= 0; k--) {
      const frame = this.frames[k];
      if (frame.kind === "cmd") this.endCommand(frame, n, false);
      else if (frame.kind === "heredoc") frame.doc.target.body = frame.started ? this.s.slice(frame.bodyStart) : "";
    }
    this.frames.length = 0;
  }

  private push(frame: Frame): void {
    this.frames.push(frame);
  }

  private pop(): void {
    this.frames.pop();
  }

  /** Opens a `$(`, `$((` or backtick substitution at `i` (pointing at `$` or the backtick). */
  private openSubstitution(i: number): number {
    const s = this.s;
    if (s[i] === "`") {
      this.push(newCommandFrame("`"));
      return i + 1;
    }
    if (s[i + 2] === "(") {
      this.push({ kind: "arith", depth: 2 });
      return i + 3;
    }
    this.push(newCommandFrame(")"));
    return i + 2;
  }

  private stepCommand(f: CommandFrame, i: number): number {
    const s = this.s;
    const c = s[i];
    if (c === "\n") {
      if (f.array) {
        this.endWord(f);
        return i + 1;
      }
      this.endCommand(f, i, false);
      if (this.pending.length > 0) {
        for (let k = this.pending.length - 1; k >= 0; k--) {
          this.push({ kind: "heredoc", doc: this.pending[k], started: false, bodyStart: i + 1, lineStart: true });
        }
        this.pending = [];
      }
      return i + 1;
    }
    if (BLANK.includes(c)) {
      this.endWord(f);
      return i + 1;
    }
    if (c === "#" && f.word === null) {
      const eol = s.indexOf("\n", i);
      return eol < 0 ? s.length : eol;
    }
    if (c === "\\") {
      if (s[i + 1] === "\n") return i + 2;
      this.appendQuoted(f, i, s[i + 1] ?? "");
      return i + 2;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      const end = close < 0 ? s.length : close;
      this.appendQuoted(f, i, s.slice(i + 1, end));
      return end + 1;
    }
    if (c === '"') {
      this.openDoubleQuote(f, i);
      return i + 1;
    }
    if (c === "`") {
      if (f.closer === "`") {
        this.endCommand(f, i, false);
        this.pop();
        return i + 1;
      }
      this.markDynamic(f, i);
      return this.openSubstitution(i);
    }
    if (c === "$") {
      const next = s[i + 1];
      if (next === "'") return this.ansiQuoted(f, i);
      if (next === '"') {
        this.openDoubleQuote(f, i);
        return i + 2;
      }
      if (next === "(") {
        this.markDynamic(f, i);
        return this.openSubstitution(i);
      }
      this.appendPlain(f, i, "$");
      return i + 1;
    }
    if (c === "(") return this.openParen(f, i);
    if (c === ")") return this.closeParen(f, i);
    if (c === ";") {
      this.endCommand(f, i, false);
      return i + 1;
    }
    if (c === "&") {
      if (s[i + 1] === "&") {
        this.endCommand(f, i, false);
        return i + 2;
      }
      if (s[i + 1] === ">") {
        this.endWord(f);
        this.startRedirect(f, i, "out");
        return s[i + 2] === ">" ? i + 3 : i + 2;
      }
      this.endCommand(f, i, false);
      return i + 1;
    }
    if (c === "|") {
      if (s[i + 1] === "|") {
        this.endCommand(f, i, false);
        return i + 2;
      }
      this.endCommand(f, i, true);
      return s[i + 1] === "&" ? i + 2 : i + 1;
    }
    if (c === "<" || c === ">") return this.redirection(f, i);
    // Copy the run of ordinary characters in one slice.
    const j = runEnd(s, i + 1, WORD_BREAK);
    this.appendPlain(f, i, s.slice(i, j));
    return j;
  }

  private openParen(f: CommandFrame, i: number): number {
    const word = f.word;
    if (word !== null) {
      const isArrayStart = word.plain && word.plainPrefix === word.text.length && assignmentPrefix(word.text) === word.text.length;
      if (!f.array && isArrayStart && f.cmd.onlyAssignments) {
        // `a=( ... )`: the assignment is the word; the values until `)` are not a command.
        this.appendPlain(f, i, "(");
        this.endWord(f);
        f.array = true;
        return i + 1;
      }
      // `f()`, extglob `!(x)`: the paren belongs to the word.
      word.parens++;
      this.appendPlain(f, i, "(");
      return i + 1;
    }
    if (this.s[i + 1] === "(" && f.cmd.words.length === 0 && f.redirect === null) {
      // `(( expr ))` arithmetic command.
      this.touch(f, i);
      this.push({ kind: "arith", depth: 2 });
      return i + 2;
    }
    this.endCommand(f, i, false);
    f.subshells++;
    f.subshellStarts.push(this.out.length);
    return i + 1;
  }

  private closeParen(f: CommandFrame, i: number): number {
    if (f.array) {
      this.endWord(f);
      f.array = false;
      return i + 1;
    }
    if (f.word !== null && f.word.parens > 0) {
      f.word.parens--;
      this.appendPlain(f, i, ")");
      return i + 1;
    }
    this.endCommand(f, i, false);
    if (f.subshells > 0) {
      f.subshells--;
      // Redirections right after `)` apply to the whole subshell.
      const from = f.subshellStarts.pop();
      if (from !== undefined && from < this.out.length) f.cmd.groupFrom = from;
    } else if (f.closer === ")") {
      this.pop();
    }
    return i + 1;
  }

  private redirection(f: CommandFrame, i: number): number {
    const s = this.s;
    const c = s[i];
    const next = s[i + 1];
    if (next === "(") {
      // Process substitution `<(cmd)` / `>(cmd)`: a word whose value comes from a command.
      this.markDynamic(f, i);
      this.push(newCommandFrame(")"));
      return i + 2;
    }
    const word = f.word;
    if (word !== null && !word.quoted && !word.dynamic && FD_PREFIX.test(word.text)) {
      f.word = null; // `2>`, `{fd}>`: the number names a descriptor, it is not an argument
    } else {
      this.endWord(f);
    }
    let kind: Redirect;
    let width = 2;
    if (c === "<") {
      if (next === "<") {
        const third = s[i + 2];
        kind = third === "<" ? "herestring" : third === "-" ? "heredoc-strip" : "heredoc";
        if (third === "<" || third === "-") width = 3;
      } else if (next === "&") {
        kind = "dup";
      } else {
        kind = "in"; // `<` and `<>` both open the file for reading
        if (next !== ">") width = 1;
      }
    } else if (next === "&") {
      kind = "dup";
    } else {
      kind = "out";
      if (next !== ">" && next !== "|") width = 1;
    }
    this.startRedirect(f, i, kind);
    return i + width;
  }

  private ansiQuoted(f: CommandFrame, i: number): number {
    const s = this.s;
    let j = i + 2;
    let text = "";
    while (j < s.length && s[j] !== "'") {
      if (s[j] === "\\" && j + 1 < s.length) {
        text += s[j + 1];
        j += 2;
      } else {
        text += s[j];
        j++;
      }
    }
    this.appendQuoted(f, i, text);
    return j + 1;
  }

  private stepDoubleQuote(f: DoubleQuoteFrame, i: number): number {
    const s = this.s;
    const c = s[i];
    const word = f.owner.word;
    if (c === '"') {
      this.pop();
      return i + 1;
    }
    if (c === "\\") {
      const next = s[i + 1];
      if (next === "\n") return i + 2;
      if (next !== undefined && DQ_ESCAPABLE.includes(next)) {
        if (word !== null) word.text += next;
        return i + 2;
      }
      if (word !== null) word.text += "\\";
      return i + 1;
    }
    if ((c === "$" && s[i + 1] === "(") || c === "`") {
      if (word !== null) {
        word.dynamic = true;
        word.text += SUBSTITUTION;
      }
      return this.openSubstitution(i);
    }
    // Copy the run of ordinary characters in one slice.
    const j = runEnd(s, i + 1, DQ_BREAK);
    if (word !== null) word.text += s.slice(i, j);
    return j;
  }

  private stepArithmetic(f: ArithmeticFrame, i: number): number {
    const s = this.s;
    const c = s[i];
    if (c === "(") {
      f.depth++;
      return i + 1;
    }
    if (c === ")") {
      f.depth--;
      if (f.depth <= 0) this.pop();
      return i + 1;
    }
    if ((c === "$" && s[i + 1] === "(") || c === "`") return this.openSubstitution(i);
    if (c === "\\") return i + 2;
    return i + 1;
  }

  private stepHereDoc(f: HereDocFrame, i: number): number {
    const s = this.s;
    if (!f.started) {
      f.started = true;
      f.bodyStart = i;
      f.lineStart = true;
    }
    if (f.lineStart) {
      let eol = s.indexOf("\n", i);
      if (eol < 0) eol = s.length;
      let from = i;
      if (f.doc.strip) while (from < eol && s[from] === "\t") from++;
      const delimiter = f.doc.delimiter;
      if (eol - from === delimiter.length && s.startsWith(delimiter, from)) {
        f.doc.target.body = s.slice(f.bodyStart, i);
        this.pop();
        return Math.min(eol + 1, s.length);
      }
      if (!f.doc.expands) return Math.min(eol + 1, s.length);
      f.lineStart = false;
    }
    const c = s[i];
    if (c === "\n") {
      f.lineStart = true;
      return i + 1;
    }
    if (c === "\\") return i + 2;
    if ((c === "$" && s[i + 1] === "(") || c === "`") return this.openSubstitution(i);
    return i + 1;
  }

  private touch(f: CommandFrame, i: number): void {
    if (f.cmd.start < 0) f.cmd.start = i;
  }

  private wordAt(f: CommandFrame, i: number): WordBuilder {
    this.touch(f, i);
    if (f.word === null) f.word = { text: "", dynamic: false, quoted: false, plainPrefix: 0, plain: true, parens: 0 };
    return f.word;
  }

  private appendPlain(f: CommandFrame, i: number, text: string): void {
    const word = this.wordAt(f, i);
    word.text += text;
    if (word.plain) word.plainPrefix = word.text.length;
  }

  private appendQuoted(f: CommandFrame, i: number, text: string): void {
    const word = this.wordAt(f, i);
    word.text += text;
    word.quoted = true;
    word.plain = false;
  }

  private openDoubleQuote(f: CommandFrame, i: number): void {
    const word = this.wordAt(f, i);
    word.quoted = true;
    word.plain = false;
    this.push({ kind: "dq", owner: f });
  }

  private markDynamic(f: CommandFrame, i: number): void {
    const word = this.wordAt(f, i);
    word.text += SUBSTITUTION;
    word.dynamic = true;
    word.plain = false;
  }

  private startRedirect(f: CommandFrame, i: number, kind: Redirect): void {
    this.touch(f, i);
    f.redirect = kind;
  }

  private endWord(f: CommandFrame): void {
    const builder = f.word;
    if (builder === null) return;
    f.word = null;
    const word: ShellWord = {
      text: builder.text,
      dynamic: builder.dynamic,
      quoted: builder.quoted,
      plainPrefix: builder.plainPrefix,
    };
    const redirect = f.redirect;
    f.redirect = null;
    if (redirect === "in") {
      f.cmd.inputFiles.push(word);
    } else if (redirect === "heredoc" || redirect === "heredoc-strip") {
      const target: StdinDocument = { body: "" };
      f.cmd.stdinDocs.push(target);
      this.pending.push({ delimiter: word.text, strip: redirect === "heredoc-strip", expands: !word.quoted, target });
    } else if (redirect === "herestring") {
      f.cmd.stdinDocs.push({ body: word.text });
    } else if (redirect === null && !f.array) {
      f.cmd.words.push(word);
      if (f.cmd.onlyAssignments) f.cmd.onlyAssignments = isAssignmentWord(word);
    }
  }

  private endCommand(f: CommandFrame, end: number, pipeNext: boolean): void {
    this.endWord(f);
    const cmd = f.cmd;
    if (cmd.start >= 0) {
      this.out.push({
        words: cmd.words,
        inputFiles: cmd.inputFiles,
        stdinDocs: cmd.stdinDocs,
        piped: cmd.piped,
        ...(cmd.groupFrom !== undefined ? { groupFrom: cmd.groupFrom } : {}),
        inSubstitution: f.closer !== null,
        start: cmd.start,
        end,
      });
    }
    f.cmd = newCommand(pipeNext);
    f.redirect = null;
    f.array = false;
  }
}

function newCommand(piped: boolean): CommandBuilder {
  return { words: [], inputFiles: [], stdinDocs: [], piped, start: -1, onlyAssignments: true };
}

function newCommandFrame(closer: ")" | "`" | null): CommandFrame {
  return { kind: "cmd", closer, subshells: 0, subshellStarts: [], array: false, word: null, cmd: newCommand(false), redirect: null };
}
