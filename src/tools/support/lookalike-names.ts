/**
 * Names that look the same and are different names to the file system: the
 * NFC and NFD spellings of "é", a name with a zero-width character in it,
 * a no-break space for a space, whitespace at either end ("server.ts ",
 * " src"). A tool that changes files refuses to create such a twin next to
 * an existing entry (see ./paths.ts), and a listing shows these characters
 * escaped. Pure.
 */

// Invisible characters that join or break nothing visibly: zero-width space/joiners, word joiner, BOM,
// soft hyphen, Mongolian vowel separator, left-to-right and right-to-left marks.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u2060\ufeff]/g;
// Spaces that show as an ordinary space.
const ODD_SPACE = /[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g;
const EDGE_SPACE = /^\s+|\s+$/g;
// What makes a name worth comparing at all: anything non-ASCII, or whitespace at an end.
const SUSPECT = /[^\x00-\x7f]|^\s|\s$/;

/** The name as it looks: NFC, invisible characters dropped, odd spaces as spaces, ends trimmed. */
export function lookAlikeKey(name: string): string {
  return name.normalize("NFC").replace(INVISIBLE, "").replace(ODD_SPACE, " ").replace(EDGE_SPACE, "");
}

/**
 * Whether `name` may have a look-alike twin. A plain ASCII name without
 * whitespace at its ends is its own key (only rare singletons such as
 * "\u212Aey", KELVIN SIGN, have another NFC): not looking spares every
 * plain name the work.
 */
export function mayHaveTwins(name: string): boolean {
  return SUSPECT.test(name);
}

/** Whether any segment of a path {@link mayHaveTwins}. */
export function pathMayHaveTwins(path: string): boolean {
  return path.split("/").some(mayHaveTwins);
}

/** Names in `names` that look like `name` ({@link lookAlikeKey}) but are spelled otherwise. */
export function lookAlikeTwins(name: string, names: Iterable<string>): string[] {
  if (!mayHaveTwins(name)) return [];
  const wanted = lookAlikeKey(name);
  if (wanted === "") return [];
  const twins: string[] = [];
  for (const candidate of names) {
    if (candidate !== name && lookAlikeKey(candidate) === wanted) twins.push(candidate);
  }
  return twins;
}

/** Spellings of `name` worth asking storage for directly when a listing was cut before its twin. */
export function likelySpellings(name: string): string[] {
  const key = lookAlikeKey(name);
  return [...new Set([name.normalize("NFC"), name.normalize("NFD"), key, key.normalize("NFD")])].filter((s) => s !== name && s !== "");
}

/**
 * How two look-alike names differ, for a message: "Unicode normalisation"
 * for NFC against NFD alone (the caller names the spellings), otherwise
 * the characters, e.g. "a zero-width space (U+200B)".
 */
export function lookAlikeDifference(asked: string, found: string): { normalization: boolean; text: string } {
  const strip = (s: string) => s.replace(INVISIBLE, "").replace(ODD_SPACE, " ").replace(EDGE_SPACE, "");
  if (strip(asked) === strip(found)) return { normalization: false, text: otherDifferences(asked, found) };
  if (asked.normalize("NFC") === found.normalize("NFC")) return { normalization: true, text: "Unicode normalisation" };
  return { normalization: false, text: `${otherDifferences(asked, found)} and Unicode normalisation` };
}

function otherDifferences(asked: string, found: string): string {
  const parts: string[] = [];
  const invisible = [...new Set([...(asked.match(INVISIBLE) ?? []), ...(found.match(INVISIBLE) ?? [])])];
  if (invisible.length > 0)
    parts.push(`${invisible.length === 1 ? "an invisible character" : "invisible characters"} (${invisible.map(codePoint).join(", ")})`);
  const odd = [...new Set([...(asked.match(ODD_SPACE) ?? []), ...(found.match(ODD_SPACE) ?? [])])];
  if (odd.length > 0) parts.push(`${odd.map(codePoint).join(", ")} where the other has a plain space`);
  const trimmed = (s: string) => s.replace(INVISIBLE, "").replace(ODD_SPACE, " ");
  const a = trimmed(asked);
  const b = trimmed(found);
  if (a.replace(EDGE_SPACE, "") === b.replace(EDGE_SPACE, "") && a !== b) parts.push("whitespace at the start or end of the name");
  return parts.length > 0 ? parts.join(", ") : "characters that look the same";
}

/** The characters of `name` that do not show as themselves (invisible ones, odd spaces), named: "U+200B zero-width space". */
export function hiddenCharacterNames(name: string): string[] {
  return [...new Set([...(name.match(INVISIBLE) ?? []), ...(name.match(ODD_SPACE) ?? [])])].map(codePoint);
}

function codePoint(ch: string): string {
  const hex = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = NAMES[ch];
  return name ? `${hex} ${name}` : hex;
}

const NAMES: Record<string, string> = {
  "\u00a0": "no-break space",
  "\u00ad": "soft hyphen",
  "\u200b": "zero-width space",
  "\u200c": "zero-width non-joiner",
  "\u200d": "zero-width joiner",
  "\u200e": "left-to-right mark",
  "\u200f": "right-to-left mark",
  "\u2060": "word joiner",
  "\u202f": "narrow no-break space",
  "\u3000": "ideographic space",
  "\ufeff": "zero-width no-break space",
};

/** Whether a listing must show `name` escaped: it has an invisible or odd-space character, or whitespace at an end of a segment. */
export function hasHiddenCharacters(name: string): boolean {
  INVISIBLE.lastIndex = 0;
  ODD_SPACE.lastIndex = 0;
  return INVISIBLE.test(name) || ODD_SPACE.test(name) || name.split("/").some((s) => /^\s|\s$/.test(s));
}

/** `name` with those characters written `\u{hex}` (spaces at a segment's ends too), so two look-alikes read apart. */
export function showHidden(name: string): string {
  const hex = (ch: string) => `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  return name
    .split("/")
    .map((segment) =>
      segment
        .replace(INVISIBLE, hex)
        .replace(ODD_SPACE, hex)
        .replace(/^\s+|\s+$/g, (run) => [...run].map(hex).join("")),
    )
    .join("/");
}
