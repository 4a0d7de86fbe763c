/**
 * Names of the temporary files that atomic local writes rename into place,
 * and of the lock files held while one is (./target-lock.ts). The patterns
 * are reserved: listings hide them, `cleanTempFiles` deletes old ones, and
 * the local provider refuses them as paths so no agent file can collide.
 */

const TEMP_NAME = /^\.[\s\S]*\.tw-(?:[0-9a-z]{12}\.tmp|lock)$/;
const MAX_NAME_BYTES_IN_TEMP = 120;
const encoder = new TextEncoder();

/** True for a name of the form `.<name>.tw-<12 random chars>.tmp` or `.<name>.tw-lock`. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * A fresh temp name for a file called `name`. The original name is kept
 * (shortened, on a code-point boundary) only to make strays recognisable;
 * the result stays under NAME_MAX even for a 255-byte name.
 */
export function tempNameFor(name: string): string {
  const kept = shortened(name);
  const random = crypto.getRandomValues(new Uint8Array(12));
  let suffix = "";
  for (const b of random) suffix += (b % 36).toString(36);
  return `.${kept}.tw-${suffix}.tmp`;
}

/**
 * The lock file of a file called `name`: `.<name>.tw-lock`, the name
 * shortened as in {@link tempNameFor} (two long names that share their
 * first 120 bytes share a lock: they wait for each other, nothing worse).
 */
export function lockNameFor(name: string): string {
  return `.${shortened(name)}.tw-lock`;
}

function shortened(name: string): string {
  let kept = "";
  let bytes = 0;
  for (const ch of name) {
    bytes += encoder.encode(ch).length;
    if (bytes > MAX_NAME_BYTES_IN_TEMP) break;
    kept += ch;
  }
  return kept;
}
