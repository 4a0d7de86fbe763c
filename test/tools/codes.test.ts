/** The code table is complete, and docs/errors.md says exactly what it says. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CODES } from "../../src/errors.ts";
import { CODE_TABLE } from "../../src/tools/support/codes.ts";

const DOC = readFileSync(join(import.meta.dir, "..", "..", "docs", "errors.md"), "utf8");

describe("error codes", () => {
  test("every code has a row, and every row is a code", () => {
    expect(Object.keys(CODE_TABLE).sort()).toEqual([...ERROR_CODES].sort());
  });

  test("docs/errors.md lists every code with its status and meaning, in the table's order", () => {
    const rows = [...DOC.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
    expect(rows).toEqual(Object.entries(CODE_TABLE).map(([code, info]) => [code, info.status, info.meaning]));
  });

  test("every code with a headline has a recovery that names a next step", () => {
    for (const [code, info] of Object.entries(CODE_TABLE)) {
      if (!("headline" in info)) continue;
      expect({ code, remedy: info.remedy("src/a.ts").length > 20 }).toEqual({ code, remedy: true });
    }
  });
});
