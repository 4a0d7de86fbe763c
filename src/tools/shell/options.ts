import type { ShellWord } from "./lex.ts";

/** Which options of a program take an argument (getopt style). */
export interface OptionSpec {
  /** Short options that take an argument, attached (`-n5`) or as the next word (`-n 5`). */
  readonly withArg?: string;
  /** Long options (without `--`) that take the next word as argument when not written `--name=value`. */
  readonly longWithArg?: readonly string[];
  /** `+o name` style options count as options too (shells). */
  readonly plus?: boolean;
}

/** A program's arguments split into options and operands. */
export interface ParsedArgs {
  /** Every short flag seen, in order (option letters whose argument was consumed included). */
  readonly flags: string;
  /** Long options without `--` and without their `=value`. */
  readonly longFlags: readonly string[];
  /** First value of each option that takes one, keyed by its letter or long name. */
  readonly values: ReadonlyMap<string, string>;
  readonly operands: readonly ShellWord[];
  /** Index of the first word not consumed: the first operand when parsing stopped there, else `words.length`. */
  readonly end: number;
}

/**
 * Parses `words[from..]` as options and operands. With `stopAtOperand` the
 * parse ends at the first operand (how wrappers such as `sudo` or `xargs`
 * find the program they run); otherwise options may follow operands, as GNU
 * tools allow.
 */
export function parseArgs(words: readonly ShellWord[], from: number, spec: OptionSpec, stopAtOperand: boolean): ParsedArgs {
  const withArg = spec.withArg ?? "";
  const longWithArg = spec.longWithArg ?? [];
  let flags = "";
  const longFlags: string[] = [];
  const values = new Map<string, string>();
  const operands: ShellWord[] = [];
  const setValue = (key: string, value: string): void => {
    if (!values.has(key)) values.set(key, value);
  };
  let k = from;
  while (k < words.length) {
    const text = words[k].text;
    if (text === "--") {
      k++;
      if (stopAtOperand) break;
      for (; k < words.length; k++) operands.push(words[k]);
      break;
    }
    const isOption = text.length > 1 && (text[0] === "-" || (spec.plus === true && text[0] === "+"));
    if (!isOption) {
      if (stopAtOperand) break;
      operands.push(words[k]);
      k++;
      continue;
    }
    k++;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq < 0 ? text.slice(2) : text.slice(2, eq);
      longFlags.push(name);
      if (eq >= 0) setValue(name, text.slice(eq + 1));
      else if (longWithArg.includes(name) && k < words.length) setValue(name, words[k++].text);
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j];
      flags += letter;
      if (!withArg.includes(letter)) continue;
      if (j + 1 < text.length) setValue(letter, text.slice(j + 1));
      else if (k < words.length) setValue(letter, words[k++].text);
      break;
    }
  }
  return { flags, longFlags, values, operands, end: k };
}
