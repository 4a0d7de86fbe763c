/**
 * Argument validation: the first stage of every tool call. A bad argument is
 * the model's mistake, so the answer is written for the model: which field
 * (as a path it can find in its own call, `operations[2].start`), what it
 * sent, what is accepted there, and — when a name is nearly right — the name
 * it meant. All problems come back together so one retry can fix them all.
 */
import * as v from "valibot";
import { fail, type ToolResult } from "../result.ts";
import { closestName, intendedField } from "./suggest.ts";

/** Options for {@link validateArgs}. */
export interface ValidateOptions {
  /** Most problems listed before the rest are summarised as a count (default 10). */
  readonly maxProblems?: number;
}

/** Outcome of {@link validateArgs}: the parsed value, or the INVALID_ARGUMENT result to return. */
export type Validation = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly result: ToolResult };

const DEFAULT_MAX_PROBLEMS = 10;
const MAX_GIVEN_CHARS = 60;

/**
 * Parse `raw` against the tool's schema. On failure the result is
 * INVALID_ARGUMENT with one line per problem, capped at `maxProblems`.
 */
export function validateArgs(tool: { readonly name: string; readonly schema: v.GenericSchema }, raw: unknown, options: ValidateOptions = {}): Validation {
  const parsed = v.safeParse(tool.schema, raw);
  if (parsed.success) return { ok: true, value: parsed.output };
  // Some clients send an array or object argument as its JSON text; read exactly as that JSON, it is the call meant.
  const decoded = jsonTextArguments(raw);
  if (decoded) {
    const again = v.safeParse(tool.schema, decoded);
    if (again.success) return { ok: true, value: again.output };
  }
  const problems = describeIssues(tool.schema, parsed.issues);
  return { ok: false, result: fail("INVALID_ARGUMENT", renderProblems(tool.name, problems, options.maxProblems)) };
}

