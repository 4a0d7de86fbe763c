import { assignmentPrefix, type ShellWord } from "./lex.ts";
import { type OptionSpec, parseArgs, type ParsedArgs } from "./options.ts";

/** What a refused program does to project files, which decides the tool to use instead. */
export type FileFamily = "read" | "search" | "list" | "edit";

/** Programs that read, search, list or edit project files, by base name. */
export const FILE_PROGRAMS: ReadonlyMap<string, FileFamily> = new Map<string, FileFamily>([
  ["cat", "read"],
  ["head", "read"],
  ["tail", "read"],
  ["less", "read"],
  ["more", "read"],
  // Other ways to print a file's bytes or lines.
  ["tac", "read"],
  ["nl", "read"],
  ["rev", "read"],
  ["strings", "read"],
  ["xxd", "read"],
  ["od", "read"],
  ["hexdump", "read"],
  ["hd", "read"],
  ["base64", "read"],
  ["base32", "read"],
  ["bat", "read"],
  ["batcat", "read"],
  ["dd", "read"],
  ["grep", "search"],
  ["egrep", "search"],
  ["fgrep", "search"],
  ["rg", "search"],
  ["find", "list"],
  ["ls", "list"],
  ["sed", "edit"],
  ["awk", "edit"],
  ["gawk", "edit"],
  ["mawk", "edit"],
  ["nawk", "edit"],
]);

const BAT_OPTIONS: OptionSpec = {
  withArg: "lrHmp",
  longWithArg: [
    "language",
    "line-range",
    "highlight-line",
    "map-syntax",
    "style",
    "theme",
    "tabs",
    "terminal-width",
    "wrap",
    "paging",
    "pager",
    "color",
    "decorations",
    "italic-text",
    "file-name",
  ],
};

/** Options that take an argument, for the programs whose operands matter. */
export const READ_SPECS: Readonly<Record<string, OptionSpec>> = {
  cat: {},
  head: { withArg: "nc", longWithArg: ["lines", "bytes"] },
  tail: { withArg: "ncs", longWithArg: ["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"] },
  less: { withArg: "bhjkoOpPtTxyz#", longWithArg: ["log-file", "pattern", "tag", "tabs", "window", "shift"] },
  more: { withArg: "n", longWithArg: ["lines"] },
  tac: { withArg: "s", longWithArg: ["separator"] },
  nl: {
    withArg: "bdfhilnsvw",
    longWithArg: [
      "body-numbering",
      "section-delimiter",
      "footer-numbering",
      "header-numbering",
      "line-increment",
      "join-blank-lines",
      "number-format",
      "number-separator",
      "starting-line-number",
      "number-width",
    ],
  },
  rev: {},
  strings: { withArg: "nteTs", longWithArg: ["bytes", "radix", "encoding", "target", "output-separator"] },
  xxd: { withArg: "cglosnR", longWithArg: ["cols", "groupsize", "len", "offset", "seek", "name"] },
  od: { withArg: "AjNtSw", longWithArg: ["address-radix", "skip-bytes", "read-bytes", "format", "strings", "width", "endian"] },
  hexdump: { withArg: "efns", longWithArg: ["format", "format-file", "length", "skip", "color"] },
  hd: { withArg: "efns", longWithArg: ["format", "format-file", "length", "skip", "color"] },
  base64: { withArg: "w", longWithArg: ["wrap"] },
  base32: { withArg: "w", longWithArg: ["wrap"] },
  bat: BAT_OPTIONS,
  batcat: BAT_OPTIONS, // the Debian name of bat
};

const GREP_SPEC: OptionSpec = {
  withArg: "efmABCdD",
  longWithArg: [
    "regexp",
    "file",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "directories",
    "devices",
    "include",
    "exclude",
    "exclude-dir",
    "exclude-from",
    "label",
  ],
};
const RG_SPEC: OptionSpec = {
  withArg: "efgtTABCmMjEr",
  longWithArg: [
    "regexp",
    "file",
    "glob",
    "iglob",
    "type",
    "type-not",
    "after-context",
    "before-context",
    "context",
    "max-count",
    "max-columns",
    "threads",
    "encoding",
    "replace",
    "max-depth",
    "sort",
    "sortr",
  ],
};
const LS_SPEC: OptionSpec = {
  withArg: "ITw",
  longWithArg: ["ignore", "hide", "tabsize", "width", "format", "sort", "time-style", "block-size", "quoting-style", "indicator-style"],
};
const SED_SPEC: OptionSpec = { withArg: "efl", longWithArg: ["expression", "file", "line-length"] };
const AWK_SPEC: OptionSpec = { withArg: "fvF", longWithArg: ["file", "assign", "field-separator"] };

