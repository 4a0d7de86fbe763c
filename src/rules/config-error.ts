/**
 * A rule table that cannot be used. Thrown at load so a broken configuration
 * stops start-up with the offending rule named, instead of degrading into a
 * listener that never fires.
 */
export class RuleConfigError extends Error {
  /** The offending rule's id (`rules[i]` when it has no usable id); undefined for a top-level setting. */
  readonly ruleId: string | undefined;
  /** What is wrong, in words a config author can act on. */
  readonly problem: string;
  constructor(ruleId: string | undefined, problem: string) {
    super(ruleId === undefined ? `loud-failure config: ${problem}` : `rule "${ruleId}": ${problem}`);
    this.name = "RuleConfigError";
    this.ruleId = ruleId;
    this.problem = problem;
  }
}