/** `raw` with each top-level string that is the JSON text of an array or object replaced by it; undefined when none is. */
function jsonTextArguments(raw: unknown): Record<string, unknown> | undefined {
  if (!isRecord(raw)) return undefined;
  let changed = false;
  const out: Record<string, unknown> = {};
  // Own properties, as in `raw`: a plain assignment of "__proto__" would set the object's prototype instead.
  const put = (key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  for (const [key, value] of Object.entries(raw)) {
    put(key, value);
    if (typeof value !== "string" || !/^\s*[[{]/.test(value)) continue;
    try {
      const json: unknown = JSON.parse(value);
      if (typeof json === "object" && json !== null) {
        put(key, json);
        changed = true;
      }
    } catch {
      // Not JSON: the schema's own message says what is expected.
    }
  }
  return changed ? out : undefined;
}

/** One model-facing problem line: where, and what is wrong there. */
export interface Problem {
  readonly path: string;
  readonly text: string;
  /** Nesting under a context line (a union's "closest form" heading); 0 at top level. */
  readonly depth?: number;
  /** A heading that introduces the problems below it, not a problem of its own. */
  readonly context?: boolean;
}

/**
 * Turn valibot issues into problems. `schema` is the schema the issue paths
 * are relative to; `prefix` is where that schema sits in the whole call.
 */
export function describeIssues(schema: v.GenericSchema, issues: readonly v.BaseIssue<unknown>[], prefix: readonly PropertyKey[] = []): Problem[] {
  const root = schema as unknown as SchemaNode;
  const problems: Problem[] = [];
  // valibot reports only the first unknown key of an object; we list them all once per object.
  const objectsWithUnknownKeysReported = new Set<unknown>();

  for (const issue of issues) {
    const items = issue.path ?? [];
    const keys = [...prefix, ...items.map((item) => item.key as PropertyKey)];
    const last = items.at(-1);

    if (last && last.origin === "key") {
      const parent = resolve(walk(root, items.slice(0, -1)), last.input);
      const entries = parent?.entries;
      if (issue.expected === "never") {
        if (objectsWithUnknownKeysReported.has(last.input)) continue;
        objectsWithUnknownKeysReported.add(last.input);
        problems.push(unknownKeysProblem(keys.slice(0, -1), last.key, last.input, entries, parent));
      } else {
        const entry = entries?.[String(last.key)];
        const expected = entry ? describeSchema(entry) : undefined;
        problems.push({
          path: formatPath(keys),
          text: `missing required field${expected ? ` (expected ${expected})` : ""}`,
        });
      }
      continue;
    }

    if (issue.type === "variant" && issue.input === undefined && last && isRecord(last.input)) {
      const renamed = misnamedDiscriminator(String(last.key), last.input, issue, unwrap(walk(root, items.slice(0, -1))));
      if (renamed) {
        problems.push({ path: formatPath(keys), text: renamed });
        continue;
      }
    }

    const node = unwrap(walk(root, items));
    if (issue.type === "union" && node?.type === "union" && node.options) {
      problems.push(...unionProblems(node.options, issue.input, keys));
      continue;
    }

    problems.push({ path: formatPath(keys), text: expectationText(issue) });
  }
  return problems;
}

/** The full INVALID_ARGUMENT text for a tool's problems. */
export function renderProblems(toolName: string, problems: readonly Problem[], maxProblems = DEFAULT_MAX_PROBLEMS): string {
  const shown = problems.slice(0, Math.max(1, maxProblems));
  const total = problems.filter((p) => !p.context).length;
  const hidden = total - shown.filter((p) => !p.context).length;
  const count = total === 1 ? "1 problem" : `${total} problems`;
  const lines = [`Invalid arguments for \`${toolName}\` (${count}); the tool did not run.`];
  for (const p of shown) lines.push(`${"  ".repeat(p.depth ?? 0)}- ${p.path}: ${p.text}`);
  if (hidden > 0) lines.push(`- ... and ${hidden} more not shown`);
  lines.push(`Correct ${total === 1 ? "it" : "them"} and call \`${toolName}\` again.`);
  return lines.join("\n");
}

/** Field path as the model wrote it: `operations[2].start`; the whole argument object is `arguments`. */
export function formatPath(keys: readonly PropertyKey[]): string {
  let out = "";
  for (const key of keys) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === "" ? "arguments" : out;
}

/** A short, single-line rendering of a value the model sent. */
export function shortJson(value: unknown, maxChars = MAX_GIVEN_CHARS): string {
  let text: string;
  try {
    text = value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  if (text.length <= maxChars) return text;
  // Cut on code points so a surrogate pair is never split.
  return `${[...text.slice(0, maxChars)].slice(0, maxChars - 1).join("")}…`;
}

// --- schema introspection -------------------------------------------------

/** The parts of a valibot schema object this module reads (valibot keeps them public). */
interface SchemaNode {
  readonly type: string;
  readonly expects: string;
  readonly entries?: Readonly<Record<string, SchemaNode>>;
  readonly wrapped?: SchemaNode;
  readonly item?: SchemaNode;
  readonly items?: readonly SchemaNode[];
  readonly rest?: SchemaNode;
  readonly options?: readonly SchemaNode[];
  readonly key?: string;
  readonly value?: SchemaNode;
  readonly literal?: unknown;
}

const WRAPPERS = new Set(["optional", "exact_optional", "nullable", "nullish", "undefinedable", "non_optional", "non_nullable", "non_nullish"]);
const OPTIONAL = new Set(["optional", "exact_optional", "nullish", "undefinedable"]);

function unwrap(node: SchemaNode | undefined): SchemaNode | undefined {
  while (node && WRAPPERS.has(node.type) && node.wrapped) node = node.wrapped;
  return node;
}

/** The schema at an issue path, best effort (undefined where the shape is not statically known). */
function walk(root: SchemaNode, items: readonly v.IssuePathItem[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const item of items) {
    node = child(node, item.key, item.input);
    if (!node) return undefined;
  }
  return node;
}

function child(parent: SchemaNode | undefined, key: unknown, parentInput: unknown): SchemaNode | undefined {
  const node = resolve(parent, parentInput);
  if (!node) return undefined;
  if (node.entries) return node.entries[String(key)] ?? node.rest;
  if (node.item) return node.item;
  if (node.items) return node.items[Number(key)] ?? node.rest;
  if (node.type === "record") return node.value;
  return undefined;
}

/** Unwrap optional-style wrappers and, for a variant, pick the option the input's discriminator selects. */
function resolve(schema: SchemaNode | undefined, input: unknown): SchemaNode | undefined {
  const node = unwrap(schema);
  return node?.type === "variant" ? unwrap(pickVariantOption(node, input)) : node;
}

function pickVariantOption(node: SchemaNode, input: unknown): SchemaNode | undefined {
  if (typeof input !== "object" || input === null || node.key === undefined) return undefined;
  const discriminator = (input as Record<string, unknown>)[node.key];
  for (const option of node.options ?? []) {
    const o = unwrap(option);
    if (o?.type === "variant") {
      const nested = pickVariantOption(o, input);
      if (nested) return nested;
      continue;
    }
    const entry = o?.entries?.[node.key];
    if (entry && v.safeParse(entry as unknown as v.GenericSchema, discriminator).success) return o;
  }
  return undefined;
}

/** How a schema reads to a model: `string`, `{ path, start?, end? }`, `"a" | "b"`. */
function describeSchema(schema: SchemaNode): string {
  const node = unwrap(schema) ?? schema;
  if (node.entries) {
    const fields = Object.entries(node.entries).map(([key, entry]) => {
      const inner = unwrap(entry);
      if (inner?.type === "literal") return `${key}: ${shortJson(inner.literal)}`;
      return OPTIONAL.has(entry.type) ? `${key}?` : key;
    });
    return `{ ${fields.join(", ")} }`;
  }
  if (node.type === "union" && node.options) return node.options.map(describeSchema).join(" | ");
  return node.expects;
}

// --- problem texts ----------------------------------------------------------

/** Names models use for a variant's discriminator (`"op": "replace"` for `"operation": "replace"`). */
const DISCRIMINATOR_ALIASES = new Set(["op", "type", "action", "kind", "cmd", "command", "method", "mode", "edit", "operation_type", "opType"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A variant's discriminator (`operation`) is missing and another key holds
 * one of its values: say which key to rename, and give the object renamed.
 */
function misnamedDiscriminator(key: string, input: Record<string, unknown>, issue: v.BaseIssue<unknown>, variant: SchemaNode | undefined): string | undefined {
  const expected = issue.expected ?? "";
  const holds = (value: unknown) => typeof value === "string" && expected.includes(JSON.stringify(value));
  const wrong = Object.keys(input).find((k) => k !== key && holds(input[k]) && (DISCRIMINATOR_ALIASES.has(k) || closestName(k, [key]) === key));
  if (wrong === undefined) return undefined;
  let fixed = withKeyFirst(input, wrong, key);
  const renames = [`\`${wrong}\` -> \`${key}\``];
  // The other misnamed fields of the form it names, in the same step: else the object offered is refused again.
  const entries = variant?.type === "variant" ? unwrap(pickVariantOption(variant, fixed))?.entries : undefined;
  if (entries) {
    const more = fieldRenames(fixed, entries);
    fixed = renamedObject(fixed, new Map(more));
    renames.push(...more.map(([k, t]) => `\`${k}\` -> \`${t}\``));
  }
  return `missing required field (expected ${expected}). Did you mean ${renames.join(", ")}? ` + `As it should be: ${shortJson(fixed, 4000)}`;
}

function unknownKeysProblem(
  parentKeys: readonly PropertyKey[],
  firstKey: unknown,
  parentInput: unknown,
  entries: Readonly<Record<string, SchemaNode>> | undefined,
  parent: SchemaNode | undefined,
): Problem {
  const allowed = entries ? Object.keys(entries) : [];
  const unknown =
    entries && typeof parentInput === "object" && parentInput !== null
      ? Object.keys(parentInput).filter((k) => !Object.hasOwn(entries, k))
      : [String(firstKey)];
  if (unknown.length === 0) unknown.push(String(firstKey));
  const given = parentInput && typeof parentInput === "object" ? new Set(Object.keys(parentInput)) : new Set<string>();
  // Offer only names the model has not already supplied, else "did you mean" points at a field it used correctly.
  const candidates = allowed.filter((k) => !given.has(k));
  const renames = unknown
    .map((k) => [k, intendedField(k, candidates)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    // Two unknown names meaning one field: neither rename is sure.
    .filter(([, s], _, all) => all.filter(([, t]) => t === s).length === 1);
  const hints = renames.map(([k, s]) => `\`${k}\` -> \`${s}\``);
  const allowedText = allowed.length ? `; accepted fields here: ${allowed.join(", ")}` : "";
  // The values under renamed fields are repaired too (`edits: [{op, line, text}]`): else the object offered is refused again.
  const fixed = renames.length === unknown.length && isRecord(parentInput) ? repairedDeep(parent, renamedObject(parentInput, new Map(renames))) : undefined;
  const hintText = hints.length ? `. Did you mean ${hints.join(", ")}?${fixed ? ` As it should be: ${shortJson(fixed, 4000)}` : ""}` : "";
  if (unknown.length === 1) {
    return { path: formatPath([...parentKeys, unknown[0]]), text: `unknown field${allowedText}${hintText}` };
  }
  const list = unknown.map((k) => `\`${k}\``).join(", ");
  return { path: formatPath(parentKeys), text: `unknown fields ${list}${allowedText}${hintText}` };
}

/**
 * `value` with misnamed fields renamed where the schema says what was meant,
 * at every depth: a variant's discriminator under another name, and any
 * unknown field one accepted field is meant by. Best effort: what cannot be
 * told is left as it is, for validation to name.
 */
function repairedDeep(schema: SchemaNode | undefined, value: unknown): unknown {
  const node = unwrap(schema);
  if (!node) return value;
  if (Array.isArray(value)) return node.item ? value.map((item) => repairedDeep(node.item, item)) : value;
  if (!isRecord(value)) return value;
  let fixed = value;
  if (node.type === "variant" && node.key !== undefined && !Object.hasOwn(value, node.key)) {
    const key = node.key;
    const wrong = Object.keys(value).find((k) => DISCRIMINATOR_ALIASES.has(k) && pickVariantOption(node, { [key]: value[k] }) !== undefined);
    if (wrong !== undefined) fixed = withKeyFirst(value, wrong, key);
  }
  const entries = resolve(node, fixed)?.entries;
  if (!entries) return fixed;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(renamedObject(fixed, new Map(fieldRenames(fixed, entries))))) out[k] = repairedDeep(entries[k], v);
  return out;
}

/** `input` with its key `wrong` renamed `key` and put first (a discriminator reads first). */
function withKeyFirst(input: Record<string, unknown>, wrong: string, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = { [key]: input[wrong] };
  for (const [k, value] of Object.entries(input)) if (k !== wrong) out[k] = value;
  return out;
}

/** Each field of `input` not in `entries` with the one accepted field (not already given) it stands for; a doubtful one is left out. */
function fieldRenames(input: Record<string, unknown>, entries: Readonly<Record<string, SchemaNode>>): (readonly [string, string])[] {
  const allowed = Object.keys(entries).filter((k) => !Object.hasOwn(input, k));
  return Object.keys(input)
    .filter((k) => !Object.hasOwn(entries, k))
    .map((k) => [k, intendedField(k, allowed)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    .filter(([, t], _, all) => all.filter(([, u]) => u === t).length === 1);
}

/** `input` with keys renamed, in their places. */
function renamedObject(input: Record<string, unknown>, renames: ReadonlyMap<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(input)) out[renames.get(k) ?? k] = value;
  return out;
}

/**
 * valibot says "Expected Object but received Object" for a union of object
 * shapes, which tells a model nothing. Instead: list the accepted forms, find
 * the one the value came closest to, and report that form's own problems.
 */
function unionProblems(options: readonly SchemaNode[], input: unknown, keys: readonly PropertyKey[]): Problem[] {
  const forms = options.map(describeSchema);
  let best: { option: SchemaNode; issues: readonly v.BaseIssue<unknown>[] } | undefined;
  for (const option of options) {
    const parsed = v.safeParse(option as unknown as v.GenericSchema, input);
    if (parsed.success) continue;
    // An option whose issues are all about the value's own type did not get anywhere.
    const reachedInside = parsed.issues.some((i) => (i.path?.length ?? 0) > 0);
    if (!reachedInside) continue;
    if (!best || parsed.issues.length < best.issues.length) best = { option, issues: parsed.issues };
  }
  const path = formatPath(keys);
  if (!best) return [{ path, text: `expected one of: ${forms.join(" | ")}; got ${shortJson(input)}` }];
  const head: Problem = {
    path,
    text: `matches none of the accepted forms (${forms.join(" | ")}); closest is ${describeSchema(best.option)}:`,
    context: true,
  };
  const inner = describeIssues(best.option as unknown as v.GenericSchema, best.issues, keys);
  return [head, ...inner.map((p) => ({ ...p, depth: (p.depth ?? 0) + 1 }))];
}

// valibot's default wording; anything else is a message the tool author wrote on purpose.
const DEFAULT_MESSAGE = /^Invalid [^:]+: (Expected [\s\S]* but r|R)eceived /;

function expectationText(issue: v.BaseIssue<unknown>): string {
  const given = shortJson(issue.input);
  if (!DEFAULT_MESSAGE.test(issue.message)) return `${issue.message} (got ${given})`;
  if (issue.expected) return `expected ${issue.expected}, got ${given}`;
  return `invalid ${issue.type.replace(/_/g, " ")}, got ${given}`;
}