/** A placeholder file for examples when the command names none. */
const EXAMPLE_FILE = "src/app.ts";
/** Characters that make a pattern a regular expression in basic (grep) and extended (grep -E, rg) syntax. */
const BASIC_META = /[*[\]^$\\]/;
const EXTENDED_META = /[*+?[\](){}|^$\\]/;

type JsonValue = string | number | boolean;

/** One worked example call shown to the model. */
export interface ExampleCall {
  readonly tool: "view" | "edit" | "write";
  readonly args: ReadonlyArray<readonly [string, JsonValue]>;
  readonly note?: string;
}

/** What to tell the model instead of running a file program. */
export interface Advice {
  /** The tool of the first example. */
  readonly tool: "view" | "edit";
  /** Sentence that says what the program does and which tool does it properly. */
  readonly reason: string;
  readonly calls: readonly ExampleCall[];
  /** Extra lines after the calls. */
  readonly extra: readonly string[];
}

/** Renders `view {"path": "src/x.ts", "start": 1}`. */
export function renderCall(call: ExampleCall): string {
  const body = call.args.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ");
  return `${call.tool} {${body}}`;
}

/**
 * Worked examples for `program` (its family from {@link FILE_PROGRAMS}),
 * filled with the real paths and patterns from `args` (the words after the
 * program) where the command names them.
 */
export function adviseFor(program: string, family: FileFamily, args: readonly ShellWord[], inputFiles: readonly ShellWord[]): Advice {
  switch (family) {
    case "read":
      return readAdvice(program, args, inputFiles);
    case "search":
      return searchAdvice(program, args);
    case "list":
      return program === "find" ? findAdvice(args) : lsAdvice(args);
    case "edit":
      return program === "sed" ? sedAdvice(args) : awkAdvice(program, args);
  }
}

/**
 * The files and directories the program works on, as the command names
 * them: operands that are paths plus `<` files. Empty means the default
 * (standard input for `read` programs, the working directory otherwise).
 */
export function fileTargets(program: string, family: FileFamily, args: readonly ShellWord[], inputFiles: readonly ShellWord[]): ShellWord[] {
  switch (family) {
    case "read":
      return [...parseRead(program, args).files, ...inputFiles];
    case "search":
      return parseSearch(program, args).paths;
    case "list":
      return program === "find" ? parseFind(args).roots : parseLs(args).paths;
    case "edit":
      return program === "sed" ? parseSed(args).files : parseAwk(args).files;
  }
}

/** The word's text when it is known before run time (no substitution, no `$variable`). */
function staticText(word: ShellWord | undefined): string | undefined {
  return word === undefined || word.dynamic || word.text.includes("$") ? undefined : word.text;
}

function firstFile(words: readonly ShellWord[]): string | undefined {
  return staticText(words.find((w) => w.text !== "-" && staticText(w) !== undefined));
}

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\+?\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

function firstValue(parsed: ParsedArgs, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = parsed.values.get(key);
    if (value !== undefined) return value;
  }
  return undefined;
}

const READ_REASON = (program: string): string =>
  `\`${program}\` reads project files. Read them with the \`view\` tool instead: it records what you read and returns the line ids that \`edit\` and \`batch_edit\` need.`;

function rangeCalls(path: string, range: readonly [number, number] | undefined): ExampleCall[] {
  if (range !== undefined) {
    return [
      {
        tool: "view",
        args: [
          ["path", path],
          ["start", range[0]],
          ["end", range[1]],
        ],
        note: `lines ${range[0]} to ${range[1]}`,
      },
      { tool: "view", args: [["path", path]], note: "the whole file" },
    ];
  }
  return [
    { tool: "view", args: [["path", path]] },
    {
      tool: "view",
      args: [
        ["path", path],
        ["start", 40],
        ["end", 80],
      ],
      note: "only lines 40 to 80",
    },
  ];
}

function parseRead(program: string, args: readonly ShellWord[]): { files: ShellWord[]; parsed: ParsedArgs } {
  const parsed = parseArgs(args, 0, READ_SPECS[program] ?? {}, false);
  if (program === "dd") {
    // `dd if=FILE`: the only operand that reads; without it dd reads standard input.
    const files = parsed.operands
      .filter((w) => w.text.startsWith("if=") && w.text.length > 3)
      .map((w) => ({ ...w, text: w.text.slice(3), plainPrefix: Math.max(0, w.plainPrefix - 3) }));
    return { files: files.filter((w) => w.text !== "/dev/stdin"), parsed };
  }
  return { files: parsed.operands.filter((w) => w.text !== "-"), parsed };
}

