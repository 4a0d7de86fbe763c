/**
 * A small XML reader for the two S3 responses this provider parses:
 * ListObjectsV2 results and error bodies. Workers have no DOMParser, and a
 * general XML library is far more than these flat documents need.
 *
 * Safe by construction: no DOCTYPE (so no entity definitions, no external
 * entities, no expansion bombs), only the five predefined entities and
 * numeric character references, a nesting limit, and one linear pass.
 * Anything else is malformed and throws {@link XmlError}. Text is not
 * newline-normalised, so a key comes back exactly as the server escaped it.
 */

/** An element: local name (namespace prefix dropped), child elements, and its own text. */
export interface XmlElement {
  readonly name: string;
  readonly children: XmlElement[];
  /** Concatenated character data directly inside this element (entities decoded). */
  text: string;
}

/** Malformed or refused XML. */
export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XmlError";
  }
}

const MAX_DEPTH = 32;
const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const NAME = /^[A-Za-z_][\w.:-]*/;

/** Decode the predefined entities and character references in character data. */
export function decodeXmlText(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(/&([^;&\s]{0,10});?/g, (match, body: string) => {
    if (!match.endsWith(";")) throw new XmlError(`unterminated entity reference ${JSON.stringify(match)}`);
    const named = NAMED_ENTITIES[body];
    if (named !== undefined) return named;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(body);
    if (!numeric) throw new XmlError(`unknown entity &${body};`);
    const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number(numeric[2]);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new XmlError(`invalid character reference &${body};`);
    return String.fromCodePoint(code);
  });
}

function localName(qualified: string): string {
  return qualified.slice(qualified.indexOf(":") + 1);
}

