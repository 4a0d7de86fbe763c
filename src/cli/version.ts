/** The package version: fixed at build time in a bundle or executable, else read from package.json beside the sources. */
import { readFile } from "node:fs/promises";

// Replaced by its value in builds (scripts/build.ts passes --define); absent when running from source.
declare const TOOLWARDEN_VERSION: string | undefined;

/** `version` of package.json, or "0.0.0" when it cannot be read. */
export async function readVersion(): Promise<string> {
  if (typeof TOOLWARDEN_VERSION === "string") return TOOLWARDEN_VERSION;
  try {
    // No JSON import: tsconfig has no resolveJsonModule.
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
