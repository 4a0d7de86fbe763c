/**
 * The two refusals `view` writes itself: a bad argument combination, and a
 * path with nothing there — which names the nearest directory that exists
 * and any entries there whose names are close to the one asked for, since a
 * missing path is usually a typo or a wrong directory.
 */

import { fail, type ToolResult } from "../../result.ts";
import { baseName, childPath, parentPath } from "../../storage/path.ts";
import type { NotText } from "../../text/document.ts";
import { observeAbsent } from "../support/observe.ts";
import {
  asciiJson,
  normalizationTwins,
  otherSpellings,
  quotedPath,
  respell,
  respellingText,
  sameCall,
  type ShellPrefix,
  shellPrefix,
  shellPrefixReason,
  showsAsIs,
  spellingOf,
} from "../support/paths.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolContext } from "../types.ts";
import { viewCall } from "./format.ts";

/**
 * FS_NOT_TEXT for bytes that are not UTF-8 text, saying which (binary or
 * another encoding) and where, worded as `loadTextFile` words it. `seen`
 * (a view, which records the version it read): the way out offered is to
 * replace the file whole with write; a search records nothing, so it offers
 * converting the file instead.
 */
export function notTextResult(path: string, why: NotText, seen = true): ToolResult {
  const what = why.reason === "binary" ? "a binary file (it contains NUL bytes)" : "not valid UTF-8 text";
  const exit = seen ? "replace it whole with write (this view counts as having seen it)" : "convert it to UTF-8 first";
  return fail(
    "FS_NOT_TEXT",
    `\`${shownPath(path)}\` is ${what}: ${why.detail}. These tools read and edit UTF-8 text only; ` + `leave this file alone, or ${exit}.`,
  );
}

/** An INVALID_ARGUMENT result; `message` already says the fix. */
export function invalidArgument(message: string): ToolResult {
  return fail("INVALID_ARGUMENT", message);
}

const MAX_SUGGESTIONS = 3;
const SIBLINGS_SCANNED = 2000;

/**
 * FS_NOT_FOUND for `path` (normalised), after recording absent for this
 * session: the model looked and found nothing, which is what lets `write`
 * create the file without a further read. `args` are the view's other
 * arguments, kept in a corrected call the answer offers.
 *
 * Two misses are not typos, and the answer does not offer to create them:
 * a leading `~` or `$VAR` the workspace has no entry for (a shell would
 * have expanded it; toolwarden does not), and a name that exists spelled
 * with another Unicode normalisation (creating it would make a second,
 * identical-looking entry).
 */
export async function notFound(ctx: ToolContext, path: string, args: Readonly<Record<string, unknown>> = {}): Promise<ToolResult> {
  await observeAbsent(ctx, path);
  const others = withoutPath(args);
  let text = `\`${shownPath(path)}\` does not exist (nothing is there; \`write\` can create it).`;
  try {
    // Walk up to the nearest directory that exists; the first missing segment is what to suggest for.
    let missing = path;
    let dir = parentPath(path);
    for (;;) {
      const stat = await ctx.storage.stat(dir);
      if (stat?.kind === "directory" || dir === "") break;
      if (stat?.kind === "file") {
        return fail("FS_NOT_FOUND", `${text} \`${shownPath(dir)}\` is a file, not a directory, so nothing can be inside it: ${viewCall(dir)} shows it.`);
      }
      missing = dir;
      dir = parentPath(dir);
    }
    const prefix = shellPrefix(path);
    if (prefix && missing === prefix.segment) return fail("FS_NOT_FOUND", await prefixNotFound(ctx, path, prefix, others));
    const listing = await ctx.storage.list(dir, { limit: SIBLINGS_SCANNED });
    const names = listing.entries.filter((e) => !e.unaddressable).map((e) => e.name);
    let twins = normalizationTwins(baseName(missing), names);
    if (twins.length === 0 && listing.truncated) twins = await otherSpellings(ctx.storage, dir, baseName(missing));
    if (twins.length > 0) return fail("FS_NOT_FOUND", await twinNotFound(ctx, path, dir, baseName(missing), twins, others));
    if (missing !== path) text += ` Its directory \`${shownPath(missing)}\` does not exist either.`;
    const close = similarNames(baseName(missing), names);
    if (close.length > 0) {
      const shown = close.map((name) => quotedPath(childPath(dir, name))).join(", ");
      text += ` Similar ${close.length === 1 ? "name" : "names"} in \`${shownPath(dir)}\`: ${shown}.`;
      // A name that does not show as it is cannot be typed from the hint: the view of it is given as JSON.
      const hidden = close.find((name) => !showsAsIs(name));
      if (close.length === 1 && hidden !== undefined && missing === path)
        text += ` To view it: ${sameCall({ tool: "view", args: others }, childPath(dir, hidden), true)}.`;
    }
    text += ` See what exists: ${viewCall(dir)}`;
  } catch {
    // The hint is a courtesy; the answer stays "not found" whatever the walk met.
    text += ` See what exists: ${viewCall(parentPath(path))}`;
  }
  return fail("FS_NOT_FOUND", text);
}

