/** What a crash trial writes: which files, and their old and new content. */

/** The files one trial writes: three exist before (overwrites), one does not (a create, parents included). */
export const TRIAL_FILES = ["a.txt", "b.txt", "deep/c.txt", "fresh/new/d.txt"] as const;
/** The files that exist before a trial's writes. */
export const EXISTING_FILES: readonly string[] = TRIAL_FILES.slice(0, 3);

/**
 * About `bytes` of text for `file` at `generation`. Every 64th line names
 * the generation, so old and new differ all through the file (a mix of the
 * two, or a cut-off file, matches neither) while the write tool's diff stays
 * cheap; the other lines are the same in both.
 */
export function bigContent(file: string, generation: string, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 64 === 0 ? `${generation} ${file} marker ${i}\n` : `${file} line ${i} ${"x".repeat(i % 40)}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}
