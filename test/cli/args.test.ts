/** The command-line parser: what it accepts and the one-line errors a user sees for mistakes. */
import { describe, expect, test } from "bun:test";
import { parseArgs, UsageError, type FlagSpec } from "../../src/cli/args.ts";

const SPEC: FlagSpec = { port: "port", host: "string", "no-auth": "boolean", quiet: "boolean" };

function usageError(argv: string[]): string {
  try {
    parseArgs(argv, SPEC);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("parseArgs", () => {
  test("flags with separate or = values, switches, and positionals in any order", () => {
    expect(parseArgs(["dir", "--port", "8080", "--host=::1", "--no-auth"], SPEC)).toEqual({
      flags: { port: 8080, host: "::1", "no-auth": true },
      positionals: ["dir"],
    });
  });

  test("-h and --help set help; -- ends the flags; a lone - is a positional", () => {
    expect(parseArgs(["-h"], SPEC).flags.help).toBe(true);
    expect(parseArgs(["--", "--port", "x"], SPEC).positionals).toEqual(["--port", "x"]);
    expect(parseArgs(["-"], SPEC).positionals).toEqual(["-"]);
  });

  test("port 0 (pick a free one) and 65535 are ports; others are refused with the value", () => {
    expect(parseArgs(["--port", "0"], SPEC).flags.port).toBe(0);
    expect(parseArgs(["--port=65535"], SPEC).flags.port).toBe(65535);
    expect(usageError(["--port", "65536"])).toBe('--port must be a number from 0 to 65535 (got "65536")');
    expect(usageError(["--port", "-1"])).toBe('--port must be a number from 0 to 65535 (got "-1")');
    expect(usageError(["--port", "80x"])).toBe('--port must be a number from 0 to 65535 (got "80x")');
  });

  test("mistakes are named", () => {
    expect(usageError(["--prot", "1"])).toBe("unknown option --prot (did you mean --port?)");
    expect(usageError(["--verbose"])).toBe("unknown option --verbose");
    expect(usageError(["-p", "1"])).toBe("unknown option -p");
    expect(usageError(["--host"])).toBe("--host needs a value");
    expect(usageError(["--host="])).toBe("--host needs a non-empty value");
    expect(usageError(["--quiet=yes"])).toBe("--quiet takes no value");
    expect(usageError(["--port", "1", "--port", "2"])).toBe("--port is given twice");
  });
});
