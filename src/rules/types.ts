/** When a rule looks at a result: only apparently successful ones, only failed ones, or all. */
export type RuleWhen = "success" | "error" | "any";

/** What a match does: block the result, attach a notice, or nothing (rule disabled). */
export type RuleAction = "error" | "context" | "off";

/** Where a rule's first hit is in a text, as UTF-16 offsets `[start, end)`. */
export interface RuleHit {
  readonly start: number;
  readonly end: number;
}

/** A rule after validation and compilation. Frozen; safe to share across calls. */
export interface CompiledRule {
  readonly id: string;
  /** The pattern as written ("" for an `off` rule without one). */
  readonly source: string;
  readonly flags: string;
  /**
   * `re2` for user rules (linear time, see `pattern.ts`); `native` for the
   * built-ins, fixed patterns checked for linear shape by their tests.
   */
  readonly engine: "re2" | "native";
  /** Longest text this rule reads of one scanned window; a longer window is read at head and tail (half each). */
  readonly scanChars: number;
  /** The first hit in `text`, if any. Keeps no state between calls. */
  readonly find: (text: string) => RuleHit | undefined;
  /** Tool names the rule applies to; `"*"` means every tool. */
  readonly tools: readonly string[] | "*";
  readonly when: RuleWhen;
  readonly action: RuleAction;
  readonly message: string;
  /** True for a rule from the built-in table (not replaced by the user). */
  readonly builtin: boolean;
}

/** A loaded, frozen rule table plus the scan settings `evaluate` needs. */
export interface RuleSet {
  /** Built-ins first (user replacements in place), then new user rules, in order. */
  readonly rules: readonly CompiledRule[];
  readonly shellTools: readonly string[];
  readonly excerptChars: number;
  readonly maxScanChars: number;
  readonly scanValue: boolean;
}

/** Where a match was found. */
export type MatchSource = "text" | "value";

/** One rule that matched, with the text around its first hit. */
export interface RuleMatch {
  readonly ruleId: string;
  readonly action: "error" | "context";
  readonly message: string;
  /** At most `excerptChars` characters centred on the hit; "…" marks a cut side. */
  readonly excerpt: string;
  readonly source: MatchSource;
  readonly builtin: boolean;
}

/** What part of a huge output was not scanned. Offsets are into the text blocks joined with "\n". */
export interface ScanReport {
  readonly totalChars: number;
  readonly scannedChars: number;
  /** The middle span left out when the output exceeded `maxScanChars`. */
  readonly skipped?: { readonly from: number; readonly to: number };
  /** True when the structured value was longer than its scan budget and was cut. */
  readonly valueTruncated?: boolean;
}

/** The outcome of {@link evaluate}. */
export interface Evaluation {
  /** `block` if any error rule matched (error wins), else `notice` if a context rule matched, else `pass`. */
  readonly verdict: "block" | "notice" | "pass";
  /** Whether the result counted as failed for `when` (isError or a shell failure marker). */
  readonly failed: boolean;
  /** Error matches first, then context matches, each in table order. */
  readonly matches: readonly RuleMatch[];
  readonly errors: readonly RuleMatch[];
  readonly contexts: readonly RuleMatch[];
  readonly scan: ScanReport;
}
