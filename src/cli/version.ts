/** The package version, read from package.json beside the sources (no JSON import: tsconfig has no resolveJsonModule). */
import { readFile } from "node:fs/promises";

/** `version` of package.json, or "0.0.0" when it cannot be read. */
export async function readVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
