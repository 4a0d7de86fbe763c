/**
 * "Did you mean ...?" for names a model got slightly wrong (a tool name, an
 * argument key). Models misspell in predictable ways — `old_string` for
 * `old_str`, `file` for `path` is beyond help — so only close names are offered.
 */

/**
 * Edit distance between two short names, counting a swap of two adjacent
 * characters as one edit (the commonest typo: `wiht` for `with`).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j], before[j - 2] + 1);
      }
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The candidate closest to `name`, if it is close enough to be a plausible
 * intent: same name ignoring case/`-`/`_`, one a prefix of the other, or a
 * small edit distance relative to the length.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");
  const target = fold(name);
  if (target === "") return undefined;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const c = fold(candidate);
    let score: number;
    if (c === target) score = 0;
    else if (c.length >= 3 && target.length >= 3 && (c.startsWith(target) || target.startsWith(c))) score = 1;
    else {
      const d = editDistance(target, c);
      if (d > Math.max(1, Math.floor(Math.max(target.length, c.length) / 3))) continue;
      score = 1 + d;
    }
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}

/**
 * Argument names models use for the ones the tools take, by meaning rather
 * than spelling (`edits` for `operations`, `text` for `content`): each maps
 * to the names it may stand for, tried in order among the fields accepted.
 */
const FIELD_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  edits: ["operations"],
  changes: ["operations"],
  ops: ["operations"],
  operation_list: ["operations"],
  line: ["start", "after"],
  id: ["start", "after"],
  line_id: ["start", "after"],
  lineid: ["start", "after"],
  start: ["after"],
  from: ["start"],
  to: ["end"],
  text: ["content", "new_string"],
  new_content: ["content"],
  new_text: ["content", "new_string"],
  lines: ["content"],
  replacement: ["content", "new_string"],
  file: ["path"],
  file_path: ["path"],
  filepath: ["path"],
  filename: ["path"],
  search: ["old_string"],
  find: ["old_string"],
  replace: ["new_string"],
};

/** The accepted field a model most likely meant by `name`: a synonym among `candidates`, else the closest spelling. */
export function intendedField(name: string, candidates: readonly string[]): string | undefined {
  // Own properties only: "constructor" or "__proto__" would otherwise read the object's prototype.
  const key = name.toLowerCase();
  const meant = Object.hasOwn(FIELD_SYNONYMS, key) ? FIELD_SYNONYMS[key].find((c) => candidates.includes(c)) : undefined;
  return meant ?? closestName(name, candidates);
}
