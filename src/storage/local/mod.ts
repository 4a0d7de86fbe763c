/**
 * The local-directory provider's public surface (Bun and Deno, through
 * node:fs, Linux only): the provider (./provider.ts, where its containment
 * and concurrency guarantees are set out) and the start-up temp-file sweep.
 * Entries that run on Bun or Deno import it; the Worker never does.
 */
export { createLocalStorage, type LocalStorage, type LocalStorageOptions } from "./provider.ts";
export { cleanTempFiles } from "./clean.ts";
