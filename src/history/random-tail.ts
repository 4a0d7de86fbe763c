/**
 * Eight random hex digits: the tail of an entry id and of a segment name,
 * which tells apart stores and processes that write at the same moment.
 */
export function randomTail(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
}