function withoutPath(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { path: _path, ...others } = args;
  return others;
}

/** A path under `~` or `$VAR` with no such entry: say it was not expanded and offer the path without it. */
async function prefixNotFound(ctx: ToolContext, path: string, prefix: ShellPrefix, others: Record<string, unknown>): Promise<string> {
  const head = `\`${shownPath(path)}\` does not exist: the path ${shellPrefixReason(prefix)}.`;
  if (prefix.rest === "") return `${head} See what exists: ${viewCall("")}`;
  const there = await ctx.storage.stat(prefix.rest).catch(() => null);
  if (there) return `${head} \`${prefix.rest}\` exists; the same view without that prefix: ${viewCall(prefix.rest, others)}`;
  return `${head} Without that prefix the path is \`${prefix.rest}\`, which does not exist either. See what exists: ${viewCall("")}`;
}

/**
 * A missing name whose Unicode twin (NFC vs NFD) is in the directory: name
 * it with both spellings escaped, and give the view with the names as on disk
 * (deeper segments respelled too where each has one twin).
 */
async function twinNotFound(
  ctx: ToolContext,
  path: string,
  dir: string,
  asked: string,
  twins: readonly string[],
  others: Record<string, unknown>,
): Promise<string> {
  const head = `\`${shownPath(path)}\` does not exist as spelled`;
  if (twins.length > 1) {
    const spellings = twins.map((t) => `${asciiJson(t)} (${spellingOf(t)})`).join(", ");
    return (
      `${head}: \`${shownPath(dir)}\` has ${twins.length} names that differ from \`${asked}\` (${asciiJson(asked)}, ${spellingOf(asked)}) only by Unicode normalisation: ${spellings}. ` +
      `They look identical but are different names; name the one you mean exactly (${viewCall(dir)} lists them).`
    );
  }
  const first = { dir, asked, found: twins[0] };
  const rest = path.slice(childPath(dir, asked).length);
  const deeper = await respell(ctx.storage, childPath(dir, twins[0]) + rest).catch(() => ({ path: childPath(dir, twins[0]) + rest, respelled: [] }));
  const all = [first, ...deeper.respelled];
  const call = sameCall({ tool: "view", args: others }, deeper.path, true);
  return `${head}: ${all.map(respellingText).join("; ")}. The same view with the ${all.length === 1 ? "name" : "names"} as on disk:\n${call}`;
}

/**
 * Names close enough to `name` to be what was meant: equal ignoring case,
 * the same stem with another extension, or a few typos away. Closest first.
 */
export function similarNames(name: string, names: readonly string[]): string[] {
  const target = name.toLowerCase();
  const stem = (s: string) => s.replace(/\.[^.]*$/, "");
  const scored: { name: string; score: number }[] = [];
  for (const candidate of names) {
    const c = candidate.toLowerCase();
    let score: number;
    if (c === target) score = 0;
    else if (stem(c) !== "" && stem(c) === stem(target)) score = 1;
    else {
      const budget = Math.max(1, Math.floor(Math.max(c.length, target.length) / 4));
      if (Math.abs(c.length - target.length) > budget) continue;
      const d = boundedDistance(target, c, budget);
      if (d > budget) continue;
      score = 1 + d;
    }
    scored.push({ name: candidate, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.name);
}

/** Levenshtein distance, or `budget + 1` as soon as it must exceed `budget`. */
function boundedDistance(a: string, b: string, budget: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (row[j] < best) best = row[j];
    }
    if (best > budget) return budget + 1;
    prev = row;
  }
  return prev[b.length];
}
