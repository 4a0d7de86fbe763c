/**
 * A small command-line parser: long flags (`--port 8080`, `--port=8080`),
 * boolean switches, repeated `--help` / `-h`, and `--` to end the flags.
 * Pure; every mistake is a {@link UsageError} with one line that says what
 * was wrong, so the caller can print it above the usage text.
 */

/** How one flag takes its value. */
export type FlagKind = "boolean" | "string" | "port";

/** Flag name (without `--`) -> kind. */
export type FlagSpec = Readonly<Record<string, FlagKind>>;

/** Parsed values: booleans are `true`, strings the text, ports a number. */
export type FlagValues = Record<string, string | number | boolean | undefined>;

/** A wrong command line. `message` is one line, without the usage text. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What {@link parseArgs} found. */
export interface ParsedArgs {
  readonly flags: FlagValues;
  readonly positionals: readonly string[];
}

/**
 * Parse `argv` against `spec`. `--help`/`-h` is always accepted as the
 * boolean flag `help`. Unknown flags, missing values, values given to a
 * switch and repeated flags are refused.
 */
export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const flags: FlagValues = {};
  const positionals: string[] = [];
  const kinds: Record<string, FlagKind> = { help: "boolean", ...spec };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown option ${arg}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = kinds[name];
    if (kind === undefined) throw new UsageError(`unknown option --${name}${suggest(name, Object.keys(kinds))}`);
    if (flags[name] !== undefined && name !== "help") throw new UsageError(`--${name} is given twice`);
    if (kind === "boolean") {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    let value: string;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    flags[name] = kind === "port" ? parsePort(value, name) : nonEmpty(value, name);
  }
  return { flags, positionals };
}

/** A TCP port (0 = any free port). */
export function parsePort(value: string, name = "port"): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`--${name} must be a number from 0 to 65535 (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

function nonEmpty(value: string, name: string): string {
  if (value === "") throw new UsageError(`--${name} needs a non-empty value`);
  return value;
}

/** " (did you mean --x?)" for a near miss, else "". */
function suggest(name: string, known: readonly string[]): string {
  const close = known.find((k) => k.startsWith(name) || name.startsWith(k) || editDistance(k, name) <= 2);
  return close ? ` (did you mean --${close}?)` : "";
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}
