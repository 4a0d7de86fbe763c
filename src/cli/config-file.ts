/** Read the `--config FILE` (the only file I/O of the configuration). */
import { readFile } from "node:fs/promises";
import { ConfigError, loadConfig, type Config } from "../config/mod.ts";

/** Read and validate a configuration file; throws {@link ConfigError} with one line. */
export async function readConfigFile(path: string): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(path, "", code === "ENOENT" ? "no such file" : `cannot be read (${String(code ?? error)})`);
  }
  return loadConfig(text, path);
}
