import * as v from "valibot";

/** Default scan budget: the head and tail halves of a larger output are scanned. */
export const DEFAULT_MAX_SCAN_CHARS = 1024 * 1024;

/** Default longest excerpt shown to the model. */
export const DEFAULT_EXCERPT_CHARS = 240;

/** Default shell tools, checked by rules that name no tools. */
export const DEFAULT_SHELL_TOOLS: readonly string[] = ["bash"];

// Messages are functions of the issue so a load error can say exactly what was wrong.
function flagsProblem(flags: unknown): string {
  const text = String(flags);
  const stateful = [...text].filter((f) => f === "g" || f === "y");
  if (stateful.length > 0) {
    return `flag "${stateful[0]}" is refused: it makes the regex carry lastIndex state between calls`;
  }
  const unknown = [...text].filter((f) => !"imsu".includes(f));
  return `unknown flag "${unknown[0] ?? text}" (allowed: i, m, s, u)`;
}

function fieldProblem(issue: v.StrictObjectIssue): string {
  return issue.received === "undefined" ? `missing required field ${issue.expected}` : `unknown field ${issue.received}`;
}

/**
 * One rule as written in configuration. Structural checks only; `loadRules`
 * adds the ones JSON Schema cannot express (the pattern compiles, ids are
 * unique, `pattern`/`message` present unless `action` is `off`).
 */
export const RuleInputSchema = v.strictObject(
  {
    id: v.pipe(
      v.string("id must be a string"),
      v.regex(/\S/, "id must not be empty"),
      v.description("Stable identifier; a built-in id replaces that built-in."),
    ),
    pattern: v.optional(
      v.pipe(
        v.string("pattern must be a string"),
        v.minLength(1, "pattern must not be empty"),
        v.description("Regular expression, RE2 syntax (no lookaround or backreferences; \\uFFFD is accepted). Matched in linear time."),
      ),
    ),
    flags: v.optional(
      v.pipe(
        v.string("flags must be a string"),
        v.regex(/^[imsu]*$/, (issue) => flagsProblem(issue.input)),
        v.description("Any of i, m, s, u. g and y are refused because they carry state."),
      ),
    ),
    tools: v.optional(
      v.pipe(
        v.array(v.pipe(v.string("tools entries must be strings"), v.minLength(1, "tools entries must not be empty")), "tools must be a list of tool names"),
        v.description('Tools the rule checks. Omitted or empty: shellTools. ["*"]: every tool.'),
      ),
    ),
    when: v.optional(
      v.picklist(["success", "error", "any"], (issue) => `when must be one of success, error, any (got ${issue.received})`),
      "success",
    ),
    action: v.picklist(["error", "context", "off"], (issue) => `action must be one of error, context, off (got ${issue.received})`),
    message: v.optional(
      v.pipe(
        v.string("message must be a string"),
        v.regex(/\S/, "message must not be empty"),
        v.description("Shown to the model verbatim: what the signature means and what to do next."),
      ),
    ),
  },
  fieldProblem,
);

/** A rule as written in configuration. */
export type RuleInput = v.InferInput<typeof RuleInputSchema>;

/**
 * The loud-failure configuration. The server config file embeds this schema;
 * it converts to JSON Schema with `@valibot/to-json-schema` as is.
 */
export const LoudFailureConfigSchema = v.strictObject(
  {
    builtinRules: v.optional(v.pipe(v.boolean("builtinRules must be a boolean"), v.description("Load the built-in rules before user rules.")), true),
    shellTools: v.optional(
      v.pipe(
        v.array(
          v.pipe(v.string("shellTools entries must be strings"), v.minLength(1, "shellTools entries must not be empty")),
          "shellTools must be a list of tool names",
        ),
        v.description("Tools checked by rules that name no tools."),
      ),
      [...DEFAULT_SHELL_TOOLS],
    ),
    excerptChars: v.optional(
      v.pipe(
        v.number("excerptChars must be a number"),
        v.integer("excerptChars must be an integer"),
        v.minValue(0, "excerptChars must be 0 or more"),
        v.description("Longest excerpt shown per match; 0 shows none."),
      ),
      DEFAULT_EXCERPT_CHARS,
    ),
    maxScanChars: v.optional(
      v.pipe(
        v.number("maxScanChars must be a number"),
        v.integer("maxScanChars must be an integer"),
        v.minValue(1024, "maxScanChars must be at least 1024"),
        v.description("Larger outputs are scanned at head and tail (half each); the skipped middle is reported."),
      ),
      DEFAULT_MAX_SCAN_CHARS,
    ),
    scanValue: v.optional(
      v.pipe(v.boolean("scanValue must be a boolean"), v.description("Also scan the structured result value (bounded JSON and its string fields).")),
      false,
    ),
    rules: v.optional(
      v.pipe(v.array(RuleInputSchema, "rules must be an array"), v.description("User rules, after the built-ins; a built-in id replaces it in place.")),
      [],
    ),
  },
  fieldProblem,
);

/** The loud-failure configuration as written. */
export type LoudFailureConfig = v.InferInput<typeof LoudFailureConfigSchema>;
