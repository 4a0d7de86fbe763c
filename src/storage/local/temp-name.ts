/**
 * Names of the temporary files that atomic local writes rename into place.
 * The pattern is reserved: listings hide it, `cleanTempFiles` deletes it, and
 * the local provider refuses it as a path so no agent file can collide.
 */

const TEMP_NAME = /^\.[\s\S]*\.tw-[0-9a-z]{12}\.tmp$/;
const MAX_NAME_BYTES_IN_TEMP = 120;
const encoder = new TextEncoder();

/** True for a name of the form `.<name>.tw-<12 random chars>.tmp`. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * A fresh temp name for a file called `name`. The original name is kept
 * (shortened, on a code-point boundary) only to make strays recognisable;
 * the result stays under NAME_MAX even for a 255-byte name.
 */
export function tempNameFor(name: string): string {
  let kept = "";
  let bytes = 0;
  for (const ch of name) {
    bytes += encoder.encode(ch).length;
    if (bytes > MAX_NAME_BYTES_IN_TEMP) break;
    kept += ch;
  }
  const random = crypto.getRandomValues(new Uint8Array(12));
  let suffix = "";
  for (const b of random) suffix += (b % 36).toString(36);
  return `.${kept}.tw-${suffix}.tmp`;
}
