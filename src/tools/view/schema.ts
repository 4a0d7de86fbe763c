/**
 * The `view` arguments: one valibot schema (the JSON Schema clients see is
 * generated from it, so every field documents itself) and the bounds the
 * three modes share. Defaults live here as constants, applied in `run`,
 * because the pipeline hands `run` exactly what the model sent.
 */
import { PATH_RULE } from "../support/paths.ts";
import * as v from "valibot";

/** Deepest a listing or search walks below the named directory. */
export const MAX_DEPTH = 20;
/** Most context lines around a search match. */
export const MAX_CONTEXT = 10;

// Exactly a JSON number: "2" and "-1" are numbers, " 2", "2x" and "02" are not.
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * A whole number from `min` to `max`, also taken quoted ("context": "2"), as
 * `start` is: models sometimes quote every scalar, and a string that is
 * exactly a JSON number means only that number. Anything else is refused
 * as before. Clients see the JSON Schema of the number alone (the metadata:
 * the converter stops at the transform), so the quoted form is tolerated,
 * not advertised; the bounds come from the same arguments as the checks.
 */
function wholeNumber(name: string, min: number, max: number, minMessage: string, maxMessage: string, description: string) {
  return v.pipe(
    v.unknown(),
    v.metadata({ type: "integer", minimum: min, maximum: max }),
    v.description(description),
    v.transform((input: unknown) => (typeof input === "string" && JSON_NUMBER.test(input) ? Number(input) : input)),
    v.number(`${name} must be a number`),
    v.integer(`${name} must be a whole number`),
    v.minValue(min, minMessage),
    v.maxValue(max, maxMessage),
  );
}

/** true or false, also taken as the exact strings "true" and "false" (see {@link wholeNumber}). */
function flag(name: string, description: string) {
  return v.pipe(
    v.unknown(),
    v.metadata({ type: "boolean" }),
    v.description(description),
    v.transform((input: unknown) => (input === "true" ? true : input === "false" ? false : input)),
    v.boolean(`${name} must be true or false`),
  );
}

const lineRef = (which: "start" | "end", example: string) =>
  v.pipe(
    v.union(
      [v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.minLength(1))],
      `${which} must be a line number (e.g. ${example}) or a line id like "12:a3"`,
    ),
    v.description(
      which === "start"
        ? 'First line to show: 1-based; negative counts from the end (-50 = the last 50 lines); a line id like "12:a3" uses its number. For a file (a view, or a search of part of it).'
        : "Last line to show, inclusive; same forms as start (-1 = the last line). Default: as far as the output bound allows.",
    ),
  );

/** The `view` arguments schema. */
export const ViewArgsSchema = v.strictObject({
  path: v.pipe(v.string("path must be a string"), v.description('Workspace-relative path of a file or directory; "." is the workspace root.')),
  start: v.optional(lineRef("start", "1 or -50")),
  end: v.optional(lineRef("end", "200 or -1")),
  content: v.optional(
    v.pipe(
      v.string("content must be a string"),
      v.minLength(1, "content must not be empty: give the text to search for, or leave content out to view the path"),
      v.description(
        "Search for this text (literal unless regex is true) in the file, or in every text file under the directory. Shows each matching line with its id.",
      ),
    ),
  ),
  regex: v.optional(
    flag(
      "regex",
      "Treat content as an RE2 regular expression matched against each line (^ and $ anchor the line; no lookaround or backreferences). Default false.",
    ),
  ),
  case_sensitive: v.optional(flag("case_sensitive", "Search case-sensitively. Default true.")),
  context: v.optional(
    wholeNumber(
      "context",
      0,
      MAX_CONTEXT,
      "context must be 0 or more",
      `context is at most ${MAX_CONTEXT} lines`,
      `Lines shown before and after each search match (0-${MAX_CONTEXT}). Default 0.`,
    ),
  ),
  pattern: v.optional(
    v.pipe(
      v.string("pattern must be a string"),
      v.minLength(1, "pattern must not be empty; leave it out to list everything"),
      v.maxLength(500, "pattern is at most 500 characters"),
      v.description(
        'Glob that entries of a listing or files of a search must match, e.g. "**/*.ts" or "src/**/test_*.py"; a glob without "/" matches names at any depth ("*.md"). Implies walking subdirectories.',
      ),
    ),
  ),
  depth: v.optional(
    wholeNumber(
      "depth",
      1,
      MAX_DEPTH,
      "depth must be at least 1 (1 = the directory's own entries)",
      `depth is at most ${MAX_DEPTH}`,
      `Levels below the directory to walk (1-${MAX_DEPTH}). Default 1 for a listing; ${MAX_DEPTH} with pattern or content.`,
    ),
  ),
  hidden: v.optional(flag("hidden", "Include dot-files and dot-directories in listings and searches. Default false.")),
  gitignore: v.optional(flag("gitignore", "Leave out what .gitignore files exclude. Default true; false shows everything.")),
});

/** Parsed `view` arguments. */
export type ViewArgs = v.InferOutput<typeof ViewArgsSchema>;

/** What the model reads about `view` in tools/list. */
export const DESCRIPTION =
  "Read a file, list a directory, or search text. A file is shown one line per row as `N:hh|content`: " +
  "`N:hh` is the line's id (1-based line number, colon, 2-hex hash of the line) that edit and batch_edit " +
  "take to prove they target the line you read. Long files are cut at a bound and end with the exact call " +
  "that continues. A directory lists its entries (dirs end with /) with size and line count, leaving out " +
  '.gitignored and dot-files unless "gitignore": false / "hidden": true. "content" searches a file or ' +
  'directory (literal unless "regex": true) and shows each matching line with its id. Examples: ' +
  '{"path": "src/app.ts"}; {"path": "src/app.ts", "start": 120, "end": 180}; ' +
  '{"path": "src/app.ts", "start": -50} (last 50 lines); {"path": "src", "depth": 2}; ' +
  '{"path": ".", "pattern": "**/*.test.ts"}; {"path": "src", "content": "createServer", "context": 2}; ' +
  '{"path": "src/app.ts", "content": "fn\\\\s+main", "regex": true}.\n' +
  PATH_RULE;