/** Parse a document and return its root element. */
export function parseXml(source: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  const n = source.length;

  const expectEnd = (marker: string, from: number, what: string): number => {
    const end = source.indexOf(marker, from);
    if (end === -1) throw new XmlError(`unterminated ${what}`);
    return end;
  };

  while (i < n) {
    const lt = source.indexOf("<", i);
    const textEnd = lt === -1 ? n : lt;
    if (textEnd > i) {
      const raw = source.slice(i, textEnd);
      const current = stack[stack.length - 1];
      if (current) current.text += decodeXmlText(raw);
      else if (raw.trim() !== "") throw new XmlError("text outside the root element");
    }
    if (lt === -1) break;
    if (source.startsWith("<?", lt)) {
      i = expectEnd("?>", lt + 2, "processing instruction") + 2;
    } else if (source.startsWith("<!--", lt)) {
      i = expectEnd("-->", lt + 4, "comment") + 3;
    } else if (source.startsWith("<![CDATA[", lt)) {
      const end = expectEnd("]]>", lt + 9, "CDATA section");
      const current = stack[stack.length - 1];
      if (!current) throw new XmlError("CDATA outside the root element");
      current.text += source.slice(lt + 9, end);
      i = end + 3;
    } else if (source.startsWith("<!", lt)) {
      throw new XmlError("DOCTYPE and other declarations are not accepted");
    } else if (source.startsWith("</", lt)) {
      const end = expectEnd(">", lt + 2, "end tag");
      const name = localName(source.slice(lt + 2, end).trim());
      const open = stack.pop();
      if (!open || open.name !== name) throw new XmlError(`unexpected end tag </${name}>`);
      i = end + 1;
    } else {
      i = openTag(lt + 1);
    }
  }
  if (stack.length > 0) throw new XmlError(`unclosed element <${stack[stack.length - 1].name}>`);
  if (!root) throw new XmlError("no root element");
  return root;

  /** Read a start tag whose name begins at `at`; return the index after it. */
  function openTag(at: number): number {
    const match = NAME.exec(source.slice(at, at + 256));
    if (!match) throw new XmlError("malformed start tag");
    const element: XmlElement = { name: localName(match[0]), children: [], text: "" };
    let j = at + match[0].length;
    // Attributes are skipped, but their quoted values are walked so that a ">" inside one cannot end the tag.
    for (;;) {
      if (j >= n) throw new XmlError("unterminated start tag");
      const c = source[j];
      if (c === ">" || source.startsWith("/>", j)) break;
      if (c === '"' || c === "'") j = expectEnd(c, j + 1, "attribute value") + 1;
      else j++;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(element);
    else if (root) throw new XmlError("more than one root element");
    else root = element;
    if (source[j] === ">") {
      if (stack.length >= MAX_DEPTH) throw new XmlError(`nested deeper than ${MAX_DEPTH} elements`);
      stack.push(element);
      return j + 1;
    }
    return j + 2;
  }
}

/** The first child named `name`, if any. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

/** The text of the first child named `name`, if any. */
export function childText(element: XmlElement, name: string): string | undefined {
  return child(element, name)?.text;
}

/** One object of a listing page. */
export interface ListedObject {
  readonly key: string;
  readonly size: number;
}

/** One ListObjectsV2 page. */
export interface ListPage {
  /** Objects in key order. */
  readonly objects: ListedObject[];
  /** Common prefixes (with the delimiter) in key order. */
  readonly prefixes: string[];
  readonly isTruncated: boolean;
  readonly nextContinuationToken?: string;
}

/**
 * Parse a ListObjectsV2 response, requested WITHOUT `encoding-type=url`:
 * keys arrive as XML text with entities. (URL encoding is avoided because
 * servers disagree on it: AWS writes a space as "+", radosgw as "%20", so
 * "+" could not be decoded safely.)
 */
export function parseListObjectsV2(xml: string): ListPage {
  const root = parseXml(xml);
  if (root.name !== "ListBucketResult") throw new XmlError(`expected ListBucketResult, got <${root.name}>`);
  if (childText(root, "EncodingType") !== undefined) throw new XmlError("keys are URL-encoded but no encoding was requested");
  const objects: ListedObject[] = [];
  const prefixes: string[] = [];
  for (const element of root.children) {
    if (element.name === "Contents") {
      const key = childText(element, "Key");
      const sizeText = childText(element, "Size") ?? "";
      const size = Number(sizeText);
      if (key === undefined) throw new XmlError("Contents without a Key");
      if (!/^[0-9]+$/.test(sizeText.trim()) || !Number.isSafeInteger(size)) throw new XmlError(`bad Size for ${JSON.stringify(key)}`);
      objects.push({ key, size });
    } else if (element.name === "CommonPrefixes") {
      const prefix = childText(element, "Prefix");
      if (prefix === undefined) throw new XmlError("CommonPrefixes without a Prefix");
      prefixes.push(prefix);
    }
  }
  const truncatedText = childText(root, "IsTruncated")?.trim();
  const isTruncated = truncatedText === "true";
  const next = childText(root, "NextContinuationToken");
  if (isTruncated && !next) throw new XmlError("IsTruncated without a NextContinuationToken");
  return { objects, prefixes, isTruncated, ...(next ? { nextContinuationToken: next } : {}) };
}

/** The fields of an S3 `<Error>` body that are worth reporting. */
export interface S3ErrorBody {
  readonly code?: string;
  readonly message?: string;
  readonly requestId?: string;
}

/** Read an S3 error body; an empty or unparseable body yields `{}` (the status still tells). */
export function parseS3Error(xml: string): S3ErrorBody {
  if (xml.trim() === "") return {};
  try {
    const root = parseXml(xml);
    if (root.name !== "Error") return {};
    const pick = (name: string) => childText(root, name)?.trim() || undefined;
    const code = pick("Code");
    const message = pick("Message");
    const requestId = pick("RequestId");
    return { ...(code ? { code } : {}), ...(message ? { message } : {}), ...(requestId ? { requestId } : {}) };
  } catch {
    return {};
  }
}