function readAdvice(program: string, args: readonly ShellWord[], inputFiles: readonly ShellWord[]): Advice {
  const { files, parsed } = parseRead(program, args);
  const path = firstFile(files) ?? staticText(inputFiles[0]) ?? EXAMPLE_FILE;
  let range: [number, number] | undefined;
  if (program === "head" && firstValue(parsed, ["c", "bytes"]) === undefined) {
    const legacy = /^\d+/.exec(parsed.flags)?.[0];
    const count = positiveInt(firstValue(parsed, ["n", "lines"])) ?? positiveInt(legacy) ?? 10;
    range = [1, count];
  }
  return { tool: "view", reason: READ_REASON(program), calls: rangeCalls(path, range), extra: [] };
}

function parseSearch(program: string, args: readonly ShellWord[]): { pattern: string; paths: ShellWord[]; parsed: ParsedArgs } {
  const parsed = parseArgs(args, 0, program === "rg" ? RG_SPEC : GREP_SPEC, false);
  const explicit = firstValue(parsed, ["e", "regexp"]);
  const pattern = explicit ?? staticText(parsed.operands[0]) ?? "TODO";
  return { pattern, paths: explicit === undefined ? parsed.operands.slice(1) : [...parsed.operands], parsed };
}

function searchAdvice(program: string, args: readonly ShellWord[]): Advice {
  const { pattern, paths, parsed } = parseSearch(program, args);
  const path = firstFile(paths) ?? ".";
  const context = positiveInt(firstValue(parsed, ["C", "context", "A", "after-context", "B", "before-context"])) ?? 2;
  const fixed = program === "fgrep" || parsed.flags.includes("F") || parsed.longFlags.includes("fixed-strings");
  const extended = program !== "grep" || /[EP]/.test(parsed.flags) || parsed.longFlags.includes("extended-regexp");
  const regex = !fixed && (extended ? EXTENDED_META : BASIC_META).test(pattern);
  const first: ExampleCall = {
    tool: "view",
    args: [["path", path], ["content", pattern], ["context", context], ...(regex ? [["regex", true] as const] : [])],
  };
  const second: ExampleCall = regex
    ? {
        tool: "view",
        args: [
          ["path", path],
          ["content", "TODO"],
          ["context", 2],
        ],
        note: "plain text",
      }
    : {
        tool: "view",
        args: [
          ["path", path],
          ["content", "TODO|FIXME"],
          ["regex", true],
        ],
        note: "a regular expression",
      };
  return {
    tool: "view",
    reason: `\`${program}\` searches project files. Search with the \`view\` tool's \`content\` argument instead: matches come back with line ids, ready for \`edit\`.`,
    calls: [first, second],
    extra: [],
  };
}

const LIST_REASON = (program: string): string =>
  `\`${program}\` lists project files. List a directory with the \`view\` tool instead (\`depth\` limits the levels, \`pattern\` filters by glob).`;

const GLOB_EXAMPLE: ExampleCall = {
  tool: "view",
  args: [
    ["path", "src"],
    ["depth", 2],
    ["pattern", "**/*.ts"],
  ],
  note: "only files matching a glob",
};

function parseLs(args: readonly ShellWord[]): { paths: ShellWord[]; recursive: boolean } {
  const parsed = parseArgs(args, 0, LS_SPEC, false);
  return { paths: [...parsed.operands], recursive: parsed.flags.includes("R") || parsed.longFlags.includes("recursive") };
}

function lsAdvice(args: readonly ShellWord[]): Advice {
  const { paths, recursive } = parseLs(args);
  const path = firstFile(paths) ?? ".";
  const globExample: ExampleCall = {
    ...GLOB_EXAMPLE,
    args: [
      ["path", path === "." ? "src" : path],
      ["depth", 2],
      ["pattern", "**/*.ts"],
    ],
  };
  return {
    tool: "view",
    reason: LIST_REASON("ls"),
    calls: [
      {
        tool: "view",
        args: [
          ["path", path],
          ["depth", recursive ? 3 : 1],
        ],
      },
      globExample,
    ],
    extra: [],
  };
}

