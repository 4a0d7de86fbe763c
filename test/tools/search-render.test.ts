/**
 * The search renderer alone (src/tools/view/search-render.ts), table-driven
 * on hand-made models: every header, skip, group, cut and hint line it can
 * print. The searches that build these models are tested in view-search*.
 */
import { describe, expect, test } from "bun:test";
import { renderSearch, type SearchModel } from "../../src/tools/view/search-render.ts";

/** A literal, case-sensitive directory search of "todo" under src/ that found nothing; cases override fields. */
const base: SearchModel = {
  kind: "directory",
  content: "todo",
  regex: false,
  caseSensitive: true,
  label: "literal",
  context: 0,
  where: "src/",
  notes: [],
  notSearched: [],
  matched: 0,
  shownMatches: 0,
  filesMatched: 0,
  filesShown: 0,
  filesSearched: 3,
  notText: 0,
  tooLarge: 0,
  unreadable: 0,
  complete: true,
  files: [],
};

const cases: { name: string; model: Partial<SearchModel>; text: string[] }[] = [
  {
    name: "no match in a directory: every hint that applies",
    model: { content: "a.b", pattern: "**/*.ts" },
    text: [
      `[search "a.b" (literal) in src/: no match in 3 files searched]`,
      `[nothing matched. Try "case_sensitive": false, or "regex": true if content is a pattern, or a shorter "content", or a wider "pattern"]`,
    ],
  },
  {
    name: "no match in a file, regex ignoring case",
    model: { kind: "file", where: "a.ts (10 lines)", regex: true, caseSensitive: false, label: "regex, ignoring case", content: "x+" },
    text: [`[search "x+" (regex, ignoring case) in a.ts (10 lines): no match]`, `[nothing matched. Try a simpler pattern]`],
  },
  {
    name: "matches in several files",
    model: {
      matched: 3,
      shownMatches: 3,
      filesMatched: 2,
      filesShown: 2,
      files: [
        { path: "src/a.ts", matchCount: 2, rows: ["1:aa|// todo one", "4:bb|// todo two"] },
        { path: "src/b.ts", matchCount: 1, rows: ["7:cc|todo()"] },
      ],
    },
    text: [
      `[search "todo" (literal) in src/: 3 matching lines in 2 files; 3 files searched]`,
      "src/a.ts (2 matching lines)",
      "1:aa|// todo one",
      "4:bb|// todo two",
      "",
      "src/b.ts (1 matching line)",
      "7:cc|todo()",
    ],
  },
  {
    name: "a cut file: its continuation call, and how to narrow",
    model: {
      kind: "file",
      where: "a.ts (900 lines)",
      matched: 300,
      shownMatches: 200,
      filesMatched: 1,
      filesShown: 1,
      files: [{ path: "a.ts", matchCount: 300, rows: ["1:aa|todo"], more: { left: 100, call: `view {"path": "a.ts", "content": "todo", "start": 601}` } }],
    },
    text: [
      `[search "todo" (literal) in a.ts (900 lines): 300 matching lines]`,
      "a.ts (300 matching lines)",
      "1:aa|todo",
      `[100 more matching lines in this file: view {"path": "a.ts", "content": "todo", "start": 601}]`,
      `[showing 200 of 300 matching lines; 100 not shown. Narrow it: a more specific "content", or "start"/"end" to search part of the file]`,
    ],
  },
  {
    name: "a stopped directory search: lower bounds, files not shown, the stop reason",
    model: {
      matched: 10_000,
      shownMatches: 1,
      filesMatched: 5,
      filesShown: 1,
      complete: false,
      stopReason: "stopped counting at 10000 matching lines",
      files: [{ path: "src/a.ts", matchCount: 1, rows: ["2:dd|todo"] }],
    },
    text: [
      `[search "todo" (literal) in src/: at least 10000 matching lines in at least 5 files; 3 files searched]`,
      "src/a.ts (1 matching line)",
      "2:dd|todo",
      `[showing 1 of at least 10000 matching lines; at least 9999 not shown (at least 4 more files not shown). Narrow it: a subdirectory as "path", a "pattern" such as "**/*.ts", or a more specific "content"]`,
      "[the search stopped counting at 10000 matching lines; counts are lower bounds]",
    ],
  },
  {
    name: "skipped binaries, too large and unreadable files; entries not searched; notes",
    model: {
      notes: ["start is past the end"],
      notSearched: [`2 hidden (add "hidden": true)`, `dist/ (search it by naming it as "path", or add "gitignore": false)`],
      notText: 2,
      tooLarge: 1,
      unreadable: 1,
      caseSensitive: false,
    },
    text: [
      `[search "todo" (literal) in src/: no match in 3 files searched]`,
      "[note: start is past the end]",
      `[not searched: 2 hidden (add "hidden": true), dist/ (search it by naming it as "path", or add "gitignore": false)]`,
      "[skipped: 2 binary or non-UTF-8 files, 1 file too large to search, 1 unreadable file]",
      `[nothing matched. Try a shorter "content"]`,
    ],
  },
  {
    name: "context marks: the header says > marks matches; rows come as given",
    model: {
      context: 1,
      matched: 1,
      shownMatches: 1,
      filesMatched: 1,
      filesShown: 1,
      files: [{ path: "src/a.ts", matchCount: 1, rows: ["  1:aa|a", "> 2:bb|todo", "  3:cc|c"] }],
    },
    text: [
      `[search "todo" (literal) in src/: 1 matching line in 1 file; 3 files searched; > marks matching lines]`,
      "src/a.ts (1 matching line)",
      "  1:aa|a",
      "> 2:bb|todo",
      "  3:cc|c",
    ],
  },
];

describe("renderSearch", () => {
  for (const { name, model, text } of cases) {
    test(name, () => {
      expect(renderSearch({ ...base, ...model })).toBe(text.join("\n"));
    });
  }
});
