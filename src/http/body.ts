/**
 * Request bodies as text. JSON is UTF-8 (RFC 8259), and a body that is not
 * is refused rather than decoded with U+FFFD replacements: a lenient decode
 * would turn a Latin-1 "é" in a write's content into a replacement
 * character and write that to the file, a silent corruption.
 */

const strict = new TextDecoder("utf-8", { fatal: true });

/** The body as text (a leading BOM dropped), or undefined when it is not valid UTF-8. */
export async function utf8Body(request: { arrayBuffer(): Promise<ArrayBuffer> }): Promise<string | undefined> {
  const bytes = await request.arrayBuffer();
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