function parseFind(args: readonly ShellWord[]): { roots: ShellWord[]; pattern: string | undefined; depth: number | undefined } {
  let k = 0;
  const roots: ShellWord[] = [];
  // Leading -H/-L/-P are options; then starting points until the first expression token.
  while (k < args.length && /^-[HLP]$/.test(args[k].text)) k++;
  for (; k < args.length; k++) {
    const t = args[k].text;
    if (t.startsWith("-") || t === "(" || t === "!") break;
    roots.push(args[k]);
  }
  let pattern: string | undefined;
  let depth: number | undefined;
  for (; k < args.length; k++) {
    const t = args[k].text;
    const value = staticText(args[k + 1]);
    if ((t === "-name" || t === "-iname") && value !== undefined && pattern === undefined) pattern = value.includes("/") ? value : `**/${value}`;
    else if ((t === "-path" || t === "-ipath" || t === "-wholename") && value !== undefined && pattern === undefined) pattern = value.replace(/^\.\//, "");
    else if (t === "-maxdepth") depth = positiveInt(value);
  }
  return { roots, pattern, depth };
}

function findAdvice(args: readonly ShellWord[]): Advice {
  const { roots, pattern, depth } = parseFind(args);
  const path = firstFile(roots) ?? ".";
  const first: ExampleCall = {
    tool: "view",
    args: [
      ["path", path],
      ...(depth !== undefined || pattern === undefined ? [["depth", depth ?? 2] as const] : []),
      ...(pattern !== undefined ? [["pattern", pattern] as const] : []),
    ],
  };
  const calls =
    pattern === undefined
      ? [first, GLOB_EXAMPLE]
      : [
          first,
          {
            tool: "view",
            args: [
              ["path", path],
              ["depth", 1],
            ],
            note: "one level only",
          } as const,
        ];
  return { tool: "view", reason: LIST_REASON("find"), calls, extra: [] };
}

const EDIT_REASON = (program: string, verb: string): string =>
  `\`${program}\` ${verb} project files. Change files with the \`edit\` tool instead: it proves its target and reports exactly what changed.`;
const BATCH_LINE = "  batch_edit   (several changes to one file in a single call)";
const PLACEHOLDER_EDIT = (path: string): ExampleCall => ({
  tool: "edit",
  args: [
    ["path", path],
    ["old_string", "exact text to replace"],
    ["new_string", "replacement text"],
  ],
});

function parseSed(args: readonly ShellWord[]): { script: string; files: ShellWord[]; parsed: ParsedArgs } {
  const parsed = parseArgs(args, 0, SED_SPEC, false);
  const explicit = firstValue(parsed, ["e", "expression"]);
  const script = explicit ?? staticText(parsed.operands[0]) ?? "";
  return { script, files: explicit === undefined ? parsed.operands.slice(1) : [...parsed.operands], parsed };
}

function sedAdvice(args: readonly ShellWord[]): Advice {
  const { script, files, parsed } = parseSed(args);
  const path = firstFile(files) ?? EXAMPLE_FILE;
  const quiet = parsed.flags.includes("n") || parsed.longFlags.includes("quiet") || parsed.longFlags.includes("silent");
  const printRange = quiet ? /^\s*(\d+)\s*(?:,\s*(\d+)\s*)?p\s*$/.exec(script) : null;
  if (printRange !== null) {
    // `sed -n '10,20p' f` is the classic way to read a range of lines.
    const start = Number(printRange[1]);
    const end = printRange[2] === undefined ? start : Math.max(start, Number(printRange[2]));
    return { tool: "view", reason: READ_REASON("sed"), calls: rangeCalls(path, [start, end]), extra: [] };
  }
  if (quiet) return { tool: "view", reason: READ_REASON("sed"), calls: rangeCalls(path, undefined), extra: [] };
  return { tool: "edit", reason: EDIT_REASON("sed", "edits"), calls: [substitutionCall(script, path) ?? PLACEHOLDER_EDIT(path)], extra: [BATCH_LINE] };
}

/** `s/old/new/g` with literal text on both sides becomes the equivalent `edit` call. */
function substitutionCall(script: string, path: string): ExampleCall | undefined {
  const trimmed = script.trim();
  if (trimmed.length < 4 || trimmed[0] !== "s" || trimmed.includes("\\")) return undefined;
  const parts = trimmed.slice(2).split(trimmed[1]);
  if (parts.length !== 3) return undefined;
  const [oldText, newText, flags] = parts;
  if (oldText === "" || EXTENDED_META.test(oldText) || oldText.includes(".") || newText.includes("&") || !/^[gI0-9]*$/.test(flags)) return undefined;
  return {
    tool: "edit",
    args: [["path", path], ["old_string", oldText], ["new_string", newText], ...(flags.includes("g") ? [["replace_all", true] as const] : [])],
  };
}

function parseAwk(args: readonly ShellWord[]): { files: ShellWord[] } {
  const parsed = parseArgs(args, 0, AWK_SPEC, false);
  const operands = firstValue(parsed, ["f", "file"]) === undefined ? parsed.operands.slice(1) : parsed.operands;
  // `var=value` operands are assignments, not files.
  return { files: operands.filter((w) => assignmentPrefix(w.text) === 0) };
}

function awkAdvice(program: string, args: readonly ShellWord[]): Advice {
  const path = firstFile(parseAwk(args).files) ?? EXAMPLE_FILE;
  return {
    tool: "edit",
    reason: EDIT_REASON(program, "reads and rewrites"),
    calls: [PLACEHOLDER_EDIT(path), { tool: "view", args: [["path", path]], note: "to read it" }],
    extra: [BATCH_LINE],
  };
}
