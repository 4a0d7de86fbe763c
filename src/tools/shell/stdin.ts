/**
 * Which commands of a script read a project file on standard input because
 * of a redirection they do not carry themselves. Pure.
 *
 * - a group's redirection feeds every command in it: `{ cat; } < f`,
 *   `(cat) < f`, `while read l; do ...; done < f`, `if ...; fi < f`;
 * - `exec < f` or `exec 3< f` (no program) opens f for the rest of the
 *   script; any later reader without a file operand counts as reading it
 *   (`exec 3<f; cat <&3`), since which descriptor it reads is not tracked.
 */
import { isAssignmentWord, type ShellWord, type SimpleCommand } from "./lex.ts";

/** Reserved words that open a group closed by a later command's first word. */
const OPENERS = new Set(["{", "if", "while", "until", "for", "select", "case"]);
/** Reserved words that may stand between openers at the start of one command. */
const PASS_THROUGH = new Set(["!", "then", "else", "elif", "do"]);
/** Reserved words that close a group; redirections after them apply to it. */
const CLOSERS = new Set(["}", "done", "fi", "esac"]);

function plainText(word: ShellWord | undefined): string | undefined {
  return word === undefined || word.quoted || word.dynamic ? undefined : word.text;
}

/**
 * Per command (same indices as `commands`), the project file its standard
 * input comes from through an enclosing group or an earlier `exec`, if any.
 * `isProjectFile` decides which redirection targets count.
 */
export function redirectedStdin(commands: readonly SimpleCommand[], isProjectFile: (word: ShellWord) => boolean): (ShellWord | undefined)[] {
  const out: (ShellWord | undefined)[] = new Array(commands.length).fill(undefined);
  const openers: number[] = [];
  let opened: ShellWord | undefined;
  const feed = (from: number, to: number, file: ShellWord): void => {
    for (let j = from; j < to; j++) out[j] ??= file;
  };
  for (let i = 0; i < commands.length; i++) {
    const cmd = commands[i];
    if (opened !== undefined) out[i] ??= opened;
    const words = cmd.words;
    let k = 0;
    while (k < words.length && isAssignmentWord(words[k])) k++;
    for (let j = k; j < words.length; j++) {
      const text = plainText(words[j]);
      if (text === undefined) break;
      if (OPENERS.has(text)) {
        openers.push(i);
        if (text === "for" || text === "select" || text === "case") break; // their words are not commands
      } else if (!PASS_THROUGH.has(text)) break;
    }
    const file = cmd.inputFiles.find(isProjectFile);
    const first = plainText(words[k]);
    if (first !== undefined && CLOSERS.has(first)) {
      const from = openers.pop();
      if (from !== undefined && file !== undefined) feed(from, i, file);
    }
    if (cmd.groupFrom !== undefined && file !== undefined) feed(cmd.groupFrom, i, file);
    if (first === "exec" && words.length === k + 1 && file !== undefined) opened = file;
  }
  return out;
}
